package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

const testAdminToken = "admin-token-0123456789abcdef"

// testDesign is a small recognition design over images written to a temp
// folder: 2 practice, 3 qualification (2 must be right), 1 sanity trial,
// and 2 batches of 3 main stimuli (gaussian_noise, fog and a clean
// original), each batch for one participant.
func testDesign(t *testing.T) *experiment.Design {
	t.Helper()
	root := t.TempDir()
	cats := []string{"cat", "dog", "car"}
	d := &experiment.Design{
		Name: "test", Kind: experiment.KindRecognition, Seed: 7, Root: root,
		Categories: []experiment.Category{{Name: "cat", Key: "c"}, {Name: "dog", Key: "d"}, {Name: "car", Label: "Car", Key: "a", Image: "buttons/car.png"}},
		Timing: experiment.Timing{Fixation: 500 * time.Millisecond, Stimulus: 200 * time.Millisecond, Mask: 200 * time.Millisecond,
			InterTrial: 300 * time.Millisecond, ToleranceFrames: 1},
		ViewsPerBatch: 1, QualificationMinCorrect: 2, SanityMaxFailures: 0, Masks: 3, MaskSeed: 11,
		Abandon:    time.Hour,
		Completion: experiment.Completion{Code: "C0DE123", ScreenOutCode: "SCREEN9"},
	}
	n := 0
	add := func(role experiment.Role, corruption string, dv float64) string {
		id := fmt.Sprintf("stim%03d", n)
		path := fmt.Sprintf("imgs/%s_%s_%03d.png", role, corruption, n)
		writePNG(t, filepath.Join(root, filepath.FromSlash(path)), 8+n%3, 6, uint8(20*n))
		s := experiment.Stimulus{ID: id, Role: role, SourceID: fmt.Sprintf("source%03d", n), Path: path,
			Corruption: corruption, TestSetID: n, DV: dv, GroundTruth: cats[n%3], IsOriginal: corruption == ""}
		if corruption != "" {
			s.Params = "sigma=0.25"
			s.VIFMethod = "vifvec"
		} else {
			s.TestSetID = -1
		}
		d.Stimuli = append(d.Stimuli, s)
		n++
		return id
	}
	d.Practice = []string{add(experiment.RolePractice, "", 0), add(experiment.RolePractice, "", 0)}
	d.Qualification = []string{add(experiment.RoleQualification, "", 0), add(experiment.RoleQualification, "", 0), add(experiment.RoleQualification, "", 0)}
	d.Sanity = []string{add(experiment.RoleSanity, "", 0)}
	for b := range 2 {
		d.Batches = append(d.Batches, experiment.Batch{ID: b, Stimuli: []string{
			add(experiment.RoleMain, "gaussian_noise", 0.15+0.3*float64(b)),
			add(experiment.RoleMain, "fog", 0.55),
			add(experiment.RoleMain, "", 0),
		}})
	}
	writePNG(t, filepath.Join(root, "buttons", "car.png"), 4, 4, 200)
	d.Freeze()
	return d
}

func writePNG(t *testing.T, path string, w, h int, v uint8) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{v, uint8(x * 20), uint8(y * 20), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects the server's log.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type env struct {
	t     *testing.T
	d     *experiment.Design
	store *testStore       // the testStore, if the env uses one
	st    experiment.Store // the store the server uses
	srv   *Server
	ts    *httptest.Server
	log   *logBuffer
	// skew is added to the server's clock (advance moves it on).
	skew *atomic.Int64
}

// advance moves the server's clock on by d.
func (e *env) advance(d time.Duration) { e.skew.Add(int64(d)) }

// newEnv starts the app on a test server; edit changes the server config.
func newEnv(t *testing.T, edit func(*experiment.ServerConfig, *experiment.Design)) *env {
	t.Helper()
	d := testDesign(t)
	// Every test client shares one address: no per-address place limit
	// unless a test sets one (TestJoinAttack).
	cfg := experiment.ServerConfig{AdminToken: testAdminToken, Title: "Test study", MaxPlacesPerIP: -1, JoinsPerMinutePerIP: 1e6}
	if edit != nil {
		edit(&cfg, d)
		d.Freeze()
	}
	return newEnvWith(t, cfg, d, newTestStore(t, d))
}

