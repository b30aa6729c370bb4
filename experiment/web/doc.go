// Package web serves a human recognition experiment (package experiment)
// over HTTP: the participant pages (consent, instructions, practice,
// qualification, the timed trials and the completion page), the JSON API
// the page's script talks to, the opaque stimulus and mask URLs, and the
// researcher's admin page with live progress and a live human
// accuracy-vs-Δv curve per corruption.
//
// The trial timeline follows Geirhos et al. (2018, "Generalisation in
// humans and deep neural networks"): a fixation point, the stimulus for
// Design.Timing.Stimulus (200 ms), a noise mask, then a forced choice. The
// browser realises the durations by counting display frames with
// requestAnimationFrame after measuring the refresh interval (the mean of
// 90 frame deltas within ±50% of their median), and reports the measured on-screen duration of
// every stimulus; the server decides whether it met its target
// (experiment.TimingOK) and whether the claims agree with when the server
// served the trial's images (experiment.CheckTiming).
//
// Security: participants are identified by a random session cookie whose
// SHA-256 the store keeps; every state-changing request carries a CSRF
// token (double-submit cookie on the join and admin login forms, an HMAC
// of the session secret in the X-CSRF-Token header of API calls) and is
// refused when its Origin or Sec-Fetch-Site says it came from another
// site. Stimuli are served only to the participant whose trial they
// belong to, under random per-trial tokens; nothing else about a stimulus
// (ground truth, corruption, parameters, Δv, its role) reaches the
// browser. Admin pages need a login with the admin token (a server-side
// session of 12 hours, ended by logout). With a recruitment platform
// configured, joining needs its participant id; one client address holds
// at most ServerConfig.MaxPlacesPerIP places, joins are rate limited per
// address and over all, and a place is held only by answering trials
// (docs/experiment-serve.md, "Threat model"). Every client address and
// every session is rate limited (token buckets); every response carries a
// strict Content-Security-Policy and the usual hardening headers; panics
// become a plain 500 page and are logged, never shown.
package web
