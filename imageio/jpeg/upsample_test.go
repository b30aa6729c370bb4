package jpeg

import (
	"bytes"
	"math"
	"testing"
)

// TestFancyH2V2Formula checks the fancy upsampler against the triangle
// filter written out directly: output sample 2x+e (e = 0, 1) of a chroma row
// weighs the nearest chroma sample 3/4 and the next one on its side 1/4 in
// each direction, with edges replicated and libjpeg's biases 8 (even) and 7 (odd).
func TestFancyH2V2Formula(t *testing.T) {
	near := []uint8{10, 200, 30, 255, 0, 77, 128}
	far := []uint8{250, 0, 99, 1, 64, 3, 255}
	out := make([]uint8, 2*len(near))
	fancyH2V2(out, near, far)
	col := func(x int) int {
		x = min(max(x, 0), len(near)-1)
		return 3*int(near[x]) + int(far[x])
	}
	for i, got := range out {
		x, e := i/2, i%2
		side := x - 1
		bias := 8
		if e == 1 {
			side, bias = x+1, 7
		}
		if want := (3*col(x) + col(side) + bias) >> 4; int(got) != want {
			t.Errorf("output %d = %d, want %d", i, got, want)
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
