//go:build amd64 && !purego

package corrupt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
)

// TestHSVVecExact checks brightness and saturate with the assembly HSV
// kernels against the pure-Go loop (simdKernels off) bit for bit: on every
// 8-bit colour of a 2¹⁸-pixel sample of the RGB cube (its grey axis, its
// faces and ties between channels included), on random float32 samples,
// and on images with samples outside [+0, 1] (NaN, −0, negatives, values
// above 1), which the Go loop takes over, for parameters across and beyond
// the domains.
func TestHSVVecExact(t *testing.T) {
	if !simdKernels {
		t.Skip("CPU lacks AVX2: the vectorised kernels are not used")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	const n = 1 << 18
	cube := imageio.New(n, 1)
	for i := range n {
		var px [3]int
		switch i % 4 {
		case 0: // grey
			k := rng.IntN(256)
			px = [3]int{k, k, k}
		case 1: // two channels tie
			k, l := rng.IntN(256), rng.IntN(256)
			px = [3]int{k, k, l}
			rng.Shuffle(3, func(a, b int) { px[a], px[b] = px[b], px[a] })
		default:
			px = [3]int{rng.IntN(256), rng.IntN(256), rng.IntN(256)}
			px[rng.IntN(3)] = []int{0, 255, rng.IntN(256)}[rng.IntN(3)]
		}
		for c := range 3 {
			cube.Ch[c][i] = imageio.From8(uint8(px[c]))
		}
	}
	random := imageio.New(1000, 1)
	odd := imageio.New(1003, 1)
	special := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), -0.25, 1.5, float32(math.Inf(1)), math.Nextafter32(1, 2)}
	for c := range 3 {
		for i := range random.Ch[c] {
			random.Ch[c][i] = rng.Float32()
		}
		for i := range odd.Ch[c] {
			odd.Ch[c][i] = rng.Float32()
			if rng.IntN(20) == 0 {
				odd.Ch[c][i] = special[rng.IntN(len(special))]
			}
		}
	}
	cases := []struct {
		name string
		p    [][]float64
	}{
		{"brightness", [][]float64{{0}, {0.1}, {0.5}, {1}, {-0.3}, {1.7}, {math.Copysign(0, -1)}}},
		{"saturate", [][]float64{{1, 0}, {0.3, 0}, {2, 0}, {5, 0.1}, {20, 0.2}, {0, 0}, {0.7, 0.05}}},
	}
	for _, tc := range cases {
		c, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tc.p {
			for _, src := range []*imageio.Image{cube, random, odd} {
				got := imageio.New(src.Width, src.Height)
				c.apply(got, src, p, NewRand(1, 0))
				simdKernels = false
				want := imageio.New(src.Width, src.Height)
				c.apply(want, src, p, NewRand(1, 0))
				simdKernels = true
				for ch := range 3 {
					sameBits(t, tc.name, got.Ch[ch], want.Ch[ch])
				}
			}
		}
	}
}
