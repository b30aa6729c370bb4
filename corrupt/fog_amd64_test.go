//go:build amd64 && !purego && !goexperiment.simd

package corrupt

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFogVecExact checks the assembly fog kernels against fog's Go loop and
// weatherMax bit for bit, on random data with NaN, ±0, ±Inf and values
// above 1, for lengths around the vector width.
func TestFogVecExact(t *testing.T) {
	if !simdKernels {
		t.Skip("CPU lacks AVX2: the vectorised kernels are not used")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)),
		float32(math.Inf(1)), float32(math.Inf(-1)), 1, math.Nextafter32(1, 2), 3}
	plane := func(n int) []float32 {
		p := randPlane(rng, n)
		for i := range p {
			if rng.IntN(8) == 0 {
				p[i] = special[rng.IntN(len(special))]
			}
		}
		return p
	}
	for _, n := range []int{1, 7, 8, 9, 16, 31, 32, 33, 64, 65, 224} {
		s0, s1, s2, pr := plane(n), plane(n), plane(n), plane(n)
		k, a, lo := float32(0.7), float32(1.3), float32(-0.2)
		var got, want [3][]float32
		for c := range 3 {
			got[c], want[c] = make([]float32, n), make([]float32, n)
		}
		x := fogBlendVec(got[0], got[1], got[2], s0, s1, s2, pr, k, a, lo)
		for i := range n {
			f := a * (pr[i] - lo)
			for c, s := range [3][]float32{s0, s1, s2} {
				o := s[i]*k + f
				if o > 1 {
					o = 1
				}
				want[c][i] = o
			}
		}
		for c := range 3 {
			sameBits(t, "fogBlendVec", got[c][:x], want[c][:x])
		}

		p := plane(n)
		hi, done := fogMaxVec(p)
		if n < 8 {
			if done != 0 {
				t.Fatalf("fogMaxVec on %d samples: done %d", n, done)
			}
			continue
		}
		if done != n {
			t.Fatalf("fogMaxVec on %d samples: done %d", n, done)
		}
		sameBits(t, "fogMaxVec", []float32{hi}, []float32{weatherMax(p)})
	}
}
