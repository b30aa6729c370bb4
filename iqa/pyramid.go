package iqa

// Steerable-pyramid kernels (pyrtools SteerablePyramidSpace, order 5,
// edge 'reflect1'): only what VIF reads is computed — lo0filt at full
// resolution, then per level the oriented bands 0 and 3 (cropped to a
// multiple of 3, the only part VIF uses) and the lowpass downsample.
//
// Every kernel is correlation with reflect1 extension: E(−k) = x(k),
// E(n−1+k) = x(n−1−k). The sp5 kernels are exactly symmetric or
// antisymmetric about their centre row and column (checked by
// TestFilterSymmetry), so taps with equal magnitude are folded: the image
// samples are added (or subtracted) first and multiplied once. The results
// equal pyrtools' corrDn up to floating-point summation order.

import "math"

// reflect1 maps i into [0, n) by mirror reflection without repeating the
// edge sample. It requires −n < i < 2n−1.
func reflect1(i, n int) int {
	if i < 0 {
		return -i
	}
	if i >= n {
		return 2*(n-1) - i
	}
	return i
}

// padReflect writes the w×h image src into dst, extended by p samples of
// reflect1 on every side; dst has stride w+2p. It requires p < w and p < h.
func padReflect(dst, src []float64, w, h, p int) {
	pw := w + 2*p
	dst = dst[:pw*(h+2*p)]
	for i := range h + 2*p {
		s := src[reflect1(i-p, h)*w:][:w]
		d := dst[i*pw:][:pw]
		copy(d[p:p+w], s)
		for k := 1; k <= p; k++ {
			d[p-k] = s[k]
			d[p+w-1+k] = s[w-1-k]
		}
	}
}

// reflectMargins fills the p samples on each side of the row d[p:p+w] by
// reflect1, as padReflect does.
func reflectMargins(d []float64, w, p int) {
	d = d[:w+2*p]
	for k := 1; k <= p; k++ {
		d[p-k] = d[p+k]
		d[p+w-1+k] = d[p+w-1-k]
	}
}

// lo0FilterGo writes corrDn(src, lo0filt) (w×h, step 1) into dst. tmp is
// scratch of at least 3·(w+4) samples; xp is not used. It requires w, h ≥ 3.
//
// The filter is applied vertically first: per output row the two vertical
// folds u1 = x(r−1) + x(r+1) and u2 = x(r−2) + x(r+2) (rows by reflect1)
// feed all three column filters V_l = (F0l·x(r) + F1l·u1) + F2l·u2, l = 0,
// 1, 2 (F the folded 3×3 taps, lo0Taps), written with 2-sample reflect1
// margins; then out(c) = (V0(c) + (V1(c−1) + V1(c+1))) + (V2(c−2) +
// V2(c+2)). Sharing the vertical folds between the three column filters
// takes 12 additions per output instead of 16.
func lo0FilterGo(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 2
	pw := w + 2*p
	v := tmp[:3*pw]
	for r := range h {
		lo0VertGo(v, pw, src[r*w:][:w], src[reflect1(r-1, h)*w:][:w], src[reflect1(r+1, h)*w:][:w],
			src[reflect1(r-2, h)*w:][:w], src[reflect1(r+2, h)*w:][:w])
		for l := range 3 {
			reflectMargins(v[l*pw:][:pw], w, p)
		}
		lo0HorzGo(dst[r*w:][:w], v, pw)
	}
}

// lo0Taps are lo0filt's folded taps F[k][l] = sp5Lo0[2+k][2+l], at 3k+l.
var lo0Taps = func() (t [9]float64) {
	for k := range 3 {
		copy(t[3*k:3*k+3], sp5Lo0[2+k][2:5])
	}
	return t
}()

