package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model/oip/oiptest"
	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
	"github.com/vcr-bench/vcr/testset"
)

func manifest(t *testing.T, ts string) []*testset.Record {
	t.Helper()
	var rows []*testset.Record
	if err := testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(r *testset.Record) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// column returns the index of a results column in header (the results'
// first row: evaluate.Columns with the manifest's dv_* columns inserted).
func column(t *testing.T, header []string, name string) int {
	for i, c := range header {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %s", name)
	return -1
}

// TestEvalONNX runs a generated linear ONNX model with ONNX Runtime and
// checks every prediction against the model computed in Go.
func TestEvalONNX(t *testing.T) {
	if _, _, err := onnx.FindLibrary(onnx.Options{}); err != nil {
		if os.Getenv("VCR_REQUIRE_ONNXRUNTIME") == "1" {
			t.Fatal(err)
		}
		t.Skip("ONNX Runtime not installed (see docs/onnx.md)")
	}
	ts := evalTestSet(t)
	net, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Conv, Classes: 5, Height: 24, Width: 24, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "conv.onnx")
	if err := net.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.csv")
	mustRun(t, "eval", "--testset", ts, "--model", path, "--preset", "none", "--batch-size", "5", "--out", out, "--progress", "never")
	recs := readRecords(t, out)
	rows := manifest(t, ts)
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d rows, want %d", len(recs)-1, len(rows))
	}
	argmax := func(m *imageio.Image) string {
		n := m.Width * m.Height
		x := make([]float32, 0, 3*n)
		for c := range 3 {
			x = append(x, m.Ch[c][:n]...)
		}
		s := net.Forward(x, m.Height, m.Width)
		best := 0
		for k, v := range s {
			if v > s[best] {
				best = k
			}
		}
		return strconv.Itoa(best)
	}
	for i, r := range rows {
		m, err := imageio.Load(filepath.Join(ts, r.Path), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := recs[i+1][column(t, recs[0], "pred_corrupted")], argmax(m); got != want {
			t.Errorf("row %d: pred_corrupted %s, want %s", i, got, want)
		}
	}
}

func TestEvalBackendErrors(t *testing.T) {
	ts := evalTestSet(t)
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.csv")
	model := filepath.Join(dir, "m.onnx")
	os.WriteFile(model, []byte("not a model"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"preset does not fit", []string{"--server", srv.URL, "--model-name", "lin", "--preset", "imagenet"}, "preprocessing gives"},
		{"mapping does not fit", []string{"--server", srv.URL, "--model-name", "lin", "--preset", "none", "--task", "imagenet16"}, "--task"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(t, append([]string{"eval", "--testset", ts, "--out", out, "--progress", "never"}, tc.args...)...)
			if code == exitOK || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d; stderr:\n%s\nwant it to contain %q", code, errOut, tc.want)
			}
			for _, p := range []string{out, evaluate.Partial(out)} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}

// TestEvalMissingRuntime names a library that does not exist, in a child
// process (ONNX Runtime is loaded once per process).
func TestEvalMissingRuntime(t *testing.T) {
	ts := evalTestSet(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.csv")
	model := filepath.Join(dir, "m.onnx")
	os.WriteFile(model, []byte("not a model"), 0o644)
	cmd := exec.Command(os.Args[0], "eval", "--testset", ts, "--model", model, "--preset", "none",
		"--onnxruntime-lib", filepath.Join(dir, "libonnxruntime.so.1"), "--out", out)
	cmd.Env = append(os.Environ(), "VCR_TEST_RUN_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure || !strings.Contains(stderr.String(), "libonnxruntime.so.1") || !strings.Contains(stderr.String(), "npm install") {
		t.Errorf("missing library: %v\n%s", err, stderr.String())
	}
	for _, p := range []string{out, evaluate.Partial(out)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written", p)
		}
	}
}

// TestEvalPredictions imports the predictions of a server run as a file
// and checks that the scores agree; a file missing a row is refused.
func TestEvalPredictions(t *testing.T) {
	ts := evalTestSet(t)
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.csv")
	mustRun(t, "eval", "--testset", ts, "--server", srv.URL, "--model-name", "lin", "--preset", "none", "--out", ref, "--progress", "never")
	recs := readRecords(t, ref)
	var sb strings.Builder
	sb.WriteString("id,source,kind,pred\n")
	seen := map[string]bool{}
	for _, rec := range recs[1:] {
		fmt.Fprintf(&sb, "%s,,,%s\n", rec[column(t, recs[0], "id")], rec[column(t, recs[0], "pred_corrupted")])
		if src := rec[column(t, recs[0], "source")]; !seen[src] {
			seen[src] = true
			fmt.Fprintf(&sb, ",%s,clean,%s\n", src, rec[column(t, recs[0], "pred_clean")])
		}
	}
	preds := filepath.Join(dir, "preds.csv")
	os.WriteFile(preds, []byte(sb.String()), 0o644)
	out := filepath.Join(dir, "r.csv")
	mustRun(t, "eval", "--testset", ts, "--predictions", preds, "--out", out, "--progress", "never")
	got := readRecords(t, out)
	for i := 1; i < len(recs); i++ {
		for _, c := range []string{"id", "correct_clean", "correct_corrupted", "consistent"} {
			if got[i][column(t, got[0], c)] != recs[i][column(t, recs[0], c)] {
				t.Errorf("row %d %s: %s from the file, %s from the server", i, c, got[i][column(t, got[0], c)], recs[i][column(t, recs[0], c)])
			}
		}
	}
	// Drop the first corrupted row.
	lines := strings.SplitN(sb.String(), "\n", 3)
	os.WriteFile(preds, []byte(lines[0]+"\n"+lines[2]), 0o644)
	out2 := filepath.Join(dir, "r2.csv")
	code, _, errOut := runCmd(t, "eval", "--testset", ts, "--predictions", preds, "--out", out2, "--progress", "never")
	if code != exitFailure || !strings.Contains(errOut, "has no row with id "+recs[1][0]) {
		t.Errorf("missing row: exit %d\n%s", code, errOut)
	}
	for _, p := range []string{out2, evaluate.Partial(out2)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written", p)
		}
	}
}

// TestEvalDefaultPresetHint checks that a model whose input size the
// default preset (imagenet, 224×224) does not fit is told that no preset was
// given and that --preset none feeds the images as they are, and that the
// hint is absent when the user chose the preset.
func TestEvalDefaultPresetHint(t *testing.T) {
	if _, _, err := onnx.FindLibrary(onnx.Options{}); err != nil {
		if os.Getenv("VCR_REQUIRE_ONNXRUNTIME") == "1" {
			t.Fatal(err)
		}
		t.Skip("ONNX Runtime not installed (see docs/onnx.md)")
	}
	ts := evalTestSet(t)
	net, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Conv, Classes: 5, Height: 24, Width: 24, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "conv.onnx")
	if err := net.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	const hint = "no --preset or --config was given, so --preset imagenet applied; --preset none feeds the test set's images as they are"
	code, _, errOut := runCLI(t, "eval", "--testset", ts, "--model", path, "--out", filepath.Join(dir, "r.csv"), "--progress", "never")
	if code != exitUsage || !strings.Contains(errOut, "but conv.onnx takes 1×3×24×24") || !strings.Contains(errOut, hint) {
		t.Errorf("default preset: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "eval", "--testset", ts, "--model", path, "--preset", "imagenet", "--out", filepath.Join(dir, "r.csv"), "--progress", "never")
	if code != exitUsage || strings.Contains(errOut, hint) {
		t.Errorf("--preset imagenet given: exit %d, %q", code, errOut)
	}
}
