package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/loadtest"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

var loadReport = flag.String("loadreport", "", "write the load tests' reports (JSON, without the acknowledgement log) to this folder")

// loadSize returns the participants, concurrency and views per batch of
// the load tests: 500 participants all at once (the minimum), 100
// with -short.
func loadSize() (participants, concurrency, views int) {
	if testing.Short() {
		return 100, 100, 5
	}
	return 500, 500, 5
}

// TestLoadSQLite runs 500 simulated participants at once against the web
// app on loopback with the SQLite store, each completing its whole run of
// 30 trials (the config defaults: 3 practice, 5 qualification, 20 main, 2
// sanity; 100 participants with -short), then checks
// the database: no acknowledged response lost or changed, none
// duplicated, every plan answered in order, every batch with exactly
// ViewsPerBatch participants, nobody seeing a source twice. The design
// has exactly participants/views batches, so 5 more participants find the
// study full.
func TestLoadSQLite(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlite.Open(filepath.Join(dir, "exp.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runLoad(t, dir, s, "sqlite")
}

func runLoad(t *testing.T, dir string, s experiment.Store, name string) {
	t.Helper()
	ctx := context.Background()
	n, conc, views := loadSize()
	d, err := TinyDesign(dir, DesignOptions{
		Batches: n / views, PerBatch: 20, ViewsPerBatch: views,
		Practice: 3, Qualification: 5, Sanity: 2,
		QualificationMinCorrect: 0, SanityMaxFailures: 2, Seed: 9,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ctx, d, s, LoadTestServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const extra = 5
	rep, err := loadtest.Run(ctx, loadtest.Config{
		URL: srv.URL, Participants: n + extra, Concurrency: conc, IDPrefix: "load-" + name,
		Seed: 1, RetryFor: 20 * time.Second, Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Logf("%s:\n%s", name, b.String())
	writeLoadReport(t, name, rep)
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	perParticipant := len(d.Plan(0, 0))
	// Participants race for the last places, so which ones find the study
	// full depends on timing; how many does not.
	if rep.Outcomes["done"] != n || rep.Outcomes["full"] != extra {
		t.Errorf("outcomes %v, want %d done and %d full", rep.Outcomes, n, extra)
	}
	if rep.Trials != n*perParticipant {
		t.Errorf("%d acknowledged trials, want %d participants × %d", rep.Trials, n, perParticipant)
	}
	for id, code := range rep.Completion {
		if code != d.Completion.Code {
			t.Errorf("participant %s was shown completion code %q, want %q", id, code, d.Completion.Code)
			break
		}
	}
	v, err := loadtest.VerifyAll(ctx, s, d, rep.Acked)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s check: %+v", name, *v)
	if v.Participants != n || v.Completed != n || v.Answered != n*perParticipant || v.Unacked != 0 {
		t.Errorf("store has %d participants, %d completed, %d answered, %d unacknowledged; want %d, %d, %d, 0",
			v.Participants, v.Completed, v.Answered, v.Unacked, n, n, n*perParticipant)
	}
	if v.MaxBatchHolders != views {
		t.Errorf("fullest batch has %d participants, want %d", v.MaxBatchHolders, views)
	}
	prog, err := s.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if prog.TrialsAnswered != n*perParticipant {
		t.Errorf("Progress.TrialsAnswered = %d, want %d", prog.TrialsAnswered, n*perParticipant)
	}
	for _, bp := range prog.Batches {
		if bp.Completed+bp.Active != views {
			t.Errorf("batch %d: %d completed + %d active participants, want %d", bp.ID, bp.Completed, bp.Active, views)
		}
	}
}

// writeLoadReport writes rep to -loadreport DIR/load-NAME.json.
func writeLoadReport(t *testing.T, name string, rep *loadtest.Report) {
	if *loadReport == "" {
		return
	}
	r := *rep
	r.Acked, r.Completion = nil, nil
	b, err := json.MarshalIndent(&r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*loadReport, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*loadReport, "load-"+name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
