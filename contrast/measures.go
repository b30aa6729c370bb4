package contrast

import (
	"math"
	"slices"

	"github.com/vcr-bench/vcr/stats"
)

var nan = math.NaN()

// OLS returns the slope and intercept of the ordinary least-squares line
// through (x[i], y[i]), unweighted. It returns NaNs when fewer than two
// distinct x are given. It panics if the lengths differ.
func OLS(x, y []float64) (slope, intercept float64) {
	if len(x) != len(y) {
		panic("contrast: OLS: lengths differ")
	}
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	if len(x) < 2 || sxx == 0 {
		return nan, nan
	}
	slope = sxy / sxx
	return slope, my - slope*mx
}

// GroupSlope returns the slope and intercept of the regression of the
// ordered groups' accuracies on the group index (low = 0 … high = 3), as
// the CIFAR-CoCo study defines the dependence on contrast: OLS, one point
// per group, unweighted (contrast.md does not weight it). acc holds one
// accuracy per Groups entry, NaN for a group without images, which is left
// out. It returns NaNs when fewer than two groups have images.
func GroupSlope(acc []float64) (slope, intercept float64) {
	if len(acc) != len(Groups) {
		panic("contrast: GroupSlope: need one accuracy per ordered group")
	}
	var x, y []float64
	for i, a := range acc {
		if !math.IsNaN(a) {
			x = append(x, float64(i))
			y = append(y, a)
		}
	}
	return OLS(x, y)
}

// WeightedStd returns the weighted standard deviation of x with weights w
// as contrast.md states it:
//
//	sqrt( Σ wᵢ (xᵢ − x̄_w)² / ( ((M' − 1)/M') · Σ wᵢ ) )
//
// with x̄_w = Σ wᵢxᵢ / Σ wᵢ and M' the number of non-zero weights. Entries
// with zero weight (or NaN x with zero weight) are left out. It returns
// NaN when M' < 2. It panics if the lengths differ or a weight is negative.
func WeightedStd(x, w []float64) float64 {
	if len(x) != len(w) {
		panic("contrast: WeightedStd: lengths differ")
	}
	var sw, swx float64
	m := 0
	for i := range x {
		if w[i] < 0 {
			panic("contrast: WeightedStd: negative weight")
		}
		if w[i] == 0 {
			continue
		}
		m++
		sw += w[i]
		swx += w[i] * x[i]
	}
	if m < 2 {
		return nan
	}
	mean := swx / sw
	var ss float64
	for i := range x {
		if w[i] > 0 {
			ss += w[i] * (x[i] - mean) * (x[i] - mean)
		}
	}
	mp := float64(m)
	return math.Sqrt(ss / ((mp - 1) / mp * sw))
}

// percentileCI returns the type-7 2.5 % and 97.5 % quantiles of v,
// ignoring NaNs; NaNs when none remain.
func percentileCI(v []float64) (lo, hi float64) {
	s := slices.DeleteFunc(slices.Clone(v), math.IsNaN)
	slices.Sort(s)
	return stats.Quantile(s, 0.025), stats.Quantile(s, 0.975)
}
