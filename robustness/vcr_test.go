package robustness

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// truth is a known monotone curve with s(0) = 0.95.
func truth(v float64) float64 { return 0.95 - 0.55*v*v }

// truthArea = ∫₀¹ truth = 0.95 − 0.55/3.
const truthArea = 0.95 - 0.55/3

// simulate draws n trials with Δv ~ U(0, 1) and Bernoulli(truth(Δv))
// correctness; consistency follows truth(Δv)^½ (so that it lies above).
func simulate(seed uint64, n int) Series {
	r := rand.New(rand.NewPCG(seed, 99))
	s := Series{Subject: "sim", Corruption: "c", VIFMethod: "vifvec", CleanAccuracy: truth(0), CleanConsistency: 1}
	s.Trials = make([]Trial, n)
	for i := range s.Trials {
		v := r.Float64()
		s.Trials[i] = Trial{DV: v, Correct: r.Float64() < truth(v), Consistent: r.Float64() < math.Sqrt(truth(v)/0.95)}
	}
	return s
}

func TestBinIndex(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		m, k int
	}{{0, 40, 0}, {0.0249, 40, 0}, {0.025, 40, 1}, {0.5, 40, 20}, {0.999, 40, 39}, {1, 40, 39}, {1, 1, 0}} {
		if k := BinIndex(tc.v, tc.m); k != tc.k {
			t.Errorf("BinIndex(%v, %d) = %d, want %d", tc.v, tc.m, k, tc.k)
		}
	}
}

