package corrupt

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "blur",
		Family: Blur,
		Params: []Param{{
			Name: "k", Min: 3, Max: 15, Kind: Odd, Trend: +1,
			Doc: "box side in pixels; albumentations Blur(blur_limit=15) draws k from the odd values 3…15 (VCR toolbox, corruptions.md §2.11)",
		}},
		Doc: "Box blur: each channel of the 8-bit image (rounded to nearest) is replaced by the normalised k×k box average " +
			"with reflect-101 borders and rounded back to 8 bit, as OpenCV blur does inside albumentations Blur " +
			"(VCR paper's Blur; corruptions.md §2.11). Computed with running sums, exact in integers.",
		Papers: []string{"vcr"},
		apply:  applyBoxBlur,
	})
	register(&Corruption{
		Name:   "median_blur",
		Family: Blur,
		Params: []Param{{
			Name: "k", Min: 3, Max: 21, Kind: Odd, Trend: +1,
			Doc: "window side in pixels; albumentations MedianBlur(blur_limit=21) draws k from the odd values 3…21 (VCR toolbox, corruptions.md §2.12)",
		}},
		Doc: "Median blur: each channel of the 8-bit image (rounded to nearest) is replaced by the median of its k×k " +
			"window with replicated edges, as OpenCV medianBlur does inside albumentations MedianBlur (VCR paper's " +
			"Median Blur; corruptions.md §2.12). Computed exactly: by selection for k = 3, Huang's sliding histogram for k = 5 and Perreault & Hébert's constant-time histogram method above.",
		Papers: []string{"vcr"},
		apply:  applyMedianBlur,
	})
	register(&Corruption{
		Name:   "gaussian_blur",
		Family: Blur,
		Params: []Param{{
			Name: "sigma", Min: 0.00001, Max: 5, Trend: +1,
			Doc: "Gaussian standard deviation in pixels; VCR toolbox linspace(0.00001, 5) (corruptions.md §2.6)",
		}},
		Severities: [][]float64{{1}, {2}, {3}, {4}, {6}},
		Identity:   []float64{0},
		Doc: "Gaussian blur as in ImageNet-C (scikit-image gaussian): each channel is correlated separably with the " +
			"taps exp(−k²/(2σ²)), k = −r…r, r = int(4σ + 0.5), normalised to sum 1, edges replicated " +
			"(corruptions.md §2.6). σ < 0.125 gives r = 0, the identity. Computed in float32.",
		Papers: []string{"vcr", "imagenet-c"},
		apply:  applyGaussianBlur,
	})
	register(&Corruption{
		Name:   "glass_blur",
		Family: Blur,
		Params: []Param{
			{Name: "sigma", Min: 0, Max: 5, Trend: 0,
				Doc: "Gaussian σ of both blur steps in pixels; VCR toolbox linspace(0, 5) (corruptions.md §2.7). " +
					"Not monotone: at σ = 0 the unblurred pixel shuffle is itself a strong corruption, a little blur " +
					"hides it, and larger σ blurs more"},
			{Name: "max_delta", Min: 1, Max: 9, Kind: Integer, Trend: +1,
				Doc: "largest pixel displacement δ; offsets are drawn from −δ…δ−1; VCR toolbox integers 1…9 (corruptions.md §2.7)"},
			{Name: "iterations", Min: 1, Max: 1, Kind: Integer, Trend: 0,
				Doc: "number of shuffling passes; the VCR toolbox uses 1, ImageNet-C severities use 1–3 (corruptions.md §2.7)"},
		},
		Severities: [][]float64{{0.7, 1, 2}, {0.9, 2, 1}, {1, 2, 3}, {1.1, 3, 2}, {1.5, 4, 2}},
		Doc: "Glass blur (ImageNet-C, corruptions.md §2.7): (1) Gaussian blur with σ (scikit-image semantics, as " +
			"gaussian_blur), ×255 and truncated to 8 bit; (2) `iterations` times, for rows h = H−δ down to δ+1 and " +
			"inside for columns w = W−δ down to δ+1, draw dx then dy uniformly from −δ…δ−1 and copy pixel " +
			"(h+dy, w+dx) into (h, w) — a copy, not a swap, exactly as the reference's numpy assignment behaves; " +
			"(3) Gaussian blur again and clip. Departures: the loops run over the real image height and width (the VCR " +
			"toolbox hard-codes 32, ImageNet-C 224); the integer draws come from a wyrand generator seeded from rng; " +
			"the 8-bit truncation adds 1e-3 of a level so that float32 images holding exact 8-bit values do not lose " +
			"a level to representation error.",
		Papers: []string{"vcr", "imagenet-c"},
		apply:  applyGlassBlur,
	})
	register(&Corruption{
		Name:   "defocus_blur",
		Family: Blur,
		Params: []Param{
			{Name: "radius", Min: 0, Max: 10, Trend: +1,
				Doc: "disk radius in pixels; VCR toolbox linspace(0, 10) (corruptions.md §2.8)"},
			{Name: "alias", Min: 0, Max: 1, Trend: 0,
				Doc: "σ of the anti-alias Gaussian applied to the disk kernel; VCR toolbox linspace(0, 1) (corruptions.md §2.8). " +
					"Not monotone: σ = 0 selects OpenCV's fixed binomial taps, which blur more than small positive σ"},
		},
		Severities: [][]float64{{3, 0.1}, {4, 0.5}, {6, 0.5}, {8, 0.5}, {10, 0.5}},
		Doc: "Defocus blur (ImageNet-C, corruptions.md §2.8): correlation of each channel with a normalised disk " +
			"{X² + Y² ≤ r²} smoothed by a 3×3 (r ≤ 8) or 5×5 (r > 8) Gaussian with σ = alias (OpenCV GaussianBlur " +
			"taps: the fixed tables [1,2,1]/4 and [1,4,6,4,1]/16 when alias = 0), reflect-101 image borders. " +
			"OpenCV blurs the kernel array with reflect-101 at the array's own edge and does not renormalise, so " +
			"once the disk reaches within the blur's reach of that edge (r ≥ 7) the kernel gains up to 3.5 % mass; " +
			"this is reproduced exactly. Departure: the grid is the symmetric integer grid (−8…8, or −⌈r⌉…⌈r⌉ for " +
			"r > 8), not the reference's asymmetric grid for fractional r > 8. Computed exactly but fast: disk rows " +
			"by prefix sums on the reflect-101 extended image, the separable anti-alias pass on that extension, and " +
			"the edge fold as a few 1-D correction profiles (profile taps below 1e-7 are dropped; effect < 1e-5). r = 0 is a single point, so the result is a small 3×3 " +
			"blur, not the identity.",
		Papers: []string{"vcr", "icse", "imagenet-c"},
		apply:  applyDefocusBlur,
	})
}

