package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/internal/demo"
	"github.com/vcr-bench/vcr/testset"
)

// TestDemoQuick runs the whole demo at its reduced size and checks every
// step's output.
func TestDemoQuick(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	code, stdout, stderr := runCmd(t, "demo", "--out", dir, "--quick")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, p := range []string{
		"images/disc", "testset/" + testset.ManifestFile, "testset/run.json", "testset/status.json",
		"eval/results.csv", "analysis/summary.json", "analysis/curves_frost_accuracy.svg", "demo.log",
		"requirements/requirements.json", "requirements/requirements-check.json", "requirements/junit.xml", "report.html",
	} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), "<td>frost</td><td>correctness</td>") {
		t.Errorf("report.html lacks the requirement verdict rows (err %v)", err)
	}
	if !strings.Contains(stdout, "report.html") || !strings.Contains(stdout, "gaussian_noise") {
		t.Errorf("the output does not name the analysis folder or lacks the results table:\n%s", stdout)
	}
	var sum struct {
		H      string `json:"human"`
		V      string `json:"vif_method"`
		HV     string `json:"human_vif_method"`
		Models []struct {
			Model, Corruption string
			RA                float64  `json:"ra"`
			HMRIA             *float64 `json:"hmri_a"`
		} `json:"models"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "analysis", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.H != demoHuman || sum.V != "vifvec" || sum.HV != "vifvec" {
		t.Errorf("summary: human %q, vif %q, human vif %q; want %s, vifvec, vifvec", sum.H, sum.V, sum.HV, demoHuman)
	}
	if len(sum.Models) != len(demoCorruptions) {
		t.Fatalf("summary has %d model series, want %d", len(sum.Models), len(demoCorruptions))
	}
	for _, m := range sum.Models {
		if m.RA <= 0 || m.RA > 1 || m.HMRIA == nil {
			t.Errorf("%s/%s: ra %v, hmri_a %v; want an R̂a in (0, 1] and a comparison with humans", m.Model, m.Corruption, m.RA, m.HMRIA)
		}
	}
	// A non-empty folder is refused.
	if code, _, stderr := runCmd(t, "demo", "--out", dir, "--quick"); code != exitUsage || !strings.Contains(stderr, "not empty") {
		t.Errorf("rerun into %s: exit %d, stderr %q; want a usage error", dir, code, stderr)
	}
}

// TestEvalBuiltinDemo runs vcr eval with the built-in demonstration model.
func TestEvalBuiltinDemo(t *testing.T) {
	dir := t.TempDir()
	images := filepath.Join(dir, "images")
	if err := demo.Dataset(t.Context(), images, 12, 48, 5); err != nil {
		t.Fatal(err)
	}
	ts := filepath.Join(dir, "ts")
	if code, _, stderr := runCmd(t, "generate", "--images", images, "--corruptions", "brightness", "--n", "10", "--out", ts, "--progress", "never"); code != exitOK {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "r.csv")
	code, stdout, stderr := runCmd(t, "eval", "--testset", ts, "--model", "builtin:demo", "--out", out, "--progress", "never")
	if code != exitOK {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "10 rows") || !strings.Contains(stderr, demo.ModelName) {
		t.Errorf("eval output:\n%s\n%s", stdout, stderr)
	}
	code, _, stderr = runCmd(t, "eval", "--testset", ts, "--model", "builtin:demo", "--preset", "imagenet", "--out", filepath.Join(dir, "r2.csv"))
	if code != exitUsage || !strings.Contains(stderr, "own preprocessing") {
		t.Errorf("--preset with builtin:demo: exit %d, %s; want a usage error", code, stderr)
	}
}
