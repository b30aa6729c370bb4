package consistency

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/stats"
)

// slowBootstrap resamples the trials one by one (the obvious version of
// bootstrap).
func slowBootstrap(a, b []bool, reps int, level float64, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	n := len(a)
	var ks []float64
	x, y := make([]bool, n), make([]bool, n)
	for range reps {
		for i := range n {
			j := rng.IntN(n)
			x[i], y[i] = a[j], b[j]
		}
		ks = append(ks, Compute(x, y).Kappa)
	}
	slices.Sort(ks)
	return stats.Quantile(ks, (1-level)/2), stats.Quantile(ks, 1-(1-level)/2)
}

// TestBootstrapMultinomial: drawing the four cell counts from their
// multinomial gives the interval of resampling trials one by one. With
// 4,000 replicates each, the 2.5% and 97.5% quantiles of kappa (its
// bootstrap SD here ≈ 0.05, so each quantile has a Monte-Carlo SE ≈ 0.002
// and their difference ≈ 0.003) agree within 0.015, about 5 SEs.
func TestBootstrapMultinomial(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	n := 200
	a, b := make([]bool, n), make([]bool, n)
	for i := range a {
		a[i] = rng.Float64() < 0.6
		b[i] = a[i]
		if rng.Float64() < 0.35 {
			b[i] = rng.Float64() < 0.5
		}
	}
	lo, hi := bootstrap(a, b, Options{Bootstrap: 4000, Level: 0.95}, 4)
	slo, shi := slowBootstrap(a, b, 4000, 0.95, 5)
	k := Compute(a, b).Kappa
	t.Logf("multinomial [%.4f, %.4f], trial by trial [%.4f, %.4f], kappa %.4f", lo, hi, slo, shi, k)
	if math.Abs(lo-slo) > 0.015 || math.Abs(hi-shi) > 0.015 || !(lo < k && k < hi) {
		t.Errorf("multinomial interval [%.4f, %.4f], trial by trial [%.4f, %.4f], kappa %.4f", lo, hi, slo, shi, k)
	}
}
