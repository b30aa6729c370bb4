package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/experiment/e2e"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/internal/version"
)

func TestExperimentLoadtest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := e2e.TinyDesign(dir, e2e.DesignOptions{Batches: 6, PerBatch: 3, ViewsPerBatch: 4, Practice: 1, Qualification: 1, Sanity: 1, SanityMaxFailures: 1, Size: 32, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "exp.sqlite")
	s, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv, err := e2e.StartServer(ctx, d, s, e2e.LoadTestServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	report := filepath.Join(dir, "report.json")
	var stdout, stderr bytes.Buffer
	// The design the database recorded serves for the check (no --config).
	code := run(ctx, []string{"experiment", "loadtest", "--url", srv.URL, "--participants", "20", "--concurrency", "10",
		"--id-prefix", "cli", "--db", db, "--json", report}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	per := len(d.Plan(0, 0))
	for _, want := range []string{"20 participants, 10 at once", "outcomes: done 20", "POST /api/respond", "database check: 20 participants, 20 completed", "lost 0, mismatched 0, duplicated 0"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Tool    string `json:"tool"`
		Version string `json:"version"`
		Report  struct {
			Trials int                        `json:"trials"`
			Acked  []map[string]any           `json:"acked"`
			Ends   map[string]json.RawMessage `json:"endpoints"`
		} `json:"report"`
		Check struct {
			Answered int `json:"answered"`
			Lost     int `json:"lost"`
		} `json:"check"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Tool != "vcr experiment loadtest" || out.Version != version.String() {
		t.Errorf("report.json: tool %q, version %q", out.Tool, out.Version)
	}
	if out.Report.Trials != 20*per || len(out.Report.Acked) != 20*per || out.Check.Answered != 20*per || out.Check.Lost != 0 || out.Report.Ends["GET /stim"] == nil {
		t.Errorf("report.json: %d trials, %d acked, %d answered, %d lost; want %d, %d, %d, 0", out.Report.Trials, len(out.Report.Acked), out.Check.Answered, out.Check.Lost, 20*per, 20*per, 20*per)
	}

	// 4 more participants fill the study (6 batches × 4 views); the other
	// 4 find it full, which is not a failure.
	stdout.Reset()
	if code := run(ctx, []string{"experiment", "loadtest", "--url", srv.URL, "--participants", "8", "--id-prefix", "more", "--db", db}, &stdout, &stderr); code != exitOK {
		t.Fatalf("second run: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "outcomes: done 4, full 4") {
		t.Errorf("second run:\n%s", stdout.String())
	}
}

func TestExperimentLoadtestErrors(t *testing.T) {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--participants", "0"}, exitUsage, "--participants must be positive"},
		{[]string{"--config", "exp.yaml"}, exitUsage, "give --db too"},
		{[]string{"--url", "ftp://x"}, exitFailure, "not an http(s) URL"},
		{[]string{"--url", closed, "--participants", "2", "--retry-for", "200ms"}, exitFailure, "2 of 2 participants failed"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(ctx, append([]string{"experiment", "loadtest"}, tc.args...), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}
