package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// The attack tests of issue 15 (finding 1): a hostile crowd worker fills
// or holds a study's places, or takes a completion code it did not earn.
// They run against the real server (httptest) and the SQLite store.

// pid returns a well-formed Prolific id (24 hex digits) for n.
func pid(n int) string { return fmt.Sprintf("%024x", 0x5f00+n) }

// prolificEnv is the test design served with completion.platform
// prolific; edit changes the server config further.
func prolificEnv(t *testing.T, edit func(*experiment.ServerConfig, *experiment.Design)) *env {
	return newEnv(t, func(c *experiment.ServerConfig, d *experiment.Design) {
		c.Platform = experiment.PlatformProlific
		c.MaxPlacesPerIP, c.JoinsPerMinutePerIP = 0, 0 // the defaults
		if edit != nil {
			edit(c, d)
		}
	})
}

// postJoin consents with the form fields of a consent page opened with a
// valid id, then with the ids replaced by ids, and returns the answer.
func (c *client) postJoin(ids url.Values) (*http.Response, string) {
	c.e.t.Helper()
	q := "PROLIFIC_PID=" + pid(999)
	if c.e.srv.cfg.Platform == experiment.PlatformMTurk {
		q = "workerId=A999&assignmentId=3999&hitId=3999"
	}
	v := c.consentForm(q)
	for _, f := range idFields {
		v.Del(f)
	}
	for k, vals := range ids {
		v[k] = vals
	}
	v.Set("consent", "yes")
	return c.postForm("/join", v, nil)
}

// TestJoinNeedsPlatformID is the contract of issue 15: with
// completion.platform prolific, POST /join without a valid Prolific id is
// refused with 4xx and takes no place.
func TestJoinNeedsPlatformID(t *testing.T) {
	e := prolificEnv(t, func(c *experiment.ServerConfig, _ *experiment.Design) { c.JoinsPerMinutePerIP = 1e6 })
	for name, ids := range map[string]url.Values{
		"no id":                {},
		"own pid":              {"pid": {"anon-1"}},
		"empty PROLIFIC_PID":   {"PROLIFIC_PID": {""}},
		"short PROLIFIC_PID":   {"PROLIFIC_PID": {pid(1)[:23]}},
		"long PROLIFIC_PID":    {"PROLIFIC_PID": {pid(1) + "0"}},
		"non-hex PROLIFIC_PID": {"PROLIFIC_PID": {"5f00zz00000000000000000g"}},
		"formula PROLIFIC_PID": {"PROLIFIC_PID": {"-2-3"}},
		"MTurk ids":            {"workerId": {"A1B2C3D4E5F6G7"}, "assignmentId": {"3ABCDEFGHIJKLMNOPQRSTUVWXYZ012"}, "hitId": {"3ZYXWVUTSRQPONMLKJIHGFEDCBA987"}},
	} {
		c := e.client()
		res, body := c.postJoin(ids)
		if res.StatusCode < 400 || res.StatusCode >= 500 {
			t.Errorf("%s: %d, want 4xx\n%s", name, res.StatusCode, body)
		}
		if n := e.store.participants(t); n != 0 {
			t.Fatalf("%s: %d participants after a refused join", name, n)
		}
	}
	// The consent page refuses such links too, before anyone consents.
	if res, body := e.client().get("/?pid=anon"); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Prolific") {
		t.Errorf("consent page without a Prolific id: %d\n%s", res.StatusCode, body)
	}
	// A valid id joins.
	c := e.client()
	c.join("PROLIFIC_PID=" + pid(1) + "&STUDY_ID=s1&SESSION_ID=x1")
	if n := e.store.participants(t); n != 1 {
		t.Errorf("%d participants after a valid join, want 1", n)
	}
}

// TestMTurkIDs: with completion.platform mturk, the worker, assignment and
// HIT ids are required in MTurk's format.
func TestMTurkIDs(t *testing.T) {
	e := newEnv(t, func(c *experiment.ServerConfig, _ *experiment.Design) { c.Platform = experiment.PlatformMTurk })
	ok := url.Values{"workerId": {"A1B2C3D4E5F6G7"}, "assignmentId": {"3ABCDEFGHIJKLMNOPQRSTUVWXYZ012"}, "hitId": {"3ZYXWVUTSRQPONMLKJIHGFEDCBA987"}}
	with := func(k, v string) url.Values {
		out := url.Values{}
		for key, val := range ok {
			out[key] = val
		}
		out.Set(k, v)
		return out
	}
	for name, ids := range map[string]url.Values{
		"no ids":             {},
		"Prolific id":        {"PROLIFIC_PID": {pid(1)}},
		"lower-case worker":  with("workerId", "a1b2c3d4e5f6g7"),
		"worker not A…":      with("workerId", "B1B2C3D4E5F6G7"),
		"no hitId":           with("hitId", ""),
		"odd assignment id":  with("assignmentId", "3ABC-DEF"),
		"own pid, no worker": {"pid": {"someone"}},
	} {
		if res, body := e.client().postJoin(ids); res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400\n%s", name, res.StatusCode, body)
		}
	}
	if n := e.store.participants(t); n != 0 {
		t.Fatalf("%d participants after refused joins", n)
	}
	if res, body := e.client().postJoin(ok); res.StatusCode != http.StatusSeeOther {
		t.Errorf("valid MTurk ids: %d\n%s", res.StatusCode, body)
	}
}

