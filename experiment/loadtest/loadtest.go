package loadtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config says what to simulate.
type Config struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// Participants is how many participants to simulate (default 1).
	Participants int
	// Concurrency is how many of them run at once (default Participants).
	Concurrency int
	// IDPrefix prefixes the participants' external ids, passed as the pid
	// URL parameter: IDPrefix + "-" + number (default "load" and the start
	// time, so that repeated runs create new participants). With Platform
	// set, the ids are derived from it instead (PlatformIDs).
	IDPrefix string
	// Platform is the recruitment platform whose ids the participants
	// bring: "" (the pid parameter), "prolific" (PROLIFIC_PID, 24 hex
	// digits) or "mturk" (workerId, assignmentId, hitId), as a server
	// with that completion.platform requires.
	Platform string
	// Think is a pause before each answer (default 0: as fast as the server
	// allows).
	Think time.Duration
	// SkipImages skips downloading the trial images and masks.
	SkipImages bool
	// RequestTimeout limits each HTTP request (default 30 s).
	RequestTimeout time.Duration
	// RetryFor is how long a request failing with a network error or a 5xx
	// status is retried, with exponential backoff, before its participant
	// gives up (default 60 s: long enough for a server restart).
	RetryFor time.Duration
	// Seed seeds the simulated answers and response times.
	Seed uint64
	// Answer, if set, chooses the answer to a trial; the default picks one
	// of the state's categories at random (AnswerSame/AnswerDifferent when
	// the state lists none).
	Answer func(s *State, rng *rand.Rand) string
	// OnAck, if set, is called after each acknowledged response (from the
	// participant's goroutine: it must be safe for concurrent use).
	OnAck func(Ack)
	// Transport, if set, replaces the default transport (shared by all
	// participants; each has its own cookie jar).
	Transport http.RoundTripper
	// Logf, if set, receives one line per notable event (gave up,
	// unexpected status).
	Logf func(format string, args ...any)
}

// Ack is a response the server acknowledged with HTTP 200, which by the
// API's contract means it is durably stored.
type Ack struct {
	ExternalID string    `json:"participant"`
	Index      int       `json:"index"`
	Response   string    `json:"response"`
	RTms       float64   `json:"rt_ms"`
	At         time.Time `json:"at"`
}

