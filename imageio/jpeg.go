package imageio

import "image"

// Pillow, which the reference implementations decode with, uses libjpeg(-turbo)
// with its defaults: "fancy" (triangular) chroma upsampling for 4:2:0 and
// 4:2:2 images and table-driven YCbCr→RGB conversion. Go's image/jpeg returns
// the subsampled planes, and color.YCbCrToRGB with nearest-neighbour chroma
// differs from libjpeg by up to ~40 levels at sharp colour edges. fromJPEG
// does what libjpeg does after the inverse DCT (jdsample.c h2v2_fancy_upsample
// and h2v1_fancy_upsample, jdcolor.c ycc_rgb_convert). The inverse DCT itself
// is Go's, which differs from libjpeg's islow by a few levels at most.

// libjpeg's ycc_rgb_convert tables (SCALEBITS 16, ONE_HALF rounding):
// R = Y + Cr_r[Cr], G = Y + (Cb_g[Cb] + Cr_g[Cr]) >> 16, B = Y + Cb_b[Cb].
var jpegCrR, jpegCbB, jpegCbG, jpegCrG = func() (crr, cbb, cbg, crg [256]int32) {
	const half = 1 << 15
	fix := func(x float64) int32 { return int32(x*65536 + 0.5) }
	for i := range 256 {
		x := int32(i) - 128
		crr[i] = (fix(1.40200)*x + half) >> 16
		cbb[i] = (fix(1.77200)*x + half) >> 16
		cbg[i] = -fix(0.34414) * x
		crg[i] = -fix(0.71414)*x + half
	}
	return
}()

func jpegClamp(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// jpegYCCToRGB is libjpeg's ycc_rgb_convert for one pixel.
func jpegYCCToRGB(y, cb, cr uint8) (r, g, b uint8) {
	yy := int32(y)
	return jpegClamp(yy + jpegCrR[cr]), jpegClamp(yy + (jpegCbG[cb]+jpegCrG[cr])>>16), jpegClamp(yy + jpegCbB[cb])
}

// fromJPEG converts a decoded JPEG YCbCr image. 4:4:4, 4:2:2 and 4:2:0 get
// libjpeg's upsampling and colour conversion; other ratios fall back to
// FromImage (nearest-neighbour chroma, Go's conversion).
func fromJPEG(s *image.YCbCr) *Image {
	var hf, vf int
	switch s.SubsampleRatio {
	case image.YCbCrSubsampleRatio444:
		hf, vf = 1, 1
	case image.YCbCrSubsampleRatio422:
		hf, vf = 2, 1
	case image.YCbCrSubsampleRatio420:
		hf, vf = 2, 2
	default:
		return FromImage(s)
	}
	b := s.Rect
	w, h := b.Dx(), b.Dy()
	cw := (w + hf - 1) / hf // libjpeg's downsampled_width
	ch := (h + vf - 1) / vf
	c0 := s.COffset(b.Min.X, b.Min.Y)
	chromaRow := func(p []uint8, cy int) []uint8 {
		cy = min(max(cy, 0), ch-1) // libjpeg's context rows replicate the edges
		return p[c0+cy*s.CStride:][:cw]
	}
	m := New(w, h)
	ucb := make([]uint8, 2*cw+2)
	ucr := make([]uint8, 2*cw+2)
	for y := range h {
		// Full-resolution chroma for output row y.
		for k, p := range [2][]uint8{s.Cb, s.Cr} {
			out := ucb
			if k == 1 {
				out = ucr
			}
			switch vf {
			case 1:
				row := chromaRow(p, y)
				if hf == 1 {
					copy(out, row)
				} else {
					jpegFancyH2V1(out, row)
				}
			case 2:
				cy := y / 2
				near := chromaRow(p, cy)
				far := chromaRow(p, cy-1) // even rows: the row above is next nearest
				if y%2 == 1 {
					far = chromaRow(p, cy+1)
				}
				jpegFancyH2V2(out, near, far)
			}
		}
		yr := s.Y[s.YOffset(b.Min.X, b.Min.Y+y):][:w]
		o := y * w
		R, G, B := m.Ch[0][o:o+w], m.Ch[1][o:o+w], m.Ch[2][o:o+w]
		cb, cr := ucb[:w], ucr[:w]
		for x, yv := range yr {
			r, g, bb := jpegYCCToRGB(yv, cb[x], cr[x])
			R[x], G[x], B[x] = lut8[r], lut8[g], lut8[bb]
		}
	}
	return m
}

// jpegFancyH2V1 doubles a chroma row horizontally as libjpeg's
// h2v1_fancy_upsample: 3/4 nearer + 1/4 further sample, alternating
// rounding. out holds at least 2·len(in) samples.
func jpegFancyH2V1(out, in []uint8) {
	n := len(in)
	if n == 1 {
		out[0], out[1] = in[0], in[0]
		return
	}
	out[0] = in[0]
	out[1] = uint8((int(in[0])*3 + int(in[1]) + 2) >> 2)
	for i := 1; i < n-1; i++ {
		v := int(in[i]) * 3
		out[2*i] = uint8((v + int(in[i-1]) + 1) >> 2)
		out[2*i+1] = uint8((v + int(in[i+1]) + 2) >> 2)
	}
	out[2*n-2] = uint8((int(in[n-1])*3 + int(in[n-2]) + 1) >> 2)
	out[2*n-1] = in[n-1]
}

// jpegFancyH2V2 computes one output row of libjpeg's h2v2_fancy_upsample
// from the nearest chroma row and the next nearest (above for even output
// rows, below for odd ones): 9/16, 3/16, 3/16, 1/16 weights with libjpeg's
// alternating +8 / +7 rounding. out holds at least 2·len(near) samples.
func jpegFancyH2V2(out, near, far []uint8) {
	n := len(near)
	far = far[:n]
	sum := func(i int) int { return int(near[i])*3 + int(far[i]) }
	this := sum(0)
	if n == 1 {
		out[0] = uint8((this*4 + 8) >> 4)
		out[1] = uint8((this*4 + 7) >> 4)
		return
	}
	next := sum(1)
	out[0] = uint8((this*4 + 8) >> 4)
	out[1] = uint8((this*3 + next + 7) >> 4)
	last := this
	this = next
	for i := 1; i < n-1; i++ {
		next = sum(i + 1)
		out[2*i] = uint8((this*3 + last + 8) >> 4)
		out[2*i+1] = uint8((this*3 + next + 7) >> 4)
		last, this = this, next
	}
	out[2*n-2] = uint8((this*3 + last + 8) >> 4)
	out[2*n-1] = uint8((this*4 + 7) >> 4)
}
