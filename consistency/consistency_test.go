package consistency_test

import (
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/consistency"
	"github.com/vcr-bench/vcr/human"
)

func TestComputeHand(t *testing.T) {
	T, F := true, false
	for _, tc := range []struct {
		name                    string
		a, b                    []bool
		obs, exp, kappa, pa, pb float64
	}{
		// Identical observers: c_obs = 1, so kappa = 1 (c_exp = .75² + .25² = .625).
		{"identical", []bool{T, F, T, T}, []bool{T, F, T, T}, 1, 0.625, 1, 0.75, 0.75},
		// Always opposite: p1 = .75, p2 = .25, c_exp = 2·.75·.25 = .375,
		// c_obs = 0, kappa = −.375/.625 = −0.6.
		{"opposite", []bool{T, T, T, F}, []bool{F, F, F, T}, 0, 0.375, -0.6, 0.75, 0.25},
		// Half agree at chance: p1 = p2 = .5, c_exp = .5, c_obs = .5, kappa = 0.
		{"chance", []bool{T, T, F, F}, []bool{T, F, T, F}, 0.5, 0.5, 0, 0.5, 0.5},
		// c_exp = 1: both always right, or both always wrong: kappa = 1.
		{"all right", []bool{T, T}, []bool{T, T}, 1, 1, 1, 1, 1},
		{"all wrong", []bool{F, F}, []bool{F, F}, 1, 1, 1, 0, 0},
		// One always right, one always wrong: c_exp = 0, c_obs = 0, kappa = 0.
		{"right vs wrong", []bool{T, T}, []bool{F, F}, 0, 0, 0, 1, 0},
		// p1 = 2/3, p2 = 1/3: c_exp = 4/9, c_obs = 2/3 (trials 1 and 3...
		// agree on trials 2 and 3), kappa = (6/9 − 4/9)/(5/9) = 0.4.
		{"thirds", []bool{T, T, F}, []bool{F, T, F}, 2.0 / 3, 4.0 / 9, 0.4, 2.0 / 3, 1.0 / 3},
	} {
		s := consistency.Compute(tc.a, tc.b)
		if s.N != len(tc.a) || math.Abs(s.Observed-tc.obs) > 1e-15 || math.Abs(s.Expected-tc.exp) > 1e-15 ||
			math.Abs(s.Kappa-tc.kappa) > 1e-15 || s.AccuracyA != tc.pa || math.Abs(s.AccuracyB-tc.pb) > 1e-15 {
			t.Errorf("%s: got %+v, want c_obs %v c_exp %v kappa %v p %v %v", tc.name, s, tc.obs, tc.exp, tc.kappa, tc.pa, tc.pb)
		}
	}
	if s := consistency.Compute(nil, nil); s.N != 0 || !math.IsNaN(s.Kappa) {
		t.Errorf("no trials: %+v, want NaN kappa", s)
	}
}

// TestComputeIndependent: two observers answering independently (right with
// probabilities .7 and .6) over 200,000 trials have kappa ≈ 0; its standard
// error is about 1/√n ≈ 0.0022, so |kappa| < 0.01 is a 4.5-SE bound.
func TestComputeIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	n := 200000
	a, b := make([]bool, n), make([]bool, n)
	for i := range a {
		a[i], b[i] = rng.Float64() < 0.7, rng.Float64() < 0.6
	}
	s := consistency.Compute(a, b)
	if math.Abs(s.Kappa) > 0.01 {
		t.Errorf("independent observers: kappa %v, want ≈ 0", s.Kappa)
	}
	// c_exp = .7·.6 + .3·.4 = .54 up to the sampling error of the accuracies.
	if math.Abs(s.Expected-0.54) > 0.005 {
		t.Errorf("independent observers: c_exp %v, want ≈ 0.54", s.Expected)
	}
}

// TestReferenceContrast reproduces, to 1e-12, what model-vs-human's analysis
// code gives on its contrast data (testdata/model-vs-human/ORIGIN.md):
// per condition, every subject's 16-class accuracy and, per pair, the
// expected and observed consistency and kappa, with trials matched by
// human.ShortImageName within the condition.
func TestReferenceContrast(t *testing.T) {
	dir := filepath.Join("testdata", "model-vs-human")
	var obs []consistency.Observer
	acc := map[[2]string][2]int{} // (subject, condition) → (right, n)
	files, _ := filepath.Glob(filepath.Join(dir, "contrast", "*.csv"))
	if len(files) != 4 {
		t.Fatalf("%d contrast files, want 4", len(files))
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		trials, err := human.ReadMVH(fh, f)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		o := consistency.Observer{Name: trials[0].Subject, Human: true}
		for _, x := range trials {
			o.Trials = append(o.Trials, consistency.Trial{Stimulus: x.Condition + "/" + human.ShortImageName(x.ImageName),
				Corruption: x.Condition, Correct: x.Correct()})
			k := [2]string{x.Subject, x.Condition}
			c := acc[k]
			c[1]++
			if x.Correct() {
				c[0]++
			}
			acc[k] = c
		}
		obs = append(obs, o)
	}
	res, err := consistency.Compare(context.Background(), obs, consistency.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[[3]string]consistency.Row{}
	for _, r := range res.Rows {
		rows[[3]string{r.Corruption, r.A, r.B}] = r
	}
	fh, err := os.Open(filepath.Join(dir, "reference-contrast.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	ref, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("reference value %q: %v", s, err)
		}
		return v
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: got %.17g, want %.17g (diff %.3g)", what, got, want, got-want)
		}
	}
	pairs, accs := 0, 0
	for _, r := range ref[1:] {
		cond, kind, sa, sb, n := r[1], r[2], r[3], r[4], int(num(r[5]))
		switch kind {
		case "accuracy":
			c := acc[[2]string{sa, cond}]
			if c[1] != n {
				t.Errorf("%s %s: %d trials, want %d", cond, sa, c[1], n)
			}
			near(cond+" "+sa+" accuracy", float64(c[0])/float64(c[1]), num(r[6]))
			accs++
		case "error_consistency":
			got, ok := rows[[3]string{cond, sa, sb}]
			if !ok {
				t.Errorf("no row for %s %s–%s", cond, sa, sb)
				continue
			}
			if got.N != n {
				t.Errorf("%s %s–%s: n %d, want %d", cond, sa, sb, got.N, n)
			}
			what := cond + " " + sa + "–" + sb
			near(what+" expected", got.Expected, num(r[8]))
			near(what+" observed", got.Observed, num(r[9]))
			near(what+" kappa", got.Kappa, num(r[10]))
			pairs++
		}
	}
	if pairs != 48 || accs != 32 {
		t.Errorf("checked %d pairs and %d accuracies, want 48 and 32", pairs, accs)
	}
	// The ceiling is the mean over the 6 pairs, per condition.
	for _, m := range res.Ceiling {
		if m.Pairs != 6 || m.Bin != consistency.AllDV {
			t.Errorf("ceiling %+v, want 6 pairs over all Δv", m)
		}
	}
	if len(res.Ceiling) != 8 {
		t.Errorf("%d ceiling entries, want 8 conditions", len(res.Ceiling))
	}
}

