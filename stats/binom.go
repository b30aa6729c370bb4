package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// binomLogPMF returns log P(X = i) for X ~ Binomial(n, p), computed in log
// space (log-gamma) so that it neither overflows nor underflows for large n.
func binomLogPMF(i, n int, p float64) float64 {
	if i < 0 || i > n {
		return math.Inf(-1)
	}
	switch {
	case p == 0:
		if i == 0 {
			return 0
		}
		return math.Inf(-1)
	case p == 1:
		if i == n {
			return 0
		}
		return math.Inf(-1)
	}
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(i + 1))
	c, _ := math.Lgamma(float64(n - i + 1))
	return a - b - c + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p)
}

// binomPMF returns P(X = i) for X ~ Binomial(n, p).
func binomPMF(i, n int, p float64) float64 { return math.Exp(binomLogPMF(i, n, p)) }

// binomRange returns P(lo ≤ X ≤ hi), summing the pmf (empty range: 0).
func binomRange(lo, hi, n int, p float64) float64 {
	lo, hi = max(lo, 0), min(hi, n)
	s := 0.0
	for i := lo; i <= hi; i++ {
		s += binomPMF(i, n, p)
	}
	return s
}

// BinomTest returns the p-value of R's two-sided exact binomial test
// binom.test(x, n, p) (requirements-method.md §A.5): with d = P(X = x) and
// m = n·p, p = 1 when x = m; otherwise the probability of x's tail plus
// that of every outcome on the other side of m whose probability is at
// most d·(1 + 1e-7), capped at 1.
func BinomTest(x, n int, p float64) (float64, error) {
	switch {
	case n < 1:
		return 0, fmt.Errorf("binomial test: n = %d trials, need at least 1", n)
	case x < 0 || x > n:
		return 0, fmt.Errorf("binomial test: %d successes out of %d trials", x, n)
	case !(p >= 0 && p <= 1):
		return 0, fmt.Errorf("binomial test: probability %v not in [0, 1]", p)
	}
	const relErr = 1 + 1e-7
	d := binomPMF(x, n, p)
	m := float64(n) * p
	xf := float64(x)
	var pv float64
	switch {
	case xf == m:
		return 1, nil
	case xf < m:
		y := 0
		for i := int(math.Ceil(m)); i <= n; i++ {
			if binomPMF(i, n, p) <= d*relErr {
				y++
			}
		}
		pv = binomRange(0, x, n, p) + binomRange(n-y+1, n, n, p)
	default:
		y := 0
		for i := 0; i <= int(math.Floor(m)); i++ {
			if binomPMF(i, n, p) <= d*relErr {
				y++
			}
		}
		pv = binomRange(0, y-1, n, p) + binomRange(x, n, n, p)
	}
	return min(1, pv), nil
}

// BinomGreater returns the p-value of the one-sided exact binomial test of
// k successes in n trials against success probability p0, alternative
// "greater": P(X ≥ k) for X ~ Binomial(n, p0), computed as the regularised
// incomplete beta function I_p0(k, n−k+1) (R: binom.test(k, n, p0,
// alternative = "greater")$p.value). It is 1 for k = 0 and panics for
// k < 0, k > n or p0 outside [0, 1].
func BinomGreater(k, n int, p0 float64) float64 {
	if k < 0 || k > n || !(p0 >= 0 && p0 <= 1) {
		panic(fmt.Sprintf("stats: BinomGreater(%d, %d, %v) out of range", k, n, p0))
	}
	if k == 0 {
		return 1
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p0)
}
