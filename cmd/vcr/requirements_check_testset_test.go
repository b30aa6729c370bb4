package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/model/oip/oiptest"
	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
	"github.com/vcr-bench/vcr/reliability"
)

// reqTestSet generates a test set of gaussian_noise and brightness with
// vcr-py and vifvec Δv from 9 synthetic 24×24 images.
func reqTestSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, ts := filepath.Join(dir, "data"), filepath.Join(dir, "ts")
	mustRun(t, "synth", "--out", data, "--n", "9", "--size", "32", "--classes", "3", "--seed", "4")
	mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_noise,brightness", "--n", "60", "--seed", "5",
		"--crop", "24", "--dv-methods", "vcr-py,vifvec", "--out", ts, "--progress", "never")
	return ts
}

// predictionsFromResults turns a vcr eval results file into a predictions
// file (id, source, kind, pred) that vcr eval --predictions reads.
func predictionsFromResults(t *testing.T, results string) string {
	t.Helper()
	f, err := os.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	out := [][]string{{"id", "source", "kind", "pred"}}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		out = append(out, []string{r[col["id"]], r[col["source"]], "corrupted", r[col["pred_corrupted"]]})
		if s := r[col["source"]]; !seen[s] {
			seen[s] = true
			out = append(out, []string{"", s, "clean", r[col["pred_clean"]]})
		}
	}
	p := filepath.Join(t.TempDir(), "preds.csv")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(w)
	cw.WriteAll(out)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRequirementsCheckTestSet checks one model on a test set twice: run
// by a server and looked up in a predictions file made from vcr eval's
// results of the same server. The verdicts must be identical (the same
// rows, the same predictions), and a second run with the same seed gives
// the same JSON apart from the timings.
func TestRequirementsCheckTestSet(t *testing.T) {
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	checkModelAgainstPredictions(t, reqTestSet(t), []string{"--server", srv.URL, "--model-name", "lin", "--preset", "none"})
}

// TestRequirementsCheckTestSetONNX is TestRequirementsCheckTestSet with a
// small ONNX model (onnxgen's convolutional net) run by ONNX Runtime.
func TestRequirementsCheckTestSetONNX(t *testing.T) {
	if _, _, err := onnx.FindLibrary(onnx.Options{}); err != nil {
		if os.Getenv("VCR_REQUIRE_ONNXRUNTIME") == "1" {
			t.Fatal(err)
		}
		t.Skip("ONNX Runtime not installed (see docs/onnx.md)")
	}
	net, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Conv, Classes: 3, Height: 24, Width: 24, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(t.TempDir(), "conv.onnx")
	if err := net.WriteFile(mpath); err != nil {
		t.Fatal(err)
	}
	checkModelAgainstPredictions(t, reqTestSet(t), []string{"--model", mpath, "--preset", "none"})
}

