package imageio

import (
	"fmt"
	"math"
)

// This file implements the preprocessing torchvision applies to PIL images
// before classification: Resize(side) of the shorter side followed by
// CenterCrop(size), e.g. the ImageNet convention Resize(256) + CenterCrop(224).
//
// Resampling is Pillow's BILINEAR resize (Pillow src/libImaging/Resample.c,
// ImagingResample), which torchvision's Resize uses on PIL images with
// antialiasing. For each output coordinate o of an axis scaled from n to m
// samples:
//
//	scale   = n / m
//	fscale  = max(scale, 1)          (the triangle is stretched when downscaling)
//	support = 1 · fscale
//	center  = (o + 0.5) · scale
//	lo      = max(0, trunc(center − support + 0.5))
//	hi      = min(n, trunc(center + support + 0.5))
//	w(i)    = tri((i − center + 0.5) / fscale) for i in lo…hi−1, tri(x) = max(0, 1 − |x|)
//	out(o)  = Σ w(i)·in(i) / Σ w(i)
//
// The horizontal pass runs first, then the vertical pass, as in Pillow.
//
// Images whose samples are all 8-bit levels k/255 (Levels8: every decoded
// 8-bit file) take Pillow's 8-bit path exactly (resize8.go: 22-bit
// fixed-point weights, rounding to 8 bit after each pass), so that the result
// is what Pillow, and so torchvision's Resize on a PIL image followed by
// ToTensor, gives: the same 8-bit values, divided by 255. Other images (16-bit
// sources, corrupted or otherwise computed float images) take the float path:
// weights computed and normalised in float64, then stored and applied in
// float32 (float32 accumulation of a few taps adds errors near 1e-7, and the
// result is clamped to [0, 1], which the exact convex combination never
// leaves); this is Pillow's float ("F" mode) resampler without its 8-bit
// rounding.

// Resize returns m resampled to w×h with Pillow's BILINEAR filter (see
// above): Pillow's 8-bit arithmetic when every sample of m is an 8-bit level,
// float arithmetic otherwise. It returns a new image, also when the size does
// not change. It panics if w or h is not positive or m is empty.
func Resize(m *Image, w, h int) *Image {
	if w <= 0 || h <= 0 {
		panic(fmt.Sprintf("imageio: Resize to %dx%d", w, h))
	}
	if m.Width <= 0 || m.Height <= 0 {
		panic(fmt.Sprintf("imageio: Resize of an empty %dx%d image", m.Width, m.Height))
	}
	if w == m.Width && h == m.Height {
		return m.Clone()
	}
	if b := make([]uint8, 3*w*h); ResizeWindow8(b, m, w, h, 0, 0, w, h) {
		out := New(w, h)
		for c := range 3 {
			for i, k := range b[c*w*h:][:w*h] {
				out.Ch[c][i] = lut8[k]
			}
		}
		return out
	}
	return resizeFloat(m, w, h)
}

// resizeFloat is Resize's float path, for any image.
func resizeFloat(m *Image, w, h int) *Image {
	kx := resizeKernel(m.Width, w)
	ky := resizeKernel(m.Height, h)
	out := New(w, h)
	// tmp holds the horizontal pass's result, w×m.Height per channel.
	tmp := m.Ch
	if w != m.Width {
		t := New(w, m.Height)
		for y := range m.Height {
			var d, s [3][]float32
			for c := range 3 {
				d[c] = t.Ch[c][y*w:][:w]
				s[c] = m.Ch[c][y*m.Width:][:m.Width]
			}
			resizeLine3(d, s, kx)
		}
		tmp = t.Ch
	}
	for c := range 3 {
		if h == m.Height {
			copy(out.Ch[c], tmp[c])
			continue
		}
		resizeColumns(out.Ch[c], tmp[c], w, ky)
	}
	out.Clamp() // rounding can push a convex combination of 1s to 1.0000001
	return out
}

// resizeWeights holds, for every output sample o, the first input index
// lo[o] and the normalised weights w[o*taps:][:taps] of the input samples
// lo[o]…lo[o]+taps−1 it averages. Every output has the same number of taps
// (the largest any output needs); shorter windows are padded with zero
// weights and shifted to stay inside the input, so the inner loops have a
// fixed length.
type resizeWeights struct {
	lo   []int
	w    []float32
	taps int
}

func resizeKernel(in, out int) *resizeWeights {
	scale := float64(in) / float64(out)
	fscale := math.Max(scale, 1)
	support := fscale // bilinear support is 1
	type window struct {
		lo int
		w  []float64
	}
	wins := make([]window, out)
	all := make([]float64, 0, out*(2*int(math.Ceil(support))+2)) // backing store of every window
	taps := 0
	for o := range out {
		center := (float64(o) + 0.5) * scale
		lo := max(int(center-support+0.5), 0) // Go's int() truncates like C's (int)
		hi := min(int(center+support+0.5), in)
		start := len(all)
		var sum float64
		for i := lo; i < hi; i++ {
			v := triangle((float64(i) - center + 0.5) / fscale)
			all = append(all, v)
			sum += v
		}
		w := all[start:len(all):len(all)]
		if sum != 0 {
			for i := range w {
				w[i] /= sum
			}
		}
		wins[o] = window{lo, w}
		taps = max(taps, len(w))
	}
	taps = min(taps, in)
	k := &resizeWeights{lo: make([]int, out), w: make([]float32, out*taps), taps: taps}
	for o, win := range wins {
		lo := min(win.lo, in-taps) // shift left so that lo+taps ≤ in
		k.lo[o] = lo
		row := k.w[o*taps:][:taps]
		for i, v := range win.w {
			row[win.lo-lo+i] = float32(v)
		}
	}
	return k
}