func TestFitBasics(t *testing.T) {
	s := simulate(1, 20000)
	e, err := Fit(context.Background(), s, Options{Replicates: 200, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Accuracy.Fit.Eval(0); got != truth(0) {
		t.Errorf("s_a(0) = %v, want the clean accuracy %v", got, truth(0))
	}
	if got := e.Consistency.Fit.Eval(0); got != 1 {
		t.Errorf("s_p(0) = %v, want 1", got)
	}
	// Mean accuracy over uniform Δv estimates the same area as R̂a.
	if math.Abs(e.Ra.Value-truthArea) > 0.01 || math.Abs(e.MeanAccuracy-truthArea) > 0.01 {
		t.Errorf("R̂a = %.4f, mean accuracy %.4f, want ≈ %.4f", e.Ra.Value, e.MeanAccuracy, truthArea)
	}
	if !(e.Ra.Lo95 <= e.Ra.Lo83 && e.Ra.Lo83 <= e.Ra.Value && e.Ra.Value <= e.Ra.Hi83 && e.Ra.Hi83 <= e.Ra.Hi95) {
		t.Errorf("R̂a intervals out of order: %+v", e.Ra)
	}
	for _, c := range []*Curve{&e.Accuracy, &e.Consistency} {
		for i := range c.Grid {
			if !(c.Lo95[i] <= c.Lo83[i] && c.Lo83[i] <= c.Hi83[i] && c.Hi83[i] <= c.Hi95[i]) {
				t.Fatalf("bands out of order at %v", c.Grid[i])
			}
			if i > 0 && c.Value[i] > c.Value[i-1] {
				t.Fatalf("curve increases at %v", c.Grid[i])
			}
		}
		if c.Covered != [2]float64{0, 0.9875} {
			t.Errorf("covered range %v, want [0, 0.9875] (last bin centre)", c.Covered)
		}
	}
	if e.N != 20000 || len(e.Accuracy.Bins.X) != 40 {
		t.Errorf("N = %d, bins %d", e.N, len(e.Accuracy.Bins.X))
	}
}

// TestSparseBinsLeftOut: bins below L are omitted from the fit, not set to 0.
func TestSparseBinsLeftOut(t *testing.T) {
	s := simulate(2, 4000)
	// Empty the Δv range [0.5, 0.6) except for 3 wrong answers.
	s.Trials = slices.DeleteFunc(s.Trials, func(t Trial) bool { return t.DV >= 0.5 && t.DV < 0.6 })
	for range 3 {
		s.Trials = append(s.Trials, Trial{DV: 0.55})
	}
	e, err := Fit(context.Background(), s, Options{Replicates: -1})
	if err != nil {
		t.Fatal(err)
	}
	k := BinIndex(0.55, 40)
	if e.Accuracy.Used[k] || e.Accuracy.Bins.N[k] != 3 || len(e.Warnings) == 0 {
		t.Errorf("sparse bin: used %v, N %d, warnings %v", e.Accuracy.Used[k], e.Accuracy.Bins.N[k], e.Warnings)
	}
	if v := e.Accuracy.Fit.Eval(0.55); math.Abs(v-truth(0.55)) > 0.06 {
		t.Errorf("s_a(0.55) = %.3f, want ≈ %.3f (bridged, not pulled to 0)", v, truth(0.55))
	}
	if !math.IsNaN(e.Ra.Lo95) {
		t.Errorf("no bootstrap but interval %v", e.Ra)
	}
}

func TestFitErrors(t *testing.T) {
	ctx := context.Background()
	s := simulate(3, 100)
	s.Trials[7].DV = 1.2
	if _, err := Fit(ctx, s, Options{}); !errors.Is(err, ErrDV) {
		t.Errorf("Δv 1.2: err = %v, want ErrDV", err)
	}
	if _, err := Fit(ctx, Series{Subject: "m"}, Options{}); !errors.Is(err, ErrNoData) {
		t.Errorf("no trials: err = %v, want ErrNoData", err)
	}
	s = simulate(3, 10) // every bin below L = 20
	if _, err := Fit(ctx, s, Options{}); !errors.Is(err, ErrNoData) {
		t.Errorf("all bins sparse: err = %v, want ErrNoData", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Fit(cctx, simulate(3, 2000), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestDeterministicAcrossWorkers: same seed, 1 or 3 workers, identical bits.
func TestDeterministicAcrossWorkers(t *testing.T) {
	s := simulate(4, 5000)
	a, err := Fit(context.Background(), s, Options{Replicates: 60, Seed: 11, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(context.Background(), s, Options{Replicates: 60, Seed: 11, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Accuracy.Lo83, b.Accuracy.Lo83) || !slices.Equal(a.Consistency.Hi95, b.Consistency.Hi95) || a.Ra != b.Ra || a.Rp != b.Rp {
		t.Error("results depend on the worker count")
	}
	c, _ := Fit(context.Background(), s, Options{Replicates: 60, Seed: 12, Workers: 1})
	if a.Ra == c.Ra {
		t.Error("different seeds gave identical intervals")
	}
}

// rowBootstrap is the slow, obvious bootstrap: resample trial rows with
// replacement, refit, return R̂a per replicate.
func rowBootstrap(s Series, reps int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([]float64, 0, reps)
	rs := s
	rs.Trials = make([]Trial, len(s.Trials))
	for range reps {
		for i := range rs.Trials {
			rs.Trials[i] = s.Trials[r.IntN(len(s.Trials))]
		}
		e, err := Fit(context.Background(), rs, Options{Replicates: -1})
		if err == nil {
			out = append(out, e.Ra.Value)
		}
	}
	return out
}

// TestCellBootstrapMatchesRows: the multinomial cell bootstrap and row
// resampling give the same distribution of R̂a (means and standard
// deviations within Monte-Carlo error of 400 replicates each).
func TestCellBootstrapMatchesRows(t *testing.T) {
	s := simulate(5, 3000)
	e, err := Fit(context.Background(), s, Options{Replicates: 400, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cell := integrals(e.Accuracy.reps)
	row := rowBootstrap(s, 400, 2)
	mc, sc := meanSD(cell)
	mr, sr := meanSD(row)
	t.Logf("R̂a bootstrap: cells mean %.5f sd %.5f; rows mean %.5f sd %.5f", mc, sc, mr, sr)
	if math.Abs(mc-mr) > 4*sr*math.Sqrt(2.0/400) || math.Abs(sc/sr-1) > 0.2 {
		t.Errorf("cell and row bootstraps differ")
	}
}

func meanSD(v []float64) (m, sd float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		sd += (x - m) * (x - m)
	}
	return m, math.Sqrt(sd / float64(len(v)-1))
}

func TestCompare(t *testing.T) {
	ctx := context.Background()
	human, err := Fit(ctx, simulate(6, 8000), Options{Replicates: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	human.Subject, human.Human = "human", true
	// A model that is right more often than humans everywhere.
	ms := simulate(7, 8000)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range ms.Trials {
		if r.Float64() < 0.5 {
			ms.Trials[i].Correct = true
		}
	}
	ms.Subject = "model"
	model, err := Fit(ctx, ms, Options{Replicates: 100, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(model, human, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Accuracy
	if a.HMRI.Value < 0.99 || a.MRSI.Value <= 0.05 {
		t.Errorf("better model: HMRI %.4f, MRSI %.4f", a.HMRI.Value, a.MRSI.Value)
	}
	// Definitions: A(m>h) − A(h>m) = A(m) − A(h); HMRI = 1 − A(h>m)/A(h).
	if d := a.AMH.Value - a.AHM.Value - (a.AM.Value - a.AH.Value); math.Abs(d) > 1e-12 {
		t.Errorf("area identity off by %g", d)
	}
	if d := a.HMRI.Value - (1 - a.AHM.Value/a.AH.Value); math.Abs(d) > 1e-15 {
		t.Errorf("HMRI identity off by %g", d)
	}
	// Swapping roles: humans vs the better model.
	c2, _ := Compare(human, model, CompareOptions{})
	if c2.Accuracy.MRSI.Value > 0.01 || c2.Accuracy.HMRI.Value > 0.99 || math.IsNaN(c2.Accuracy.HMRI.Lo95) {
		t.Errorf("worse model: HMRI %+v, MRSI %+v", c2.Accuracy.HMRI, c2.Accuracy.MRSI)
	}
	// Flavour guard.
	model.VIFMethod = "vifp"
	if _, err := Compare(model, human, CompareOptions{}); !errors.Is(err, ErrVIFMismatch) {
		t.Errorf("VIF mismatch: err = %v", err)
	}
	c3, err := Compare(model, human, CompareOptions{AllowVIFMismatch: true})
	if err != nil || len(c3.Warnings) != 1 || !errors.Is(c3.Warnings[0], ErrVIFMismatch) {
		t.Errorf("override: err %v, warnings %v", err, c3.Warnings)
	}
	model.VIFMethod, model.Corruption = "vifvec", "other"
	if _, err := Compare(model, human, CompareOptions{}); !errors.Is(err, ErrCorruptionMismatch) {
		t.Errorf("corruption mismatch: err = %v", err)
	}
}

func TestSimilarity(t *testing.T) {
	ctx := context.Background()
	var ests []*Estimate
	for i, shift := range []float64{0, 0, 0.35} {
		s := simulate(uint64(20+i), 6000)
		r := rand.New(rand.NewPCG(uint64(i), 5))
		for k := range s.Trials {
			if s.Trials[k].Correct && r.Float64() < shift*s.Trials[k].DV {
				s.Trials[k].Correct = false
			}
		}
		s.Corruption = []string{"a", "b", "c"}[i]
		e, err := Fit(ctx, s, Options{Replicates: 100, Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		ests = append(ests, e)
	}
	tab, err := Similarity(ests, AccuracyCurve, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gaps %v", tab.Gap)
	if !tab.Similar[0][1] || tab.Similar[0][2] || tab.Similar[1][2] {
		t.Errorf("similar = %v, want a~b only", tab.Similar)
	}
	if want := [][]string{{"a", "b"}, {"c"}}; !equalClasses(tab.Classes, want) {
		t.Errorf("classes %v, want %v", tab.Classes, want)
	}
	ests[2].VIFMethod = "x"
	if _, err := Similarity(ests, AccuracyCurve, CompareOptions{}); !errors.Is(err, ErrVIFMismatch) {
		t.Errorf("err = %v", err)
	}
}

func equalClasses(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestMaximalCliques(t *testing.T) {
	// Path 0–1–2 plus triangle 3–4–5: cliques {3,4,5}, {0,1}, {1,2}.
	n := 6
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
		adj[i][i] = true
	}
	for _, e := range [][2]int{{0, 1}, {1, 2}, {3, 4}, {4, 5}, {3, 5}} {
		adj[e[0]][e[1]], adj[e[1]][e[0]] = true, true
	}
	got := maximalCliques(adj)
	want := [][]int{{3, 4, 5}, {0, 1}, {1, 2}}
	if len(got) != len(want) {
		t.Fatalf("cliques %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("cliques %v, want %v", got, want)
		}
	}
	if c := components(adj); len(c) != 2 || !slices.Equal(c[0], []int{0, 1, 2}) {
		t.Errorf("components %v", c)
	}
}

// TestSimulatedCoverage: fitted error shrinks with N, and the bands cover the
// truth at close to nominal rates. Logged numbers go into docs/analysis.md.
func TestSimulatedCoverage(t *testing.T) {
	ctx := context.Background()
	// Error against the truth on the grid, 3 data sets per N.
	prev := math.Inf(1)
	for _, n := range []int{2000, 20000, 200000} {
		rmse := 0.0
		for k := range 3 {
			e, err := Fit(ctx, simulate(uint64(100+k), n), Options{Replicates: -1})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range e.Accuracy.Grid {
				d := e.Accuracy.Value[i] - truth(v)
				rmse += d * d
			}
		}
		rmse = math.Sqrt(rmse / float64(3*DefaultGrid))
		t.Logf("N = %d: RMSE of s_a = %.4f", n, rmse)
		if rmse >= prev {
			t.Errorf("RMSE did not shrink: %.4f at N = %d after %.4f", rmse, n, prev)
		}
		prev = rmse
	}
	sims, reps := 200, 200
	if testing.Short() {
		sims = 30
	}
	var in83, in95, pts, ra83, ra95 int
	for k := range sims {
		e, err := Fit(ctx, simulate(uint64(1000+k), 5000), Options{Replicates: reps, Seed: uint64(k)})
		if err != nil {
			t.Fatal(err)
		}
		c := &e.Accuracy
		for i, v := range c.Grid {
			if v == 0 || v > c.Covered[1] {
				continue // the anchor is exact; beyond the last bin centre is extrapolation
			}
			tv := truth(v)
			pts++
			if c.Lo83[i] <= tv && tv <= c.Hi83[i] {
				in83++
			}
			if c.Lo95[i] <= tv && tv <= c.Hi95[i] {
				in95++
			}
		}
		if e.Ra.Lo83 <= truthArea && truthArea <= e.Ra.Hi83 {
			ra83++
		}
		if e.Ra.Lo95 <= truthArea && truthArea <= e.Ra.Hi95 {
			ra95++
		}
	}
	p83, p95 := float64(in83)/float64(pts), float64(in95)/float64(pts)
	r83, r95 := float64(ra83)/float64(sims), float64(ra95)/float64(sims)
	t.Logf("%d simulations × %d replicates, N = 5000: pointwise band coverage 83%%: %.3f, 95%%: %.3f; R̂a CI coverage 83%%: %.3f, 95%%: %.3f",
		sims, reps, p83, p95, r83, r95)
	if p83 < 0.70 || p95 < 0.85 || r83 < 0.65 || r95 < 0.82 {
		t.Errorf("coverage far below nominal")
	}
}

// BenchmarkFit1M is the performance target: 1,000,000 trials, 1,000 replicates.
func BenchmarkFit1M(b *testing.B) {
	s := simulate(1, 1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(context.Background(), s, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnpairedAndUnanchored: unpaired trials count for accuracy only, and a
// NaN anchor leaves the curve free at Δv = 0.
func TestUnpairedAndUnanchored(t *testing.T) {
	s := simulate(8, 6000)
	for i := range s.Trials {
		if i%3 == 0 {
			s.Trials[i].Unpaired = true
			s.Trials[i].Consistent = false // would drag consistency down if counted
		}
	}
	s.CleanConsistency = math.NaN()
	e, err := Fit(context.Background(), s, Options{Replicates: 20})
	if err != nil {
		t.Fatal(err)
	}
	na, nc := 0, 0
	for i := range e.Accuracy.Bins.N {
		na += e.Accuracy.Bins.N[i]
		nc += e.Consistency.Bins.N[i]
	}
	if na != 6000 || nc != 4000 {
		t.Errorf("accuracy trials %d (want 6000), consistency trials %d (want 4000)", na, nc)
	}
	if e.MeanConsistency < 0.8 {
		t.Errorf("mean consistency %.3f: unpaired trials were counted", e.MeanConsistency)
	}
	if e.Consistency.Covered[0] != 0.0125 || e.Consistency.Fit.Eval(0) == 1 {
		t.Errorf("unanchored: covered %v, s_p(0) = %v", e.Consistency.Covered, e.Consistency.Fit.Eval(0))
	}
}

func TestIntervalJSON(t *testing.T) {
	b, err := json.Marshal(Interval{Value: 0.5, Lo83: math.NaN(), Hi83: math.NaN(), Lo95: 0.25, Hi95: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"hi83":null,"hi95":null,"lo83":null,"lo95":0.25,"value":0.5}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// BenchmarkCompare1000: HMRI/MRSI with 1,000 paired replicates.
func BenchmarkCompare1000(b *testing.B) {
	h, _ := Fit(context.Background(), simulate(1, 8000), Options{Seed: 1})
	m, _ := Fit(context.Background(), simulate(2, 50000), Options{Seed: 2})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(m, h, CompareOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestProgress(t *testing.T) {
	var calls atomic.Int64
	var last atomic.Int64
	_, err := Fit(context.Background(), simulate(9, 2000), Options{Replicates: 30, Workers: 2, Progress: func(done, total int) {
		calls.Add(1)
		if total != 30 {
			t.Errorf("total %d", total)
		}
		if int64(done) > last.Load() {
			last.Store(int64(done))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 30 || last.Load() != 30 {
		t.Errorf("progress called %d times, last done %d", calls.Load(), last.Load())
	}
}
