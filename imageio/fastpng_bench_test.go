package imageio_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/cputime"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// BenchmarkPNGEncodeRGB8 times PNGEncoder.EncodeRGB8, what vcr generate
// saves every image with, on natural-looking 8-bit images of the two sizes
// of issue 18, clean and with Gaussian noise of σ = 0.08 (about
// gaussian_noise at severity 3).
func BenchmarkPNGEncodeRGB8(b *testing.B) {
	for _, sz := range [][2]int{{224, 224}, {500, 375}} {
		for _, sigma := range []float64{0, 0.08} {
			m := testimg.Natural(sz[0], sz[1], 11)
			rng := rand.New(rand.NewPCG(3, 4))
			pix := make([]byte, 3*sz[0]*sz[1])
			for i := range sz[0] * sz[1] {
				for c := range 3 {
					v := float64(m.Ch[c][i]) + sigma*rng.NormFloat64()
					pix[3*i+c] = imageio.To8(float32(min(1, max(0, v))), imageio.Round)
				}
			}
			name := fmt.Sprintf("%dx%d/clean", sz[0], sz[1])
			if sigma > 0 {
				name = fmt.Sprintf("%dx%d/noisy", sz[0], sz[1])
			}
			b.Run(name, func(b *testing.B) {
				var e imageio.PNGEncoder
				var buf bytes.Buffer
				c0 := cputime.Now()
				for b.Loop() {
					buf.Reset()
					if err := e.EncodeRGB8(&buf, pix, sz[0], sz[1]); err != nil {
						b.Fatal(err)
					}
				}
				c0.Report(b, time.Nanosecond)
				b.ReportMetric(float64(buf.Len()), "bytes")
			})
		}
	}
}
