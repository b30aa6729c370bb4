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
// are scratch of at least (w+4)(h+4) and 3·(h+4)·w samples.
func lo0Filter(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 2
	pw := w + 2*p
	ph := h + 2*p
	padReflect(xp, src, w, h, p)
	// Horizontal folds of every padded row: s0 = x[c], s1 = x[c−1]+x[c+1],
	// s2 = x[c−2]+x[c+2] (column c of the output).
	n := ph * w
	s0, s1, s2 := tmp[:n], tmp[n:2*n], tmp[2*n:3*n]
	for i := range ph {
		x := xp[i*pw:][:pw]
		a0 := s0[i*w:][:w]
		a1 := s1[i*w:][:w]
		a2 := s2[i*w:][:w]
		for c := range a0 {
			a0[c] = x[c+2]
			a1[c] = x[c+1] + x[c+3]
			a2[c] = x[c] + x[c+4]
		}
	}
	f := &sp5Lo0
	c00, c01, c02 := f[2][2], f[2][3], f[2][4]
	c10, c11, c12 := f[3][2], f[3][3], f[3][4]
	c20, c21, c22 := f[4][2], f[4][3], f[4][4]
	for r := range h {
		// Padded rows r..r+4; centre r+2.
		m0 := s0[(r+2)*w:][:w]
		m1 := s1[(r+2)*w:][:w]
		m2 := s2[(r+2)*w:][:w]
		u0, d0 := s0[(r+1)*w:][:w], s0[(r+3)*w:][:w]
		u1, d1 := s1[(r+1)*w:][:w], s1[(r+3)*w:][:w]
		u2, d2 := s2[(r+1)*w:][:w], s2[(r+3)*w:][:w]
		v0, e0 := s0[r*w:][:w], s0[(r+4)*w:][:w]
		v1, e1 := s1[r*w:][:w], s1[(r+4)*w:][:w]
		v2, e2 := s2[r*w:][:w], s2[(r+4)*w:][:w]
		out := dst[r*w:][:w]
		for c := range out {
			out[c] = c00*m0[c] + c01*m1[c] + c02*m2[c] +
				c10*(u0[c]+d0[c]) + c11*(u1[c]+d1[c]) + c12*(u2[c]+d2[c]) +
				c20*(v0[c]+e0[c]) + c21*(v1[c]+e1[c]) + c22*(v2[c]+e2[c])
		}
	}
}

// bandFilters writes corrDn(src, bfilts[0]) into b0 and corrDn(src,
// bfilts[3]) into b3 for the top-left cw×ch region (stride cw) of the w×h
// image src. xp and tmp are scratch of at least (w+6)(h+6) and
// 3·(h+6)·cw + 3·(cw+6) samples.
func bandFilters(b0, b3, src []float64, w, h, cw, ch int, xp, tmp []float64) {
	const p = 3
	pw := w + 2*p
	padReflect(xp, src, w, h, p)
	f := &sp5Bands[0]
	g := &sp5Bands[3]

	// Band 0 is antisymmetric across columns and symmetric across rows:
	// horizontal differences hl = x[c+l] − x[c−l] of the padded rows
	// 0 … ch+5, then a symmetric vertical fold.
	n := (ch + 2*p) * cw
	h1, h2, h3 := tmp[:n], tmp[n:2*n], tmp[2*n:3*n]
	for i := range ch + 2*p {
		x := xp[i*pw:][:pw]
		a1 := h1[i*cw:][:cw]
		a2 := h2[i*cw:][:cw]
		a3 := h3[i*cw:][:cw]
		for c := range a1 {
			a1[c] = x[c+4] - x[c+2]
			a2[c] = x[c+5] - x[c+1]
			a3[c] = x[c+6] - x[c]
		}
	}
	// f[3+k][3+l] for k = 0…3 (row offset) and l = 1…3 (column offset).
	f01, f02, f03 := f[3][4], f[3][5], f[3][6]
	f11, f12, f13 := f[4][4], f[4][5], f[4][6]
	f21, f22, f23 := f[5][4], f[5][5], f[5][6]
	f31, f32, f33 := f[6][4], f[6][5], f[6][6]
	for r := range ch {
		row := func(a []float64, k int) []float64 { return a[(r+3+k)*cw:][:cw] }
		m1, m2, m3 := row(h1, 0), row(h2, 0), row(h3, 0)
		u11, u12, u13 := row(h1, -1), row(h2, -1), row(h3, -1)
		d11, d12, d13 := row(h1, 1), row(h2, 1), row(h3, 1)
		u21, u22, u23 := row(h1, -2), row(h2, -2), row(h3, -2)
		d21, d22, d23 := row(h1, 2), row(h2, 2), row(h3, 2)
		u31, u32, u33 := row(h1, -3), row(h2, -3), row(h3, -3)
		d31, d32, d33 := row(h1, 3), row(h2, 3), row(h3, 3)
		out := b0[r*cw:][:cw]
		for c := range out {
			out[c] = f01*m1[c] + f02*m2[c] + f03*m3[c] +
				f11*(u11[c]+d11[c]) + f12*(u12[c]+d12[c]) + f13*(u13[c]+d13[c]) +
				f21*(u21[c]+d21[c]) + f22*(u22[c]+d22[c]) + f23*(u23[c]+d23[c]) +
				f31*(u31[c]+d31[c]) + f32*(u32[c]+d32[c]) + f33*(u33[c]+d33[c])
		}
	}

	// Band 3 is symmetric across columns and antisymmetric across rows:
	// per output row the vertical differences vk = x[r+k] − x[r−k] over the
	// padded width, then a symmetric horizontal fold.
	vw := cw + 2*p
	rest := tmp[3*n:]
	v1, v2, v3 := rest[:vw], rest[vw:2*vw], rest[2*vw:3*vw]
	// g[3+k][3+l] for k = 1…3 and l = 0…3.
	g10, g11, g12, g13 := g[4][3], g[4][4], g[4][5], g[4][6]
	g20, g21, g22, g23 := g[5][3], g[5][4], g[5][5], g[5][6]
	g30, g31, g32, g33 := g[6][3], g[6][4], g[6][5], g[6][6]
	for r := range ch {
		for k, v := range [3][]float64{v1, v2, v3} {
			dn := xp[(r+3+k+1)*pw:][:vw]
			up := xp[(r+3-k-1)*pw:][:vw]
			v = v[:vw]
			for c := range v {
				v[c] = dn[c] - up[c]
			}
		}
		out := b3[r*cw:][:cw]
		for c := range out {
			out[c] = g10*v1[c+3] + g11*(v1[c+2]+v1[c+4]) + g12*(v1[c+1]+v1[c+5]) + g13*(v1[c]+v1[c+6]) +
				g20*v2[c+3] + g21*(v2[c+2]+v2[c+4]) + g22*(v2[c+1]+v2[c+5]) + g23*(v2[c]+v2[c+6]) +
				g30*v3[c+3] + g31*(v3[c+2]+v3[c+4]) + g32*(v3[c+1]+v3[c+5]) + g33*(v3[c]+v3[c+6])
		}
	}
}

