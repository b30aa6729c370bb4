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
// manifest) of 64 draws, one worker, and reports images per second: on
// 224×224 PNG sources, and on 500×375 JPEG sources (ImageNet's typical
// native size). Run with -cpu 1 -benchtime 3x.
func BenchmarkGenerate(b *testing.B) {
	data224, native := b.TempDir(), b.TempDir()
	for i := range 16 {
		if err := imageio.Save(filepath.Join(data224, fmt.Sprintf("%02d.png", i)), testimg.Natural(224, 224, uint64(i)), imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := imageio.Save(filepath.Join(native, fmt.Sprintf("%02d.jpg", i)), testimg.Natural(500, 375, uint64(i)), imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		corruption string
		method     iqa.Method
		native     bool
	}{
		{"gaussian_noise", iqa.VCRPy, false}, {"gaussian_noise", iqa.Pixel, false}, {"gaussian_blur", iqa.VCRPy, false},
		{"gaussian_noise", iqa.VCRPy, true},
	} {
		data, size := data224, "224"
		if tc.native {
			data, size = native, "500x375"
		}
		b.Run(tc.corruption+"/"+string(tc.method)+"/"+size, func(b *testing.B) {
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
