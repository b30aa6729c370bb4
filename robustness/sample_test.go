package robustness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// binomPMF is the exact Binomial(n, p) probability mass via log-gamma.
func binomPMF(n, k int, p float64) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	return math.Exp(lg(float64(n+1)) - lg(float64(k+1)) - lg(float64(n-k+1)) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// TestBinomialChiSquare checks the sampler against the exact pmf with a
// chi-square goodness-of-fit test on 40,000 draws (cells with expectation
// < 5 pooled). Cases cover inversion (n·p < 16), Knuth's recursion and
// the p > ½ reflection.
func TestBinomialChiSquare(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		n int
		p float64
	}{{10, 0.3}, {60, 0.1}, {100, 0.5}, {1000, 0.37}, {5000, 0.93}, {1_000_000, 0.012}} {
		const draws = 40000
		hist := map[int]int{}
		for range draws {
			hist[binomial(r, tc.n, tc.p)]++
		}
		// Pool into cells of expectation ≥ 5 over the plausible range.
		mu := float64(tc.n) * tc.p
		sd := math.Sqrt(mu * (1 - tc.p))
		lo, hi := max(0, int(mu-8*sd)), min(tc.n, int(mu+8*sd)+1)
		chi, df := 0.0, -1
		obs, exp := 0.0, 0.0
		for k := lo; k <= hi; k++ {
			obs += float64(hist[k])
			exp += draws * binomPMF(tc.n, k, tc.p)
			if exp >= 5 || k == hi {
				chi += (obs - exp) * (obs - exp) / math.Max(exp, 1e-9)
				df++
				obs, exp = 0, 0
			}
		}
		// χ² critical value at 0.1 % for df degrees of freedom
		// (Wilson–Hilferty approximation).
		z := 3.09
		crit := float64(df) * math.Pow(1-2/(9*float64(df))+z*math.Sqrt(2/(9*float64(df))), 3)
		if chi > crit {
			t.Errorf("Binomial(%d, %v): χ² = %.1f on %d df > %.1f", tc.n, tc.p, chi, df, crit)
		}
	}
}

// TestMultinomialMoments checks E[dst_i] = n·p_i and Var = n·p_i(1 − p_i),
// Cov(dst_i, dst_j) = −n·p_i·p_j, against the row-by-row resampling law.
func TestMultinomialMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cells := []int{5, 0, 120, 37, 1, 800, 37}
	n := 1000
	tot := 0
	for _, c := range cells {
		tot += c
	}
	const reps = 20000
	k := len(cells)
	sum := make([]float64, k)
	sq := make([]float64, k)
	cross := 0.0 // cells 2 and 5
	dst := make([]int, k)
	for range reps {
		multinomial(r, dst, cells, n)
		s := 0
		for i, v := range dst {
			sum[i] += float64(v)
			sq[i] += float64(v * v)
			s += v
		}
		if s != n {
			t.Fatalf("draw sums to %d, want %d", s, n)
		}
		cross += float64(dst[2] * dst[5])
	}
	for i, c := range cells {
		p := float64(c) / float64(tot)
		m := sum[i] / reps
		v := sq[i]/reps - m*m
		wantV := float64(n) * p * (1 - p)
		if se := math.Sqrt(wantV / reps); math.Abs(m-float64(n)*p) > 5*se+1e-12 {
			t.Errorf("cell %d: mean %.3f, want %.3f", i, m, float64(n)*p)
		}
		if math.Abs(v-wantV) > 0.05*wantV+1e-12 {
			t.Errorf("cell %d: variance %.3f, want %.3f", i, v, wantV)
		}
	}
	p2, p5 := float64(cells[2])/float64(tot), float64(cells[5])/float64(tot)
	cov := cross/reps - sum[2]/reps*sum[5]/reps
	if want := -float64(n) * p2 * p5; math.Abs(cov-want) > 0.07*math.Abs(want) {
		t.Errorf("covariance %.3f, want %.3f", cov, want)
	}
}
