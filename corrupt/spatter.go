package corrupt

import (
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "spatter",
		Family: Weather,
		Params: []Param{
			{Name: "loc", Min: 0.65, Max: 0.67, Trend: +1,
				Doc: "mean of the Gaussian liquid field; spans the ImageNet-C tuples (0.65 at s1–s4, 0.67 at s5)"},
			{Name: "scale", Min: 0.3, Max: 0.4, Trend: +1,
				Doc: "standard deviation of the Gaussian liquid field; spans the ImageNet-C tuples (0.3 at s1–s4, 0.4 at s5)"},
			{Name: "sigma", Min: 1, Max: 4, Trend: 0,
				Doc: "σ (pixels) of the Gaussian filter on the liquid field (fewer, larger blobs when larger; not monotone " +
					"in effect: in mud mode small σ makes specks that the mask softening removes); spans the ImageNet-C tuples (4, 3, 2, 1, 1)"},
			{Name: "threshold", Min: 0.65, Max: 0.69, Trend: -1,
				Doc: "filtered field values below it are set to 0 (less liquid when larger); spans the ImageNet-C tuples (0.69, 0.68, 0.68, 0.65, 0.65)"},
			{Name: "intensity", Min: 0.5, Max: 1.5, Trend: 0,
				Doc: "water mode: peak strength of the added turquoise (more when larger); mud mode: σ of the Gaussian that " +
					"softens the mud mask before values below 0.8 are dropped (smaller, rounder blots when larger); " +
					"spans the ImageNet-C tuples (0.6, 0.6, 0.5 water; 1.5 mud)"},
			{Name: "mode", Min: 0, Max: 1, Kind: Integer, Trend: 0,
				Doc: "0 = water (ImageNet-C s1–s3), 1 = mud (s4–s5); sampling draws each with probability 1/2"},
		},
		Severities: [][]float64{
			{0.65, 0.3, 4, 0.69, 0.6, 0},
			{0.65, 0.3, 3, 0.68, 0.6, 0},
			{0.65, 0.3, 2, 0.68, 0.5, 0},
			{0.65, 0.3, 1, 0.65, 1.5, 1},
			{0.67, 0.4, 1, 0.65, 1.5, 1},
		},
		// A field of zeros (loc = scale = 0) holds no liquid.
		Identity: []float64{0, 0, 1, 0.65, 0.5, 0},
		Doc: "Spatter (ImageNet-C extra corruption; bethgelab/imagecorruptions and hendrycks/robustness `spatter`): " +
			"a single-channel field N(loc, scale²) is Gaussian-filtered with σ = `sigma` (scikit-image semantics: " +
			"radius ⌊4σ + 0.5⌋, edges replicated) and values below `threshold` are set to 0. " +
			"Water (mode 0): the field is truncated to 8 bit (L8), its Canny edges (OpenCV: 3×3 Sobel, L1 gradient, " +
			"hysteresis 50/150) give a distance map (OpenCV 5×5 chamfer L2 distance to the nearest edge, truncated " +
			"at 20, 3×3 box blur, truncated to 8 bit, histogram-equalised, filtered with the 3×3 emboss kernel " +
			"[[−2,−1,0],[−1,1,1],[0,1,2]] into 8 bit, 3×3 box blur); m = L8·dist, scaled so its maximum is " +
			"`intensity`, and the image becomes clip(u + m·(175, 238, 238)/255) in R, G, B. " +
			"Mud (mode 1): the mask [field > threshold] is Gaussian-filtered with σ = `intensity`, values below 0.8 " +
			"are set to 0, and the image becomes clip(u·(1 − m) + m·(63, 42, 20)/255). " +
			"The sampling domain is the box spanning the five ImageNet-C tuples, with the mode drawn as an integer; " +
			"`intensity` means a strength in water mode and a mask σ in mud mode, as in the reference. " +
			"Departures: the field comes from vcr's generator (not numpy's), so outputs match the reference in " +
			"distribution, not pixel by pixel; L8 saturates at 255 where the reference's uint8 cast wraps around " +
			"(field values above 1, not reached at the ImageNet-C severities); a water field with no liquid at all " +
			"(maximum of m = 0, where the reference divides by zero) leaves the image unchanged.",
		Papers: []string{"imagenet-c"},
		apply:  applySpatter,
	})
}

// Water and mud colours of the reference, R, G, B on the 0…1 scale.
var (
	spatterWater = [3]float32{175.0 / 255, 238.0 / 255, 238.0 / 255}
	spatterMud   = [3]float32{63.0 / 255, 42.0 / 255, 20.0 / 255}
)

