package iqa_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// Both published wavelet flavours and the CIFAR-10 human data's 2-level
// one from one pyramid decomposition of a CIFAR-sized pair; each value is
// exactly what a Scorer of that flavour returns.
func ExampleNewMultiScorer() {
	img := testimg.Natural(32, 32, 1)
	ref := iqa.GrayFrom(img)
	dist := iqa.NewGray(ref.Width, ref.Height)
	for i, v := range ref.Pix {
		dist.Pix[i] = 128 + (v-128)/2 // half contrast
	}
	s := iqa.NewMultiScorer(iqa.VCRPy, iqa.VIFVec, iqa.VIFVec2Layers)
	rs, err := s.Score(nil, ref, dist) // pass rs[:0] next time: no allocations
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		one, _ := iqa.NewScorer(r.Method).Score(ref, dist)
		fmt.Printf("%-15s %s = %.4f on %d levels, same as Scorer: %v\n", r.Method, iqa.DVColumn(r.Method), r.DV, r.Levels, one == r)
	}
	// Output:
	// vcr-py          dv_vcr_py = 0.2388 on 2 levels, same as Scorer: true
	// vifvec          dv_vifvec = 0.3132 on 2 levels, same as Scorer: true
	// vifvec2-layers  dv_vifvec2_layers = 0.3132 on 2 levels, same as Scorer: true
}
