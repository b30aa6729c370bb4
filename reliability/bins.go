package reliability

import (
	"math"
	"slices"

	"github.com/vcr-bench/vcr/robustness"
)

// binLabel returns the Δv label of the 0.01-wide bin (j − 0.01, j] holding
// dv: its upper edge j (0 for dv = 0). A tolerance of 1e-9 keeps values
// that are printed as a bin edge (0.07, stored as 0.07000000000000001·100)
// in their own bin.
func binLabel(dv float64) float64 {
	j := math.Ceil(dv*100 - 1e-9)
	return math.Max(0, j) / 100
}

// FromICSECounts turns per-bin counts read by human.ReadICSEBins (X = bin
// centre, label − 0.005) back into the study's bins labelled by their upper
// edge, the values the published files hold.
func FromICSECounts(c robustness.Counts) Bins {
	b := Bins{X: make([]float64, 0, len(c.X)), N: make([]int, 0, len(c.X)), C: make([]int, 0, len(c.X))}
	for i, x := range c.X {
		if c.N[i] == 0 {
			continue
		}
		b.X = append(b.X, math.Round((x+0.005)*100)/100)
		b.N = append(b.N, c.N[i])
		b.C = append(b.C, c.K[i])
	}
	return b
}

// binTrials bins trials into 0.01-wide Δv bins labelled by their upper
// edge and keeps the bins with more than MinTrialsPerBin trials (§A.1).
func binTrials(dv []float64, ok []bool) Bins {
	n := map[float64]int{}
	c := map[float64]int{}
	var labels []float64
	for i, v := range dv {
		l := binLabel(v)
		if n[l] == 0 {
			labels = append(labels, l)
		}
		n[l]++
		if ok[i] {
			c[l]++
		}
	}
	slices.Sort(labels)
	var b Bins
	for _, l := range labels {
		if n[l] > MinTrialsPerBin {
			b.X = append(b.X, l)
			b.N = append(b.N, n[l])
			b.C = append(b.C, c[l])
		}
	}
	return b
}

// FromTrials bins the project's own human trials (one corruption) as the
// study did: correctness over all trials, preservation over the trials
// with a judged original (Unpaired false); 0.01-wide bins labelled by
// their upper edge, bins with at most MinTrialsPerBin trials dropped.
func FromTrials(trials []robustness.Trial) HumanBins {
	var dvA, dvP []float64
	var okA, okP []bool
	for _, t := range trials {
		dvA = append(dvA, t.DV)
		okA = append(okA, t.Correct)
		if !t.Unpaired {
			dvP = append(dvP, t.DV)
			okP = append(okP, t.Consistent)
		}
	}
	return HumanBins{Correctness: binTrials(dvA, okA), Preservation: binTrials(dvP, okP)}
}