func applySpatter(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	loc, scale, sigma, thresh, intensity := p[0], p[1], p[2], p[3], p[4]
	mud := p[5] >= 0.5
	w, h := src.Width, src.Height
	n := w * h
	rmax := max(skimageRadius(sigma), skimageRadius(intensity))
	bufp := getF32(3*n + max(w, h) + 2*rmax + 1)
	defer putF32(bufp)
	buf := *bufp
	field, m, scratch := buf[:n], buf[n:2*n], buf[2*n:]
	for i := range field {
		field[i] = float32(loc + scale*rng.NormFloat64())
	}
	gaussianPlane(field, field, w, h, sigma, false, scratch)
	th := float32(thresh)
	for i, v := range field {
		if v < th {
			field[i] = 0
		}
	}
	var col [3]float32
	if mud {
		for i, v := range field {
			m[i] = 0
			if v > th {
				m[i] = 1
			}
		}
		gaussianPlane(m, m, w, h, intensity, false, scratch)
		for i, v := range m {
			if v < 0.8 {
				m[i] = 0
			}
		}
		col = spatterMud
	} else {
		if !spatterWaterMask(m, field, w, h, float32(intensity)) {
			for c := range 3 {
				copy(dst.Ch[c], src.Ch[c])
			}
			return
		}
		col = spatterWater
	}
	for c := range 3 {
		s, d := src.Ch[c][:n], dst.Ch[c][:n]
		k := col[c]
		mm := m[:n]
		for i, u := range s {
			if mud {
				d[i] = clamp01(u*(1-mm[i]) + k*mm[i])
			} else {
				d[i] = clamp01(u + k*mm[i])
			}
		}
	}
}

// spatterWaterMask writes into m the water-mode layer of the reference:
// L8·dist scaled to peak at intensity, where L8 is the thresholded field in
// 8 bit and dist the embossed, equalised distance-to-edge map. It returns
// false when the layer is zero everywhere.
func spatterWaterMask(m, field []float32, w, h int, intensity float32) bool {
	n := w * h
	ip := getI32(6 * n)
	defer putI32(ip)
	ib := *ip
	l8, edge, d8, tmp := ib[:n], ib[n:2*n], ib[2*n:3*n], ib[3*n:]
	for i, v := range field {
		f := float64(v) * 255
		switch {
		case !(f > 0):
			l8[i] = 0
		case f >= 255:
			l8[i] = 255
		default:
			l8[i] = int32(f)
		}
	}
	canny(edge, l8, w, h, 50, 150, tmp)
	// Distance to the nearest edge pixel, truncated at 20.
	chamfer5(m, edge, w, h)
	for i, v := range m {
		m[i] = min(v, 20)
	}
	// 3×3 box blur, then the uint8 cast (truncation; values lie in [0, 20]).
	fp := getF32(n)
	defer putF32(fp)
	f := *fp
	box3(f, m, w, h)
	for i, v := range f {
		d8[i] = int32(v)
	}
	equalizeHist(d8)
	emb := tmp[:n]
	emboss8(emb, d8, w, h)
	for i, v := range emb {
		f[i] = float32(v)
	}
	box3(m, f, w, h)
	var peak float32
	for i, v := range m {
		v *= float32(l8[i])
		m[i] = v
		peak = max(peak, v)
	}
	if !(peak > 0) {
		return false
	}
	for i, v := range m {
		m[i] = v / peak * intensity
	}
	return true
}

