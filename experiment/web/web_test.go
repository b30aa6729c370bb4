package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// TestFullRun walks one Prolific participant through consent, practice
// (with feedback), qualification and the main trials to the completion
// page, checking that every answer is stored before the next trial is
// served and that the participant ends up completed.
func TestFullRun(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("PROLIFIC_PID=5f0c0ffee0123456789abcde&STUDY_ID=study1&SESSION_ID=sess1")

	st := c.state()
	if st.Phase != "practice" || st.Done != 0 || st.Total != 9 || st.Trial == nil || !st.Trial.Feedback || st.Completion != nil {
		t.Fatalf("first state %+v", st)
	}
	if len(st.Categories) != 3 || st.Categories[2].Image != "/cat/2" || st.Categories[2].Label != "Car" || st.Categories[0].Label != "cat" {
		t.Errorf("categories %+v", st.Categories)
	}
	if st.Timing.Stimulus != 200 || st.Timing.Mask != 200 || st.Timing.Fixation != 500 || st.Timing.ToleranceFrames != 1 {
		t.Errorf("timing %+v", st.Timing)
	}
	phases := []string{}
	lastImage := ""
	for st.Trial != nil {
		lastImage = st.Trial.Images[0]
		phases = append(phases, st.Phase)
		idx := st.Trial.Index
		// The trial's images and mask are served to their participant.
		for _, u := range append(st.Trial.Images, st.Trial.Mask) {
			res, body := c.get(u)
			if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/png") || !strings.HasPrefix(body, "\x89PNG") {
				t.Fatalf("GET %s: %d %s", u, res.StatusCode, res.Header.Get("Content-Type"))
			}
			if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("GET %s: Cache-Control %q", u, cc)
			}
		}
		before := e.store.responds.Load()
		gt := e.truth(st.Trial.Images[0])
		resp := gt
		if idx == 1 {
			resp = wrong(gt) // the second practice trial wrong: feedback says so
		}
		res, body := c.respondRaw(answer(idx, resp), nil)
		if res.StatusCode != 200 {
			t.Fatalf("respond %d: %d %s", idx, res.StatusCode, body)
		}
		if e.store.responds.Load() != before+1 {
			t.Fatalf("respond %d returned 200 before the answer was stored", idx)
		}
		var next stateJSON
		if err := json.Unmarshal([]byte(body), &next); err != nil {
			t.Fatal(err)
		}
		switch {
		case idx < 2 && (next.Correct == nil || *next.Correct != (idx == 0)):
			t.Errorf("practice trial %d: correct = %v", idx, next.Correct)
		case idx >= 2 && next.Correct != nil:
			t.Errorf("trial %d (not practice) has feedback %v", idx, *next.Correct)
		}
		if next.Trial != nil && next.Trial.Index != idx+1 {
			t.Fatalf("after trial %d the next is %d", idx, next.Trial.Index)
		}
		st = &next
	}
	want := "practice practice qualification qualification qualification main main main main"
	if got := strings.Join(phases, " "); got != want {
		t.Errorf("phases %s, want %s", got, want)
	}
	if st.Phase != "done" || st.Done != 9 || st.Completion == nil || st.Completion.Code != "C0DE123" ||
		st.Completion.RedirectURL != "https://app.prolific.com/submissions/complete?cc=C0DE123" {
		t.Fatalf("final state %+v completion %+v", st, st.Completion)
	}
	var p experiment.Participant
	e.store.Participants(context.Background(), func(q *experiment.Participant) error { p = *q; return nil })
	if p.Status != experiment.StatusCompleted || p.Platform != "prolific" || p.ExternalID != "5f0c0ffee0123456789abcde" ||
		p.StudyID != "study1" || p.SessionID != "sess1" {
		t.Errorf("participant %+v", p)
	}
	trials, _ := e.store.Trials(context.Background(), p.ID)
	for _, tr := range trials {
		a := tr.Answer
		if a == nil || a.RTms != 812.5 || a.ShownMS != 200.1 || a.RefreshHz != 60 || a.Frames != 12 || a.Input != "key" || !a.TimingOK || a.At.IsZero() {
			t.Errorf("trial %d answer %+v", tr.Index, a)
		}
	}
	res, body := c.get("/done")
	if res.StatusCode != 200 || !strings.Contains(body, "C0DE123") ||
		!strings.Contains(body, `data-url="https://app.prolific.com/submissions/complete?cc=C0DE123"`) {
		t.Errorf("done page %d\n%s", res.StatusCode, body)
	}
	// Answered trials' images are no longer served.
	if res, _ := c.get(lastImage); res.StatusCode != 404 {
		t.Errorf("GET %s after answering: %d, want 404", lastImage, res.StatusCode)
	}
	noSecrets(t, e, c.bodies)
}