// Latency summarises the latencies of one endpoint, in milliseconds.
type Latency struct {
	N      int     `json:"n"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P90MS  float64 `json:"p90_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Report is the result of a load test.
type Report struct {
	URL          string  `json:"url"`
	Participants int     `json:"participants"`
	Concurrency  int     `json:"concurrency"`
	Seed         uint64  `json:"seed"`
	Seconds      float64 `json:"seconds"`
	// Trials is the number of acknowledged responses; TrialsPerSec divides
	// it by Seconds.
	Trials       int     `json:"trials"`
	TrialsPerSec float64 `json:"trials_per_sec"`
	// Outcomes counts participants by how they ended: "done",
	// "screened_out", "full" (the study was full at /join) and "failed"
	// (gave up after errors).
	Outcomes map[string]int `json:"outcomes"`
	// Endpoints holds the latencies of successful requests, by endpoint
	// ("GET /", "POST /join", "GET /run", "GET /api/state", "GET /stim",
	// "GET /mask", "POST /api/respond").
	Endpoints map[string]Latency `json:"endpoints"`
	// Errors counts failed attempts by kind: "network", "http_NNN",
	// "protocol". 409 and 429 answers are expected under load and counted
	// here too.
	Errors map[string]int `json:"errors"`
	// Failures lists the first errors of participants that gave up.
	Failures []string `json:"failures,omitempty"`
	// Acked is every acknowledged response, in acknowledgement order.
	Acked []Ack `json:"acked"`
	// Completion maps participants who finished to the completion code
	// they were shown ("" when none).
	Completion map[string]string `json:"completion,omitempty"`
}

// Err returns an error when a participant failed; nil otherwise.
func (r *Report) Err() error {
	if n := r.Outcomes["failed"]; n > 0 {
		return fmt.Errorf("%d of %d participants failed; first: %s", n, r.Participants, strings.Join(r.Failures[:min(3, len(r.Failures))], "; "))
	}
	return nil
}

// WriteText writes the report as a short table.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "load test of %s: %d participants, %d at once, seed %d\n", r.URL, r.Participants, r.Concurrency, r.Seed)
	fmt.Fprintf(&b, "%d acknowledged trials in %.2f s: %.1f trials/s\n", r.Trials, r.Seconds, r.TrialsPerSec)
	fmt.Fprintf(&b, "outcomes: %s\n", countString(r.Outcomes))
	if len(r.Errors) > 0 {
		fmt.Fprintf(&b, "errors: %s\n", countString(r.Errors))
	}
	fmt.Fprintf(&b, "%-18s %7s %9s %9s %9s %9s %9s\n", "endpoint", "n", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms")
	names := make([]string, 0, len(r.Endpoints))
	for n := range r.Endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l := r.Endpoints[n]
		fmt.Fprintf(&b, "%-18s %7d %9.2f %9.2f %9.2f %9.2f %9.2f\n", n, l.N, l.MeanMS, l.P50MS, l.P90MS, l.P99MS, l.MaxMS)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "failure: %s\n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func countString(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// State is the participant state the server returns from GET /api/state
// and POST /api/respond.
type State struct {
	Phase      string         `json:"phase"`
	Done       int            `json:"done"`
	Total      int            `json:"total"`
	Trial      *StateTrial    `json:"trial"`
	Categories []Category     `json:"categories"`
	Timing     map[string]any `json:"timing"`
	Completion *struct {
		Code        string `json:"code"`
		RedirectURL string `json:"redirect_url"`
	} `json:"completion"`
	Correct *bool `json:"correct,omitempty"`
}

// StateTrial is the next trial in a State.
type StateTrial struct {
	Index    int      `json:"index"`
	Images   []string `json:"images"`
	Mask     string   `json:"mask"`
	Feedback bool     `json:"feedback"`
}

// Category is an answer option in a State.
type Category struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Key   string `json:"key"`
	Image string `json:"image"`
}

// finished reports whether the state ends the participant's run.
func (s *State) finished() bool {
	return s.Phase == "done" || s.Phase == "screened_out" || s.Trial == nil
}

// recorder collects latencies, errors and acknowledgements from all
// participants.
type recorder struct {
	mu       sync.Mutex
	lat      map[string][]time.Duration
	errs     map[string]int
	outcomes map[string]int
	failures []string
	acked    []Ack
	codes    map[string]string
	logf     func(string, ...any)
}

func (r *recorder) latency(ep string, d time.Duration) {
	r.mu.Lock()
	r.lat[ep] = append(r.lat[ep], d)
	r.mu.Unlock()
}

func (r *recorder) err(kind string) {
	r.mu.Lock()
	r.errs[kind]++
	r.mu.Unlock()
}

func (r *recorder) ack(a Ack) {
	r.mu.Lock()
	r.acked = append(r.acked, a)
	r.mu.Unlock()
}

func (r *recorder) outcome(id, o string, code string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes[o]++
	if o == "done" || o == "screened_out" {
		r.codes[id] = code
	}
	if err != nil {
		if len(r.failures) < 20 {
			r.failures = append(r.failures, id+": "+err.Error())
		}
		if r.logf != nil {
			r.logf("loadtest: %s gave up: %v", id, err)
		}
	}
}

// Run simulates cfg.Participants participants, cfg.Concurrency at a time,
// each going through consent, join and all its trials. It returns the
// report once all have finished or given up; the error is non-nil only
// for a bad configuration or when ctx ends (the report then covers what
// was done). Participants that gave up are counted in Outcomes["failed"]
// (see Report.Err).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	base, err := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("loadtest: URL %q is not an http(s) URL", cfg.URL)
	}
	if cfg.Participants <= 0 {
		cfg.Participants = 1
	}
	if cfg.Concurrency <= 0 || cfg.Concurrency > cfg.Participants {
		cfg.Concurrency = cfg.Participants
	}
	if cfg.IDPrefix == "" {
		cfg.IDPrefix = fmt.Sprintf("load%d", time.Now().UnixNano())
	}
	switch cfg.Platform {
	case "", "prolific", "mturk":
	default:
		return nil, fmt.Errorf(`loadtest: platform must be "", "prolific" or "mturk" (got %q)`, cfg.Platform)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = 60 * time.Second
	}
	tr := cfg.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = 0
		t.MaxIdleConnsPerHost = cfg.Concurrency + 16
		t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		defer t.CloseIdleConnections()
		tr = t
	}
	rec := &recorder{
		lat:      map[string][]time.Duration{},
		errs:     map[string]int{},
		outcomes: map[string]int{},
		codes:    map[string]string{},
		logf:     cfg.Logf,
	}
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(cfg.Participants) || ctx.Err() != nil {
					return
				}
				p := newParticipant(&cfg, base, tr, rec, i)
				outcome, code, err := p.run(ctx)
				if ctx.Err() != nil && err != nil {
					return
				}
				rec.outcome(p.id, outcome, code, err)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	rep := &Report{
		URL:          base.String(),
		Participants: cfg.Participants,
		Concurrency:  cfg.Concurrency,
		Seed:         cfg.Seed,
		Seconds:      elapsed.Seconds(),
		Trials:       len(rec.acked),
		Outcomes:     rec.outcomes,
		Endpoints:    map[string]Latency{},
		Errors:       rec.errs,
		Failures:     rec.failures,
		Acked:        rec.acked,
		Completion:   rec.codes,
	}
	if elapsed > 0 {
		rep.TrialsPerSec = float64(rep.Trials) / elapsed.Seconds()
	}
	for ep, ds := range rec.lat {
		rep.Endpoints[ep] = summarize(ds)
	}
	return rep, ctx.Err()
}

