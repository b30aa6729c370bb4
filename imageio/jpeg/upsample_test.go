package jpeg

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// clamp8 is libjpeg's range limiting of a colour sample.
func clamp8(v int32) uint8 { return uint8(min(max(v, 0), 255)) }

// TestFancyH2V2Formula checks the fancy upsampler (the pure-Go one and the
// one in use, which may be the assembly) against the triangle filter
// written out directly: output sample 2x+e (e = 0, 1) of a chroma row weighs
// the nearest chroma sample 3/4 and the next one on its side 1/4 in each
// direction, with edges replicated and libjpeg's biases 8 (even) and 7 (odd).
func TestFancyH2V2Formula(t *testing.T) {
	near := []uint8{10, 200, 30, 255, 0, 77, 128}
	far := []uint8{250, 0, 99, 1, 64, 3, 255}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 40 { // 47 samples: the assembly's 16-sample groups and a tail
		near, far = append(near, uint8(rng.IntN(256))), append(far, uint8(rng.IntN(256)))
	}
	col := func(x int) int {
		x = min(max(x, 0), len(near)-1)
		return 3*int(near[x]) + int(far[x])
	}
	for name, f := range map[string]func(out, near, far []uint8){"fancyH2V2Go": fancyH2V2Go, "fancyH2V2": fancyH2V2} {
		out := make([]uint8, 2*len(near))
		f(out, near, far)
		for i, got := range out {
			x, e := i/2, i%2
			side := x - 1
			bias := 8
			if e == 1 {
				side, bias = x+1, 7
			}
			if want := (3*col(x) + col(side) + bias) >> 4; int(got) != want {
				t.Errorf("%s: output %d = %d, want %d", name, i, got, want)
			}
		}
	}
}

// TestColourTables checks libjpeg's integer colour tables against the
// JFIF formulas in float: R = Y + 1.402(Cr − 128),
// G = Y − 0.34414(Cb − 128) − 0.71414(Cr − 128), B = Y + 1.772(Cb − 128).
func TestColourTables(t *testing.T) {
	for y := 0; y < 256; y += 17 {
		for cb := 0; cb < 256; cb += 15 {
			for cr := 0; cr < 256; cr += 15 {
				r, g, b := clamp8(int32(y)+crR[cr]), clamp8(int32(y)+(cbG[cb]+crG[cr])>>16), clamp8(int32(y)+cbB[cb])
				Y, Cb, Cr := float64(y), float64(cb)-128, float64(cr)-128
				want := []float64{Y + 1.402*Cr, Y - 0.34414*Cb - 0.71414*Cr, Y + 1.772*Cb}
				for ch, got := range []uint8{r, g, b} {
					w := math.Min(math.Max(math.Round(want[ch]), 0), 255)
					if math.Abs(float64(got)-w) > 1 {
						t.Errorf("YCbCr (%d,%d,%d) channel %d = %d, want %v", y, cb, cr, ch, got, w)
					}
				}
			}
		}
	}
}

func TestFancyUpsamplingRows(t *testing.T) {
	// h2v1 of (10, 50, 90): libjpeg gives 10, (30+50+2)>>2 = 20, (150+10+1)>>2 = 40,
	// (150+90+2)>>2 = 60, (270+50+1)>>2 = 80, 90.
	out := make([]uint8, 6)
	fancyH2V1(out, []uint8{10, 50, 90})
	if want := []uint8{10, 20, 40, 60, 80, 90}; !bytes.Equal(out, want) {
		t.Errorf("h2v1 = %v, want %v", out, want)
	}
	// h2v2, near (16, 160), far (0, 0): column sums 48 and 480;
	// (48·4+8)>>4 = 12, (48·3+480+7)>>4 = 39, (480·3+48+8)>>4 = 93, (480·4+7)>>4 = 120.
	out = make([]uint8, 4)
	fancyH2V2(out, []uint8{16, 160}, []uint8{0, 0})
	if want := []uint8{12, 39, 93, 120}; !bytes.Equal(out, want) {
		t.Errorf("h2v2 = %v, want %v", out, want)
	}
}

// TestYccToRGBTables checks yccToRGB, with its packed tables, against
// libjpeg's ycc_rgb_convert written with the four tables as jdcolor.c has
// them, for every (Y, Cb, Cr).
func TestYccToRGBTables(t *testing.T) {
	yr, cb, cr := make([]uint8, 256), make([]uint8, 256), make([]uint8, 256)
	o := make([]uint8, 3*256)
	for y := range 256 {
		yr[y] = uint8(y)
	}
	for b := range 256 {
		for r := range 256 {
			for i := range cb {
				cb[i], cr[i] = uint8(b), uint8(r)
			}
			yccToRGB(o, yr, cb, cr)
			for y := range 256 {
				want := [3]uint8{clamp8(int32(y) + crR[r]), clamp8(int32(y) + (cbG[b]+crG[r])>>16), clamp8(int32(y) + cbB[b])}
				if got := [3]uint8(o[3*y : 3*y+3]); got != want {
					t.Fatalf("YCbCr (%d,%d,%d) = %v, want %v", y, b, r, got, want)
				}
			}
		}
	}
}

// TestFancy420Row checks the fused 4:2:0 row (fancy420Row) against
// fancyH2V2 on each chroma component followed by yccToRGB, on random rows
// of every chroma width 2…40 with even and odd luma widths.
func TestFancy420Row(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 20))
	bytesN := func(n int) []uint8 {
		b := make([]uint8, n)
		for i := range b {
			b[i] = uint8(rng.IntN(256))
		}
		return b
	}
	for n := 2; n <= 40; n++ {
		for _, w := range []int{2*n - 1, 2 * n} {
			yr := bytesN(w)
			cbN, cbF, crN, crF := bytesN(n), bytesN(n), bytesN(n), bytesN(n)
			upCb, upCr := make([]uint8, 2*n), make([]uint8, 2*n)
			fancyH2V2(upCb, cbN, cbF)
			fancyH2V2(upCr, crN, crF)
			want := make([]uint8, 3*w)
			yccToRGB(want, yr, upCb[:w], upCr[:w])
			near, far := make([]uint32, n), make([]uint32, n)
			for i := range n {
				near[i] = uint32(cbN[i]) | uint32(crN[i])<<16
				far[i] = uint32(cbF[i]) | uint32(crF[i])<<16
			}
			got := make([]uint8, 3*w)
			fancy420Row(got, yr, near, far, make([]int64, 2*n))
			if !bytes.Equal(got, want) {
				t.Fatalf("chroma width %d, luma width %d: fused row differs", n, w)
			}
		}
	}
}