// --- box blur -------------------------------------------------------------

func applyBoxBlur(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	k := int(p[0])
	w, h := src.Width, src.Height
	bufp := getI32(2*w*h + w + 2*k)
	defer putI32(bufp)
	buf := *bufp
	q, hs, line := buf[:w*h], buf[w*h:2*w*h], buf[2*w*h:]
	for c := range 3 {
		quantize8(q, src.Ch[c])
		boxFilter8(dst.Ch[c], q, w, h, k, hs, line)
	}
}

// quantize8 rounds every [0,1] sample to an 8-bit level.
func quantize8(q []int32, s []float32) {
	s = s[:len(q)]
	for i, v := range s {
		// imageio.To8(v, imageio.Round), inlined.
		f := float64(v)*255 + 0.5
		if f >= 255 {
			f = 255
		} else if !(f > 0) {
			f = 0
		}
		q[i] = int32(f)
	}
}

// boxFilter8 writes into dst the k×k box mean of the 8-bit plane q (w×h)
// with reflect-101 borders, rounded to 8 bit and scaled to [0,1]. hs holds
// w*h, line w+2·(k/2) scratch values.
func boxFilter8(dst []float32, q []int32, w, h, k int, hs, line []int32) {
	r := k / 2
	// Horizontal running sums.
	for y := range h {
		row := q[y*w : (y+1)*w]
		pad := line[:w+2*r]
		copy(pad[r:], row)
		for i := 1; i <= r; i++ {
			pad[r-i] = row[borderIndex(-i, w, Reflect101)]
			pad[r+w-1+i] = row[borderIndex(w-1+i, w, Reflect101)]
		}
		var s int32
		for _, v := range pad[:k] {
			s += v
		}
		out := hs[y*w : (y+1)*w]
		out[0] = s
		for x := 1; x < w; x++ {
			s += pad[x+k-1] - pad[x-1]
			out[x] = s
		}
	}
	// Vertical running sums, one accumulator per column.
	acc := line[:w]
	for x := range acc {
		acc[x] = 0
	}
	for j := -r; j <= r; j++ {
		row := hs[borderIndex(j, h, Reflect101)*w:][:w]
		for x, v := range row {
			acc[x] += v
		}
	}
	kk := int32(k * k)
	// round(s/k²) = ⌊(s + ⌊k²/2⌋)/k²⌋ (k² is odd, so there is no tie). The
	// float form adds half a step so that rounding error cannot cross an
	// integer: the quotient's fraction is a multiple of 1/k² ≥ 1/225.
	half := float32(kk/2) + 0.5
	inv := 1 / float32(kk)
	for y := range h {
		out := dst[y*w : (y+1)*w]
		out = out[:len(acc)]
		for x, s := range acc {
			out[x] = imageio.From8(uint8((float32(s) + half) * inv))
		}
		if y+1 < h {
			add := hs[borderIndex(y+1+r, h, Reflect101)*w:][:w]
			sub := hs[borderIndex(y-r, h, Reflect101)*w:][:w]
			for x := range acc {
				acc[x] += add[x] - sub[x]
			}
		}
	}
}

// --- median blur ----------------------------------------------------------

