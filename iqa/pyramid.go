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

// lo0FilterGo writes corrDn(src, lo0filt) (w×h, step 1) into dst. xp and tmp
// are scratch of at least (w+4)(h+4) and 3·(w+4) samples.
func lo0FilterGo(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 2
	pw := w + 2*p
	padReflect(xp, src, w, h, p)
	f := &sp5Lo0
	v := tmp[:pw]
	for r := range h {
		out := dst[r*w:][:w]
		// Padded rows r … r+4, centre r+2: fold vertically, then filter
		// the folded row k with the symmetric taps f[2+k][2 … 4].
		accSym5Go(out, xp[(r+2)*pw:][:pw], f[2][2], f[2][3], f[2][4], true)
		for k := 1; k <= 2; k++ {
			foldRowsGo(v, xp[(r+2-k)*pw:][:pw], xp[(r+2+k)*pw:][:pw], +1)
			accSym5Go(out, v, f[2+k][2], f[2+k][3], f[2+k][4], false)
		}
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

// accSym5Go sets (first) or adds to out[c] the 5-tap symmetric correlation
// c0·v[c+2] + c1·(v[c+1]+v[c+3]) + c2·(v[c]+v[c+4]); len(v) ≥ len(out)+4.
func accSym5Go(out, v []float64, c0, c1, c2 float64, first bool) {
	n := len(out)
	v0, v1, v2, v3, v4 := v[0:n], v[1:1+n], v[2:2+n], v[3:3+n], v[4:4+n]
	if first {
		for c := range out {
			out[c] = c0*v2[c] + c1*(v1[c]+v3[c]) + c2*(v0[c]+v4[c])
		}
		return
	}
	for c := range out {
		out[c] += c0*v2[c] + c1*(v1[c]+v3[c]) + c2*(v0[c]+v4[c])
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
// 5·(w+8) samples.
func lowpassDownGo(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 4
	pw := w + 2*p
	ow, oh := (w+1)/2, (h+1)/2
	padReflect(xp, src, w, h, p)
	f := &sp5Lo
	v := tmp[:pw]
	for r := range oh {
		out := dst[r*ow:][:ow]
		ci := 2*r + p // centre row in padded coordinates
		accSym9Step2(out, xp[ci*pw:][:pw], &f[4], true)
		for k := 1; k <= 4; k++ {
			foldRowsGo(v, xp[(ci-k)*pw:][:pw], xp[(ci+k)*pw:][:pw], +1)
			accSym9Step2(out, v, &f[4+k], false)
		}
	}
}

// accSym9Step2 sets (first) or adds to out[c] the symmetric 9-tap
// correlation with taps t[4 … 8] centred on v[2c+4].
func accSym9Step2(out, v []float64, t *[9]float64, first bool) {
	t0, t1, t2, t3, t4 := t[4], t[5], t[6], t[7], t[8]
	for c := range out {
		x := v[2*c : 2*c+9 : 2*c+9]
		s := t0*x[4] + t1*(x[3]+x[5]) + t2*(x[2]+x[6]) + t3*(x[1]+x[7]) + t4*(x[0]+x[8])
		if first {
			out[c] = s
		} else {
			out[c] += s
		}
	}
}
