package iqa

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkWindowSums measures the window sums and channel estimates of the
// eight subbands of one 224×224 pair (bands 222², 111², 54², 27² with
// windows 17, 9, 5, 3), the statistics side of the wavelet VIF.
func BenchmarkWindowSums(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ws := newWaveWorkspace(224, 224, 4)
	type band struct {
		x, y   []float64
		cw, ch int
		win    int
	}
	var bands []band
	for i, s := range []int{222, 111, 54, 27} {
		x, y := make([]float64, s*s), make([]float64, s*s)
		for j := range x {
			x[j] = rng.NormFloat64() * 10
			y[j] = 0.7*x[j] + rng.NormFloat64()
		}
		bands = append(bands, band{x, y, s, s, 1<<(4-i) + 1})
	}
	for b.Loop() {
		for _, bd := range bands {
			for range 2 {
				ws.windowSums(bd.x, bd.y, bd.cw, bd.ch, bd.win)
				ws.channel(bd.cw, bd.ch, bd.win, paramsVCRPy)
			}
		}
	}
}

// BenchmarkChannel measures the channel estimates alone (from window sums
// left by windowSums) of the level-0 subband of a 224×224 pair.
func BenchmarkChannel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const s = 222
	ws := newWaveWorkspace(224, 224, 4)
	x, y := make([]float64, s*s), make([]float64, s*s)
	for j := range x {
		x[j] = rng.NormFloat64() * 10
		y[j] = 0.7*x[j] + rng.NormFloat64()
	}
	ws.windowSums(x, y, s, s, 17)
	for b.Loop() {
		ws.channel(s, s, 17, paramsVCRPy)
	}
}