func applyMedianBlur(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	k := int(p[0])
	if k*k >= 1<<15 {
		panic("corrupt: median_blur: k must be below 182 (packed 16-bit counts)")
	}
	r := k / 2
	w, h := src.Width, src.Height
	pw, ph := w+2*r, h+2*r
	bufp := getI32(w*h + pw*ph + 3*pw)
	defer putI32(bufp)
	q, pad, cols := (*bufp)[:w*h], (*bufp)[w*h:w*h+pw*ph], (*bufp)[w*h+pw*ph:]
	hp := getU64(pw * 68)
	defer u64Pool.Put(hp)
	hf, hc := (*hp)[:pw*64], (*hp)[pw*64:]
	for c := range 3 {
		quantize8(q, src.Ch[c])
		for py := range ph {
			srow := q[borderIndex(py-r, h, Replicate)*w:][:w]
			row := pad[py*pw : (py+1)*pw]
			copy(row[r:], srow)
			for i := range r {
				row[i] = srow[0]
				row[r+w+i] = srow[w-1]
			}
		}
		switch {
		case k == 3:
			median3x3(dst.Ch[c], pad, w, h, cols)
		case k <= medianHuangMaxK:
			medianHuang(dst.Ch[c], pad, w, h, k)
		default:
			medianCTMF(dst.Ch[c], pad, w, h, k, hf, hc)
		}
	}
}

// medianHuangMaxK is the largest window side for which Huang's sliding
// histogram beats the constant-time filter (measured on 224×224 images).
const medianHuangMaxK = 5

// medianHuang writes the same medians as medianCTMF with Huang, Yang & Tang's
// sliding histogram (IEEE TASSP 1979): one 256-bin histogram slides along each
// row, k samples entering and k leaving per pixel, and the median m is tracked
// with lt, the number of window samples below m; it moves from the previous
// pixel's median until lt ≤ th < lt + hist[m].
func medianHuang(dst []float32, pad []int32, w, h, k int) {
	pw := w + k - 1
	th := k * k / 2 // rank of the median, 0-based
	var hist [256]int32
	for y := range h {
		clear(hist[:])
		win := pad[y*pw : (y+k-1)*pw+pw]
		for j := range k {
			for _, v := range win[j*pw:][:k] {
				hist[uint8(v)]++
			}
		}
		m, lt := 0, 0
		for lt+int(hist[m]) <= th {
			lt += int(hist[m])
			m++
		}
		out := dst[y*w:][:w]
		out[0] = imageio.From8(uint8(m))
		for x := 1; x < w; x++ {
			for j := range k {
				row := win[j*pw+x-1:][:k+1]
				o, n := uint8(row[0]), uint8(row[k])
				hist[o]--
				hist[n]++
				lt += medianB2I(int(n) < m) - medianB2I(int(o) < m)
			}
			for lt > th {
				m--
				lt -= int(hist[uint8(m)])
			}
			for lt+int(hist[uint8(m)]) <= th {
				lt += int(hist[uint8(m)])
				m++
			}
			out[x] = imageio.From8(uint8(m))
		}
	}
}

// median3x3 writes the same medians as medianCTMF for k = 3 by selection:
// with every column of the window sorted (lo ≤ mid ≤ hi), the median of the
// nine samples is the median of max(lo), median(mid) and min(hi) over the
// three columns (Paeth's median of nine, Graphics Gems 1990). Each column is
// sorted once per row and reused by the three windows that contain it.
// cols holds 3·(w+2) samples of scratch.
func median3x3(dst []float32, pad []int32, w, h int, cols []int32) {
	pw := w + 2
	for y := range h {
		r0 := pad[y*pw:][:pw]
		r1 := pad[(y+1)*pw:][:pw]
		r2 := pad[(y+2)*pw:][:pw]
		l, m, u := cols[:pw], cols[pw:2*pw], cols[2*pw:3*pw]
		for X := range r0 {
			a, b, c := r0[X], r1[X], r2[X]
			a, b = min(a, b), max(a, b)
			b, c = min(b, c), max(b, c)
			a, b = min(a, b), max(a, b)
			l[X], m[X], u[X] = a, b, c
		}
		out := dst[y*w:][:w]
		for x := range out {
			p := max(l[x], l[x+1], l[x+2])
			q := median3(m[x], m[x+1], m[x+2])
			r := min(u[x], u[x+1], u[x+2])
			out[x] = imageio.From8(uint8(median3(p, q, r)))
		}
	}
}

// median3 is the median of three values.
func median3(a, b, c int32) int32 {
	return max(min(a, b), min(max(a, b), c))
}

// medianB2I is 1 for true and 0 for false.
func medianB2I(b bool) int {
	if b {
		return 1
	}
	return 0
}

// u64Pool recycles the packed histograms of the median filter.
var u64Pool sync.Pool

func getU64(n int) *[]uint64 {
	if p, ok := u64Pool.Get().(*[]uint64); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]uint64, n)
	return &s
}