// lo0VertGo writes the three column filters V_l of lo0FilterGo into the rows
// v[l·pw+2:], l = 0, 1, 2, from the centre row x0 and the rows a1, b1 (r∓1)
// and a2, b2 (r∓2).
func lo0VertGo(v []float64, pw int, x0, a1, b1, a2, b2 []float64) {
	n := len(x0)
	a1, b1, a2, b2 = a1[:n], b1[:n], a2[:n], b2[:n]
	v0, v1, v2 := v[2:][:n], v[pw+2:][:n], v[2*pw+2:][:n]
	t := &lo0Taps
	for c := range n {
		x, u1, u2 := x0[c], a1[c]+b1[c], a2[c]+b2[c]
		v0[c] = (t[0]*x + t[3]*u1) + t[6]*u2
		v1[c] = (t[1]*x + t[4]*u1) + t[7]*u2
		v2[c] = (t[2]*x + t[5]*u1) + t[8]*u2
	}
}

// lo0HorzGo writes out(c) = (V0(c) + (V1(c−1) + V1(c+1))) + (V2(c−2) +
// V2(c+2)) from the padded rows v[l·pw:] of lo0FilterGo.
func lo0HorzGo(out, v []float64, pw int) {
	n := len(out)
	v0, v1, v2 := v[:n+4], v[pw:][:n+4], v[2*pw:][:n+4]
	for c := range n {
		out[c] = (v0[c+2] + (v1[c+1] + v1[c+3])) + (v2[c] + v2[c+4])
	}
}

// foldRowsGo writes a + sign·b into dst (all the same length).
func foldRowsGo(dst, a, b []float64, sign float64) {
	a = a[:len(dst)]
	b = b[:len(dst)]
	if sign > 0 {
		for c := range dst {
			dst[c] = a[c] + b[c]
		}
		return
	}
	for c := range dst {
		dst[c] = a[c] - b[c]
	}
}

// bandFiltersGo writes corrDn(src, bfilts[0]) into b0 and corrDn(src,
// bfilts[3]) into b3 for the top-left cw×ch region (stride cw) of the w×h
// image src. xp and tmp are scratch of at least (w+6)(h+6) and 48·cw
// samples.
//
// Band 0 (f = sp5Bands[0]) is antisymmetric across columns and symmetric
// across rows; band 3 (g = sp5Bands[3] = −fᵀ) the other way round. With x
// the padded image and output (r, c) centred on x(r+3, c+3):
//
//	b0(r, c) = Σ_l V_l(r, c+3+l) − V_l(r, c+3−l),  l = 1…3,
//	V_l(r, j) = f[3][3+l]·x(r+3, j) + Σ_k f[3+k][3+l]·(x(r+3−k, j) + x(r+3+k, j)),
//	b3(r, c) = Σ_k H_k(r+3+k, c) − H_k(r+3−k, c),  k = 1…3,
//	H_k(i, c) = g[3+k][3]·x(i, c+3) + Σ_l g[3+k][3+l]·(x(i, c+3−l) + x(i, c+3+l)),
//
// so each band takes per output 8 additions (3 folds of x, 5 combining the
// filters) and 3 filters of one multiplication and 3 fused multiply-adds
// each (math.FMA, in the order written above: centre tap first), instead
// of 24 folds and additions per band when every filter folds x itself. This
// function defines the operations and their order (bandHGo, bandOut3Go,
// bandVGo, bandOutGo); the assembly (bandStripAsm) performs the same ones
// per output, so every build gives the same bits.
func bandFiltersGo(b0, b3, src []float64, w, h, cw, ch int, xp, tmp []float64) {
	const p = 3
	pw := w + 2*p
	vw := cw + 2*p
	padReflect(xp, src, w, h, p)
	// V[l−1] over the padded columns 0 … cw+5 of one output row; H a ring
	// of the 7 padded rows one output row of band 3 reads.
	var V [3][]float64
	for l := range V {
		V[l] = tmp[l*vw:][:vw]
	}
	var H [7][3][]float64
	off := 3 * vw
	for i := range H {
		for k := range H[i] {
			H[i][k] = tmp[off:][:cw]
			off += cw
		}
	}
	for i := range 2 * p {
		bandHGo(&H[i%7], xp[i*pw:][:vw])
	}
	var rows [7][]float64
	var hr [7]*[3][]float64
	for r := range ch {
		bandHGo(&H[(r+2*p)%7], xp[(r+2*p)*pw:][:vw])
		for i := range 7 {
			rows[i] = xp[(r+i)*pw:][:vw]
			hr[i] = &H[(r+i)%7]
		}
		bandVGo(&V, &rows)
		bandOutGo(b0[r*cw:][:cw], &V)
		bandOut3Go(b3[r*cw:][:cw], &hr)
	}
}