// TestKeepAliveAttack: fake participants that rejoin and poll but never
// answer lose their places after the abandon time, and an honest
// newcomer gets one. (On 42f7914 a rejoin reset last_seen, so one request
// per fake id per abandon period held every place forever.)
func TestKeepAliveAttack(t *testing.T) {
	e := prolificEnv(t, func(c *experiment.ServerConfig, d *experiment.Design) {
		c.MaxPlacesPerIP, c.JoinsPerMinutePerIP = -1, 1e6 // this test is about holding, not filling
	})
	// The attacker takes both places (2 batches × 1 view).
	var fakes []*client
	for i := range 2 {
		c := e.client()
		c.join("PROLIFIC_PID=" + pid(i))
		fakes = append(fakes, c)
	}
	if res, body := e.client().postJoin(url.Values{"PROLIFIC_PID": {pid(50)}}); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("join while held: %d, want 503\n%s", res.StatusCode, body)
	}
	// Every 10 minutes for 3 hours (the abandon time is 1 h) each fake id
	// rejoins from a fresh browser and its old session polls the state.
	for step := range 18 {
		e.advance(10 * time.Minute)
		for i, c := range fakes {
			if step < 5 {
				if res, _ := c.get("/api/state"); res.StatusCode != 200 {
					t.Fatalf("poll: %d", res.StatusCode)
				}
			}
			re := e.client()
			if res, body := re.postJoin(url.Values{"PROLIFIC_PID": {pid(i)}}); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("rejoin %d at step %d: %d\n%s", i, step, res.StatusCode, body)
			}
			fakes[i] = re
		}
	}
	honest := e.client()
	honest.join("PROLIFIC_PID=" + pid(100))
	st := honest.state()
	if st.Trial == nil {
		t.Fatalf("honest participant got no trial: %+v", st)
	}
	// The fake ids are abandoned whatever they send: state, answers, /done.
	for i, c := range fakes {
		c.run()
		if st := c.state(); st.Phase != experiment.PhaseAbandoned || st.Completion != nil {
			t.Errorf("fake %d: phase %s, completion %+v", i, st.Phase, st.Completion)
		}
		if res, _ := c.respondRaw(answer(0, "cat"), nil); res.StatusCode != http.StatusConflict {
			t.Errorf("fake %d answers after abandonment: %d, want 409", i, res.StatusCode)
		}
	}
	// An honest participant who keeps answering keeps the place, even with
	// pauses just under the abandon time…
	st = honest.state()
	for range 3 {
		e.advance(50 * time.Minute)
		honest.fetch(st)
		res, body := honest.respondRaw(answer(st.Trial.Index, e.truth(st.Trial.Images[0])), nil)
		if res.StatusCode != 200 {
			t.Fatalf("honest answer: %d %s", res.StatusCode, body)
		}
		st = honest.state()
	}
	// …and an idle one is released after it, whatever it then sends.
	e.advance(61 * time.Minute)
	if st := honest.state(); st.Phase != experiment.PhaseAbandoned {
		t.Errorf("idle holder after 61 min: phase %s, want abandoned", st.Phase)
	}
}