// medianCTMF writes the k×k median of every pixel of the (w+k−1)×(h+k−1)
// padded 8-bit plane pad, scaled to [0,1], into dst (w×h). It is Perreault &
// Hébert's constant-time median filter (IEEE TIP 2007): per-column
// histograms slide down the image, the kernel histogram slides along each row
// by adding one column histogram and removing another, and a two-level
// histogram (16 coarse × 16 fine bins, fine bins refreshed lazily per coarse
// bin) finds the median. Counts are packed as four 16-bit lanes per uint64,
// so adding or removing a 16-bin histogram is four word operations; no lane
// overflows (counts ≤ 21² < 2¹⁶) and adds precede removals, so no lane
// borrows. hf holds (w+k−1)·64 and hc (w+k−1)·4 words of scratch.
func medianCTMF(dst []float32, pad []int32, w, h, k int, hf, hc []uint64) {
	const ones = 0x0001000100010001
	pw := w + k - 1
	th := k * k / 2 // rank of the median, 0-based
	hf, hc = hf[:pw*64], hc[:pw*4]
	clear(hf)
	clear(hc)
	for j := range k {
		for X, v := range pad[j*pw:][:pw] {
			hf[X*64+int(v>>2)] += 1 << (uint(v&3) * 16)
			hc[X*4+int(v>>6)] += 1 << (uint(v>>4&3) * 16)
		}
	}
	var kf [64]uint64
	var luc [16]int
	for y := range h {
		if y > 0 {
			old := pad[(y-1)*pw:][:pw]
			nw := pad[(y+k-1)*pw:][:len(old)]
			for X, o := range old {
				n := nw[X]
				hf[X*64+int(n>>2)] += 1 << (uint(n&3) * 16)
				hf[X*64+int(o>>2)] -= 1 << (uint(o&3) * 16)
				hc[X*4+int(n>>6)] += 1 << (uint(n>>4&3) * 16)
				hc[X*4+int(o>>6)] -= 1 << (uint(o>>4&3) * 16)
			}
		}
		var kc [4]uint64
		for X := range k {
			c := hc[X*4 : X*4+4 : X*4+4]
			kc[0], kc[1], kc[2], kc[3] = kc[0]+c[0], kc[1]+c[1], kc[2]+c[2], kc[3]+c[3]
		}
		for b := range luc {
			luc[b] = -2 * k
		}
		out := dst[y*w:][:w]
		for x := range out {
			if x > 0 {
				nc := hc[(x+k-1)*4:][:4]
				oc := hc[(x-1)*4:][:4]
				kc[0] = kc[0] + nc[0] - oc[0]
				kc[1] = kc[1] + nc[1] - oc[1]
				kc[2] = kc[2] + nc[2] - oc[2]
				kc[3] = kc[3] + nc[3] - oc[3]
			}
			// Coarse bin: the first of the 16 packed lanes at which the running
			// count exceeds th. A word's lane prefix sums are one multiply by
			// ones; adding 2¹⁵ − t to every lane sets a lane's top bit exactly
			// when its prefix reaches t, with no carry between lanes (counts
			// ≤ 441); lane i of p<<16 is the prefix before lane i.
			b, sum := 0, 0
			{
				wi, p := 0, kc[0]*ones
				if s := int(p >> 48); s <= th {
					sum, wi, p = s, 1, kc[1]*ones
					if s := sum + int(p>>48); s <= th {
						sum, wi, p = s, 2, kc[2]*ones
						if s := sum + int(p>>48); s <= th {
							sum, wi, p = s, 3, kc[3]*ones
						}
					}
				}
				t := uint64(th - sum + 1)
				lane := uint(bits.TrailingZeros64((p+(0x8000-t)*ones)&0x8000800080008000|1<<63)) / 16
				b, sum = wi*4+int(lane), sum+int((p<<16)>>(16*lane)&0xffff)
			}
			fb := kf[b*4 : b*4+4 : b*4+4]
			if L := luc[b]; 2*(x-L) > k {
				// Stale: rebuild this coarse bin's fine histogram.
				fb[0], fb[1], fb[2], fb[3] = 0, 0, 0, 0
				for X := x; X < x+k; X++ {
					c := hf[X*64+b*4:][:4]
					fb[0], fb[1], fb[2], fb[3] = fb[0]+c[0], fb[1]+c[1], fb[2]+c[2], fb[3]+c[3]
				}
			} else {
				for X := L; X < x; X++ {
					nc := hf[(X+k)*64+b*4:][:4]
					oc := hf[X*64+b*4:][:4]
					fb[0] = fb[0] + nc[0] - oc[0]
					fb[1] = fb[1] + nc[1] - oc[1]
					fb[2] = fb[2] + nc[2] - oc[2]
					fb[3] = fb[3] + nc[3] - oc[3]
				}
			}
			luc[b] = x
			// Fine bin within coarse bin b, the same way.
			i := 0
			{
				wi, p := 0, fb[0]*ones
				if s := sum + int(p>>48); s <= th {
					sum, wi, p = s, 1, fb[1]*ones
					if s := sum + int(p>>48); s <= th {
						sum, wi, p = s, 2, fb[2]*ones
						if s := sum + int(p>>48); s <= th {
							sum, wi, p = s, 3, fb[3]*ones
						}
					}
				}
				t := uint64(th - sum + 1)
				lane := uint(bits.TrailingZeros64((p+(0x8000-t)*ones)&0x8000800080008000|1<<63)) / 16
				i = wi*4 + int(lane)
			}
			out[x] = imageio.From8(uint8(b*16 + i))
		}
	}
}

// --- Gaussian blur --------------------------------------------------------

func applyGaussianBlur(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	w, h := src.Width, src.Height
	bufp := getF32(w*h + max(w, h) + 2*skimageRadius(p[0]) + 1)
	defer putF32(bufp)
	for c := range 3 {
		gaussianPlane(dst.Ch[c], src.Ch[c], w, h, p[0], true, *bufp)
	}
}