// noSecrets checks that no participant-facing body names a corruption, a
// stimulus or source id, a parameter, a Δv, a role other than the phase
// names, or an image path.
func noSecrets(t *testing.T, e *env, bodies []string) {
	t.Helper()
	var secrets []string
	for _, s := range e.d.Stimuli {
		secrets = append(secrets, s.ID, s.SourceID, s.Path, s.Params, s.Pair)
		if s.Corruption != "" {
			secrets = append(secrets, s.Corruption)
		}
	}
	secrets = append(secrets, "imgs/", "ground_truth", "stimulus_id", `"stimulus"`, "sanity", "vifvec", `"dv"`, "corruption", e.d.Hash, "buttons/car.png")
	for i, b := range bodies {
		for _, s := range secrets {
			if s != "" && strings.Contains(b, s) {
				t.Errorf("participant response %d contains %q:\n%.400s", i, s, b)
			}
		}
		if strings.HasPrefix(b, "{") {
			var m map[string]any
			if json.Unmarshal([]byte(b), &m) == nil {
				for k := range m {
					switch k {
					case "phase", "done", "total", "trial", "categories", "timing", "completion", "correct", "error":
					default:
						t.Errorf("participant JSON has field %q", k)
					}
				}
			}
		}
	}
}

// TestScreenedOut: failing the qualification ends the study with the
// screen-out code; later answers are refused.
func TestScreenedOut(t *testing.T) {
	e := newEnv(t, func(_ *experiment.ServerConfig, d *experiment.Design) {
		d.Completion.ScreenOutURL = "https://example.org/screened?c=SCREEN9"
	})
	c := e.client()
	c.join("PROLIFIC_PID=p2")
	st := c.finish(func(phase string) bool { return phase == "qualification" })
	if st.Phase != "screened_out" || st.Trial != nil || st.Completion == nil || st.Completion.Code != "SCREEN9" ||
		st.Completion.RedirectURL != "https://example.org/screened?c=SCREEN9" || st.Done != 5 {
		t.Fatalf("state %+v %+v", st, st.Completion)
	}
	var p experiment.Participant
	e.store.Participants(context.Background(), func(q *experiment.Participant) error { p = *q; return nil })
	if p.Status != experiment.StatusScreenedOut || p.Reason == "" {
		t.Errorf("participant %+v", p)
	}
	if res, body := c.respondRaw(answer(5, "cat"), nil); res.StatusCode != http.StatusConflict || !strings.Contains(body, `"error"`) {
		t.Errorf("respond after screen-out: %d %s", res.StatusCode, body)
	}
	if _, body := c.get("/done"); !strings.Contains(body, "SCREEN9") {
		t.Errorf("done page lacks the screen-out code:\n%s", body)
	}
	noSecrets(t, e, c.bodies)
}

