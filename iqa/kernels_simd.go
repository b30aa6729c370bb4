//go:build goexperiment.simd && amd64 && !purego

package iqa

import "simd/archsimd"

// AVX2 versions of the hot kernels (GOEXPERIMENT=simd on amd64), written
// with simd/archsimd; the default build uses the same algorithms in
// assembly (kernels_amd64.go). Each
// vector lane computes one output exactly as the scalar kernel does — the
// same operations on the same operands in the same order, with separate
// multiplies and adds (no fused multiply-add) — so the results are
// bit-identical to the pure-Go build (checked by TestSIMDKernels*). Four
// outputs go in one Float64x4; the ragged end of a row uses the scalar
// kernel. Without AVX2 at run time the scalar kernels are used.
//
// Every kernel ends its vector part with archsimd.ClearAVXUpperBits
// (VZEROUPPER): the compiler does not emit it yet, and the scalar (SSE)
// code that follows otherwise runs several times slower.

// simdKernels reports whether the vectorised kernels are in use. Tests
// switch it off to compare both paths in one binary.
var simdKernels = haveAVX2

// haveAVX2 reports whether this CPU has AVX2.
var haveAVX2 = archsimd.X86.AVX2()

type f64x4 = archsimd.Float64x4

// ld4 loads s[i … i+3]; st4 stores x there. The three-index slices keep
// the compiler from masking the pointer for an empty result, which would
// otherwise cost more than the arithmetic.
func ld4(s []float64, i int) f64x4 {
	return archsimd.LoadFloat64x4((*[4]float64)(s[i : i+4 : i+4]))
}

func st4(x f64x4, s []float64, i int) { x.Store((*[4]float64)(s[i : i+4 : i+4])) }
func bcast4(v float64) f64x4          { return archsimd.BroadcastFloat64x4(v) }

func foldRows(dst, a, b []float64, sign float64) {
	if !simdKernels {
		foldRowsGo(dst, a, b, sign)
		return
	}
	foldRowsAVX2(dst, a, b, sign)
}

func accSym5(out, v []float64, c0, c1, c2 float64, first bool) {
	if !simdKernels {
		accSym5Go(out, v, c0, c1, c2, first)
		return
	}
	accSym5AVX2(out, v, c0, c1, c2, first)
}

func foldBand(r *[6][]float64, x []float64) {
	if !simdKernels {
		foldBandGo(r, x)
		return
	}
	foldBandAVX2(r, x)
}

func bandRows2(oa0, ob0, oa3, ob3 []float64, fr *[8]*[6][]float64, xr *[8][]float64) {
	if !simdKernels {
		bandRows2Go(oa0, ob0, oa3, ob3, fr, xr)
		return
	}
	bandRows2AVX2(oa0, ob0, oa3, ob3, fr, xr)
}

func lowpassDown(dst, src []float64, w, h int, xp, tmp []float64) {
	if !simdKernels {
		lowpassDownGo(dst, src, w, h, xp, tmp)
		return
	}
	lowpassDownAVX2(dst, src, w, h, xp, tmp)
}

func patchCore2(coreA, coreB *[13]float64, r0, r1, r2, r3 []float64) (sA, sB float64) {
	if !simdKernels {
		return patchCore2Go(coreA, coreB, r0, r1, r2, r3)
	}
	return patchCore2AVX2(coreA, coreB, r0, r1, r2, r3)
}

func windowRows(vert, x, y []float64, xoff, cw, n, cols, m int, two bool, p3, p2, buf []float64) {
	if !simdKernels || n < 4 {
		windowRowsGo(vert, x, y, xoff, cw, n, cols, m, two, p3, p2, buf)
		return
	}
	windowRowsAVX2(vert, x, y, xoff, cw, cols, m, two, p3, p2, buf)
}

// foldRowsAVX2 is foldRowsGo.
func foldRowsAVX2(dst, a, b []float64, sign float64) {
	n := len(dst)
	a, b = a[:n], b[:n]
	c := 0
	if sign > 0 {
		for ; c+4 <= n; c += 4 {
			st4(ld4(a, c).Add(ld4(b, c)), dst, c)
		}
	} else {
		for ; c+4 <= n; c += 4 {
			st4(ld4(a, c).Sub(ld4(b, c)), dst, c)
		}
	}
	archsimd.ClearAVXUpperBits()
	foldRowsGo(dst[c:], a[c:], b[c:], sign)
}

// accSym5AVX2 is accSym5Go.
func accSym5AVX2(out, v []float64, c0, c1, c2 float64, first bool) {
	n := len(out)
	v = v[:n+4]
	k0, k1, k2 := bcast4(c0), bcast4(c1), bcast4(c2)
	c := 0
	for ; c+4 <= n; c += 4 {
		x := v[c : c+8]
		s := k0.Mul(ld4(x, 2)).
			Add(k1.Mul(ld4(x, 1).Add(ld4(x, 3)))).
			Add(k2.Mul(ld4(x, 0).Add(ld4(x, 4))))
		if !first {
			s = ld4(out, c).Add(s)
		}
		st4(s, out, c)
	}
	archsimd.ClearAVXUpperBits()
	accSym5Go(out[c:], v[c:], c0, c1, c2, first)
}

