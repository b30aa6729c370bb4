package imageio

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Image is a planar RGB image with float32 samples in [0, 1], stored row-major
// without padding: sample (x, y) of channel c is Ch[c][y*Width+x].
type Image struct {
	Width, Height int
	// Ch holds the red, green and blue planes, each Width*Height long.
	Ch [3][]float32
}

// New returns a black image of the given size. It panics if a side is negative.
func New(width, height int) *Image {
	if width < 0 || height < 0 {
		panic(fmt.Sprintf("imageio: negative size %dx%d", width, height))
	}
	n := width * height
	buf := make([]float32, 3*n)
	return &Image{Width: width, Height: height, Ch: [3][]float32{buf[:n:n], buf[n : 2*n : 2*n], buf[2*n:]}}
}

// Clone returns a deep copy of m.
func (m *Image) Clone() *Image {
	c := New(m.Width, m.Height)
	c.CopyFrom(m)
	return c
}

// CopyFrom copies src into m. It panics if the sizes differ.
func (m *Image) CopyFrom(src *Image) {
	m.mustMatch(src)
	for c := range 3 {
		copy(m.Ch[c], src.Ch[c])
	}
}

// SameSize reports whether m and o have the same width and height.
func (m *Image) SameSize(o *Image) bool { return m.Width == o.Width && m.Height == o.Height }

// Pixels returns Width*Height.
func (m *Image) Pixels() int { return m.Width * m.Height }

func (m *Image) mustMatch(o *Image) {
	if !m.SameSize(o) {
		panic(fmt.Sprintf("imageio: size mismatch %dx%d vs %dx%d", m.Width, m.Height, o.Width, o.Height))
	}
}

// Clamp clips every sample of m to [0, 1]. NaN becomes 0.
func (m *Image) Clamp() {
	for c := range 3 {
		p := m.Ch[c]
		for i, v := range p {
			if !(v > 0) {
				p[i] = 0
			} else if v > 1 {
				p[i] = 1
			}
		}
	}
}

// Rounding selects how float samples become 8-bit values.
type Rounding int

const (
	// Round rounds to the nearest integer with saturation (OpenCV imwrite, PNG output).
	Round Rounding = iota
	// Truncate truncates towards zero with saturation, as numpy's astype(uint8)
	// after clipping to 0…255; the VCR toolbox casts corrupted images this way.
	Truncate
)

// To8 converts a [0, 1] sample to 8 bit with the given rounding: v·255
// (exact in float64), plus ½ for Round, truncated, with samples below 0 and
// NaN giving 0 and samples at or above 255 giving 255.
func To8(v float32, r Rounding) uint8 {
	f := float64(v) * 255
	if r == Round {
		f += 0.5
	}
	// Written as two selects, which compile to conditional moves (amd64
	// CMOV, arm64 CSEL): corrupted images clip many samples at 0 and 1, and
	// branches on them were mispredicted often enough to make this function
	// 7 % of the vcr generate pipeline. The conversion's result is
	// implementation-defined where f is out of int32's range or NaN, and is
	// then replaced.
	k := int32(f)
	if !(f > 0) {
		k = 0
	}
	if f >= 255 {
		k = 255
	}
	return uint8(k)
}

// Quantize replaces every sample v by To8(v, r)/255, so that m holds exactly the
// values an 8-bit file would store.
func (m *Image) Quantize(r Rounding) {
	for c := range 3 {
		p := m.Ch[c]
		for i, v := range p {
			p[i] = lut8[To8(v, r)]
		}
	}
}

// lut8[k] = k/255 as float32, the canonical float value of an 8-bit sample.
var lut8 = func() (t [256]float32) {
	for k := range t {
		t[k] = float32(k) / 255
	}
	return t
}()

// From8 returns k/255 as float32.
func From8(k uint8) float32 { return lut8[k] }