// canny writes into edge 1 for the Canny edges of the 8-bit plane src and 0
// elsewhere, as OpenCV's Canny(src, low, high) with a 3×3 Sobel aperture and
// the L1 gradient |dx| + |dy| (Canny 1986): non-maximum suppression along the
// gradient direction quantised to 0°, 45°, 90°, 135°, then hysteresis from
// pixels above high through 8-connected pixels above low. Sobel replicates
// the border; beyond it the magnitude is 0. tmp must hold 3·w·h values.
func canny(edge, src []int32, w, h int, low, high int32, tmp []int32) {
	n := w * h
	dx, dy, mag := tmp[:n], tmp[n:2*n], tmp[2*n:3*n]
	at := func(x, y int) int32 {
		return src[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]
	}
	for y := range h {
		for x := range w {
			gx := (at(x+1, y-1) + 2*at(x+1, y) + at(x+1, y+1)) - (at(x-1, y-1) + 2*at(x-1, y) + at(x-1, y+1))
			gy := (at(x-1, y+1) + 2*at(x, y+1) + at(x+1, y+1)) - (at(x-1, y-1) + 2*at(x, y-1) + at(x+1, y-1))
			i := y*w + x
			dx[i], dy[i] = gx, gy
			mag[i] = abs32(gx) + abs32(gy)
		}
	}
	magAt := func(x, y int) int32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return mag[y*w+x]
	}
	// OpenCV's fixed-point tan(22.5°)·2^15.
	const tg22 = 13573
	// 0: not an edge, 1: weak candidate, 2: strong edge.
	for y := range h {
		for x := range w {
			i := y*w + x
			edge[i] = 0
			mv := mag[i]
			if mv <= low {
				continue
			}
			xs, ys := int64(abs32(dx[i])), int64(abs32(dy[i]))
			tg22x := xs * tg22
			yy := ys << 15
			var keep bool
			switch {
			case yy < tg22x: // gradient mostly horizontal
				keep = mv > magAt(x-1, y) && mv >= magAt(x+1, y)
			case yy > tg22x+(xs<<16): // mostly vertical
				keep = mv > magAt(x, y-1) && mv >= magAt(x, y+1)
			default:
				s := 1
				if (dx[i] ^ dy[i]) < 0 {
					s = -1
				}
				keep = mv > magAt(x-s, y-1) && mv > magAt(x+s, y+1)
			}
			if !keep {
				continue
			}
			if mv > high {
				edge[i] = 2
			} else {
				edge[i] = 1
			}
		}
	}
	// Hysteresis. Every pixel enters the stack at most once, so dx (no
	// longer needed) holds it.
	stack := dx[:0]
	for i, e := range edge {
		if e == 2 {
			stack = append(stack, int32(i))
		}
	}
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		for ny := max(y-1, 0); ny <= min(y+1, h-1); ny++ {
			for nx := max(x-1, 0); nx <= min(x+1, w-1); nx++ {
				if j := ny*w + nx; edge[j] == 1 {
					edge[j] = 2
					stack = append(stack, int32(j))
				}
			}
		}
	}
	for i, v := range edge {
		if v == 2 {
			edge[i] = 1
		} else {
			edge[i] = 0
		}
	}
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// chamfer5 writes into d the distance of every pixel to the nearest pixel
// with edge ≠ 0, by the two-pass 5×5 chamfer transform with OpenCV's
// DIST_L2 mask-5 weights 1, 1.4, 2.1969 (Borgefors 1986). Pixels outside the
// plane are not sources. With no source at all every distance is large
// (at least w + h).
func chamfer5(d []float32, edge []int32, w, h int) {
	const a, b, c = 1, 1.4, 2.1969
	inf := float32(2*(w+h) + 100)
	for i, e := range edge {
		if e != 0 {
			d[i] = 0
		} else {
			d[i] = inf
		}
	}
	type off struct {
		dx, dy int
		wt     float32
	}
	fwd := [...]off{{-1, 0, a}, {0, -1, a}, {-1, -1, b}, {1, -1, b}, {-2, -1, c}, {-1, -2, c}, {1, -2, c}, {2, -1, c}}
	relax := func(x, y int, o off) {
		nx, ny := x+o.dx, y+o.dy
		if nx < 0 || ny < 0 || nx >= w || ny >= h {
			return
		}
		if v := d[ny*w+nx] + o.wt; v < d[y*w+x] {
			d[y*w+x] = v
		}
	}
	for y := range h {
		for x := range w {
			for _, o := range fwd {
				relax(x, y, o)
			}
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			for _, o := range fwd {
				relax(x, y, off{-o.dx, -o.dy, o.wt})
			}
		}
	}
}

// box3 writes into dst the 3×3 mean of src (OpenCV blur with ksize (3, 3),
// border BORDER_REFLECT_101). dst must not alias src.
func box3(dst, src []float32, w, h int) {
	for y := range h {
		for x := range w {
			var s float32
			for dy := -1; dy <= 1; dy++ {
				r := borderIndex(y+dy, h, Reflect101) * w
				for dx := -1; dx <= 1; dx++ {
					s += src[r+borderIndex(x+dx, w, Reflect101)]
				}
			}
			dst[y*w+x] = s / 9
		}
	}
}

// equalizeHist replaces the 8-bit values in p by OpenCV's equalizeHist
// lookup: with i₀ the smallest value present, lut(i₀) = 0 and
// lut(i) = round(255·#{i₀ < v ≤ i}/(n − #{v = i₀})), clamped to 255; a
// constant plane is left as it is.
func equalizeHist(p []int32) {
	var hist [256]int
	for _, v := range p {
		hist[v]++
	}
	i := 0
	for hist[i] == 0 {
		i++
	}
	if hist[i] == len(p) {
		return
	}
	scale := float32(255) / float32(len(p)-hist[i])
	var lut [256]int32
	sum := 0
	for j := i + 1; j < 256; j++ {
		sum += hist[j]
		lut[j] = int32(min(math.RoundToEven(float64(float32(sum)*scale)), 255))
	}
	for k, v := range p {
		p[k] = lut[v]
	}
}

// emboss8 writes into dst the correlation of the 8-bit plane src with the
// reference's kernel [[−2,−1,0],[−1,1,1],[0,1,2]] (OpenCV filter2D, border
// BORDER_REFLECT_101), saturated to 0…255.
func emboss8(dst, src []int32, w, h int) {
	k := [3][3]int32{{-2, -1, 0}, {-1, 1, 1}, {0, 1, 2}}
	for y := range h {
		for x := range w {
			var s int32
			for ky := range 3 {
				r := borderIndex(y+ky-1, h, Reflect101) * w
				for kx := range 3 {
					if k[ky][kx] != 0 {
						s += k[ky][kx] * src[r+borderIndex(x+kx-1, w, Reflect101)]
					}
				}
			}
			dst[y*w+x] = min(max(s, 0), 255)
		}
	}
}
