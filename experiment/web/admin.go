package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/plot"
	"github.com/vcr-bench/vcr/robustness"
)

// adminData is what the admin page shows of the design.
type adminData struct {
	Name, Hash, Kind string
	Batches, Views   int
	ExcludeTiming    bool
}

// admin wraps a handler that needs the admin cookie: without it, the
// admin page redirects to the login page and everything else is 401.
func (s *Server) admin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		c, err := r.Cookie(adminCookie)
		if err != nil || !s.admins.valid(c.Value, s.now()) {
			if r.URL.Path == "/admin" {
				http.Redirect(w, r, "/admin/login", http.StatusSeeOther)
				return
			}
			s.fail(w, r, errUnauthorized)
			return
		}
		next(w, r)
	}
}

// adminSessionTTL is how long an admin login lasts (docs/experiment-serve.md).
const adminSessionTTL = 12 * time.Hour

// adminSessions are the admin logins, kept in the server's memory: the
// cookie holds a random secret, the server its hash and expiry; logout
// deletes it. Memory, not the store, because a session must die with its
// secret's only copy: a restart logs every admin out (they log in again),
// and with several server processes each keeps its own logins, so the
// admin pages need one process (or sticky sessions) behind a balancer.
type adminSessions struct {
	mu     sync.Mutex
	m      map[[32]byte]time.Time // hash of the secret → expiry
	pruned time.Time
}

func newAdminSessions() *adminSessions { return &adminSessions{m: map[[32]byte]time.Time{}} }

// create starts a session at now and returns the cookie value.
func (a *adminSessions) create(now time.Time) string {
	v := randomToken()
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Sub(a.pruned) > time.Hour {
		for k, exp := range a.m {
			if !now.Before(exp) {
				delete(a.m, k)
			}
		}
		a.pruned = now
	}
	a.m[sha256.Sum256([]byte(v))] = now.Add(adminSessionTTL)
	return v
}

// valid reports whether v is the cookie of a session not expired at now.
func (a *adminSessions) valid(v string, now time.Time) bool {
	if !validToken(v) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.m[sha256.Sum256([]byte(v))]
	return ok && now.Before(exp)
}

// revoke ends the session of cookie value v.
func (a *adminSessions) revoke(v string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, sha256.Sum256([]byte(v)))
}

// handleAdminLoginPage is GET /admin/login.
func (s *Server) handleAdminLoginPage(w http.ResponseWriter, r *http.Request) {
	s.page(w, http.StatusOK, "admin_login", pageData{CSRF: s.csrfToken(w, r)})
}

// handleAdminLogin is POST /admin/login: check the token (rate limited
// per client address) and set the admin cookie.
func (s *Server) handleAdminLogin(w http.ResponseWriter, r *http.Request) {
	ip := s.clientIP(r)
	if wait, ok := s.loginLimit.allow(ip, s.now()); !ok {
		s.log.Warn("admin login rate limited", "ip", ip)
		s.fail(w, r, &limitedError{wait})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, badRequest("The form could not be read."))
		return
	}
	if err := checkForm(r); err != nil {
		s.fail(w, r, err)
		return
	}
	if !equal(r.PostFormValue("token"), string(s.adminToken)) {
		s.log.Warn("admin login failed", "ip", ip)
		s.page(w, http.StatusUnauthorized, "admin_login", pageData{CSRF: s.csrfToken(w, r), Error: "Wrong token."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: adminCookie, Value: s.admins.create(s.now()), Path: "/admin", HttpOnly: true,
		Secure: s.cfg.SecureCookies, SameSite: http.SameSiteStrictMode, MaxAge: int(adminSessionTTL.Seconds())})
	s.log.Info("admin logged in", "ip", ip)
	http.Redirect(w, r, "/admin", http.StatusSeeOther)
}

