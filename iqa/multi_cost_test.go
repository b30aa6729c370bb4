package iqa

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/internal/testimg"
)

var multiCost = flag.Bool("multicost", false, "measure the cost of several wavelet flavours against one (TestMultiCost; slow, prints a table)")

// TestMultiCost (run with -multicost) measures what computing several
// wavelet flavours from one pyramid costs over one flavour, for a 32×32 and
// a 224×224 pair: the configurations run interleaved, 60 rounds of a few
// pairs each, and the fastest round of each is reported. On a shared
// machine the minimum is far steadier than the mean or median
// (docs/performance.md).
func TestMultiCost(t *testing.T) {
	if !*multiCost {
		t.Skip("run with -multicost")
	}
	for _, n := range []int{32, 224} {
		m := testimg.Natural(n, n, 1)
		ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
		cfgs := [][]Method{{VCRPy}, {VIFVec}, {VCRPy, VIFVec}, {VCRPy, VIFVec, VIFVec2Layers}}
		best := make([]time.Duration, len(cfgs))
		scs := make([]*MultiScorer, len(cfgs))
		for i, c := range cfgs {
			scs[i] = NewMultiScorer(c...)
			best[i] = time.Hour
		}
		var buf []Result
		reps := 10
		if n == 32 {
			reps = 200
		}
		for round := 0; round < 60; round++ {
			for i := range cfgs {
				t0 := time.Now()
				for range reps {
					buf, _ = scs[i].Score(buf[:0], ref, dist)
				}
				if d := time.Since(t0) / time.Duration(reps); d < best[i] {
					best[i] = d
				}
			}
		}
		for i, c := range cfgs {
			fmt.Printf("%d×%d %-34v fastest round %9v per pair, %.2f× one flavour\n", n, n, fmt.Sprint(c), best[i].Round(100*time.Nanosecond), float64(best[i])/float64(best[0]))
		}
	}
}
