package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// mturkPreview is MTurk's assignmentId while a worker previews a HIT.
const mturkPreview = "ASSIGNMENT_ID_NOT_AVAILABLE"

// mturkHosts are the allowed turkSubmitTo values (no open redirect).
var mturkHosts = map[string]bool{"https://www.mturk.com": true, "https://workersandbox.mturk.com": true}

// idPattern is what a platform id may look like.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_.:@-]{1,128}$`)

// The ids of a configured platform (ServerConfig.Platform). Prolific ids
// are 24 hexadecimal digits (MongoDB object ids); MTurk's are upper-case
// letters and digits: worker ids start with "A" (about 14 characters),
// assignment and HIT ids are about 30 characters; we accept up to 64.
var (
	prolificID  = regexp.MustCompile(`^[0-9a-fA-F]{24}$`)
	mturkWorker = regexp.MustCompile(`^A[0-9A-Z]{1,63}$`)
	mturkID     = regexp.MustCompile(`^[0-9A-Z]{1,64}$`)
)

// tokenPattern is what a trial token may look like.
var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

// mobileUA matches the user agents of phones and tablets.
var mobileUA = regexp.MustCompile(`(?i)mobi|android|iphone|ipad|ipod|windows phone|silk/|kindle`)

// idFields are the URL parameters passed from the consent page to /join.
var idFields = []string{"PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "workerId", "assignmentId", "hitId", "turkSubmitTo", "pid"}

// ids are a participant's platform identifiers.
type ids struct {
	external, platform, study, session string
	turkSubmitTo                       string
	preview                            bool
}

// parseIDs reads the platform ids (Prolific, MTurk or a plain pid) from
// get (URL query or form) and validates them.
func parseIDs(get func(string) string) (ids, error) {
	var v ids
	switch {
	case get("PROLIFIC_PID") != "":
		v = ids{external: get("PROLIFIC_PID"), platform: "prolific", study: get("STUDY_ID"), session: get("SESSION_ID")}
	case get("workerId") != "" || get("assignmentId") != "":
		v = ids{external: get("workerId"), platform: "mturk", study: get("hitId"), session: get("assignmentId")}
		v.preview = v.session == mturkPreview
		v.turkSubmitTo = strings.TrimRight(get("turkSubmitTo"), "/")
		if v.turkSubmitTo == "" {
			v.turkSubmitTo = "https://www.mturk.com"
		}
		if !mturkHosts[v.turkSubmitTo] {
			return v, badRequest("turkSubmitTo must be https://www.mturk.com or https://workersandbox.mturk.com.")
		}
		if v.external == "" && !v.preview {
			return v, badRequest("The link has an assignmentId but no workerId.")
		}
	default:
		v = ids{external: get("pid"), platform: "direct"}
	}
	for _, f := range []string{v.external, v.study, v.session} {
		if f != "" && !idPattern.MatchString(f) {
			return v, badRequest("The study link has an invalid participant, study or session id.")
		}
	}
	return v, nil
}

// pageData is what the page templates render.
type pageData struct {
	Title, Heading, Message string
	CSRF                    string
	Hidden                  []hidden
	Consent, Instructions   template.HTML
	Completion              *completionJSON
	Timing                  experiment.Timing
	RefuseMobile            bool
	MinWidth, MinHeight     int
	Kind                    string
	Admin                   *adminData
	Error                   string
}

type hidden struct{ Name, Value string }

// page renders template name with status code.
func (s *Server) page(w http.ResponseWriter, code int, name string, data pageData) {
	data.Title = s.title
	var b bytes.Buffer
	if err := s.pages.ExecuteTemplate(&b, name, data); err != nil {
		s.log.Error("render page", "page", name, "err", err)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "Internal server error.\n")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-store")
	}
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// handleConsent is GET /: the consent page, the MTurk preview, the
// refusal for phones, or a redirect to /run for a participant who has a
// session already.
func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, err := parseIDs(q.Get)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if v.preview {
		s.page(w, http.StatusOK, "preview", pageData{Instructions: s.instructions, Timing: s.d.Timing, Kind: s.d.Kind})
		return
	}
	if _, err := s.checkPlatform(v); err != nil {
		if p, _, serr := s.session(r); serr == nil && p.ExternalID != "" {
			// A participant who joined already may reopen the bare URL.
			http.Redirect(w, r, "/run", http.StatusSeeOther)
			return
		}
		s.fail(w, r, err)
		return
	}
	if s.cfg.RefuseMobile && mobileUA.MatchString(r.UserAgent()) {
		s.page(w, http.StatusOK, "refuse", pageData{Message: "This study needs a desktop or laptop computer with a keyboard. Please open the study link on a computer."})
		return
	}
	if p, _, err := s.session(r); err == nil && (v.external == "" || v.external == p.ExternalID) {
		http.Redirect(w, r, "/run", http.StatusSeeOther)
		return
	}
	d := pageData{CSRF: s.csrfToken(w, r), Consent: s.consent, Timing: s.d.Timing, Kind: s.d.Kind}
	for _, f := range idFields {
		if val := q.Get(f); val != "" {
			d.Hidden = append(d.Hidden, hidden{f, val})
		}
	}
	s.page(w, http.StatusOK, "consent", d)
}

