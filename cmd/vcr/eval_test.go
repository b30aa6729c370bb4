package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/oip/oiptest"
	"github.com/vcr-bench/vcr/testset"
)

// evalTestSet synthesises a 3-class dataset of 24×24 images and generates
// a test set from it; it returns the test set folder.
func evalTestSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, ts := filepath.Join(dir, "data"), filepath.Join(dir, "ts")
	mustRun(t, "synth", "--out", data, "--n", "9", "--size", "32", "--classes", "3", "--seed", "4")
	mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_noise,brightness", "--n", "8", "--seed", "5",
		"--crop", "24", "--out", ts, "--progress", "never")
	return ts
}

// linear24 is a 3-class linear model over 3×24×24 images whose weights
// follow a fixed formula.
func linear24() *oiptest.Linear {
	const size = 3 * 24 * 24
	m := &oiptest.Linear{
		Name:   "lin",
		Input:  oiptest.Tensor{Name: "x", Datatype: "FP32", Shape: []int64{-1, 3, 24, 24}},
		Output: oiptest.Tensor{Name: "y", Datatype: "FP32", Shape: []int64{-1, 3}},
		B:      []float32{0, 0.01, -0.01},
	}
	for k := range 3 {
		w := make([]float32, size)
		for i := range w {
			w[i] = float32(math.Cos(float64(i*(k+1))/50)) / size
		}
		m.W = append(m.W, w)
	}
	return m
}

// predict applies m to the image file at path, computed here directly.
func predict(t *testing.T, m *oiptest.Linear, img *imageio.Image) string {
	t.Helper()
	n := img.Width * img.Height
	best, bv := -1, math.Inf(-1)
	for k := range m.W {
		s := float64(m.B[k])
		for c := range 3 {
			for i, v := range img.Ch[c][:n] {
				s += float64(m.W[k][c*n+i]) * float64(v)
			}
		}
		if s > bv {
			best, bv = k, s
		}
	}
	return strconv.Itoa(best)
}

