package web

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/plot"
)

// adminLogin logs c in and returns the login response.
func (c *client) adminLogin(token string, header map[string]string) *http.Response {
	c.e.t.Helper()
	res, body := c.get("/admin/login")
	m := hiddenRe.FindStringSubmatch(body)
	if res.StatusCode != 200 || m == nil || m[1] != "csrf" {
		c.e.t.Fatalf("login page %d\n%s", res.StatusCode, body)
	}
	res, _ = c.postForm("/admin/login", url.Values{"csrf": {m[2]}, "token": {token}}, header)
	return res
}

// TestAdminAuth: without the cookie the admin page redirects to the
// login and the rest is 401; a wrong token is 401, a login without the
// CSRF token 403; attempts are rate limited.
func TestAdminAuth(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	if res, _ := c.get("/admin"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/login" {
		t.Errorf("/admin: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	for _, p := range []string{"/admin/api/progress", "/admin/export.csv", "/admin/curve/0"} {
		if res, body := c.get(p); res.StatusCode != http.StatusUnauthorized || strings.Contains(body, "cat") {
			t.Errorf("%s: %d, want 401", p, res.StatusCode)
		}
	}
	// A forged cookie does not help.
	req, _ := http.NewRequest("GET", e.ts.URL+"/admin/api/progress", nil)
	req.AddCookie(&http.Cookie{Name: adminCookie, Value: testAdminToken})
	if res, _ := c.do(req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("token as cookie: %d", res.StatusCode)
	}
	if res := c.adminLogin("wrong-token-0123456789", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", res.StatusCode)
	}
	if res, _ := c.postForm("/admin/login", url.Values{"token": {testAdminToken}}, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("login without csrf: %d", res.StatusCode)
	}
	if res := c.adminLogin(testAdminToken, map[string]string{"Origin": "https://evil.example"}); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin login: %d", res.StatusCode)
	}
	// Two more wrong attempts use up the burst of 5: the next is refused
	// even with the right token.
	for range 2 {
		if res := c.adminLogin("wrong-token-0123456789", nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("wrong token: %d", res.StatusCode)
		}
	}
	if res := c.adminLogin(testAdminToken, nil); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("6th login: %d, want 429", res.StatusCode)
	}
	if strings.Contains(e.log.String(), testAdminToken) {
		t.Error("the log contains the admin token")
	}
}

// TestAdmin: after login the page, progress JSON, curves and export work.
func TestAdmin(t *testing.T) {
	e := newEnv(t, nil)
	p := e.client()
	p.join("PROLIFIC_PID=ad1")
	p.finish(nil)
	q := e.client()
	q.join("PROLIFIC_PID=ad2")
	q.finish(func(phase string) bool { return phase == "main" }) // excluded

	c := e.client()
	res := c.adminLogin(testAdminToken, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin" {
		t.Fatalf("login: %d", res.StatusCode)
	}
	var ck *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == adminCookie {
			ck = k
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Value == testAdminToken {
		t.Errorf("admin cookie %+v", ck)
	}
	res, body := c.get("/admin")
	if res.StatusCode != 200 || !strings.Contains(body, "/static/admin.js") || !strings.Contains(body, "/admin/export.csv") || !strings.Contains(body, e.d.Hash) {
		t.Errorf("admin page %d\n%s", res.StatusCode, body)
	}
	res, body = c.get("/admin/api/progress")
	var pr struct {
		Participants   map[string]int `json:"participants"`
		TrialsAnswered int            `json:"trials_answered"`
		Curves         []curveJSON    `json:"curves"`
	}
	if err := json.Unmarshal([]byte(body), &pr); err != nil || res.StatusCode != 200 {
		t.Fatalf("progress %d %v\n%s", res.StatusCode, err, body)
	}
	// Both answered their whole plan: 2 practice + 3 qualification + 3
	// main + 1 sanity trials each (testDesign).
	if pr.Participants["completed"] != 1 || pr.Participants["excluded"] != 1 || pr.TrialsAnswered != 18 {
		t.Errorf("progress %+v", pr)
	}
	// Curves: fog and gaussian_noise; only the completed participant's
	// trials count (the excluded one's are left out): one trial each.
	if len(pr.Curves) != 2 || pr.Curves[0].Corruption != "fog" || pr.Curves[1].Corruption != "gaussian_noise" ||
		pr.Curves[0].Trials != 1 || pr.Curves[1].Trials != 1 {
		t.Fatalf("curves %+v", pr.Curves)
	}
	res, body = c.get(pr.Curves[0].URL)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(body, "<svg") || !strings.Contains(body, "fog") {
		t.Errorf("curve %d %s\n%.300s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if res, _ := c.get("/admin/curve/2"); res.StatusCode != 404 {
		t.Errorf("curve 2: %d", res.StatusCode)
	}
	res, body = c.get("/admin/export.csv")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") || strings.Count(body, "\n") != 1+9+9 {
		t.Errorf("export %d, %d lines\n%s", res.StatusCode, strings.Count(body, "\n"), body)
	}
	// Logout clears the cookie.
	_, body = c.get("/admin")
	m := hiddenRe.FindStringSubmatch(body)
	res, _ = c.postForm("/admin/logout", url.Values{"csrf": {m[2]}}, nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("logout %d", res.StatusCode)
	}
	if res, _ := c.get("/admin/api/progress"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("after logout: %d", res.StatusCode)
	}
}

// TestCurveChart: with enough trials the live curve is the anchored
// monotone fit; before that a line through the bins.
func TestCurveChart(t *testing.T) {
	var c curveSeries
	c.name = "fog"
	for b := range curveBins {
		c.n[b] = 20
		c.k[b] = 20 - 2*b // accuracy 1, 0.9, …, 0.1
		c.trials += 20
	}
	ch := curveChart(&c, 50, 45)
	cv := ch.Curves[0]
	if err := ch.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(cv.Points) != curveBins+1 || cv.Points[0] != (plot.Point{X: 0, Y: 0.9, N: 50}) {
		t.Errorf("points %+v", cv.Points)
	}
	// The fit starts at the clean accuracy 0.9 (anchor), ends at the last
	// bin centre 0.95 and never increases.
	if len(cv.X) != 96 || math.Abs(cv.Y[0]-0.9) > 1e-9 || math.Abs(cv.X[len(cv.X)-1]-0.95) > 1e-9 {
		t.Errorf("fit from (%v, %v) to %v with %d points", cv.X[0], cv.Y[0], cv.X[len(cv.X)-1], len(cv.X))
	}
	for i := 1; i < len(cv.Y); i++ {
		if cv.Y[i] > cv.Y[i-1]+1e-9 {
			t.Fatalf("fit increases at %v", cv.X[i])
		}
	}
	// Half-way the data say 1 − 0.5 = 0.5 (bin centres (b+½)/10, accuracy
	// 1 − b/10); the smooth fit stays close.
	if y := cv.Y[50]; math.Abs(y-0.55) > 0.1 {
		t.Errorf("s(0.5) = %v, want about 0.55", y)
	}
	// Too few trials: the bins joined by a line.
	var few curveSeries
	few.n[3], few.k[3], few.trials = 2, 1, 2
	ch = curveChart(&few, 0, 0)
	if cv := ch.Curves[0]; len(cv.X) != 1 || cv.X[0] != 0.35 || cv.Y[0] != 0.5 {
		t.Errorf("few: %+v", cv)
	}
}
