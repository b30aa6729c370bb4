package imageio

import "image"

// Lossy WebP (VP8) stores limited-range ("video", Y 16…235) BT.601 YUV 4:2:0.
// golang.org/x/image/webp returns those planes as image.YCbCr, whose
// conversion assumes full-range JPEG YCbCr (golang/go#40173): black becomes
// RGB 16 and white 235, so contrast and saturation shrink. fromWebPLossy
// converts them as libwebp does instead, including its default "fancy"
// chroma upsampling, so that the result equals what libwebp (dwebp, and
// Pillow, which the reference implementations decode with) produces.

// webpYUVToRGB is libwebp's 14-bit fixed-point conversion (src/dsp/yuv.h).
func webpYUVToRGB(y, u, v int) (r, g, b uint8) {
	yy := (y * 19077) >> 8
	return webpClip8(yy + (v*26149)>>8 - 14234),
		webpClip8(yy - (u*6419)>>8 - (v*13320)>>8 + 8708),
		webpClip8(yy + (u*33050)>>8 - 17685)
}

func webpClip8(v int) uint8 {
	const mask = (256 << 6) - 1
	if v&^mask == 0 {
		return uint8(v >> 6)
	}
	if v < 0 {
		return 0
	}
	return 255
}

// fromWebPLossy converts a decoded lossy WebP frame (4:2:0) to an Image.
// Chroma is upsampled with libwebp's "fancy" upsampler: each output pixel
// gets (9·nearest + 3·horizontal + 3·vertical + 1·diagonal) / 16 of its
// four surrounding chroma samples, with libwebp's exact integer rounding
// (src/dsp/upsampling.c, UPSAMPLE_FUNC; row pairing as in src/dec/io_dec.c
// EmitFancyRGB).
func fromWebPLossy(s *image.YCbCr) *Image {
	b := s.Rect
	w, h := b.Dx(), b.Dy()
	m := New(w, h)
	cw := (w + 1) / 2
	ch := (h + 1) / 2
	yRow := func(y int) []uint8 { return s.Y[(y)*s.YStride:][:w] }
	// Chroma rows packed as u | v<<16, as libwebp's LOAD_UV.
	uv := func(cy int) []uint32 {
		row := make([]uint32, cw)
		cu := s.Cb[cy*s.CStride:][:cw]
		cv := s.Cr[cy*s.CStride:][:cw]
		for i := range row {
			row[i] = uint32(cu[i]) | uint32(cv[i])<<16
		}
		return row
	}
	emit := func(y int, yr []uint8, x int, uv0 uint32) {
		r, g, bb := webpYUVToRGB(int(yr[x]), int(uv0&0xff), int((uv0>>16)&0xff))
		o := y*w + x
		m.Ch[0][o], m.Ch[1][o], m.Ch[2][o] = lut8[r], lut8[g], lut8[bb]
	}
	// upsamplePair writes output rows top (with chroma rows topUV above and
	// curUV below it, weighted 3:1) and, when bottom ≥ 0, bottom (1:3).
	upsamplePair := func(top, bottom int, topUV, curUV []uint32) {
		ty := yRow(top)
		var by []uint8
		if bottom >= 0 {
			by = yRow(bottom)
		}
		tl, l := topUV[0], curUV[0]
		emit(top, ty, 0, (3*tl+l+0x00020002)>>2)
		if by != nil {
			emit(bottom, by, 0, (3*l+tl+0x00020002)>>2)
		}
		last := (w - 1) >> 1
		for x := 1; x <= last; x++ {
			t, u := topUV[x], curUV[x]
			avg := tl + t + l + u + 0x00080008
			d12 := (avg + 2*(t+l)) >> 3
			d03 := (avg + 2*(tl+u)) >> 3
			emit(top, ty, 2*x-1, (d12+tl)>>1)
			emit(top, ty, 2*x, (d03+t)>>1)
			if by != nil {
				emit(bottom, by, 2*x-1, (d03+l)>>1)
				emit(bottom, by, 2*x, (d12+u)>>1)
			}
			tl, l = t, u
		}
		if w&1 == 0 {
			emit(top, ty, w-1, (3*tl+l+0x00020002)>>2)
			if by != nil {
				emit(bottom, by, w-1, (3*l+tl+0x00020002)>>2)
			}
		}
	}
	// Row 0 uses chroma row 0 alone; rows 2k−1 and 2k sit between chroma
	// rows k−1 and k; an even height leaves the last row with the last
	// chroma row alone.
	prev := uv(0)
	upsamplePair(0, -1, prev, prev)
	for k := 1; k < ch; k++ {
		cur := uv(k)
		bottom := 2 * k
		if bottom >= h {
			bottom = -1
		}
		upsamplePair(2*k-1, bottom, prev, cur)
		prev = cur
	}
	if h&1 == 0 && h > 1 {
		upsamplePair(h-1, -1, prev, prev)
	}
	return m
}
