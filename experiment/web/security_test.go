package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
)

// TestRespondCSRF: a respond without the session's X-CSRF-Token, with
// another session's, or from another origin is refused with 403.
func TestRespondCSRF(t *testing.T) {
	e := newEnv(t, nil)
	a, b := e.client(), e.client()
	a.join("PROLIFIC_PID=a")
	b.join("PROLIFIC_PID=b")
	for name, h := range map[string]map[string]string{
		"no token":        {"X-CSRF-Token": ""},
		"wrong token":     {"X-CSRF-Token": "AAAA"},
		"other's token":   {"X-CSRF-Token": b.csrf},
		"foreign origin":  {"Origin": "https://evil.example"},
		"cross-site POST": {"Sec-Fetch-Site": "cross-site"},
	} {
		res, body := a.respondRaw(answer(0, "cat"), h)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s, want 403", name, res.StatusCode, body)
		}
	}
	if e.store.responds.Load() != 0 {
		t.Fatalf("%d answers stored", e.store.responds.Load())
	}
	// Same origin passes.
	u, _ := url.Parse(e.ts.URL)
	if res, body := a.respondRaw(answer(0, "cat"), map[string]string{"Origin": u.Scheme + "://" + u.Host, "Sec-Fetch-Site": "same-origin"}); res.StatusCode != 200 {
		t.Errorf("same origin: %d %s", res.StatusCode, body)
	}
}

// TestJoinCSRF: /join needs the csrf field equal to the vcr_csrf cookie
// and a same-site request.
func TestJoinCSRF(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	v := c.consentForm("PROLIFIC_PID=j1")
	v.Set("consent", "yes")
	good := v.Get("csrf")
	for name, tc := range map[string]struct {
		csrf   string
		header map[string]string
	}{
		"missing field":  {"", nil},
		"other value":    {randomToken(), nil},
		"foreign origin": {good, map[string]string{"Origin": "https://evil.example"}},
		"cross-site":     {good, map[string]string{"Sec-Fetch-Site": "cross-site"}},
	} {
		w := url.Values{}
		for k, vs := range v {
			w[k] = vs
		}
		w.Set("csrf", tc.csrf)
		if res, _ := c.postForm("/join", w, tc.header); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, res.StatusCode)
		}
	}
	// A browser without the cookie (the attacker's page) fails too.
	other := e.client()
	if res, _ := other.postForm("/join", v, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("no cookie: %d, want 403", res.StatusCode)
	}
	if e.store.participants(t) != 0 {
		t.Fatalf("%d participants joined", e.store.participants(t))
	}
}

// TestOtherParticipantsTrials: a participant cannot fetch another's
// stimuli or masks, nor any without a session; unknown tokens are 404.
func TestOtherParticipantsTrials(t *testing.T) {
	e := newEnv(t, nil)
	a, b := e.client(), e.client()
	a.join("PROLIFIC_PID=a")
	b.join("PROLIFIC_PID=b")
	sa := a.state()
	anon := e.client()
	for _, u := range append(sa.Trial.Images, sa.Trial.Mask, sa.Trial.Images[0][:len(sa.Trial.Images[0])-1]+"1") {
		for name, c := range map[string]*client{"other participant": b, "no session": anon} {
			if res, body := c.get(u); res.StatusCode != http.StatusNotFound || strings.HasPrefix(body, "\x89PNG") {
				t.Errorf("%s GET %s: %d", name, u, res.StatusCode)
			}
		}
	}
	if res, _ := a.get(sa.Trial.Images[0][:len(sa.Trial.Images[0])-1] + "1"); res.StatusCode != http.StatusNotFound {
		t.Errorf("second image of a single-image trial: %d", res.StatusCode)
	}
	for _, u := range []string{"/stim/" + strings.Repeat("A", 32) + "/0", "/mask/short", "/stim/..%2F..%2Fetc%2Fpasswd/0", "/stim/x/0"} {
		if res, _ := a.get(u); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", u, res.StatusCode)
		}
	}
	// A's answer for B's session is impossible: B's index 0 stays open.
	if res, _ := a.respondRaw(answer(0, "cat"), nil); res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	if sb := b.state(); sb.Done != 0 {
		t.Errorf("B has %d answers", sb.Done)
	}
}