// TestExcluded: a failed sanity trial excludes the participant, who still
// gets the completion code.
func TestExcluded(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("pid=worker-7")
	// Main-phase trials wrong: the sanity trial among them fails.
	st := c.finish(func(phase string) bool { return phase == "main" })
	if st.Phase != "done" || st.Completion == nil || st.Completion.Code != "C0DE123" || st.Completion.RedirectURL != "" {
		t.Fatalf("state %+v %+v", st, st.Completion)
	}
	var p experiment.Participant
	e.store.Participants(context.Background(), func(q *experiment.Participant) error { p = *q; return nil })
	if p.Status != experiment.StatusExcluded || p.Platform != "direct" || p.ExternalID != "worker-7" {
		t.Errorf("participant %+v", p)
	}
}

// TestMTurk: preview without a form; the completion page posts the
// assignment to the sandbox's externalSubmit.
func TestMTurk(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	res, body := c.get("/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
	if res.StatusCode != 200 || strings.Contains(body, "<form") || !strings.Contains(body, "preview") {
		t.Errorf("preview: %d\n%s", res.StatusCode, body)
	}
	if res, _ := c.get("/?workerId=W1&assignmentId=A1&hitId=H1&turkSubmitTo=https%3A%2F%2Fevil.example"); res.StatusCode != 400 {
		t.Errorf("foreign turkSubmitTo: %d, want 400", res.StatusCode)
	}
	c.join("workerId=W1&assignmentId=A1&hitId=H1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com")
	st := c.finish(nil)
	if st.Completion == nil || st.Completion.MTurkSubmit != "https://workersandbox.mturk.com/mturk/externalSubmit" || st.Completion.AssignmentID != "A1" {
		t.Fatalf("completion %+v", st.Completion)
	}
	_, body = c.get("/done")
	for _, want := range []string{`action="https://workersandbox.mturk.com/mturk/externalSubmit"`, `name="assignmentId" value="A1"`, "C0DE123"} {
		if !strings.Contains(body, want) {
			t.Errorf("done page lacks %s:\n%s", want, body)
		}
	}
}

// TestConfiguredRedirect: a configured redirect URL wins over the
// Prolific default.
func TestConfiguredRedirect(t *testing.T) {
	e := newEnv(t, func(_ *experiment.ServerConfig, d *experiment.Design) {
		d.Completion.RedirectURL = "https://app.prolific.com/submissions/complete?cc=OTHER"
	})
	c := e.client()
	c.join("PROLIFIC_PID=p9")
	if st := c.finish(nil); st.Completion.RedirectURL != "https://app.prolific.com/submissions/complete?cc=OTHER" {
		t.Errorf("redirect %q", st.Completion.RedirectURL)
	}
}

// TestResume: a reload continues where the participant was; joining
// again with the same platform id (another browser) moves the session.
func TestResume(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("PROLIFIC_PID=p3")
	for range 3 {
		st := c.state()
		if res, body := c.respondRaw(answer(st.Trial.Index, e.truth(st.Trial.Images[0])), nil); res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
	}
	// Reload: the consent link redirects to /run; the state resumes.
	if res, _ := c.get("/?PROLIFIC_PID=p3"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/run" {
		t.Errorf("consent with a session: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	c.run()
	st := c.state()
	if st.Done != 3 || st.Trial.Index != 3 || st.Phase != "qualification" {
		t.Fatalf("after reload %+v", st)
	}
	// Another browser with the same id takes over.
	c2 := e.client()
	c2.join("PROLIFIC_PID=p3")
	if st2 := c2.state(); st2.Done != 3 || st2.Trial.Index != 3 {
		t.Fatalf("other browser %+v", st2)
	}
	if res, _ := c.get("/api/state"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("old session: %d, want 401", res.StatusCode)
	}
	if e.store.participants(t) != 1 {
		t.Errorf("%d participants, want 1", e.store.participants(t))
	}
	// A lost acknowledgement: the client retries the same answer and gets
	// 409, then the state shows it stored.
	st = c2.state()
	ans := answer(st.Trial.Index, e.truth(st.Trial.Images[0]))
	if res, _ := c2.respondRaw(ans, nil); res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	if res, body := c2.respondRaw(ans, nil); res.StatusCode != http.StatusConflict || !strings.Contains(body, "answered already") {
		t.Errorf("duplicate: %d %s", res.StatusCode, body)
	}
	if st := c2.state(); st.Done != 4 {
		t.Errorf("done %d, want 4", st.Done)
	}
}

// TestAbandoned: a participant marked abandoned sees the session as
// abandoned and cannot answer.
func TestAbandoned(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("PROLIFIC_PID=p4")
	if n, _ := e.store.Abandon(context.Background(), time.Now().Add(time.Hour)); n != 1 {
		t.Fatalf("abandoned %d", n)
	}
	st := c.state()
	if st.Phase != "abandoned" || st.Trial != nil || st.Completion != nil {
		t.Errorf("state %+v", st)
	}
	if res, _ := c.respondRaw(answer(0, "cat"), nil); res.StatusCode != http.StatusConflict {
		t.Errorf("respond: %d, want 409", res.StatusCode)
	}
	if _, body := c.get("/done"); !strings.Contains(body, "inactive") {
		t.Errorf("done page:\n%s", body)
	}
}

// TestFull: once every batch has its participants, joining is refused
// with 503 and a plain page.
func TestFull(t *testing.T) {
	e := newEnv(t, nil)
	for i := range 2 {
		e.client().join(fmt.Sprintf("PROLIFIC_PID=full%d", i))
	}
	c := e.client()
	v := c.consentForm("PROLIFIC_PID=full2")
	v.Set("consent", "yes")
	res, body := c.postForm("/join", v, nil)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "full") {
		t.Errorf("join a full study: %d\n%s", res.StatusCode, body)
	}
}

// TestDistinguish: pairs get two image URLs and same/different answers.
func TestDistinguish(t *testing.T) {
	e := newEnv(t, func(_ *experiment.ServerConfig, d *experiment.Design) {
		d.Kind = experiment.KindDistinguish
		for i := range d.Stimuli {
			s := &d.Stimuli[i]
			s.Path2 = d.Stimuli[(i+1)%len(d.Stimuli)].Path
			s.Corruption2 = "fog"
			s.Pair = "gaussian_noise|fog"
			s.GroundTruth = []string{experiment.AnswerSame, experiment.AnswerDifferent}[i%2]
		}
	})
	c := e.client()
	c.join("pid=d1")
	st := c.state()
	if len(st.Trial.Images) != 2 || len(st.Categories) != 2 || st.Categories[0].Name != "same" {
		t.Fatalf("state %+v", st)
	}
	for _, u := range st.Trial.Images {
		if res, _ := c.get(u); res.StatusCode != 200 {
			t.Errorf("GET %s: %d", u, res.StatusCode)
		}
	}
	if res, _ := c.respondRaw(answer(0, "cat"), nil); res.StatusCode != 400 {
		t.Errorf("a category as a distinguish answer: %d", res.StatusCode)
	}
	if res, _ := c.respondRaw(answer(0, "same"), nil); res.StatusCode != 200 {
		t.Errorf("same: %d", res.StatusCode)
	}
	noSecrets(t, e, c.bodies)
	// The admin page has one live curve per corruption pair; without
	// answered main trials it says so.
	a := e.client()
	a.adminLogin(testAdminToken, nil)
	_, body := a.get("/admin/api/progress")
	if !strings.Contains(body, `"corruption":"gaussian_noise vs fog"`) || strings.Count(body, `"url"`) != 1 {
		t.Errorf("progress %s", body)
	}
	if res, body := a.get("/admin/curve/0"); res.StatusCode != 200 || !strings.Contains(body, "no trials yet") {
		t.Errorf("curve %d %s", res.StatusCode, body)
	}
}

// TestRefuseMobile: phones get a refusal page instead of the consent
// form; the run page carries the window-size limits for the script.
func TestRefuseMobile(t *testing.T) {
	e := newEnv(t, func(cfg *experiment.ServerConfig, _ *experiment.Design) {
		cfg.RefuseMobile, cfg.MinWidth, cfg.MinHeight = true, 900, 600
	})
	c := e.client()
	req, _ := http.NewRequest("GET", e.ts.URL+"/?PROLIFIC_PID=m1", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148")
	res, body := c.do(req)
	if res.StatusCode != 200 || strings.Contains(body, "<form") || !strings.Contains(body, "computer") {
		t.Errorf("phone: %d\n%s", res.StatusCode, body)
	}
	c.join("PROLIFIC_PID=m1")
	_, body = c.get("/run")
	if !strings.Contains(body, `data-refuse-mobile="true" data-min-width="900" data-min-height="600"`) {
		t.Errorf("run page lacks the limits:\n%s", body)
	}
}

// TestConsentPage: the ids travel as hidden fields with the CSRF token
// equal to the cookie; no consent, no join.
func TestConsentPage(t *testing.T) {
	e := newEnv(t, func(cfg *experiment.ServerConfig, _ *experiment.Design) {})
	c := e.client()
	v := c.consentForm("PROLIFIC_PID=abc&STUDY_ID=s&SESSION_ID=x&junk=1")
	if v.Get("PROLIFIC_PID") != "abc" || v.Get("STUDY_ID") != "s" || v.Get("SESSION_ID") != "x" || v.Has("junk") || v.Get("csrf") == "" {
		t.Errorf("hidden fields %v", v)
	}
	u, _ := url.Parse(e.ts.URL)
	var cookie string
	for _, ck := range c.c.Jar.Cookies(u) {
		if ck.Name == csrfCookie {
			cookie = ck.Value
		}
	}
	if cookie != v.Get("csrf") {
		t.Errorf("csrf field %q, cookie %q", v.Get("csrf"), cookie)
	}
	res, _ := c.postForm("/join", v, nil) // no consent=yes
	if res.StatusCode != 400 {
		t.Errorf("join without consent: %d", res.StatusCode)
	}
	if res, _ := c.get("/?PROLIFIC_PID=" + url.QueryEscape("<script>")); res.StatusCode != 400 {
		t.Errorf("invalid id: %d", res.StatusCode)
	}
	if res, body := c.get("/run"); res.StatusCode != 401 || !strings.Contains(body, "study link") {
		t.Errorf("run without a session: %d", res.StatusCode)
	}
	if res, body := c.get("/healthz"); res.StatusCode != 200 || body != "ok" {
		t.Errorf("healthz %d %q", res.StatusCode, body)
	}
	if res, body := c.get("/static/app.js"); res.StatusCode != 200 || !strings.Contains(body, "requestAnimationFrame") {
		t.Errorf("app.js %d", res.StatusCode)
	}
}

// TestCategoryImage: button images are served by index.
func TestCategoryImage(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	if res, body := c.get("/cat/2"); res.StatusCode != 200 || !strings.HasPrefix(body, "\x89PNG") {
		t.Errorf("/cat/2: %d", res.StatusCode)
	}
	for _, p := range []string{"/cat/0", "/cat/3", "/cat/-1", "/cat/x", "/cat/99999999"} {
		if res, _ := c.get(p); res.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
}

// TestHTTPServer: the server has timeouts and a header limit.
func TestHTTPServer(t *testing.T) {
	e := newEnv(t, nil)
	hs := e.srv.HTTPServer("127.0.0.1:0")
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 || hs.MaxHeaderBytes > 1<<20 {
		t.Errorf("server %+v", hs)
	}
}

// TestNewErrors: New refuses a short admin token and a design without an
// image folder.
func TestNewErrors(t *testing.T) {
	d := testDesign(t)
	st := newTestStore(t, d)
	if _, err := New(experiment.ServerConfig{AdminToken: "short"}, d, st, Options{}); err == nil || !strings.Contains(err.Error(), "16") {
		t.Errorf("short token: %v", err)
	}
	d.Root = ""
	if _, err := New(experiment.ServerConfig{AdminToken: testAdminToken}, d, st, Options{}); err == nil {
		t.Error("no Root: no error")
	}
}
