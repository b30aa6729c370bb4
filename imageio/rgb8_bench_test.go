package imageio_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/cputime"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// BenchmarkToRGB8 times the 8-bit conversion of a 224×224 image, clean and
// after strong Gaussian noise (σ = 0.3, which clips many samples at 0 and 1).
func BenchmarkToRGB8(b *testing.B) {
	clean := testimg.Natural(224, 224, 3)
	noisy := clean.Clone()
	rng := rand.New(rand.NewPCG(1, 0))
	for c := range noisy.Ch {
		for i := range noisy.Ch[c] {
			noisy.Ch[c][i] = min(max(noisy.Ch[c][i]+float32(0.3*rng.NormFloat64()), 0), 1)
		}
	}
	dst := make([]byte, 3*clean.Pixels())
	for _, tc := range []struct {
		name string
		m    *imageio.Image
	}{{"clean", clean}, {"noisy", noisy}} {
		b.Run(tc.name, func(b *testing.B) {
			c0 := cputime.Now()
			for b.Loop() {
				imageio.ToRGB8(dst, tc.m, imageio.Round)
			}
			c0.Report(b, time.Nanosecond)
		})
	}
}
