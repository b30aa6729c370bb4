package model

import (
	"math"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
)

// This file fuses resize, centre crop and normalisation. Images of 8-bit
// levels (every decoded 8-bit file) are resampled by
// imageio.ResizeWindow8, Pillow's 8-bit arithmetic, over the cropped window
// only (resample8Into); other images by the float path below.
//
// The float path fuses resize, centre crop and normalisation: it computes only
// the part of the resized image that the crop keeps, reading only the input
// rows that part needs, and writes the normalised tensor directly, with
// scratch buffers from a pool. The arithmetic is imageio.Resize's, step for
// step (Pillow's bilinear filter: the same float64 weights stored as
// float32, the same accumulation order, the horizontal pass first and a
// clamp to [0, 1] at the end), so the output equals imageio.Resize followed
// by imageio.CenterCrop; preprocess_test.go checks this.

// resampleKernel is imageio's resizeWeights: output o averages input
// samples lo[o]…lo[o]+taps−1 with weights w[o*taps:][:taps].
type resampleKernel struct {
	lo   []int
	w    []float32
	taps int
}

// build computes the kernel that resamples in samples to out, as imageio
// does (see imageio/resize.go), reusing k's slices.
func (k *resampleKernel) build(in, out int, w64 []float64) []float64 {
	scale := float64(in) / float64(out)
	fscale := math.Max(scale, 1)
	support := fscale
	window := func(o int) (lo, hi int, center float64) {
		center = (float64(o) + 0.5) * scale
		lo = max(int(center-support+0.5), 0)
		hi = min(int(center+support+0.5), in)
		return lo, hi, center
	}
	taps := 0
	for o := range out {
		lo, hi, _ := window(o)
		taps = max(taps, hi-lo)
	}
	taps = min(taps, in)
	k.taps = taps
	k.lo = growInts(k.lo, out)
	k.w = growFloats(k.w, out*taps)
	clear(k.w)
	for o := range out {
		lo, hi, center := window(o)
		w64 = w64[:0]
		var sum float64
		for i := lo; i < hi; i++ {
			x := math.Abs((float64(i) - center + 0.5) / fscale)
			v := 0.0
			if x < 1 {
				v = 1 - x
			}
			w64 = append(w64, v)
			sum += v
		}
		if sum != 0 {
			for i := range w64 {
				w64[i] /= sum
			}
		}
		shifted := min(lo, in-taps)
		k.lo[o] = shifted
		row := k.w[o*taps:][:taps]
		for i, v := range w64 {
			row[lo-shifted+i] = float32(v)
		}
	}
	return w64
}

func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

