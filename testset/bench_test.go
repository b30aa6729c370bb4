package testset

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// BenchmarkGenerate times whole runs (decode, corrupt, VIF, PNG encode,
// manifest) of 64 draws on a 224×224 dataset, one worker, and reports
// images per second. Run with -cpu 1 -benchtime 3x.
func BenchmarkGenerate(b *testing.B) {
	data := b.TempDir()
	for i := range 16 {
		if err := imageio.Save(filepath.Join(data, fmt.Sprintf("%02d.png", i)), testimg.Natural(224, 224, uint64(i)), imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		corruption string
		method     iqa.Method
	}{{"gaussian_noise", iqa.VCRPy}, {"gaussian_noise", iqa.Pixel}, {"gaussian_blur", iqa.VCRPy}} {
		b.Run(tc.corruption+"/"+string(tc.method), func(b *testing.B) {
			const n = 64
			i := 0
			for b.Loop() {
				cfg := testConfig(b, data, filepath.Join(b.TempDir(), fmt.Sprint(i)))
				cfg.Corruptions, cfg.N, cfg.Method, cfg.Workers = lookup(b, tc.corruption), n, tc.method, 1
				if _, err := Generate(context.Background(), cfg); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}