// TestRespondValidation: every malformed respond is a 400 (413 when too
// large) and stores nothing; a repeated or skipped index is a 409.
func TestRespondValidation(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("PROLIFIC_PID=v1")
	with := func(k string, v any) map[string]any {
		a := answer(0, "cat")
		if v == nil {
			delete(a, k)
		} else {
			a[k] = v
		}
		return a
	}
	for name, body := range map[string]any{
		"not a category":    with("response", "ship"),
		"empty response":    with("response", ""),
		"missing response":  with("response", nil),
		"missing rt_ms":     with("rt_ms", nil),
		"missing index":     with("index", nil),
		"fractional index":  with("index", 0.5),
		"negative index":    with("index", -1),
		"huge index":        with("index", 1e12),
		"string index":      with("index", "0"),
		"negative rt":       with("rt_ms", -1),
		"huge rt":           with("rt_ms", 1e300),
		"shown_ms too big":  with("shown_ms", 1e6),
		"refresh_hz zero":   with("refresh_hz", 0),
		"refresh_hz huge":   with("refresh_hz", 5000),
		"negative mask":     with("mask_ms", -3),
		"fractional frames": with("frames", 1.5),
		"bad input":         with("input", "touch"),
		"unknown field":     with("ground_truth", "cat"),
		"two values":        `{"index":0,"response":"cat","rt_ms":1,"shown_ms":200,"mask_ms":200,"refresh_hz":60,"frames":12,"input":"key"} {}`,
		"not JSON":          "index=0",
		"NaN literal":       `{"index":0,"response":"cat","rt_ms":NaN,"shown_ms":200,"mask_ms":200,"refresh_hz":60,"frames":12,"input":"key"}`,
		"array":             `[]`,
	} {
		res, b := c.respondRaw(body, nil)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(b, `"error"`) {
			t.Errorf("%s: %d %s, want 400", name, res.StatusCode, b)
		}
	}
	big := `{"index":0,"response":"` + strings.Repeat("x", 5000) + `"}`
	if res, _ := c.respondRaw(big, nil); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("5 kB body: %d, want 413", res.StatusCode)
	}
	if e.store.responds.Load() != 0 {
		t.Fatalf("%d answers stored", e.store.responds.Load())
	}
	if res, _ := c.respondRaw(answer(1, "cat"), nil); res.StatusCode != http.StatusConflict {
		t.Errorf("skipping trial 0: %d, want 409", res.StatusCode)
	}
	c.fetch(c.state())
	if res, _ := c.respondRaw(answer(0, "cat"), nil); res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	if res, body := c.respondRaw(answer(0, "dog"), nil); res.StatusCode != http.StatusConflict {
		t.Errorf("duplicate: %d %s, want 409", res.StatusCode, body)
	}
	tr, _ := e.store.Trials(context.Background(), 1)
	if tr[0].Answer.Response != "cat" {
		t.Errorf("the duplicate replaced the stored answer: %q", tr[0].Answer.Response)
	}
	if res, _ := c.respondRaw(answer(99, "cat"), nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("index past the plan: %d, want 404", res.StatusCode)
	}
	// The server decides timing: 240 ms at 60 Hz misses 200 ms by more
	// than one frame (16.7 ms).
	c.fetch(c.state())
	a := answer(1, "cat")
	a["shown_ms"] = 240.0
	if res, _ := c.respondRaw(a, nil); res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	tr, _ = e.store.Trials(context.Background(), 1)
	if tr[1].Answer.TimingOK || !tr[0].Answer.TimingOK {
		t.Errorf("timing_ok %v %v, want true false", tr[0].Answer.TimingOK, tr[1].Answer.TimingOK)
	}
}

