package e2e

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/loadtest"
	"github.com/vcr-bench/vcr/experiment/postgres"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// crashConfig is the experiment config of the crash test, over a test set
// generated from `vcr synth` data: four classes, 4 main trials per batch
// (one clean), 1 practice, 2 qualification and 1 sanity trial, nobody
// screened out or excluded for random answers, and rate limits high
// enough for a load test from one address.
const crashConfig = `name: crash test
seed: 3
testset: testset
task:
  categories:
    - {name: class_00, label: "Zero", key: "1"}
    - {name: class_01, label: "One", key: "2"}
    - {name: class_02, label: "Two", key: "3"}
    - {name: class_03, label: "Three", key: "4"}
trials_per_batch: 4
clean_per_batch: 1
views_per_batch: 5
batches: %d
practice: 1
qualification: 2
qualification_min_correct: 0
sanity: 1
sanity_max_failures: 1
masks: 4
server:
  admin_token: ` + AdminToken + `
  rate_per_ip: 1000000
  burst_per_ip: 1000000
  rate_per_session: 10000
  burst_per_session: 10000
  max_places_per_ip: -1
  joins_per_minute: 1000000
  joins_per_minute_per_ip: 1000000
`

// SetupCLIExperiment builds the vcr binary and writes, into dir, a
// synthetic dataset (vcr synth), a test set (vcr generate) and an
// experiment config with the given number of batches (crashConfig),
// returning the binary and the config's path.
func setupCLIExperiment(t *testing.T, ctx context.Context, dir string, batches int) (bin, config string) {
	t.Helper()
	bin, err := BuildVCR(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("vcr %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Each batch needs 3 corrupted stimuli on distinct sources; a third
	// more test-set rows than that leaves Build room to choose.
	perCorruption := (batches*3*4/3)/2 + 8
	run("synth", "--out", "data", "--n", "64", "--size", "96", "--classes", "4", "--seed", "5")
	run("generate", "--images", filepath.Join(dir, "data"), "--corruptions", "gaussian_noise,gaussian_blur",
		"--n", fmt.Sprint(perCorruption), "--seed", "5", "--out", "testset", "--progress", "never")
	config = filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(config, fmt.Appendf(nil, crashConfig, batches), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, config
}

// TestCrash runs the load test against `vcr experiment serve` on SQLite,
// kills the server with SIGKILL when about 40% of the trials are
// acknowledged, restarts it on the same database and lets the simulated
// participants carry on (they retry with backoff). Then every
// acknowledged response must be in the database, no trial answered
// twice, and every participant must have completed its run, those caught
// in the middle included.
func TestCrash(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "exp.sqlite")
	runCrash(t, dir, db, func() (experiment.Store, error) { return sqlite.Open(db) })
}

// TestCrashPostgres is TestCrash with the server on PostgreSQL at
// $VCR_TEST_POSTGRES (a database of its own, dropped at the end); it skips
// without the variable, unless VCR_REQUIRE_POSTGRES=1.
func TestCrashPostgres(t *testing.T) {
	db := postgresDatabase(t)
	runCrash(t, t.TempDir(), db, func() (experiment.Store, error) { return postgres.Open(context.Background(), db) })
}

// runCrash runs the crash test with `vcr experiment serve --db db`; open
// opens that database for the checks.
func runCrash(t *testing.T, dir, db string, open func() (experiment.Store, error)) {
	ctx := context.Background()
	n := 200
	if testing.Short() {
		n = 50
	}
	const views = 5
	bin, config := setupCLIExperiment(t, ctx, dir, n/views)
	logPath := filepath.Join(dir, "serve.log")
	defer func() {
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("server log:\n%s", b)
			}
		}
	}()
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServe(ctx, bin, config, db, addr, logPath)
	if err != nil {
		t.Fatal(err)
	}
	const perParticipant = 8 // 1 practice + 2 qualification + 4 main + 1 sanity
	killAt := int64(n * perParticipant * 4 / 10)
	var acked atomic.Int64
	reached := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var killed, restarted time.Time
	before := map[string]bool{} // acknowledged something before the kill
	resumed := map[string]bool{}
	type result struct {
		rep *loadtest.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := loadtest.Run(ctx, loadtest.Config{
			URL: "http://" + addr, Participants: n, Concurrency: n, IDPrefix: "crash",
			Seed: 2, RetryFor: 60 * time.Second,
			OnAck: func(a loadtest.Ack) {
				if acked.Add(1) == killAt {
					once.Do(func() { close(reached) })
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case killed.IsZero():
					before[a.ExternalID] = true
				case !restarted.IsZero() && a.At.After(restarted) && before[a.ExternalID]:
					resumed[a.ExternalID] = true
				}
			},
		})
		done <- result{rep, err}
	}()
	select {
	case <-reached:
	case r := <-done:
		srv.Kill()
		t.Fatalf("the load test ended before %d acknowledgements (report error %v)", killAt, r.err)
	}
	mu.Lock()
	killed = time.Now()
	mu.Unlock()
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed the server (SIGKILL) after %d acknowledged trials", acked.Load())
	time.Sleep(500 * time.Millisecond) // clients meet a closed port and back off
	srv, err = StartServe(ctx, bin, config, db, addr, logPath)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	restarted = time.Now()
	mu.Unlock()
	t.Logf("restarted the server %.2f s after the kill", restarted.Sub(killed).Seconds())
	r := <-done
	if err := srv.Stop(); err != nil {
		t.Error(err)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	var b strings.Builder
	r.rep.WriteText(&b)
	t.Logf("crash test:\n%s", b.String())
	writeLoadReport(t, "crash", r.rep)
	if err := r.rep.Err(); err != nil {
		t.Fatal(err)
	}
	if r.rep.Outcomes["done"] != n {
		t.Errorf("outcomes %v, want all %d done", r.rep.Outcomes, n)
	}
	if r.rep.Errors["network"] == 0 {
		t.Errorf("no network errors: the kill did not hit the load test (errors %v)", r.rep.Errors)
	}
	mu.Lock()
	nBefore, nResumed := len(before), len(resumed)
	mu.Unlock()
	// Participants that had finished before the restart have nothing to
	// resume; all the others must have carried on.
	finishedBefore := 0
	last := map[string]time.Time{}
	for _, a := range r.rep.Acked {
		if a.At.After(last[a.ExternalID]) {
			last[a.ExternalID] = a.At
		}
	}
	for id := range before {
		if last[id].Before(restarted) {
			finishedBefore++
		}
	}
	t.Logf("%d participants had acknowledged trials before the kill, %d of them had finished, %d resumed after the restart", nBefore, finishedBefore, nResumed)
	if nResumed != nBefore-finishedBefore || nResumed == 0 {
		t.Errorf("%d participants resumed after the restart, want %d (caught in the middle)", nResumed, nBefore-finishedBefore)
	}

	// The database, checked with the design the server used.
	cfg, err := experiment.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	d, err := experiment.Build(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Init(ctx, d); err != nil {
		t.Fatal(err)
	}
	v, err := loadtest.VerifyAll(ctx, s, d, r.rep.Acked)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("crash check: %+v", *v)
	if v.Completed != n || v.Answered != n*perParticipant {
		t.Errorf("store: %d completed participants, %d answered trials; want %d and %d", v.Completed, v.Answered, n, n*perParticipant)
	}
	// The export has one row per answered trial, each acknowledged
	// answer as acknowledged.
	csvPath := filepath.Join(dir, "trials.csv")
	if out, err := exec.CommandContext(ctx, bin, "experiment", "export", "--db", db, "--out", csvPath).CombinedOutput(); err != nil {
		t.Fatalf("vcr experiment export: %v\n%s", err, out)
	}
	ids := map[string]int64{}
	if err := s.Participants(ctx, func(p *experiment.Participant) error { ids[p.ExternalID] = p.ID; return nil }); err != nil {
		t.Fatal(err)
	}
	checkExport(t, csvPath, n*perParticipant, r.rep.Acked, ids)
	if got := len(d.Plan(0, 0)); got != perParticipant {
		t.Errorf("the crash config plans %d trials per participant, the test assumes %d", got, perParticipant)
	}
}

// checkExport reads the export at path and checks it has rows answered
// trials, each acknowledged answer among them with its response. The
// export names participants by their store ID (ids maps external ids to
// them), not by the platform's id.
func checkExport(t *testing.T, path string, rows int, acked []loadtest.Ack, ids map[string]int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if len(recs)-1 != rows {
		t.Fatalf("export has %d rows, want %d answered trials", len(recs)-1, rows)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"participant", "trial", "response", "stimulus_id", "source_id", "corruption", "dv", "ground_truth", "correct", "rt_ms", "shown_ms", "excluded"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("export lacks the column %q (has %v)", name, recs[0])
		}
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		got[r[col["participant"]]+"/"+r[col["trial"]]] = r[col["response"]]
	}
	if len(got) != rows {
		t.Errorf("export has %d distinct (participant, trial) pairs in %d rows", len(got), rows)
	}
	for _, a := range acked {
		if v, ok := got[fmt.Sprintf("%d/%d", ids[a.ExternalID], a.Index)]; !ok || v != a.Response {
			t.Fatalf("export: participant %s trial %d has response %q (present %v), acknowledged %q", a.ExternalID, a.Index, v, ok, a.Response)
		}
	}
}