// lowpassDown writes corrDn(src, lofilt, step 2×2) into dst, which has
// ⌈w/2⌉×⌈h/2⌉ samples. xp and tmp are scratch of at least (w+8)(h+8) and
// 5·(h+8)·⌈w/2⌉ samples.
func lowpassDown(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 4
	pw := w + 2*p
	ph := h + 2*p
	ow, oh := (w+1)/2, (h+1)/2
	padReflect(xp, src, w, h, p)
	// Horizontal folds at the even columns 2c (padded 2c+4).
	n := ph * ow
	var s [5][]float64
	for l := range s {
		s[l] = tmp[l*n : (l+1)*n]
	}
	for i := range ph {
		x := xp[i*pw:][:pw]
		a0 := s[0][i*ow:][:ow]
		a1 := s[1][i*ow:][:ow]
		a2 := s[2][i*ow:][:ow]
		a3 := s[3][i*ow:][:ow]
		a4 := s[4][i*ow:][:ow]
		for c := range a0 {
			j := 2*c + 4
			x := x[j-4 : j+5 : j+5]
			a0[c] = x[4]
			a1[c] = x[3] + x[5]
			a2[c] = x[2] + x[6]
			a3[c] = x[1] + x[7]
			a4[c] = x[0] + x[8]
		}
	}
	f := &sp5Lo
	for r := range oh {
		out := dst[r*ow:][:ow]
		ci := 2*r + 4 // centre row in padded coordinates
		for l := range 5 {
			a := s[l]
			f0, f1, f2, f3, f4 := f[4][4+l], f[5][4+l], f[6][4+l], f[7][4+l], f[8][4+l]
			m := a[ci*ow:][:ow]
			u1, d1 := a[(ci-1)*ow:][:ow], a[(ci+1)*ow:][:ow]
			u2, d2 := a[(ci-2)*ow:][:ow], a[(ci+2)*ow:][:ow]
			u3, d3 := a[(ci-3)*ow:][:ow], a[(ci+3)*ow:][:ow]
			u4, d4 := a[(ci-4)*ow:][:ow], a[(ci+4)*ow:][:ow]
			if l == 0 {
				for c := range out {
					out[c] = f0*m[c] + f1*(u1[c]+d1[c]) + f2*(u2[c]+d2[c]) + f3*(u3[c]+d3[c]) + f4*(u4[c]+d4[c])
				}
				continue
			}
			for c := range out {
				out[c] += f0*m[c] + f1*(u1[c]+d1[c]) + f2*(u2[c]+d2[c]) + f3*(u3[c]+d3[c]) + f4*(u4[c]+d4[c])
			}
		}
	}
}