// foldBandAVX2 is foldBandGo.
func foldBandAVX2(r *[6][]float64, x []float64) {
	d1 := r[0]
	n := len(d1)
	d2, d3 := r[1][:n], r[2][:n]
	s1, s2, s3 := r[3][:n], r[4][:n], r[5][:n]
	x = x[:n+6]
	c := 0
	for ; c+4 <= n; c += 4 {
		y := x[c : c+10]
		x0, x1, x2 := ld4(y, 0), ld4(y, 1), ld4(y, 2)
		x4, x5, x6 := ld4(y, 4), ld4(y, 5), ld4(y, 6)
		st4(x4.Sub(x2), d1, c)
		st4(x5.Sub(x1), d2, c)
		st4(x6.Sub(x0), d3, c)
		st4(x2.Add(x4), s1, c)
		st4(x1.Add(x5), s2, c)
		st4(x0.Add(x6), s3, c)
	}
	archsimd.ClearAVXUpperBits()
	if c < n {
		rest := [6][]float64{d1[c:], d2[c:], d3[c:], s1[c:], s2[c:], s3[c:]}
		foldBandGo(&rest, x[c:])
	}
}

// accVSym7x2AVX2 is accVSym7x2Go.
func accVSym7x2AVX2(oa, ob []float64, v *[8][]float64, t0, t1, t2, t3 float64, first bool) {
	n := len(oa)
	ob = ob[:n]
	v0, v1, v2, v3 := v[0][:n], v[1][:n], v[2][:n], v[3][:n]
	v4, v5, v6, v7 := v[4][:n], v[5][:n], v[6][:n], v[7][:n]
	k0, k1, k2, k3 := bcast4(t0), bcast4(t1), bcast4(t2), bcast4(t3)
	c := 0
	for ; c+4 <= n; c += 4 {
		a1, a2, a3 := ld4(v1, c), ld4(v2, c), ld4(v3, c)
		a4, a5, a6 := ld4(v4, c), ld4(v5, c), ld4(v6, c)
		sa := k0.Mul(a3).Add(k1.Mul(a2.Add(a4))).Add(k2.Mul(a1.Add(a5))).Add(k3.Mul(ld4(v0, c).Add(a6)))
		sb := k0.Mul(a4).Add(k1.Mul(a3.Add(a5))).Add(k2.Mul(a2.Add(a6))).Add(k3.Mul(a1.Add(ld4(v7, c))))
		if !first {
			sa = ld4(oa, c).Add(sa)
			sb = ld4(ob, c).Add(sb)
		}
		st4(sa, oa, c)
		st4(sb, ob, c)
	}
	archsimd.ClearAVXUpperBits()
	if c < n {
		var rest [8][]float64
		for k := range rest {
			rest[k] = v[k][c:n]
		}
		accVSym7x2Go(oa[c:], ob[c:], &rest, t0, t1, t2, t3, first)
	}
}

// accVAnti7x2AVX2 is accVAnti7x2Go.
func accVAnti7x2AVX2(oa, ob []float64, v *[8][]float64, t1, t2, t3 float64, first bool) {
	n := len(oa)
	ob = ob[:n]
	v0, v1, v2, v3 := v[0][:n], v[1][:n], v[2][:n], v[3][:n]
	v4, v5, v6, v7 := v[4][:n], v[5][:n], v[6][:n], v[7][:n]
	k1, k2, k3 := bcast4(t1), bcast4(t2), bcast4(t3)
	c := 0
	for ; c+4 <= n; c += 4 {
		a1, a2, a3 := ld4(v1, c), ld4(v2, c), ld4(v3, c)
		a4, a5, a6 := ld4(v4, c), ld4(v5, c), ld4(v6, c)
		sa := k1.Mul(a4.Sub(a2)).Add(k2.Mul(a5.Sub(a1))).Add(k3.Mul(a6.Sub(ld4(v0, c))))
		sb := k1.Mul(a5.Sub(a3)).Add(k2.Mul(a6.Sub(a2))).Add(k3.Mul(ld4(v7, c).Sub(a1)))
		if !first {
			sa = ld4(oa, c).Add(sa)
			sb = ld4(ob, c).Add(sb)
		}
		st4(sa, oa, c)
		st4(sb, ob, c)
	}
	archsimd.ClearAVXUpperBits()
	if c < n {
		var rest [8][]float64
		for k := range rest {
			rest[k] = v[k][c:n]
		}
		accVAnti7x2Go(oa[c:], ob[c:], &rest, t1, t2, t3, first)
	}
}

