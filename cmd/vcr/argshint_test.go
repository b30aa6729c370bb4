package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgsHints checks two usage errors at the seams between commands:
// --json FILE given to a command whose --json is a switch (vif, corrupt;
// requirements check takes a file), and --model-name without --server in
// eval and requirements check (where analyze's --model-name names results).
func TestArgsHints(t *testing.T) {
	dir := t.TempDir()
	img := writeTestImage(t, dir, "a.png", 32, 32, 1)
	out := filepath.Join(dir, "b.png")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"vif", img, img, "--json", "out.json"}, "--json takes no file name here (it prints JSON on standard output): drop out.json or redirect, > out.json"},
		{[]string{"corrupt", "--corruption", "frost", "--json", "x.json", img, out}, "--json takes no file name here (it prints JSON on standard output): drop x.json or redirect, > x.json"},
		{[]string{"eval", "--testset", dir, "--predictions", "p.csv", "--model-name", "mine", "--out", filepath.Join(dir, "r.csv")}, modelNameWithoutServer},
		{[]string{"requirements", "check", "--requirements", "req.json", "--testset", dir, "--predictions", "p.csv", "--model-name", "mine"}, modelNameWithoutServer},
		{[]string{"requirements", "check", "--requirements", "req.json", "--images", dir, "--model", "m.onnx", "--model-name", "mine"}, modelNameWithoutServer},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("vcr %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, exitUsage, tc.want)
		}
	}
	// Three positionals without a .json among them keep the plain message.
	if _, _, errOut := runCLI(t, "vif", "--json", img, img, img); strings.Contains(errOut, "takes no file name") {
		t.Errorf("hint without a .json argument: %q", errOut)
	}
}

// TestAnalyzeResultsPath checks that a missing --results file and a folder
// given as --results are usage errors naming the flag, the folder's results
// files when it has some (those with vcr eval's .csv.json beside them).
func TestAnalyzeResultsPath(t *testing.T) {
	dir := t.TempDir()
	ts := filepath.Join(dir, "T")
	for name, body := range map[string]string{"results.csv": "id\n", "results.csv.json": "{}", "manifest.csv": "id\n"} {
		writeFile(t, filepath.Join(ts, name), body)
	}
	out := filepath.Join(dir, "A")
	for _, tc := range []struct {
		results string
		code    int
		want    string
	}{
		{filepath.Join(dir, "nothere.csv"), exitFailure, "--results " + filepath.Join(dir, "nothere.csv") + ": no such file; give the RESULTS.csv that vcr eval --out wrote"},
		{ts, exitUsage, "--results " + ts + " is a folder; give the results files in it: --results " + filepath.Join(ts, "results.csv") + "\n"},
		{dir, exitUsage, "--results " + dir + " is a folder; give the RESULTS.csv files that vcr eval --out wrote"},
	} {
		code, _, errOut := runCLI(t, "analyze", "--results", tc.results, "--out", out)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("--results %s: exit %d, %q; want exit %d and %q", tc.results, code, errOut, tc.code, tc.want)
		}
	}
}

// writeFile writes body to path, creating its folder.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadtestNoServer checks that loadtest against a URL where nothing
// listens ends by saying so and what to do, besides the failure count.
func TestLoadtestNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	code, _, errOut := runCLI(t, "experiment", "loadtest", "--url", url, "--participants", "2", "--retry-for", "200ms")
	for _, want := range []string{"2 of 2 participants failed", "no request to " + url + " succeeded, all failed in the network: is vcr experiment serve running there? Start it, or check --url"} {
		if code != exitFailure || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, exitFailure, want)
		}
	}
}

// TestDemoUnfinishedFolder checks that rerunning the demo into the folder
// of an interrupted one (demo.log, no report.html) says how to start again,
// and that any other non-empty folder keeps the plain refusal.
func TestDemoUnfinishedFolder(t *testing.T) {
	dir := t.TempDir()
	unfinished := filepath.Join(dir, "demo")
	writeFile(t, filepath.Join(unfinished, "demo.log"), "vcr synth …\n")
	code, _, errOut := runCLI(t, "demo", "--out", unfinished)
	if want := unfinished + " holds an unfinished demo (interrupted?); the demo does not resume: delete the folder (rm -r " + unfinished + ")"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("unfinished: exit %d, %q; want %q", code, errOut, want)
	}
	finished := filepath.Join(dir, "done")
	writeFile(t, filepath.Join(finished, "demo.log"), "")
	writeFile(t, filepath.Join(finished, "report.html"), "")
	if code, _, errOut := runCLI(t, "demo", "--out", finished); code != exitUsage || !strings.Contains(errOut, finished+" is not empty; choose a new folder") {
		t.Errorf("finished: exit %d, %q", code, errOut)
	}
}
