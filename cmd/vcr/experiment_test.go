package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/postgres"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// experimentFixture writes a class-folder dataset of four 16-class
// categories (6 natural test images each), a vcr generate test set of it
// (pixel VIF, gaussian_noise and gaussian_blur, 40 draws each) and a config
// for it; it returns the config's path.
func experimentFixture(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	for c, class := range []string{"bird", "car", "cat", "dog"} {
		os.MkdirAll(filepath.Join(data, class), 0o755)
		for i := range 6 {
			if err := imageio.Save(filepath.Join(data, class, fmt.Sprintf("%d.png", i)), testimg.Natural(40, 40, uint64(10*c+i)), imageio.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_noise,gaussian_blur", "--n", "40", "--seed", "3",
		"--vif-method", "pixel", "--workers", "2", "--out", filepath.Join(dir, "ts"))
	cfg := filepath.Join(dir, "exp.yaml")
	yaml := `name: cli-test
seed: 5
testset: ts
task: imagenet16
trials_per_batch: 6
clean_per_batch: 2
views_per_batch: 2
practice: 1
qualification: 2
qualification_min_correct: 0
sanity: 1
sanity_max_failures: 1
completion:
  platform: prolific
  code: CLICODE1
server:
  admin_token: cli-admin-token-0123456789
` + extra
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// startServe runs 'vcr experiment serve' until the returned stop is
// called; it returns the base URL and stop, which returns the exit code
// and the output.
func startServe(t *testing.T, args ...string) (base string, stop func() (int, string, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"experiment", "serve", "--addr", "127.0.0.1:0"}, args...), &out, &errb)
	}()
	re := regexp.MustCompile(`admin: +(http://127\.0\.0\.1:\d+)/admin`)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("serve exited with %d\n%s\n%s", code, out.String(), errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve printed no URL\n%s\n%s", out.String(), errb.String())
		}
	}
	var once sync.Once
	var code int
	stop = func() (int, string, string) {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(40 * time.Second):
				t.Fatal("serve did not stop")
			}
		})
		return code, out.String(), errb.String()
	}
	t.Cleanup(func() { stop() })
	return base, stop
}

// participate runs one participant through the study over HTTP, always
// answering the first category, and returns the number of answers.
// prolificID is a well-formed Prolific id (24 hex digits) named by name:
// the fixture's config sets completion.platform prolific.
func prolificID(name string) string {
	h := sha256.Sum256([]byte(name))
	return hex.EncodeToString(h[:12])
}

func participate(t *testing.T, base, name string) int {
	t.Helper()
	pid := prolificID(name)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(path string) string {
		res, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
		}
		return string(b)
	}
	page := get("/?PROLIFIC_PID=" + pid)
	form := url.Values{"consent": {"yes"}}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		form.Set(m[1], m[2])
	}
	res, err := c.PostForm(base+"/join", form) // follows the redirect to /run
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(string(b))
	if res.StatusCode != 200 || m == nil {
		t.Fatalf("join: %d\n%s", res.StatusCode, b)
	}
	type state struct {
		Phase string `json:"phase"`
		Trial *struct {
			Index  int      `json:"index"`
			Images []string `json:"images"`
			Mask   string   `json:"mask"`
		} `json:"trial"`
		Categories []struct {
			Name string `json:"name"`
		} `json:"categories"`
		Completion *struct {
			Code        string `json:"code"`
			RedirectURL string `json:"redirect_url"`
		} `json:"completion"`
	}
	var st state
	if err := json.Unmarshal([]byte(get("/api/state")), &st); err != nil {
		t.Fatal(err)
	}
	n := 0
	for st.Trial != nil {
		get(st.Trial.Images[0])
		get(st.Trial.Mask)
		body, _ := json.Marshal(map[string]any{"index": st.Trial.Index, "response": st.Categories[0].Name, "rt_ms": 700,
			"shown_ms": 200, "mask_ms": 200, "refresh_hz": 60, "frames": 12, "input": "mouse"})
		req, _ := http.NewRequest("POST", base+"/api/respond", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", m[1])
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("respond %d: %d %s", st.Trial.Index, res.StatusCode, b)
		}
		st = state{}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if st.Phase != "done" || st.Completion == nil || st.Completion.Code != "CLICODE1" ||
		st.Completion.RedirectURL != "https://app.prolific.com/submissions/complete?cc=CLICODE1" {
		t.Fatalf("final state %+v", st)
	}
	return n
}