// lowpassDownAVX2 is lowpassDownGo with the padded image stored with its
// columns de-interleaved: each padded row holds its ⌈pw/2⌉ even columns,
// then its ⌊pw/2⌋ odd ones, so the step-2 correlation reads consecutive
// samples. The arithmetic per output is the scalar kernel's.
func lowpassDownAVX2(dst, src []float64, w, h int, xp, tmp []float64) {
	const p = 4
	pw := w + 2*p
	ne := (pw + 1) / 2
	ow, oh := (w+1)/2, (h+1)/2
	padReflectSplit(xp, src, w, h, p)
	f := &sp5Lo
	v := tmp[:pw]
	for r := range oh {
		out := dst[r*ow:][:ow]
		ci := 2*r + p
		accSym9Split(out, xp[ci*pw:][:pw], ne, &f[4], true)
		for k := 1; k <= 4; k++ {
			foldRowsAVX2(v, xp[(ci-k)*pw:][:pw], xp[(ci+k)*pw:][:pw], +1)
			accSym9Split(out, v, ne, &f[4+k], false)
		}
	}
}

// padReflectSplit is padReflect (p even) with every padded row stored as
// its even columns followed by its odd columns.
func padReflectSplit(dst, src []float64, w, h, p int) {
	pw := w + 2*p
	ne := (pw + 1) / 2
	dst = dst[:pw*(h+2*p)]
	for i := range h + 2*p {
		s := src[reflect1(i-p, h)*w:][:w]
		d := dst[i*pw:][:pw]
		ev, od := d[:ne], d[ne:]
		for j := range p { // left and right padding
			put := func(j int) {
				x := s[reflect1(j-p, w)]
				if j%2 == 0 {
					ev[j/2] = x
				} else {
					od[j/2] = x
				}
			}
			put(j)
			put(p + w + j)
		}
		// Interior: padded column p + i is s[i], p even.
		e, o := ev[p/2:], od[p/2:]
		k := 0
		for ; 2*k+8 <= w; k += 4 {
			a, b := ld4(s, 2*k), ld4(s, 2*k+4)
			lo := a.Select128FromPair(0, 2, b) // s0 s1 s4 s5
			hi := a.Select128FromPair(1, 3, b) // s2 s3 s6 s7
			st4(lo.SelectFromPairGrouped(0, 2, hi), e, k)
			st4(lo.SelectFromPairGrouped(1, 3, hi), o, k)
		}
		archsimd.ClearAVXUpperBits()
		for ; 2*k < w; k++ {
			e[k] = s[2*k]
			if 2*k+1 < w {
				o[k] = s[2*k+1]
			}
		}
	}
}

// accSym9Split is accSym9Step2 on a de-interleaved row: v[:ne] holds the
// even samples E, v[ne:] the odd samples O of the original row, so x[2c+j]
// is E[c+j/2] for even j and O[c+(j−1)/2] for odd j.
func accSym9Split(out, v []float64, ne int, t *[9]float64, first bool) {
	n := len(out)
	E, O := v[:ne], v[ne:]
	E, O = E[:n+4], O[:n+3]
	t0, t1, t2, t3, t4 := t[4], t[5], t[6], t[7], t[8]
	k0, k1, k2, k3, k4 := bcast4(t0), bcast4(t1), bcast4(t2), bcast4(t3), bcast4(t4)
	c := 0
	for ; c+4 <= n; c += 4 {
		e := E[c : c+8]
		o := O[c : c+7]
		s := k0.Mul(ld4(e, 2)).
			Add(k1.Mul(ld4(o, 1).Add(ld4(o, 2)))).
			Add(k2.Mul(ld4(e, 1).Add(ld4(e, 3)))).
			Add(k3.Mul(ld4(o, 0).Add(ld4(o, 3)))).
			Add(k4.Mul(ld4(e, 0).Add(ld4(e, 4))))
		if !first {
			s = ld4(out, c).Add(s)
		}
		st4(s, out, c)
	}
	archsimd.ClearAVXUpperBits()
	for ; c < n; c++ {
		e, o := E[c:c+5], O[c:c+4]
		s := t0*e[2] + t1*(o[1]+o[2]) + t2*(e[1]+e[3]) + t3*(o[0]+o[3]) + t4*(e[0]+e[4])
		if first {
			out[c] = s
		} else {
			out[c] += s
		}
	}
}

