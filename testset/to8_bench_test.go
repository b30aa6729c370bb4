package testset

import (
	"testing"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/cputime"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// BenchmarkTo8RGB times the 8-bit conversion of a 224×224 image, clean and
// after strong Gaussian noise (σ = 0.3, which clips many samples at 0 and 1).
func BenchmarkTo8RGB(b *testing.B) {
	clean := testimg.Natural(224, 224, 3)
	noisy := imageio.New(224, 224)
	c, err := corrupt.Lookup("gaussian_noise")
	if err != nil {
		b.Fatal(err)
	}
	c.Apply(noisy, clean, []float64{0.3}, corrupt.NewRand(1, 0))
	dst := make([]byte, 3*clean.Pixels())
	for _, tc := range []struct {
		name string
		m    *imageio.Image
	}{{"clean", clean}, {"noisy", noisy}} {
		b.Run(tc.name, func(b *testing.B) {
			c0 := cputime.Now()
			for b.Loop() {
				to8RGB(dst, tc.m, imageio.Round)
			}
			c0.Report(b, time.Nanosecond)
		})
	}
}