// handleJoin is POST /join: consent given; create or resume the
// participant, set the session cookie and go to /run.
func (s *Server) handleJoin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			s.fail(w, r, err)
		} else {
			s.fail(w, r, badRequest("The form could not be read."))
		}
		return
	}
	if err := checkForm(r); err != nil {
		s.fail(w, r, err)
		return
	}
	if r.PostFormValue("consent") != "yes" {
		s.fail(w, r, badRequest("You can take part only after agreeing to the consent form. Please go back and tick the box."))
		return
	}
	v, err := parseIDs(r.PostFormValue)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if v.preview {
		s.fail(w, r, badRequest("Please accept the HIT before starting."))
		return
	}
	if v, err = s.checkPlatform(v); err != nil {
		s.fail(w, r, err)
		return
	}
	// The join limits come after the checks that cost nothing, so that a
	// refused malformed join does not use up an honest neighbour's share.
	addr := addrKey(s.clientIP(r))
	if wait, ok := s.joinIP.allow(addr, s.now()); !ok {
		s.fail(w, r, &limitedError{wait})
		return
	}
	if wait, ok := s.joinAll.allow("", s.now()); !ok {
		s.fail(w, r, &limitedError{wait})
		return
	}
	if v.external == "" {
		v.external = "direct-" + randomToken()[:22]
	}
	ua := r.UserAgent()
	if len(ua) > 256 {
		ua = ua[:256]
	}
	s.sweep(r.Context())
	secret := randomToken()
	if _, _, err := s.store.Join(r.Context(), experiment.JoinRequest{
		ExternalID: v.external, Platform: v.platform, StudyID: v.study, SessionID: v.session,
		UserAgent: ua, SessionHash: sessionHash(secret), Now: s.now(),
		Addr: mac(s.adminToken, "addr "+addr)[:22], MaxPerAddr: s.maxPerAddr,
	}); err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: secret, Path: "/", HttpOnly: true,
		Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode, MaxAge: 30 * 24 * 3600})
	if v.platform == "mturk" {
		http.SetCookie(w, &http.Cookie{Name: turkCookie, Value: v.turkSubmitTo, Path: "/", HttpOnly: true,
			Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode, MaxAge: 30 * 24 * 3600})
	}
	http.Redirect(w, r, "/run", http.StatusSeeOther)
}

// session returns the participant of the request's session cookie and
// the cookie's secret, after taking a token from the session's bucket.
func (s *Server) session(r *http.Request) (*experiment.Participant, string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || !validToken(c.Value) {
		return nil, "", errNoSession
	}
	h := sessionHash(c.Value)
	if wait, ok := s.sessionLimit.allow(string(h), s.now()); !ok {
		return nil, "", &limitedError{wait}
	}
	p, err := s.store.BySession(r.Context(), h)
	if errors.Is(err, experiment.ErrNotFound) {
		return nil, "", errNoSession
	}
	if err != nil {
		return nil, "", err
	}
	return p, c.Value, nil
}

// handleRun is GET /run: the trial app.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	_, secret, err := s.session(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.page(w, http.StatusOK, "run", pageData{CSRF: apiCSRF(secret), Instructions: s.instructions, Timing: s.d.Timing,
		RefuseMobile: s.cfg.RefuseMobile, MinWidth: s.cfg.MinWidth, MinHeight: s.cfg.MinHeight, Kind: s.d.Kind})
}