// patchCoreAVX2 is patchCoreGo. Lanes are displacements, not pixels: per
// core sample v = c[k], one broadcast times four consecutive samples of a
// row updates four of the sums, each still accumulated over k in order.
// The sum s rides in a lane of its own. No scalar
// floating-point instruction runs inside the vector loop: legacy SSE code
// between 256-bit operations is several times slower on this hardware.
// The last three k, whose loads would pass the row's end, are finished in
// scalar code, lane by lane, continuing the same sums.
func patchCoreAVX2(core *[13]float64, r0, r1, r2 []float64) (s float64) {
	B := len(r0)
	n := B - 4
	if r1 == nil || r2 == nil || n < 4 {
		return patchCoreGo(core, r0, r1, r2) // the band's last two rows
	}
	r1, r2 = r1[:B], r2[:B]
	c := r0[2:][:n]
	// Lanes: q0 = core[0…2] (lane 3 unused), q1 = core[3…6], q1e[0] =
	// core[7], q2 = core[8…11], q2e[0] = core[12], qs[0] = s.
	var q0, q1, q1e, q2, q2e, qs f64x4
	k := 0
	for ; k < n-3; k++ {
		bv := archsimd.LoadFloat64x2((*[2]float64)(c[k : k+2 : k+2])).Broadcast1To4()
		qs = qs.Add(bv)
		q0 = q0.Add(bv.Mul(ld4(r0, 2+k)))
		q1 = q1.Add(bv.Mul(ld4(r1, k)))
		q1e = q1e.Add(bv.Mul(ld4(r1, k+4)))
		q2 = q2.Add(bv.Mul(ld4(r2, k)))
		q2e = q2e.Add(bv.Mul(ld4(r2, k+4)))
	}
	var q [6][4]float64
	for j, v := range [6]f64x4{q0, q1, q1e, q2, q2e, qs} {
		v.Store(&q[j])
	}
	archsimd.ClearAVXUpperBits()
	return patchCoreTail(core, &q, c, r0, r1, r2, k)
}

func blockProducts(pn, pd, r0, r1, r2 []float64, col0 int, g, sv []float64, inv *[9][9]float64, lam *[9]float64, sigmaNSq float64, buf []float64) {
	if !simdKernels {
		blockProductsGo(pn, pd, r0, r1, r2, col0, g, sv, inv, lam, sigmaNSq, buf)
		return
	}
	blockProductsAVX2(pn, pd, r0, r1, r2, col0, g, sv, inv, lam, sigmaNSq, buf)
}