func newEnvWith(t *testing.T, cfg experiment.ServerConfig, d *experiment.Design, st experiment.Store) *env {
	t.Helper()
	lb := &logBuffer{}
	skew := &atomic.Int64{}
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	srv, err := New(cfg, d, st, Options{Logger: slog.New(slog.NewTextHandler(lb, nil)), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	ms, _ := st.(*testStore)
	return &env{t: t, d: d, store: ms, st: st, srv: srv, ts: ts, log: lb, skew: skew}
}

// client is a browser: a cookie jar, no automatic redirects; it records
// every body it receives.
type client struct {
	e      *env
	c      *http.Client
	csrf   string // X-CSRF-Token from /run
	bodies []string
	// hdr are headers sent with every request (e.g. X-Forwarded-For).
	hdr map[string]string
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(req *http.Request) (*http.Response, string) {
	c.e.t.Helper()
	for k, v := range c.hdr {
		req.Header.Set(k, v)
	}
	res, err := c.c.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		c.e.t.Fatal(err)
	}
	c.bodies = append(c.bodies, string(b))
	return res, string(b)
}

func (c *client) get(path string) (*http.Response, string) {
	c.e.t.Helper()
	req, _ := http.NewRequest("GET", c.e.ts.URL+path, nil)
	return c.do(req)
}

func (c *client) postForm(path string, v url.Values, header map[string]string) (*http.Response, string) {
	c.e.t.Helper()
	req, _ := http.NewRequest("POST", c.e.ts.URL+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, val := range header {
		req.Header.Set(k, val)
	}
	return c.do(req)
}

var (
	hiddenRe = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	metaRe   = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)
)

// consentForm loads the consent page for query and returns the form's
// hidden fields.
func (c *client) consentForm(query string) url.Values {
	c.e.t.Helper()
	res, body := c.get("/?" + query)
	if res.StatusCode != 200 || !strings.Contains(body, `action="/join"`) {
		c.e.t.Fatalf("consent page: %d\n%s", res.StatusCode, body)
	}
	v := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		v.Set(m[1], htmlUnescape(m[2]))
	}
	return v
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">").Replace(s)
}

// join consents and opens /run, keeping the API CSRF token.
func (c *client) join(query string) {
	c.e.t.Helper()
	v := c.consentForm(query)
	v.Set("consent", "yes")
	res, body := c.postForm("/join", v, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/run" {
		c.e.t.Fatalf("join: %d %s\n%s", res.StatusCode, res.Header.Get("Location"), body)
	}
	c.run()
}

func (c *client) run() {
	c.e.t.Helper()
	res, body := c.get("/run")
	m := metaRe.FindStringSubmatch(body)
	if res.StatusCode != 200 || m == nil {
		c.e.t.Fatalf("run: %d\n%s", res.StatusCode, body)
	}
	c.csrf = m[1]
}

func (c *client) state() *stateJSON {
	c.e.t.Helper()
	res, body := c.get("/api/state")
	if res.StatusCode != 200 {
		c.e.t.Fatalf("state: %d %s", res.StatusCode, body)
	}
	var st stateJSON
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		c.e.t.Fatal(err)
	}
	return &st
}

// respondRaw posts body (marshalled unless a string) with the session's
// CSRF token and any extra headers.
func (c *client) respondRaw(body any, header map[string]string) (*http.Response, string) {
	c.e.t.Helper()
	var b []byte
	if s, ok := body.(string); ok {
		b = []byte(s)
	} else {
		b, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest("POST", c.e.ts.URL+"/api/respond", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.csrf)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return c.do(req)
}

// answer is a well-formed respond body for trial index.
func answer(index int, response string) map[string]any {
	return map[string]any{"index": index, "response": response, "rt_ms": 812.5, "shown_ms": 200.1, "mask_ms": 200,
		"refresh_hz": 60, "frames": 12, "input": "key"}
}

// truth returns the ground truth of the trial behind a stimulus URL (the
// test looks into the store; the client never sees it).
func (e *env) truth(imageURL string) string {
	e.t.Helper()
	tok := strings.Split(imageURL, "/")[2]
	tr, err := e.st.TrialByToken(context.Background(), tok)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.d.Stimulus(tr.StimulusID).GroundTruth
}

// wrong returns a category other than gt.
func wrong(gt string) string {
	if gt == "cat" {
		return "dog"
	}
	return "cat"
}

// fetch loads the images and the mask of the state's trial, as the
// browser does before showing it (the server records it).
func (c *client) fetch(st *stateJSON) {
	c.e.t.Helper()
	if st.Trial == nil {
		return
	}
	for _, u := range append(st.Trial.Images, st.Trial.Mask) {
		if res, _ := c.get(u); res.StatusCode != 200 {
			c.e.t.Fatalf("GET %s: %d", u, res.StatusCode)
		}
	}
}

// finish answers every remaining trial (correctly unless bad says
// otherwise for the trial's phase), fetching each trial's images first,
// and returns the final state.
func (c *client) finish(bad func(phase string) bool) *stateJSON {
	c.e.t.Helper()
	st := c.state()
	for st.Trial != nil {
		c.fetch(st)
		resp := c.e.truth(st.Trial.Images[0])
		if bad != nil && bad(st.Phase) {
			resp = wrong(resp)
		}
		res, body := c.respondRaw(answer(st.Trial.Index, resp), nil)
		if res.StatusCode != 200 {
			c.e.t.Fatalf("respond %d: %d %s", st.Trial.Index, res.StatusCode, body)
		}
		st = &stateJSON{}
		if err := json.Unmarshal([]byte(body), st); err != nil {
			c.e.t.Fatal(err)
		}
	}
	return st
}
