package iqa_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

func ExampleScorer_Score_pixel() {
	img := testimg.Natural(64, 64, 1)
	ref := iqa.GrayFrom(img)
	// A copy with lower contrast: every grey level moved halfway to 128.
	dist := iqa.NewGray(ref.Width, ref.Height)
	for i, v := range ref.Pix {
		dist.Pix[i] = 128 + (v-128)/2
	}
	s := iqa.NewScorer(iqa.Pixel) // reuse s for many pairs: no allocations
	same, _ := s.Score(ref, ref)
	r, err := s.Score(ref, dist)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("same image: Δv = %.6f\n", same.DV)
	fmt.Printf("half contrast: VIF = %.4f, Δv = %.4f (%s)\n", r.VIF, r.DV, r.Method)
	// Output:
	// same image: Δv = 0.000000
	// half contrast: VIF = 0.8445, Δv = 0.1555 (pixel)
}