// gaussianPlane blurs one plane with scikit-image semantics (radius
// int(4σ+0.5), edges replicated) and clips the result as clampPlane does if
// clamp. dst may equal src. scratch must hold w*h + max(w,h) + 2r + 1
// samples.
func gaussianPlane(dst, src []float32, w, h int, sigma float64, clamp bool, scratch []float32) {
	r := skimageRadius(sigma)
	if r == 0 {
		copy(dst, src)
		if clamp {
			clampPlane(dst[:w*h])
		}
		return
	}
	var tapsBuf [64]float32
	taps := gaussianTapsInto(tapsBuf[:0], sigma, r)
	separableClamp(dst, src, w, h, taps, taps, Replicate, clamp, scratch[:w*h], scratch[w*h:])
}

// gaussianTapsInto appends to buf the taps gaussianTaps(sigma, r) returns,
// without allocating when buf has room.
func gaussianTapsInto(buf []float32, sigma float64, r int) []float32 {
	var s float64
	for k := -r; k <= r; k++ {
		s += gaussWeight(k, sigma)
	}
	for k := -r; k <= r; k++ {
		buf = append(buf, float32(gaussWeight(k, sigma)/s))
	}
	return buf
}

func gaussWeight(k int, sigma float64) float64 {
	if sigma > 0 {
		return math.Exp(-float64(k*k) / (2 * sigma * sigma))
	}
	if k == 0 {
		return 1
	}
	return 0
}

// addRowsGo is the pure-Go addRows: out[x] += a[x] + b[x] (the sum first)
// for x < len(out); a and b must hold len(out) samples.
func addRowsGo(out, a, b []float32) {
	a, b = a[:len(out)], b[:len(out)]
	for x := range out {
		out[x] += a[x] + b[x]
	}
}

// --- glass blur -----------------------------------------------------------

// wyrand is Wang Yi's wyrand generator: a fast source for the per-pixel
// integer draws of glass blur, seeded from the caller's generator.
type wyrand uint64

func (g *wyrand) next() uint64 {
	*g += wyInc
	hi, lo := bits.Mul64(uint64(*g), uint64(*g)^0xe7037ed1a0b428db)
	return hi ^ lo
}

func applyGlassBlur(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	sigma, delta, iters := p[0], int(p[1]), int(p[2])
	w, h := src.Width, src.Height
	r := skimageRadius(sigma)
	bufp := getF32(w*h + max(w, h) + 2*r + 1)
	defer putF32(bufp)
	// Step 1: blur and truncate to 8 bit (into dst, used as the work image).
	for c := range 3 {
		d := dst.Ch[c]
		gaussianPlane(d, src.Ch[c], w, h, sigma, false, *bufp)
		glassQuantize(d)
	}
	// Step 2: the local-pixel "swaps" (really copies, see Doc).
	g := wyrand(rng.Uint64())
	n := uint64(2 * delta)
	R, G, B := dst.Ch[0], dst.Ch[1], dst.Ch[2]
	// Each row's source offsets (dy·w + dx, dy, dx = −δ…δ−1, from the
	// row's draws) first, then its copies in order.
	offp := getInts(max(w-2*delta, 0))
	defer putInts(offp)
	base := -delta*w - delta
	if w <= 2*delta {
		iters = 0 // no column has δ neighbours on both sides: no copies
	}
	for range iters {
		for y := h - delta; y > delta; y-- {
			hi := y*w + w - delta
			offs := (*offp)[:hi-(y*w+delta+1)+1]
			glassOffs(offs, uint64(g), n, w, base)
			g += wyrand(uint64(len(offs)) * wyInc)
			glassCopyRow(R, G, B, hi, offs)
		}
	}
	// Step 3: blur again and clip.
	for c := range 3 {
		gaussianPlane(dst.Ch[c], dst.Ch[c], w, h, sigma, true, *bufp)
	}
}

// wyInc is wyrand's state step.
const wyInc = 0xa0761d6478bd642f

// glassOffsGo is the pure-Go glassOffs: offs[j] = dy·w + dx + base for the
// draws v_j = g.next() of generator state st, j = 0, 1, …: dy = (v >> 32)·n
// >> 32 and dx = low(v)·n >> 32, both uniform on 0…n−1 (n = 2δ ≤ 2³²).
func glassOffsGo(offs []int, st uint64, n uint64, w, base int) {
	g := wyrand(st)
	for j := range offs {
		v := g.next()
		offs[j] = int((v>>32)*n>>32)*w + int((v&0xffffffff)*n>>32) + base
	}
}

// glassCopyRow does glass blur's copies for one row, plane indices hi
// down to hi−len(offs)+1 (x = w−δ down to δ+1): pixel to = hi − j is
// copied from to + offs[j] in all three planes, in that order (a copy may
// read a pixel an earlier one wrote).
func glassCopyRow(R, G, B []float32, hi int, offs []int) {
	G, B = G[:len(R)], B[:len(R)] // one bounds check per index below
	for j, o := range offs {
		to := hi - j
		from := to + o
		R[to], G[to], B[to] = R[from], G[from], B[from]
	}
}

// intPool recycles per-call int scratch buffers.
var intPool sync.Pool

// getInts returns a scratch slice of length n (contents undefined); return
// it with putInts.
func getInts(n int) *[]int {
	if p, ok := intPool.Get().(*[]int); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]int, n)
	return &s
}

func putInts(p *[]int) { intPool.Put(p) }