// bandHGo writes H_k (k = 1…3) of the padded row x (len(x) = len(h[0])+6)
// into h[k−1]: h[k−1][c] = fma(g[3+k][6], s3, fma(g[3+k][5], s2,
// fma(g[3+k][4], s1, g[3+k][3]·x[c+3]))) with s_l = x[c+3−l] + x[c+3+l].
func bandHGo(h *[3][]float64, x []float64) {
	g := &sp5Bands[3]
	n := len(h[0])
	h1, h2, h3 := h[0][:n], h[1][:n], h[2][:n]
	x0, x1, x2, x3 := x[0:n], x[1:1+n], x[2:2+n], x[3:3+n]
	x4, x5, x6 := x[4:4+n], x[5:5+n], x[6:6+n]
	for c := range h1 {
		s1 := x2[c] + x4[c]
		s2 := x1[c] + x5[c]
		s3 := x0[c] + x6[c]
		h1[c] = math.FMA(g[4][6], s3, math.FMA(g[4][5], s2, math.FMA(g[4][4], s1, g[4][3]*x3[c])))
		h2[c] = math.FMA(g[5][6], s3, math.FMA(g[5][5], s2, math.FMA(g[5][4], s1, g[5][3]*x3[c])))
		h3[c] = math.FMA(g[6][6], s3, math.FMA(g[6][5], s2, math.FMA(g[6][4], s1, g[6][3]*x3[c])))
	}
}

// bandVGo writes V_l (l = 1…3) of the padded rows x[0…6] (centre x[3])
// into v[l−1]: v[l−1][j] = fma(f[6][3+l], u3, fma(f[5][3+l], u2,
// fma(f[4][3+l], u1, f[3][3+l]·x3[j]))) with u_k = x[3−k][j] + x[3+k][j].
func bandVGo(v *[3][]float64, x *[7][]float64) {
	f := &sp5Bands[0]
	n := len(v[0])
	v1, v2, v3 := v[0][:n], v[1][:n], v[2][:n]
	x0, x1, x2, x3 := x[0][:n], x[1][:n], x[2][:n], x[3][:n]
	x4, x5, x6 := x[4][:n], x[5][:n], x[6][:n]
	for j := range v1 {
		u1 := x2[j] + x4[j]
		u2 := x1[j] + x5[j]
		u3 := x0[j] + x6[j]
		v1[j] = math.FMA(f[6][4], u3, math.FMA(f[5][4], u2, math.FMA(f[4][4], u1, f[3][4]*x3[j])))
		v2[j] = math.FMA(f[6][5], u3, math.FMA(f[5][5], u2, math.FMA(f[4][5], u1, f[3][5]*x3[j])))
		v3[j] = math.FMA(f[6][6], u3, math.FMA(f[5][6], u2, math.FMA(f[4][6], u1, f[3][6]*x3[j])))
	}
}

// bandOutGo writes band 0's output row: out[c] = ((v1[c+4] − v1[c+2]) +
// (v2[c+5] − v2[c+1])) + (v3[c+6] − v3[c]), len(v[l]) ≥ len(out)+6.
func bandOutGo(out []float64, v *[3][]float64) {
	n := len(out)
	v1, v2, v3 := v[0][:n+6], v[1][:n+6], v[2][:n+6]
	for c := range out {
		out[c] = (v1[c+4] - v1[c+2]) + (v2[c+5] - v2[c+1]) + (v3[c+6] - v3[c])
	}
}

