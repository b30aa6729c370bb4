package corrupt

import (
	"fmt"
	"math"
)

// Border says how a filter extends an image beyond its edges.
type Border int

const (
	// Replicate repeats the edge sample: a a a | a b c (scipy/skimage
	// "nearest", ImageMagick "edge", OpenCV BORDER_REPLICATE).
	Replicate Border = iota
	// Reflect101 mirrors without repeating the edge sample: c b | a b c
	// (OpenCV's default BORDER_REFLECT_101, pyrtools "reflect1", numpy "reflect").
	Reflect101
	// Symmetric mirrors repeating the edge sample: b a | a b c (scipy.ndimage
	// "reflect", numpy "symmetric", OpenCV BORDER_REFLECT).
	Symmetric
	// Wrap is periodic: b c | a b c.
	Wrap
)

// borderIndex maps any integer i to a valid index in [0, n) under border b.
// n must be positive.
func borderIndex(i, n int, b Border) int {
	if i >= 0 && i < n {
		return i
	}
	if n == 1 {
		return 0
	}
	switch b {
	case Replicate:
		if i < 0 {
			return 0
		}
		return n - 1
	case Reflect101:
		period := 2 * (n - 1)
		i %= period
		if i < 0 {
			i += period
		}
		if i >= n {
			i = period - i
		}
		return i
	case Symmetric:
		period := 2 * n
		i %= period
		if i < 0 {
			i += period
		}
		if i >= n {
			i = period - 1 - i
		}
		return i
	case Wrap:
		i %= n
		if i < 0 {
			i += n
		}
		return i
	}
	panic(fmt.Sprintf("corrupt: unknown border %d", b))
}

// padRow writes into dst (len n+2r) the samples src[-r … n+r) extended with
// border b.
func padRow(dst, src []float32, r int, b Border) {
	n := len(src)
	copy(dst[r:r+n], src)
	for i := 1; i <= r; i++ {
		dst[r-i] = src[borderIndex(-i, n, b)]
		dst[r+n-1+i] = src[borderIndex(n-1+i, n, b)]
	}
}

// separable correlates plane src (w×h, row-major) with kx along rows and ky
// along columns (both odd-length, origin at the centre), extending borders
// with b, and writes the result to dst. dst may equal src. tmp must hold
// w*h samples and line at least max(w, h)+len(kx), and neither may alias
// src or dst.
func separable(dst, src []float32, w, h int, kx, ky []float32, b Border, tmp, line []float32) {
	rx, ry := len(kx)/2, len(ky)/2
	// Row pass into tmp.
	for y := range h {
		pad := line[:w+2*rx]
		padRow(pad, src[y*w:(y+1)*w], rx, b)
		out := tmp[y*w : (y+1)*w]
		for x := range out {
			win := pad[x : x+len(kx)]
			var s float32
			for k, v := range kx {
				s += v * win[k]
			}
			out[x] = s
		}
	}
	// Column pass: accumulate whole rows so that the inner loop runs along x.
	for y := range h {
		out := dst[y*w : (y+1)*w]
		for x := range out {
			out[x] = 0
		}
		for k, v := range ky {
			yy := borderIndex(y+k-ry, h, b)
			row := tmp[yy*w : (yy+1)*w]
			row = row[:len(out)]
			for x := range out {
				out[x] += v * row[x]
			}
		}
	}
}

// gaussianTaps returns the normalised 1-D Gaussian taps exp(−k²/(2σ²)),
// k = −r…r, as float32.
func gaussianTaps(sigma float64, r int) []float32 {
	t := make([]float64, 2*r+1)
	var s float64
	for k := -r; k <= r; k++ {
		v := 1.0
		if sigma > 0 {
			v = math.Exp(-float64(k*k) / (2 * sigma * sigma))
		} else if k != 0 {
			v = 0
		}
		t[k+r] = v
		s += v
	}
	out := make([]float32, len(t))
	for i, v := range t {
		out[i] = float32(v / s)
	}
	return out
}

// skimageRadius is scikit-image/scipy's Gaussian truncation radius
// int(4σ + 0.5) (corruptions.md §2.6).
func skimageRadius(sigma float64) int { return int(4*sigma + 0.5) }