// glassQuantizeGo is the pure-Go glassQuantize: every sample v becomes
// ⌊255·v + 1e-3⌋/255 (in float64, clipped to 0…255, NaN to 0), glass blur's
// truncation to 8 bit.
func glassQuantizeGo(d []float32) {
	for i, v := range d {
		f := float64(v)*255 + 1e-3
		switch {
		case !(f > 0):
			d[i] = 0
		case f >= 255:
			d[i] = 1
		default:
			d[i] = imageio.From8(uint8(f))
		}
	}
}

// --- defocus blur ---------------------------------------------------------

// diskHalfWidths returns, for rows j = 0…⌊r⌋ of the disk {x² + j² ≤ r²}, the
// largest x on that row, and the number of disk points.
func diskHalfWidths(buf []int, r float64) ([]int, int) {
	fr := int(math.Floor(r))
	ws := buf[:0]
	n := 0
	for j := 0; j <= fr; j++ {
		x := -1
		for float64((x+1)*(x+1)+j*j) <= r*r {
			x++
		}
		ws = append(ws, x)
		if x >= 0 {
			if j == 0 {
				n += 2*x + 1
			} else {
				n += 2 * (2*x + 1)
			}
		}
	}
	return ws, n
}

// aliasTaps returns the 1-D taps of OpenCV GaussianBlur of size n (3 or 5)
// with sigmaX = s: the fixed tables when s == 0 (OpenCV getGaussianKernel's
// small-kernel tables), else normalised exp(−k²/(2s²)).
func aliasTaps(buf []float64, n int, s float64) []float64 {
	buf = buf[:n]
	if s <= 0 {
		if n == 3 {
			copy(buf, []float64{0.25, 0.5, 0.25})
		} else {
			copy(buf, []float64{1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16})
		}
		return buf
	}
	var sum float64
	for i := range buf {
		k := float64(i - n/2)
		buf[i] = math.Exp(-k * k / (2 * s * s))
		sum += buf[i]
	}
	for i := range buf {
		buf[i] /= sum
	}
	return buf
}