// TestOneAddressCannotFill: one address joining fabricated (well-formed)
// Prolific ids as fast as it can takes at most max_places_per_ip places,
// and the join rate limits refuse the rest; honest participants from
// other addresses all get places. (On 42f7914, 36 anonymous joins from
// one address filled 50 places in 0.3 s.)
func TestOneAddressCannotFill(t *testing.T) {
	e := prolificEnv(t, func(c *experiment.ServerConfig, d *experiment.Design) {
		c.TrustProxy = true  // the test's clients name their address
		d.ViewsPerBatch = 10 // 20 places
	})
	from := func(ip string) *client {
		c := e.client()
		c.hdr = map[string]string{"X-Forwarded-For": ip}
		return c
	}
	placed, refused := 0, map[int]int{}
	for i := range 36 {
		res, _ := from("203.0.113.7").postJoin(url.Values{"PROLIFIC_PID": {pid(i)}})
		if res.StatusCode == http.StatusSeeOther {
			placed++
		} else {
			refused[res.StatusCode]++
		}
	}
	if placed != experiment.DefaultMaxPlacesPerIP || refused[http.StatusTooManyRequests]+refused[http.StatusForbidden] != 36-placed {
		t.Errorf("one address: %d places, refused %v; want %d places, the rest 429/403", placed, refused, experiment.DefaultMaxPlacesPerIP)
	}
	t.Logf("one address, 36 joins: %d places, refused %v", placed, refused)
	// Once the per-address join rate allows it again, the place cap still
	// holds.
	e.advance(10 * time.Minute)
	for i := 36; i < 40; i++ {
		if res, _ := from("203.0.113.7").postJoin(url.Values{"PROLIFIC_PID": {pid(i)}}); res.StatusCode != http.StatusForbidden {
			t.Errorf("join %d after the rate refilled: %d, want 403 (address holds its share)", i, res.StatusCode)
		}
	}
	// Rotating through one IPv6 /64 is one address.
	v6 := 0
	for i := range 6 {
		if res, _ := from(fmt.Sprintf("2001:db8:1:2::%x", i+1)).postJoin(url.Values{"PROLIFIC_PID": {pid(200 + i)}}); res.StatusCode == http.StatusSeeOther {
			v6++
		}
	}
	if v6 != experiment.DefaultMaxPlacesPerIP {
		t.Errorf("six addresses of one /64 took %d places, want %d", v6, experiment.DefaultMaxPlacesPerIP)
	}
	// 16 honest participants from their own addresses fill the rest.
	for i := range 16 {
		c := from(fmt.Sprintf("198.51.100.%d", i+1))
		c.join("PROLIFIC_PID=" + pid(300+i))
	}
	if n := e.store.participants(t); n != 20 {
		t.Errorf("%d participants, want 20 (4 attacker places + 16 honest)", n)
	}
}

// TestCompletionCode: the completion code goes to participants who
// completed the plan through the platform only: not to one midway, not to
// a screened-out one (who gets the screen-out code), not to an anonymous
// finisher where anonymous entry is allowed.
func TestCompletionCode(t *testing.T) {
	e := prolificEnv(t, func(c *experiment.ServerConfig, d *experiment.Design) {
		c.AllowAnonymous, c.MaxPlacesPerIP, c.JoinsPerMinutePerIP = true, -1, 1e6
		d.ViewsPerBatch = 2
	})
	code := e.d.Completion.Code
	noCode := func(who string, c *client, bodies ...string) {
		t.Helper()
		for _, b := range append(c.bodies, bodies...) {
			if strings.Contains(b, code) {
				t.Errorf("%s was shown the completion code", who)
				return
			}
		}
	}
	mid := e.client()
	mid.join("PROLIFIC_PID=" + pid(1))
	st := mid.state()
	for range 3 {
		mid.fetch(st)
		mid.respondRaw(answer(st.Trial.Index, e.truth(st.Trial.Images[0])), nil)
		st = mid.state()
	}
	if res, _ := mid.get("/done"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("/done midway: %d, want a redirect to /run", res.StatusCode)
	}
	noCode("a participant midway", mid)

	anon := e.client()
	anon.join("")
	if final := anon.finish(nil); final.Phase != experiment.PhaseDone || final.Completion != nil {
		t.Errorf("anonymous finisher: phase %s, completion %+v", final.Phase, final.Completion)
	}
	_, done := anon.get("/done")
	if !strings.Contains(done, "Thank you") {
		t.Errorf("anonymous /done:\n%s", done)
	}
	noCode("an anonymous finisher", anon)

	out := e.client()
	out.join("PROLIFIC_PID=" + pid(2))
	if final := out.finish(func(phase string) bool { return phase == experiment.PhaseQualification }); final.Phase != experiment.PhaseScreenedOut ||
		final.Completion == nil || final.Completion.Code != e.d.Completion.ScreenOutCode {
		t.Errorf("screened out: %+v", final)
	}
	out.get("/done")
	noCode("a screened-out participant", out)

	fin := e.client()
	fin.join("PROLIFIC_PID=" + pid(3))
	if final := fin.finish(nil); final.Completion == nil || final.Completion.Code != code {
		t.Errorf("Prolific finisher: completion %+v, want code %s", final.Completion, code)
	}
}

