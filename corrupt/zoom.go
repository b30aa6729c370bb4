package corrupt

import (
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "zoom_blur",
		Family: Blur,
		Params: []Param{
			{Name: "max_zoom", Min: 1, Max: 1.31, Trend: +1,
				Doc: "stop value of the zoom factor list arange(1, max_zoom, step); ImageNet-C uses 1.11 … 1.31 (corruptions.md §2.10)"},
			{Name: "step", Min: 0.01, Max: 0.03, Trend: 0,
				Doc: "spacing of the zoom factors; ImageNet-C uses 0.01 … 0.03 (corruptions.md §2.10)"},
		},
		Severities: [][]float64{{1.11, 0.01}, {1.16, 0.01}, {1.21, 0.02}, {1.26, 0.02}, {1.31, 0.03}},
		Identity:   []float64{1, 0.01},
		Doc: "Zoom blur (ImageNet-C, corruptions.md §2.10): the mean of the image and its centre zooms by every factor " +
			"z of numpy arange(1, max_zoom, step) (numpy's length rule ⌈(stop − 1)/step⌉, so in float arithmetic " +
			"severity 1 has the 12 factors 1.00…1.11). A zoom crops the central ⌈H/z⌉×⌈W/z⌉ block, enlarges it to " +
			"round(·z) with scipy.ndimage.zoom order-1 (bilinear, corner-aligned) interpolation and keeps the central " +
			"H×W. A continuous generalisation of ImageNet-C's five factor lists, which the severities reproduce. " +
			"Departure: non-square images are handled per axis (the reference crops H×H and fails otherwise). " +
			"max_zoom ≤ 1 gives the single factor 1 and the identity.",
		Papers: []string{"imagenet-c"},
		apply:  applyZoomBlur,
	})
}

// zoomFactors appends numpy's arange(1, stop, step) to buf.
func zoomFactors(buf []float64, stop, step float64) []float64 {
	n := int(math.Ceil((stop - 1) / step))
	d := (1 + step) - 1 // numpy fills start + i·((start+step) − start)
	for i := range n {
		buf = append(buf, 1+float64(i)*d)
	}
	return buf
}

// zoomAxis describes, for one axis of length n and zoom z, where each output
// sample of the centre zoom reads: sample o interpolates src[i0[o]] and
// src[i0[o]+1] (clamped) with weight f[o] on the latter.
type zoomAxis struct {
	i0 []int32
	f  []float32
}

// plan fills a for an axis of n samples: crop the central c = ⌈n/z⌉, enlarge
// to m = round(c·z) with scipy's corner-aligned mapping, keep the central n.
// It returns c. With cropOnly the indices address a source holding just the
// c cropped samples (snow's noise field, which may be larger than the axis
// when z < 1); otherwise the whole axis of n ≥ c samples (z ≥ 1).
func (a *zoomAxis) plan(n int, z float64, cropOnly bool) (srcLen int) {
	c := int(math.Ceil(float64(n) / z))
	m := int(math.RoundToEven(float64(c) * z))
	top := (n - c) / 2
	if cropOnly {
		top = 0
	}
	trim := (m - n) / 2
	scale := 1.0
	if m > 1 {
		scale = float64(c-1) / float64(m-1)
	}
	if cap(a.i0) < n {
		a.i0, a.f = make([]int32, 0, n), make([]float32, 0, n)
	}
	a.i0, a.f = a.i0[:0], a.f[:0]
	for o := range n {
		x := float64(o+trim) * scale
		x = math.Max(0, math.Min(x, float64(c-1)))
		i := int(x)
		f := x - float64(i)
		if i >= c-1 {
			i, f = c-1, 0
		}
		a.i0 = append(a.i0, int32(top+i))
		a.f = append(a.f, float32(f))
	}
	return c
}

// zoomPlane adds (when add) or writes the centre zoom of plane src (sw×sh,
// indices from ax/ay) into dst (w×h = len(ax.i0)×len(ay.i0)). tmp holds 2·w.
func zoomPlane(dst, src []float32, sw int, ax, ay *zoomAxis, tmp []float32, add bool) {
	w, h := len(ax.i0), len(ay.i0)
	rowA, rowB := tmp[:w], tmp[w:2*w]
	cachedA, cachedB := -1, -1
	xi, xf := ax.i0[:w], ax.f[:w]
	sh := len(src) / sw
	hinterp := func(out []float32, sy int) {
		s := src[sy*sw : (sy+1)*sw]
		for x := range out {
			i := int(xi[x])
			v0 := s[i]
			v1 := v0
			if i+1 < len(s) {
				v1 = s[i+1]
			}
			out[x] = v0 + xf[x]*(v1-v0)
		}
	}
	for y := range h {
		i := int(ay.i0[y])
		j := min(i+1, sh-1)
		// Reuse the interpolated rows of the previous output row.
		if cachedA != i {
			if cachedB == i {
				rowA, rowB = rowB, rowA
				cachedA, cachedB = cachedB, cachedA
			} else {
				hinterp(rowA, i)
				cachedA = i
			}
		}
		if cachedB != j {
			hinterp(rowB, j)
			cachedB = j
		}
		f := ay.f[y]
		out := dst[y*w : (y+1)*w]
		a, b := rowA[:len(out)], rowB[:len(out)]
		if add {
			for x := range out {
				out[x] += a[x] + f*(b[x]-a[x])
			}
		} else {
			for x := range out {
				out[x] = a[x] + f*(b[x]-a[x])
			}
		}
	}
}

func applyZoomBlur(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	var fb [64]float64
	zs := zoomFactors(fb[:0], p[0], p[1])
	w, h := src.Width, src.Height
	for c := range 3 {
		copy(dst.Ch[c], src.Ch[c])
	}
	bufp := getF32(2 * w)
	defer putF32(bufp)
	var ax, ay zoomAxis
	n := 1
	for _, z := range zs {
		n++
		if z == 1 {
			for c := range 3 {
				d, s := dst.Ch[c], src.Ch[c][:len(dst.Ch[c])]
				for i := range d {
					d[i] += s[i]
				}
			}
			continue
		}
		ax.plan(w, z, false)
		ay.plan(h, z, false)
		for c := range 3 {
			zoomPlane(dst.Ch[c], src.Ch[c], w, &ax, &ay, *bufp, true)
		}
	}
	inv := float32(1 / float64(n))
	for c := range 3 {
		d := dst.Ch[c]
		for i := range d {
			d[i] *= inv
		}
	}
	clampImage(dst)
}
