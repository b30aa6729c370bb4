package imageio

import (
	"fmt"
	"math"
	"sync"
)

// This file is Pillow's 8-bit bilinear resampler (Pillow src/libImaging/
// Resample.c: precompute_coeffs, normalize_coeffs_8bpc and the 8bpc
// horizontal and vertical passes), which is what torchvision's Resize does to
// an 8-bit PIL image before ToTensor divides by 255. It is used for images
// whose samples are all 8-bit levels k/255 (every 8-bit PNG, JPEG, GIF or
// WebP as decoded), so that vcr's input tensors equal torchvision's.
//
// Per axis resampled from n to m samples, output o averages the inputs
// lo…lo+cnt−1 with the float64 weights of resize.go's comment (the filter's
// argument is (i − center + 0.5) · (1/fscale), Pillow's multiplication by the
// reciprocal), normalised to sum 1 and then turned into 22-bit fixed point:
// k = trunc(0.5 + w · 2²²). A pass computes, for 8-bit inputs p(i),
//
//	acc = 2²¹ + Σ k(i) · p(i)   (in 32-bit integers)
//	out = clamp(acc >> 22, 0, 255)
//
// so each pass rounds to 8 bit. The horizontal pass runs first (over the rows
// the vertical pass needs), then the vertical pass, as in Pillow's
// ImagingResampleInner; a pass whose size does not change is skipped.

// precision8 is Pillow's PRECISION_BITS for 8-bit images: 32 − 8 − 2.
const precision8 = 22

// fixedKernel holds, for each output sample o, the first input lo[o] and
// the 22-bit fixed-point weights k[o*taps:][:taps] of the inputs
// lo[o]…lo[o]+taps−1. Every output has the same number of taps (the largest
// any output needs); shorter windows are padded with zero weights and
// shifted to stay inside the input, which adds only zero terms to the
// integer sums, so the results are Pillow's exactly.
type fixedKernel struct {
	lo   []int
	k    []int32
	taps int
	w64  []float64
	win  []int // each output's unshifted first input and count, 2 per output
}

// build computes the kernel resampling in samples to out.
func (fk *fixedKernel) build(in, out int) {
	scale := float64(in) / float64(out)
	fscale := math.Max(scale, 1)
	support := fscale // the bilinear filter's support is 1
	inv := 1 / fscale
	fk.win = growInt(fk.win, 2*out)
	fk.w64 = fk.w64[:0]
	taps := 0
	for o := range out {
		center := (float64(o) + 0.5) * scale
		lo := max(int(center-support+0.5), 0)
		hi := min(int(center+support+0.5), in)
		start := len(fk.w64)
		var sum float64
		for i := lo; i < hi; i++ {
			v := triangle((float64(i) - center + 0.5) * inv)
			fk.w64 = append(fk.w64, v)
			sum += v
		}
		if sum != 0 {
			for i := start; i < len(fk.w64); i++ {
				fk.w64[i] /= sum
			}
		}
		fk.win[2*o], fk.win[2*o+1] = lo, hi-lo
		taps = max(taps, hi-lo)
	}
	taps = min(taps, in)
	fk.taps = taps
	fk.lo = growInt(fk.lo, out)
	if cap(fk.k) < out*taps {
		fk.k = make([]int32, out*taps)
	}
	fk.k = fk.k[:out*taps]
	clear(fk.k)
	next := 0
	for o := range out {
		lo, n := fk.win[2*o], fk.win[2*o+1]
		shifted := min(lo, in-taps)
		fk.lo[o] = shifted
		row := fk.k[o*taps:][:taps]
		for i, v := range fk.w64[next : next+n] {
			// The bilinear weights are never negative, so Pillow's
			// negative branch (trunc(−0.5 + w·2²²)) is not needed.
			row[lo-shifted+i] = int32(0.5 + v*(1<<precision8))
		}
		next += n
	}
}

