package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/postgres"
)

// TestJoinAttack is the join-and-hold attack of issue 15 against the web
// app on a loopback port with SQLite (TestJoinAttackPostgres: PostgreSQL),
// with completion.platform prolific and the default join limits.
func TestJoinAttack(t *testing.T) {
	runJoinAttack(t, openTestStore(t, t.TempDir()))
}

// TestJoinAttackPostgres is TestJoinAttack on PostgreSQL at
// $VCR_TEST_POSTGRES.
func TestJoinAttackPostgres(t *testing.T) {
	s, err := postgres.Open(context.Background(), postgresDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runJoinAttack(t, s)
}

// attackAbandon is the design's abandon time in the attack test: short,
// so that the keep-alive attack plays out in seconds.
const attackAbandon = 2 * time.Second

// runJoinAttack: 50 places (10 batches × 5 views). From one address, 36
// joins without a Prolific id are all refused and take no place (on
// 42f7914 they filled the study in 0.3 s); 36 joins with fabricated,
// well-formed ids take at most max_places_per_ip places. Those
// fabricated participants rejoin every 0.25 s and never answer: after the
// abandon time they hold nothing. 48 honest participants from their own
// addresses then all get places.
func runJoinAttack(t *testing.T, s experiment.Store) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := TinyDesign(dir, DesignOptions{Batches: 10, PerBatch: 2, ViewsPerBatch: 5, Size: 16, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	d.Abandon = attackAbandon
	d.Freeze()
	cfg := experiment.ServerConfig{AdminToken: AdminToken, Platform: experiment.PlatformProlific, TrustProxy: true,
		RatePerIP: 1e6, BurstPerIP: 1e6}
	srv, err := StartServer(ctx, d, s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	places := func() (active int) {
		p, err := s.Progress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p.Participants[experiment.StatusActive] + p.Participants[experiment.StatusCompleted]
	}

	const attacker = "203.0.113.9"
	anon := map[int]int{}
	start := time.Now()
	for i := range 36 {
		anon[joinFrom(t, srv.URL, attacker, fmt.Sprintf("pid=anon-%d", i))]++
	}
	if anon[http.StatusBadRequest] != 36 || places() != 0 {
		t.Fatalf("36 anonymous joins: statuses %v, %d places taken; want all 400, none", anon, places())
	}
	fake := map[int]int{}
	for i := range 36 {
		fake[joinFrom(t, srv.URL, attacker, "PROLIFIC_PID="+fakePID(i))]++
	}
	held := places()
	t.Logf("one address in %v: 36 anonymous joins → %v; 36 fabricated ids → %v, %d of 50 places held",
		time.Since(start).Round(time.Millisecond), anon, fake, held)
	if held != experiment.DefaultMaxPlacesPerIP || fake[http.StatusSeeOther] != held {
		t.Fatalf("fabricated ids from one address hold %d places (statuses %v), want %d", held, fake, experiment.DefaultMaxPlacesPerIP)
	}
	// Keep-alive: the fake participants rejoin (from fresh addresses, so
	// that no join limit stops them) for twice the abandon time.
	rejoins := 0
	for deadline := time.Now().Add(2 * attackAbandon); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		for i := range held {
			if code := joinFrom(t, srv.URL, fmt.Sprintf("192.0.2.%d", 10+rejoins%200), "PROLIFIC_PID="+fakePID(i)); code != http.StatusSeeOther {
				t.Fatalf("rejoin: %d", code)
			}
			rejoins++
		}
	}
	time.Sleep(5 * time.Second) // the server sweeps idle holders at most every 5 s
	honest := 0
	for i := range 48 {
		if joinFrom(t, srv.URL, fmt.Sprintf("198.51.100.%d", i+1), "PROLIFIC_PID="+fakePID(1000+i)) == http.StatusSeeOther {
			honest++
		}
	}
	p, _ := s.Progress(ctx)
	t.Logf("after %d keep-alive rejoins: %d of 48 honest participants got places; %d abandoned", rejoins, honest, p.Participants[experiment.StatusAbandoned])
	if honest != 48 || p.Participants[experiment.StatusAbandoned] != held {
		t.Errorf("%d of 48 honest participants placed, %d abandoned; want 48 and %d", honest, p.Participants[experiment.StatusAbandoned], held)
	}
}

// fakePID is a well-formed Prolific id (24 hex digits).
func fakePID(n int) string { return fmt.Sprintf("%024x", 0xbad000+n) }

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// joinFrom opens the consent page with query from client address ip (as
// X-Forwarded-For; the server trusts it) and consents with the page's
// form; it returns the join's status (the consent page's when that
// refuses).
func joinFrom(t *testing.T, base, ip, query string) int {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(req *http.Request) (int, string) {
		req.Header.Set("X-Forwarded-For", ip)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	// The consent page of a valid link gives the CSRF token; the form then
	// carries the ids under test, as a script would post them.
	req, _ := http.NewRequest("GET", base+"/?PROLIFIC_PID="+fakePID(999999), nil)
	code, page := do(req)
	m := csrfField.FindStringSubmatch(page)
	if code != 200 || m == nil {
		t.Fatalf("consent page: %d", code)
	}
	form, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	form.Set("csrf", m[1])
	form.Set("consent", "yes")
	req, _ = http.NewRequest("POST", base+"/join", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	code, _ = do(req)
	return code
}
