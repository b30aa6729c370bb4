package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/results"
	"github.com/vcr-bench/vcr/robustness"
)

// resultsCSV writes a results table by hand: per corruption 400 rows whose
// dv column (vcr-py) lies in [0.5, 1) and whose dv_vifvec column lies in
// [0, 0.5), 80 rows in each 0.1-wide bin; every fourth row is wrong.
// withVIFVec false leaves the dv_vifvec column out.
func resultsCSV(t *testing.T, dir, name string, corruptions []string, withVIFVec bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,source,corruption,dv,vif_method,dv_vcr_py")
	if withVIFVec {
		b.WriteString(",dv_vifvec")
	}
	b.WriteString(",pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent\n")
	id := 0
	for _, c := range corruptions {
		for i := range 400 {
			primary := 0.5 + float64(i%100)/200
			fmt.Fprintf(&b, "%d,img%d.png,%s,%g,vcr-py,%g", id, i%50, c, primary, primary)
			if withVIFVec {
				fmt.Fprintf(&b, ",%g", float64(i%100)/200)
			}
			ok := i%4 != 0
			pred := "car"
			if !ok {
				pred = "truck"
			}
			fmt.Fprintf(&b, ",car,%s,1,%d,%d\n", pred, b2i(ok), b2i(ok))
			id++
		}
	}
	p := filepath.Join(dir, name, "results.csv")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// humansCSV writes the project's trial CSV by hand: 20 images judged as
// originals by 3 participants, then per corruption 400 corrupted trials with
// Δv = i/400 (flavour vif), every fifth one wrong; task names the task.
func humansCSV(t *testing.T, dir, vif, task string, corruptions ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("participant,image_id,corruption,dv,vif_method,ground_truth,response,is_original,task\n")
	for i := range 20 {
		for p := range 3 {
			fmt.Fprintf(&b, "p%d,img%d,,0,,car,car,1,%s\n", p, i, task)
		}
	}
	for _, c := range corruptions {
		for i := range 400 {
			ans := "car"
			if i%5 == 0 {
				ans = "not car"
			}
			fmt.Fprintf(&b, "p%d,img%d,%s,%g,%s,car,%s,0,%s\n", i%3, i%20, c, float64(i)/400, vif, ans, task)
		}
	}
	p := filepath.Join(dir, "humans.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func testOptions(files ...string) Options {
	o := DefaultOptions()
	o.Bins, o.MinPerBin, o.Bootstrap = 10, 5, 0
	for _, f := range files {
		o.Results = append(o.Results, results.File{Path: f})
	}
	return o
}

// TestFlavourColumn: human data labelled with vifvec meet vcr-py results
// through their dv_vifvec column; the model's bins are those of dv_vifvec.
func TestFlavourColumn(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(resultsCSV(t, dir, "m", []string{"frost"}, true))
	o.Human = humansCSV(t, dir, "vifvec", "car", "frost")
	o.Out = filepath.Join(dir, "out")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Analysis
	if a.DVMethod != "vifvec" || a.VIFMethod != "vifvec" || a.ResultsVIFMethod != "vcr-py" {
		t.Errorf("dv_method %q, vif_method %q, results flavour %q; want vifvec, vifvec, vcr-py", a.DVMethod, a.VIFMethod, a.ResultsVIFMethod)
	}
	// dv_vifvec = (i mod 100)/200: 80 rows in each of the bins [0, 0.1) … [0.4, 0.5).
	if got, want := a.Models[0].Accuracy.Bins.N, []int{80, 80, 80, 80, 80, 0, 0, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("model bins %v, want %v (the dv_vifvec column)", got, want)
	}
	n := 0
	for _, w := range a.Warnings {
		if strings.Contains(w, "dv_vifvec column") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings about the dv_vifvec column, want 1: %q", n, a.Warnings)
	}
	var s map[string]any
	data, err := os.ReadFile(filepath.Join(o.Out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"tool": "vcr analyze", "dv_method": "vifvec", "vif_method": "vifvec", "results_vif_method": "vcr-py", "human_vif_method": "vifvec", "human_task": "car"} {
		if s[k] != want {
			t.Errorf("summary.json %s = %v, want %v", k, s[k], want)
		}
	}
	m := s["models"].([]any)[0].(map[string]any)
	if m["hmri_a"] == nil {
		t.Errorf("no hmri_a: %v", m)
	}
	// Anchored at Δv = 0; the last used bin is [0.4, 0.5), centre 0.45.
	if got := fmt.Sprint(m["dv_covered"]); got != "[0 0.45]" {
		t.Errorf("dv_covered %s, want [0 0.45]", got)
	}
	// Humans: Δv = i/400 fills all ten bins, the last centre 0.95.
	if got := fmt.Sprint(m["human_dv_covered"]); got != "[0 0.45]" {
		t.Errorf("human_dv_covered %s, want [0 0.45] (the model's range within the humans')", got)
	}
}

// TestFlavourColumnMissing: without a dv_vifvec column the comparison is
// refused with the two fixes, or made with --allow-vif-mismatch.
func TestFlavourColumnMissing(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(resultsCSV(t, dir, "m", []string{"frost"}, false))
	o.Human = humansCSV(t, dir, "vifvec", "car", "frost")
	_, err := Run(context.Background(), o)
	if !errors.Is(err, robustness.ErrVIFMismatch) || !errors.Is(err, results.ErrNoDVColumn) {
		t.Fatalf("err = %v, want ErrVIFMismatch and ErrNoDVColumn", err)
	}
	for _, want := range []string{"no column dv_vifvec", "--dv-methods vcr-py,vifvec", "--allow-vif-mismatch"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	o.AllowVIFMismatch = true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Analysis; a.VIFMismatch == "" || a.DVMethod != "" || a.VIFMethod != "vcr-py" {
		t.Errorf("allowed: mismatch %q, dv_method %q, vif_method %q", a.VIFMismatch, a.DVMethod, a.VIFMethod)
	}
	if got := res.Analysis.Models[0].Accuracy.Bins.N; !slices.Equal(got, []int{0, 0, 0, 0, 0, 80, 80, 80, 80, 80}) {
		t.Errorf("bins %v: want the dv column's", got)
	}
}

// TestMissingCorruption: a model corruption the humans lack is analysed
// without HMRI, with one warning naming it.
func TestMissingCorruption(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(resultsCSV(t, dir, "m", []string{"frost", "zoom_blur", "snow"}, false))
	o.Human = humansCSV(t, dir, "vcr-py", "car", "frost")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Analysis
	var hits []string
	for _, w := range a.Warnings {
		if strings.Contains(w, "has no series") {
			hits = append(hits, w)
		}
	}
	want := fmt.Sprintf("the human data %s has no series for 2 corruption(s): snow, zoom_blur (models m); they are analysed without HMRI/MRSI (the human data has frost)", o.Human)
	if len(hits) != 1 || hits[0] != want {
		t.Errorf("warnings %q, want one: %q", hits, want)
	}
	for i, m := range a.Models {
		if (a.Comparisons[i] != nil) != (m.Corruption == "frost") {
			t.Errorf("%s: comparison %v", m.Corruption, a.Comparisons[i])
		}
	}
	// None of the models' corruptions: an error.
	o.Human = humansCSV(t, dir, "vcr-py", "car", "contrast")
	if _, err := Run(context.Background(), o); !errors.Is(err, robustness.ErrCorruptionMismatch) {
		t.Errorf("no common corruption: err = %v", err)
	}
}

// TestTaskMismatch: a model task other than the humans' is warned about
// once and recorded in summary.json.
func TestTaskMismatch(t *testing.T) {
	dir := t.TempDir()
	p := resultsCSV(t, dir, "m", []string{"frost", "snow"}, false)
	settings := `{"tool":"vcr eval","task":{"name":"identity","classes":["a","b","c","d","e"]}}`
	if err := os.WriteFile(p+".json", []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(p)
	o.Human = humansCSV(t, dir, "vcr-py", "car", "frost", "snow")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := "model task identity (5 classes) vs human task car (car / not car): HMRI compares different questions (models m)"
	var hits []string
	for _, w := range res.Analysis.Warnings {
		if strings.Contains(w, "task") {
			hits = append(hits, w)
		}
	}
	if len(hits) != 1 || hits[0] != want {
		t.Errorf("task warnings %q, want one: %q", hits, want)
	}
	s := res.Analysis.Summary()
	if s.Task == nil || s.Task.Name != "identity" || len(s.Task.Classes) != 5 || s.HumanTask != "car" || s.Models[0].Task.Name != "identity" {
		t.Errorf("summary task %+v, human task %q", s.Task, s.HumanTask)
	}
	// The same task: no warning.
	settings = `{"task":{"name":"car","classes":["car","not car"]}}`
	os.WriteFile(p+".json", []byte(settings), 0o644)
	res, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Analysis.Warnings {
		if strings.Contains(w, "task") {
			t.Errorf("same task warned: %q", w)
		}
	}
}

func TestGroupWarnings(t *testing.T) {
	kind := "trials in bins with fewer than 20 trials left out of the fit"
	errs := []error{
		&robustness.Warning{Subject: "a", Corruption: "frost", Property: "accuracy", Kind: kind, Count: 12},
		errors.New("something else"),
		&robustness.Warning{Subject: "b", Corruption: "snow", Property: "consistency", Kind: kind, Count: 3},
		&robustness.Warning{Subject: "a", Corruption: "frost", Kind: "bootstrap replicates had no usable bin and were left out", Count: 2, Of: 100},
	}
	want := []string{
		kind + ": 2 curves: a/frost accuracy (12), b/snow consistency (3)",
		"something else",
		"a/frost: 2 of 100 bootstrap replicates had no usable bin and were left out",
	}
	if got := GroupWarnings(errs); !slices.Equal(got, want) {
		t.Errorf("GroupWarnings =\n%q\nwant\n%q", got, want)
	}
}

// TestOutputCheckedFirst: an output folder that cannot be made fails
// before any reading (the results file does not even exist).
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	o := testOptions(filepath.Join(dir, "missing.csv"))
	o.Out = filepath.Join(blocker, "out")
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrOut) {
		t.Errorf("err = %v, want ErrOut", err)
	}
	o.Bins = -1
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "--bins") {
		t.Errorf("bins -1: err = %v", err)
	}
}

// TestSeriesSeed pins the seed derivation that summary.json records, so
// that reruns stay reproducible across versions: FNV-1a of "1\x00m\x00frost".
func TestSeriesSeed(t *testing.T) {
	// Computed with Python: FNV-1a 64 over b"1\x00m\x00frost".
	const want = 0x83c9a439eaf31369
	if got := SeriesSeed(1, "m", "frost"); got != want {
		t.Errorf("SeriesSeed = %#x, want %#x", got, uint64(want))
	}
}

// TestAutoBins: AutoBins keeps the study's 40 bins when every series has
// four bins of L rows there, and otherwise the largest M at which all do.
func TestAutoBins(t *testing.T) {
	series := func(dvs ...float64) robustness.Series {
		var s robustness.Series
		for _, v := range dvs {
			s.Trials = append(s.Trials, robustness.Trial{DV: v})
		}
		return s
	}
	rep := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// 20 rows in each of four 1/40-wide bins: 40 bins work.
	dense := series(slices.Concat(rep(0.0125, 20), rep(0.2625, 20), rep(0.5125, 20), rep(0.7625, 20))...)
	if m := autoBins([]robustness.Series{dense}, 20); m != 40 {
		t.Errorf("dense: %d bins, want 40", m)
	}
	// 200 rows spread evenly over [0, 1): at M bins each holds 200/M rows,
	// so M ≤ 10 gives 20 a bin; four usable bins need 200/M ≥ 20 in at
	// least four bins: the largest such M is 10.
	var even []float64
	for i := range 200 {
		even = append(even, (float64(i)+0.5)/200)
	}
	if m := autoBins([]robustness.Series{dense, series(even...)}, 20); m != 10 {
		t.Errorf("200 even rows: %d bins, want 10", m)
	}
	// Too few rows for any resolution: the floor.
	if m := autoBins([]robustness.Series{series(rep(0.5, 30)...)}, 20); m != MinAutoBins {
		t.Errorf("30 rows in one place: %d bins, want %d", m, MinAutoBins)
	}
}