// summarize returns the latency summary of ds, with nearest-rank
// percentiles.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	pct := func(p float64) float64 {
		k := int(p*float64(len(ds))+0.999999999) - 1 // ceil(p·n) − 1
		return ms(ds[max(0, min(k, len(ds)-1))])
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{
		N:      len(ds),
		MeanMS: ms(sum) / float64(len(ds)),
		P50MS:  pct(0.50),
		P90MS:  pct(0.90),
		P99MS:  pct(0.99),
		MaxMS:  ms(ds[len(ds)-1]),
	}
}

// errRetry marks an attempt worth retrying (network error, 5xx, 429).
type errRetry struct {
	err   error
	after time.Duration // server's Retry-After (0: backoff)
}

func (e *errRetry) Error() string { return e.err.Error() }
func (e *errRetry) Unwrap() error { return e.err }

// statusError is a non-2xx answer that retrying the same request won't
// fix.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, strings.TrimSpace(e.body))
}

// participant is one simulated participant.
type participant struct {
	cfg    *Config
	base   *url.URL
	client *http.Client
	rec    *recorder
	rng    *rand.Rand
	id     string // the external id the server records
	query  string // the consent page's query: the platform ids
	csrf   string
}

func newParticipant(cfg *Config, base *url.URL, tr http.RoundTripper, rec *recorder, i int64) *participant {
	jar, _ := cookiejar.New(nil) // never fails without options
	query, ext := PlatformIDs(cfg.Platform, fmt.Sprintf("%s-%d", cfg.IDPrefix, i))
	return &participant{
		cfg:  cfg,
		base: base,
		client: &http.Client{
			Transport: tr,
			Jar:       jar,
			Timeout:   cfg.RequestTimeout,
			// Redirects are requests of their own, timed separately.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		rec:   rec,
		rng:   rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)),
		id:    ext,
		query: query,
	}
}

// PlatformIDs returns the consent URL query of simulated participant id
// for platform ("", "prolific" or "mturk") and the external id the server
// records: well-formed platform ids (Prolific: 24 hex digits; MTurk:
// upper-case worker, assignment and HIT ids) derived from id by SHA-256,
// so that a run's ids are new and repeatable.
func PlatformIDs(platform, id string) (query, external string) {
	h := sha256.Sum256([]byte(id))
	x := strings.ToUpper(hex.EncodeToString(h[:]))
	switch platform {
	case "prolific":
		ext := strings.ToLower(x[:24])
		return "PROLIFIC_PID=" + ext + "&STUDY_ID=" + strings.ToLower(x[24:48]) + "&SESSION_ID=" + strings.ToLower(x[40:64]), ext
	case "mturk":
		ext := "A" + x[:13]
		return "workerId=" + ext + "&assignmentId=" + x[13:43] + "&hitId=" + x[34:64], ext
	}
	return "pid=" + url.QueryEscape(id), id
}