// bandOut3Go writes band 3's output row from the H rows of the padded rows
// r … r+6 (h[i]): out[c] = ((h[4][0][c] − h[2][0][c]) + (h[5][1][c] −
// h[1][1][c])) + (h[6][2][c] − h[0][2][c]).
func bandOut3Go(out []float64, h *[7]*[3][]float64) {
	n := len(out)
	a1, b1 := h[4][0][:n], h[2][0][:n]
	a2, b2 := h[5][1][:n], h[1][1][:n]
	a3, b3 := h[6][2][:n], h[0][2][:n]
	for c := range out {
		out[c] = (a1[c] - b1[c]) + (a2[c] - b2[c]) + (a3[c] - b3[c])
	}
}

// lowpassDownGo writes corrDn(src, lofilt, step 2×2) into dst, which has
// ⌈w/2⌉×⌈h/2⌉ samples. xp and tmp are scratch of at least (w+8)(h+8) and
// 10·(w+8) samples.
//
// As in lo0FilterGo the filter is applied vertically first: per output row
// (centre row 2R) the vertical folds u_k = x(2R−k) + x(2R+k), k = 1…4, and
// u_0 = x(2R) feed the column filters V_l = Σ_k F[k][l]·u_k (summed k = 0…4
// in order; F the folded 5×5 taps sp5Lo[4+k][4+l]), each only at the
// columns it is read at: V_0, V_2, V_4 at even padded columns, V_1, V_3 at
// odd ones; then out(C) = V0(2C+4) + (V1(2C+3) + V1(2C+5)) + (V2(2C+2) +
// V2(2C+6)) + (V3(2C+1) + V3(2C+7)) + (V4(2C) + V4(2C+8)), summed left to
// right (padded columns). That takes 36 additions per output instead of 52.
func lowpassDownGo(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 4
	pw := w + 2*p
	ow, oh := (w+1)/2, (h+1)/2
	padReflect(xp, src, w, h, p)
	var u [5][]float64 // u[0] is the padded centre row itself
	for k := 1; k < 5; k++ {
		u[k] = tmp[k*pw:][:pw]
	}
	var v [5][]float64
	for l := range v {
		v[l] = tmp[(5+l)*pw:][:pw]
	}
	for r := range oh {
		ci := 2*r + p // centre row in padded coordinates
		u[0] = xp[ci*pw:][:pw]
		for k := 1; k <= 4; k++ {
			foldRowsGo(u[k], xp[(ci-k)*pw:][:pw], xp[(ci+k)*pw:][:pw], +1)
		}
		for j := range pw {
			for l := j % 2; l < 5; l += 2 {
				v[l][j] = lowVert(l, u[0][j], u[1][j], u[2][j], u[3][j], u[4][j])
			}
		}
		out := dst[r*ow:][:ow]
		for c := range out {
			j := 2 * c
			out[c] = v[0][j+4] + (v[1][j+3] + v[1][j+5]) + (v[2][j+2] + v[2][j+6]) +
				(v[3][j+1] + v[3][j+7]) + (v[4][j] + v[4][j+8])
		}
	}
}

// lowTaps are lofilt's folded taps F[k][l] = sp5Lo[4+k][4+l], at 5k+l.
var lowTaps = func() (t [25]float64) {
	for k := range 5 {
		copy(t[5*k:5*k+5], sp5Lo[4+k][4:9])
	}
	return t
}()

// lowVert returns the column filter V_l = Σ_k F[k][l]·u_k of lowpassDownGo
// from the folded samples u_0 … u_4 of one column, summed k = 0 … 4 in order.
func lowVert(l int, u0, u1, u2, u3, u4 float64) float64 {
	t := &lowTaps
	return (((t[l]*u0 + t[5+l]*u1) + t[10+l]*u2) + t[15+l]*u3) + t[20+l]*u4
}