// handleAdminLogout is POST /admin/logout.
func (s *Server) handleAdminLogout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, badRequest("The form could not be read."))
		return
	}
	if err := checkForm(r); err != nil {
		s.fail(w, r, err)
		return
	}
	if c, err := r.Cookie(adminCookie); err == nil {
		s.admins.revoke(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: adminCookie, Value: "", Path: "/admin", HttpOnly: true,
		Secure: s.cfg.SecureCookies, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/admin/login", http.StatusSeeOther)
}

// handleAdmin is GET /admin.
func (s *Server) handleAdmin(w http.ResponseWriter, r *http.Request) {
	s.page(w, http.StatusOK, "admin", pageData{CSRF: s.csrfToken(w, r), Admin: &adminData{
		Name: s.d.Name, Hash: s.d.Hash, Kind: s.d.Kind, Batches: len(s.d.Batches), Views: s.d.ViewsPerBatch,
		ExcludeTiming: s.d.ExcludeTimingMisses}})
}

// curveJSON is one corruption's live curve on the admin page.
type curveJSON struct {
	Corruption string `json:"corruption"`
	Trials     int    `json:"trials"`
	URL        string `json:"url"`
}

// handleProgress is GET /admin/api/progress.
func (s *Server) handleProgress(w http.ResponseWriter, r *http.Request) {
	p, err := s.store.Progress(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	cd, err := s.curves.get(r.Context(), s)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := struct {
		*experiment.Progress
		Curves  []curveJSON `json:"curves"`
		Updated time.Time   `json:"updated"`
	}{Progress: p, Updated: s.now().UTC()}
	for i, c := range cd.series {
		out.Curves = append(out.Curves, curveJSON{Corruption: c.name, Trials: c.trials,
			URL: fmt.Sprintf("/admin/curve/%d?n=%d", i, cd.stamp)})
	}
	writeJSON(w, http.StatusOK, out)
}

// handleExport is GET /admin/export.csv: every answered trial, as
// experiment.Export writes them.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	// An export of a large study may take longer than the write timeout.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(30 * time.Minute))
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="trials.csv"`)
	if _, err := experiment.Export(r.Context(), s.store, s.d, w); err != nil {
		// Headers may be gone already; log it and cut the response short.
		s.log.Error("export", "err", err)
		panic(http.ErrAbortHandler)
	}
}

// Live curve settings.
const (
	curveBins    = 10              // equal Δv bins of the live curve
	curveMinBin  = 5               // trials for a bin to enter the fit
	curveMinFit  = 4               // usable bins for a fit
	curveRefresh = 5 * time.Second // the curves are recomputed at most this often
)

// curveSeries is the binned accuracy of one corruption.
type curveSeries struct {
	name   string
	trials int
	n, k   [curveBins]int
}

// curveData is the binned accuracy of every corruption.
type curveData struct {
	at             time.Time
	stamp          int64
	cleanN, cleanK int
	series         []curveSeries
}

// curveCache keeps the last curveData for curveRefresh.
type curveCache struct {
	mu   sync.Mutex
	data *curveData
}

// get returns the binned data, recomputed when older than curveRefresh.
func (c *curveCache) get(ctx context.Context, s *Server) (*curveData, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.now()
	if c.data != nil && now.Sub(c.data.at) < curveRefresh {
		return c.data, nil
	}
	d, err := s.binCurves(ctx)
	if err != nil {
		return nil, err
	}
	d.at, d.stamp = now, now.UnixMilli()
	c.data = d
	return d, nil
}

// curveName is the curve a stimulus belongs to ("" for clean originals).
func curveName(st *experiment.Stimulus) string {
	if st.Pair != "" {
		return strings.Replace(st.Pair, "|", " vs ", 1)
	}
	if st.Corruption == "" && st.Corruption2 == "" {
		return ""
	}
	if st.Path2 != "" {
		a, b := st.Corruption, st.Corruption2
		if a == "" {
			a = "clean"
		}
		if b == "" {
			b = "clean"
		}
		return a + " vs " + b
	}
	return st.Corruption
}

// binCurves bins the answered main trials of the participants who count
// (not excluded, screened out or abandoned; without timing misses if the
// design excludes them) by corruption and Δv.
func (s *Server) binCurves(ctx context.Context) (*curveData, error) {
	d := &curveData{}
	idx := map[string]int{}
	for _, id := range s.mainStimuli() {
		name := curveName(s.d.Stimulus(id))
		if _, ok := idx[name]; !ok && name != "" {
			idx[name] = -1
		}
	}
	names := make([]string, 0, len(idx))
	for n := range idx {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		idx[n] = i
		d.series = append(d.series, curveSeries{name: n})
	}
	drop := map[int64]bool{}
	err := s.store.Participants(ctx, func(p *experiment.Participant) error {
		switch p.Status {
		case experiment.StatusExcluded, experiment.StatusScreenedOut, experiment.StatusAbandoned:
			drop[p.ID] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.store.Answered(ctx, func(t *experiment.Trial) error {
		if t.Role != experiment.RoleMain || drop[t.Participant] || t.Answer == nil ||
			t.Answer.Implausible != "" || (s.d.ExcludeTimingMisses && !t.Answer.TimingOK) {
			return nil
		}
		st := s.d.Stimulus(t.StimulusID)
		if st == nil {
			return nil
		}
		correct := t.Answer.Response == st.GroundTruth
		name := curveName(st)
		if name == "" {
			d.cleanN++
			if correct {
				d.cleanK++
			}
			return nil
		}
		i, ok := idx[name]
		if !ok || !(st.DV >= 0 && st.DV <= 1) {
			return nil
		}
		c := &d.series[i]
		b := robustness.BinIndex(st.DV, curveBins)
		c.trials++
		c.n[b]++
		if correct {
			c.k[b]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// mainStimuli lists the stimuli of all batches.
func (s *Server) mainStimuli() []string {
	var ids []string
	for _, b := range s.d.Batches {
		ids = append(ids, b.Stimuli...)
	}
	return ids
}

// handleCurve is GET /admin/curve/{n}: the SVG chart of curve n.
func (s *Server) handleCurve(w http.ResponseWriter, r *http.Request) {
	cd, err := s.curves.get(r.Context(), s)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	i, ok := smallInt(r.PathValue("n"), len(cd.series))
	if !ok {
		s.fail(w, r, errNotFound)
		return
	}
	var b bytes.Buffer
	if err := plot.CurvesSVG(&b, curveChart(&cd.series[i], cd.cleanN, cd.cleanK)); err != nil {
		if !errors.Is(err, plot.ErrChart) {
			s.fail(w, r, err)
			return
		}
		b.Reset()
		fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"><rect width="100%%" height="100%%" fill="white"/>`+
			`<text x="50%%" y="50%%" text-anchor="middle" font-family="sans-serif" font-size="14">no trials yet</text></svg>`, plot.SVGWidth, plot.SVGHeight)
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(b.Bytes())
}

