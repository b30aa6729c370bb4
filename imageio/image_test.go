package imageio

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// TestFromYCbCr compares the table-driven YCbCr conversion with the obvious
// per-pixel color.YCbCrToRGB at every subsampling ratio, odd sizes and a
// sub-image whose bounds do not start at the origin.
func TestFromYCbCr(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, ratio := range []image.YCbCrSubsampleRatio{
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
		image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410,
	} {
		full := image.NewYCbCr(image.Rect(0, 0, 23, 17), ratio)
		for _, p := range [][]uint8{full.Y, full.Cb, full.Cr} {
			for i := range p {
				p[i] = uint8(rng.IntN(256))
			}
		}
		for _, src := range []*image.YCbCr{full, full.SubImage(image.Rect(3, 5, 20, 16)).(*image.YCbCr)} {
			got := FromImage(src)
			b := src.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					c := src.YCbCrAt(x, y)
					r, g, bb := color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
					i := (y-b.Min.Y)*got.Width + x - b.Min.X
					if got.Ch[0][i] != From8(r) || got.Ch[1][i] != From8(g) || got.Ch[2][i] != From8(bb) {
						t.Fatalf("%v %v: pixel (%d, %d) = %v %v %v, want %d %d %d", ratio, b, x, y,
							got.Ch[0][i]*255, got.Ch[1][i]*255, got.Ch[2][i]*255, r, g, bb)
					}
				}
			}
		}
	}
}

// TestYCbCrTablesExhaustive checks the table arithmetic against
// color.YCbCrToRGB for all 2^24 inputs.
func TestYCbCrTablesExhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive")
	}
	for y := range 256 {
		yy1 := int32(y) * 0x10101
		for cb := range 256 {
			for cr := range 256 {
				r, g, b := color.YCbCrToRGB(uint8(y), uint8(cb), uint8(cr))
				if ycbcrClamp(yy1+ycbcrCrR[cr]) != r || ycbcrClamp(yy1+ycbcrCbG[cb]+ycbcrCrG[cr]) != g || ycbcrClamp(yy1+ycbcrCbB[cb]) != b {
					t.Fatalf("YCbCr(%d, %d, %d) differs from color.YCbCrToRGB", y, cb, cr)
				}
			}
		}
	}
}
