// Package loadtest simulates participants of a vcr experiment against a
// running server, over HTTP exactly as a browser uses the participant API
// (docs/experiment.md): the consent page and its CSRF form, POST /join,
// the app page's CSRF token, then GET /api/state, the trial's images and
// noise mask, and POST /api/respond, trial after trial, until the
// completion page.
//
// Run drives many participants at once, each with its own cookie jar, and
// reports throughput, latency percentiles per endpoint, errors by kind and
// a client-side log of every response the server acknowledged (HTTP 200).
// It retries what a real browser would: a 409 means the trial was stored
// already (the client refetches its state), a 429 waits Retry-After, and
// network errors and 5xx are retried with exponential backoff, so that a
// load test survives the server being killed and restarted (the crash
// test in experiment/e2e).
//
// Verify checks the store afterwards: every acknowledged response is
// stored with the same answer, no trial is answered twice, every
// participant's answered trials are a prefix of its plan, no batch has
// more than ViewsPerBatch holders, and no participant saw a source image
// twice.
package loadtest
