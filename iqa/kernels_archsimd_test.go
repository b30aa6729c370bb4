//go:build goexperiment.simd && amd64 && !purego

package iqa

import (
	"math/rand/v2"
	"testing"
)

// Kernels that only the GOEXPERIMENT=simd build vectorises (the default
// build's assembly leaves them scalar).

func TestSIMDKernelsPatchCore1(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for B := 5; B <= 23; B++ {
		r0, r1, r2 := randSlice(rng, B), randSlice(rng, B), randSlice(rng, B)
		for _, rows := range [][2][]float64{{r1, r2}, {r1, nil}, {nil, nil}} {
			var got, want [13]float64
			sg := patchCoreAVX2(&got, r0, rows[0], rows[1])
			sw := patchCoreGo(&want, r0, rows[0], rows[1])
			sameBits(t, "patchCore", append(got[:], sg), append(want[:], sw))
		}
	}
}