// TestSecurityHeaders: every kind of response carries the headers.
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("PROLIFIC_PID=h1")
	st := c.state()
	for _, p := range []string{"/", "/run", "/api/state", st.Trial.Images[0], st.Trial.Mask, "/static/app.js", "/nope", "/admin", "/admin/login", "/admin/api/progress", "/healthz"} {
		res, _ := c.get(p)
		h := res.Header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			!strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if h.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", p, k, h.Get(k), v)
			}
		}
		if h.Get("Permissions-Policy") == "" {
			t.Errorf("%s: no Permissions-Policy", p)
		}
	}
	// Cookies: the session is HttpOnly and Lax.
	c2 := e.client()
	v2 := c2.consentForm("PROLIFIC_PID=h2")
	v2.Set("consent", "yes")
	res, _ := c2.postForm("/join", v2, nil)
	var found bool
	for _, ck := range res.Cookies() {
		if ck.Name == sessionCookie {
			found = true
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || len(ck.Value) < 22 {
				t.Errorf("session cookie %+v", ck)
			}
		}
	}
	if !found {
		t.Error("no session cookie")
	}
	// No inline script in any page (the CSP would block it anyway).
	for _, b := range c.bodies {
		if strings.Contains(b, "<script>") || strings.Contains(b, "onclick=") || strings.Contains(b, "style=") {
			t.Errorf("inline script or style in a page:\n%.300s", b)
		}
	}
}

// panicStore panics in BySession.
type panicStore struct{ *testStore }

func (panicStore) BySession(context.Context, []byte) (*experiment.Participant, error) {
	panic("boom: secret internal detail")
}

// TestPanic: a panic becomes a plain 500 without details; the log has
// the stack.
func TestPanic(t *testing.T) {
	d := testDesign(t)
	ms := newTestStore(t, d)
	e := newEnvWith(t, experiment.ServerConfig{AdminToken: testAdminToken}, d, panicStore{ms})
	e.store = ms
	c := e.client()
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/state", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: randomToken()})
	res, body := c.do(req)
	if res.StatusCode != 500 || strings.Contains(body, "boom") || strings.Contains(body, "goroutine") || strings.Contains(body, ".go:") {
		t.Errorf("panic response %d %q", res.StatusCode, body)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("500 without nosniff")
	}
	if l := e.log.String(); !strings.Contains(l, "boom") || !strings.Contains(l, "goroutine") {
		t.Errorf("log lacks the panic:\n%s", l)
	}
}

// TestRateLimits: the session and address buckets answer 429 with
// Retry-After.
func TestRateLimits(t *testing.T) {
	e := newEnv(t, func(cfg *experiment.ServerConfig, _ *experiment.Design) {
		cfg.RatePerSession, cfg.BurstPerSession = 0.01, 3
	})
	c := e.client()
	c.join("PROLIFIC_PID=r1") // /run takes one token
	var last *http.Response
	for range 4 {
		last, _ = c.get("/api/state")
	}
	if last.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("5th session request: %d, want 429", last.StatusCode)
	}
	if ra, err := strconv.Atoi(last.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q", last.Header.Get("Retry-After"))
	}
	// Another session is not affected.
	c2 := e.client()
	c2.join("PROLIFIC_PID=r2")

	e2 := newEnv(t, func(cfg *experiment.ServerConfig, _ *experiment.Design) {
		cfg.RatePerIP, cfg.BurstPerIP = 0.01, 5
	})
	c3 := e2.client()
	codes := []int{}
	for range 7 {
		res, _ := c3.get("/static/style.css")
		codes = append(codes, res.StatusCode)
	}
	if codes[4] != 200 || codes[5] != 429 || codes[6] != 429 {
		t.Errorf("per-address codes %v", codes)
	}
	if res, _ := c3.get("/healthz"); res.StatusCode != 200 {
		t.Errorf("healthz rate limited: %d", res.StatusCode)
	}
}

// TestTrustProxy: the limit keys on the last X-Forwarded-For entry only
// with TrustProxy.
func TestTrustProxy(t *testing.T) {
	s := &Server{}
	r, _ := http.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.1:5555"
	r.Header.Set("X-Forwarded-For", "1.2.3.4, 5.6.7.8")
	if got := s.clientIP(r); got != "10.0.0.1" {
		t.Errorf("untrusted: %s", got)
	}
	s.cfg.TrustProxy = true
	if got := s.clientIP(r); got != "5.6.7.8" {
		t.Errorf("trusted: %s", got)
	}
}