// TestCompareBinsBootstrap checks the pairing, the Δv bins, the kinds and
// that the bootstrap is reproducible under a seed.
func TestCompareBinsBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var m, h1, h2 consistency.Observer
	m.Name, h1.Name, h2.Name = "resnet", "human:1", "human:2"
	h1.Human, h2.Human = true, true
	for i := range 400 {
		st := "s" + strconv.Itoa(i)
		dv := float64(i) / 399 // 0 … 1: the last trial lies on the closed end
		right := rng.Float64() < 1-dv
		m.Trials = append(m.Trials, consistency.Trial{Stimulus: st, Corruption: "blur", DV: dv, Correct: right})
		if i%2 == 0 { // human 1 sees the even stimuli, agrees with the model
			h1.Trials = append(h1.Trials, consistency.Trial{Stimulus: st, Corruption: "blur", DV: dv, Correct: right})
		}
		if i < 300 { // human 2 sees the first 300, always opposite
			h2.Trials = append(h2.Trials, consistency.Trial{Stimulus: st, Corruption: "blur", DV: dv, Correct: !right})
		}
	}
	opt := consistency.Options{Bins: 5, Bootstrap: 200, Seed: 9}
	res, err := consistency.Compare(context.Background(), []consistency.Observer{h1, m, h2}, opt)
	if err != nil {
		t.Fatal(err)
	}
	find := func(a, b, bin string) consistency.Row {
		for _, r := range res.Rows {
			if r.A == a && r.B == b && r.Bin == bin {
				return r
			}
		}
		t.Fatalf("no row %s %s %s in %v", a, b, bin, res.Rows)
		return consistency.Row{}
	}
	r := find("resnet", "human:1", consistency.AllDV)
	if r.Kind != "model-human" || r.N != 200 || r.Kappa != 1 || r.Lo != 1 || r.Hi != 1 {
		t.Errorf("model vs agreeing human: %+v", r)
	}
	r = find("resnet", "human:2", consistency.AllDV)
	if r.N != 300 || !(r.Kappa < 0) || !(r.Lo <= r.Kappa && r.Kappa <= r.Hi) {
		t.Errorf("model vs opposite human: %+v", r)
	}
	// Always opposite: kappa = −c_exp/(1 − c_exp) = −2p(1−p)/(1 − 2p(1−p)).
	if q := 2 * r.AccuracyA * r.AccuracyB; math.Abs(r.Kappa-(-q/(1-q))) > 1e-12 {
		t.Errorf("opposite kappa %v, want %v", r.Kappa, -q/(1-q))
	}
	// The shared trials of the two humans are the even ones below 300.
	if r := find("human:1", "human:2", consistency.AllDV); r.Kind != "human-human" || r.N != 150 {
		t.Errorf("human pair: %+v", r)
	}
	// Bins of width 0.2: i/399 ∈ [0.8, 1] for i ≥ 320 (80 trials, Δv = 1 included).
	if r := find("resnet", "human:1", "0.8-1"); r.N != 40 {
		t.Errorf("last bin of the model–human:1 pair: n %d, want 40", r.N)
	}
	if len(res.Ceiling) != 1+4 || res.Ceiling[0].Pairs != 1 { // human:2 saw no Δv ≥ 0.8
		t.Errorf("ceiling %+v", res.Ceiling)
	}
	again, _ := consistency.Compare(context.Background(), []consistency.Observer{h1, m, h2}, opt)
	for i := range res.Rows {
		if a, b := res.Rows[i], again.Rows[i]; a.Lo != b.Lo || a.Hi != b.Hi {
			t.Fatalf("bootstrap not reproducible: %+v vs %+v", a, b)
		}
	}
	opt.Seed = 10
	other, _ := consistency.Compare(context.Background(), []consistency.Observer{h1, m, h2}, opt)
	same := true
	for i := range res.Rows {
		same = same && res.Rows[i].Lo == other.Rows[i].Lo
	}
	if same {
		t.Error("another seed gave the same intervals")
	}
	if _, err := consistency.Compare(context.Background(), []consistency.Observer{{Name: "x", Trials: []consistency.Trial{{Stimulus: "a"}, {Stimulus: "a"}}}}, opt); err == nil {
		t.Error("a stimulus judged twice was accepted")
	}
}