// blockProductsAVX2 is blockProductsGo for four blocks per vector. The
// blocks' samples are first copied into nine planes (buf[i·n4 + c] = y_i of
// block c), and Cu⁻¹ and λ into broadcast tables, so the vector loop reads
// only whole vectors.
func blockProductsAVX2(pn, pd, r0, r1, r2 []float64, col0 int, g, sv []float64, inv *[9][9]float64, lam *[9]float64, sigmaNSq float64, buf []float64) {
	n := len(pn)
	n4 := n &^ 3
	pd, g, sv = pd[:n], g[:n], sv[:n]
	if n4 > 0 {
		buf = buf[:9*n4]
		for ri, r := range [3][]float64{r0, r1, r2} {
			p0 := buf[3*ri*n4:][:n4]
			p1 := buf[(3*ri+1)*n4:][:n4]
			p2 := buf[(3*ri+2)*n4:][:n4]
			for c := range n4 {
				x := r[col0+blockM*c:][:3]
				p0[c], p1[c], p2[c] = x[0], x[1], x[2]
			}
		}
		// Upper triangle of inv row by row (45 entries), then λ, each
		// broadcast to 4 lanes.
		var tab [(45 + 9) * 4]float64
		t := 0
		for i := range 9 {
			for j := i; j < 9; j++ {
				st4(bcast4(inv[i][j]), tab[:], t)
				t += 4
			}
		}
		for j := range 9 {
			st4(bcast4(lam[j]), tab[:], t)
			t += 4
		}
		var zero f64x4
		one, nine, sig := bcast4(1), bcast4(9), bcast4(sigmaNSq)
		T := &tab
		for c := 0; c < n4; c += 4 {
			v0 := ld4(buf, c)
			v1 := ld4(buf, 1*n4+c)
			v2 := ld4(buf, 2*n4+c)
			v3 := ld4(buf, 3*n4+c)
			v4 := ld4(buf, 4*n4+c)
			v5 := ld4(buf, 5*n4+c)
			v6 := ld4(buf, 6*n4+c)
			v7 := ld4(buf, 7*n4+c)
			v8 := ld4(buf, 8*n4+c)
			// yᵀ·Cu⁻¹·y row by row, in the scalar kernel's order.
			q := (ld4(T[:], 0).Mul(v0).
				Add(ld4(T[:], 4).Mul(v1)).
				Add(ld4(T[:], 8).Mul(v2)).
				Add(ld4(T[:], 12).Mul(v3)).
				Add(ld4(T[:], 16).Mul(v4)).
				Add(ld4(T[:], 20).Mul(v5)).
				Add(ld4(T[:], 24).Mul(v6)).
				Add(ld4(T[:], 28).Mul(v7)).
				Add(ld4(T[:], 32).Mul(v8))).Mul(v0)
			q = zero.Add(q)
			q = q.Add((ld4(T[:], 36).Mul(v1).
				Add(ld4(T[:], 40).Mul(v2)).
				Add(ld4(T[:], 44).Mul(v3)).
				Add(ld4(T[:], 48).Mul(v4)).
				Add(ld4(T[:], 52).Mul(v5)).
				Add(ld4(T[:], 56).Mul(v6)).
				Add(ld4(T[:], 60).Mul(v7)).
				Add(ld4(T[:], 64).Mul(v8))).Mul(v1))
			q = q.Add((ld4(T[:], 68).Mul(v2).
				Add(ld4(T[:], 72).Mul(v3)).
				Add(ld4(T[:], 76).Mul(v4)).
				Add(ld4(T[:], 80).Mul(v5)).
				Add(ld4(T[:], 84).Mul(v6)).
				Add(ld4(T[:], 88).Mul(v7)).
				Add(ld4(T[:], 92).Mul(v8))).Mul(v2))
			q = q.Add((ld4(T[:], 96).Mul(v3).
				Add(ld4(T[:], 100).Mul(v4)).
				Add(ld4(T[:], 104).Mul(v5)).
				Add(ld4(T[:], 108).Mul(v6)).
				Add(ld4(T[:], 112).Mul(v7)).
				Add(ld4(T[:], 116).Mul(v8))).Mul(v3))
			q = q.Add((ld4(T[:], 120).Mul(v4).
				Add(ld4(T[:], 124).Mul(v5)).
				Add(ld4(T[:], 128).Mul(v6)).
				Add(ld4(T[:], 132).Mul(v7)).
				Add(ld4(T[:], 136).Mul(v8))).Mul(v4))
			q = q.Add((ld4(T[:], 140).Mul(v5).
				Add(ld4(T[:], 144).Mul(v6)).
				Add(ld4(T[:], 148).Mul(v7)).
				Add(ld4(T[:], 152).Mul(v8))).Mul(v5))
			q = q.Add((ld4(T[:], 156).Mul(v6).
				Add(ld4(T[:], 160).Mul(v7)).
				Add(ld4(T[:], 164).Mul(v8))).Mul(v6))
			q = q.Add((ld4(T[:], 168).Mul(v7).
				Add(ld4(T[:], 172).Mul(v8))).Mul(v7))
			q = q.Add((ld4(T[:], 176).Mul(v8)).Mul(v8))
			s := q.Div(nine)
			gv := ld4(g, c)
			gn := gv.Mul(gv).Mul(s).Div(ld4(sv, c).Add(sig))
			sd := s.Div(sig)
			L := tab[45*4:]
			f := func(a f64x4, j int) f64x4 { return one.Add(a.Mul(ld4(L, 4*j))) }
			p := f(gn, 0).Mul(f(gn, 1)).Mul(f(gn, 2)).Mul(f(gn, 3)).Mul(f(gn, 4))
			st4(p.Mul(f(gn, 5).Mul(f(gn, 6)).Mul(f(gn, 7)).Mul(f(gn, 8))), pn, c)
			p = f(sd, 0).Mul(f(sd, 1)).Mul(f(sd, 2)).Mul(f(sd, 3)).Mul(f(sd, 4))
			st4(p.Mul(f(sd, 5).Mul(f(sd, 6)).Mul(f(sd, 7)).Mul(f(sd, 8))), pd, c)
		}
		archsimd.ClearAVXUpperBits()
	}
	if n4 < n {
		blockProductsGo(pn[n4:], pd[n4:], r0, r1, r2, col0+blockM*n4, g[n4:], sv[n4:], inv, lam, sigmaNSq, buf)
	}
}

// transpose4 returns the columns of the 4×4 matrix with rows a, b, c, d.
func transpose4(a, b, c, d f64x4) (f64x4, f64x4, f64x4, f64x4) {
	t0 := a.SelectFromPairGrouped(0, 2, b) // a0 b0 a2 b2
	t1 := a.SelectFromPairGrouped(1, 3, b) // a1 b1 a3 b3
	t2 := c.SelectFromPairGrouped(0, 2, d) // c0 d0 c2 d2
	t3 := c.SelectFromPairGrouped(1, 3, d) // c1 d1 c3 d3
	return t0.Select128FromPair(0, 2, t2), t1.Select128FromPair(0, 2, t3),
		t0.Select128FromPair(1, 3, t2), t1.Select128FromPair(1, 3, t3)
}

