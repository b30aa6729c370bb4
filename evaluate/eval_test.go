package evaluate

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/testset"
)

// handManifest writes a test set folder holding only manifest.csv: two rows
// of the ImageNet car synset n04285008 (sports car) and tench n01440764,
// with the extra header columns and cells given.
func handManifest(t *testing.T, extraCols []string, extra [2][]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rows := [][]string{
		slices.Concat(testset.Columns, extraCols),
		slices.Concat([]string{"0", "a/0.png", "n04285008", "gaussian_noise", `{"sigma":0.1}`, "11", "0.75", "0.25", "images/gaussian_noise/000000.png", "817", "n04285008", "0", "", "uniform", "vcr-py", "8", "8"}, extra[0]),
		slices.Concat([]string{"1", "b/0.png", "n01440764", "gaussian_noise", `{"sigma":0.2}`, "12", "0.5", "0.5", "images/gaussian_noise/000001.png", "0", "n01440764", "1", "", "uniform", "vcr-py", "8", "8"}, extra[1]),
	}
	f, err := os.Create(filepath.Join(dir, testset.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.WriteAll(rows)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// handPredictions are predictions for handManifest's rows: ImageNet-1k
// class indices (817 sports car, 1 goldfish, 436 station wagon). The file's
// SHA-256 is predictionsSHA256 (sha256sum).
const (
	handPredictions   = "id,source,kind,pred\n0,,,817\n1,,,1\n,a/0.png,clean,817\n,b/0.png,clean,436\n"
	predictionsSHA256 = "b9f65b307b5943c1a7d96e506c45e1bfed5819bcb8e2c2ab84ef83cfe56a31a7"
)

func writePredictions(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.csv")
	if err := os.WriteFile(p, []byte(handPredictions), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalRecord checks what RESULTS.csv.json records about the run, and
// the car task's targets and predictions.
func TestEvalRecord(t *testing.T) {
	ts := handManifest(t, nil, [2][]string{})
	preds := writePredictions(t)
	out := filepath.Join(t.TempDir(), "new", "dir", "results.csv")
	sum, err := Eval(context.Background(), Options{TestSet: ts, Out: out, Model: ModelSpec{Predictions: preds, Task: "car", BatchSize: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 2 || sum.Correct != 2 || sum.CorrectClean != 1 || sum.Consistent != 1 {
		t.Errorf("summary %+v; want 2 rows, both corrupted predictions correct, one clean, one consistent", sum)
	}
	recs := readCSV(t, out)
	col := func(name string) int { return slices.Index(recs[0], name) }
	// Row 0: sports car (817) is a car, predicted 817 → car twice. Row 1:
	// tench is not a car; corrupted goldfish (1) → not car, clean station
	// wagon (436) → car.
	for i, want := range [][4]string{{"car", "car", "car", "1"}, {"not car", "car", "not car", "0"}} {
		r := recs[i+1]
		got := [4]string{r[col("target")], r[col("pred_clean")], r[col("pred_corrupted")], r[col("consistent")]}
		if got != want {
			t.Errorf("row %d: target, pred_clean, pred_corrupted, consistent = %v, want %v", i, got, want)
		}
	}
	data, err := os.ReadFile(SettingsFile(out))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Tool, Version, Testset string
		ModelKind              string `json:"model_kind"`
		Model                  string `json:"model"`
		ModelFile              string `json:"model_file"`
		ModelSHA256            string `json:"model_sha256"`
		BatchSize              int    `json:"batch_size"`
		Task                   struct {
			Name    string
			Classes []string
		}
		Settings map[string]string
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Tool != "vcr eval" || rec.Version != version.String() || rec.Testset != ts {
		t.Errorf("tool %q version %q testset %q", rec.Tool, rec.Version, rec.Testset)
	}
	if rec.ModelKind != "predictions" || rec.Model != "p.csv" || rec.ModelFile != preds || rec.ModelSHA256 != predictionsSHA256 || rec.BatchSize != 0 {
		t.Errorf("model record %+v", rec)
	}
	if rec.Task.Name != "car" || !slices.Equal(rec.Task.Classes, []string{"car", "not car"}) {
		t.Errorf("task %+v", rec.Task)
	}
	if rec.Settings["task"] != "car" || rec.Settings["predictions"] != preds || rec.Settings["model_sha256"] != predictionsSHA256 || rec.Settings["testset"] != ts {
		t.Errorf("settings %v", rec.Settings)
	}
	// A resume with another task is refused, naming it.
	_, err = Eval(context.Background(), Options{TestSet: ts, Out: out, Resume: true, Model: ModelSpec{Predictions: preds, Task: "imagenet16"}})
	var se *SettingsError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `task: "car" there, "imagenet16" here`) {
		t.Errorf("resume with another task: %v", err)
	}
}

// TestEvalCopiesDVColumns checks that the manifest's dv_* columns reach
// the results right after vif_method, in manifest order, with their exact
// text.
func TestEvalCopiesDVColumns(t *testing.T) {
	ts := handManifest(t, []string{"dv_vcr_py", "dv_vifvec"}, [2][]string{{"0.25", "0.3125"}, {"0.5", ""}})
	names, ids, values, err := manifestDV(filepath.Join(ts, testset.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"dv_vcr_py", "dv_vifvec"}) || !slices.Equal(ids, []int{0, 1}) ||
		!slices.Equal(values[0], []string{"0.25", "0.3125"}) || !slices.Equal(values[1], []string{"0.5", ""}) {
		t.Fatalf("manifestDV = %v %v %v", names, ids, values)
	}
	wantHeader := []string{"id", "source", "corruption", "severity", "params", "dv", "vif_method", "dv_vcr_py", "dv_vifvec", "label", "target",
		"pred_clean", "pred_corrupted", "correct_clean", "correct_corrupted", "consistent", "conf_clean", "conf_corrupted", "error"}
	if h := resultsHeader(names); !slices.Equal(h, wantHeader) {
		t.Fatalf("results header %v", h)
	}
	if err := testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(*testset.Record) error { return nil }); err != nil {
		// Until package testset reads per-flavour columns, the end-to-end
		// half cannot run.
		t.Skipf("testset does not read dv_* columns yet: %v", err)
	}
	out := filepath.Join(t.TempDir(), "results.csv")
	preds := writePredictions(t)
	if _, err := Eval(context.Background(), Options{TestSet: ts, Out: out, Model: ModelSpec{Predictions: preds, Task: "car"}}); err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, out)
	if !slices.Equal(recs[0], wantHeader) {
		t.Errorf("header %v", recs[0])
	}
	for i, want := range [][]string{{"0.25", "vcr-py", "0.25", "0.3125", "n04285008"}, {"0.5", "vcr-py", "0.5", "", "n01440764"}} {
		if got := recs[i+1][5:10]; !slices.Equal(got, want) {
			t.Errorf("row %d: dv … label = %v, want %v", i, got, want)
		}
	}
	rec, err := ReadRecord(out)
	if err != nil || !slices.Equal(rec.DVColumns, []string{"dv_vcr_py", "dv_vifvec"}) {
		t.Errorf("record dv_columns %v, %v", rec, err)
	}
	// Resume reads the wider header back.
	if sum, err := Eval(context.Background(), Options{TestSet: ts, Out: out, Resume: true, Model: ModelSpec{Predictions: preds, Task: "car"}}); err != nil || !sum.WasComplete {
		t.Errorf("resume: %+v, %v", sum, err)
	}
}

// TestCheckOutput checks that a bad --out is found before any work and
// reported without temporary file names.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckOutput(filepath.Join(dir, "a", "b", "r.csv"), false, false); err != nil {
		t.Errorf("missing folders: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "b")); err != nil {
		t.Errorf("folder not created: %v", err)
	}
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(file, "r.csv"), "--out: cannot create the folder " + file + ": not a directory"},
		{dir, "--out: " + dir + " is a folder; give a file name such as " + filepath.Join(dir, "results.csv")},
		{file, "--out: " + file + ": results file exists; pass --resume"},
	} {
		err := CheckOutput(tc.out, false, false)
		var se *SpecError
		if !errors.As(err, &se) || !se.Usage || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), ".vcr-eval-check") {
			t.Errorf("CheckOutput(%s) = %v, want %q…", tc.out, err, tc.want)
		}
	}
}