// FromImage converts any image.Image to an Image, discarding alpha (see the
// package doc). Common concrete types take a fast path.
func FromImage(src image.Image) *Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	m := New(w, h)
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2]
	switch s := src.(type) {
	case *image.NRGBA:
		for y := range h {
			row := s.Pix[(y)*s.Stride:][: 4*w : 4*w]
			o := y * w
			for x := range w {
				R[o+x], G[o+x], B[o+x] = lut8[row[4*x]], lut8[row[4*x+1]], lut8[row[4*x+2]]
			}
		}
	case *image.RGBA:
		// Premultiplied: un-premultiply to get the straight colour.
		for y := range h {
			row := s.Pix[y*s.Stride:][: 4*w : 4*w]
			o := y * w
			for x := range w {
				r, g, bb, a := row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]
				if a == 255 {
					R[o+x], G[o+x], B[o+x] = lut8[r], lut8[g], lut8[bb]
				} else if a != 0 {
					R[o+x] = unpremul(uint32(r), uint32(a))
					G[o+x] = unpremul(uint32(g), uint32(a))
					B[o+x] = unpremul(uint32(bb), uint32(a))
				}
			}
		}
	case *image.Gray:
		for y := range h {
			row := s.Pix[y*s.Stride:][:w:w]
			o := y * w
			for x, v := range row {
				f := lut8[v]
				R[o+x], G[o+x], B[o+x] = f, f, f
			}
		}
	case *image.Gray16:
		for y := range h {
			row := s.Pix[y*s.Stride:][: 2*w : 2*w]
			o := y * w
			for x := range w {
				f := float32(uint16(row[2*x])<<8|uint16(row[2*x+1])) / 65535
				R[o+x], G[o+x], B[o+x] = f, f, f
			}
		}
	case *image.YCbCr:
		fromYCbCr(m, s)
	case *image.Paletted:
		pal := make([][3]float32, len(s.Palette))
		for i, c := range s.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			pal[i] = [3]float32{lut8[n.R], lut8[n.G], lut8[n.B]}
		}
		for y := range h {
			row := s.Pix[y*s.Stride:][:w:w]
			o := y * w
			for x, v := range row {
				var p [3]float32
				if int(v) < len(pal) {
					p = pal[v]
				}
				R[o+x], G[o+x], B[o+x] = p[0], p[1], p[2]
			}
		}
	case *image.CMYK:
		for y := range h {
			row := s.Pix[y*s.Stride:][: 4*w : 4*w]
			o := y * w
			for x := range w {
				r, g, bb := color.CMYKToRGB(row[4*x], row[4*x+1], row[4*x+2], row[4*x+3])
				R[o+x], G[o+x], B[o+x] = lut8[r], lut8[g], lut8[bb]
			}
		}
	case *image.NRGBA64:
		for y := range h {
			row := s.Pix[y*s.Stride:][: 8*w : 8*w]
			o := y * w
			for x := range w {
				p := row[8*x : 8*x+6 : 8*x+6]
				R[o+x] = float32(uint16(p[0])<<8|uint16(p[1])) / 65535
				G[o+x] = float32(uint16(p[2])<<8|uint16(p[3])) / 65535
				B[o+x] = float32(uint16(p[4])<<8|uint16(p[5])) / 65535
			}
		}
	case *image.RGBA64:
		// Premultiplied: un-premultiply as color.NRGBA64Model does.
		for y := range h {
			row := s.Pix[y*s.Stride:][: 8*w : 8*w]
			o := y * w
			for x := range w {
				p := row[8*x : 8*x+8 : 8*x+8]
				r, g, bb := uint32(p[0])<<8|uint32(p[1]), uint32(p[2])<<8|uint32(p[3]), uint32(p[4])<<8|uint32(p[5])
				switch a := uint32(p[6])<<8 | uint32(p[7]); a {
				case 0xffff:
				case 0:
					r, g, bb = 0, 0, 0
				default:
					r, g, bb = r*0xffff/a, g*0xffff/a, bb*0xffff/a
				}
				R[o+x], G[o+x], B[o+x] = float32(r)/65535, float32(g)/65535, float32(bb)/65535
			}
		}
	default:
		// Other types: go through the straight 16-bit model.
		for y := range h {
			o := y * w
			for x := range w {
				c := color.NRGBA64Model.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
				R[o+x] = float32(c.R) / 65535
				G[o+x] = float32(c.G) / 65535
				B[o+x] = float32(c.B) / 65535
			}
		}
	}
	return m
}

func unpremul(c, a uint32) float32 {
	v := (c*255 + a/2) / a
	if v > 255 {
		v = 255
	}
	return lut8[v]
}

// NRGBA returns m as an 8-bit opaque image, rounding each sample with r.
func (m *Image) NRGBA(r Rounding) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, m.Width, m.Height))
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2]
	for y := range m.Height {
		row := out.Pix[y*out.Stride:][: 4*m.Width : 4*m.Width]
		o := y * m.Width
		for x := range m.Width {
			row[4*x] = To8(R[o+x], r)
			row[4*x+1] = To8(G[o+x], r)
			row[4*x+2] = To8(B[o+x], r)
			row[4*x+3] = 255
		}
	}
	return out
}

// IsGray reports whether all three channels of m are equal.
func (m *Image) IsGray() bool {
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2]
	for i := range R {
		if R[i] != G[i] || R[i] != B[i] {
			return false
		}
	}
	return true
}

