package iqa

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPyramidLo0 and BenchmarkPyramidLowpass time the full-resolution
// lo0filt and the level-0 step-2 lowpass of one 224×224 image (the kernels
// the build selects).
func BenchmarkPyramidLo0(b *testing.B) {
	const w, h = 224, 224
	src := randImage(rand.New(rand.NewPCG(1, 2)), w, h)
	ws := newWaveWorkspace(w, h, PyramidHeight(w, h))
	dst := make([]float64, w*h)
	for b.Loop() {
		lo0Filter(dst, src, w, h, ws.xp, ws.tmp)
	}
}

func BenchmarkPyramidLowpass(b *testing.B) {
	const w, h = 224, 224
	src := randImage(rand.New(rand.NewPCG(1, 2)), w, h)
	ws := newWaveWorkspace(w, h, PyramidHeight(w, h))
	dst := make([]float64, ((w+1)/2)*((h+1)/2))
	for b.Loop() {
		lowpassDown(dst, src, w, h, ws.xp, ws.tmp)
	}
}
