package imageio_test

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/cputime"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// paethRef is the PNG specification's Paeth predictor, written out.
func paethRef(a, b, c int) int {
	p := a + b - c
	pa, pb, pc := p-a, p-b, p-c
	if pa < 0 {
		pa = -pa
	}
	if pb < 0 {
		pb = -pb
	}
	if pc < 0 {
		pc = -pc
	}
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func fastPNGImages() []*imageio.Image {
	noisy := testimg.Natural(37, 23, 5)
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range noisy.Ch {
		for i := range noisy.Ch[c] {
			noisy.Ch[c][i] = min(1, max(0, noisy.Ch[c][i]+float32(rng.NormFloat64()*0.2)))
		}
	}
	return []*imageio.Image{testimg.Natural(64, 48, 1), noisy, testimg.Natural(1, 1, 3), testimg.Natural(2, 5, 4)}
}

func TestPNGEncoderRoundTrip(t *testing.T) {
	var e imageio.PNGEncoder // reused across sizes
	for _, m := range fastPNGImages() {
		for _, r := range []imageio.Rounding{imageio.Round, imageio.Truncate} {
			var buf bytes.Buffer
			if err := e.Encode(&buf, m, r); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("%dx%d: image/png cannot read the file: %v", m.Width, m.Height, err)
			}
			want := m.NRGBA(r)
			b := img.Bounds()
			if b != want.Bounds() {
				t.Fatalf("bounds %v, want %v", b, want.Bounds())
			}
			for y := range m.Height {
				for x := range m.Width {
					got := img.At(x, y)
					wr, wg, wb, _ := want.At(x, y).RGBA()
					gr, gg, gb, ga := got.RGBA()
					if gr != wr || gg != wg || gb != wb || ga != 0xffff {
						t.Fatalf("%dx%d pixel (%d,%d): %v, want %v", m.Width, m.Height, x, y, got, want.At(x, y))
					}
				}
			}
			// EncodeRGB8 of the same bytes writes the same file.
			nr := m.NRGBA(r)
			rgb := make([]byte, 0, 3*m.Width*m.Height)
			for i := 0; i < len(nr.Pix); i += 4 {
				rgb = append(rgb, nr.Pix[i:i+3]...)
			}
			var buf2 bytes.Buffer
			if err := e.EncodeRGB8(&buf2, rgb, m.Width, m.Height); err != nil || !bytes.Equal(buf2.Bytes(), buf.Bytes()) {
				t.Errorf("%dx%d: EncodeRGB8 wrote other bytes than Encode (%v)", m.Width, m.Height, err)
			}
			if _, ok := img.(*image.RGBA); !ok {
				t.Errorf("decoded as %T, want RGB (decoded as *image.RGBA)", img)
			}
		}
	}
}

// TestPaethFilterMatchesSpec decodes a file whose every row is Paeth
// filtered: image/png implements the inverse from the specification, so a
// wrong predictor shows as wrong pixels above; here the predictor itself is
// checked against the specification's formula on all byte triples' corners.
func TestPaethFilterMatchesSpec(t *testing.T) {
	for _, abc := range [][3]int{{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {10, 20, 15}, {200, 100, 150}, {5, 5, 5}, {1, 2, 255}} {
		m := imageio.New(2, 2)
		// Pixel (1,1)'s red sample has left a, up b, up-left c.
		m.Ch[0][0], m.Ch[0][1], m.Ch[0][2] = imageio.From8(uint8(abc[2])), imageio.From8(uint8(abc[1])), imageio.From8(uint8(abc[0]))
		var buf bytes.Buffer
		var e imageio.PNGEncoder
		if err := e.Encode(&buf, m, imageio.Round); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		r, _, _, _ := img.At(1, 1).RGBA()
		if r != 0 {
			t.Errorf("a,b,c = %v: pixel (1,1) red %d, want 0 (predictor %d)", abc, r>>8, paethRef(abc[0], abc[1], abc[2]))
		}
	}
}

func BenchmarkPNGEncode224(b *testing.B) {
	m := fastPNGImages()[1]
	big := testimg.Natural(224, 224, 9)
	_ = m
	for _, name := range []string{"Encode", "PNGEncoder"} {
		b.Run(name, func(b *testing.B) {
			var e imageio.PNGEncoder
			var buf bytes.Buffer
			b.ReportAllocs()
			c0 := cputime.Now()
			for b.Loop() {
				buf.Reset()
				if name == "Encode" {
					imageio.Encode(&buf, big, imageio.PNG, imageio.EncodeOptions{})
				} else {
					e.Encode(&buf, big, imageio.Round)
				}
			}
			c0.Report(b, time.Nanosecond)
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

func BenchmarkPNGEncodeNoisy(b *testing.B) {
	m := testimg.Natural(500, 375, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range m.Ch {
		for i := range m.Ch[c] {
			m.Ch[c][i] = min(1, max(0, m.Ch[c][i]+float32(rng.NormFloat64()*0.1)))
		}
	}
	var e imageio.PNGEncoder
	var buf bytes.Buffer
	c0 := cputime.Now()
	for b.Loop() {
		buf.Reset()
		e.Encode(&buf, m, imageio.Round)
	}
	c0.Report(b, time.Nanosecond)
}

// BenchmarkDecodePNGNatural224 times DecodeBytes (its RGB8 fast path) on a
// 224×224 natural-looking image written by Encode (Go's image/png, adaptive
// filters and LZ77, as vcr synth writes sources) and by PNGEncoder (Paeth,
// Huffman only, as vcr generate writes its images).
func BenchmarkDecodePNGNatural224(b *testing.B) {
	m := testimg.Natural(224, 224, 5)
	var std, fast bytes.Buffer
	if err := imageio.Encode(&std, m, imageio.PNG, imageio.EncodeOptions{}); err != nil {
		b.Fatal(err)
	}
	var enc imageio.PNGEncoder
	if err := enc.Encode(&fast, m, imageio.Round); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{{"image-png-written", std.Bytes()}, {"PNGEncoder-written", fast.Bytes()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cputime.Now()
			for b.Loop() {
				if _, _, err := imageio.DecodeBytes(tc.data, imageio.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			c0.Report(b, time.Nanosecond)
		})
	}
}
