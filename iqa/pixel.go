package iqa

import (
	"fmt"
	"math"
)

// Constants of the pixel-domain VIF as the VCR toolbox's vif_spatial and
// msvif_spatial use them (vif.md §4).
const (
	pixelK      = 11               // box window side
	pixelR      = (pixelK - 1) / 2 // window radius = reflect padding
	pixelN      = pixelK * pixelK  // samples per window
	pixelSigmaN = 0.1              // HVS noise variance σn²
	pixelTol    = 1e-10            // variance tolerance
	pixelEps    = 1e-4             // added to every pixel's information terms
	pixelScales = 5                // at most this many scales for PixelMS
)

// pixelWorkspace holds the scratch memory of the pixel-domain VIF: the two
// images at every scale (offset so that their values are near 0), the
// reflect index tables, the running window sums and one row of factors. It
// grows to the largest image seen and is reused afterwards.
type pixelWorkspace struct {
	x, y   []float64 // scale 0, then downsampled scales after it
	rowIdx []int32   // reflected row of padded row i (i = 0…h+2r)
	colIdx []int32   // reflected column of padded column j (j = 0…w+2r)
	// Column sums over the current window of rows, padded to w+2r+1
	// columns: entry j belongs to the reflected column colIdx[j].
	cols []colSums
	// One row of factors: the numerator's 1 + A/B as B + A and B, and the
	// denominator's 1 + σx²/σn².
	fnA, fnB, fden []float64
}

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// colSums holds the window sums Σx, Σy, Σx², Σy², Σxy of one column (or,
// in the row pass, of one window). Keeping the five together lets the hot
// loops work with two pointers instead of ten.
type colSums struct{ x, y, xx, yy, xy float64 }

