package main

import (
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/model/oip/oiptest"
	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
	"github.com/vcr-bench/vcr/reliability"
)

const reqSize = 24

// reqImages writes n generated 24×24 images into class folder cls of a new
// image folder (with an empty second class folder) and returns the folder
// and the images as saved (8-bit).
func reqImages(t *testing.T, n int) (string, []*imageio.Image) {
	t.Helper()
	dir := t.TempDir()
	var imgs []*imageio.Image
	for i := range n {
		m := testimg.Natural(reqSize, reqSize, uint64(i+10))
		m.Quantize(imageio.Round)
		os.MkdirAll(filepath.Join(dir, "a"), 0o755)
		writeImage(t, filepath.Join(dir, "a"), fmt.Sprintf("%d.png", i), m)
		imgs = append(imgs, m)
	}
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	return dir, imgs
}

func writeReq(t *testing.T, reqs ...reliability.Requirement) string {
	t.Helper()
	b, err := json.Marshal(reliability.NewFile(reqs))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var noiseReq = reliability.Requirement{Transformation: "gaussian_noise", Dataset: "test", VIFMethod: "vcr-py", TC: 0.6, TP: 0.5}

// constantModel always predicts class 0.
func constantModel() *oiptest.Linear {
	const size = 3 * reqSize * reqSize
	return &oiptest.Linear{
		Name:   "const",
		Input:  oiptest.Tensor{Name: "x", Datatype: "FP32", Shape: []int64{-1, 3, reqSize, reqSize}},
		Output: oiptest.Tensor{Name: "y", Datatype: "FP32", Shape: []int64{-1, 2}},
		W:      [][]float32{make([]float32, size), make([]float32, size)},
		B:      []float32{1, 0},
	}
}

// noiseSensitive predicts class 0 for every original but reacts to the
// checkerboard component of the image with a large gain, so that noise
// flips about half its predictions.
func noiseSensitive(imgs []*imageio.Image) *oiptest.Linear {
	m := constantModel()
	m.Name = "fragile"
	const gain = 1e4
	w := m.W[0]
	i := 0
	for c := range 3 {
		for y := range reqSize {
			for x := range reqSize {
				w[i] = gain / float32(len(w))
				if (x+y+c)%2 == 1 {
					w[i] = -w[i]
				}
				i++
			}
		}
	}
	lo := float32(1e30)
	for _, im := range imgs {
		var r float32
		j := 0
		for c := range 3 {
			for _, v := range im.Ch[c] {
				r += w[j] * v
				j++
			}
		}
		lo = min(lo, r)
	}
	m.B = []float32{1 - lo, 0}
	return m
}

func parseJUnit(t *testing.T, path string) reliability.JUnitSuites {
	t.Helper()
	var s reliability.JUnitSuites
	if err := xml.Unmarshal(readFile(t, path), &s); err != nil {
		t.Fatalf("JUnit XML: %v", err)
	}
	if len(s.Suites) != 1 {
		t.Fatalf("%d suites", len(s.Suites))
	}
	return s
}

func readReport(t *testing.T, path string) *reliability.CheckReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := reliability.ReadCheckReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRequirementsCheckSatisfied(t *testing.T) {
	dir, _ := reqImages(t, 5)
	srv := oiptest.NewServer(constantModel())
	defer srv.Close()
	out := t.TempDir()
	req := writeReq(t, noiseReq, reliability.Requirement{Transformation: "brightness", VIFMethod: "vcr-py", TC: 0.3, TP: 0.2})
	code, stdout, stderr := runCmd(t, "requirements", "check", "--requirements", req, "--images", dir,
		"--server", srv.URL, "--model-name", "const", "--preset", "none", "--bootstrap-batches", "3", "--images-per-batch", "4",
		"--junit", filepath.Join(out, "j.xml"), "--json", filepath.Join(out, "r.json"), "--workers", "2")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "gaussian_noise correctness") || strings.Contains(stdout, "VIOLATED") || strings.Count(stdout, "satisfied") != 4 {
		t.Errorf("table:\n%s", stdout)
	}
	s := parseJUnit(t, filepath.Join(out, "j.xml"))
	if su := s.Suites[0]; su.Tests != 2 || su.Failures != 0 || len(su.Cases) != 2 || su.Cases[0].Failure != nil {
		t.Errorf("JUnit %+v", su)
	}
	r := readReport(t, filepath.Join(out, "r.json"))
	if len(r.Verdicts) != 2 || !r.Verdicts[0].Satisfied || r.Verdicts[0].Correctness.Images != 12 || r.Verdicts[0].Repro == nil {
		t.Errorf("JSON %+v", r.Verdicts[0])
	}
}