// run takes the participant through the whole experiment and returns its
// outcome and completion code.
func (p *participant) run(ctx context.Context) (outcome, code string, err error) {
	if err := p.join(ctx); err != nil {
		var se *statusError
		if errors.As(err, &se) && se.status == http.StatusServiceUnavailable {
			return "full", "", nil
		}
		return "failed", "", err
	}
	st, err := p.state(ctx)
	if err != nil {
		return "failed", "", err
	}
	rejoins := 0
	for !st.finished() {
		if err := ctx.Err(); err != nil {
			return "failed", "", err
		}
		if !p.cfg.SkipImages {
			for _, u := range st.Trial.Images {
				if _, err := p.do(ctx, "GET /stim", "GET", u, nil, nil); err != nil {
					return "failed", "", fmt.Errorf("trial %d image: %w", st.Trial.Index, err)
				}
			}
			if st.Trial.Mask != "" {
				if _, err := p.do(ctx, "GET /mask", "GET", st.Trial.Mask, nil, nil); err != nil {
					return "failed", "", fmt.Errorf("trial %d mask: %w", st.Trial.Index, err)
				}
			}
		}
		if p.cfg.Think > 0 {
			select {
			case <-time.After(p.cfg.Think):
			case <-ctx.Done():
				return "failed", "", ctx.Err()
			}
		}
		next, err := p.respond(ctx, st)
		var se *statusError
		switch {
		case err == nil:
			st = next
		case errors.As(err, &se) && se.status == http.StatusConflict:
			// Stored already (a retried request that had succeeded) or not
			// the next trial: the state says where we are.
			if st, err = p.state(ctx); err != nil {
				return "failed", "", err
			}
		case errors.As(err, &se) && (se.status == http.StatusForbidden || se.status == http.StatusUnauthorized) && rejoins < 3:
			// The CSRF token or the session no longer works (e.g. the
			// server restarted with another secret): join again with the
			// same id, as a participant reopening the study link would.
			rejoins++
			if err := p.join(ctx); err != nil {
				return "failed", "", fmt.Errorf("rejoin after %v: %w", se, err)
			}
			if st, err = p.state(ctx); err != nil {
				return "failed", "", err
			}
		default:
			return "failed", "", fmt.Errorf("trial %d: %w", st.Trial.Index, err)
		}
	}
	if st.Completion != nil {
		code = st.Completion.Code
	}
	if st.Phase == "screened_out" {
		return "screened_out", code, nil
	}
	return "done", code, nil
}

// join opens the consent page, posts its form and opens the app page,
// keeping the CSRF token.
func (p *participant) join(ctx context.Context) error {
	page, err := p.do(ctx, "GET /", "GET", "/?"+p.query, nil, nil)
	if err != nil {
		return fmt.Errorf("consent page: %w", err)
	}
	action, fields, ok := joinForm(string(page))
	if !ok {
		p.rec.err("protocol")
		return errors.New("consent page has no form posting to /join")
	}
	if _, ok := fields["csrf"]; !ok {
		p.rec.err("protocol")
		return errors.New("consent form has no csrf field")
	}
	fields["consent"] = "yes"
	form := url.Values{}
	for k, v := range fields {
		form.Set(k, v)
	}
	hdr := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	if _, err := p.do(ctx, "POST /join", "POST", action, []byte(form.Encode()), hdr); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	page, err = p.do(ctx, "GET /run", "GET", "/run", nil, nil)
	if err != nil {
		return fmt.Errorf("app page: %w", err)
	}
	p.csrf = metaContent(string(page), "csrf-token")
	if p.csrf == "" {
		p.rec.err("protocol")
		return errors.New(`app page has no <meta name="csrf-token">`)
	}
	return nil
}

func (p *participant) state(ctx context.Context) (*State, error) {
	body, err := p.do(ctx, "GET /api/state", "GET", "/api/state", nil, nil)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	return p.parseState(body)
}

func (p *participant) parseState(body []byte) (*State, error) {
	var st State
	if err := json.Unmarshal(body, &st); err != nil {
		p.rec.err("protocol")
		return nil, fmt.Errorf("state: %w", err)
	}
	if !st.finished() && st.Trial.Index < 0 {
		p.rec.err("protocol")
		return nil, fmt.Errorf("state: negative trial index %d", st.Trial.Index)
	}
	return &st, nil
}