func growI(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// scorePixel computes the single-scale (Pixel) or multi-scale (PixelMS)
// pixel-domain VIF of vif.md §4, in float64 throughout.
//
// vif_spatial: local moments over 11×11 box windows centred on every pixel,
// the image extended by mirror reflection without repeating the edge sample
// (numpy's mode "reflect": …, a2, a1 | a0, a1, a2, …); then the distortion
// channel g, σv² of §2.3 with tol = 1e-10 and σv² = σx² where g < 0; then
// VIF = Σ[ln(1 + g²σx²/(σv² + σn²)) + 1e-4] / Σ[ln(1 + σx²/σn²) + 1e-4].
//
// msvif_spatial: the two sums at up to 5 scales, each scale cropped to even
// size and 2×2-averaged from the previous one, stopping once the shorter side
// is ≤ 11; scales not computed contribute 1 to both sums. Unlike the
// reference, which returns 1 when not even scale 0 can be computed, it
// returns an error for images whose shorter side is ≤ 11.
func (s *Scorer) scorePixel(ref, dist *Gray) (Result, error) {
	if s.pix == nil {
		s.pix = &pixelWorkspace{}
	}
	ws := s.pix
	w, h := ref.Width, ref.Height
	n := w * h
	if err := pixelSizeError(s.method, w, h); err != nil {
		return Result{}, err
	}
	// Room for scale 0 plus all downsampled scales (< n/3 together).
	total := n
	if s.method == PixelMS {
		for sw, sh, i := w, h, 1; i < pixelScales; i++ {
			sw, sh = sw/2, sh/2
			total += sw * sh
		}
	}
	ws.x = growF(ws.x, total)
	ws.y = growF(ws.y, total)
	// Subtract each image's (rounded, roughly estimated) mean: for 8-bit
	// data this is exact and keeps every window sum an exact binary fraction
	// (see scale), and for other data it reduces the cancellation in
	// E[x²] − E[x]².
	ox, oy := math.Round(roughMean(ref.Pix)), math.Round(roughMean(dist.Pix))
	x0, y0 := ws.x[:n], ws.y[:n]
	for i, v := range ref.Pix[:n] {
		x0[i] = v - ox
	}
	for i, v := range dist.Pix[:n] {
		y0[i] = v - oy
	}

	if s.method == Pixel {
		num, den := ws.scale(x0, y0, w, h)
		return Result{VIF: num / den}, nil
	}

	var num, den [pixelScales]float64
	for i := range num {
		num[i], den[i] = 1, 1
	}
	x, y := x0, y0
	off := n
	for i := 0; i < pixelScales; i++ {
		if min(w, h) <= pixelK {
			break
		}
		num[i], den[i] = ws.scale(x, y, w, h)
		if i == pixelScales-1 {
			break
		}
		w2, h2 := w/2, h/2
		nx, ny := ws.x[off:off+w2*h2], ws.y[off:off+w2*h2]
		off += w2 * h2
		downsample2(nx, x, w, w2, h2)
		downsample2(ny, y, w, w2, h2)
		x, y, w, h = nx, ny, w2, h2
	}
	var sn, sd float64
	for i := range num {
		sn += num[i]
		sd += den[i]
	}
	return Result{VIF: sn / sd}, nil
}

// pixelSizeError returns the error scorePixel returns for any pair of w×h
// images with the pixel-domain method m, or nil if it can score them.
func pixelSizeError(m Method, w, h int) error {
	if w*h == 0 {
		// Both sums are 0 and the ratio undefined (the reference gives 0/0).
		return fmt.Errorf("%s VIF of a %d×%d image: no pixels", m, w, h)
	}
	if m == PixelMS && min(w, h) <= pixelK {
		// The reference computes no scale at all and returns 5/5 = 1 for
		// any pair: a "no change" that would be silently wrong.
		return fmt.Errorf("pixel-multiscale VIF needs both sides longer than %d pixels (got %d×%d); use pixel", pixelK, w, h)
	}
	return nil
}

// roughMean returns the mean of about 4096 samples of p spread evenly over
// it: only used to choose the offset subtracted before the window sums, so
// it needs to be central, not exact.
func roughMean(p []float64) float64 {
	step := max(1, len(p)/4096)
	var s0, s1 float64
	n := 0
	for i := 0; i+step < len(p); i += 2 * step {
		s0 += p[i]
		s1 += p[i+step]
		n += 2
	}
	if n == 0 {
		return p[0]
	}
	return (s0 + s1) / float64(n)
}

// downsample2 writes into dst (w2×h2) the means of the 2×2 blocks of src
// (width w, cropped to 2·w2×2·h2), summed in the reference's order
// x[2i,2j] + x[2i+1,2j] + x[2i+1,2j+1] + x[2i,2j+1].
func downsample2(dst, src []float64, w, w2, h2 int) {
	for i := 0; i < h2; i++ {
		a := src[2*i*w:][:2*w2]
		b := src[(2*i+1)*w:][:len(a)]
		d := dst[i*w2:][:w2]
		for j := range d {
			d[j] = (a[2*j] + b[2*j] + b[2*j+1] + a[2*j+1]) / 4
		}
	}
}

// reflectIndex returns the sample that position i (any integer) of the
// mirror extension without edge repetition of n samples maps to.
func reflectIndex(i, n int) int {
	if n == 1 {
		return 0
	}
	p := 2 * (n - 1)
	i %= p
	if i < 0 {
		i += p
	}
	if i >= n {
		i = p - i
	}
	return i
}

// scale returns the two sums of vif_spatial, Σ[ln(1 + g²σx²/(σv² + σn²)) + 1e-4]
// and Σ[ln(1 + σx²/σn²) + 1e-4], for the w×h images x and y.
//
// Window sums are kept as running sums: column sums over the current 11 rows
// (updated by adding the entering row and subtracting the leaving one), then
// a running sum along the row. For 8-bit inputs (and their 2×2 means) every
// sample is a binary fraction, so these sums are exact, and so are
// N·Σx² − (Σx)² etc.: the variances are correctly rounded.
//
// The logarithms are summed as logarithms of products (logProduct), and the
// numerator's ln(1 + A/B) as ln(B + A) − ln B (pixelFactors): no division and
// one math.Log per sum instead of one per pixel. For N pixels this costs at
// most about 2N·1.1e-16 in absolute accuracy of each sum.
func (ws *pixelWorkspace) scale(x, y []float64, w, h int) (num, den float64) {
	const r = pixelR
	pw := w + 2*r + 1 // one spare column for the running-sum look-ahead
	ws.rowIdx = growI(ws.rowIdx, h+2*r+1)
	ws.colIdx = growI(ws.colIdx, pw)
	for i := range ws.rowIdx {
		ws.rowIdx[i] = int32(reflectIndex(i-r, h))
	}
	for j := range ws.colIdx {
		ws.colIdx[j] = int32(reflectIndex(j-r, w))
	}
	if cap(ws.cols) < pw {
		ws.cols = make([]colSums, pw)
	}
	cols := ws.cols[:pw]
	ws.fnA, ws.fnB, ws.fden = growF(ws.fnA, w), growF(ws.fnB, w), growF(ws.fden, w)
	fnA, fnB, fden := ws.fnA, ws.fnB, ws.fden
	rowIdx, colIdx := ws.rowIdx, ws.colIdx

	// Column sums for output row 0: padded rows 0…2r. Interior columns are
	// stored at j+r; the padding columns are copied per row.
	inner := cols[r : r+w]
	clear(inner)
	for i := 0; i < pixelK; i++ {
		ri := int(rowIdx[i]) * w
		xr, yr := x[ri:][:len(inner)], y[ri:][:len(inner)]
		for j := range inner {
			a, b := xr[j], yr[j]
			c := &inner[j]
			c.x += a
			c.y += b
			c.xx += a * a
			c.yy += b * b
			c.xy += a * b
		}
	}

	var accA, accB, accD logProduct
	const n = pixelN
	const inv = 1.0 / (pixelN * pixelN)
	for i := 0; i < h; i++ {
		// Fill the padding columns from the interior ones.
		for j := 0; j < r; j++ {
			cols[j] = cols[int(colIdx[j])+r]
		}
		for j := r + w; j < pw; j++ {
			cols[j] = cols[int(colIdx[j])+r]
		}
		// Running window sums along the row, in scalars (a struct of five
		// fields would live on the stack).
		var bx, by, bxx, byy, bxy float64
		for _, c := range cols[:pixelK] {
			bx += c.x
			by += c.y
			bxx += c.xx
			byy += c.yy
			bxy += c.xy
		}
		fa := fnA[:w]
		fb, fd := fnB[:len(fa)], fden[:len(fa)]
		out, in := cols[:len(fa)], cols[pixelK:][:len(fa)]
		for j := range fa {
			// The window moments; pixelFactorsRow turns them into factors.
			fa[j] = (n*bxx - bx*bx) * inv
			fb[j] = (n*byy - by*by) * inv
			fd[j] = (n*bxy - bx*by) * inv
			ci, co := &in[j], &out[j]
			bx += ci.x - co.x
			by += ci.y - co.y
			bxx += ci.xx - co.xx
			byy += ci.yy - co.yy
			bxy += ci.xy - co.xy
		}
		pixelFactorsRow(fa, fb, fd)
		accA.mul(fa)
		accB.mul(fb)
		accD.mul(fd)

		if i == h-1 {
			break
		}
		// Slide the window down: add padded row i+2r+1, drop padded row i.
		ri, ro := int(rowIdx[i+pixelK])*w, int(rowIdx[i])*w
		xi, yi := x[ri:][:len(inner)], y[ri:][:len(inner)]
		xo, yo := x[ro:][:len(inner)], y[ro:][:len(inner)]
		for j := range inner {
			a, b := xi[j], yi[j]
			c, d := xo[j], yo[j]
			s := &inner[j]
			s.x += a - c
			s.y += b - d
			s.xx += (a - c) * (a + c)
			s.yy += (b - d) * (b + d)
			s.xy += a*b - c*d
		}
	}
	eps := pixelEps * float64(w*h)
	return (accA.log() - accB.log()) + eps, accD.log() + eps
}

// pixelFactors returns the factors of one window with variances vx, vy and
// covariance cov: the numerator's 1 + g²σx²/(σv² + σn²) as a ratio a/b, and
// the denominator's 1 + σx²/σn², applying the rules of vif.md §4 (§2.3 with
// tol = 1e-10, σv² = σx² where g < 0).
//
// Where the rules set g to 0 (σx² or σy² below tol, or g < 0, i.e. cov < 0)
// the numerator factor is 1 whatever σv² is. Otherwise, with D = σx² + tol,
// g = cov/D and σv² = σy² − g·cov = (D·σy² − cov²)/D, so
// g²σx²/(σv² + σn²) = cov²σx² / (D·(max(D·σy² − cov², tol·D) + σn²·D)) = A/B
// and 1 + A/B = (B + A)/B. Returning B + A and B, whose logarithms are summed
// separately, avoids every division and every branch on the sign of g.
func pixelFactors(vx, vy, cov float64) (a, b, fden float64) {
	if vx < pixelTol || vy < pixelTol {
		// Negative or tiny variances: g = 0, and σx² = 0 if tiny.
		if vx < pixelTol {
			vx = 0
		}
		return 1, 1, 1 + vx*(1/pixelSigmaN)
	}
	d := vx + pixelTol
	c := (cov + math.Abs(cov)) * 0.5 // max(cov, 0) without a branch, exactly
	t := d*vy - cov*cov
	if t < pixelTol*d { // σv² < tol: rare except for identical windows, so predictable
		t = pixelTol * d
	}
	b = d * (t + pixelSigmaN*d)
	return b + c*c*vx, b, 1 + vx*(1/pixelSigmaN)
}

// pixelFactorsRowGo replaces the variances vx = a[j], vy = b[j] and the
// covariance cov = d[j] of a row of windows by their factors
// a[j], b[j], d[j] = pixelFactors(vx, vy, cov).
func pixelFactorsRowGo(a, b, d []float64) {
	b, d = b[:len(a)], d[:len(a)]
	for j := range a {
		a[j], b[j], d[j] = pixelFactors(a[j], b[j], d[j])
	}
}

// logProduct accumulates Σ ln fᵢ for positive factors fᵢ as m·2^e, so that a
// sum of logarithms costs one multiplication per term instead of a math.Log.
// The relative error grows by at most one rounding (1.1e-16) per factor.
type logProduct struct {
	m     float64 // in [1, 2) between calls; 0 means 1 (zero value usable)
	e     int
	extra float64 // Σ ln f for factors too large or small to multiply safely
}

// Factors (and pairs of factors) are multiplied together only within
// [2^-200, 2^200]: four pairs and m < 2 then stay far from overflow and from
// subnormals.
const (
	lpMin = 0x1p-200
	lpMax = 0x1p200
)

func (p *logProduct) mul(f []float64) {
	m := p.m
	if m == 0 {
		m = 1
	}
	for len(f) >= 8 {
		a, b := f[0]*f[4], f[1]*f[5]
		c, d := f[2]*f[6], f[3]*f[7]
		if !(a >= lpMin && a <= lpMax && b >= lpMin && b <= lpMax &&
			c >= lpMin && c <= lpMax && d >= lpMin && d <= lpMax) {
			// Rare: extreme factors (or NaN). Take the slow road for this group.
			for _, v := range f[:8] {
				m = p.mulOne(m, v)
			}
			f = f[8:]
			continue
		}
		m = p.normalize(m * ((a * b) * (c * d)))
		f = f[8:]
	}
	for _, v := range f {
		m = p.mulOne(m, v)
	}
	p.m = m
}

func (p *logProduct) mulOne(m, v float64) float64 {
	if !(v >= lpMin && v <= lpMax) {
		p.extra += math.Log(v)
		return m
	}
	return p.normalize(m * v)
}

// normalize splits the binary exponent of m (positive, normal) off into p.e
// and returns the mantissa in [1, 2).
func (p *logProduct) normalize(m float64) float64 {
	bits := math.Float64bits(m)
	p.e += int(bits>>52&0x7ff) - 1023
	return math.Float64frombits(bits&^(0x7ff<<52) | 1023<<52)
}

// log returns the accumulated Σ ln fᵢ.
func (p *logProduct) log() float64 {
	m := p.m
	if m == 0 {
		m = 1
	}
	return math.Log(m) + float64(p.e)*math.Ln2 + p.extra
}