func TestRequirementsCheckViolated(t *testing.T) {
	dir, imgs := reqImages(t, 6)
	srv := oiptest.NewServer(noiseSensitive(imgs))
	defer srv.Close()
	out := t.TempDir()
	req := writeReq(t, noiseReq)
	code, stdout, stderr := runCmd(t, "requirements", "check", "--requirements", req, "--images", dir,
		"--server", srv.URL, "--model-name", "fragile", "--preset", "none", "--bootstrap-batches", "4", "--images-per-batch", "6",
		"--junit", filepath.Join(out, "j.xml"), "--json", filepath.Join(out, "r.json"), "--repro-tolerance", "0")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	// The message counts requirements and table rows as the table shows them.
	rows := fmt.Sprintf("1 of 1 requirements violated (%d of 2 rows", strings.Count(stdout, "VIOLATED"))
	if !strings.Contains(stdout, "VIOLATED") || !strings.Contains(stderr, rows) || strings.Count(stdout, "\n") != 3 {
		t.Errorf("stdout:\n%s\nstderr:\n%s\nwant %q", stdout, stderr, rows)
	}
	r := readReport(t, filepath.Join(out, "r.json"))
	c := r.Verdicts[0].Correctness
	if c.Baseline != 1 || !(c.Transformed < 0.9) || c.Satisfied || r.Verdicts[0].Repro != nil {
		t.Errorf("correctness %+v", c)
	}
	su := parseJUnit(t, filepath.Join(out, "j.xml")).Suites[0]
	if su.Failures != 1 || su.Cases[0].Failure == nil || su.Cases[0].Failure.Type != "violated" {
		t.Errorf("JUnit %+v", su)
	}
	found := false
	for _, p := range su.Cases[0].Props {
		if p.Name == "delta_m" && p.Value != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("no delta_m property in %+v", su.Cases[0].Props)
	}
}

// TestRequirementsCheckONNX labels every image with the class the model
// computed in Go predicts, so that ONNX Runtime must find m0 = 1.
func TestRequirementsCheckONNX(t *testing.T) {
	if _, _, err := onnx.FindLibrary(onnx.Options{}); err != nil {
		if os.Getenv("VCR_REQUIRE_ONNXRUNTIME") == "1" {
			t.Fatal(err)
		}
		t.Skip("ONNX Runtime not installed (see docs/onnx.md)")
	}
	net, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Conv, Classes: 3, Height: reqSize, Width: reqSize, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mpath := filepath.Join(t.TempDir(), "conv.onnx")
	if err := net.WriteFile(mpath); err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("c%d", c)), 0o755)
	}
	for i := range 6 {
		m := testimg.Natural(reqSize, reqSize, uint64(i+30))
		m.Quantize(imageio.Round)
		x := append(append(append([]float32{}, m.Ch[0]...), m.Ch[1]...), m.Ch[2]...)
		s := net.Forward(x, reqSize, reqSize)
		best := 0
		for k := range s {
			if s[k] > s[best] {
				best = k
			}
		}
		writeImage(t, filepath.Join(dir, fmt.Sprintf("c%d", best)), fmt.Sprintf("%d.png", i), m)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCmd(t, "requirements", "check", "--requirements", writeReq(t, noiseReq), "--images", dir,
		"--model", mpath, "--preset", "none", "--bootstrap-batches", "3", "--images-per-batch", "5", "--json", out)
	if code != exitOK && code != exitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	v := readReport(t, out).Verdicts[0]
	if v.Correctness.Baseline != 1 || v.Correctness.BaselineSD != 0 || v.Correctness.Images != 15 {
		t.Errorf("correctness %+v", v.Correctness)
	}
}