func readRecords(t *testing.T, path string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(readFile(t, path))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestEvalServer(t *testing.T) {
	ts := evalTestSet(t)
	m := linear24()
	srv := oiptest.NewServer(m)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "results.csv")
	args := []string{"eval", "--testset", ts, "--server", srv.URL, "--model-name", "lin", "--preset", "none",
		"--batch-size", "4", "--workers", "2", "--progress", "never", "--out", out}
	stdout := mustRun(t, args...)
	var rows []*testset.Record
	if err := testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(r *testset.Record) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, strconv.Itoa(len(rows))+" rows in "+out) || !strings.Contains(stdout, "accuracy: clean ") {
		t.Errorf("stdout:\n%s", stdout)
	}
	rec, err := evaluate.ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	if rt := rec.Runtime; rec.Kind != "server" || rec.Name != "lin" || rt == nil || rt.Name != "Open Inference Protocol" || rt.Server != srv.URL ||
		rt.ServerName != oiptest.ServerName || rt.ServerVersion != oiptest.ServerVersion || rec.BatchSize != 4 || rec.Preset != "none" ||
		rec.Task.Name != "identity" || len(rec.Task.Classes) != 3 {
		t.Errorf("RESULTS.csv.json: %+v, runtime %+v", rec, rec.Runtime)
	}
	sources := map[string]bool{}
	for _, r := range rows {
		sources[r.Source] = true
	}
	if m.Images() != len(rows)+len(sources) {
		t.Errorf("server scored %d images, want %d rows + %d clean sources", m.Images(), len(rows), len(sources))
	}
	recs := readRecords(t, out)
	// The header: evaluate.Columns, with any dv_* columns of the manifest
	// after vif_method.
	at := slices.Index(evaluate.Columns, "vif_method") + 1
	if h := recs[0]; len(recs) != len(rows)+1 || len(h) < len(evaluate.Columns) || !slices.Equal(h[:at], evaluate.Columns[:at]) || !slices.Equal(h[len(h)-len(evaluate.Columns)+at:], evaluate.Columns[at:]) {
		t.Fatalf("%d rows, header %v", len(recs)-1, recs[0])
	}
	col := func(name string) int {
		for i, c := range recs[0] {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	for i, r := range rows {
		rec := recs[i+1]
		if rec[col("id")] != strconv.Itoa(r.ID) || rec[col("dv")] != strconv.FormatFloat(r.DV, 'g', -1, 64) || rec[col("label")] != r.Label {
			t.Fatalf("row %d: %v vs manifest %+v", i, rec, r)
		}
		// The corrupted image as listed, and the source with the run's crop.
		cm, err := imageio.Load(filepath.Join(ts, r.Path), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ri, _ := testset.ReadRunInfo(ts)
		sm, err := imageio.Load(filepath.Join(ri.Dataset.Root, r.Source), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sm = imageio.Preprocess(sm, 0, 24)
		if got, want := rec[col("pred_corrupted")], predict(t, m, cm); got != want {
			t.Errorf("row %d: pred_corrupted %s, want %s", i, got, want)
		}
		if got, want := rec[col("pred_clean")], predict(t, m, sm); got != want {
			t.Errorf("row %d: pred_clean %s, want %s", i, got, want)
		}
		if want := strconv.Itoa(r.LabelIndex); rec[col("target")] != want {
			t.Errorf("row %d: target %s, want %s", i, rec[col("target")], want)
		}
	}

	// An existing output is refused; --resume finds it complete.
	code, _, errOut := runCmd(t, args...)
	if code != exitUsage || !strings.Contains(errOut, "exists; pass --resume") {
		t.Errorf("existing output: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCmd(t, append(args, "--resume")...)
	if code != exitOK || !strings.Contains(errOut, "was complete already") {
		t.Errorf("--resume on a complete output: exit %d\n%s", code, errOut)
	}
}

// TestEvalServerResume fails the server mid-run and resumes: the result
// equals an uninterrupted run's bytes.
func TestEvalServerResume(t *testing.T) {
	ts := evalTestSet(t)
	dir := t.TempDir()
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	base := []string{"eval", "--testset", ts, "--server", srv.URL, "--model-name", "lin", "--preset", "none",
		"--batch-size", "3", "--progress", "never", "--retries", "0"}
	ref := filepath.Join(dir, "ref.csv")
	mustRun(t, append(base, "--out", ref)...)

	m := linear24()
	m.Fault = func(call int) (int, time.Duration) {
		if call == 4 {
			return http.StatusInternalServerError, 0
		}
		return 0, 0
	}
	srv2 := oiptest.NewServer(m)
	defer srv2.Close()
	base[4] = srv2.URL
	out := filepath.Join(dir, "r.csv")
	code, _, errOut := runCmd(t, append(base, "--out", out, "--workers", "1", "--concurrency", "1")...)
	if code != exitFailure || !strings.Contains(errOut, "HTTP 500: injected failure of call 4") {
		t.Fatalf("failing server: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("results file written by a failed run")
	}
	mustRun(t, append(base, "--out", out, "--resume")...)
	if !bytes.Equal(readFile(t, out), readFile(t, ref)) {
		t.Error("resumed results differ from an uninterrupted run")
	}
}

func TestEvalErrors(t *testing.T) {
	ts := evalTestSet(t)
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	gone := oiptest.NewServer(linear24())
	goneURL := gone.URL
	gone.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.csv")
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		// --out is checked before the model is dialled (the server is gone).
		{"out under a file", []string{"--testset", ts, "--server", goneURL, "--model-name", "lin", "--out", filepath.Join(file, "r.csv")}, exitUsage, "--out: cannot create the folder " + file + ": not a directory"},
		{"unknown task", []string{"--testset", ts, "--server", srv.URL, "--model-name", "lin", "--preset", "none", "--task", "imagnet16", "--out", out}, exitUsage, `--task: "imagnet16" is neither a task (identity, imagenet1k, imagenet16, car, cifar10, cifar100) nor a mapping file`},
		{"unknown preset", []string{"--testset", ts, "--server", srv.URL, "--model-name", "lin", "--preset", "vgg", "--out", out}, exitUsage, "--preset: unknown preprocessing preset \"vgg\"; use one of imagenet, imagenet-cropped, cifar, none"},
		{"batch size", []string{"--testset", ts, "--server", srv.URL, "--model-name", "lin", "--batch-size", "0", "--out", out}, exitUsage, "--batch-size, --workers and --concurrency must be at least 1"},
		{"no model", []string{"--testset", ts, "--out", out}, exitUsage, "give the model"},
		{"two models", []string{"--testset", ts, "--out", out, "--model", "m.onnx", "--predictions", "p.csv"}, exitUsage, "give one of"},
		{"no testset", []string{"--server", srv.URL, "--model-name", "lin", "--out", out}, exitUsage, "--testset is required"},
		{"not a testset", []string{"--testset", dir, "--server", srv.URL, "--model-name", "lin", "--preset", "none", "--out", out}, exitFailure, "has no manifest.csv"},
		{"server without name", []string{"--testset", ts, "--server", srv.URL, "--out", out}, exitUsage, "--server needs --model-name"},
		{"unreachable server", []string{"--testset", ts, "--server", goneURL, "--model-name", "lin", "--preset", "none", "--retries", "0", "--out", out}, exitFailure, "inference server " + goneURL + " is not live"},
		{"unknown model", []string{"--testset", ts, "--server", srv.URL, "--model-name", "resnet", "--preset", "none", "--out", out}, exitFailure, "model resnet not found on " + srv.URL + "; available: lin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(t, append([]string{"eval", "--progress", "never"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, errOut, tc.want)
			}
			for _, p := range []string{out, evaluate.Partial(out)} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}

// TestEvalPreprocessingAfterGenerate checks that a preprocessing which
// would resize and crop the test set's 24×24 images (made with --crop 24)
// to 24×24 again feeds them unchanged: the results equal those of
// --preset none byte for byte, and eval says so once.
func TestEvalPreprocessingAfterGenerate(t *testing.T) {
	ts := evalTestSet(t)
	srv := oiptest.NewServer(linear24())
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "model.json")
	if err := os.WriteFile(cfg, []byte(`{"preset": "none", "resize": 32, "crop_width": 24, "crop_height": 24}`), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, adapted := filepath.Join(dir, "plain.csv"), filepath.Join(dir, "adapted.csv")
	base := []string{"eval", "--testset", ts, "--server", srv.URL, "--model-name", "lin", "--progress", "never"}
	mustRun(t, append(base, "--preset", "none", "--out", plain)...)
	code, _, errOut := runCmd(t, append(base, "--config", cfg, "--out", adapted)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	const note = "the test set's images are 24×24 already (vcr generate --crop 24); the preprocessing skips its own resize to 32 and crop to 24×24 and feeds them unchanged apart from normalisation"
	if strings.Count(errOut, note) != 1 || strings.Contains(errOut, "warning") {
		t.Errorf("stderr should hold the note once and no warning:\n%s", errOut)
	}
	if !bytes.Equal(readFile(t, plain), readFile(t, adapted)) {
		t.Error("results differ from --preset none on the same 24×24 images")
	}
	rec, err := evaluate.ReadRecord(adapted)
	if err != nil {
		t.Fatal(err)
	}
	if p := rec.Preprocessing; p == nil || p.Resize != 0 || p.CropWidth != 0 || len(rec.PreprocessingNotes) != 1 || rec.Config != cfg {
		t.Errorf("recorded preprocessing %+v, notes %q, config %q", p, rec.PreprocessingNotes, rec.Config)
	}
	// Without the adaptation the images would be resampled 24 → 32 → 24:
	// that changes the tensor, so the equality above means something.
	var first string
	testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(r *testset.Record) error {
		if first == "" {
			first = r.Path
		}
		return nil
	})
	img, err := imageio.Load(filepath.Join(ts, first), imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	same, _ := model.Preprocess{Scale: 1}.Apply(img)
	again, _ := model.Preprocess{Resize: 32, CropWidth: 24, CropHeight: 24, Scale: 1}.Apply(img)
	if slices.Equal(same.Data, again.Data) {
		t.Error("resizing 24 → 32 → 24 left the image unchanged; the test proves nothing")
	}
}
