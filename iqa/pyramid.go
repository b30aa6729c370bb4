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
// and a2, b2 (r∓2), for c ≥ c0.
func lo0VertGo(v []float64, pw int, x0, a1, b1, a2, b2 []float64) {
	lo0VertFrom(v, pw, x0, a1, b1, a2, b2, 0)
}

func lo0VertFrom(v []float64, pw int, x0, a1, b1, a2, b2 []float64, c0 int) {
	n := len(x0)
	a1, b1, a2, b2 = a1[:n], b1[:n], a2[:n], b2[:n]
	v0, v1, v2 := v[2:][:n], v[pw+2:][:n], v[2*pw+2:][:n]
	t := &lo0Taps
	for c := c0; c < n; c++ {
		x, u1, u2 := x0[c], a1[c]+b1[c], a2[c]+b2[c]
		v0[c] = (t[0]*x + t[3]*u1) + t[6]*u2
		v1[c] = (t[1]*x + t[4]*u1) + t[7]*u2
		v2[c] = (t[2]*x + t[5]*u1) + t[8]*u2
	}
}

// lo0HorzGo writes out(c) = (V0(c) + (V1(c−1) + V1(c+1))) + (V2(c−2) +
// V2(c+2)) from the padded rows v[l·pw:] of lo0FilterGo, for c ≥ 0.
func lo0HorzGo(out, v []float64, pw int) { lo0HorzFrom(out, v, pw, 0) }

