package imageio

import (
	"math"
	"testing"
)

// TestJPEGFancyH2V2Formula checks the fancy upsampler against the triangle
// filter written out directly: output sample 2x+e (e = 0, 1) of a chroma row
// weighs the nearest chroma sample 3/4 and the next one on its side 1/4 in
// each direction, with edges replicated and libjpeg's biases 8 (even) and 7 (odd).
func TestJPEGFancyH2V2Formula(t *testing.T) {
	near := []uint8{10, 200, 30, 255, 0, 77, 128}
	far := []uint8{250, 0, 99, 1, 64, 3, 255}
	out := make([]uint8, 2*len(near))
	jpegFancyH2V2(out, near, far)
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
	one := make([]uint8, 2)
	jpegFancyH2V2(one, []uint8{100}, []uint8{100})
	if one[0] != 100 || one[1] != 100 {
		t.Errorf("single column: %v, want 100 100", one)
	}
}

// TestJPEGColourTables checks libjpeg's integer colour tables against the
// JFIF formulas in float: R = Y + 1.402(Cr − 128),
// G = Y − 0.34414(Cb − 128) − 0.71414(Cr − 128), B = Y + 1.772(Cb − 128).
func TestJPEGColourTables(t *testing.T) {
	for y := 0; y < 256; y += 17 {
		for cb := 0; cb < 256; cb += 15 {
			for cr := 0; cr < 256; cr += 15 {
				r, g, b := jpegYCCToRGB(uint8(y), uint8(cb), uint8(cr))
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