// windowRowsAVX2 is windowRowsGo for four rows at once, one row per lane:
// the horizontal prefix sums of a row are a serial chain, so the rows give
// the parallelism. The input is first transposed into buf (XT[4j+i] = row
// i, column j), the prefixes are kept lane-major (p3[20t + 4q + i] =
// quantity q of row i at position t), and the window row sums hi − lo are
// transposed back to add them to the vertical prefix row by row.
func windowRowsAVX2(vert, x, y []float64, xoff, cw, cols, m int, two bool, p3, p2, buf []float64) {
	T := cols / blockM
	e5 := len(vert) / 5 // 5·nc entries per row of vert
	XT := buf[:4*cols]
	YT := buf[4*cols:][:4*cols]
	var xr, yr [4][]float64
	for i := range 4 {
		xr[i] = x[xoff+i*cw:][:cols]
		yr[i] = y[xoff+i*cw:][:cols]
	}
	j4 := cols &^ 3
	for j := j4; j < cols; j++ { // ragged columns first, in scalar code
		for i := range 4 {
			XT[4*j+i] = xr[i][j]
			YT[4*j+i] = yr[i][j]
		}
	}
	for j := 0; j < j4; j += 4 {
		c0, c1, c2, c3 := transpose4(ld4(xr[0], j), ld4(xr[1], j), ld4(xr[2], j), ld4(xr[3], j))
		st4(c0, XT, 4*j)
		st4(c1, XT, 4*j+4)
		st4(c2, XT, 4*j+8)
		st4(c3, XT, 4*j+12)
		c0, c1, c2, c3 = transpose4(ld4(yr[0], j), ld4(yr[1], j), ld4(yr[2], j), ld4(yr[3], j))
		st4(c0, YT, 4*j)
		st4(c1, YT, 4*j+4)
		st4(c2, YT, 4*j+8)
		st4(c3, YT, 4*j+12)
	}
	P3 := p3[:20*(T+1)]
	P2 := p2[:20*(T+1)]
	var s1, s2, s3, s4, s5 f64x4
	for q := range 5 {
		st4(s1, P3, 4*q) // zero
	}
	for j := range cols {
		X, Y := ld4(XT, 4*j), ld4(YT, 4*j)
		s1 = s1.Add(X)
		s2 = s2.Add(Y)
		s3 = s3.Add(X.Mul(X))
		s4 = s4.Add(Y.Mul(Y))
		s5 = s5.Add(X.Mul(Y))
		var P []float64
		var o int
		switch {
		case j%3 == 2:
			P, o = P3, 20*(j/3+1)
		case j%3 == 1 && two:
			P, o = P2, 20*(j/3)
		default:
			continue
		}
		st4(s1, P, o)
		st4(s2, P, o+4)
		st4(s3, P, o+8)
		st4(s4, P, o+12)
		st4(s5, P, o+16)
	}
	HI := P3
	if two {
		HI = P2
	}
	HI = HI[20*m:]
	prev := vert[:e5]
	cur0, cur1, cur2, cur3 := vert[e5:][:e5], vert[2*e5:][:e5], vert[3*e5:][:e5], vert[4*e5:][:e5]
	e4 := e5 &^ 3
	for e := 0; e < e4; e += 4 {
		d0 := ld4(HI, 4*e).Sub(ld4(P3, 4*e))
		d1 := ld4(HI, 4*e+4).Sub(ld4(P3, 4*e+4))
		d2 := ld4(HI, 4*e+8).Sub(ld4(P3, 4*e+8))
		d3 := ld4(HI, 4*e+12).Sub(ld4(P3, 4*e+12))
		r0, r1, r2, r3 := transpose4(d0, d1, d2, d3)
		v := ld4(prev, e).Add(r0)
		st4(v, cur0, e)
		v = v.Add(r1)
		st4(v, cur1, e)
		v = v.Add(r2)
		st4(v, cur2, e)
		v = v.Add(r3)
		st4(v, cur3, e)
	}
	archsimd.ClearAVXUpperBits()
	for e := e4; e < e5; e++ {
		v := prev[e]
		for i, cur := range [4][]float64{cur0, cur1, cur2, cur3} {
			v = v + (HI[4*e+i] - P3[4*e+i])
			cur[e] = v
		}
	}
}

