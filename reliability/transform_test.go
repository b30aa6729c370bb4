package reliability

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/model"
)

// TestTransformSlotΔvMatchesScore checks the rejection loop's Δv, which it
// computes against a prepared reference (iqa.Scorer.ScoreRef), against
// iqa.Scorer.Score of the same pairs: it replays every slot's stream of
// draws, scores each draw with a fresh Scorer, and requires the accepted
// draw of each threshold to be the first with Δv ≤ t, its Δv and the
// smallest Δv of the stream to be bit for bit what Score gives.
func TestTransformSlotΔvMatchesScore(t *testing.T) {
	pre, _ := model.Preset("none")
	for _, tc := range []struct {
		corruption string
		method     iqa.Method
		size       int
		thr        [2]float64
	}{
		{"gaussian_noise", iqa.VCRPy, 24, [2]float64{0.2, 0.5}},
		{"gaussian_noise", iqa.VIFVec, 48, [2]float64{0.3, 0.6}},
		{"gaussian_blur", iqa.VCRPy, 48, [2]float64{0.1, 0.25}},
		{"contrast", iqa.VIFVec2Layers, 40, [2]float64{0.1, 0.3}},
		{"gaussian_noise", iqa.Pixel, 24, [2]float64{0.2, 0.5}},
	} {
		c, err := corrupt.Lookup(tc.corruption)
		if err != nil {
			t.Fatal(err)
		}
		d := newMemSet(4, tc.size)
		opt := CheckOptions{Images: d, Preprocess: pre, BatchSize: 4, MaxAttempts: 40}
		ck := &checker{c: c, opt: opt, method: tc.method, orig: map[int]int{}, items: []int{0, 1, 2, 3}}
		w := &transformer{scorer: iqa.NewScorer(tc.method)}
		const seed, batch = 7, 3
		accepted := 0
		for j := range 4 {
			s := &slot{pool: j}
			if err := ck.transformSlot(w, seed, batch, j, s, tc.thr); err != nil {
				t.Fatal(err)
			}
			// Replay the stream with Score.
			src, _ := d.Load(j)
			ref := iqa.GrayFrom(src)
			dst := imageio.New(src.Width, src.Height)
			rng := drawRand(seed, batch, opt.BatchSize, j)
			minDV := math.Inf(1)
			first := [2]int{}
			var firstDV [2]float64
			for k := 1; k <= s.draws; k++ {
				p := c.Sample(rng)
				c.Apply(dst, src, p, rng)
				dst.Quantize(imageio.Round)
				r, err := iqa.NewScorer(tc.method).Score(ref, iqa.GrayFrom(dst))
				if err != nil {
					t.Fatal(err)
				}
				minDV = min(minDV, r.DV)
				for kd := range 2 {
					if first[kd] == 0 && r.DV <= tc.thr[kd] {
						first[kd], firstDV[kd] = k, r.DV
					}
				}
			}
			name := tc.corruption + "/" + string(tc.method)
			if math.Float64bits(s.minDV[0]) != math.Float64bits(minDV) {
				t.Errorf("%s slot %d: smallest Δv %v, Score gives %v", name, j, s.minDV[0], minDV)
			}
			for kd := range 2 {
				if s.ok[kd] != (first[kd] > 0) {
					t.Errorf("%s slot %d %s: accepted %v, Score accepts at draw %d", name, j, kindNames[kd], s.ok[kd], first[kd])
					continue
				}
				if !s.ok[kd] {
					continue
				}
				accepted++
				if s.attempts[kd] != first[kd] || math.Float64bits(s.dv[kd]) != math.Float64bits(firstDV[kd]) {
					t.Errorf("%s slot %d %s: accepted draw %d with Δv %v; Score accepts draw %d with Δv %v",
						name, j, kindNames[kd], s.attempts[kd], s.dv[kd], first[kd], firstDV[kd])
				}
			}
		}
		if accepted == 0 {
			t.Errorf("%s/%s: no draw accepted; the test compares nothing", tc.corruption, tc.method)
		}
	}
}
