//go:build amd64 && !purego

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

// TestFrostVecExact checks the assembly frost blends against frostApply's
// Go loops (weatherClamp01 of the same float32 products and sums) bit for
// bit, on random data with NaN, ±0, ±Inf and values outside [0, 1], for
// lengths around the vector width and blocks of four vectors.
func TestFrostVecExact(t *testing.T) {
	if !simdKernels {
		t.Skip("CPU lacks AVX2: the vectorised kernels are not used")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)),
		float32(math.Inf(1)), float32(math.Inf(-1)), 1, math.Nextafter32(1, 2), 3, -0.5}
	plane := func(n int) []float32 {
		p := randPlane(rng, n)
		for i := range p {
			switch rng.IntN(8) {
			case 0:
				p[i] = special[rng.IntN(len(special))]
			case 1:
				p[i] = p[i]*3 - 1
			}
		}
		return p
	}
	for _, n := range []int{1, 7, 8, 9, 16, 31, 32, 33, 64, 65, 224, 500} {
		src, f, r0, r1, r2, r3 := plane(n), plane(n), plane(n), plane(n), plane(n), plane(n)
		s, tt := float32(0.85), float32(0.55)
		w := [4]float32{-0.0703125, 0.8671875, 0.2265625, -0.0234375}
		got, want := make([]float32, n), make([]float32, n)
		x := frostBlendVec(got, src, f, s, tt)
		if x != n&^7 {
			t.Fatalf("frostBlendVec on %d samples: done %d", n, x)
		}
		for i := range n {
			want[i] = weatherClamp01(s*src[i] + tt*f[i])
		}
		sameBits(t, "frostBlendVec", got[:x], want[:x])
		x = frostBlend4Vec(got, src, r0, r1, r2, r3, s, tt, w)
		if x != n&^7 {
			t.Fatalf("frostBlend4Vec on %d samples: done %d", n, x)
		}
		for i := range n {
			fv := weatherClamp01(w[0]*r0[i] + w[1]*r1[i] + w[2]*r2[i] + w[3]*r3[i])
			want[i] = weatherClamp01(s*src[i] + tt*fv)
		}
		sameBits(t, "frostBlend4Vec", got[:x], want[:x])
	}
}
