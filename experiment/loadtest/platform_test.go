package loadtest_test

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/e2e"
	"github.com/vcr-bench/vcr/experiment/loadtest"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// TestPlatform: against a server with completion.platform prolific, the
// simulated participants bring valid Prolific ids and finish; with plain
// pids they are refused at the join.
func TestPlatform(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := e2e.TinyDesign(dir, e2e.DesignOptions{Batches: 2, PerBatch: 3, ViewsPerBatch: 5, Size: 16})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(filepath.Join(dir, "exp.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := e2e.LoadTestServerConfig()
	cfg.Platform = experiment.PlatformProlific
	srv, err := e2e.StartServer(ctx, d, s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	rep, err := loadtest.Run(ctx, loadtest.Config{URL: srv.URL, Participants: 6, Seed: 1, Platform: "prolific", RetryFor: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcomes["done"] != 6 {
		t.Errorf("outcomes %v, want 6 done", rep.Outcomes)
	}
	hex24 := regexp.MustCompile(`^[0-9a-f]{24}$`)
	for id, code := range rep.Completion {
		if !hex24.MatchString(id) || code != d.Completion.Code {
			t.Errorf("participant %q got code %q", id, code)
		}
	}
	rep, err = loadtest.Run(ctx, loadtest.Config{URL: srv.URL, Participants: 2, Seed: 1, RetryFor: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcomes["done"] != 0 || rep.Outcomes["failed"] != 2 {
		t.Errorf("plain pids against a Prolific study: outcomes %v, want 2 failed", rep.Outcomes)
	}
}

func TestPlatformIDs(t *testing.T) {
	for _, tc := range []struct {
		platform string
		query    *regexp.Regexp
	}{
		{"", regexp.MustCompile(`^pid=x-1$`)},
		{"prolific", regexp.MustCompile(`^PROLIFIC_PID=[0-9a-f]{24}&STUDY_ID=[0-9a-f]{24}&SESSION_ID=[0-9a-f]{24}$`)},
		{"mturk", regexp.MustCompile(`^workerId=A[0-9A-F]{13}&assignmentId=[0-9A-F]{30}&hitId=[0-9A-F]{30}$`)},
	} {
		q, _ := loadtest.PlatformIDs(tc.platform, "x-1")
		if !tc.query.MatchString(q) {
			t.Errorf("%q: query %q", tc.platform, q)
		}
		if q2, _ := loadtest.PlatformIDs(tc.platform, "x-2"); q2 == q {
			t.Errorf("%q: two participants share ids %q", tc.platform, q)
		}
	}
}