// respond answers the state's trial. A nil error means the server
// acknowledged (stored) the answer; the ack is logged.
func (p *participant) respond(ctx context.Context, st *State) (*State, error) {
	answer := p.answer(st)
	// Plausible browser measurements: a 60 Hz display showing the
	// stimulus for the frames closest to the state's stimulus_ms (12 for
	// 200 ms), one in 50 a frame late, and a reaction time of half a
	// second to a second and a half.
	target := 200.0
	if v, ok := st.Timing["stimulus_ms"].(float64); ok && v > 0 {
		target = v
	}
	frames := max(1, int(math.Round(target*60/1000)))
	if p.rng.IntN(50) == 0 {
		frames++
	}
	shown := float64(frames)*1000/60 + (p.rng.Float64()-0.5)*0.4
	rt := 450 + p.rng.Float64()*1000
	input := "key"
	if p.rng.IntN(3) == 0 {
		input = "mouse"
	}
	body, _ := json.Marshal(map[string]any{
		"index":      st.Trial.Index,
		"response":   answer,
		"rt_ms":      rt,
		"shown_ms":   shown,
		"mask_ms":    200.0,
		"refresh_hz": 60.0,
		"frames":     frames,
		"input":      input,
	})
	hdr := http.Header{"Content-Type": {"application/json"}, "X-CSRF-Token": {p.csrf}}
	out, err := p.do(ctx, "POST /api/respond", "POST", "/api/respond", body, hdr)
	if err != nil {
		return nil, err
	}
	a := Ack{ExternalID: p.id, Index: st.Trial.Index, Response: answer, RTms: rt, At: time.Now()}
	p.rec.ack(a)
	if p.cfg.OnAck != nil {
		p.cfg.OnAck(a)
	}
	return p.parseState(out)
}

func (p *participant) answer(st *State) string {
	if p.cfg.Answer != nil {
		return p.cfg.Answer(st, p.rng)
	}
	if len(st.Categories) == 0 {
		if p.rng.IntN(2) == 0 {
			return "same"
		}
		return "different"
	}
	return st.Categories[p.rng.IntN(len(st.Categories))].Name
}

// do sends one request, retrying network errors, 5xx and 429 for up to
// cfg.RetryFor, and returns the body of a 2xx or 3xx answer. ep names the
// endpoint for the statistics.
func (p *participant) do(ctx context.Context, ep, method, path string, body []byte, hdr http.Header) ([]byte, error) {
	var deadline time.Time
	backoff := 50 * time.Millisecond
	for {
		b, err := p.attempt(ctx, ep, method, path, body, hdr)
		var re *errRetry
		if err == nil || !errors.As(err, &re) {
			return b, err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(p.cfg.RetryFor)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("gave up after %v: %w", p.cfg.RetryFor, err)
		}
		wait := re.after
		if wait <= 0 {
			wait = backoff/2 + time.Duration(p.rng.Int64N(int64(backoff)))
			backoff = min(2*backoff, 2*time.Second)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (p *participant) attempt(ctx context.Context, ep, method, path string, body []byte, hdr http.Header) ([]byte, error) {
	u, err := p.base.Parse(path)
	if err != nil {
		p.rec.err("protocol")
		return nil, fmt.Errorf("bad URL %q: %w", path, err)
	}
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	t0 := time.Now()
	resp, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.rec.err("network")
		return nil, &errRetry{err: err}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	resp.Body.Close()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.rec.err("network")
		return nil, &errRetry{err: err}
	}
	d := time.Since(t0)
	switch {
	case resp.StatusCode < 400:
		p.rec.latency(ep, d)
		return b, nil
	case resp.StatusCode == http.StatusTooManyRequests:
		p.rec.err("http_429")
		after := time.Second
		if s, err := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); err == nil && s >= 0 {
			after = max(s, 10*time.Millisecond)
		}
		return nil, &errRetry{err: &statusError{resp.StatusCode, short(b)}, after: after}
	case resp.StatusCode >= 500 && !(ep == "POST /join" && resp.StatusCode == http.StatusServiceUnavailable):
		p.rec.err(fmt.Sprintf("http_%d", resp.StatusCode))
		return nil, &errRetry{err: &statusError{resp.StatusCode, short(b)}}
	default:
		p.rec.err(fmt.Sprintf("http_%d", resp.StatusCode))
		return nil, &statusError{resp.StatusCode, short(b)}
	}
}

// short returns an answer's body for an error message: an HTML page's text
// (the server's error pages say what went wrong in their <body>) or the raw
// body, on one line, cut to 200 characters.
func short(b []byte) string {
	s := string(b)
	if pageText, ok := htmlText(s); ok {
		s = pageText
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
