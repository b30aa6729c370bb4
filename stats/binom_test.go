package stats

import (
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// refBinomTest is the two-sided minimum-likelihood p-value written straight
// from its definition with exact rational arithmetic: the total probability
// of all outcomes i with P(X = i) ≤ P(X = x)·(1 + 1e-7).
func refBinomTest(x, n int, p *big.Rat) float64 {
	q := new(big.Rat).Sub(big.NewRat(1, 1), p)
	pmf := make([]*big.Rat, n+1)
	for i := 0; i <= n; i++ {
		c := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(i)))
		for range i {
			c.Mul(c, p)
		}
		for range n - i {
			c.Mul(c, q)
		}
		pmf[i] = c
	}
	lim := new(big.Rat).Mul(pmf[x], new(big.Rat).SetFloat64(1+1e-7))
	s := new(big.Rat)
	for i := 0; i <= n; i++ {
		if pmf[i].Cmp(lim) <= 0 {
			s.Add(s, pmf[i])
		}
	}
	f, _ := s.Float64()
	return math.Min(1, f)
}

func TestBinomTestKnown(t *testing.T) {
	// binom.test(7, 20, 0.5): 2·P(X ≤ 7) = 2·137980/2^20 (sum of C(20, 0..7)).
	got, err := BinomTest(7, 20, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 137980.0 / 1048576; math.Abs(got-want) > 1e-14 {
		t.Errorf("binom.test(7, 20, 0.5) = %.15g, want %.15g", got, want)
	}
	if math.Abs(got-0.2632) > 5e-5 {
		t.Errorf("binom.test(7, 20, 0.5) = %.6f, R prints 0.2632", got)
	}
	// x = n·p exactly: p = 1.
	if got, _ := BinomTest(10, 20, 0.5); got != 1 {
		t.Errorf("binom.test(10, 20, 0.5) = %v, want 1", got)
	}
	// Hand-derived: n = 3, p = 0.25, x = 3. pmf = 27/64, 27/64, 9/64, 1/64;
	// only x = 3 has pmf ≤ 1/64, so p = 1/64.
	if got, _ := BinomTest(3, 3, 0.25); math.Abs(got-1.0/64) > 1e-15 {
		t.Errorf("binom.test(3, 3, 0.25) = %v, want 1/64", got)
	}
	// x = 2: pmf 9/64 → outcomes 2 and 3: 10/64.
	if got, _ := BinomTest(2, 3, 0.25); math.Abs(got-10.0/64) > 1e-15 {
		t.Errorf("binom.test(2, 3, 0.25) = %v, want 10/64", got)
	}
	// x = 0 (below m = 0.75): pmf 27/64 equals pmf(1) → every outcome: 1.
	if got, _ := BinomTest(0, 3, 0.25); math.Abs(got-1) > 1e-15 {
		t.Errorf("binom.test(0, 3, 0.25) = %v, want 1", got)
	}
}

func TestBinomTestAgainstEnumeration(t *testing.T) {
	ps := []*big.Rat{big.NewRat(1, 2), big.NewRat(3, 10), big.NewRat(97, 100), big.NewRat(967, 1000), big.NewRat(1, 7)}
	for _, pr := range ps {
		pf, _ := pr.Float64()
		for _, n := range []int{1, 2, 5, 11, 20, 37, 60} {
			for x := 0; x <= n; x++ {
				got, err := BinomTest(x, n, pf)
				if err != nil {
					t.Fatal(err)
				}
				want := refBinomTest(x, n, pr)
				if math.Abs(got-want) > 1e-12*math.Max(1, want) && math.Abs(got-want) > 1e-300 {
					t.Errorf("binom.test(%d, %d, %v) = %.15g, enumeration %.15g", x, n, pf, got, want)
				}
			}
		}
	}
}

func TestBinomTestLargeN(t *testing.T) {
	// Log-space pmf: no overflow for n in the thousands; p-value in [0, 1]
	// and symmetric for p = 1/2.
	a, err1 := BinomTest(4800, 10000, 0.5)
	b, err2 := BinomTest(5200, 10000, 0.5)
	if err1 != nil || err2 != nil || !(a > 0 && a < 1) || math.Abs(a-b) > 1e-12 {
		t.Errorf("n = 10000: %v %v (%v, %v)", a, b, err1, err2)
	}
}

func TestBinomTestErrors(t *testing.T) {
	for _, c := range []struct {
		x, n int
		p    float64
	}{{-1, 5, 0.5}, {6, 5, 0.5}, {0, 0, 0.5}, {1, 5, math.NaN()}, {1, 5, 1.5}} {
		if _, err := BinomTest(c.x, c.n, c.p); err == nil {
			t.Errorf("BinomTest(%d, %d, %v): no error", c.x, c.n, c.p)
		}
	}
}

func TestBinomGreater(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		p0   float64
		want float64
		tol  float64
	}{
		// R 4.x: binom.test(15, 20, 0.5, alternative = "greater")$p.value.
		{15, 20, 0.5, 0.02069473, 5e-9},
		// Exact: P(X = 10 | n = 10) = 1/1024; P(X ≥ 5 | n = 10) = 638/1024.
		{10, 10, 0.5, 1.0 / 1024, 1e-15},
		{5, 10, 0.5, 638.0 / 1024, 1e-14},
		{1, 1, 0.5, 0.5, 1e-15},
		{0, 7, 0.5, 1, 0},
		// Exact: Σ_{k=3..5} C(5,k) 0.3^k 0.7^(5−k) = 0.1323 + 0.02835 + 0.00243.
		{3, 5, 0.3, 0.16308, 1e-12},
	} {
		if got := BinomGreater(tc.k, tc.n, tc.p0); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("BinomGreater(%d, %d, %v) = %.10g, want %.10g", tc.k, tc.n, tc.p0, got, tc.want)
		}
	}
	// Agrees with gonum's binomial distribution: P(X ≥ k) = Survival(k − 1).
	for n := 1; n <= 60; n += 7 {
		b := distuv.Binomial{N: float64(n), P: 0.5}
		for k := 1; k <= n; k++ {
			want := b.Survival(float64(k - 1))
			if got := BinomGreater(k, n, 0.5); math.Abs(got-want) > 1e-12 {
				t.Errorf("BinomGreater(%d, %d) = %v, distuv says %v", k, n, got, want)
			}
		}
	}
}

// TestQuantile: type-7 quantiles of known samples (numpy.quantile and R's
// quantile give the same values).
func TestQuantile(t *testing.T) {
	s := []float64{1, 1, 3, 4, 5}
	for _, c := range []struct{ p, want float64 }{
		// numpy.quantile([3, 1, 4, 1, 5], q): 1.0, 3.0, 4.6, 5.0, 1.0.
		{0.1, 1}, {0.5, 3}, {0.9, 4.6}, {1, 5}, {0, 1},
		// h = 0.25·4 = 1 → s[1]; h = 0.3·4 = 1.2 → 1 + 0.2·2.
		{0.25, 1}, {0.3, 1.4},
	} {
		if g := Quantile(s, c.p); math.Abs(g-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, g, c.want)
		}
	}
	if g := Quantile(nil, 0.5); !math.IsNaN(g) {
		t.Errorf("Quantile(nil) = %v, want NaN", g)
	}
}