// TestExperimentServeExport serves a study built from a real test set on
// SQLite, runs two participants through it, stops the server gracefully,
// exports the trials and checks them; serving a changed design with the
// same database is refused.
func TestExperimentServeExport(t *testing.T) {
	cfg := experimentFixture(t, "")
	db := filepath.Join(t.TempDir(), "exp.sqlite")
	base, stop := startServe(t, "--config", cfg, "--db", db)
	n := participate(t, base, "cli-p1") + participate(t, base, "cli-p2")
	if n != 2*(1+2+6+1) {
		t.Errorf("%d answers, want %d", n, 2*(1+2+6+1))
	}
	res, err := http.Get(base + "/admin/api/progress")
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("admin API without login: %v %v", res.StatusCode, err)
	}
	code, stdout, stderr := stop()
	if code != exitOK || !strings.Contains(stderr, "stopped") {
		t.Fatalf("serve: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"design cli-test (recognition, hash ", "18 batches × 2 views", "participants: http://127.0.0.1:", "PROLIFIC_PID={{%PROLIFIC_PID%}}", "admin:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve output lacks %q:\n%s", want, stdout)
		}
	}

	// Export from the design recorded in the database, and from the config.
	out := filepath.Join(t.TempDir(), "trials.csv")
	msg := mustRun(t, "experiment", "export", "--db", db, "--out", out)
	if !strings.Contains(msg, fmt.Sprintf("%d trials of 2 participants", n)) {
		t.Errorf("export message: %s", msg)
	}
	rows := readCSV(t, out)
	if len(rows) != 1+n {
		t.Fatalf("%d rows, want %d", len(rows)-1, n)
	}
	for _, col := range []string{"participant", "stimulus_id", "source_id", "corruption", "dv", "ground_truth", "response", "correct", "rt_ms", "shown_ms", "excluded"} {
		if !slices.Contains(rows[0], col) {
			t.Errorf("export lacks column %s", col)
		}
	}
	out2 := filepath.Join(t.TempDir(), "trials.csv")
	mustRun(t, "experiment", "export", "--db", db, "--out", out2, "--config", cfg)
	if !bytes.Equal(readFile(t, out), readFile(t, out2)) {
		t.Error("export with --config differs from the export with the stored design")
	}
	var stdoutExport bytes.Buffer
	if code := run(context.Background(), []string{"experiment", "export", "--db", db, "--out", "-"}, &stdoutExport, io.Discard); code != exitOK ||
		!bytes.Equal(stdoutExport.Bytes(), readFile(t, out)) {
		t.Errorf("export to stdout: exit %d", code)
	}

	// A recognition study has no distinguishability report.
	if code, _, errOut := runCmd(t, "experiment", "distinguish", "--db", db, "--out", filepath.Join(t.TempDir(), "d.json")); code != exitFailure || !strings.Contains(errOut, "kind: distinguish") {
		t.Errorf("distinguish on recognition: exit %d %s", code, errOut)
	}

	// Another design with the same database is refused.
	cfg2 := strings.TrimSuffix(cfg, ".yaml") + "2.yaml"
	b := bytes.Replace(readFile(t, cfg), []byte("seed: 5"), []byte("seed: 6"), 1)
	os.WriteFile(cfg2, b, 0o644)
	code, _, errOut := runCmd(t, "experiment", "serve", "--config", cfg2, "--db", db, "--addr", "127.0.0.1:0")
	if code != exitFailure || !strings.Contains(errOut, "new --db") {
		t.Errorf("serve another design: exit %d\n%s", code, errOut)
	}
}

