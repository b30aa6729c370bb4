package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/testset"
)

// synthSet is a test set generated in the test, without images: sources
// s = 0…S−1, R rows each, σ drawn by the catalogue's own uniform sampler of
// gaussian_noise, and a known parameter → Δv relation per source,
// Δv = 1 − exp(−a_s·σ) with a_s = 1 + 0.2·s. sigma maps a row's path to
// its σ.
type synthSet struct {
	ts    *TestSet
	sigma map[string]float64
	lo    float64 // the domain's lower end
}

func slope(s int) float64 { return 1 + 0.2*float64(s) }

// newSynthSet builds the set; draw returns a row's σ (nil: uniform from
// the domain, as vcr generate's uniform sampling) and sampling names it.
func newSynthSet(t testing.TB, sources, perSource int, seed uint64, draw func(s int, rng interface{ Float64() float64 }) float64, sampling string) *synthSet {
	t.Helper()
	c, err := corrupt.Lookup("gaussian_noise")
	if err != nil {
		t.Fatal(err)
	}
	ss := &synthSet{ts: &TestSet{Dir: "synth", DVMethods: []iqa.Method{iqa.VCRPy}}, sigma: map[string]float64{}, lo: c.Params[0].Min}
	id := 0
	for r := range perSource {
		for s := range sources {
			rng := corrupt.NewRand(seed, uint64(id))
			var sigma float64
			if draw == nil {
				sigma = c.Sample(rng)[0]
			} else {
				sigma = draw(s, rng)
			}
			path := fmt.Sprintf("images/gaussian_noise/%06d.png", id)
			ss.sigma[path] = sigma
			ss.ts.Rows = append(ss.ts.Rows, &testset.Record{
				ID: id, Source: fmt.Sprintf("src%02d.png", s), SourceIndex: s, Label: "a", LabelIndex: 0, LabelName: "a",
				Corruption: "gaussian_noise", Params: fmt.Sprintf(`{"sigma":%g}`, sigma), Path: path, Sampling: sampling,
				DVs: map[iqa.Method]float64{iqa.VCRPy: 1 - math.Exp(-slope(s)*sigma)},
			})
			id++
			_ = r
		}
	}
	return ss
}

func allA(*testset.Record) (int, error) { return 0, nil }

