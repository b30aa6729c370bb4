package testset

import "fmt"

// Coverage of the Δv range, as defined in the VCR study's Table 2: [0, 1]
// split into Bins equal bins; a bin is covered when it holds at least
// MinPerBin images; coverage = covered bins / Bins.
type Coverage struct {
	Bins      int     `json:"bins"`
	MinPerBin int     `json:"min_per_bin"`
	Counts    []int   `json:"counts"`
	Covered   int     `json:"covered"`
	Fraction  float64 `json:"coverage"`
	N         int     `json:"n"`
}

// DefaultBins and DefaultMinPerBin are the VCR study's settings.
const (
	DefaultBins      = 40
	DefaultMinPerBin = 20
)

// BinIndex returns the bin of dv among bins equal bins of [0, 1]: bin k
// holds [k/bins, (k+1)/bins), and the last bin also holds dv = 1. It panics
// if dv is outside [0, 1] or NaN.
func BinIndex(dv float64, bins int) int {
	if !(dv >= 0 && dv <= 1) {
		panic(fmt.Sprintf("testset: Δv %v outside [0, 1]", dv))
	}
	k := int(dv * float64(bins))
	if k == bins {
		k--
	}
	return k
}

// ComputeCoverage bins the Δv values. It panics if bins or minPerBin is not
// positive.
func ComputeCoverage(dvs []float64, bins, minPerBin int) Coverage {
	if bins <= 0 || minPerBin <= 0 {
		panic("testset: bins and minPerBin must be positive")
	}
	c := Coverage{Bins: bins, MinPerBin: minPerBin, Counts: make([]int, bins), N: len(dvs)}
	for _, v := range dvs {
		c.Counts[BinIndex(v, bins)]++
	}
	for _, n := range c.Counts {
		if n >= minPerBin {
			c.Covered++
		}
	}
	c.Fraction = float64(c.Covered) / float64(bins)
	return c
}