func triangle(x float64) float64 {
	x = math.Abs(x)
	if x < 1 {
		return 1 - x
	}
	return 0
}

// resizeLine3 resamples one row of each channel, src[c] into dst[c], with
// the kernel k. Doing the three channels together gives three independent
// sums per output, which hides the latency of the additions.
func resizeLine3(dst, src [3][]float32, k *resizeWeights) {
	taps := k.taps
	d0, d1, d2 := dst[0], dst[1][:len(dst[0])], dst[2][:len(dst[0])]
	s0, s1, s2 := src[0], src[1][:len(src[0])], src[2][:len(src[0])]
	lo := k.lo[:len(d0)]
	for o := range d0 {
		w := k.w[o*taps:][:taps]
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

// resizeColumns resamples the w-wide rows of src vertically into dst.
func resizeColumns(dst, src []float32, w int, k *resizeWeights) {
	taps := k.taps
	for o := range len(dst) / w {
		d := dst[o*w:][:w]
		clear(d)
		for i, wt := range k.w[o*taps:][:taps] {
			if wt == 0 {
				continue
			}
			row := src[(k.lo[o]+i)*w:][:len(d)]
			for x, v := range row {
				d[x] += wt * v
			}
		}
	}
}

// ShorterSideSize returns the size torchvision's Resize(side) gives a w×h
// image: the shorter side becomes side and the longer side becomes
// int(side · long / short), truncated (torchvision
// _compute_resized_output_size). A square image becomes side×side.
// It panics if a size is not positive.
func ShorterSideSize(w, h, side int) (nw, nh int) {
	if w <= 0 || h <= 0 || side <= 0 {
		panic(fmt.Sprintf("imageio: ShorterSideSize(%d, %d, %d)", w, h, side))
	}
	if w <= h {
		return side, int(float64(side) * float64(h) / float64(w))
	}
	return int(float64(side) * float64(w) / float64(h)), side
}

// ResizeShorter returns m resized with Resize so that its shorter side is
// side, keeping the aspect ratio as ShorterSideSize rounds it. Like
// torchvision, it returns m itself (not a copy) when m already has that size.
func ResizeShorter(m *Image, side int) *Image {
	w, h := ShorterSideSize(m.Width, m.Height, side)
	if w == m.Width && h == m.Height {
		return m
	}
	return Resize(m, w, h)
}

// CenterCrop returns the w×h window at the centre of m, as torchvision's
// CenterCrop: the top-left corner is at (round((Width−w)/2),
// round((Height−h)/2)) with Python's round-half-to-even. Where the crop is
// larger than m, m is first padded with black, (w−Width)/2 columns (rounded
// down) on the left and the rest on the right, and likewise rows at the top.
// It returns m itself when it already is w×h. It panics if w or h is not positive.
func CenterCrop(m *Image, w, h int) *Image {
	if w <= 0 || h <= 0 {
		panic(fmt.Sprintf("imageio: CenterCrop to %dx%d", w, h))
	}
	if w == m.Width && h == m.Height {
		return m
	}
	x0, y0 := cropOffset(m.Width, w), cropOffset(m.Height, h)
	out := New(w, h)
	// Rows/columns of out that come from m: out(x, y) = m(x+x0, y+y0).
	xa, xb := max(0, -x0), min(w, m.Width-x0)
	ya, yb := max(0, -y0), min(h, m.Height-y0)
	if xa >= xb || ya >= yb {
		return out
	}
	for c := range 3 {
		src, dst := m.Ch[c], out.Ch[c]
		for y := ya; y < yb; y++ {
			copy(dst[y*w+xa:y*w+xb], src[(y+y0)*m.Width+xa+x0:])
		}
	}
	return out
}

// cropOffset is the position in the source of the crop's first sample along
// an axis of n samples cropped (or padded) to k.
func cropOffset(n, k int) int {
	if k > n {
		return -((k - n) / 2)
	}
	d := n - k
	// round(d/2) with ties to even: d/2 when d is even; for odd d the tie
	// (d−1)/2 + 0.5 goes to whichever of (d−1)/2, (d+1)/2 is even.
	if d%2 == 0 {
		return d / 2
	}
	if lo := (d - 1) / 2; lo%2 == 0 {
		return lo
	}
	return (d + 1) / 2
}

// Preprocess applies ResizeShorter(m, resize) and then CenterCrop to
// crop×crop, the ImageNet evaluation convention (resize 256, crop 224). A
// zero resize or crop skips that step; with both zero m itself is returned.
// It panics on negative arguments.
func Preprocess(m *Image, resize, crop int) *Image {
	if resize < 0 || crop < 0 {
		panic(fmt.Sprintf("imageio: Preprocess(resize %d, crop %d)", resize, crop))
	}
	if resize > 0 {
		m = ResizeShorter(m, resize)
	}
	if crop > 0 {
		m = CenterCrop(m, crop, crop)
	}
	return m
}