// handleDone is GET /done: the completion (or screen-out) page.
func (s *Server) handleDone(w http.ResponseWriter, r *http.Request) {
	p, _, err := s.session(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.sync(r.Context(), p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	switch st.phase {
	case experiment.PhaseDone, experiment.PhaseScreenedOut:
		c := s.completion(r, p, st.phase)
		d := pageData{Completion: c, Heading: "Thank you!", Message: "You have finished the study."}
		if st.phase == experiment.PhaseScreenedOut {
			d.Heading = "Thank you for your time"
			d.Message = "Unfortunately you did not pass the qualification trials, so the study ends here."
		}
		s.page(w, http.StatusOK, "done", d)
	case experiment.PhaseAbandoned:
		s.page(w, http.StatusOK, "message", pageData{Heading: "Session ended",
			Message: "Your session has ended because it was inactive for too long. Please return the study on your platform."})
	default:
		http.Redirect(w, r, "/run", http.StatusSeeOther)
	}
}

// categoryJSON is one answer button.
type categoryJSON struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Key   string `json:"key,omitempty"`
	Image string `json:"image,omitempty"`
}

type trialJSON struct {
	Index    int      `json:"index"`
	Images   []string `json:"images"`
	Mask     string   `json:"mask"`
	Feedback bool     `json:"feedback"`
}

type timingJSON struct {
	Fixation        int64   `json:"fixation_ms"`
	Stimulus        int64   `json:"stimulus_ms"`
	Mask            int64   `json:"mask_ms"`
	Response        int64   `json:"response_ms"`
	InterTrial      int64   `json:"inter_trial_ms"`
	ToleranceFrames float64 `json:"tolerance_frames"`
}

type completionJSON struct {
	Code        string `json:"code"`
	RedirectURL string `json:"redirect_url,omitempty"`
	// MTurkSubmit is the form action of an MTurk assignment (POST with
	// assignmentId).
	MTurkSubmit  string `json:"mturk_submit,omitempty"`
	AssignmentID string `json:"assignment_id,omitempty"`
}

// stateJSON is the body of GET /api/state and POST /api/respond.
type stateJSON struct {
	Phase      string          `json:"phase"`
	Done       int             `json:"done"`
	Total      int             `json:"total"`
	Trial      *trialJSON      `json:"trial,omitempty"`
	Categories []categoryJSON  `json:"categories"`
	Timing     timingJSON      `json:"timing"`
	Completion *completionJSON `json:"completion,omitempty"`
	// Correct is set in the answer to a practice trial only.
	Correct *bool `json:"correct,omitempty"`
}

// pstate is a participant's state as the server sees it.
type pstate struct {
	phase       string
	next        *experiment.Trial
	done, total int
	trials      []experiment.Trial
}

// sync loads the participant's trials, derives the state and records a
// status change (completed, excluded, screened out) in the store.
func (s *Server) sync(ctx context.Context, p *experiment.Participant) (pstate, error) {
	if err := s.expire(ctx, p); err != nil {
		return pstate{}, err
	}
	trials, err := s.store.Trials(ctx, p.ID)
	if err != nil {
		return pstate{}, err
	}
	st := experiment.State(s.d, p, trials)
	if p.Status == experiment.StatusActive && st.Status != "" && st.Status != experiment.StatusActive {
		if err := s.store.SetStatus(ctx, p.ID, st.Status, st.Reason, s.now()); err != nil {
			return pstate{}, err
		}
		p.Status, p.Reason = st.Status, st.Reason
	}
	out := pstate{phase: st.Phase, next: st.Next, done: st.Done, total: st.Total, trials: trials}
	// State knows abandoned participants; any other inactive one with
	// open trials (it should not exist) is treated alike.
	if st.Next != nil && p.Status != experiment.StatusActive {
		out.phase, out.next = experiment.PhaseAbandoned, nil
	}
	return out, nil
}

// expire marks p abandoned when it is active and has made no progress
// (LastSeen: joined or last answer) for longer than the design's Abandon,
// whatever it sends now: only answers hold a place.
func (s *Server) expire(ctx context.Context, p *experiment.Participant) error {
	if p.Status != experiment.StatusActive || s.d.Abandon <= 0 || s.now().Sub(p.LastSeen) <= s.d.Abandon {
		return nil
	}
	if err := s.store.SetStatus(ctx, p.ID, experiment.StatusAbandoned, abandonReason, s.now()); err != nil {
		return err
	}
	p.Status, p.Reason = experiment.StatusAbandoned, abandonReason
	return nil
}

// abandonReason is the Reason of a participant expire abandoned (the
// store's Abandon records the same).
const abandonReason = "abandoned"

// sweep marks the idle holders of every participant abandoned
// (Store.Abandon) before a join, at most once per sweepEvery, so that a
// newcomer never finds the study full of idle places.
func (s *Server) sweep(ctx context.Context) {
	if s.d.Abandon <= 0 {
		return
	}
	now := s.now()
	last := s.swept.Load()
	if now.UnixNano()-last < int64(sweepEvery) || !s.swept.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if _, err := s.store.Abandon(ctx, now.Add(-s.d.Abandon)); err != nil {
		s.log.Error("abandon idle participants", "err", err)
	}
}

const sweepEvery = 5 * time.Second

// checkPlatform applies the configured recruitment platform's rules to the
// ids of a join: with a platform, its participant id is required in its
// format (prolificID, mturkWorker…), unless the config allows anonymous
// entry, and then only ids of no platform are accepted besides.
func (s *Server) checkPlatform(v ids) (ids, error) {
	switch s.cfg.Platform {
	case "":
		return v, nil
	case experiment.PlatformProlific:
		if v.platform == experiment.PlatformProlific {
			if !prolificID.MatchString(v.external) {
				return v, badRequest("The Prolific id (PROLIFIC_PID) must be 24 hexadecimal characters. Please open the study from Prolific.")
			}
			return v, nil
		}
	case experiment.PlatformMTurk:
		if v.platform == experiment.PlatformMTurk {
			if !mturkWorker.MatchString(v.external) || !mturkID.MatchString(v.session) || !mturkID.MatchString(v.study) {
				return v, badRequest("The MTurk workerId, assignmentId or hitId is missing or malformed. Please open the HIT from Mechanical Turk.")
			}
			return v, nil
		}
	}
	if s.cfg.AllowAnonymous && v.platform == "direct" {
		return v, nil
	}
	name := "Prolific"
	if s.cfg.Platform == experiment.PlatformMTurk {
		name = "Mechanical Turk"
	}
	return v, badRequest("This study takes participants from " + name + " only: please open it from there (the link carries your participant id).")
}

// completion returns where a finished participant goes; nil for a
// participant who came without the configured platform's id (allowed
// anonymously): the platform's code is for its participants only.
func (s *Server) completion(r *http.Request, p *experiment.Participant, phase string) *completionJSON {
	if s.cfg.Platform != "" && p.Platform != s.cfg.Platform {
		return nil
	}
	c := s.d.Completion
	out := &completionJSON{Code: c.Code, RedirectURL: c.RedirectURL}
	if phase == experiment.PhaseScreenedOut {
		out = &completionJSON{Code: c.ScreenOutCode, RedirectURL: c.ScreenOutURL}
	}
	switch p.Platform {
	case "prolific":
		if out.RedirectURL == "" && out.Code != "" {
			out.RedirectURL = "https://app.prolific.com/submissions/complete?cc=" + url.QueryEscape(out.Code)
		}
	case "mturk":
		host := "https://www.mturk.com"
		if ck, err := r.Cookie(turkCookie); err == nil && mturkHosts[ck.Value] {
			host = ck.Value
		}
		out.RedirectURL = ""
		out.MTurkSubmit = host + "/mturk/externalSubmit"
		out.AssignmentID = p.SessionID
	}
	return out
}

// stateJSON is the state the browser sees: no stimulus ids, roles (but
// practice, for feedback), ground truth or corruptions.
func (s *Server) stateJSON(r *http.Request, p *experiment.Participant, st pstate) *stateJSON {
	t := s.d.Timing
	out := &stateJSON{Phase: st.phase, Done: st.done, Total: st.total, Categories: s.categories,
		Timing: timingJSON{Fixation: t.Fixation.Milliseconds(), Stimulus: t.Stimulus.Milliseconds(), Mask: t.Mask.Milliseconds(),
			Response: t.Response.Milliseconds(), InterTrial: t.InterTrial.Milliseconds(), ToleranceFrames: t.ToleranceFrames}}
	if n := st.next; n != nil {
		tj := &trialJSON{Index: n.Index, Images: []string{"/stim/" + n.Token + "/0"}, Mask: "/mask/" + n.Token,
			Feedback: n.Role == experiment.RolePractice}
		if stim := s.d.Stimulus(n.StimulusID); stim != nil && stim.Path2 != "" {
			tj.Images = append(tj.Images, "/stim/"+n.Token+"/1")
		}
		out.Trial = tj
	}
	if st.phase == experiment.PhaseDone || st.phase == experiment.PhaseScreenedOut {
		out.Completion = s.completion(r, p, st.phase)
	}
	return out
}

// handleState is GET /api/state.
func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	p, _, err := s.session(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.sync(r.Context(), p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.stateJSON(r, p, st))
}

// respondRequest is the body of POST /api/respond; every field is
// required.
type respondRequest struct {
	Index     *int     `json:"index"`
	Response  *string  `json:"response"`
	RTms      *float64 `json:"rt_ms"`
	ShownMS   *float64 `json:"shown_ms"`
	MaskMS    *float64 `json:"mask_ms"`
	RefreshHz *float64 `json:"refresh_hz"`
	Frames    *int     `json:"frames"`
	Input     *string  `json:"input"`
}

// Limits of the respond fields.
const (
	maxIndex  = 1_000_000
	maxRTms   = 3_600_000 // an hour
	maxShowMS = 60_000
	maxFrames = 100_000
	minHz     = 1
	maxHz     = 1000
)

// decodeRespond reads and validates a respond body.
func (s *Server) decodeRespond(w http.ResponseWriter, r *http.Request) (int, experiment.Response, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var in respondRequest
	if err := dec.Decode(&in); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return 0, experiment.Response{}, err
		}
		return 0, experiment.Response{}, badRequest("invalid request body: " + err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, experiment.Response{}, badRequest("invalid request body: more than one JSON value")
	}
	for _, f := range []struct {
		name string
		ok   bool
	}{{"index", in.Index != nil}, {"response", in.Response != nil}, {"rt_ms", in.RTms != nil}, {"shown_ms", in.ShownMS != nil},
		{"mask_ms", in.MaskMS != nil}, {"refresh_hz", in.RefreshHz != nil}, {"frames", in.Frames != nil}, {"input", in.Input != nil}} {
		if !f.ok {
			return 0, experiment.Response{}, badRequest("missing field " + f.name)
		}
	}
	inRange := func(v, lo, hi float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= lo && v <= hi }
	switch {
	case *in.Index < 0 || *in.Index > maxIndex:
		return 0, experiment.Response{}, badRequest("index out of range")
	case !s.answers[*in.Response]:
		return 0, experiment.Response{}, badRequest("response is not one of the answer options")
	case !inRange(*in.RTms, 0, maxRTms):
		return 0, experiment.Response{}, badRequest("rt_ms must lie in [0, 3600000]")
	case !inRange(*in.ShownMS, 0, maxShowMS):
		return 0, experiment.Response{}, badRequest("shown_ms must lie in [0, 60000]")
	case !inRange(*in.MaskMS, 0, maxShowMS):
		return 0, experiment.Response{}, badRequest("mask_ms must lie in [0, 60000]")
	case !inRange(*in.RefreshHz, minHz, maxHz):
		return 0, experiment.Response{}, badRequest("refresh_hz must lie in [1, 1000]")
	case *in.Frames < 0 || *in.Frames > maxFrames:
		return 0, experiment.Response{}, badRequest("frames out of range")
	case *in.Input != "key" && *in.Input != "mouse":
		return 0, experiment.Response{}, badRequest(`input must be "key" or "mouse"`)
	}
	return *in.Index, experiment.Response{
		Response: *in.Response, RTms: *in.RTms, ShownMS: *in.ShownMS, MaskMS: *in.MaskMS,
		RefreshHz: *in.RefreshHz, Frames: *in.Frames, Input: *in.Input,
		TimingOK: experiment.TimingOK(s.d.Timing, *in.ShownMS, *in.RefreshHz),
		At:       s.now(),
	}, nil
}

