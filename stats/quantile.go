package stats

import "math"

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of the sorted values s by
// linear interpolation between order statistics, type 7 of Hyndman & Fan
// (R's quantile default, numpy's "linear"): with h = p·(n−1), s[⌊h⌋] +
// (h−⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋]). It is NaN for an empty s. s must be sorted
// ascending; NaNs must be removed first.
//
// (package spline keeps a copy written as R computes it, (1−h)·s[lo] +
// h·s[hi], which differs in the last bits, because it reproduces R's
// smooth.spline bit for bit.)
func Quantile(s []float64, p float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}