// diskRowsGo is the pure-Go diskRows: it writes out[x] = Σ_j (S_{jy+fr+j}[x+fr+w_j+1] − S_{jy+fr+j}[x+fr−w_j])
// over disk rows j = −fr…fr (half-widths ws[|j|]), where S holds row prefix
// sums with stride sw. Eight outputs are accumulated in registers at a time.
func diskRowsGo(out, S []float32, sw, jy, fr int, ws []int) {
	n := len(out)
	w0 := ws[0]
	c := S[(jy+fr)*sw:][:sw]
	chi, clo := c[fr+w0+1:][:n], c[fr-w0:][:n]
	x := 0
	for ; x+8 <= n; x += 8 {
		h, l := chi[x:x+8:x+8], clo[x:x+8:x+8]
		s0, s1, s2, s3 := h[0]-l[0], h[1]-l[1], h[2]-l[2], h[3]-l[3]
		s4, s5, s6, s7 := h[4]-l[4], h[5]-l[5], h[6]-l[6], h[7]-l[7]
		for j := 1; j <= fr; j++ {
			wj := ws[j]
			A := S[(jy+fr+j)*sw:][:sw]
			B := S[(jy+fr-j)*sw:][:sw]
			ah, al := A[x+fr+wj+1:][:8], A[x+fr-wj:][:8]
			bh, bl := B[x+fr+wj+1:][:8], B[x+fr-wj:][:8]
			s0 += (ah[0] + bh[0]) - (al[0] + bl[0])
			s1 += (ah[1] + bh[1]) - (al[1] + bl[1])
			s2 += (ah[2] + bh[2]) - (al[2] + bl[2])
			s3 += (ah[3] + bh[3]) - (al[3] + bl[3])
			s4 += (ah[4] + bh[4]) - (al[4] + bl[4])
			s5 += (ah[5] + bh[5]) - (al[5] + bl[5])
			s6 += (ah[6] + bh[6]) - (al[6] + bl[6])
			s7 += (ah[7] + bh[7]) - (al[7] + bl[7])
		}
		o := out[x : x+8 : x+8]
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; x < n; x++ {
		s := chi[x] - clo[x]
		for j := 1; j <= fr; j++ {
			wj := ws[j]
			A := S[(jy+fr+j)*sw:][:sw]
			B := S[(jy+fr-j)*sw:][:sw]
			s += (A[x+fr+wj+1] + B[x+fr+wj+1]) - (A[x+fr-wj] + B[x+fr-wj])
		}
		out[x] = s
	}
}

// prefixRows writes for each of the ph rows of P (stride pw) its running
// sums into S (stride pw+1): S[y][0] = 0, S[y][i+1] = S[y][i] + P[y][i],
// added in this order in float32. Four rows are summed at once, in
// independent chains, so that the additions' latency overlaps; each row's
// sums are unchanged.
func prefixRows(S, P []float32, pw, ph int) {
	sw := pw + 1
	y := 0
	for ; y+4 <= ph; y += 4 {
		p0 := P[y*pw:][:pw]
		p1 := P[(y+1)*pw:][:len(p0)]
		p2 := P[(y+2)*pw:][:len(p0)]
		p3 := P[(y+3)*pw:][:len(p0)]
		s0 := S[y*sw:][:sw]
		s1 := S[(y+1)*sw:][:sw]
		s2 := S[(y+2)*sw:][:sw]
		s3 := S[(y+3)*sw:][:sw]
		s0[0], s1[0], s2[0], s3[0] = 0, 0, 0, 0
		t0, t1, t2, t3 := s0[1:][:len(p0)], s1[1:][:len(p0)], s2[1:][:len(p0)], s3[1:][:len(p0)]
		var a0, a1, a2, a3 float32
		for i, v := range p0 {
			a0 += v
			a1 += p1[i]
			a2 += p2[i]
			a3 += p3[i]
			t0[i], t1[i], t2[i], t3[i] = a0, a1, a2, a3
		}
	}
	for ; y < ph; y++ {
		p := P[y*pw:][:pw]
		sr := S[y*sw:][:sw]
		sr[0] = 0
		t := sr[1:][:len(p)]
		var a float32
		for i, v := range p {
			a += v
			t[i] = a
		}
	}
}

// defocusAliasSize is the anti-alias kernel size of §2.8: 3 for r ≤ 8, else 5.
func defocusAliasSize(r float64) int {
	if r <= 8 {
		return 3
	}
	return 5
}

// defocusKernel builds the reference kernel of corruptions.md §2.8 on the
// symmetric grid −R…R (R = max(8, ⌈r⌉)): the normalised disk, then OpenCV
// GaussianBlur of the kernel array itself. With fold the blur uses
// reflect-101 at the array's edge (OpenCV); without, the array is first
// enlarged by the blur radius (a full convolution, the fast path's kernel).
func defocusKernel(r, alias float64, fold bool) ([]float64, int) {
	R := max(8, int(math.Ceil(r)))
	na := defocusAliasSize(r)
	a := na / 2
	if !fold {
		R += 2 * a // zero margin: the edge reflection then reads only zeros
	}
	n := 2*R + 1
	d := make([]float64, n*n)
	var cnt float64
	for y := -R; y <= R; y++ {
		for x := -R; x <= R; x++ {
			if float64(x*x+y*y) <= r*r {
				d[(y+R)*n+x+R] = 1
				cnt++
			}
		}
	}
	for i := range d {
		d[i] /= cnt
	}
	g := aliasTaps(make([]float64, 5), na, alias)
	tmp := make([]float64, n*n)
	for y := range n {
		for x := range n {
			var s float64
			for i, v := range g {
				s += v * d[y*n+borderIndex(x+i-a, n, Reflect101)]
			}
			tmp[y*n+x] = s
		}
	}
	k := make([]float64, n*n)
	for y := range n {
		for x := range n {
			var s float64
			for i, v := range g {
				s += v * tmp[borderIndex(y+i-a, n, Reflect101)*n+x]
			}
			k[y*n+x] = s
		}
	}
	return k, n
}

// defocusProfile is one 1-D piece of the fold correction: a dense symmetric
// kernel k (length 2L+1) applied at offset ±c across the other axis.
type defocusProfile struct {
	c int
	k []float32
}

// defocusFold returns the correction C = folded − unfolded kernel (§2.8),
// split by its 8-fold symmetry into column profiles (entries with
// |x| ≥ |y|, x = c ≥ 0, applied at columns ±c) and row profiles (|y| > |x|,
// y = c > 0, applied at rows ±c). Both lists are empty when the smoothed disk
// stays clear of the kernel array's edge (r < 7). Profiles for row c equal those for
// column c transposed, except on the diagonal, so both are kept.
func defocusFold(r, alias float64, P int) (cols, rows []defocusProfile) {
	kf, nf := defocusKernel(r, alias, true)
	ku, nu := defocusKernel(r, alias, false)
	Q := nu / 2
	Rf := nf / 2
	C := func(x, y int) float64 {
		var f float64
		if x >= -Rf && x <= Rf && y >= -Rf && y <= Rf {
			f = kf[(y+Rf)*nf+x+Rf]
		}
		v := f - ku[(y+Q)*nu+x+Q]
		if math.Abs(v) < 1e-18 {
			return 0
		}
		return v
	}
	for c := 0; c <= Q; c++ {
		// Column c, |y| ≤ c.
		nz := false
		col := make([]float32, 2*c+1)
		for y := -c; y <= c; y++ {
			if v := C(c, y); v != 0 {
				col[y+c] = float32(v)
				nz = true
			}
		}
		if nz {
			if c > P {
				panic("corrupt: defocus fold correction beyond the padding")
			}
			cols = append(cols, defocusProfile{c, trimSymmetric(col)})
		}
		if c == 0 {
			continue
		}
		// Row c, |x| < c.
		nz = false
		row := make([]float32, 2*c-1)
		for x := -(c - 1); x <= c-1; x++ {
			if v := C(x, c); v != 0 {
				row[x+c-1] = float32(v)
				nz = true
			}
		}
		if nz {
			if c > P {
				panic("corrupt: defocus fold correction beyond the padding")
			}
			rows = append(rows, defocusProfile{c, trimSymmetric(row)})
		}
	}
	return cols, rows
}

// trimSymmetric drops equal numbers of negligible taps (|v| < 1e-7 of the
// kernel's unit mass) from both ends of an odd-length correction profile,
// keeping it centred. The dropped taps are Gaussian tails; together they
// change an output by under 1e-5 (a few thousandths of an 8-bit level).
func trimSymmetric(k []float32) []float32 {
	const tiny = 1e-7
	for len(k) > 1 && math.Abs(float64(k[0])) < tiny && math.Abs(float64(k[len(k)-1])) < tiny {
		k = k[1 : len(k)-1]
	}
	return k
}

func applyDefocusBlur(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	r, alias := p[0], p[1]
	w, h := src.Width, src.Height
	var wsBuf [64]int
	ws, npts := diskHalfWidths(wsBuf[:], r)
	fr := len(ws) - 1
	na := defocusAliasSize(r)
	a := na / 2
	var gBuf [5]float64
	g64 := aliasTaps(gBuf[:], na, alias)
	var g [5]float32
	for i, v := range g64 {
		g[i] = float32(v / float64(npts)) // fold the disk normalisation into the row taps
	}
	var gy [5]float32
	for i, v := range g64 {
		gy[i] = float32(v)
	}
	P := fr + a
	pw, ph := w+2*P, h+2*P
	jw, jh := w+2*a, h+2*a
	sw := pw + 1
	var fcols, frows []defocusProfile
	if r >= 7 { // below r = 7 the smoothed disk stays clear of the kernel array's edge
		fcols, frows = defocusFold(r, alias, P)
	}
	bufp := getF32(pw*ph + sw*ph + jw + w*jh + 2*pw)
	defer putF32(bufp)
	buf := *bufp
	Pd, buf := buf[:pw*ph], buf[pw*ph:]
	S, buf := buf[:sw*ph], buf[sw*ph:]
	J, buf := buf[:jw], buf[jw:] // one row of J at a time
	T, buf := buf[:w*jh], buf[w*jh:]
	vrow, vrow2 := buf[:pw], buf[pw:2*pw]
	var rowsBuf [32][]float32
	for c := range 3 {
		s := src.Ch[c]
		// Row prefix sums of the reflect-101 extension (pad P on every side).
		for py := range ph {
			sy := py - P
			if uint(sy) >= uint(h) {
				sy = borderIndex(sy, h, Reflect101)
			}
			padRow(Pd[py*pw:(py+1)*pw], s[sy*w:][:w], P, Reflect101)
		}
		prefixRows(S, Pd, pw, ph)
		// J = extended image ⋆ disk (unnormalised) on [−a, w+a) × [−a, h+a):
		// each disk row j is a run [−w_j, w_j], summed as a prefix-sum
		// difference; rows ±j share w_j.
		// Each row of J goes through the anti-alias pass's row filter (with
		// 1/npts folded in) while it is in the L1 cache; then the columns.
		symg := isSymmetric(g[:na])
		for jy := range jh {
			diskRows(J, S, sw, jy, fr, ws)
			corrRowSym(T[jy*w:(jy+1)*w], J, g[:na], symg)
		}
		rows := rowsBuf[:na]
		d := dst.Ch[c]
		for y := range h {
			for t := range rows {
				rows[t] = T[(y+t)*w : (y+t+1)*w]
			}
			combineRows(d[y*w:(y+1)*w], rows, gy[:na])
		}
		// Fold correction (exact reference kernel): column profiles act at
		// columns ±c through a vertical pass, row profiles at rows ±c through
		// a horizontal pass, both on the extended image.
		// The vertical pass covers columns P−c … P+c+w−1 of Pd, two
		// output rows a sweep (combineRowsSym2: the same sums as
		// combineRows); vrow[x] and vrow[2c+x] act on column x.
		for _, f := range fcols {
			L, cw := len(f.k)/2, w+2*f.c
			add := func(y int, v []float32) {
				out := d[y*w : (y+1)*w]
				if f.c == 0 {
					addRow(out, v[:w])
				} else {
					addRows(out, v[2*f.c:][:w], v[:w])
				}
			}
			rs := rowsBuf[:len(f.k)+1]
			y := 0
			for ; y+2 <= h; y += 2 {
				for i := range rs {
					o := (y+P-L+i)*pw + P - f.c
					rs[i] = Pd[o : o+cw]
				}
				combineRowsSym2(vrow[:cw], vrow2[:cw], rs, f.k, false)
				add(y, vrow)
				add(y+1, vrow2)
			}
			if y < h {
				rs = rs[:len(f.k)]
				for i := range rs {
					o := (y+P-L+i)*pw + P - f.c
					rs[i] = Pd[o : o+cw]
				}
				combineRows(vrow[:cw], rs, f.k)
				add(y, vrow)
			}
		}
		for _, f := range frows {
			L := len(f.k) / 2
			hrow := vrow[:w]
			for ey := -f.c; ey < h+f.c; ey++ {
				y0, y1 := ey-f.c, ey+f.c
				if (y0 < 0 || y0 >= h) && (y1 < 0 || y1 >= h) {
					continue
				}
				corrRow(hrow, Pd[(ey+P)*pw+P-L:][:w+2*L], f.k)
				if y0 >= 0 && y0 < h {
					addRow(d[y0*w:][:len(hrow)], hrow)
				}
				if y1 >= 0 && y1 < h {
					addRow(d[y1*w:][:len(hrow)], hrow)
				}
			}
		}
		clampPlane(d)
	}
}
