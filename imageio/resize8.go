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

// fixedKernel holds, for each output sample o, the first input lo[o], the
// number of inputs cnt[o] and their 22-bit fixed-point weights
// k[o*stride:][:cnt[o]].
type fixedKernel struct {
	lo, cnt []int
	k       []int32
	stride  int
}

// build computes the kernel resampling in samples to out.
func (fk *fixedKernel) build(in, out int) {
	scale := float64(in) / float64(out)
	fscale := math.Max(scale, 1)
	support := fscale // the bilinear filter's support is 1
	inv := 1 / fscale
	fk.stride = int(math.Ceil(support))*2 + 1
	fk.lo = growInt(fk.lo, out)
	fk.cnt = growInt(fk.cnt, out)
	if cap(fk.k) < out*fk.stride {
		fk.k = make([]int32, out*fk.stride)
	}
	fk.k = fk.k[:out*fk.stride]
	var w [64]float64
	ws := w[:0]
	for o := range out {
		center := (float64(o) + 0.5) * scale
		lo := max(int(center-support+0.5), 0)
		hi := min(int(center+support+0.5), in)
		ws = ws[:0]
		var sum float64
		for i := lo; i < hi; i++ {
			v := triangle((float64(i) - center + 0.5) * inv)
			ws = append(ws, v)
			sum += v
		}
		row := fk.k[o*fk.stride:][:fk.stride]
		clear(row)
		for i, v := range ws {
			if sum != 0 {
				v /= sum
			}
			// The bilinear weights are never negative, so Pillow's
			// negative branch (trunc(−0.5 + w·2²²)) is not needed.
			row[i] = int32(0.5 + v*(1<<precision8))
		}
		fk.lo[o], fk.cnt[o] = lo, len(ws)
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
	src    []uint8 // the needed source rows and columns, one channel
	tmp    []uint8 // the horizontal pass's result, one channel
	acc    []int32 // one output row's accumulators
}

var resize8Pool = sync.Pool{New: func() any { return new(resize8Scratch) }}

// Levels8 reports whether every sample of m is an 8-bit level, exactly
// From8(k) for some k, as the decoders store the samples of 8-bit files.
func Levels8(m *Image) bool {
	for c := range 3 {
		for _, v := range m.Ch[c] {
			if _, ok := level8(v); !ok {
				return false
			}
		}
	}
	return true
}

// level8 returns k when v is From8(k).
func level8(v float32) (uint8, bool) {
	if !(v >= 0 && v <= 1) {
		return 0, false
	}
	k := uint8(v*255 + 0.5)
	return k, lut8[k] == v
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
		r0, r1 = s.ky.lo[y0], 0
		for o := y0; o < y0+h; o++ {
			r1 = max(r1, s.ky.lo[o]+s.ky.cnt[o])
		}
	}
	if hx {
		s.kx.build(m.Width, rw)
		c0, c1 = s.kx.lo[x0], 0
		for o := x0; o < x0+w; o++ {
			c1 = max(c1, s.kx.lo[o]+s.kx.cnt[o])
		}
	}
	rows, cols := r1-r0, c1-c0
	s.src = growUint8(s.src, rows*cols)
	s.tmp = growUint8(s.tmp, rows*w)
	if cap(s.acc) < w {
		s.acc = make([]int32, w)
	}
	s.acc = s.acc[:w]
	for c := range 3 {
		// 8-bit copy of the needed part of channel c.
		for r := range rows {
			in := m.Ch[c][(r0+r)*m.Width+c0:][:cols]
			out := s.src[r*cols:][:len(in)]
			for i, v := range in {
				k, ok := level8(v)
				if !ok {
					return false
				}
				out[i] = k
			}
		}
		// Horizontal pass: rows r0…r1−1, window columns.
		tmp := s.tmp[:rows*w]
		for r := range rows {
			in := s.src[r*cols:][:cols]
			out := tmp[r*w:][:w]
			if !hx {
				copy(out, in[x0-c0:])
				continue
			}
			for x := range out {
				o := x0 + x
				k := s.kx.k[o*s.kx.stride:][:s.kx.cnt[o]]
				p := in[s.kx.lo[o]-c0:][:len(k)]
				acc := int32(1 << (precision8 - 1))
				for i, wt := range k {
					acc += int32(p[i]) * wt
				}
				out[x] = clip8(acc)
			}
		}
		// Vertical pass into the window.
		d := dst[c*w*h:][:w*h]
		for y := range h {
			out := d[y*w:][:w]
			if !vy {
				copy(out, tmp[(y0+y-r0)*w:][:w])
				continue
			}
			o := y0 + y
			k := s.ky.k[o*s.ky.stride:][:s.ky.cnt[o]]
			first := s.ky.lo[o] - r0
			acc := s.acc[:len(out)]
			for x := range acc {
				acc[x] = 1 << (precision8 - 1)
			}
			for i, wt := range k {
				for x, p := range tmp[(first+i)*w:][:len(acc)] {
					acc[x] += int32(p) * wt
				}
			}
			for x, a := range acc {
				out[x] = clip8(a)
			}
		}
	}
	return true
}

func growUint8(s []uint8, n int) []uint8 {
	if cap(s) < n {
		return make([]uint8, n)
	}
	return s[:n]
}