func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// clip8 is Pillow's clip8: the accumulator shifted down and clamped to 0…255.
func clip8(acc int32) uint8 {
	v := acc >> precision8
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// resize8Scratch holds one call's kernels and 8-bit buffers.
type resize8Scratch struct {
	kx, ky fixedKernel
	src    [3][]uint8 // the needed source rows and columns, per channel
	tmp    [3][]uint8 // the horizontal pass's result, per channel
}

var resize8Pool = sync.Pool{New: func() any { return new(resize8Scratch) }}

// Levels8 reports whether every sample of m is an 8-bit level, exactly
// From8(k) for some k, as the decoders store the samples of 8-bit files.
func Levels8(m *Image) bool {
	var dst [64]uint8
	for c := range 3 {
		p := m.Ch[c]
		for len(p) > 0 {
			n := min(len(p), len(dst))
			if !toLevels(dst[:n], p[:n]) {
				return false
			}
			p = p[n:]
		}
	}
	return true
}

// toLevels writes the 8-bit level k of every sample src[i] = From8(k) into
// dst, and reports whether every sample is such a level.
func toLevels(dst []uint8, src []float32) bool {
	dst = dst[:len(src)]
	for i, v := range src {
		f := v*255 + 0.5
		if !(f >= 0 && f < 256) { // also NaN
			return false
		}
		k := uint8(int32(f))
		if lut8[k] != v {
			return false
		}
		dst[i] = k
	}
	return true
}

// ResizeWindow8 writes the w×h window at (x0, y0) of m resized to rw×rh
// with Pillow's 8-bit bilinear resampler (see above) into dst, as 8-bit
// values in three planes (red, green, blue; each w·h long, row-major). Only
// the part of the resized image inside the window is computed, from only the
// input samples it needs; the result equals cropping Pillow's
// im.resize((rw, rh), Image.BILINEAR). It needs every sample of m that it
// reads to be an 8-bit level (Levels8); when one is not, it returns false
// and dst's content is unspecified. It panics if dst is shorter than 3·w·h,
// a size is not positive, m is empty or the window is not inside rw×rh.
func ResizeWindow8(dst []uint8, m *Image, rw, rh, x0, y0, w, h int) bool {
	if rw <= 0 || rh <= 0 || w <= 0 || h <= 0 || m.Width <= 0 || m.Height <= 0 {
		panic(fmt.Sprintf("imageio: ResizeWindow8 of %dx%d to %dx%d, window %dx%d", m.Width, m.Height, rw, rh, w, h))
	}
	if x0 < 0 || y0 < 0 || x0+w > rw || y0+h > rh {
		panic(fmt.Sprintf("imageio: ResizeWindow8 window %dx%d at (%d, %d) outside %dx%d", w, h, x0, y0, rw, rh))
	}
	if len(dst) < 3*w*h {
		panic(fmt.Sprintf("imageio: ResizeWindow8 dst has %d samples, needs %d", len(dst), 3*w*h))
	}
	s := resize8Pool.Get().(*resize8Scratch)
	defer resize8Pool.Put(s)
	hx, vy := rw != m.Width, rh != m.Height
	// Input rows r0…r1−1 and columns c0…c1−1 feed the window.
	r0, r1, c0, c1 := y0, y0+h, x0, x0+w
	if vy {
		s.ky.build(m.Height, rh)
		r0, r1 = s.ky.lo[y0], s.ky.lo[y0+h-1]+s.ky.taps
	}
	if hx {
		s.kx.build(m.Width, rw)
		c0, c1 = s.kx.lo[x0], s.kx.lo[x0+w-1]+s.kx.taps
	}
	rows, cols := r1-r0, c1-c0
	for c := range 3 {
		s.src[c] = growUint8(s.src[c], rows*cols)
		s.tmp[c] = growUint8(s.tmp[c], rows*w)
		// 8-bit copy of the needed part of channel c.
		for r := range rows {
			if !toLevels(s.src[c][r*cols:][:cols], m.Ch[c][(r0+r)*m.Width+c0:][:cols]) {
				return false
			}
		}
	}
	// Horizontal pass: rows r0…r1−1, the window's columns.
	for r := range rows {
		var d, src [3][]uint8
		for c := range 3 {
			d[c] = s.tmp[c][r*w:][:w]
			src[c] = s.src[c][r*cols:][:cols]
		}
		if !hx {
			for c := range 3 {
				copy(d[c], src[c])
			}
			continue
		}
		horizontal8(d, src, s.kx.lo[x0:x0+w], s.kx.k[x0*s.kx.taps:][:w*s.kx.taps], s.kx.taps, c0)
	}
	// Vertical pass into the window.
	for c := range 3 {
		d := dst[c*w*h:][:w*h]
		tmp := s.tmp[c]
		for y := range h {
			out := d[y*w:][:w]
			if !vy {
				copy(out, tmp[(y0+y-r0)*w:][:w])
				continue
			}
			o := y0 + y
			vertical8(out, tmp[(s.ky.lo[o]-r0)*w:], s.ky.k[o*s.ky.taps:][:s.ky.taps])
		}
	}
	return true
}

// half is the rounding term of Pillow's fixed-point sums.
const half = 1 << (precision8 - 1)

// horizontal8 resamples one row of each channel: output x averages
// src[c][lo[x]−c0 …] with the weights k[x*taps:][:taps].
func horizontal8(dst, src [3][]uint8, lo []int, k []int32, taps, c0 int) {
	d0, d1, d2 := dst[0], dst[1][:len(dst[0])], dst[2][:len(dst[0])]
	s0, s1, s2 := src[0], src[1][:len(src[0])], src[2][:len(src[0])]
	lo = lo[:len(d0)]
	switch taps {
	case 2:
		for x := range d0 {
			wt := k[2*x:][:2]
			l := lo[x] - c0
			a, b, c := s0[l:][:2], s1[l:][:2], s2[l:][:2]
			d0[x] = clip8(half + int32(a[0])*wt[0] + int32(a[1])*wt[1])
			d1[x] = clip8(half + int32(b[0])*wt[0] + int32(b[1])*wt[1])
			d2[x] = clip8(half + int32(c[0])*wt[0] + int32(c[1])*wt[1])
		}
		return
	case 3:
		for x := range d0 {
			wt := k[3*x:][:3]
			l := lo[x] - c0
			a, b, c := s0[l:][:3], s1[l:][:3], s2[l:][:3]
			d0[x] = clip8(half + int32(a[0])*wt[0] + int32(a[1])*wt[1] + int32(a[2])*wt[2])
			d1[x] = clip8(half + int32(b[0])*wt[0] + int32(b[1])*wt[1] + int32(b[2])*wt[2])
			d2[x] = clip8(half + int32(c[0])*wt[0] + int32(c[1])*wt[1] + int32(c[2])*wt[2])
		}
		return
	case 4:
		for x := range d0 {
			wt := k[4*x:][:4]
			l := lo[x] - c0
			a, b, c := s0[l:][:4], s1[l:][:4], s2[l:][:4]
			d0[x] = clip8(half + int32(a[0])*wt[0] + int32(a[1])*wt[1] + int32(a[2])*wt[2] + int32(a[3])*wt[3])
			d1[x] = clip8(half + int32(b[0])*wt[0] + int32(b[1])*wt[1] + int32(b[2])*wt[2] + int32(b[3])*wt[3])
			d2[x] = clip8(half + int32(c[0])*wt[0] + int32(c[1])*wt[1] + int32(c[2])*wt[2] + int32(c[3])*wt[3])
		}
		return
	}
	for x := range d0 {
		wt := k[taps*x:][:taps]
		l := lo[x] - c0
		a, b, c := s0[l:][:taps], s1[l:][:taps], s2[l:][:taps]
		acc0, acc1, acc2 := int32(half), int32(half), int32(half)
		for i, v := range wt {
			acc0 += int32(a[i]) * v
			acc1 += int32(b[i]) * v
			acc2 += int32(c[i]) * v
		}
		d0[x], d1[x], d2[x] = clip8(acc0), clip8(acc1), clip8(acc2)
	}
}

// vertical8 computes one output row: dst[x] averages the rows
// src[i*len(dst):] (i < len(k)) at x with the weights k.
func vertical8(dst, src []uint8, k []int32) {
	w := len(dst)
	switch len(k) {
	case 2:
		p0, p1 := src[:w], src[w:][:w]
		w0, w1 := k[0], k[1]
		for x := range dst {
			dst[x] = clip8(half + int32(p0[x])*w0 + int32(p1[x])*w1)
		}
		return
	case 3:
		p0, p1, p2 := src[:w], src[w:][:w], src[2*w:][:w]
		w0, w1, w2 := k[0], k[1], k[2]
		for x := range dst {
			dst[x] = clip8(half + int32(p0[x])*w0 + int32(p1[x])*w1 + int32(p2[x])*w2)
		}
		return
	case 4:
		p0, p1, p2, p3 := src[:w], src[w:][:w], src[2*w:][:w], src[3*w:][:w]
		w0, w1, w2, w3 := k[0], k[1], k[2], k[3]
		for x := range dst {
			dst[x] = clip8(half + int32(p0[x])*w0 + int32(p1[x])*w1 + int32(p2[x])*w2 + int32(p3[x])*w3)
		}
		return
	}
	for x := range dst {
		acc := int32(half)
		for i, v := range k {
			acc += int32(src[i*w+x]) * v
		}
		dst[x] = clip8(acc)
	}
}

func growUint8(s []uint8, n int) []uint8 {
	if cap(s) < n {
		return make([]uint8, n)
	}
	return s[:n]
}
