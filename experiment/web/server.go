package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/vcr-bench/vcr/experiment"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Defaults of the rate limits, used where the ServerConfig leaves them 0.
const (
	// DefaultRatePerIP and DefaultBurstPerIP allow a lab of a few dozen
	// participants behind one address.
	DefaultRatePerIP  = 50
	DefaultBurstPerIP = 200
	// DefaultRatePerSession and DefaultBurstPerSession are ample for one
	// participant (about 3 requests per trial of a few seconds).
	DefaultRatePerSession  = 10
	DefaultBurstPerSession = 40
	// MinAdminToken is the shortest admin token New accepts.
	MinAdminToken = 16
	// maxBody is the largest request body (JSON or form) accepted.
	maxBody = 4 << 10
)

// loginEvery and loginBurst limit admin login attempts per client
// address: 5 at once, then one every 10 s.
const (
	loginEvery = 10 * time.Second
	loginBurst = 5
)

// Options are the server's settings that are not part of the
// experiment's config.
type Options struct {
	// Logger receives request errors and panics; nil discards them.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Dir is the folder ServerConfig.ConsentFile and InstructionsFile are
	// relative to (the config file's folder).
	Dir string
}

// Server is the experiment's web app, an http.Handler. Create it with
// New; serve it with HTTPServer (timeouts and header limits set) or any
// http.Server.
type Server struct {
	cfg   experiment.ServerConfig
	d     *experiment.Design
	store experiment.Store
	log   *slog.Logger
	now   func() time.Time

	handler http.Handler
	pages   *template.Template
	title   string
	// consent and instructions are the researcher's HTML fragments.
	consent, instructions template.HTML

	adminToken []byte

	ipLimit, sessionLimit, loginLimit *limiters
	// joinIP and joinAll limit POST /join per address and over all;
	// maxPerAddr is the places one address may hold (0: no limit).
	joinIP, joinAll *limiters
	maxPerAddr      int
	swept           atomic.Int64 // UnixNano of the last sweep (Store.Abandon)

	admins    *adminSessions
	servedLog *servedLog

	answers    map[string]bool // valid responses
	categories []categoryJSON
	images     *os.Root // d.Root

	sizes sync.Map // image path → [2]int
	masks sync.Map // maskKey → []byte

	curves curveCache
}