func lo0HorzFrom(out, v []float64, pw, c0 int) {
	n := len(out)
	v0, v1, v2 := v[:n+4], v[pw:][:n+4], v[2*pw:][:n+4]
	for c := c0; c < n; c++ {
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
// Band 0 is antisymmetric across columns and symmetric across rows, band 3
// (= −band 0 transposed) the other way round. Each padded row is folded
// horizontally once — differences x[c+l] − x[c−l] for band 0, sums
// x[c−l] + x[c+l] for band 3, l = 1…3 — into a ring of the 8 rows two output
// rows need; then per l a 7-tap vertical filter (symmetric for band 0,
// antisymmetric for band 3) accumulates into the output row.
func bandFiltersGo(b0, b3, src []float64, w, h, cw, ch int, xp, tmp []float64) {
	const p = 3
	pw := w + 2*p
	padReflect(xp, src, w, h, p)
	f := &sp5Bands[0]
	g := &sp5Bands[3]
	// ring[slot][0..2] = differences l = 1…3, ring[slot][3..5] = sums.
	var ring [8][6][]float64
	for i := range ring {
		for j := range ring[i] {
			ring[i][j] = tmp[(6*i+j)*cw:][:cw]
		}
	}
	fold := func(i int) { // padded row i into slot i mod 8
		foldBandGo(&ring[i%8], xp[i*pw:][:pw])
	}
	for i := range 2 * p {
		fold(i)
	}
	// Two output rows at a time: rows r and r+1 share 6 of their 7 input
	// rows, so every loaded sample feeds both.
	var fr [8]*[6][]float64
	var xr [8][]float64
	r := 0
	for ; r+1 < ch; r += 2 {
		fold(r + 2*p)
		fold(r + 2*p + 1)
		for k := range 8 {
			fr[k] = &ring[(r+k)%8]
			xr[k] = xp[(r+k)*pw+p:][:cw]
		}
		bandRows2Go(b0[r*cw:][:cw], b0[(r+1)*cw:][:cw], b3[r*cw:][:cw], b3[(r+1)*cw:][:cw], &fr, &xr)
	}
	if r < ch { // odd number of rows: the last one alone
		fold(r + 2*p)
		var rows7 [7][]float64
		o0 := b0[r*cw:][:cw]
		o3 := b3[r*cw:][:cw]
		for l := 1; l <= 3; l++ {
			for k := range 7 {
				rows7[k] = ring[(r+k)%8][l-1]
			}
			accVSym7(o0, &rows7, f[3][3+l], f[4][3+l], f[5][3+l], f[6][3+l], l == 1)
		}
		for k := range 7 {
			rows7[k] = xp[(r+k)*pw+p:][:cw]
		}
		accVAnti7(o3, &rows7, g[4][3], g[5][3], g[6][3], true)
		for l := 1; l <= 3; l++ {
			for k := range 7 {
				rows7[k] = ring[(r+k)%8][2+l]
			}
			accVAnti7(o3, &rows7, g[4][3+l], g[5][3+l], g[6][3+l], false)
		}
	}
}

// foldBandGo folds the padded row x (len(x) ≥ len(r[0])+6) horizontally
// about each output column c (x[c+3]): r[l−1][c] = x[c+3+l] − x[c+3−l] and
// r[2+l][c] = x[c+3−l] + x[c+3+l], l = 1…3.
func foldBandGo(r *[6][]float64, x []float64) {
	d1 := r[0]
	n := len(d1)
	d2, d3 := r[1][:n], r[2][:n]
	s1, s2, s3 := r[3][:n], r[4][:n], r[5][:n]
	x0, x1, x2 := x[0:n], x[1:1+n], x[2:2+n]
	x4, x5, x6 := x[4:4+n], x[5:5+n], x[6:6+n]
	for c := range d1 {
		d1[c] = x4[c] - x2[c]
		d2[c] = x5[c] - x1[c]
		d3[c] = x6[c] - x0[c]
		s1[c] = x2[c] + x4[c]
		s2[c] = x1[c] + x5[c]
		s3[c] = x0[c] + x6[c]
	}
}

// bandRows2Go computes output rows r and r+1 of bands 0 (oa0, ob0) and 3
// (oa3, ob3) from the folded rows fr[k] = ring slot of padded row r+k and
// the padded rows xr[k] (from column p), k = 0…7: per l a 7-tap vertical
// filter of the folded rows, accumulated in the order l = 1, 2, 3 (band 3
// starts with the centre column, l = 0, from xr).
func bandRows2Go(oa0, ob0, oa3, ob3 []float64, fr *[8]*[6][]float64, xr *[8][]float64) {
	f := &sp5Bands[0]
	g := &sp5Bands[3]
	var rows [8][]float64
	for l := 1; l <= 3; l++ {
		for k := range 8 {
			rows[k] = fr[k][l-1]
		}
		accVSym7x2Go(oa0, ob0, &rows, f[3][3+l], f[4][3+l], f[5][3+l], f[6][3+l], l == 1)
	}
	accVAnti7x2Go(oa3, ob3, xr, g[4][3], g[5][3], g[6][3], true)
	for l := 1; l <= 3; l++ {
		for k := range 8 {
			rows[k] = fr[k][2+l]
		}
		accVAnti7x2Go(oa3, ob3, &rows, g[4][3+l], g[5][3+l], g[6][3+l], false)
	}
}

// accVSym7x2Go is accVSym7 for two consecutive output rows: oa from v[0…6],
// ob from v[1…7].
func accVSym7x2Go(oa, ob []float64, v *[8][]float64, t0, t1, t2, t3 float64, first bool) {
	n := len(oa)
	ob = ob[:n]
	v0, v1, v2, v3 := v[0][:n], v[1][:n], v[2][:n], v[3][:n]
	v4, v5, v6, v7 := v[4][:n], v[5][:n], v[6][:n], v[7][:n]
	if first {
		for c := range oa {
			a1, a2, a3, a4, a5, a6 := v1[c], v2[c], v3[c], v4[c], v5[c], v6[c]
			oa[c] = t0*a3 + t1*(a2+a4) + t2*(a1+a5) + t3*(v0[c]+a6)
			ob[c] = t0*a4 + t1*(a3+a5) + t2*(a2+a6) + t3*(a1+v7[c])
		}
		return
	}
	for c := range oa {
		a1, a2, a3, a4, a5, a6 := v1[c], v2[c], v3[c], v4[c], v5[c], v6[c]
		oa[c] += t0*a3 + t1*(a2+a4) + t2*(a1+a5) + t3*(v0[c]+a6)
		ob[c] += t0*a4 + t1*(a3+a5) + t2*(a2+a6) + t3*(a1+v7[c])
	}
}

// accVAnti7x2Go is accVAnti7 for two consecutive output rows.
func accVAnti7x2Go(oa, ob []float64, v *[8][]float64, t1, t2, t3 float64, first bool) {
	n := len(oa)
	ob = ob[:n]
	v0, v1, v2, v3 := v[0][:n], v[1][:n], v[2][:n], v[3][:n]
	v4, v5, v6, v7 := v[4][:n], v[5][:n], v[6][:n], v[7][:n]
	if first {
		for c := range oa {
			a1, a2, a3, a4, a5, a6 := v1[c], v2[c], v3[c], v4[c], v5[c], v6[c]
			oa[c] = t1*(a4-a2) + t2*(a5-a1) + t3*(a6-v0[c])
			ob[c] = t1*(a5-a3) + t2*(a6-a2) + t3*(v7[c]-a1)
		}
		return
	}
	for c := range oa {
		a1, a2, a3, a4, a5, a6 := v1[c], v2[c], v3[c], v4[c], v5[c], v6[c]
		oa[c] += t1*(a4-a2) + t2*(a5-a1) + t3*(a6-v0[c])
		ob[c] += t1*(a5-a3) + t2*(a6-a2) + t3*(v7[c]-a1)
	}
}

// accVSym7 sets (first) or adds to out the symmetric vertical 7-tap filter
// t0·v[3] + t1·(v[2]+v[4]) + t2·(v[1]+v[5]) + t3·(v[0]+v[6]) of the rows v.
func accVSym7(out []float64, v *[7][]float64, t0, t1, t2, t3 float64, first bool) {
	n := len(out)
	v0, v1, v2, v3 := v[0][:n], v[1][:n], v[2][:n], v[3][:n]
	v4, v5, v6 := v[4][:n], v[5][:n], v[6][:n]
	if first {
		for c := range out {
			out[c] = t0*v3[c] + t1*(v2[c]+v4[c]) + t2*(v1[c]+v5[c]) + t3*(v0[c]+v6[c])
		}
		return
	}
	for c := range out {
		out[c] += t0*v3[c] + t1*(v2[c]+v4[c]) + t2*(v1[c]+v5[c]) + t3*(v0[c]+v6[c])
	}
}

// accVAnti7 sets (first) or adds to out the antisymmetric vertical 7-tap
// filter t1·(v[4]−v[2]) + t2·(v[5]−v[1]) + t3·(v[6]−v[0]) of the rows v.
func accVAnti7(out []float64, v *[7][]float64, t1, t2, t3 float64, first bool) {
	n := len(out)
	v0, v1, v2 := v[0][:n], v[1][:n], v[2][:n]
	v4, v5, v6 := v[4][:n], v[5][:n], v[6][:n]
	if first {
		for c := range out {
			out[c] = t1*(v4[c]-v2[c]) + t2*(v5[c]-v1[c]) + t3*(v6[c]-v0[c])
		}
		return
	}
	for c := range out {
		out[c] += t1*(v4[c]-v2[c]) + t2*(v5[c]-v1[c]) + t3*(v6[c]-v0[c])
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
	var u [5][]float64
	for k := range u {
		u[k] = tmp[k*pw:][:pw]
	}
	var v [5][]float64
	for l := range v {
		v[l] = tmp[(5+l)*pw:][:pw]
	}
	for r := range oh {
		ci := 2*r + p // centre row in padded coordinates
		copy(u[0], xp[ci*pw:][:pw])
		for k := 1; k <= 4; k++ {
			foldRowsGo(u[k], xp[(ci-k)*pw:][:pw], xp[(ci+k)*pw:][:pw], +1)
		}
		for j := range pw {
			for l := j % 2; l < 5; l += 2 {
				v[l][j] = lowVert(&u, j, l)
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

// lowVert returns the column filter V_l = Σ_k F[k][l]·u_k[j] of
// lowpassDownGo, summed k = 0 … 4 in order.
func lowVert(u *[5][]float64, j, l int) float64 {
	t := &lowTaps
	return (((t[l]*u[0][j] + t[5+l]*u[1][j]) + t[10+l]*u[2][j]) + t[15+l]*u[3][j]) + t[20+l]*u[4][j]
}
