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

// lo0Filter writes corrDn(src, lo0filt) (w×h, step 1) into dst. xp and tmp
// are scratch of at least (w+4)(h+4) and 3·(w+4) samples.
func lo0Filter(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 2
	pw := w + 2*p
	padReflect(xp, src, w, h, p)
	f := &sp5Lo0
	v := tmp[:pw]
	for r := range h {
		out := dst[r*w:][:w]
		// Padded rows r … r+4, centre r+2: fold vertically, then filter
		// the folded row k with the symmetric taps f[2+k][2 … 4].
		accSym5(out, xp[(r+2)*pw:][:pw], f[2][2], f[2][3], f[2][4], true)
		for k := 1; k <= 2; k++ {
			foldRows(v, xp[(r+2-k)*pw:][:pw], xp[(r+2+k)*pw:][:pw], +1)
			accSym5(out, v, f[2+k][2], f[2+k][3], f[2+k][4], false)
		}
	}
}

// foldRows writes a + sign·b into dst (all the same length).
func foldRows(dst, a, b []float64, sign float64) {
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

// accSym5 sets (first) or adds to out[c] the 5-tap symmetric correlation
// c0·v[c+2] + c1·(v[c+1]+v[c+3]) + c2·(v[c]+v[c+4]); len(v) ≥ len(out)+4.
func accSym5(out, v []float64, c0, c1, c2 float64, first bool) {
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

// accSym7 sets (first) or adds to out[c] the 7-tap symmetric correlation
// g0·v[c+3] + g1·(v[c+2]+v[c+4]) + g2·(v[c+1]+v[c+5]) + g3·(v[c]+v[c+6]).
func accSym7(out, v []float64, g0, g1, g2, g3 float64, first bool) {
	n := len(out)
	v0, v1, v2, v3 := v[0:n], v[1:1+n], v[2:2+n], v[3:3+n]
	v4, v5, v6 := v[4:4+n], v[5:5+n], v[6:6+n]
	if first {
		for c := range out {
			out[c] = g0*v3[c] + g1*(v2[c]+v4[c]) + g2*(v1[c]+v5[c]) + g3*(v0[c]+v6[c])
		}
		return
	}
	for c := range out {
		out[c] += g0*v3[c] + g1*(v2[c]+v4[c]) + g2*(v1[c]+v5[c]) + g3*(v0[c]+v6[c])
	}
}

// accAnti7 sets (first) or adds to out[c] the 7-tap antisymmetric
// correlation f1·(v[c+4]−v[c+2]) + f2·(v[c+5]−v[c+1]) + f3·(v[c+6]−v[c]).
func accAnti7(out, v []float64, f1, f2, f3 float64, first bool) {
	n := len(out)
	v0, v1, v2 := v[0:n], v[1:1+n], v[2:2+n]
	v4, v5, v6 := v[4:4+n], v[5:5+n], v[6:6+n]
	if first {
		for c := range out {
			out[c] = f1*(v4[c]-v2[c]) + f2*(v5[c]-v1[c]) + f3*(v6[c]-v0[c])
		}
		return
	}
	for c := range out {
		out[c] += f1*(v4[c]-v2[c]) + f2*(v5[c]-v1[c]) + f3*(v6[c]-v0[c])
	}
}

// bandFilters writes corrDn(src, bfilts[0]) into b0 and corrDn(src,
// bfilts[3]) into b3 for the top-left cw×ch region (stride cw) of the w×h
// image src. xp and tmp are scratch of at least (w+6)(h+6) and cw+6 samples.
func bandFilters(b0, b3, src []float64, w, h, cw, ch int, xp, tmp []float64) {
	const p = 3
	pw := w + 2*p
	padReflect(xp, src, w, h, p)
	f := &sp5Bands[0]
	g := &sp5Bands[3]
	vw := cw + 2*p
	v := tmp[:vw]
	for r := range ch {
		// Output row r is centred on padded row r+3.
		o0 := b0[r*cw:][:cw]
		o3 := b3[r*cw:][:cw]
		// Band 0 is symmetric across rows and antisymmetric across
		// columns: fold rows r+3±k by their sum, then antisymmetric taps
		// f[3+k][4 … 6]. Band 3 (= −band 0 transposed) is antisymmetric
		// across rows: fold by the difference, then symmetric taps.
		accAnti7(o0, xp[(r+3)*pw:][:vw], f[3][4], f[3][5], f[3][6], true)
		for k := 1; k <= 3; k++ {
			up := xp[(r+3-k)*pw:][:vw]
			dn := xp[(r+3+k)*pw:][:vw]
			foldRows(v, dn, up, +1)
			accAnti7(o0, v, f[3+k][4], f[3+k][5], f[3+k][6], false)
			foldRows(v, dn, up, -1)
			accSym7(o3, v, g[3+k][3], g[3+k][4], g[3+k][5], g[3+k][6], k == 1)
		}
	}
}

// lowpassDown writes corrDn(src, lofilt, step 2×2) into dst, which has
// ⌈w/2⌉×⌈h/2⌉ samples. xp and tmp are scratch of at least (w+8)(h+8) and
// w+8 samples.
func lowpassDown(dst, src []float64, w, h int, xp, tmp []float64) {
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
			foldRows(v, xp[(ci-k)*pw:][:pw], xp[(ci+k)*pw:][:pw], +1)
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