// Luma writes into dst (len Width*Height) the grey level of every pixel on the
// 0…255 scale, exactly as the VCR reference computes it: each channel rounded
// to 8 bit, then OpenCV 4.x's fixed-point RGB→GRAY
// Y = (9798·R + 19235·G + 3735·B + 16384) >> 15 (vif.md §1). It panics if dst
// has the wrong length.
func (m *Image) Luma(dst []float64) {
	if len(dst) != m.Pixels() {
		panic(fmt.Sprintf("imageio: Luma dst has %d samples, want %d", len(dst), m.Pixels()))
	}
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2][:len(dst)]
	R, G = R[:len(B)], G[:len(B)]
	for i := range B {
		r, g, b := uint32(To8(R[i], Round)), uint32(To8(G[i], Round)), uint32(To8(B[i], Round))
		dst[i] = float64((9798*r + 19235*g + 3735*b + 16384) >> 15)
	}
}

// LumaFloat writes into dst the unrounded grey level 0.299·R + 0.587·G + 0.114·B
// on the 0…255 scale, without 8-bit quantisation (vif.md §6 recommendation for
// float pipelines).
func (m *Image) LumaFloat(dst []float64) {
	if len(dst) != m.Pixels() {
		panic(fmt.Sprintf("imageio: LumaFloat dst has %d samples, want %d", len(dst), m.Pixels()))
	}
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2][:len(dst)]
	R, G = R[:len(B)], G[:len(B)]
	for i := range B {
		dst[i] = 255 * (0.299*float64(R[i]) + 0.587*float64(G[i]) + 0.114*float64(B[i]))
	}
}

// MeanSquaredDiff returns the mean over all samples of (a − b)². It panics if
// the sizes differ.
func MeanSquaredDiff(a, b *Image) float64 {
	a.mustMatch(b)
	var s float64
	for c := range 3 {
		x, y := a.Ch[c], b.Ch[c][:len(a.Ch[c])]
		for i := range x {
			d := float64(x[i] - y[i])
			s += d * d
		}
	}
	n := 3 * a.Pixels()
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// MaxAbsDiff returns the largest |a − b| over all samples.
func MaxAbsDiff(a, b *Image) float64 {
	a.mustMatch(b)
	var mx float64
	for c := range 3 {
		x, y := a.Ch[c], b.Ch[c][:len(a.Ch[c])]
		for i := range x {
			mx = math.Max(mx, math.Abs(float64(x[i]-y[i])))
		}
	}
	return mx
}

// fromYCbCr converts a YCbCr image (any subsampling) with exactly the
// arithmetic of color.YCbCrToRGB (JFIF full range, 16-bit fixed point),
// using per-row chroma offsets and tables instead of per-pixel calls.
func fromYCbCr(m *Image, s *image.YCbCr) {
	b := s.Rect
	w, h := b.Dx(), b.Dy()
	// cx[x] is the chroma column of pixel column x.
	cx := make([]int, w)
	for x := range cx {
		cx[x] = s.COffset(b.Min.X+x, b.Min.Y) - s.COffset(b.Min.X, b.Min.Y)
	}
	for y := range h {
		yr := s.Y[s.YOffset(b.Min.X, b.Min.Y+y):][:w]
		c0 := s.COffset(b.Min.X, b.Min.Y+y)
		cb, cr := s.Cb[c0:], s.Cr[c0:]
		o := y * w
		R, G, B := m.Ch[0][o:o+w], m.Ch[1][o:o+w], m.Ch[2][o:o+w]
		for x, yv := range yr {
			ci := cx[x]
			yy1 := int32(yv) * 0x10101
			cbv, crv := cb[ci], cr[ci]
			R[x] = lut8[ycbcrClamp(yy1+ycbcrCrR[crv])]
			G[x] = lut8[ycbcrClamp(yy1+ycbcrCbG[cbv]+ycbcrCrG[crv])]
			B[x] = lut8[ycbcrClamp(yy1+ycbcrCbB[cbv])]
		}
	}
}

// ycbcrClamp is color.YCbCrToRGB's final step: v >> 16 when in 0…255<<16,
// else 0 or 255.
func ycbcrClamp(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}

// The chroma terms of color.YCbCrToRGB: 91881·(Cr−128), −22554·(Cb−128),
// −46802·(Cr−128), 116130·(Cb−128).
var ycbcrCrR, ycbcrCbG, ycbcrCrG, ycbcrCbB = func() (a, b, c, d [256]int32) {
	for i := range 256 {
		v := int32(i) - 128
		a[i], b[i], c[i], d[i] = 91881*v, -22554*v, -46802*v, 116130*v
	}
	return
}()
