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

// opaqueType hides an image's concrete type, so FromImage takes its generic
// At-based path: the slow, obvious reference for the fast paths.
type opaqueType struct{ image.Image }

// TestFromImageFastPaths compares every typed fast path with the generic
// path (color.NRGBA64Model on At) on random pixels, alpha included.
func TestFromImageFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	r := image.Rect(2, 1, 13, 8) // not at the origin
	fill := func(p []uint8) {
		for i := range p {
			p[i] = uint8(rng.IntN(256))
		}
	}
	nrgba := image.NewNRGBA(r)
	fill(nrgba.Pix)
	nrgba64 := image.NewNRGBA64(r)
	fill(nrgba64.Pix)
	gray := image.NewGray(r)
	fill(gray.Pix)
	gray16 := image.NewGray16(r)
	fill(gray16.Pix)
	cmyk := image.NewCMYK(r)
	fill(cmyk.Pix)
	// Premultiplied images need colour ≤ alpha.
	rgba := image.NewRGBA(r)
	rgba64 := image.NewRGBA64(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			a := []uint16{0, 0xffff, uint16(rng.IntN(0x10000))}[rng.IntN(3)]
			c := color.RGBA64{uint16(rng.IntN(int(a) + 1)), uint16(rng.IntN(int(a) + 1)), uint16(rng.IntN(int(a) + 1)), a}
			rgba64.SetRGBA64(x, y, c)
			a8 := uint8(a >> 8)
			rgba.SetRGBA(x, y, color.RGBA{uint8(rng.IntN(int(a8) + 1)), uint8(rng.IntN(int(a8) + 1)), uint8(rng.IntN(int(a8) + 1)), a8})
		}
	}
	for _, tc := range []struct {
		name string
		m    image.Image
		tol  float64 // 8-bit RGBA un-premultiplies with rounding, the model truncates
	}{
		{"NRGBA64", nrgba64, 0}, {"Gray", gray, 0}, {"Gray16", gray16, 0}, {"RGBA64", rgba64, 0},
		{"RGBA", rgba, 1.0 / 255},
		// 8-bit color.CMYKToRGB (as Pillow) versus the 16-bit CMYK.RGBA.
		{"CMYK", cmyk, 1.0 / 255},
	} {
		fast, slow := FromImage(tc.m), FromImage(opaqueType{tc.m})
		if d := MaxAbsDiff(fast, slow); d > tc.tol+1e-7 {
			t.Errorf("%s: fast path differs from the generic one by %g", tc.name, d)
		}
	}
	// NRGBA keeps the stored 8-bit straight colour exactly (the generic path
	// premultiplies to 16 bits and back, losing precision at low alpha).
	got := FromImage(nrgba)
	for y := range r.Dy() {
		for x := range r.Dx() {
			i := nrgba.PixOffset(r.Min.X+x, r.Min.Y+y)
			for c := range 3 {
				if got.Ch[c][y*got.Width+x] != From8(nrgba.Pix[i+c]) {
					t.Fatalf("NRGBA (%d, %d) channel %d: %v, want %d/255", x, y, c, got.Ch[c][y*got.Width+x], nrgba.Pix[i+c])
				}
			}
		}
	}
}

// TestToRGB8Luma checks ToRGB8 and ToRGB8Luma against Quantize, NRGBA and
// Luma, written straight from their definitions, in every build.
func TestToRGB8Luma(t *testing.T) {
	m := New(31, 17)
	for c := range m.Ch {
		for i := range m.Ch[c] {
			m.Ch[c][i] = float32((i*(c+3))%97)/80 - 0.1 + float32(i%7)*0.0013 // off the 8-bit grid, some out of [0, 1]
		}
	}
	for _, r := range []Rounding{Round, Truncate} {
		rgb := make([]byte, 3*m.Pixels())
		ToRGB8(rgb, m, r)
		rgb2 := make([]byte, 3*m.Pixels())
		got := make([]float64, m.Pixels())
		ToRGB8Luma(rgb2, got, m, r)
		q := m.Clone()
		q.Quantize(r)
		want := make([]float64, m.Pixels())
		q.Luma(want)
		nr := q.NRGBA(Round)
		for i := range got {
			for c := range 3 {
				if rgb[3*i+c] != nr.Pix[4*i+c] || rgb2[3*i+c] != nr.Pix[4*i+c] {
					t.Fatalf("rounding %v, pixel %d: rgb %v and %v, want %v", r, i, rgb[3*i:3*i+3], rgb2[3*i:3*i+3], nr.Pix[4*i:4*i+3])
				}
			}
			if got[i] != want[i] {
				t.Fatalf("rounding %v, pixel %d: luma %v, want %v", r, i, got[i], want[i])
			}
		}
	}
}
