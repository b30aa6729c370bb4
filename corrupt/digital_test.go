package corrupt

import (
	"bytes"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// Annex K of the JPEG standard (ITU-T T.81), tables K.1 and K.2, in natural
// (row-major) order: the tables libjpeg scales by quality.
var annexKLuma = [64]int{
	16, 11, 10, 16, 24, 40, 51, 61,
	12, 12, 14, 19, 26, 58, 60, 55,
	14, 13, 16, 24, 40, 57, 69, 56,
	14, 17, 22, 29, 51, 87, 80, 62,
	18, 22, 37, 56, 68, 109, 103, 77,
	24, 35, 55, 64, 81, 104, 113, 92,
	49, 64, 78, 87, 103, 121, 120, 101,
	72, 92, 95, 98, 112, 100, 103, 99,
}

var annexKChroma = [64]int{
	17, 18, 24, 47, 99, 99, 99, 99,
	18, 21, 26, 66, 99, 99, 99, 99,
	24, 26, 56, 99, 99, 99, 99, 99,
	47, 66, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
}

// zigzag[i] is the natural index of the i-th coefficient in zig-zag order.
var zigzag = func() (z [64]int) {
	i, x, y := 0, 0, 0
	for i < 64 {
		z[i] = 8*y + x
		i++
		if (x+y)%2 == 0 { // moving up-right
			switch {
			case x == 7:
				y++
			case y == 0:
				x++
			default:
				x, y = x+1, y-1
			}
		} else { // moving down-left
			switch {
			case y == 7:
				x++
			case x == 0:
				y++
			default:
				x, y = x-1, y+1
			}
		}
	}
	return z
}()

// libjpegQuant is jpeg_quality_scaling + jpeg_add_quant_table (force_baseline).
func libjpegQuant(base [64]int, q int) [64]int {
	scale := 200 - 2*q
	if q < 50 {
		scale = 5000 / q
	}
	var out [64]int
	for i, v := range base {
		out[i] = min(max((v*scale+50)/100, 1), 255)
	}
	return out
}

// TestJPEGEncoderTables checks that the encoder jpeg_compression uses
// writes baseline 4:2:0 with libjpeg's quality-scaled Annex K tables, by
// parsing the DQT and SOF0 segments of its output.
func TestJPEGEncoderTables(t *testing.T) {
	src := testimg.Natural(40, 24, 1)
	for _, q := range []int{1, 7, 25, 49, 50, 75, 99, 100} {
		var buf bytes.Buffer
		if err := imageio.Encode(&buf, src, imageio.JPEG, imageio.EncodeOptions{JPEGQuality: q}); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		tables := map[int][64]int{}
		sof := false
		for i := 2; i+4 <= len(b) && b[i] == 0xff; {
			marker, n := b[i+1], int(b[i+2])<<8|int(b[i+3])
			seg := b[i+4 : i+2+n]
			switch marker {
			case 0xdb: // DQT: (precision<<4 | id, 64 bytes in zig-zag order)...
				for len(seg) >= 65 {
					if seg[0]>>4 != 0 {
						t.Fatalf("q %d: 16-bit quantisation table", q)
					}
					var tab [64]int
					for k := range 64 {
						tab[zigzag[k]] = int(seg[1+k])
					}
					tables[int(seg[0]&15)] = tab
					seg = seg[65:]
				}
			case 0xc0: // SOF0 (baseline): components (id, h<<4|v, table).
				sof = true
				comp := seg[6:]
				if seg[5] != 3 || comp[1] != 0x22 || comp[4] != 0x11 || comp[7] != 0x11 {
					t.Errorf("q %d: components %x, want Y 2×2 and chroma 1×1 (4:2:0)", q, seg[5:])
				}
			case 0xc1, 0xc2:
				t.Errorf("q %d: not baseline (SOF %x)", q, marker)
			}
			if marker == 0xda {
				break
			}
			i += 2 + n
		}
		if !sof {
			t.Errorf("q %d: no baseline SOF0 segment", q)
		}
		if got, want := tables[0], libjpegQuant(annexKLuma, q); got != want {
			t.Errorf("q %d: luma table\n%v, want\n%v", q, got, want)
		}
		if got, want := tables[1], libjpegQuant(annexKChroma, q); got != want {
			t.Errorf("q %d: chroma table\n%v, want\n%v", q, got, want)
		}
	}
}

// greyOf returns m with all channels set to its red channel.
func greyOf(m *imageio.Image) *imageio.Image {
	g := m.Clone()
	copy(g.Ch[1], g.Ch[0])
	copy(g.Ch[2], g.Ch[0])
	return g
}

func TestJPEGQuality(t *testing.T) {
	c, _ := Lookup("jpeg_compression")
	src := testimg.Natural(96, 72, 3)
	prev := 0.0
	for _, q := range []float64{100, 75, 25, 7, 1} {
		out := apply(c, src, []float64{q}, 1, 0)
		mse := imageio.MeanSquaredDiff(out, src)
		if mse < prev {
			t.Errorf("quality %v: MSE %v below that of a higher quality (%v)", q, mse, prev)
		}
		prev = mse
	}
	// At quality 100 (all quantisers 1) a grey image comes back within
	// rounding of the DCTs; colour loses chroma detail to 4:2:0 subsampling,
	// which on the test image's saturated hard edges costs PSNR ≈ 35 dB.
	for _, sz := range [][2]int{{96, 72}, {1, 1}, {3, 5}, {17, 9}} {
		col := testimg.Natural(sz[0], sz[1], 3)
		grey := greyOf(col)
		out := apply(c, grey, []float64{100}, 1, 0)
		if d := imageio.MaxAbsDiff(out, grey); d > 2.0/255+1e-6 {
			t.Errorf("%dx%d grey at quality 100: max difference %.1f/255", sz[0], sz[1], d*255)
		}
		if sz[0] > 32 {
			out = apply(c, col, []float64{100}, 1, 0)
			if psnr := -10 * math.Log10(imageio.MeanSquaredDiff(out, col)); psnr < 30 {
				t.Errorf("%dx%d colour at quality 100: PSNR %.1f dB, want ≥ 30", sz[0], sz[1], psnr)
			}
		}
	}
}

func TestPixelateBlockMeans(t *testing.T) {
	c, _ := Lookup("pixelate")
	src := testimg.Natural(64, 48, 6)
	out := apply(c, src, []float64{0.5}, 1, 0)
	for ch := range 3 {
		s, d := src.Ch[ch], out.Ch[ch]
		for y := range 48 {
			for x := range 64 {
				bx, by := x&^1, y&^1
				m := (float64(s[by*64+bx]) + float64(s[by*64+bx+1]) + float64(s[(by+1)*64+bx]) + float64(s[(by+1)*64+bx+1])) / 4
				if math.Abs(float64(d[y*64+x])-m) > 1e-6 {
					t.Fatalf("channel %d (%d,%d) = %v, want the 2×2 block mean %v", ch, x, y, d[y*64+x], m)
				}
			}
		}
	}
	// Factor 0.25 on 64×48 averages 4×4 blocks.
	out = apply(c, src, []float64{0.25}, 1, 0)
	for ch := range 3 {
		var m float64
		for y := range 4 {
			for x := range 4 {
				m += float64(src.Ch[ch][(4+y)*64+8+x])
			}
		}
		if got := out.Ch[ch][5*64+9]; math.Abs(float64(got)-m/16) > 1e-6 {
			t.Errorf("c .25 channel %d: %v, want the 4×4 block mean %v", ch, got, m/16)
		}
	}
	// The smallest factor shrinks to 1×1: every sample is the channel mean.
	out = apply(c, src, []float64{0.01}, 1, 0)
	for ch := range 3 {
		m := colourMean(src.Ch[ch])
		for _, v := range out.Ch[ch] {
			if math.Abs(float64(v)-m) > 1e-5 {
				t.Fatalf("c 0.01 channel %d: %v, want mean %v", ch, v, m)
			}
		}
	}
}

// TestPixelateSpans compares the spans with Pillow's BOX weights evaluated
// sample by sample, and checks enlargement is nearest-neighbour.
func TestPixelateSpans(t *testing.T) {
	for _, sz := range [][2]int{{224, 113}, {224, 134}, {100, 7}, {7, 100}, {113, 224}, {5, 5}, {64, 1}} {
		in, out := sz[0], sz[1]
		spans := pixelateSpans(in, out)
		scale := float64(in) / float64(out)
		fs := math.Max(scale, 1)
		for xx, sp := range spans {
			center := (float64(xx) + 0.5) * scale
			for x := range in {
				// Pillow: weight 1 iff x lies in [xmin, xmax) and box((x − center + ½)/fs) = 1.
				xmin := max(int(center-0.5*fs+0.5), 0)
				xmax := min(int(center+0.5*fs+0.5), in)
				t0 := (float64(x) - center + 0.5) / fs
				want := x >= xmin && x < xmax && t0 > -0.5 && t0 <= 0.5
				if got := x >= int(sp.lo) && x < int(sp.hi); got != want {
					t.Fatalf("%d→%d output %d input %d: in span %v, Pillow weight %v", in, out, xx, x, got, want)
				}
			}
			if out >= in && (sp.hi-sp.lo != 1 || int(sp.lo) != int(center)) {
				t.Errorf("%d→%d output %d: span %v, want nearest sample %d", in, out, xx, sp, int(center))
			}
		}
	}
}

// TestPixelateWhite checks that averaging ones never rounds above 1.
func TestPixelateWhite(t *testing.T) {
	c, _ := Lookup("pixelate")
	src := flat(97, 61, 1)
	for k := range 100 {
		f := 0.01 + 0.99*float64(k)/99
		out := apply(c, src, []float64{f}, 1, 0)
		for ch := range 3 {
			for i, v := range out.Ch[ch] {
				if v != 1 && math.Abs(float64(v)-1) > 1e-6 || v > 1 {
					t.Fatalf("c %v: sample %d of channel %d = %v, want 1", f, i, ch, v)
				}
			}
		}
	}
}