// patchCore2AVX2 is patchCore2Go: patchCoreAVX2 for two rows in one loop,
// whose twelve independent sums hide the latency of the additions.
func patchCore2AVX2(coreA, coreB *[13]float64, r0, r1, r2, r3 []float64) (sA, sB float64) {
	B := len(r0)
	n := B - 4
	if r3 == nil || n < 4 {
		*coreA = [13]float64{}
		*coreB = [13]float64{}
		sA = patchCoreAVX2(coreA, r0, r1, r2)
		if r1 != nil {
			sB = patchCoreAVX2(coreB, r1, r2, r3)
		}
		return sA, sB
	}
	r1, r2, r3 = r1[:B], r2[:B], r3[:B]
	ca, cb := r0[2:][:n], r1[2:][:n]
	// Per row four sums: x0 = core[0…2] (lane 3 unused), x1 = core[3…6],
	// x2 = core[8…11], and xe = (core[7], core[12], s, s), fed by
	// (r1[k+4], r2[k+4], 1, 1) blended from two loads (s + v·1 = s + v
	// exactly). Eight sums leave registers for the rest: with twelve the
	// compiler spills sums, and the loop runs at the store-to-load latency.
	lanes := archsimd.LoadInt64x4(&[4]int64{0, 1, 2, 3})
	m0 := lanes.Equal(archsimd.BroadcastInt64x4(0))
	m01 := lanes.Less(archsimd.BroadcastInt64x4(2))
	one := bcast4(1)
	var a0, a1, a2, ae f64x4 // row r0
	var b0, b1, b2, be f64x4 // row r1
	k := 0
	for ; k < n-3; k++ {
		va := archsimd.LoadFloat64x2((*[2]float64)(ca[k : k+2 : k+2])).Broadcast1To4()
		vb := archsimd.LoadFloat64x2((*[2]float64)(cb[k : k+2 : k+2])).Broadcast1To4()
		x2 := ld4(r2, k)
		a0 = a0.Add(va.Mul(ld4(r0, 2+k)))
		a1 = a1.Add(va.Mul(ld4(r1, k)))
		a2 = a2.Add(va.Mul(x2))
		ea := ld4(r1, k+4).Merge(ld4(r2, k+3), m0).Merge(one, m01)
		ae = ae.Add(va.Mul(ea))
		b0 = b0.Add(vb.Mul(ld4(r1, 2+k)))
		b1 = b1.Add(vb.Mul(x2))
		b2 = b2.Add(vb.Mul(ld4(r3, k)))
		eb := ld4(r2, k+4).Merge(ld4(r3, k+3), m0).Merge(one, m01)
		be = be.Add(vb.Mul(eb))
	}
	var A, Bv [6][4]float64
	var ea, eb [4]float64
	a0.Store(&A[0])
	a1.Store(&A[1])
	a2.Store(&A[3])
	ae.Store(&ea)
	b0.Store(&Bv[0])
	b1.Store(&Bv[1])
	b2.Store(&Bv[3])
	be.Store(&eb)
	archsimd.ClearAVXUpperBits()
	A[2][0], A[4][0], A[5][0] = ea[0], ea[1], ea[2]
	Bv[2][0], Bv[4][0], Bv[5][0] = eb[0], eb[1], eb[2]
	sA = patchCoreTail(coreA, &A, ca, r0, r1, r2, k)
	sB = patchCoreTail(coreB, &Bv, cb, r1, r2, r3, k)
	return sA, sB
}

// patchCoreTail continues the lane sums q (q0, q1, q1e, q2, q2e, qs of
// patchCoreAVX2, stored) over k … len(c)−1 in scalar code and writes core.
func patchCoreTail(core *[13]float64, q *[6][4]float64, c, r0, r1, r2 []float64, k int) float64 {
	s := q[5][0]
	for ; k < len(c); k++ {
		v := c[k]
		s += v
		q[0][0] += v * r0[2+k]
		q[0][1] += v * r0[3+k]
		q[0][2] += v * r0[4+k]
		for j := range 4 {
			q[1][j] += v * r1[k+j]
			q[3][j] += v * r2[k+j]
		}
		q[2][0] += v * r1[k+4]
		q[4][0] += v * r2[k+4]
	}
	core[0], core[1], core[2] = q[0][0], q[0][1], q[0][2]
	copy(core[3:7], q[1][:])
	core[7] = q[2][0]
	copy(core[8:12], q[3][:])
	core[12] = q[4][0]
	return s
}

// bandRows2AVX2 is bandRows2Go with the AVX2 filters. (Fusing the seven
// passes to keep the sums in registers was tried: it is slower, because
// the 56 row slices then cannot stay in registers.)
func bandRows2AVX2(oa0, ob0, oa3, ob3 []float64, fr *[8]*[6][]float64, xr *[8][]float64) {
	f := &sp5Bands[0]
	g := &sp5Bands[3]
	var rows [8][]float64
	for l := 1; l <= 3; l++ {
		for k := range 8 {
			rows[k] = fr[k][l-1]
		}
		accVSym7x2AVX2(oa0, ob0, &rows, f[3][3+l], f[4][3+l], f[5][3+l], f[6][3+l], l == 1)
	}
	accVAnti7x2AVX2(oa3, ob3, xr, g[4][3], g[5][3], g[6][3], true)
	for l := 1; l <= 3; l++ {
		for k := range 8 {
			rows[k] = fr[k][2+l]
		}
		accVAnti7x2AVX2(oa3, ob3, &rows, g[4][3+l], g[5][3+l], g[6][3+l], false)
	}
}

func channelBlocks(gs, svs, top, bot []float64, ww float64, p waveParams, buf []float64) {
	if !simdKernels {
		channelBlocksGo(gs, svs, top, bot, ww, p, buf)
		return
	}
	channelBlocksAVX2(gs, svs, top, bot, ww, p, buf)
}

// max0 is max(x, 0) lane by lane with Go's semantics: NaN stays NaN, and
// −0 and negative values become +0.
func max0(x f64x4) f64x4 {
	var z f64x4
	return x.Merge(z, x.Greater(z).Or(x.IsNaN()))
}

