//go:build goexperiment.simd && amd64 && !purego

package corrupt

import (
	"math/rand/v2"
	"testing"
)

// TestSIMDPixelateExact checks the vector pixelate kernels against the
// pure-Go ones for many size pairs (span lengths 1–3 and up, blocks that fall
// back to scalar code, tails).
func TestSIMDPixelateExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	simdModes(t, func(mode string) {
		for _, W := range []int{17, 31, 64, 100, 224, 333, 500} {
			for _, c := range []float64{0.1, 0.3, 0.45, 0.5, 0.51, 0.7, 0.93, 0.99} {
				w := max(int(float64(W)*c), 1)
				xs, ux := pixelateSpans(W, w), pixelateSpans(w, W)
				xidx := make([]int32, W)
				for i, sp := range ux {
					xidx[i] = sp.lo
				}
				plan := newPixelatePlan(xs, xidx)
				xinv := make([]float32, w)
				for i, sp := range xs {
					if sp.hi > sp.lo {
						xinv[i] = 1 / float32(sp.hi-sp.lo)
					}
				}
				for ny := 1; ny <= 3; ny++ {
					rows := randPlane(rng, ny*W)
					for i := range rows {
						rows[i] = (rows[i] + 1) * 1.5 // up to 3 per row: some means clip at 1
					}
					got, want := make([]float32, w), make([]float32, w)
					acc, acc2 := make([]float32, W), make([]float32, W)
					pixelateDownRow(got, rows, W, acc, xs, xinv, 1/float32(ny), &plan)
					pixelateDownRowGo(want, rows, W, acc2, xs, xinv, 1/float32(ny))
					sameBits(t, mode+" pixelateDownRow", got, want)
				}
				in := append(randPlane(rng, w), make([]float32, pixelateSlack)...)
				gotU, wantU := make([]float32, W), make([]float32, W)
				pixelateUpRow(gotU, in, xidx, &plan)
				pixelateUpRowGo(wantU, in, xidx)
				sameBits(t, mode+" pixelateUpRow", gotU, wantU)
			}
		}
	})
}

// BenchmarkSeparable times one 224×224 Gaussian plane (σ = 2.5, r = 10) per
// kernel path.
func BenchmarkSeparable(b *testing.B) {
	const w, h = 224, 224
	rng := rand.New(rand.NewPCG(9, 10))
	src := randPlane(rng, w*h)
	dst := make([]float32, w*h)
	taps := gaussianTaps(2.5, skimageRadius(2.5))
	tmp, line := make([]float32, w*h), make([]float32, w+len(taps))
	run := func(name string) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				separable(dst, src, w, h, taps, taps, Replicate, tmp, line)
			}
		})
	}
	defer func(s, s512 bool) { simdKernels, simd512 = s, s512 }(simdKernels, simd512)
	simdModes(b, run)
	simdKernels, simd512 = false, false
	run("go")
}