func growFloats(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// resampleScratch holds one call's kernels and intermediate rows.
type resampleScratch struct {
	kx, ky resampleKernel
	w64    []float64
	tmp    [3][]float32 // horizontal pass: rows r0…r1−1 of the window's columns
	row    [3][]float32 // one output row per channel
}

var resamplePool = sync.Pool{New: func() any { return new(resampleScratch) }}

// resampleInto writes the w×h window at (x0, y0) of imageio.Resize(m, rw,
// rh), normalised (channel k = src channel order[k]·a[k] + b[k]) in layout
// l, into dst (3·w·h long). The window must lie inside rw×rh.
func resampleInto(dst []float32, m *imageio.Image, rw, rh, x0, y0, w, h int, l Layout, order [3]int, a, b [3]float32) {
	s := resamplePool.Get().(*resampleScratch)
	defer resamplePool.Put(s)
	hx := rw != m.Width  // horizontal pass needed
	vy := rh != m.Height // vertical pass needed
	// Input rows r0…r1−1 feed the window's output rows.
	r0, r1 := y0, y0+h
	if vy {
		s.w64 = s.ky.build(m.Height, rh, s.w64)
		r0 = s.ky.lo[y0]
		r1 = s.ky.lo[y0+h-1] + s.ky.taps
	}
	if hx {
		s.w64 = s.kx.build(m.Width, rw, s.w64)
	}
	rows := r1 - r0
	for c := range 3 {
		s.tmp[c] = growFloats(s.tmp[c], rows*w)
		s.row[c] = growFloats(s.row[c], w)
	}
	// Horizontal pass over the needed rows, window columns only.
	for r := r0; r < r1; r++ {
		var d, src [3][]float32
		for c := range 3 {
			d[c] = s.tmp[c][(r-r0)*w:][:w]
			src[c] = m.Ch[c][r*m.Width:][:m.Width]
		}
		if !hx {
			for c := range 3 {
				copy(d[c], src[c][x0:x0+w])
			}
			continue
		}
		resampleLine3(d, src, &s.kx, x0)
	}
	// Vertical pass, clamp, normalise, write.
	if vy && l != NHWC && (s.ky.taps == 2 || s.ky.taps == 3) {
		verticalNCHW(dst, s, r0, y0, w, h, order, a, b)
		return
	}
	for y := range h {
		var out [3][]float32
		for c := range 3 {
			d := s.row[c][:w]
			if !vy {
				copy(d, s.tmp[c][(y0+y-r0)*w:][:w])
			} else {
				o := y0 + y
				clear(d)
				for i, wt := range s.ky.w[o*s.ky.taps:][:s.ky.taps] {
					if wt == 0 {
						continue
					}
					src := s.tmp[c][(s.ky.lo[o]+i-r0)*w:][:len(d)]
					for x, v := range src {
						d[x] += wt * v
					}
				}
			}
			out[c] = d
		}
		writeRow(dst, out, y, w, h, l, order, a, b)
	}
}

// verticalNCHW is the vertical pass, clamp and normalisation for 2- and
// 3-tap kernels, written straight into an NCHW tensor. Adding the terms of
// zero weights, which imageio skips, adds +0 to non-negative sums and so
// changes nothing.
func verticalNCHW(dst []float32, s *resampleScratch, r0, y0, w, h int, order [3]int, a, b [3]float32) {
	taps := s.ky.taps
	for k := range 3 {
		tmp := s.tmp[order[k]]
		ak, bk := a[k], b[k]
		for y := range h {
			o := y0 + y
			wt := s.ky.w[o*taps:][:taps]
			first := (s.ky.lo[o] - r0) * w
			d := dst[k*w*h+y*w:][:w]
			p0 := tmp[first:][:len(d)]
			p1 := tmp[first+w:][:len(d)]
			if taps == 2 {
				w0, w1 := wt[0], wt[1]
				for x := range d {
					d[x] = clamp01(w0*p0[x]+w1*p1[x])*ak + bk
				}
				continue
			}
			p2 := tmp[first+2*w:][:len(d)]
			w0, w1, w2 := wt[0], wt[1], wt[2]
			for x := range d {
				d[x] = clamp01(w0*p0[x]+w1*p1[x]+w2*p2[x])*ak + bk
			}
		}
	}
}

// resampleLine3 is imageio's resizeLine3 for output samples x0…x0+len(dst[0])−1.
func resampleLine3(dst, src [3][]float32, k *resampleKernel, x0 int) {
	taps := k.taps
	d0, d1, d2 := dst[0], dst[1][:len(dst[0])], dst[2][:len(dst[0])]
	s0, s1, s2 := src[0], src[1][:len(src[0])], src[2][:len(src[0])]
	lo := k.lo[x0:][:len(d0)]
	wts := k.w[x0*taps:][:len(d0)*taps]
	// The sums are written out for the common tap counts; Go evaluates
	// a + b + c left to right, so they round exactly as the loop does.
	switch taps {
	case 2:
		for o := range d0 {
			w := wts[o*2:][:2]
			l := lo[o]
			a, b, c := s0[l:][:2], s1[l:][:2], s2[l:][:2]
			d0[o] = w[0]*a[0] + w[1]*a[1]
			d1[o] = w[0]*b[0] + w[1]*b[1]
			d2[o] = w[0]*c[0] + w[1]*c[1]
		}
		return
	case 3:
		for o := range d0 {
			w := wts[o*3:][:3]
			l := lo[o]
			a, b, c := s0[l:][:3], s1[l:][:3], s2[l:][:3]
			d0[o] = w[0]*a[0] + w[1]*a[1] + w[2]*a[2]
			d1[o] = w[0]*b[0] + w[1]*b[1] + w[2]*b[2]
			d2[o] = w[0]*c[0] + w[1]*c[1] + w[2]*c[2]
		}
		return
	case 4:
		for o := range d0 {
			w := wts[o*4:][:4]
			l := lo[o]
			a, b, c := s0[l:][:4], s1[l:][:4], s2[l:][:4]
			d0[o] = w[0]*a[0] + w[1]*a[1] + w[2]*a[2] + w[3]*a[3]
			d1[o] = w[0]*b[0] + w[1]*b[1] + w[2]*b[2] + w[3]*b[3]
			d2[o] = w[0]*c[0] + w[1]*c[1] + w[2]*c[2] + w[3]*c[3]
		}
		return
	}
	for o := range d0 {
		w := wts[o*taps:][:taps]
		a := s0[lo[o]:][:len(w)]
		b := s1[lo[o]:][:len(w)]
		c := s2[lo[o]:][:len(w)]
		var acc0, acc1, acc2 float32
		for i, wt := range w {
			acc0 += wt * a[i]
			acc1 += wt * b[i]
			acc2 += wt * c[i]
		}
		d0[o], d1[o], d2[o] = acc0, acc1, acc2
	}
}

// writeRow clamps row y (one slice per source channel) to [0, 1] as
// imageio.Resize does, normalises it and stores it in dst.
func writeRow(dst []float32, row [3][]float32, y, w, h int, l Layout, order [3]int, a, b [3]float32) {
	if l == NHWC {
		s0, s1, s2 := row[order[0]][:w], row[order[1]][:w], row[order[2]][:w]
		d := dst[3*y*w:][:3*len(s0)]
		for x, v := range s0 {
			e := d[3*x:][:3]
			e[0] = clamp01(v)*a[0] + b[0]
			e[1] = clamp01(s1[x])*a[1] + b[1]
			e[2] = clamp01(s2[x])*a[2] + b[2]
		}
		return
	}
	for k := range 3 {
		s := row[order[k]][:w]
		d := dst[k*w*h+y*w:][:len(s)]
		ak, bk := a[k], b[k]
		for x, v := range s {
			d[x] = clamp01(v)*ak + bk
		}
	}
}

// clamp01 is imageio.Image.Clamp for one sample: NaN becomes 0.
func clamp01(v float32) float32 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// levelsPool holds the 8-bit windows of resample8Into.
var levelsPool = sync.Pool{New: func() any { return new([]uint8) }}

// resample8Into is resampleInto for images whose samples are all 8-bit
// levels: the window is resampled with imageio.ResizeWindow8 (Pillow's 8-bit
// bilinear resampler, so the values are torchvision's Resize on a PIL image
// followed by ToTensor) and then normalised. It returns false, writing
// nothing useful, when m has a sample that is not an 8-bit level.
func resample8Into(dst []float32, m *imageio.Image, rw, rh, x0, y0, w, h int, l Layout, order [3]int, a, b [3]float32) bool {
	bp := levelsPool.Get().(*[]uint8)
	defer levelsPool.Put(bp)
	if cap(*bp) < 3*w*h {
		*bp = make([]uint8, 3*w*h)
	}
	buf := (*bp)[:3*w*h]
	if !imageio.ResizeWindow8(buf, m, rw, rh, x0, y0, w, h) {
		return false
	}
	n := w * h
	if l == NHWC {
		s0, s1, s2 := buf[order[0]*n:][:n], buf[order[1]*n:][:n], buf[order[2]*n:][:n]
		d := dst[:3*n]
		for i, v := range s0 {
			e := d[3*i:][:3]
			e[0] = imageio.From8(v)*a[0] + b[0]
			e[1] = imageio.From8(s1[i])*a[1] + b[1]
			e[2] = imageio.From8(s2[i])*a[2] + b[2]
		}
		return true
	}
	for k := range 3 {
		s := buf[order[k]*n:][:n]
		d := dst[k*n:][:len(s)]
		ak, bk := a[k], b[k]
		for i, v := range s {
			d[i] = imageio.From8(v)*ak + bk
		}
	}
	return true
}
