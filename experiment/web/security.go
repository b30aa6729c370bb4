package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Cookie names.
const (
	sessionCookie = "vcr_session" // the participant's session secret
	csrfCookie    = "vcr_csrf"    // double-submit token of the join and login forms
	adminCookie   = "vcr_admin"   // an admin session secret (adminSessions)
	turkCookie    = "vcr_turk"    // MTurk's turkSubmitTo (validated)
)

// randomToken returns 32 random bytes, base64url-encoded (256 bits).
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validToken reports whether v looks like a randomToken.
func validToken(v string) bool {
	if len(v) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil
}

// sessionHash is what the store keeps of a session secret.
func sessionHash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// apiCSRF is the X-CSRF-Token of a session: an HMAC of "csrf" keyed by
// the session secret, so any server instance can check it.
func apiCSRF(secret string) string { return mac([]byte(secret), "csrf") }

// equal compares two secrets in constant time (independent of where they
// differ and, by hashing first, of their lengths).
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// crossOrigin refuses state-changing requests whose Origin or
// Sec-Fetch-Site header shows they came from another site.
var crossOrigin = http.NewCrossOriginProtection()

// checkForm checks a state-changing form post: same origin and the csrf
// field equal to the vcr_csrf cookie.
func checkForm(r *http.Request) error {
	if err := crossOrigin.Check(r); err != nil {
		return errForbidden
	}
	c, err := r.Cookie(csrfCookie)
	if err != nil || !validToken(c.Value) || !equal(c.Value, r.PostFormValue("csrf")) {
		return errForbidden
	}
	return nil
}

// csrfToken returns the form CSRF token of the request, setting the
// cookie when the browser has none yet.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && validToken(c.Value) {
		return c.Value
	}
	v := randomToken()
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: "/", HttpOnly: true,
		Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode, MaxAge: 24 * 3600})
	return v
}

// clientIP is the address rate limits are keyed by: the connection's
// peer, or with TrustProxy the last X-Forwarded-For entry (the one the
// trusted proxy appended; earlier ones are the client's to forge).
func (s *Server) clientIP(r *http.Request) string {
	if s.cfg.TrustProxy {
		if xf := r.Header.Values("X-Forwarded-For"); len(xf) > 0 {
			last := xf[len(xf)-1]
			if i := strings.LastIndexByte(last, ','); i >= 0 {
				last = last[i+1:]
			}
			if ip := net.ParseIP(strings.TrimSpace(last)); ip != nil {
				return ip.String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// addrKey is the key of a client address for the join limits: the
// address itself for IPv4, its /64 network for IPv6 (one subscriber
// usually holds a whole /64, so single IPv6 addresses cost nothing).
func addrKey(ip string) string {
	a := net.ParseIP(ip)
	if a == nil || a.To4() != nil {
		return ip
	}
	return a.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// limiters is a set of token buckets keyed by client address or session;
// buckets idle for a while are dropped.
type limiters struct {
	mu     sync.Mutex
	limit  rate.Limit
	burst  int
	m      map[string]*bucket
	pruned time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiters(limit rate.Limit, burst int) *limiters {
	return &limiters{limit: limit, burst: burst, m: make(map[string]*bucket)}
}

// idle is how long an unused bucket is kept. A full bucket refills in
// burst/limit; after that, dropping it changes nothing.
const idle = 10 * time.Minute

// allow takes a token from key's bucket. When none is left it returns
// false and how long until one is.
func (l *limiters) allow(key string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.pruned) > time.Minute {
		for k, b := range l.m {
			if now.Sub(b.seen) > idle {
				delete(l.m, k)
			}
		}
		l.pruned = now
	}
	b := l.m[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.m[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return time.Minute, false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// retryAfter is the Retry-After value (whole seconds, at least 1) for a
// wait.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