// channelBlocksAVX2 is channelBlocksGo for four blocks per vector; the
// branches become blends, applied in the scalar code's order. The window
// sums are first laid out one quantity per plane (buf[q·n4 + c]).
func channelBlocksAVX2(gs, svs, top, bot []float64, ww float64, p waveParams, buf []float64) {
	n := len(gs)
	n4 := n &^ 3
	svs = svs[:n]
	if n4 > 0 {
		buf = buf[:5*n4]
		for c := range n4 {
			t := top[5*c:][:5]
			u := bot[5*c:][:5]
			for q := range 5 {
				buf[q*n4+c] = u[q] - t[q]
			}
		}
		var z f64x4
		W, tol := bcast4(ww), bcast4(p.tol)
		for c := 0; c < n4; c += 4 {
			sx, sy := ld4(buf, c), ld4(buf, n4+c)
			sxx, syy, sxy := ld4(buf, 2*n4+c), ld4(buf, 3*n4+c), ld4(buf, 4*n4+c)
			muX, muY := sx.Div(W), sy.Div(W)
			var g, sv f64x4
			if p.vifvec {
				cov := sxy.Sub(W.Mul(muX).Mul(muY))
				ssX := max0(sxx.Sub(W.Mul(muX).Mul(muX)))
				ssY := max0(syy.Sub(W.Mul(muY).Mul(muY)))
				g = cov.Div(ssX.Add(tol))
				sv = ssY.Sub(g.Mul(cov)).Div(W)
				m := ssX.Less(tol)
				g, sv = z.Merge(g, m), ssY.Merge(sv, m)
				m = ssY.Less(tol)
				g, sv = z.Merge(g, m), z.Merge(sv, m)
				m = g.Less(z)
				g, sv = z.Merge(g, m), ssY.Merge(sv, m)
				if p.strictClamp {
					m = sv.Less(tol)
				} else {
					m = sv.LessEqual(tol)
				}
				sv = tol.Merge(sv, m)
			} else {
				varX := sxx.Div(W).Sub(muX.Mul(muX))
				varY := syy.Div(W).Sub(muY.Mul(muY))
				cov := sxy.Div(W).Sub(muX.Mul(muY))
				cov = z.Merge(cov, varX.Less(z).Or(varY.Less(z)))
				varX, varY = max0(varX), max0(varY)
				g = cov.Div(varX.Add(tol))
				sv = varY.Sub(g.Mul(cov))
				m := varX.Less(tol)
				g, sv = z.Merge(g, m), varY.Merge(sv, m)
				m = varY.Less(tol)
				g, sv = z.Merge(g, m), z.Merge(sv, m)
				m = g.Less(z)
				g, sv = z.Merge(g, m), varY.Merge(sv, m)
				sv = tol.Merge(sv, sv.Less(tol))
			}
			st4(g, gs, c)
			st4(sv, svs, c)
		}
		archsimd.ClearAVXUpperBits()
	}
	if n4 < n {
		channelBlocksGo(gs[n4:], svs[n4:], top[5*n4:], bot[5*n4:], ww, p, buf)
	}
}

func pixelFactorsRow(a, b, d []float64) {
	if !simdKernels {
		pixelFactorsRowGo(a, b, d)
		return
	}
	pixelFactorsRowAVX2(a, b, d)
}

// pixelFactorsRowAVX2 is pixelFactorsRowGo for four windows per vector:
// both branches of pixelFactors are computed and blended.
func pixelFactorsRowAVX2(a, b, d []float64) {
	n := len(a)
	b, d = b[:n], d[:n]
	var z f64x4
	one, half := bcast4(1), bcast4(0.5)
	tol, sn, isn := bcast4(pixelTol), bcast4(pixelSigmaN), bcast4(1/pixelSigmaN)
	noSign := archsimd.BroadcastUint64x4(1<<63 - 1)
	j := 0
	for ; j+4 <= n; j += 4 {
		vx, vy, cov := ld4(a, j), ld4(b, j), ld4(d, j)
		tiny := vx.Less(tol)
		small := tiny.Or(vy.Less(tol))
		fden := one.Add(z.Merge(vx, tiny).Mul(isn))
		dd := vx.Add(tol)
		c := cov.Add(cov.AsUint64x4().And(noSign).AsFloat64x4()).Mul(half)
		t := dd.Mul(vy).Sub(cov.Mul(cov))
		td := tol.Mul(dd)
		t = td.Merge(t, t.Less(td))
		bb := dd.Mul(t.Add(sn.Mul(dd)))
		aa := bb.Add(c.Mul(c).Mul(vx))
		st4(one.Merge(aa, small), a, j)
		st4(one.Merge(bb, small), b, j)
		st4(fden, d, j)
	}
	archsimd.ClearAVXUpperBits()
	pixelFactorsRowGo(a[j:], b[j:], d[j:])
}
