package jpeg_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/imageio/jpeg"
	"github.com/vcr-bench/vcr/internal/cputime"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// benchSizes are the sizes of the benchmarks: the 224×224 network input and
// ImageNet's typical 500×375 photo.
var benchSizes = [][2]int{{224, 224}, {500, 375}}

// benchQuality is Pillow's default quality.
const benchQuality = 75

// benchImage is testimg.Natural rounded to 8-bit interleaved RGB, the image
// the benchmarks and scripts/bench-jpeg.sh time.
func benchImage(w, h int) []uint8 {
	m := testimg.Natural(w, h, 1)
	pix := make([]uint8, 3*w*h)
	for i := range w * h {
		for c := range 3 {
			pix[3*i+c] = imageio.To8(m.Ch[c][i], imageio.Round)
		}
	}
	return pix
}

func BenchmarkEncode(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", s[0], s[1]), func(b *testing.B) {
			pix := benchImage(s[0], s[1])
			var e jpeg.Encoder
			var out []byte
			b.ReportAllocs()
			c0 := cputime.Now()
			for b.Loop() {
				var err error
				if out, err = e.EncodeRGB(out[:0], pix, s[0], s[1], 3*s[0], benchQuality); err != nil {
					b.Fatal(err)
				}
			}
			c0.Report(b, time.Millisecond)
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", s[0], s[1]), func(b *testing.B) {
			var e jpeg.Encoder
			data, err := e.EncodeRGB(nil, benchImage(s[0], s[1]), s[0], s[1], 3*s[0], benchQuality)
			if err != nil {
				b.Fatal(err)
			}
			var d jpeg.Decoder
			var pix []uint8
			b.ReportAllocs()
			c0 := cputime.Now()
			for b.Loop() {
				m, err := d.Decode(pix, data)
				if err != nil {
					b.Fatal(err)
				}
				pix = m.Pix
			}
			c0.Report(b, time.Millisecond)
		})
	}
}

// BenchmarkDecodePhoto decodes photographs (see PhotoFiles), whose detail
// exercises entropy decoding and the full inverse DCT more than the
// generated images, in each layout the decoder has a path for: 4:2:0 and
// 4:4:4 baseline, progressive, grayscale.
func BenchmarkDecodePhoto(b *testing.B) {
	names, files := jpeg.PhotoFiles(b)
	for i, data := range files {
		b.Run(names[i], func(b *testing.B) {
			var d jpeg.Decoder
			var pix []uint8
			b.ReportAllocs()
			c0 := cputime.Now()
			for b.Loop() {
				m, err := d.Decode(pix, data)
				if err != nil {
					b.Fatal(err)
				}
				pix = m.Pix
			}
			c0.Report(b, time.Millisecond)
		})
	}
}

// TestWriteBenchInputs writes the benchmark images as raw RGB files and the
// photographs of BenchmarkDecodePhoto as photo-NAME.jpg to the folder named
// by VCR_JPEG_BENCH_DIR (scripts/bench-jpeg.sh uses them to time Pillow on
// the same data); without it, it does nothing.
func TestWriteBenchInputs(t *testing.T) {
	dir := os.Getenv("VCR_JPEG_BENCH_DIR")
	if dir == "" {
		t.Skip("VCR_JPEG_BENCH_DIR not set")
	}
	for _, s := range benchSizes {
		name := filepath.Join(dir, fmt.Sprintf("%dx%d.rgb", s[0], s[1]))
		if err := os.WriteFile(name, benchImage(s[0], s[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, files := jpeg.PhotoFiles(t)
	for i, b := range files {
		if err := os.WriteFile(filepath.Join(dir, "photo-"+names[i]+".jpg"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