// ksUniformMixture returns the Kolmogorov–Smirnov distance between the
// sample x and the distribution of the rejection loop for threshold tv:
// a source uniform among sources, then σ uniform on the domain [lo, hi]
// conditioned on 1 − exp(−a_s·σ) ≤ tv, i.e. uniform on [lo, min(hi, σ*_s)]
// with σ*_s = −ln(1 − tv)/a_s. The CDF is the mixture's, exactly.
func ksUniformMixture(x []float64, sources int, lo, hi, tv float64) float64 {
	cdf := func(v float64) float64 {
		var f float64
		for s := range sources {
			top := min(hi, -math.Log(1-tv)/slope(s))
			f += math.Min(1, math.Max(0, (v-lo)/(top-lo)))
		}
		return f / float64(sources)
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := float64(len(s))
	var d float64
	for i, v := range s {
		f := cdf(v)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}

// ks01 is the Kolmogorov distribution's upper 1 % point: the KS test of n
// independent draws rejects at α = 0.01 when D > ks01/√n (asymptotic,
// accurate for n ≥ 100; Smirnov 1948, K(1.6276) = 0.99).
const ks01 = 1.6276

// TestTestSetRowsFollowRejectionLoop is the distribution claim: the rows
// CheckTestSet takes for a threshold have the parameter distribution of
// Check's rejection loop (uniform draws redrawn until Δv ≤ t). The test
// set is generated here with a known σ → Δv relation, so the rejection
// loop's distribution of σ is known exactly (ksUniformMixture); the
// test set is large enough that no row is taken twice, so the taken σ are
// independent and a one-sample KS test at α = 0.01 (fixed seeds) applies.
// The same test rejects rows whose σ was drawn to make Δv uniform
// (targeted sampling): those may not be used.
func TestTestSetRowsFollowRejectionLoop(t *testing.T) {
	const sources, perSource, n, k = 10, 2000, 40, 50
	set := newSynthSet(t, sources, perSource, 7, nil, "uniform")
	c, _ := corrupt.Lookup("gaussian_noise")
	lo, hi := c.Params[0].Min, c.Params[0].Max
	req := Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0.6, TP: 0.4}
	opt := TestSetOptions{TestSet: set.ts, Truth: allA, Batches: n, BatchSize: k, Seed: 3}
	x, opt, err := prepareTestSet(req, opt)
	if err != nil {
		t.Fatal(err)
	}
	if x.plan.Pool != sources || len(x.plan.Skipped) != 0 {
		t.Fatalf("pool %d, skipped %v", x.plan.Pool, x.plan.Skipped)
	}
	sel := x.selectRows(opt.Seed, n, k)
	crit := ks01 / math.Sqrt(n*k)
	for kd, tv := range []float64{req.TC, req.TP} {
		var sig []float64
		seen := map[int]bool{}
		for b := range n {
			for j := range k {
				i := sel.rows[kd][b][j]
				if seen[i] {
					t.Fatalf("%s: row %d taken twice: the test set is too small for independent draws", kindNames[kd], i)
				}
				seen[i] = true
				r := set.ts.Rows[i]
				if r.Source != x.pool[sel.src[b][j]].name || r.DVs[iqa.VCRPy] > tv {
					t.Fatalf("%s: batch %d slot %d took row %d of %s with Δv %v", kindNames[kd], b, j, i, r.Source, r.DVs[iqa.VCRPy])
				}
				sig = append(sig, set.sigma[r.Path])
			}
		}
		d := ksUniformMixture(sig, sources, lo, hi, tv)
		t.Logf("%s (Δv ≤ %g): KS D = %.4f over %d rows, critical %.4f (α = 0.01)", kindNames[kd], tv, d, len(sig), crit)
		if d > crit {
			t.Errorf("%s: the rows' σ differ from the rejection loop's distribution: KS D = %.4f > %.4f", kindNames[kd], d, crit)
		}
	}

	// Negative control: σ drawn so that Δv is uniform on [0, 1) (what
	// targeted sampling aims at), filtered by the same rule.
	tg := newSynthSet(t, sources, perSource, 7, func(s int, rng interface{ Float64() float64 }) float64 {
		return min(hi, -math.Log(1-0.999*rng.Float64())/slope(s))
	}, "uniform") // labelled uniform so that the check takes them
	xt, _, err := prepareTestSet(req, TestSetOptions{TestSet: tg.ts, Truth: allA, Batches: n, BatchSize: k, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	st := xt.selectRows(3, n, k)
	var sig []float64
	for b := range n {
		for j := range k {
			sig = append(sig, tg.sigma[tg.ts.Rows[st.rows[kindC][b][j]].Path])
		}
	}
	if d := ksUniformMixture(sig, sources, lo, hi, req.TC); d <= crit {
		t.Errorf("Δv-uniform rows pass the KS test (D = %.4f ≤ %.4f): the test has no power", d, crit)
	} else {
		t.Logf("negative control (Δv-uniform σ): KS D = %.4f > %.4f", d, crit)
	}
}

// countingPredictor predicts the truth (class 0) for clean images, and for
// corrupted ones class 0 when Δv ≤ good, else 1; it counts every image it
// is asked for.
type countingPredictor struct {
	good  float64
	asked map[string]int
	calls int
}

func (p *countingPredictor) Predict(ctx context.Context, rows []*testset.Record, clean []bool) ([]int, error) {
	p.calls++
	out := make([]int, len(rows))
	for i, r := range rows {
		key := "corrupted " + r.Path
		if clean[i] {
			key = "clean " + r.Source
		} else if r.DVs[iqa.VCRPy] > p.good {
			out[i] = 1
		}
		p.asked[key]++
	}
	return out, nil
}

func newCounting(good float64) *countingPredictor {
	return &countingPredictor{good: good, asked: map[string]int{}}
}

func TestCheckTestSetOnceAndReproducible(t *testing.T) {
	set := newSynthSet(t, 6, 40, 1, nil, "uniform")
	req := Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0.6, TP: 0.4}
	run := func(seed uint64) (*Verdict, *countingPredictor) {
		p := newCounting(0.3)
		v, err := CheckTestSet(context.Background(), req, TestSetOptions{TestSet: set.ts, Predictor: p, Truth: allA,
			Batches: 20, BatchSize: 10, Seed: seed, ReproTolerance: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		v.Timing = Timing{}
		return v, p
	}
	a, pa := run(5)
	b, _ := run(5)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs with seed 5 differ:\n%+v\n%+v", a, b)
	}
	var ja, jb bytes.Buffer
	for _, x := range []struct {
		v *Verdict
		w *bytes.Buffer
	}{{a, &ja}, {b, &jb}} {
		r := NewCheckReport("req.json", "m", "")
		r.Add(x.v)
		if err := r.Write(x.w); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(ja.Bytes(), jb.Bytes()) {
		t.Error("the JSON reports of two runs with the same seed differ")
	}
	if c, _ := run(6); reflect.DeepEqual(a.Correctness, c.Correctness) && reflect.DeepEqual(a.Epsilon, c.Epsilon) {
		t.Error("seeds 5 and 6 give the same verdict to the last bit: the seed is not used")
	}
	// Each image once, across both runs; exactly the plan's count.
	for key, n := range pa.asked {
		if n != 1 {
			t.Errorf("%s classified %d times", key, n)
		}
	}
	if got, want := len(pa.asked), a.TestSet.CleanImages+a.TestSet.CorruptedImages; got != want {
		t.Errorf("%d images classified, the plan said %d", got, want)
	}
	if a.Repro == nil || a.Repro.Seed != 6 || a.TestSet.Runs != 2 {
		t.Errorf("repro %+v, runs %d", a.Repro, a.TestSet.Runs)
	}
	// Every correctness image with Δv ≤ 0.3 is right, every other wrong,
	// and the baseline is 1: m_tc is the share of taken rows with
	// Δv ≤ 0.3, which lies strictly between 0 and 1 here.
	if c := a.Correctness; c.Baseline != 1 || !(c.Transformed > 0 && c.Transformed < 1) || c.Images != 200 || c.Attempts != 200 {
		t.Errorf("correctness %+v", c)
	}
	if a.Draws != 0 || a.Pool != 6 || !(a.Epsilon <= req.TP) {
		t.Errorf("draws %d, pool %d, ε %v", a.Draws, a.Pool, a.Epsilon)
	}
}

// TestCheckTestSetSkipsSources: a source whose rows all lie above the
// tighter threshold leaves the pool, is named in the plan and a warning;
// a test set where every source does so is refused with the fix.
func TestCheckTestSetSkipsSources(t *testing.T) {
	set := newSynthSet(t, 4, 30, 2, nil, "uniform")
	for _, r := range set.ts.Rows {
		if r.Source == "src03.png" {
			r.DVs[iqa.VCRPy] = 0.45 // above t_p = 0.4, below t_c = 0.6
		}
		if r.Source == "src01.png" {
			r.Sampling = "targeted"
		}
	}
	// A row outside the task, and one of another corruption.
	set.ts.Rows = append(set.ts.Rows, &testset.Record{ID: 9998, Source: "other.png", Corruption: "gaussian_noise", Sampling: "uniform",
		Path: "x.png", DVs: map[iqa.Method]float64{iqa.VCRPy: 0.1}}, &testset.Record{ID: 9999, Source: "src00.png", Corruption: "brightness",
		Sampling: "uniform", Path: "y.png", DVs: map[iqa.Method]float64{iqa.VCRPy: 0.1}})
	truth := func(r *testset.Record) (int, error) {
		if r.Source == "other.png" {
			return -1, nil
		}
		return 0, nil
	}
	req := Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0.6, TP: 0.4}
	p, err := PlanTestSet(req, TestSetOptions{TestSet: set.ts, Truth: truth, Batches: 5, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows != 121 || p.NotUniform != 30 || p.OutsideTask != 1 || p.Sources != 3 || p.Pool != 2 ||
		!reflect.DeepEqual(p.Skipped, []string{"src03.png"}) || p.Preservation.Sources != 2 || p.Correctness.Sources != 3 {
		t.Errorf("plan %+v", p)
	}
	w := strings.Join(p.Warnings, "\n")
	for _, s := range []string{"src03.png", "targeted", "left out of the pool", "vcr generate"} {
		if !strings.Contains(w, s) {
			t.Errorf("warnings lack %q:\n%s", s, w)
		}
	}
	var txt bytes.Buffer
	p.WriteText(&txt)
	if !strings.Contains(txt.String(), "pool: 2 sources (1 skipped") {
		t.Errorf("plan text:\n%s", txt.String())
	}
	v, err := CheckTestSet(context.Background(), req, TestSetOptions{TestSet: set.ts, Predictor: newCounting(1), Truth: truth, Batches: 5, BatchSize: 4})
	if err != nil || v.Pool != 2 || v.Excluded != 1 || !strings.Contains(strings.Join(v.Warnings, "\n"), "src03.png") {
		t.Errorf("verdict %+v, %v", v, err)
	}

	// No source reaches the tighter threshold: refused, saying what to do.
	for _, r := range set.ts.Rows {
		r.DVs[iqa.VCRPy] = 0.5
	}
	_, err = PlanTestSet(req, TestSetOptions{TestSet: set.ts, Truth: truth})
	if err == nil || !strings.Contains(err.Error(), "no source") || !strings.Contains(err.Error(), "vcr generate") {
		t.Errorf("error %v", err)
	}
}

func TestCheckTestSetErrors(t *testing.T) {
	set := newSynthSet(t, 3, 10, 1, nil, "uniform")
	req := Requirement{Transformation: "gaussian_noise", VIFMethod: "vifvec", TC: 0.6, TP: 0.4}
	_, err := PlanTestSet(req, TestSetOptions{TestSet: set.ts, Truth: allA})
	var ce *DVColumnError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "dv_vifvec") || !strings.Contains(err.Error(), "dv, dv_vcr_py") || !strings.Contains(err.Error(), "--dv-methods vifvec") {
		t.Errorf("missing column: %v", err)
	}
	if _, err := set.ts.Column(req, "", false); !errors.As(err, &ce) {
		t.Errorf("Column: %v", err)
	}
	if col, err := set.ts.Column(req, iqa.VCRPy, true); err != nil || col != "dv_vcr_py" {
		t.Errorf("Column with override: %q, %v", col, err)
	}
	_, err = PlanTestSet(Requirement{Transformation: "frost", VIFMethod: "vcr-py", TC: 0.6, TP: 0.4}, TestSetOptions{TestSet: set.ts, Truth: allA})
	if err == nil || !strings.Contains(err.Error(), "no rows of frost") || !strings.Contains(err.Error(), "gaussian_noise") {
		t.Errorf("no rows: %v", err)
	}
	fail := predictorFunc(func(context.Context, []*testset.Record, []bool) ([]int, error) { return nil, errors.New("model gone") })
	_, err = CheckTestSet(context.Background(), Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0.9, TP: 0.9},
		TestSetOptions{TestSet: set.ts, Truth: allA, Predictor: fail, Batches: 2, BatchSize: 2})
	if err == nil || !strings.Contains(err.Error(), "model gone") {
		t.Errorf("predictor error: %v", err)
	}
}

type predictorFunc func(context.Context, []*testset.Record, []bool) ([]int, error)

func (f predictorFunc) Predict(ctx context.Context, r []*testset.Record, c []bool) ([]int, error) {
	return f(ctx, r, c)
}

// BenchmarkCheckTestSet times the default check (n = 200, k = 50, with the
// reproducibility rerun) of one requirement on a 50,000-row test set
// (1,000 sources × 50 rows) with an instant predictor: the cost of
// indexing, selection and statistics, without the model.
func BenchmarkCheckTestSet(b *testing.B) {
	set := newSynthSet(b, 1000, 50, 1, nil, "uniform")
	req := Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0.6, TP: 0.4}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckTestSet(context.Background(), req, TestSetOptions{TestSet: set.ts, Truth: allA, Predictor: newCounting(0.3),
			Seed: 1, ReproTolerance: 0.02}); err != nil {
			b.Fatal(err)
		}
	}
}
