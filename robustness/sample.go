package robustness

import (
	"math"
	"math/rand/v2"
)

// binomial draws from Binomial(n, p) exactly (up to floating point): by
// inversion when n·min(p, 1−p) < 16, otherwise by Knuth's order-statistic
// recursion (TAOCP vol. 2, §3.4.1 F): the a-th smallest of n uniforms is
// Beta(a, n+1−a); those below it are Binomial(a−1, p/X) when X ≥ p, and
// otherwise a plus Binomial(n−a, (p−X)/(1−X)) lie below p.
func binomial(r *rand.Rand, n int, p float64) int {
	if n <= 0 || p <= 0 {
		return 0
	}
	if p >= 1 {
		return n
	}
	if p > 0.5 {
		return n - binomial(r, n, 1-p)
	}
	add := 0
	for float64(n)*p >= 16 {
		a := 1 + n/2
		b := n + 1 - a
		x := betaRand(r, float64(a), float64(b))
		if x >= p {
			n, p = a-1, p/x
		} else {
			add += a
			n, p = b-1, (p-x)/(1-x)
		}
		if p > 0.5 {
			return add + n - binomial(r, n, 1-p)
		}
	}
	return add + binomInv(r, n, p)
}

// binomInv is inversion by the recurrence P(k+1) = P(k)·(n−k)/(k+1)·p/q
// (Kachitvichyanukul & Schmeiser's BINV), for small n·p, p ≤ 1/2.
func binomInv(r *rand.Rand, n int, p float64) int {
	q := 1 - p
	s := p / q
	a := float64(n+1) * s
	for {
		pr := math.Pow(q, float64(n))
		u := r.Float64()
		for x := 0; x <= n; x++ {
			if u < pr {
				return x
			}
			u -= pr
			pr *= a/float64(x+1) - s
		}
		// Rounding left u above the total mass: draw again.
	}
}

// betaRand draws Beta(a, b) as G_a/(G_a + G_b).
func betaRand(r *rand.Rand, a, b float64) float64 {
	x := gammaRand(r, a)
	y := gammaRand(r, b)
	return x / (x + y)
}

// gammaRand draws Gamma(k, 1) for k ≥ 1 by Marsaglia & Tsang (2000).
func gammaRand(r *rand.Rand, k float64) float64 {
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// multinomial fills dst with a Multinomial(n, cells/Σcells) draw by
// conditional binomials: dst[i] ~ Binomial(n − Σ_{j<i} dst[j],
// cells[i]/Σ_{j≥i} cells[j]). This is the distribution of the cell counts
// when Σcells items are resampled n times with replacement.
func multinomial(r *rand.Rand, dst, cells []int, n int) {
	rest := 0
	for _, c := range cells {
		rest += c
	}
	for i, c := range cells {
		if n == 0 || c == 0 {
			dst[i] = 0
			continue
		}
		if c == rest {
			dst[i] = n
		} else {
			dst[i] = binomial(r, n, float64(c)/float64(rest))
		}
		n -= dst[i]
		rest -= c
	}
}
