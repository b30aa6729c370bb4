package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/robustness"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// series simulates n trials with accuracy a(v) = clean·(1 − k·v²) and
// consistency 1 − v/2.
func series(subject, corruption string, human bool, clean, k float64, n int, seed uint64) robustness.Series {
	r := rand.New(rand.NewPCG(seed, 1))
	s := robustness.Series{Subject: subject, Corruption: corruption, VIFMethod: "vcr-py", Human: human,
		CleanAccuracy: clean, CleanConsistency: 1}
	for range n {
		v := r.Float64()
		s.Trials = append(s.Trials, robustness.Trial{DV: v, Correct: r.Float64() < clean*(1-k*v*v), Consistent: r.Float64() < 1-v/2})
	}
	return s
}

func fit(t *testing.T, s robustness.Series, boot int) *robustness.Estimate {
	t.Helper()
	e, err := robustness.Fit(context.Background(), s, robustness.Options{Replicates: boot, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// analysis builds a small analysis: two models and humans on blur, with or
// without bootstrap; the human consistency curve is unanchored (NaN), as
// for the published ImageNet data.
func analysis(t *testing.T, boot int) *Analysis {
	t.Helper()
	h := series("human", "blur", true, 0.97, 0.4, 3000, 3)
	h.CleanConsistency = math.NaN()
	a := &Analysis{Results: []string{"a.csv", "b.csv"}, Human: "sim", VIFMethod: "vcr-py", HumanVIFMethod: "vcr-py",
		Bins: robustness.DefaultBins, MinPerBin: robustness.DefaultMinCount, Bootstrap: max(boot, 0), Seed: 1,
		Models: []*robustness.Estimate{fit(t, series("a", "blur", false, 0.9, 0.8, 3000, 1), boot), fit(t, series("b", "blur", false, 0.95, 0.2, 3000, 2), boot)},
		Humans: []*robustness.Estimate{fit(t, h, boot)}}
	for _, m := range a.Models {
		c, err := robustness.Compare(m, a.Humans[0], robustness.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a.Comparisons = append(a.Comparisons, c)
	}
	return a
}

func TestSummaryJSON(t *testing.T) {
	for _, boot := range []int{-1, 50} {
		a := analysis(t, boot)
		var buf bytes.Buffer
		if err := a.WriteJSON(&buf); err != nil {
			t.Fatalf("bootstrap %d: %v", boot, err) // NaN would fail here
		}
		var s struct {
			Models []map[string]any
			Humans []map[string]any
		}
		if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Models) != 2 || len(s.Humans) != 1 {
			t.Fatalf("%d models, %d humans", len(s.Models), len(s.Humans))
		}
		m := s.Models[0]
		for _, k := range []string{"ra", "rp", "hmri_a", "mrsi_a", "hmri_p", "mrsi_p", "mean_accuracy", "clean_accuracy"} {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("bootstrap %d: %s = %v", boot, k, m[k])
			}
		}
		if got := m["ra"].(float64); got != a.Models[0].Ra.Value {
			t.Errorf("ra = %v, want %v", got, a.Models[0].Ra.Value)
		}
		if got := m["hmri_a"].(float64); got != a.Comparisons[0].Accuracy.HMRI.Value {
			t.Errorf("hmri_a = %v, want %v", got, a.Comparisons[0].Accuracy.HMRI.Value)
		}
		for _, k := range []string{"ra_ci83", "ra_ci95", "rp_ci95", "hmri_a_ci95", "mrsi_p_ci83"} {
			_, has := m[k]
			if has != (boot > 0) {
				t.Errorf("bootstrap %d: %s present %v", boot, k, has)
			}
		}
		if boot > 0 {
			ci := m["ra_ci95"].([]any)
			if lo, hi := ci[0].(float64), ci[1].(float64); !(lo == a.Models[0].Ra.Lo95 && hi == a.Models[0].Ra.Hi95) {
				t.Errorf("ra_ci95 = %v, want [%v, %v]", ci, a.Models[0].Ra.Lo95, a.Models[0].Ra.Hi95)
			}
		}
		// The unanchored human consistency has no clean value: null.
		if v, ok := s.Humans[0]["clean_consistency"]; !ok || v != nil {
			t.Errorf("human clean_consistency = %v (present %v), want null", v, ok)
		}
	}
}

func TestCSVTables(t *testing.T) {
	a := analysis(t, 20)
	read := func(f func(w *bytes.Buffer) error) [][]string {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	sum := read(func(w *bytes.Buffer) error { return a.WriteSummaryCSV(w) })
	if len(sum) != 4 || len(sum[0]) != len(SummaryColumns) {
		t.Fatalf("summary.csv: %d rows of %d columns", len(sum), len(sum[0]))
	}
	if sum[1][0] != "a" || sum[3][0] != "human" || sum[3][1] != "true" || sum[3][19] != "" || sum[1][19] == "" {
		t.Errorf("summary.csv rows: %v", sum)
	}
	curves := read(func(w *bytes.Buffer) error { return a.WriteCurvesCSV(w) })
	if want := 1 + 3*2*robustness.DefaultGrid; len(curves) != want {
		t.Errorf("curves.csv: %d rows, want %d", len(curves), want)
	}
	bins := read(func(w *bytes.Buffer) error { return a.WriteBinsCSV(w) })
	if want := 1 + 3*2*robustness.DefaultBins; len(bins) != want {
		t.Errorf("bins.csv: %d rows, want %d", len(bins), want)
	}
}

// handMade is an analysis with made-up numbers (no fits), so that the
// table's golden file depends on formatting only.
func handMade() *Analysis {
	nan := math.NaN()
	iv := func(v, lo, hi float64) robustness.Interval {
		return robustness.Interval{Value: v, Lo83: lo + 0.01, Hi83: hi - 0.01, Lo95: lo, Hi95: hi}
	}
	m := func(name string, ra, rp float64) *robustness.Estimate {
		return &robustness.Estimate{Subject: name, Corruption: "gaussian_noise", VIFMethod: "vifvec", N: 50000,
			MeanAccuracy: ra + 0.05, Ra: iv(ra, ra-0.03, ra+0.02), Rp: iv(rp, rp-0.02, rp+0.03),
			// Δv covered: the intersection, [0, 0.8625].
			Accuracy: robustness.Curve{Covered: [2]float64{0, 0.9125}}, Consistency: robustness.Curve{Covered: [2]float64{0, 0.8625}}}
	}
	h := &robustness.Estimate{Subject: "human", Human: true, Corruption: "gaussian_noise", VIFMethod: "vifvec", N: 6421,
		MeanAccuracy: 0.937, Ra: iv(0.961, 0.959, 0.962), Rp: robustness.Interval{Value: 0.962, Lo83: nan, Hi83: nan, Lo95: nan, Hi95: nan},
		// An unanchored consistency curve starts at its first used bin: [0.0125, 0.7375].
		Accuracy: robustness.Curve{Covered: [2]float64{0, 0.7375}}, Consistency: robustness.Curve{Covered: [2]float64{0.0125, 0.9875}}}
	cmp := func(hmri, mrsi float64) *robustness.Comparison {
		return &robustness.Comparison{Accuracy: robustness.Metrics{HMRI: iv(hmri, hmri-0.1, min(1, hmri+0.1)), MRSI: iv(mrsi, 0, mrsi+0.01)},
			Consistency: robustness.Metrics{HMRI: iv(hmri, hmri-0.2, min(1, hmri+0.05)), MRSI: robustness.Interval{Value: mrsi, Lo83: nan, Hi83: nan, Lo95: nan, Hi95: nan}}}
	}
	return &Analysis{VIFMethod: "vifvec", Bins: 40, MinPerBin: 20, Bootstrap: 1000, Seed: 7,
		Models:          []*robustness.Estimate{m("resnet50", 0.512, 0.634), m("a-much-longer-model-name", 0.7, 0.81)},
		Comparisons:     []*robustness.Comparison{cmp(0.55, 0), cmp(0.93, 0.021)},
		Humans:          []*robustness.Estimate{h},
		VIFMismatch:     "example warning",
		SimilarAccuracy: &robustness.SimilarityTable{Classes: [][]string{{"gaussian_noise", "shot_noise"}, {"frost"}}},
	}
}

func TestTableGolden(t *testing.T) {
	a := handMade()
	var buf bytes.Buffer
	if err := a.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "table.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("table differs from %s:\n%s", path, buf.String())
	}
}

func TestWritePlots(t *testing.T) {
	a := analysis(t, 20)
	dir := t.TempDir()
	files, err := a.WritePlots(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "curves_blur_accuracy.svg curves_blur_accuracy.png hmri_blur_accuracy.svg hmri_blur_accuracy.png mrsi_blur_accuracy.svg mrsi_blur_accuracy.png " +
		"curves_blur_consistency.svg curves_blur_consistency.png hmri_blur_consistency.svg hmri_blur_consistency.png mrsi_blur_consistency.svg mrsi_blur_consistency.png " +
		"coverage_blur.svg coverage_blur.png " +
		"hmri_accuracy_all.svg hmri_accuracy_all.png mrsi_accuracy_all.svg mrsi_accuracy_all.png " +
		"hmri_consistency_all.svg hmri_consistency_all.png mrsi_consistency_all.svg mrsi_consistency_all.png"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("plots:\n%s\nwant\n%s", got, want)
	}
	ch := CurveChart("t", "accuracy", slicesOf(a), map[string]string{"a": "cnn", "b": "cnn"})
	if len(ch.Curves) != 3 || !ch.Curves[2].Human || ch.Curves[2].Name != "humans" || ch.Curves[0].Lo83 == nil ||
		ch.Curves[0].Group != "cnn" || ch.Curves[1].Group != "cnn" {
		t.Errorf("curve chart: %+v", ch.Curves)
	}
	for _, c := range ch.Curves {
		for _, p := range c.Points {
			if p.N < robustness.DefaultMinCount {
				t.Errorf("%s: point from a bin of %d < L trials", c.Name, p.N)
			}
		}
	}
}

func slicesOf(a *Analysis) []*robustness.Estimate {
	return append(append([]*robustness.Estimate(nil), a.Models...), a.Humans...)
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{"gaussian_noise": "gaussian_noise", "a/b c": "a_b_c", "Δv-1.5": "_v-1.5"} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSummaryMetadata: summary.json names its tool and states each
// subject's covered Δv range (the intersection of both curves' ranges).
func TestSummaryMetadata(t *testing.T) {
	s := handMade().Summary()
	if s.Tool != "vcr analyze" || s.Format != SummaryFormat || s.Version == "" {
		t.Errorf("tool %q, format %d, version %q", s.Tool, s.Format, s.Version)
	}
	if s.Models[0].DVCovered != [2]float64{0, 0.8625} || s.Humans[0].DVCovered != [2]float64{0.0125, 0.7375} {
		t.Errorf("dv_covered %v (model), %v (humans)", s.Models[0].DVCovered, s.Humans[0].DVCovered)
	}
	// A summary.json before format 2 held the format number in "version".
	var old Summary
	if err := json.Unmarshal([]byte(`{"version": 1, "vif_method": "vcr-py", "models": []}`), &old); err != nil || old.Version != "format 1" {
		t.Errorf("old summary: version %q, err %v", old.Version, err)
	}
}