// curveChart is the chart of one corruption: the bins as points (area ∝
// trials), the clean accuracy at Δv = 0, and a monotone non-increasing
// spline through them (anchored at the clean accuracy when there is one),
// the accuracy curve robustness.Fit would fit, once curveMinFit bins have
// curveMinBin trials; before that a line through the bins.
func curveChart(c *curveSeries, cleanN, cleanK int) plot.Chart {
	ch := plot.Chart{Title: fmt.Sprintf("%s (%d trials)", c.name, c.trials), XLabel: "Δv = max(0, 1 − VIF)", YLabel: "human accuracy"}
	cv := plot.Curve{Name: "humans", Human: true}
	var bins robustness.Counts
	anchor := math.NaN()
	if cleanN > 0 {
		anchor = float64(cleanK) / float64(cleanN)
		cv.Points = append(cv.Points, plot.Point{X: 0, Y: anchor, N: cleanN})
	}
	usable := 0
	for b := range c.n {
		if c.n[b] == 0 {
			continue
		}
		xb := (float64(b) + 0.5) / curveBins
		cv.Points = append(cv.Points, plot.Point{X: xb, Y: float64(c.k[b]) / float64(c.n[b]), N: c.n[b]})
		bins.X, bins.N, bins.K = append(bins.X, xb), append(bins.N, c.n[b]), append(bins.K, c.k[b])
		if c.n[b] >= curveMinBin {
			usable++
		}
	}
	if usable >= curveMinFit {
		if f, err := robustness.FitCurve(bins, curveMinBin, anchor); err == nil {
			hi := 0.0
			for i, x := range bins.X {
				if bins.N[i] >= curveMinBin {
					hi = x
				}
			}
			for i := 0; float64(i)/100 <= hi+1e-9; i++ {
				v := float64(i) / 100
				cv.X, cv.Y = append(cv.X, v), append(cv.Y, f.Eval(v))
			}
			ch.Curves = []plot.Curve{cv}
			return ch
		}
	}
	for _, p := range cv.Points {
		cv.X, cv.Y = append(cv.X, p.X), append(cv.Y, p.Y)
	}
	ch.Curves = []plot.Curve{cv}
	return ch
}