func TestRequirementsCheckErrors(t *testing.T) {
	dir, _ := reqImages(t, 3)
	srv := oiptest.NewServer(constantModel())
	defer srv.Close()
	model := []string{"--server", srv.URL, "--model-name", "const", "--preset", "none", "--bootstrap-batches", "2", "--images-per-batch", "2"}
	failing := constantModel()
	failing.Name = "failing"
	failing.Fault = func(int) (int, time.Duration) { return http.StatusBadRequest, 0 }
	fsrv := oiptest.NewServer(failing)
	defer fsrv.Close()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no requirements", []string{"--images", dir}, "--requirements is required"},
		{"no model", []string{"--images", dir, "--requirements", writeReq(t, noiseReq)}, "--testset DIR, which also takes --predictions"},
		{"unknown transformation", append([]string{"--images", dir, "--requirements",
			writeReq(t, reliability.Requirement{Transformation: "sepia", VIFMethod: "vcr-py", TC: 0.1, TP: 0.1})}, model...), "sepia"},
		{"vif mismatch", append([]string{"--images", dir, "--requirements", writeReq(t, noiseReq), "--vif-method", "vifvec"}, model...), "not comparable"},
		{"unreachable", append([]string{"--images", dir, "--max-attempts", "2", "--requirements",
			writeReq(t, reliability.Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0, TP: 0.3})}, model...), "unreachable"},
		{"model fails", []string{"--images", dir, "--requirements", writeReq(t, noiseReq), "--server", fsrv.URL, "--model-name", "failing",
			"--preset", "none", "--bootstrap-batches", "2", "--images-per-batch", "2", "--retries", "0"}, ".png"},
		{"missing images", append([]string{"--images", filepath.Join(dir, "nope"), "--requirements", writeReq(t, noiseReq)}, model...), "--images"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, append([]string{"requirements", "check"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestRequirementsCheckOutputsFirst: output paths are checked before the
// model is opened (the server here does not exist), missing folders are
// created, and the messages name the flag, not a temporary file.
func TestRequirementsCheckOutputsFirst(t *testing.T) {
	dir, _ := reqImages(t, 3)
	out := t.TempDir()
	notDir := filepath.Join(out, "file.txt")
	os.WriteFile(notDir, []byte("x"), 0o644)
	noServer := []string{"--images", dir, "--requirements", writeReq(t, noiseReq), "--server", "http://127.0.0.1:1", "--model-name", "m", "--retries", "0"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", filepath.Join(notDir, "x.json")}, "--json " + filepath.Join(notDir, "x.json") + ": cannot create the folder"},
		{[]string{"--junit", filepath.Join(notDir, "sub", "x.xml")}, "--junit"},
		{[]string{"--junit", out}, "is a folder"},
		{[]string{"--json", filepath.Join(out, "a"), "--junit", filepath.Join(out, "a")}, "--json and --junit both name"},
	} {
		code, _, stderr := runCmd(t, append(append([]string{"requirements", "check"}, noServer...), c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "127.0.0.1") || strings.Contains(stderr, "probe") || strings.Contains(stderr, ".tmp") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q before the model is contacted", c.args, code, stderr, c.want)
		}
	}
	// A missing folder is created and the run writes into it.
	srv := oiptest.NewServer(constantModel())
	defer srv.Close()
	p := filepath.Join(out, "new", "dir", "r.json")
	code, _, stderr := runCmd(t, "requirements", "check", "--requirements", writeReq(t, noiseReq), "--images", dir,
		"--server", srv.URL, "--model-name", "const", "--preset", "none", "--bootstrap-batches", "2", "--images-per-batch", "2", "--json", p)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := readReport(t, p); r.Tool != "vcr requirements check" || r.Requirements == "" || len(r.Verdicts) != 1 || r.Warnings == nil {
		t.Errorf("report %+v", r)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("%d files beside the report (a probe left behind?)", len(ents))
	}
}

// TestRequirementsCheckVIFFlavour: requirements on the CIFAR-10 human data's
// axis are checked with its flavour; an unknown or different flavour is
// refused with the flags that fix it, and accepted with them.
func TestRequirementsCheckVIFFlavour(t *testing.T) {
	dir, _ := reqImages(t, 3)
	srv := oiptest.NewServer(constantModel())
	defer srv.Close()
	model := []string{"--images", dir, "--server", srv.URL, "--model-name", "const", "--preset", "none", "--bootstrap-batches", "2", "--images-per-batch", "2", "--progress", "never"}
	cifar := reliability.Requirement{Transformation: "brightness", Dataset: "icse2022-cifar10", VIFMethod: "vifvec2-layers", TC: 0.79, TP: 0.91}
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCmd(t, append([]string{"requirements", "check", "--requirements", writeReq(t, cifar), "--json", out}, model...)...)
	if code != exitOK {
		t.Fatalf("CIFAR flavour: exit %d: %s", code, stderr)
	}
	if v := readReport(t, out).Verdicts[0]; v.VIFMethod != "vifvec2-layers" {
		t.Errorf("checked with %q", v.VIFMethod)
	}
	// The flavour name of earlier human data is read as vifvec2-layers, and
	// the fix names the canonical flavour.
	old := cifar
	old.VIFMethod = "vifvec2-layers (unpublished 2-level variant)"
	code, _, stderr = runCmd(t, append([]string{"requirements", "check", "--requirements", writeReq(t, old), "--vif-method", "vifvec"}, model...)...)
	if want := "give --vif-method vifvec2-layers (the requirement's), or add --allow-vif-mismatch"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("old flavour name with --vif-method vifvec: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	unknown := cifar
	unknown.VIFMethod = "vifvec3-layers"
	for _, c := range []struct {
		req   reliability.Requirement
		extra []string
		want  string
	}{
		{unknown, nil, "give --vif-method vifvec --allow-vif-mismatch"},
		{cifar, []string{"--vif-method", "vifvec"}, "give --vif-method vifvec2-layers (the requirement's), or add --allow-vif-mismatch"},
		{cifar, []string{"--vif-method", "vifvec9"}, "--vif-method: "},
	} {
		code, _, stderr := runCmd(t, append(append([]string{"requirements", "check", "--requirements", writeReq(t, c.req)}, model...), c.extra...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %v: exit %d, stderr %q; want 2 and %q", c.req.VIFMethod, c.extra, code, stderr, c.want)
		}
	}
	code, _, stderr = runCmd(t, append([]string{"requirements", "check", "--requirements", writeReq(t, unknown), "--json", out,
		"--vif-method", "vifvec2-layers", "--allow-vif-mismatch"}, model...)...)
	if code != exitOK {
		t.Fatalf("override: exit %d: %s", code, stderr)
	}
	r := readReport(t, out)
	hasOverride := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "brightness: Δv computed with vifvec2-layers") })
	if !hasOverride || !strings.Contains(stderr, "warning: brightness: Δv computed") {
		t.Errorf("override warnings %q, stderr %q", r.Warnings, stderr)
	}
}

func TestRequirementsCheckFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bootstrap-batches", "1"}, "--bootstrap-batches must be at least 2"},
		{[]string{"--images-per-batch", "0"}, "--images-per-batch must be at least 1"},
		{[]string{"--progress", "sometimes"}, "--progress must be auto, always or never"},
		{[]string{"--quantile", "0"}, "--quantile must be in (0, 1]"},
		{[]string{"--alpha", "0.5"}, "--alpha must be in (0, 0.5)"},
		// The old names are gone.
		{[]string{"--batches", "3"}, "batches"},
		{[]string{"--force-vif"}, "force-vif"},
		{[]string{"--kind", "folder"}, "kind"},
	} {
		args := append([]string{"requirements", "check", "--requirements", "r.json", "--images", "d", "--server", "http://127.0.0.1:1", "--model-name", "m"}, c.args...)
		code, _, stderr := runCmd(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestFlagName(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var a, b int
	var s string
	fs.IntVar(&a, "images-per-call", 1, "")
	fs.StringVar(&s, "name", "", "")
	if got := flagName(fs, &a, "--batch"); got != "--images-per-call" {
		t.Errorf("flagName(&a) = %q", got)
	}
	if got := flagName(fs, &s, "--s"); got != "--name" {
		t.Errorf("flagName(&s) = %q", got)
	}
	if got := flagName(fs, &b, "--batch"); got != "--batch" {
		t.Errorf("flagName(&b) = %q, want the default", got)
	}
}