// TestForgedTiming (finding 7): answers whose timing claims the server's
// own record contradicts get timing_ok 0 and are excluded in the export
// with the reason; an honest answer is kept.
func TestForgedTiming(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	c.join("PROLIFIC_PID=forger")
	cases := []struct {
		name  string
		fetch bool
		edit  func(a map[string]any)
		wait  time.Duration // between the fetch and the answer
		want  string        // in the reason; "" for plausible
	}{
		{"image never fetched", false, nil, 0, "never fetched"},
		{"rt_ms 1", true, func(a map[string]any) { a["rt_ms"] = 1 }, 0, "rt_ms 1 is shorter"},
		{"frames 100000", true, func(a map[string]any) { a["frames"] = 100000 }, 0, "100000 frames"},
		{"mask_ms 0", true, func(a map[string]any) { a["mask_ms"] = 0 }, 0, "mask shown 0 ms"},
		{"8 s after the fetch, claiming 512 ms", true, func(a map[string]any) { a["rt_ms"] = 512 }, 8 * time.Second, "after the mask was served"},
		{"honest, 1.2 s after the fetch", true, func(a map[string]any) { a["rt_ms"] = 700 }, 1200 * time.Millisecond, ""},
	}
	for i, tc := range cases {
		st := c.state()
		if st.Trial == nil || st.Trial.Index != i {
			t.Fatalf("%s: state %+v", tc.name, st)
		}
		if tc.fetch {
			c.fetch(st)
		}
		e.advance(tc.wait)
		a := answer(i, e.truth(st.Trial.Images[0]))
		if tc.edit != nil {
			tc.edit(a)
		}
		if res, body := c.respondRaw(a, nil); res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", tc.name, res.StatusCode, body)
		}
	}
	var b bytes.Buffer
	if _, err := experiment.Export(context.Background(), e.st, e.d, &b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, n := range rows[0] {
		col[n] = i
	}
	if len(rows) != 1+len(cases) {
		t.Fatalf("%d export rows, want %d", len(rows)-1, len(cases))
	}
	for i, tc := range cases {
		r := rows[1+i]
		ok, excluded, reason := r[col["timing_ok"]], r[col["excluded"]], r[col["exclusion_reason"]]
		if tc.want == "" {
			if ok != "1" || excluded != "0" || reason != "" {
				t.Errorf("%s: timing_ok %s excluded %s %q, want 1 0", tc.name, ok, excluded, reason)
			}
			continue
		}
		if ok != "0" || excluded != "1" || !strings.Contains(reason, "implausible timing") || !strings.Contains(reason, tc.want) {
			t.Errorf("%s: timing_ok %s excluded %s reason %q, want 0 1 %q", tc.name, ok, excluded, reason, tc.want)
		}
	}
}

// TestAdminSessions (finding 8): an admin cookie stops working after 12
// hours and after logout (on 42f7914 it was a fixed HMAC of the token that
// the server accepted forever).
func TestAdminSessions(t *testing.T) {
	e := newEnv(t, nil)
	exportWith := func(cookie string) int {
		req, _ := http.NewRequest("GET", e.ts.URL+"/admin/export.csv", nil)
		req.AddCookie(&http.Cookie{Name: adminCookie, Value: cookie})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	login := func() (*client, string) {
		c := e.client()
		if res := c.adminLogin(testAdminToken, nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("login: %d", res.StatusCode)
		}
		u, _ := url.Parse(e.ts.URL + "/admin")
		for _, ck := range c.c.Jar.Cookies(u) {
			if ck.Name == adminCookie {
				return c, ck.Value
			}
		}
		t.Fatal("no admin cookie after login")
		return nil, ""
	}

	c, old := login()
	if code := exportWith(old); code != 200 {
		t.Fatalf("export with a fresh session: %d", code)
	}
	_, body := c.get("/admin")
	m := hiddenRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf field on the admin page:\n%s", body)
	}
	if res, _ := c.postForm("/admin/logout", url.Values{"csrf": {m[2]}}, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.StatusCode)
	}
	if code := exportWith(old); code != http.StatusUnauthorized {
		t.Errorf("export with a logged-out cookie: %d, want 401", code)
	}

	_, second := login()
	e.advance(12*time.Hour - time.Minute)
	if code := exportWith(second); code != 200 {
		t.Errorf("export after 11 h 59 min: %d, want 200", code)
	}
	e.advance(2 * time.Minute)
	if code := exportWith(second); code != http.StatusUnauthorized {
		t.Errorf("export with a 12 h 1 min old cookie: %d, want 401", code)
	}
}
