package reliability

import (
	"github.com/vcr-bench/vcr/stats"

	"errors"
	"math"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/robustness"
)

func TestStopBin(t *testing.T) {
	const s, ns = 0.01, 0.5 // significant, not significant
	for _, c := range []struct {
		p                       []float64
		script, intended, first int
		fbScript, fbFirst       bool
	}{
		// first significant at 2, first pair at 4–5.
		{[]float64{ns, ns, s, ns, s, s, ns}, 5, 3, 2, false, false},
		// pair at the start: intended steps before the first bin.
		{[]float64{s, s, ns, ns}, 1, -1, 0, false, false},
		// no significant bin: fallbacks.
		{[]float64{ns, ns, ns, ns, ns}, 3, 3, 4, true, true},
		// a single significant bin only: script falls back, first does not.
		{[]float64{ns, ns, ns, s}, 2, 2, 3, true, false},
		// three in a row: the scan stops at the second.
		{[]float64{ns, s, s, s}, 2, 0, 1, false, false},
	} {
		if got, fb := stopBin(c.p, 0.05, RuleScript); got != c.script || fb != c.fbScript {
			t.Errorf("%v script: %d %v, want %d %v", c.p, got, fb, c.script, c.fbScript)
		}
		if got, _ := stopBin(c.p, 0.05, RuleIntended); got != c.intended {
			t.Errorf("%v intended: %d, want %d", c.p, got, c.intended)
		}
		if got, fb := stopBin(c.p, 0.05, RuleFirst); got != c.first || fb != c.fbFirst {
			t.Errorf("%v first: %d %v, want %d %v", c.p, got, fb, c.first, c.fbFirst)
		}
	}
	// p = α is not significant (R: p < 0.05).
	if got, _ := stopBin([]float64{0.05, 0.05, 0.05}, 0.05, RuleFirst); got != 2 {
		t.Errorf("p = alpha counted as significant")
	}
}

func TestPooledPreservation(t *testing.T) {
	// N = 15 + 20 + 30 + 35 = 100, ⌈50⌉: 15, 35, 65 → stop after bin 3.
	b := Bins{X: []float64{0.1, 0.2, 0.3, 0.4}, N: []int{15, 20, 30, 35}, C: []int{15, 18, 27, 10}}
	if got, want := pooledPreservation(b), 60.0/65; got != want {
		t.Errorf("s0 = %v, want %v", got, want)
	}
	// Exactly half reached at a bin boundary: stop there (left ≤ 0).
	b = Bins{X: []float64{0.1, 0.2, 0.3}, N: []int{20, 20, 40}, C: []int{20, 10, 0}}
	if got, want := pooledPreservation(b), 30.0/40; got != want {
		t.Errorf("s0 = %v, want %v", got, want)
	}
	// Odd total: ⌈0.5·N⌉. N = 33: left = 17; 11 → 6, 22 → stop after bin 2.
	b = Bins{X: []float64{0.1, 0.2, 0.3}, N: []int{11, 11, 11}, C: []int{11, 0, 0}}
	if got, want := pooledPreservation(b), 11.0/22; got != want {
		t.Errorf("s0 = %v, want %v", got, want)
	}
}

func builtinBins(t *testing.T, name, corruption string) HumanBins {
	t.Helper()
	d, err := human.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Lookup(corruption)
	if err != nil {
		t.Fatal(err)
	}
	return HumanBins{Correctness: FromICSECounts(s.Binned.Accuracy), Preservation: FromICSECounts(s.Binned.Consistency)}
}

func TestEstimatePublished(t *testing.T) {
	for _, c := range []struct {
		ds, tr   string
		p0       float64
		weighted bool
	}{
		{"icse2022-imagenet", "frost", ImageNetCleanAccuracy, false},
		{"icse2022-imagenet", "rgb_shift", ImageNetCleanAccuracy, false},
		{"icse2022-cifar10-bins", "frost", CIFAR10CleanAccuracy, true},
		{"icse2022-cifar10-bins", "jpeg_compression", CIFAR10CleanAccuracy, true},
	} {
		h := builtinBins(t, c.ds, c.tr)
		// Labels are the published upper bin edges: multiples of 0.01.
		for _, x := range h.Correctness.X {
			if math.Abs(x*100-math.Round(x*100)) > 1e-9 {
				t.Fatalf("%s %s: label %v not a bin edge", c.ds, c.tr, x)
			}
		}
		res := map[string]*Requirement{}
		for _, rule := range Rules {
			r, err := Estimate(h, EstimateOptions{Rule: rule, P0: c.p0, Weighted: c.weighted})
			if err != nil {
				t.Fatalf("%s %s %s: %v", c.ds, c.tr, rule, err)
			}
			res[rule] = r
			for _, th := range []float64{r.TC, r.TP} {
				if !(th >= 0 && th <= 1) {
					t.Errorf("%s %s %s: threshold %v", c.ds, c.tr, rule, th)
				}
			}
			det := r.Details.(*EstimateDetails)
			for _, ce := range []*CurveEstimate{det.Correctness, det.Preservation} {
				for k := range ce.X {
					if ce.XPrime[k] != int(math.RoundToEven(float64(ce.N[k])*ce.Fitted[k])) {
						t.Errorf("x′ at bin %d", k)
					}
					p, _ := stats.BinomTest(ce.XPrime[k], ce.N[k], ce.P0)
					if p != ce.P[k] {
						t.Errorf("p-value at bin %d", k)
					}
				}
				if ce.Stop >= 0 && ce.Threshold != ce.X[ce.Stop] || ce.Stop < 0 && ce.Threshold != 0 {
					t.Errorf("threshold %v for stop %d", ce.Threshold, ce.Stop)
				}
				if !(ce.DF > 1 && ce.Lambda > 0) {
					t.Errorf("fit df %v λ %v", ce.DF, ce.Lambda)
				}
			}
			if det.Correctness.P0 != c.p0 || r.HumanAccuracy != c.p0 {
				t.Errorf("p0 %v", det.Correctness.P0)
			}
		}
		// Rule relations: intended two bins before script's stop (same
		// fallback), first no later than the first bin of the pair.
		for _, get := range []func(*Requirement) *CurveEstimate{
			func(r *Requirement) *CurveEstimate { return r.Details.(*EstimateDetails).Correctness },
			func(r *Requirement) *CurveEstimate { return r.Details.(*EstimateDetails).Preservation },
		} {
			s, i, f := get(res[RuleScript]), get(res[RuleIntended]), get(res[RuleFirst])
			if s.Fallback != i.Fallback || (!s.Fallback && i.Stop != s.Stop-2) || (s.Fallback && i.Stop != s.Stop) {
				t.Errorf("%s %s: script stop %d, intended %d", c.ds, c.tr, s.Stop, i.Stop)
			}
			if !s.Fallback && f.Stop > s.Stop-1 {
				t.Errorf("%s %s: first stop %d after script's pair start %d", c.ds, c.tr, f.Stop, s.Stop-1)
			}
		}
	}
}