// New returns the web app for design d stored in s. The store must have
// been initialised with d (Store.Init). It returns an error when the admin
// token is shorter than MinAdminToken characters, when the design has no
// categories or no image folder, or when the consent or instructions file
// cannot be read.
func New(cfg experiment.ServerConfig, d *experiment.Design, s experiment.Store, opts Options) (*Server, error) {
	if d == nil || s == nil {
		panic("web: New needs a design and a store")
	}
	if len(cfg.AdminToken) < MinAdminToken {
		return nil, fmt.Errorf("the admin token must have at least %d characters (got %d); set server.admin_token in the config or VCR_ADMIN_TOKEN", MinAdminToken, len(cfg.AdminToken))
	}
	srv := &Server{cfg: cfg, d: d, store: s, log: opts.Logger, now: opts.Now, title: cfg.Title}
	if srv.log == nil {
		srv.log = slog.New(slog.DiscardHandler)
	}
	if srv.now == nil {
		srv.now = time.Now
	}
	if srv.title == "" {
		srv.title = "Image recognition study"
	}
	srv.adminToken = []byte(cfg.AdminToken)

	switch d.Kind {
	case experiment.KindDistinguish:
		srv.answers = map[string]bool{experiment.AnswerSame: true, experiment.AnswerDifferent: true}
		srv.categories = []categoryJSON{
			{Name: experiment.AnswerSame, Label: "Same", Key: "s"},
			{Name: experiment.AnswerDifferent, Label: "Different", Key: "d"},
		}
	default:
		if len(d.Categories) == 0 {
			return nil, errors.New("the design has no categories")
		}
		srv.answers = make(map[string]bool, len(d.Categories))
		for i, c := range d.Categories {
			srv.answers[c.Name] = true
			cj := categoryJSON{Name: c.Name, Label: c.Label, Key: c.Key}
			if cj.Label == "" {
				cj.Label = c.Name
			}
			if c.Image != "" {
				cj.Image = fmt.Sprintf("/cat/%d", i)
			}
			srv.categories = append(srv.categories, cj)
		}
	}
	if d.Root == "" {
		return nil, errors.New("the design has no image folder (Design.Root)")
	}
	root, err := os.OpenRoot(d.Root)
	if err != nil {
		return nil, fmt.Errorf("open the image folder: %w", err)
	}
	srv.images = root

	for _, f := range []struct {
		path string
		dst  *template.HTML
	}{{cfg.ConsentFile, &srv.consent}, {cfg.InstructionsFile, &srv.instructions}} {
		if f.path == "" {
			continue
		}
		p := f.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(opts.Dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		// The researcher's own HTML, trusted; the CSP still blocks any
		// inline script in it.
		*f.dst = template.HTML(b)
	}

	srv.pages, err = template.New("").Funcs(template.FuncMap{"ms": func(d time.Duration) int64 { return d.Milliseconds() }}).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}

	rip, bip := cfg.RatePerIP, cfg.BurstPerIP
	if rip <= 0 {
		rip = DefaultRatePerIP
	}
	if bip <= 0 {
		bip = DefaultBurstPerIP
	}
	rs, bs := cfg.RatePerSession, cfg.BurstPerSession
	if rs <= 0 {
		rs = DefaultRatePerSession
	}
	if bs <= 0 {
		bs = DefaultBurstPerSession
	}
	srv.ipLimit = newLimiters(rate.Limit(rip), bip)
	srv.sessionLimit = newLimiters(rate.Limit(rs), bs)
	srv.loginLimit = newLimiters(rate.Every(loginEvery), loginBurst)
	jip, jall := cfg.JoinsPerMinutePerIP, cfg.JoinsPerMinute
	if jip <= 0 {
		jip = experiment.DefaultJoinsPerMinutePerIP
	}
	if jall <= 0 {
		jall = experiment.DefaultJoinsPerMinute
	}
	srv.joinIP = newLimiters(rate.Limit(jip/60), max(1, int(jip)))
	srv.joinAll = newLimiters(rate.Limit(jall/60), max(1, int(jall)))
	switch srv.maxPerAddr = cfg.MaxPlacesPerIP; {
	case srv.maxPerAddr == 0:
		srv.maxPerAddr = experiment.DefaultMaxPlacesPerIP
	case srv.maxPerAddr < 0:
		srv.maxPerAddr = 0
	}
	srv.admins = newAdminSessions()
	srv.servedLog = newServedLog(s, srv.log)

	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	fileServer := http.StripPrefix("/static/", http.FileServerFS(static))
	mux.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		fileServer.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("GET /{$}", srv.handleConsent)
	mux.HandleFunc("POST /join", srv.handleJoin)
	mux.HandleFunc("GET /run", srv.handleRun)
	mux.HandleFunc("GET /done", srv.handleDone)
	mux.HandleFunc("GET /api/state", srv.handleState)
	mux.HandleFunc("POST /api/respond", srv.handleRespond)
	mux.HandleFunc("GET /stim/{token}/{n}", srv.handleStimulus)
	mux.HandleFunc("GET /mask/{token}", srv.handleMask)
	mux.HandleFunc("GET /cat/{n}", srv.handleCategoryImage)
	mux.HandleFunc("GET /admin/login", srv.handleAdminLoginPage)
	mux.HandleFunc("POST /admin/login", srv.handleAdminLogin)
	mux.HandleFunc("POST /admin/logout", srv.handleAdminLogout)
	mux.HandleFunc("GET /admin", srv.admin(srv.handleAdmin))
	mux.HandleFunc("GET /admin/api/progress", srv.admin(srv.handleProgress))
	mux.HandleFunc("GET /admin/curve/{n}", srv.admin(srv.handleCurve))
	mux.HandleFunc("GET /admin/export.csv", srv.admin(srv.handleExport))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		srv.fail(w, r, errNotFound)
	})
	srv.handler = srv.recoverPanics(srv.securityHeaders(srv.limitIP(mux)))
	return srv, nil
}

// ServeHTTP serves the app.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close writes the served images still queued and releases the image
// folder. It does not close the store.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return errors.Join(s.servedLog.flush(ctx), s.images.Close())
}

// HTTPServer returns an http.Server for the app on addr with read, write
// and idle timeouts and a header size limit set.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// mac returns the base64url HMAC-SHA256 of msg keyed by key.
func mac(key []byte, msg string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// securityHeaders sets the hardening headers on every response.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; " +
		"form-action 'self' https://www.mturk.com https://workersandbox.mturk.com"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
		if s.cfg.SecureCookies {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// recoverPanics turns a panic in a handler into a plain 500 page; the
// panic and its stack go to the log only.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			h := w.Header()
			for k := range h {
				delete(h, k)
			}
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintln(w, "Internal server error. Please try again in a moment.")
		}()
		next.ServeHTTP(w, r)
	})
}

// limitIP applies the per-address rate limit to everything but /healthz.
func (s *Server) limitIP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			if wait, ok := s.ipLimit.allow(s.clientIP(r), s.now()); !ok {
				s.fail(w, r, &limitedError{wait})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
