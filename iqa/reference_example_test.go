package iqa_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// One reference scored against several contrast reductions: the reference's
// pyramid and subband statistics are computed once by Prepare, and each
// ScoreRef returns exactly what Score returns for that pair.
func ExampleScorer_Prepare() {
	ref := iqa.GrayFrom(testimg.Natural(64, 48, 1))
	s := iqa.NewScorer(iqa.VCRPy)
	r, err := s.Prepare(ref)
	if err != nil {
		fmt.Println(err)
		return
	}
	dist := iqa.NewGray(ref.Width, ref.Height)
	for _, k := range []float64{1, 0.75, 0.5, 0.25} {
		for i, v := range ref.Pix {
			dist.Pix[i] = 128 + (v-128)*k // contrast k
		}
		res, err := s.ScoreRef(r, dist)
		if err != nil {
			fmt.Println(err)
			return
		}
		one, _ := iqa.NewScorer(iqa.VCRPy).Score(ref, dist)
		fmt.Printf("contrast %.2f: Δv = %.4f, same as Score: %v\n", k, res.DV, res == one)
	}
	// Output:
	// contrast 1.00: Δv = 0.0000, same as Score: true
	// contrast 0.75: Δv = 0.0947, same as Score: true
	// contrast 0.50: Δv = 0.2221, same as Score: true
	// contrast 0.25: Δv = 0.4207, same as Score: true
}
