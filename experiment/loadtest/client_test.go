package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer implements the participant API of docs/experiment.md in
// memory, with injected faults, to test the client on its own: the first
// answer of every participant is stored but answered 500 (as when the
// server dies between commit and reply), every participant's first state
// request is answered 429, join sometimes fails with a 502, and the CSRF
// token changes after the third answer (403 until the client rejoins).
type fakeServer struct {
	trials int
	mu     sync.Mutex
	parts  map[string]*fakePart // by session cookie
	joins  int
}

type fakePart struct {
	ext       string
	answers   []string
	crashed   bool
	limited   bool
	rotated   bool
	csrf      string
	submitted map[int]int // index → times stored (must stay ≤ 1)
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	part := func() *fakePart {
		c, err := r.Cookie("vcr_session")
		if err != nil {
			return nil
		}
		return f.parts[c.Value]
	}
	switch {
	case r.Method == "GET" && r.URL.Path == "/":
		http.SetCookie(w, &http.Cookie{Name: "vcr_csrf", Value: "tok"})
		fmt.Fprintf(w, `<!doctype html><form method="post" action="/join"><input type="hidden" name="pid" value="%s">
<input type=hidden name='csrf' value="tok"><label><input type="checkbox" name="consent" value="yes"> I agree</label><button type="submit">Start</button></form>`,
			html.EscapeString(r.URL.Query().Get("pid")))
	case r.Method == "POST" && r.URL.Path == "/join":
		c, err := r.Cookie("vcr_csrf")
		if err != nil || r.FormValue("csrf") != c.Value || r.FormValue("consent") != "yes" {
			http.Error(w, "bad form", http.StatusForbidden)
			return
		}
		f.joins++
		if f.joins%7 == 3 {
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return
		}
		sess := "s-" + r.FormValue("pid")
		if f.parts[sess] == nil {
			f.parts[sess] = &fakePart{ext: r.FormValue("pid"), csrf: "c-" + sess, submitted: map[int]int{}}
		}
		http.SetCookie(w, &http.Cookie{Name: "vcr_session", Value: sess})
		http.Redirect(w, r, "/run", http.StatusSeeOther)
	case r.Method == "GET" && r.URL.Path == "/run":
		p := part()
		if p == nil {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		fmt.Fprintf(w, `<html><head><meta charset="utf-8"><meta name="csrf-token" content="%s"></head></html>`, p.csrf)
	case r.Method == "GET" && r.URL.Path == "/api/state":
		p := part()
		if p == nil {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		if !p.limited {
			p.limited = true
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		f.writeState(w, p)
	case r.Method == "GET" && (strings.HasPrefix(r.URL.Path, "/stim/") || strings.HasPrefix(r.URL.Path, "/mask/")):
		if part() == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG fake"))
	case r.Method == "POST" && r.URL.Path == "/api/respond":
		p := part()
		if p == nil || r.Header.Get("X-CSRF-Token") != p.csrf {
			http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden)
			return
		}
		var req struct {
			Index    int     `json:"index"`
			Response string  `json:"response"`
			ShownMS  float64 `json:"shown_ms"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.ShownMS <= 0 {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		if req.Index != len(p.answers) {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"error":"trial already answered"}`)
			return
		}
		p.answers = append(p.answers, req.Response)
		p.submitted[req.Index]++
		if len(p.answers) == 3 && !p.rotated {
			// The session's CSRF token changes (as after a restart with a
			// new secret): the next answer gets 403 until the client opens
			// the study link again.
			p.rotated = true
			p.csrf += "-new"
		}
		if !p.crashed {
			p.crashed = true
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		f.writeState(w, p)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeServer) writeState(w http.ResponseWriter, p *fakePart) {
	st := map[string]any{
		"phase": "main", "done": len(p.answers), "total": f.trials,
		"categories": []map[string]string{{"name": "car", "key": "c"}, {"name": "cat", "key": "t"}},
	}
	if len(p.answers) < f.trials {
		i := len(p.answers)
		st["trial"] = map[string]any{"index": i, "images": []string{fmt.Sprintf("/stim/%s%d/0", p.csrf, i)}, "mask": "/mask/" + p.csrf}
	} else {
		st["phase"] = "done"
		st["completion"] = map[string]string{"code": "CODE1"}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(st)
}

func TestRunAgainstFake(t *testing.T) {
	f := &fakeServer{trials: 5, parts: map[string]*fakePart{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	rep, err := Run(context.Background(), Config{URL: srv.URL, Participants: 40, Concurrency: 10, IDPrefix: "t", Seed: 1, RetryFor: 5 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Outcomes["done"] != 40 {
		t.Errorf("outcomes %v, want 40 done", rep.Outcomes)
	}
	// The first answer of each participant was stored but answered 500,
	// then 409 on retry: not acknowledged. The other 4 are.
	if rep.Trials != 40*4 || len(rep.Acked) != 40*4 {
		t.Errorf("acknowledged %d trials, want %d", rep.Trials, 40*4)
	}
	if rep.Errors["http_500"] != 40 || rep.Errors["http_409"] != 40 || rep.Errors["http_429"] != 40 || rep.Errors["http_403"] != 40 || rep.Errors["http_502"] == 0 {
		t.Errorf("errors %v, want 40 each of 500, 409, 429, 403 and some 502", rep.Errors)
	}
	for id, code := range rep.Completion {
		if code != "CODE1" {
			t.Errorf("%s: completion code %q", id, code)
		}
	}
	if l := rep.Endpoints["POST /api/respond"]; l.N != 40*4 || l.P50MS <= 0 || l.P50MS > l.P99MS || l.P99MS > l.MaxMS {
		t.Errorf("respond latency %+v", l)
	}
	// 5 trials each, and the trial refused with 403 is shown again after
	// the rejoin.
	if l := rep.Endpoints["GET /stim"]; l.N != 40*6 {
		t.Errorf("GET /stim n = %d, want %d", l.N, 40*6)
	}
	if l := rep.Endpoints["GET /"]; l.N != 40*2 {
		t.Errorf("GET / n = %d, want %d (join and rejoin)", l.N, 40*2)
	}
	// Every acknowledged answer is what the server stored, once.
	for _, p := range f.parts {
		for i, n := range p.submitted {
			if n != 1 {
				t.Errorf("%s trial %d stored %d times", p.ext, i, n)
			}
		}
	}
	for _, a := range rep.Acked {
		p := f.parts["s-"+a.ExternalID]
		if p == nil || a.Index >= len(p.answers) || p.answers[a.Index] != a.Response {
			t.Errorf("ack %+v not stored as acknowledged", a)
		}
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Log("\n" + b.String())
}

func TestRunGivesUp(t *testing.T) {
	// A server that is never there: every participant fails after RetryFor.
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	rep, err := Run(context.Background(), Config{URL: u, Participants: 3, RetryFor: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcomes["failed"] != 3 || rep.Err() == nil || rep.Errors["network"] < 3 {
		t.Errorf("outcomes %v, errors %v, Err %v: want 3 failed network errors", rep.Outcomes, rep.Errors, rep.Err())
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(201-i)*time.Millisecond)
	}
	l := summarize(ds)
	// Nearest rank: p50 of 1..200 ms is the 100th value, p90 the 180th,
	// p99 the 198th.
	if l.N != 200 || l.P50MS != 100 || l.P90MS != 180 || l.P99MS != 198 || l.MaxMS != 200 || l.MeanMS != 100.5 {
		t.Errorf("summarize = %+v", l)
	}
}

func TestJoinForm(t *testing.T) {
	page := `<p>x</p><form class="c" method="post" action="/join?x=1">
<input type="hidden" name="PROLIFIC_PID" value="a&amp;b">
<input type="hidden" name="csrf" value='Zm9v-_'>
<input type="checkbox" name="consent" value="yes" required>
<button type="submit">Go</button></form>
<form action="/other"><input type="hidden" name="junk" value="1"></form>`
	action, fields, ok := joinForm(page)
	if !ok || action != "/join?x=1" {
		t.Fatalf("joinForm: ok %v action %q", ok, action)
	}
	want := map[string]string{"PROLIFIC_PID": "a&b", "csrf": "Zm9v-_", "consent": "yes"}
	if fmt.Sprint(fields) != fmt.Sprint(want) {
		t.Errorf("fields %v, want %v", fields, want)
	}
	if got := metaContent(`<meta charset=utf-8><META name="csrf-token" content="q&#43;w">`, "csrf-token"); got != "q+w" {
		t.Errorf("metaContent = %q", got)
	}
}