// checkModelAgainstPredictions runs the check on test set ts with the
// model flags server and with the predictions vcr eval made with them.
func checkModelAgainstPredictions(t *testing.T, ts string, server []string) {
	t.Helper()
	results := filepath.Join(t.TempDir(), "results.csv")
	mustRun(t, append([]string{"eval", "--testset", ts, "--out", results, "--progress", "never"}, server...)...)
	preds := predictionsFromResults(t, results)
	req := writeReq(t, reliability.Requirement{Transformation: "gaussian_noise", VIFMethod: "vifvec", TC: 0.7, TP: 0.6},
		reliability.Requirement{Transformation: "brightness", VIFMethod: "vcr-py", TC: 0.5, TP: 0.4})
	out := t.TempDir()
	check := func(name string, backend ...string) (*reliability.CheckReport, string) {
		t.Helper()
		args := append([]string{"requirements", "check", "--requirements", req, "--testset", ts, "--bootstrap-batches", "30",
			"--images-per-batch", "8", "--json", filepath.Join(out, name+".json"), "--junit", filepath.Join(out, name+".xml")}, backend...)
		code, stdout, stderr := runCmd(t, args...)
		if code != exitOK && code != exitFailure {
			t.Fatalf("%s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "gaussian_noise correctness") || strings.Count(stdout, "\n") != 5 {
			t.Errorf("%s table:\n%s", name, stdout)
		}
		r := readReport(t, filepath.Join(out, name+".json"))
		for _, v := range r.Verdicts {
			v.Timing = reliability.Timing{}
		}
		r.Seconds = 0
		return r, stderr
	}
	a, stderr := check("server", server...)
	for _, s := range []string{"gaussian_noise on dv_vifvec", "brightness on dv_vcr_py", "correctness Δv ≤ 0.7", "pool:", "model inputs to classify"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("the plan lacks %q:\n%s", s, stderr)
		}
	}
	b, stderr := check("predictions", "--predictions", preds)
	if !strings.Contains(stderr, "no model runs") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if a.TestSet != ts || b.TestSet != ts || a.Tool != "vcr requirements check" || len(a.Verdicts) != 2 {
		t.Errorf("reports %+v\n%+v", a, b)
	}
	for i := range a.Verdicts {
		if !reflect.DeepEqual(a.Verdicts[i], b.Verdicts[i]) {
			t.Errorf("verdict %d differs between the server and its predictions:\n%+v\n%+v", i, a.Verdicts[i], b.Verdicts[i])
		}
	}
	c, _ := check("predictions2", "--predictions", preds)
	b.Model, c.Model = "", ""
	if !reflect.DeepEqual(b, c) {
		t.Errorf("two runs with the same seed differ:\n%+v\n%+v", b, c)
	}
	if su := parseJUnit(t, filepath.Join(out, "predictions.xml")).Suites[0]; su.Tests != 2 {
		t.Errorf("JUnit %+v", su)
	}
}

func TestRequirementsCheckTestSetErrors(t *testing.T) {
	ts := reqTestSet(t)
	req := writeReq(t, reliability.Requirement{Transformation: "gaussian_noise", VIFMethod: "vifvec", TC: 0.7, TP: 0.6})
	pixel := writeReq(t, reliability.Requirement{Transformation: "gaussian_noise", VIFMethod: "pixel", TC: 0.7, TP: 0.6})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--requirements", req, "--images", ts, "--predictions", "p.csv"}, "--predictions needs --testset"},
		{[]string{"--requirements", req, "--testset", ts}, "--predictions FILE.csv"},
		{[]string{"--requirements", req, "--testset", ts, "--predictions", "p.csv", "--max-attempts", "5"}, "--max-attempts: not with --testset"},
		{[]string{"--requirements", req, "--testset", ts, "--predictions", "p.csv", "--model", "m.onnx"}, "give one of"},
		{[]string{"--requirements", pixel, "--testset", ts, "--predictions", "p.csv"}, "no dv_pixel column"},
		{[]string{"--requirements", req, "--testset", t.TempDir(), "--predictions", "p.csv"}, "no manifest.csv"},
	} {
		code, _, stderr := runCmd(t, append([]string{"requirements", "check"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRequirementsCheckTestSetMissingImage: an image the check needs but
// cannot read stops it (exit 2), naming the file.
func TestRequirementsCheckTestSetMissingImage(t *testing.T) {
	ts := reqTestSet(t)
	if err := os.RemoveAll(filepath.Join(ts, "images", "gaussian_noise")); err != nil {
		t.Fatal(err)
	}
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	req := writeReq(t, reliability.Requirement{Transformation: "gaussian_noise", VIFMethod: "vifvec", TC: 0.7, TP: 0.6})
	code, _, stderr := runCmd(t, "requirements", "check", "--requirements", req, "--testset", ts, "--server", srv.URL,
		"--model-name", "lin", "--preset", "none", "--bootstrap-batches", "2", "--images-per-batch", "2")
	if code != exitUsage || !strings.Contains(stderr, "read images/gaussian_noise/") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