// TestExperimentAdminTokenFromEnv: VCR_ADMIN_TOKEN replaces the config's
// token; a short one is a usage error.
func TestExperimentAdminTokenFromEnv(t *testing.T) {
	cfg := experimentFixture(t, "")
	db := filepath.Join(t.TempDir(), "exp.sqlite")
	t.Setenv("VCR_ADMIN_TOKEN", "short")
	if code, _, errOut := runCmd(t, "experiment", "serve", "--config", cfg, "--db", db); code != exitUsage || !strings.Contains(errOut, "VCR_ADMIN_TOKEN") {
		t.Errorf("short token: exit %d %s", code, errOut)
	}
	t.Setenv("VCR_ADMIN_TOKEN", "env-admin-token-0123456789")
	base, stop := startServe(t, "--config", cfg, "--db", db)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get(base + "/admin/login")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(b)
	for tok, want := range map[string]int{"cli-admin-token-0123456789": http.StatusUnauthorized, "env-admin-token-0123456789": http.StatusOK} {
		res, err := c.PostForm(base+"/admin/login", url.Values{"csrf": {string(m[1])}, "token": {tok}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("login with %s: %d, want %d", tok, res.StatusCode, want)
		}
	}
	res, err = c.Get(base + "/admin/export.csv")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("export after login: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
	stop()
}

// TestExperimentUsage: help texts and usage errors.
func TestExperimentUsage(t *testing.T) {
	code, out, _ := runCmd(t, "experiment", "--help")
	if code != exitOK {
		t.Errorf("experiment --help: exit %d", code)
	}
	for _, want := range []string{"serve", "export", "distinguish", "docs/experiment-serve.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("experiment --help lacks %q:\n%s", want, out)
		}
	}
	for _, sub := range []string{"serve", "export", "distinguish"} {
		code, _, errOut := runCmd(t, "experiment", sub, "--help")
		if code != exitOK || !strings.Contains(errOut, "Usage: vcr experiment "+sub) || !strings.Contains(errOut, "--db") {
			t.Errorf("experiment %s --help: exit %d\n%s", sub, code, errOut)
		}
	}
	for _, args := range [][]string{
		{"experiment"},
		{"experiment", "bogus"},
		{"experiment", "serve", "--db", "x.sqlite"},
		{"experiment", "serve", "--config", "exp.yaml"},
		{"experiment", "serve", "--config", "exp.yaml", "--db", "x.sqlite", "--public-url", "ftp://x"},
		{"experiment", "export", "--out", "t.csv"},
		{"experiment", "export", "--db", "x.sqlite"},
		{"experiment", "distinguish", "--db", "x.sqlite"},
		{"experiment", "export", "--db", "x.sqlite", "--out", "t.csv", "extra"},
	} {
		if code, _, errOut := runCmd(t, args...); code != exitUsage {
			t.Errorf("vcr %s: exit %d, want 2\n%s", strings.Join(args, " "), code, errOut)
		}
	}
	// A subcommand's mistake names the subcommand and its --help.
	for _, args := range [][]string{{"experiment", "serve", "--adr", "x"}, {"requirements", "check", "--bogus"}} {
		sub := strings.Join(args[:2], " ")
		code, _, errOut := runCmd(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "vcr "+sub+": unknown flag --") || !strings.Contains(errOut, "Run 'vcr "+sub+" --help'") {
			t.Errorf("vcr %s: exit %d, want 2 and messages naming %q:\n%s", strings.Join(args, " "), code, sub, errOut)
		}
	}
	// A missing database is not created; an empty one holds no design.
	db := filepath.Join(t.TempDir(), "empty.sqlite")
	if code, _, errOut := runCmd(t, "experiment", "export", "--db", db, "--out", filepath.Join(t.TempDir(), "t.csv")); code != exitFailure || !strings.Contains(errOut, "no database") {
		t.Errorf("export of a missing database: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("export created the database")
	}
	os.WriteFile(db, nil, 0o644)
	if code, _, errOut := runCmd(t, "experiment", "export", "--db", db, "--out", filepath.Join(t.TempDir(), "t.csv")); code != exitFailure || !strings.Contains(errOut, "--config") {
		t.Errorf("export of an empty database: exit %d %s", code, errOut)
	}
	// A bad --out is refused before the database is opened.
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	for _, sub := range []string{"export", "distinguish"} {
		code, _, errOut := runCmd(t, "experiment", sub, "--db", filepath.Join(t.TempDir(), "none.sqlite"), "--out", filepath.Join(notDir, "t.csv"))
		if want := "--out: cannot create the folder " + notDir + ": not a directory"; code != exitUsage || !strings.Contains(errOut, want) || strings.Contains(errOut, "no database") {
			t.Errorf("experiment %s --out under a file: exit %d, want 2 and %q:\n%s", sub, code, want, errOut)
		}
	}
	if got := storeName("postgres://vcr:secret@db.internal/study"); strings.Contains(got, "secret") {
		t.Errorf("storeName leaks the password: %s", got)
	}
}

// TestExperimentServePostgres serves and exports with PostgreSQL: two
// server processes' worth of serve commands (one after the other) on one
// database at $VCR_TEST_POSTGRES (skipped without it unless
// VCR_REQUIRE_POSTGRES=1, as in CI).
func TestExperimentServePostgres(t *testing.T) {
	base := os.Getenv("VCR_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("VCR_REQUIRE_POSTGRES") == "1" {
			t.Fatal("VCR_REQUIRE_POSTGRES=1 but VCR_TEST_POSTGRES is not set")
		}
		t.Skip("set VCR_TEST_POSTGRES to a postgres:// URL of a role that may create databases")
	}
	ctx := context.Background()
	admin, err := postgres.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	rand.Read(b)
	name := "vcr_cli_test_" + hex.EncodeToString(b)
	if _, err := admin.DB().ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	defer admin.DB().ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dsn := u.String()

	cfg := experimentFixture(t, "")
	url1, stop1 := startServe(t, "--config", cfg, "--db", dsn)
	n := participate(t, url1, "pg-1")
	if code, _, errOut := stop1(); code != exitOK {
		t.Fatalf("serve: exit %d\n%s", code, errOut)
	}
	// A second server (a restart, or another instance) continues the study.
	url2, stop2 := startServe(t, "--config", cfg, "--db", dsn)
	n += participate(t, url2, "pg-2")
	stop2()
	out := filepath.Join(t.TempDir(), "trials.csv")
	mustRun(t, "experiment", "export", "--db", dsn, "--out", out)
	if rows := readCSV(t, out); len(rows) != 1+n {
		t.Errorf("%d rows, want %d", len(rows)-1, n)
	}
}

// TestExperimentGracefulShutdown: on interruption the server stops
// accepting connections but finishes a request in flight.
func TestExperimentGracefulShutdown(t *testing.T) {
	cfg := experimentFixture(t, "")
	base, stop := startServe(t, "--config", cfg, "--db", filepath.Join(t.TempDir(), "exp.sqlite"))
	host := strings.TrimPrefix(base, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := "csrf=x&token=wrong-token-0123456789"
	fmt.Fprintf(conn, "POST /admin/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body[:5])
	time.Sleep(200 * time.Millisecond) // the handler now waits for the body
	stopped := make(chan int, 1)
	go func() { code, _, _ := stop(); stopped <- code }()
	// New connections are refused once the shutdown began.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case code := <-stopped:
		t.Fatalf("serve exited (%d) with a request in flight", code)
	default:
	}
	io.WriteString(conn, body[5:])
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request in flight got no response: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden { // no CSRF cookie
		t.Errorf("in-flight request: %d, want 403", res.StatusCode)
	}
	if code := <-stopped; code != exitOK {
		t.Errorf("serve exit %d, want 0", code)
	}
}

// TestExperimentAbandon: the serve loop's step abandons exactly the
// participants silent for longer than the design's abandon time, and the
// web app then shows them the session as ended.
func TestExperimentAbandon(t *testing.T) {
	cfg := experimentFixture(t, "abandon: 10m\n")
	db := filepath.Join(t.TempDir(), "exp.sqlite")
	base, stop := startServe(t, "--config", cfg, "--db", db)
	participate(t, base, "ab-done") // completed: never abandoned
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get(base + "/?PROLIFIC_PID=" + prolificID("ab-silent"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(b)
	if res, err = c.PostForm(base+"/join", url.Values{"csrf": {string(m[1])}, "PROLIFIC_PID": {prolificID("ab-silent")}, "consent": {"yes"}}); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	stop()

	st, d, err := openWithDesign(context.Background(), db, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.DiscardHandler)
	if n := abandonSilent(context.Background(), st, d, time.Now().Add(9*time.Minute), log); n != 0 {
		t.Errorf("abandoned %d after 9 of 10 minutes", n)
	}
	if n := abandonSilent(context.Background(), st, d, time.Now().Add(11*time.Minute), log); n != 1 {
		t.Errorf("abandoned %d after 11 minutes, want 1", n)
	}
	got := map[string]experiment.Status{}
	st.Participants(context.Background(), func(p *experiment.Participant) error { got[p.ExternalID] = p.Status; return nil })
	if got[prolificID("ab-done")] != experiment.StatusCompleted || got[prolificID("ab-silent")] != experiment.StatusAbandoned {
		t.Errorf("statuses %v", got)
	}
}