// handleRespond is POST /api/respond: store the answer (durably), then
// return the new state.
func (s *Server) handleRespond(w http.ResponseWriter, r *http.Request) {
	p, secret, err := s.session(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if crossOrigin.Check(r) != nil || !equal(r.Header.Get("X-CSRF-Token"), apiCSRF(secret)) {
		s.fail(w, r, errForbidden)
		return
	}
	idx, resp, err := s.decodeRespond(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.expire(r.Context(), p); err != nil {
		s.fail(w, r, err)
		return
	}
	trials, err := s.store.Trials(r.Context(), p.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if idx < len(trials) {
		// An answer right after its images were served finds them still
		// queued: write them and read the trials again.
		flushed, err := s.servedLog.flushFor(r.Context(), trials[idx].Token)
		if err == nil && flushed {
			trials, err = s.store.Trials(r.Context(), p.ID)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if idx < len(trials) {
		t := &trials[idx]
		resp.Implausible = experiment.CheckTiming(s.d.Timing, &resp, t.StimulusServed, t.MaskServed)
		resp.TimingOK = resp.Implausible == "" && experiment.TimingOK(s.d.Timing, resp.ShownMS, resp.RefreshHz)
	}
	if err := s.store.Respond(r.Context(), p.ID, idx, resp); err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.sync(r.Context(), p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := s.stateJSON(r, p, st)
	if idx < len(st.trials) && st.trials[idx].Role == experiment.RolePractice {
		if stim := s.d.Stimulus(st.trials[idx].StimulusID); stim != nil {
			ok := experiment.Correct(s.d, stim, resp.Response)
			out.Correct = &ok
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// ownTrial returns the unanswered trial with the token if it belongs to
// the request's participant; any other case is ErrNotFound (a rate limit
// stays a 429).
func (s *Server) ownTrial(r *http.Request) (*experiment.Trial, *experiment.Stimulus, error) {
	p, _, err := s.session(r)
	var le *limitedError
	if errors.As(err, &le) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, errNotFound
	}
	token := r.PathValue("token")
	if !tokenPattern.MatchString(token) {
		return nil, nil, errNotFound
	}
	t, err := s.store.TrialByToken(r.Context(), token)
	if errors.Is(err, experiment.ErrNotFound) {
		return nil, nil, errNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	if t.Participant != p.ID || t.Answer != nil {
		return nil, nil, errNotFound
	}
	stim := s.d.Stimulus(t.StimulusID)
	if stim == nil {
		return nil, nil, errors.New("trial " + token[:4] + "…: stimulus not in the design")
	}
	return t, stim, nil
}

// imageCache keeps trial images out of caches: the server must see every
// fetch (Store.Served), so that the answer's timing is judged against the
// fetch that preceded it.
const imageCache = "no-store"

// served records that the trial's image or mask is being served now
// (written in a batch, servedLog). A failure is logged only: the trial
// then counts as never fetched, which costs its timing_ok, not the
// participant's progress.
func (s *Server) served(r *http.Request, t *experiment.Trial, mask bool) {
	s.servedLog.add(experiment.ServedImage{Token: t.Token, Mask: mask, At: s.now()})
}

// handleStimulus is GET /stim/{token}/{n}: image n (0, or 1 for the
// second image of a pair) of the participant's own trial.
func (s *Server) handleStimulus(w http.ResponseWriter, r *http.Request) {
	t, stim, err := s.ownTrial(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	path := stim.Path
	switch r.PathValue("n") {
	case "0":
	case "1":
		path = stim.Path2
	default:
		path = ""
	}
	if path == "" {
		s.fail(w, r, errNotFound)
		return
	}
	b, err := s.readImage(path)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if r.PathValue("n") == "0" {
		s.served(r, t, false)
	}
	w.Header().Set("Cache-Control", imageCache)
	w.Header().Set("Content-Type", imageType(b))
	w.Write(b)
}

// handleMask is GET /mask/{token}: the trial's noise mask (PNG) at the
// size of its stimulus.
func (s *Server) handleMask(w http.ResponseWriter, r *http.Request) {
	t, stim, err := s.ownTrial(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	wh, err := s.imageSize(stim.Path)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wh[0] < 1 || wh[1] < 1 || wh[0]*wh[1] > experiment.MaxMaskPixels {
		s.fail(w, r, fmt.Errorf("stimulus %s is %d×%d, too large for a mask", stim.ID, wh[0], wh[1]))
		return
	}
	b := s.mask(t.Mask, wh[0], wh[1])
	s.served(r, t, true)
	w.Header().Set("Cache-Control", imageCache)
	w.Header().Set("Content-Type", "image/png")
	w.Write(b)
}

// handleCategoryImage is GET /cat/{n}: the button image of category n.
func (s *Server) handleCategoryImage(w http.ResponseWriter, r *http.Request) {
	i, ok := smallInt(r.PathValue("n"), len(s.d.Categories))
	if !ok || s.d.Kind == experiment.KindDistinguish || s.d.Categories[i].Image == "" {
		s.fail(w, r, errNotFound)
		return
	}
	b, err := s.readImage(s.d.Categories[i].Image)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Type", imageType(b))
	w.Write(b)
}

// smallInt parses a decimal in [0, n).
func smallInt(v string, n int) (int, bool) {
	if v == "" || len(v) > 6 {
		return 0, false
	}
	i := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = 10*i + int(c-'0')
	}
	return i, i < n
}