func TestEstimateErrors(t *testing.T) {
	good := builtinBins(t, "icse2022-imagenet", "frost")
	few := good
	few.Correctness = Bins{X: good.Correctness.X[:3], N: good.Correctness.N[:3], C: good.Correctness.C[:3]}
	if _, err := Estimate(few, EstimateOptions{P0: 0.97}); !errors.Is(err, ErrTooFew) {
		t.Errorf("3 bins: %v", err)
	}
	small := good
	small.Preservation.N = slices.Clone(good.Preservation.N)
	small.Preservation.C = slices.Clone(good.Preservation.C)
	small.Preservation.N[2], small.Preservation.C[2] = 10, 9
	if _, err := Estimate(small, EstimateOptions{P0: 0.97}); !errors.Is(err, ErrTooFew) {
		t.Errorf("bin of 10 trials: %v", err)
	}
	nan := good
	nan.Correctness.X = slices.Clone(good.Correctness.X)
	nan.Correctness.X[1] = math.NaN()
	if _, err := Estimate(nan, EstimateOptions{P0: 0.97}); err == nil {
		t.Error("NaN label: no error")
	}
	for _, o := range []EstimateOptions{{P0: 0.97, Rule: "last"}, {P0: math.NaN()}, {P0: 0}, {P0: 0.97, Alpha: 2}} {
		if _, err := Estimate(good, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestFromTrials(t *testing.T) {
	var tr []robustness.Trial
	// 12 trials at Δv 0.07 (an exact bin edge: bin 0.07), 11 at 0.071 (bin
	// 0.08), 5 at 0.5 (dropped: ≤ 10), 20 originals-like at 0 (bin 0).
	for i := range 12 {
		tr = append(tr, robustness.Trial{DV: 0.07, Correct: i < 9, Consistent: i < 6})
	}
	for i := range 11 {
		tr = append(tr, robustness.Trial{DV: 0.071, Correct: i < 11, Unpaired: i < 5})
	}
	for range 5 {
		tr = append(tr, robustness.Trial{DV: 0.5, Correct: true})
	}
	for range 20 {
		tr = append(tr, robustness.Trial{DV: 0, Correct: true, Consistent: true})
	}
	h := FromTrials(tr)
	want := Bins{X: []float64{0, 0.07, 0.08}, N: []int{20, 12, 11}, C: []int{20, 9, 11}}
	if !slices.Equal(h.Correctness.X, want.X) || !slices.Equal(h.Correctness.N, want.N) || !slices.Equal(h.Correctness.C, want.C) {
		t.Errorf("correctness bins %+v, want %+v", h.Correctness, want)
	}
	// Preservation: the 0.08 bin keeps 6 paired trials → dropped.
	wantP := Bins{X: []float64{0, 0.07}, N: []int{20, 12}, C: []int{20, 6}}
	if !slices.Equal(h.Preservation.X, wantP.X) || !slices.Equal(h.Preservation.N, wantP.N) || !slices.Equal(h.Preservation.C, wantP.C) {
		t.Errorf("preservation bins %+v, want %+v", h.Preservation, wantP)
	}
}

func BenchmarkEstimate(b *testing.B) {
	d, err := human.Builtin("icse2022-imagenet")
	if err != nil {
		b.Fatal(err)
	}
	s, _ := d.Lookup("frost")
	h := HumanBins{Correctness: FromICSECounts(s.Binned.Accuracy), Preservation: FromICSECounts(s.Binned.Consistency)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Estimate(h, EstimateOptions{P0: ImageNetCleanAccuracy}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBinomTest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stats.BinomTest(80, 90, 0.97); err != nil {
			b.Fatal(err)
		}
	}
}
