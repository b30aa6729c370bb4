package testset

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/cputime"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// issue18Corruptions are the corruptions whose whole-pipeline rate issue 18
// sets targets for (≥ 500 img/s at 224×224, ≥ 150 img/s at 500×375, 2 cores).
var issue18Corruptions = []string{"gaussian_noise", "defocus_blur", "frost", "brightness", "jpeg_compression", "motion_blur", "glass_blur"}

// BenchmarkGeneratePipeline times whole runs of 32 draws, one worker, with
// the default Δv flavours (as `vcr generate` without --dv-methods) and the
// vcr-py primary (as scripts/bench-generate.sh), for each corruption of
// issue 18's pipeline target, on 224×224 PNG sources and on 500×375 JPEG
// sources; it reports images per second of one core. Profile one with e.g.
// -bench 'GeneratePipeline/gaussian_noise/224' -cpuprofile cpu.out.
func BenchmarkGeneratePipeline(b *testing.B) {
	data224, native := b.TempDir(), b.TempDir()
	for i := range 8 {
		if err := imageio.Save(filepath.Join(data224, fmt.Sprintf("%02d.png", i)), testimg.Natural(224, 224, uint64(i)), imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := imageio.Save(filepath.Join(native, fmt.Sprintf("%02d.jpg", i)), testimg.Natural(500, 375, uint64(i)), imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range issue18Corruptions {
		for _, size := range []string{"224", "500x375"} {
			data := data224
			if size != "224" {
				data = native
			}
			b.Run(c+"/"+size, func(b *testing.B) {
				const n = 32
				i := 0
				c0 := cputime.Now()
				for b.Loop() {
					cfg := testConfig(b, data, filepath.Join(b.TempDir(), fmt.Sprint(i)))
					cfg.Corruptions, cfg.N, cfg.Method, cfg.Workers = lookup(b, c), n, iqa.VCRPy, 1
					if _, err := Generate(context.Background(), cfg); err != nil {
						b.Fatal(err)
					}
					i++
				}
				c0.Report(b, time.Nanosecond)
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "images/s")
			})
		}
	}
}
