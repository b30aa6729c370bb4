//go:build goexperiment.simd && amd64 && !purego

package corrupt

import "simd/archsimd"

// This file holds the vectorised kernels, built only with GOEXPERIMENT=simd
// on amd64 and used when the CPU has AVX2 (otherwise the pure-Go kernels
// run). Each kernel computes, in every lane, exactly the float32 operations
// of its pure-Go counterpart in the same order — separate multiplies and
// adds, never fused — so the two builds give bit-identical results (checked
// by filter_simd_amd64_test.go and the golden checksums). Eight outputs along
// x share a vector; four vectors are in flight at once to hide the add
// latency. Every vector kernel ends with VZEROUPPER (ClearAVXUpperBits)
// before any scalar code runs.

// simdKernels reports whether the vectorised kernels are in use.
var simdKernels = archsimd.X86.AVX2()

// simd512 adds 16-lane (AVX-512) versions of the symmetric filter kernels,
// the hot loops of gaussian_blur and glass_blur: they take blocks of 64
// outputs (four vectors) and two taps per step, and leave the last outputs
// to the 8-lane code.
var simd512 = simdKernels && archsimd.X86.AVX512()

// cleanVectorState executes VZEROUPPER. Corruption.Apply calls it first
// because in this build the runtime's asynchronous preemption handler
// (runtime/preempt_amd64.s, Go 1.26) restores the full AVX-512 register
// state and returns with the upper halves dirty; until the next VZEROUPPER,
// every legacy-SSE (scalar float) instruction then pays a transition
// penalty, which made scalar-only corruptions such as fog 10–25 % slower
// than in the pure-Go build.
func cleanVectorState() {
	if simdKernels {
		archsimd.ClearAVXUpperBits()
	}
}

// corrRow writes out[x] = Σ_k k[i]·pad[x+i] for x < len(out); pad must hold
// len(out)+len(k)−1 samples.
func corrRow(out, pad, k []float32) {
	if simdKernels {
		corrRowAVX2(out, pad, k)
		return
	}
	corrRowGo(out, pad, k)
}

// combineRows writes out[x] = Σ_k wts[k]·rows[k][x]. Every row must hold at
// least len(out) samples.
func combineRows(out []float32, rows [][]float32, wts []float32) {
	if simdKernels {
		combineRowsAVX2(out, rows, wts)
		return
	}
	combineRowsGo(out, rows, wts)
}

// combineRowsSym2 writes two output rows of a symmetric column filter
// (odd len(wts) ≥ 3): out0 from rows[:len(wts)] and out1 from rows[1:].
func combineRowsSym2(out0, out1 []float32, rows [][]float32, wts []float32) {
	n := len(wts)
	if !simdKernels {
		combineRowsGo(out0, rows[:n], wts)
		combineRowsGo(out1, rows[1:], wts)
		return
	}
	var x int
	if simd512 {
		x = combineRowsSym2AVX512(out0, out1, rows, wts)
	} else {
		x = combineRowsSym2AVX2(out0, out1, rows, wts)
	}
	combineRowsSymAVX2(out0, rows[:n], wts, x)
	combineRowsSymAVX2(out1, rows[1:], wts, x)
}

// diskRows is diskRowsGo (see there).
func diskRows(out, S []float32, sw, jy, fr int, ws []int) {
	if simdKernels {
		diskRowsAVX2(out, S, sw, jy, fr, ws)
		return
	}
	diskRowsGo(out, S, sw, jy, fr, ws)
}

// clampPlane clips every sample of p to [0, 1], NaN to 0, as
// imageio.Image.Clamp does.
func clampPlane(p []float32) {
	if simdKernels {
		clampPlaneAVX2(p)
		return
	}
	clampPlaneGo(p)
}

// glassQuantize truncates glass blur's work plane to 8 bit (see
// glassQuantizeGo).
func glassQuantize(d []float32) {
	if simdKernels {
		glassQuantizeAVX2(d)
		return
	}
	glassQuantizeGo(d)
}

// noiseMix applies normal noise draws z to s (see noiseMixGo).
func noiseMix(d, s, z []float32, a, b float32) {
	if simdKernels {
		noiseMixAVX2(d, s, z, a, b)
		return
	}
	noiseMixGo(d, s, z, a, b)
}

func ld8(s []float32) archsimd.Float32x8 { return archsimd.LoadFloat32x8Slice(s) }

func bc8(v float32) archsimd.Float32x8 { return archsimd.BroadcastFloat32x8(v) }

// corrRowAVX2 is corrRowGo vectorised across x.
func corrRowAVX2(out, pad, k []float32) {
	n := len(k)
	pad = pad[:len(out)+n-1]
	x := 0
	if n%2 == 1 && isSymmetric(k) {
		// s = k[r]·p[r]; s += k[r+i]·(p[r−i] + p[r+i]) for i = 1…r.
		r := n / 2
		c := bc8(k[r])
		if simd512 && r > 0 {
			x = corrRowSymAVX512(out, pad, k)
		}
		for ; x+32 <= len(out); x += 32 {
			p := pad[x : x+n+31 : x+n+31]
			m := p[r : r+32 : r+32]
			s0, s1 := c.Mul(ld8(m)), c.Mul(ld8(m[8:]))
			s2, s3 := c.Mul(ld8(m[16:])), c.Mul(ld8(m[24:]))
			i := 1
			for ; i+1 <= r; i += 2 {
				// Taps ±i are lw[1:33], hw[0:32]; taps ±(i+1) lw[0:32], hw[1:33].
				v, u := bc8(k[r+i]), bc8(k[r+i+1])
				lw, hw := p[r-i-1:r-i+32:r-i+32], p[r+i:r+i+33:r+i+33]
				s0 = s0.Add(v.Mul(ld8(lw[1:9]).Add(ld8(hw[0:8]))))
				s1 = s1.Add(v.Mul(ld8(lw[9:17]).Add(ld8(hw[8:16]))))
				s2 = s2.Add(v.Mul(ld8(lw[17:25]).Add(ld8(hw[16:24]))))
				s3 = s3.Add(v.Mul(ld8(lw[25:33]).Add(ld8(hw[24:32]))))
				s0 = s0.Add(u.Mul(ld8(lw[0:8]).Add(ld8(hw[1:9]))))
				s1 = s1.Add(u.Mul(ld8(lw[8:16]).Add(ld8(hw[9:17]))))
				s2 = s2.Add(u.Mul(ld8(lw[16:24]).Add(ld8(hw[17:25]))))
				s3 = s3.Add(u.Mul(ld8(lw[24:32]).Add(ld8(hw[25:33]))))
			}
			if i <= r {
				v := bc8(k[r+i])
				lo, hi := p[r-i:r-i+32:r-i+32], p[r+i:r+i+32:r+i+32]
				s0 = s0.Add(v.Mul(ld8(lo).Add(ld8(hi))))
				s1 = s1.Add(v.Mul(ld8(lo[8:]).Add(ld8(hi[8:]))))
				s2 = s2.Add(v.Mul(ld8(lo[16:]).Add(ld8(hi[16:]))))
				s3 = s3.Add(v.Mul(ld8(lo[24:]).Add(ld8(hi[24:]))))
			}
			o := out[x : x+32 : x+32]
			s0.StoreSlice(o)
			s1.StoreSlice(o[8:])
			s2.StoreSlice(o[16:])
			s3.StoreSlice(o[24:])
		}
		for ; x+8 <= len(out); x += 8 {
			p := pad[x : x+n+7 : x+n+7]
			s := c.Mul(ld8(p[r:]))
			for i := 1; i <= r; i++ {
				s = s.Add(bc8(k[r+i]).Mul(ld8(p[r-i:]).Add(ld8(p[r+i:]))))
			}
			s.StoreSlice(out[x:])
		}
	} else {
		// s = 0; s += k[i]·p[i] for i = 0…n−1.
		for ; x+32 <= len(out); x += 32 {
			p := pad[x : x+n+31 : x+n+31]
			var s0, s1, s2, s3 archsimd.Float32x8
			for i, kv := range k {
				v := bc8(kv)
				q := p[i : i+32 : i+32]
				s0 = s0.Add(v.Mul(ld8(q)))
				s1 = s1.Add(v.Mul(ld8(q[8:])))
				s2 = s2.Add(v.Mul(ld8(q[16:])))
				s3 = s3.Add(v.Mul(ld8(q[24:])))
			}
			o := out[x : x+32 : x+32]
			s0.StoreSlice(o)
			s1.StoreSlice(o[8:])
			s2.StoreSlice(o[16:])
			s3.StoreSlice(o[24:])
		}
		for ; x+8 <= len(out); x += 8 {
			p := pad[x : x+n+7 : x+n+7]
			var s archsimd.Float32x8
			for i, kv := range k {
				s = s.Add(bc8(kv).Mul(ld8(p[i:])))
			}
			s.StoreSlice(out[x:])
		}
	}
	// Clear the upper vector halves before scalar code runs: otherwise every
	// later SSE instruction (here and in the caller) pays the AVX–SSE
	// transition penalty, which made the scalar loops of glass blur 5× slower.
	archsimd.ClearAVXUpperBits()
	if x < len(out) {
		corrRowGo(out[x:], pad[x:], k)
	}
}

// combineRowsAVX2 is combineRowsGo vectorised across x.
func combineRowsAVX2(out []float32, rows [][]float32, wts []float32) {
	if len(wts) >= 3 && len(wts)%2 == 1 && isSymmetric(wts) {
		x := 0
		if simd512 {
			x = combineRowsSymAVX512(out, rows, wts)
		}
		combineRowsSymAVX2(out, rows, wts, x)
		return
	}
	n := len(out)
	x := 0
	for ; x+32 <= n; x += 32 {
		var s0, s1, s2, s3 archsimd.Float32x8
		for k, wv := range wts {
			v := bc8(wv)
			r := rows[k][x : x+32 : x+32]
			s0 = s0.Add(v.Mul(ld8(r)))
			s1 = s1.Add(v.Mul(ld8(r[8:])))
			s2 = s2.Add(v.Mul(ld8(r[16:])))
			s3 = s3.Add(v.Mul(ld8(r[24:])))
		}
		o := out[x : x+32 : x+32]
		s0.StoreSlice(o)
		s1.StoreSlice(o[8:])
		s2.StoreSlice(o[16:])
		s3.StoreSlice(o[24:])
	}
	for ; x+8 <= n; x += 8 {
		var s archsimd.Float32x8
		for k, wv := range wts {
			s = s.Add(bc8(wv).Mul(ld8(rows[k][x:])))
		}
		s.StoreSlice(out[x:])
	}
	archsimd.ClearAVXUpperBits()
	for ; x < n; x++ {
		var s float32
		for k, v := range wts {
			s += v * rows[k][x]
		}
		out[x] = s
	}
}

// combineRowsSymAVX2 is combineRowsSymGo vectorised across x, for outputs
// x0 onwards.
func combineRowsSymAVX2(out []float32, rows [][]float32, wts []float32, x0 int) {
	n := len(out)
	r := len(wts) / 2
	c := bc8(wts[r])
	mid := rows[r][:n]
	x := x0
	for ; x+32 <= n; x += 32 {
		m := mid[x : x+32 : x+32]
		s0, s1 := c.Mul(ld8(m)), c.Mul(ld8(m[8:]))
		s2, s3 := c.Mul(ld8(m[16:])), c.Mul(ld8(m[24:]))
		for k := 0; k < r; k++ {
			v := bc8(wts[k])
			a := rows[k][x : x+32 : x+32]
			b := rows[len(rows)-1-k][x : x+32 : x+32]
			s0 = s0.Add(v.Mul(ld8(a).Add(ld8(b))))
			s1 = s1.Add(v.Mul(ld8(a[8:]).Add(ld8(b[8:]))))
			s2 = s2.Add(v.Mul(ld8(a[16:]).Add(ld8(b[16:]))))
			s3 = s3.Add(v.Mul(ld8(a[24:]).Add(ld8(b[24:]))))
		}
		o := out[x : x+32 : x+32]
		s0.StoreSlice(o)
		s1.StoreSlice(o[8:])
		s2.StoreSlice(o[16:])
		s3.StoreSlice(o[24:])
	}
	for ; x+8 <= n; x += 8 {
		s := c.Mul(ld8(mid[x:]))
		for k := 0; k < r; k++ {
			a := rows[k][x:]
			b := rows[len(rows)-1-k][x:]
			s = s.Add(bc8(wts[k]).Mul(ld8(a).Add(ld8(b))))
		}
		s.StoreSlice(out[x:])
	}
	archsimd.ClearAVXUpperBits()
	for ; x < n; x++ {
		s := wts[r] * mid[x]
		for k := 0; k < r; k++ {
			s += wts[k] * (rows[k][x] + rows[len(rows)-1-k][x])
		}
		out[x] = s
	}
}

// diskRowsAVX2 is diskRowsGo vectorised across x.
func diskRowsAVX2(out, S []float32, sw, jy, fr int, ws []int) {
	n := len(out)
	w0 := ws[0]
	c := S[(jy+fr)*sw:][:sw]
	chi, clo := c[fr+w0+1:][:n], c[fr-w0:][:n]
	x := 0
	for ; x+32 <= n; x += 32 {
		h, l := chi[x:x+32:x+32], clo[x:x+32:x+32]
		s0 := ld8(h).Sub(ld8(l))
		s1 := ld8(h[8:]).Sub(ld8(l[8:]))
		s2 := ld8(h[16:]).Sub(ld8(l[16:]))
		s3 := ld8(h[24:]).Sub(ld8(l[24:]))
		for j := 1; j <= fr; j++ {
			wj := ws[j]
			A := S[(jy+fr+j)*sw:][:sw]
			B := S[(jy+fr-j)*sw:][:sw]
			ah, al := A[x+fr+wj+1:][:32], A[x+fr-wj:][:32]
			bh, bl := B[x+fr+wj+1:][:32], B[x+fr-wj:][:32]
			s0 = s0.Add(ld8(ah).Add(ld8(bh)).Sub(ld8(al).Add(ld8(bl))))
			s1 = s1.Add(ld8(ah[8:]).Add(ld8(bh[8:])).Sub(ld8(al[8:]).Add(ld8(bl[8:]))))
			s2 = s2.Add(ld8(ah[16:]).Add(ld8(bh[16:])).Sub(ld8(al[16:]).Add(ld8(bl[16:]))))
			s3 = s3.Add(ld8(ah[24:]).Add(ld8(bh[24:])).Sub(ld8(al[24:]).Add(ld8(bl[24:]))))
		}
		o := out[x : x+32 : x+32]
		s0.StoreSlice(o)
		s1.StoreSlice(o[8:])
		s2.StoreSlice(o[16:])
		s3.StoreSlice(o[24:])
	}
	for ; x+8 <= n; x += 8 {
		s := ld8(chi[x:]).Sub(ld8(clo[x:]))
		for j := 1; j <= fr; j++ {
			wj := ws[j]
			A := S[(jy+fr+j)*sw:][:sw]
			B := S[(jy+fr-j)*sw:][:sw]
			ah, al := A[x+fr+wj+1:], A[x+fr-wj:]
			bh, bl := B[x+fr+wj+1:], B[x+fr-wj:]
			s = s.Add(ld8(ah).Add(ld8(bh)).Sub(ld8(al).Add(ld8(bl))))
		}
		s.StoreSlice(out[x:])
	}
	archsimd.ClearAVXUpperBits()
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

// clampPlaneAVX2 is clampPlaneGo vectorised: lanes not above 0 (NaN
// included) become 0, lanes above 1 become 1.
func clampPlaneAVX2(p []float32) {
	var zero archsimd.Float32x8
	one := bc8(1)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		v := ld8(p[i:])
		v = v.Masked(v.Greater(zero))
		v = one.Merge(v, v.Greater(one))
		v.StoreSlice(p[i:])
	}
	archsimd.ClearAVXUpperBits()
	clampPlaneGo(p[i:])
}

func ld16(s []float32) archsimd.Float32x16 { return archsimd.LoadFloat32x16Slice(s) }

func bc16(v float32) archsimd.Float32x16 { return archsimd.BroadcastFloat32x16(v) }

// corrRowSymAVX512 computes the first outputs of corrRowAVX2's symmetric
// path (odd len(k) ≥ 3, len(pad) = len(out)+len(k)−1) with 16 lanes and
// returns how many it wrote, a multiple of 16.
func corrRowSymAVX512(out, pad, k []float32) int {
	n := len(k)
	r := n / 2
	c := bc16(k[r])
	x := 0
	for ; x+64 <= len(out); x += 64 {
		p := pad[x : x+n+63 : x+n+63]
		m := p[r : r+64 : r+64]
		s0, s1 := c.Mul(ld16(m)), c.Mul(ld16(m[16:]))
		s2, s3 := c.Mul(ld16(m[32:])), c.Mul(ld16(m[48:]))
		i := 1
		for ; i+1 <= r; i += 2 {
			v, u := bc16(k[r+i]), bc16(k[r+i+1])
			// lw[1:] and hw[:64] are taps −i and +i, lw[:64] and hw[1:]
			// taps −(i+1) and +(i+1): two bounds checks per step.
			lw, hw := p[r-i-1:r-i+64:r-i+64], p[r+i:r+i+65:r+i+65]
			s0 = s0.Add(v.Mul(ld16(lw[1:17]).Add(ld16(hw[0:16]))))
			s1 = s1.Add(v.Mul(ld16(lw[17:33]).Add(ld16(hw[16:32]))))
			s2 = s2.Add(v.Mul(ld16(lw[33:49]).Add(ld16(hw[32:48]))))
			s3 = s3.Add(v.Mul(ld16(lw[49:65]).Add(ld16(hw[48:64]))))
			s0 = s0.Add(u.Mul(ld16(lw[0:16]).Add(ld16(hw[1:17]))))
			s1 = s1.Add(u.Mul(ld16(lw[16:32]).Add(ld16(hw[17:33]))))
			s2 = s2.Add(u.Mul(ld16(lw[32:48]).Add(ld16(hw[33:49]))))
			s3 = s3.Add(u.Mul(ld16(lw[48:64]).Add(ld16(hw[49:65]))))
		}
		if i <= r {
			v := bc16(k[r+i])
			lo, hi := p[r-i:r-i+64:r-i+64], p[r+i:r+i+64:r+i+64]
			s0 = s0.Add(v.Mul(ld16(lo).Add(ld16(hi))))
			s1 = s1.Add(v.Mul(ld16(lo[16:]).Add(ld16(hi[16:]))))
			s2 = s2.Add(v.Mul(ld16(lo[32:]).Add(ld16(hi[32:]))))
			s3 = s3.Add(v.Mul(ld16(lo[48:]).Add(ld16(hi[48:]))))
		}
		o := out[x : x+64 : x+64]
		s0.StoreSlice(o)
		s1.StoreSlice(o[16:])
		s2.StoreSlice(o[32:])
		s3.StoreSlice(o[48:])
	}
	for ; x+16 <= len(out); x += 16 {
		p := pad[x : x+n+15 : x+n+15]
		s := c.Mul(ld16(p[r:]))
		for i := 1; i <= r; i++ {
			s = s.Add(bc16(k[r+i]).Mul(ld16(p[r-i:]).Add(ld16(p[r+i:]))))
		}
		s.StoreSlice(out[x:])
	}
	return x
}

// combineRowsSymAVX512 computes the first outputs of combineRowsSymAVX2 with
// 16 lanes and returns how many it wrote, a multiple of 16.
func combineRowsSymAVX512(out []float32, rows [][]float32, wts []float32) int {
	n := len(out)
	nw := len(wts)
	r := nw / 2
	c := bc16(wts[r])
	mid := rows[r][:n]
	x := 0
	for ; x+64 <= n; x += 64 {
		m := mid[x : x+64 : x+64]
		s0, s1 := c.Mul(ld16(m)), c.Mul(ld16(m[16:]))
		s2, s3 := c.Mul(ld16(m[32:])), c.Mul(ld16(m[48:]))
		k := 0
		for ; k+1 < r; k += 2 {
			v, u := bc16(wts[k]), bc16(wts[k+1])
			a, b := rows[k][x:x+64:x+64], rows[nw-1-k][x:x+64:x+64]
			a2, b2 := rows[k+1][x:x+64:x+64], rows[nw-2-k][x:x+64:x+64]
			s0 = s0.Add(v.Mul(ld16(a).Add(ld16(b))))
			s1 = s1.Add(v.Mul(ld16(a[16:]).Add(ld16(b[16:]))))
			s2 = s2.Add(v.Mul(ld16(a[32:]).Add(ld16(b[32:]))))
			s3 = s3.Add(v.Mul(ld16(a[48:]).Add(ld16(b[48:]))))
			s0 = s0.Add(u.Mul(ld16(a2).Add(ld16(b2))))
			s1 = s1.Add(u.Mul(ld16(a2[16:]).Add(ld16(b2[16:]))))
			s2 = s2.Add(u.Mul(ld16(a2[32:]).Add(ld16(b2[32:]))))
			s3 = s3.Add(u.Mul(ld16(a2[48:]).Add(ld16(b2[48:]))))
		}
		if k < r {
			v := bc16(wts[k])
			a, b := rows[k][x:x+64:x+64], rows[nw-1-k][x:x+64:x+64]
			s0 = s0.Add(v.Mul(ld16(a).Add(ld16(b))))
			s1 = s1.Add(v.Mul(ld16(a[16:]).Add(ld16(b[16:]))))
			s2 = s2.Add(v.Mul(ld16(a[32:]).Add(ld16(b[32:]))))
			s3 = s3.Add(v.Mul(ld16(a[48:]).Add(ld16(b[48:]))))
		}
		o := out[x : x+64 : x+64]
		s0.StoreSlice(o)
		s1.StoreSlice(o[16:])
		s2.StoreSlice(o[32:])
		s3.StoreSlice(o[48:])
	}
	for ; x+16 <= n; x += 16 {
		s := c.Mul(ld16(mid[x:]))
		for k := 0; k < r; k++ {
			a, b := rows[k][x:], rows[nw-1-k][x:]
			s = s.Add(bc16(wts[k]).Mul(ld16(a).Add(ld16(b))))
		}
		s.StoreSlice(out[x:])
	}
	return x
}

// glassQuantizeAVX2 is glassQuantizeGo four (AVX-512: eight) samples at a
// time, in float64
// like the scalar code: f = v·255 + 1e-3; f ≤ 0 or NaN gives 0, f ≥ 255
// gives 255, else ⌊f⌋. The level k becomes float32(float64(k)·(1/255)),
// which equals the imageio.From8 table's float32(k)/255 for every k
// (checked by TestSIMDGlassQuantizeExact) and avoids a slow division.
func glassQuantizeAVX2(d []float32) {
	var zero archsimd.Float64x4
	c255, eps := archsimd.BroadcastFloat64x4(255), archsimd.BroadcastFloat64x4(1e-3)
	inv := archsimd.BroadcastFloat64x4(1.0 / 255)
	i := 0
	if simd512 { // the same, eight at a time
		var zero8 archsimd.Float64x8
		c255x8, eps8 := archsimd.BroadcastFloat64x8(255), archsimd.BroadcastFloat64x8(1e-3)
		inv8 := archsimd.BroadcastFloat64x8(1.0 / 255)
		for ; i+8 <= len(d); i += 8 {
			f := ld8(d[i:]).ConvertToFloat64().Mul(c255x8).Add(eps8)
			f = f.Masked(f.Greater(zero8)).Min(c255x8)
			f.TruncScaled(0).Mul(inv8).ConvertToFloat32().StoreSlice(d[i:])
		}
	}
	for ; i+4 <= len(d); i += 4 {
		f := archsimd.LoadFloat32x4Slice(d[i:]).ConvertToFloat64().Mul(c255).Add(eps)
		f = f.Masked(f.Greater(zero)).Min(c255)
		f.Trunc().Mul(inv).ConvertToFloat32().StoreSlice(d[i:])
	}
	archsimd.ClearAVXUpperBits()
	glassQuantizeGo(d[i:])
}

// combineRowsSym2AVX512 computes the first outputs of two adjacent rows of a
// symmetric column filter, out0 from rows[:n] and out1 from rows[1:]
// (n = len(wts) = 2r+1), in blocks of 32 with 16 lanes, and returns how many
// outputs per row it wrote. Like combineRowsSymGo it adds the row pairs from
// the outside in: at step i = r…1, out0 takes rows r−i and r+i, out1 rows
// r+1−i and r+1+i; out0's first row and out1's second were loaded by the step
// before, so each input row is loaded once for both outputs.
func combineRowsSym2AVX512(out0, out1 []float32, rows [][]float32, wts []float32) int {
	n := len(out0)
	out1 = out1[:n]
	r := len(wts) / 2
	c := bc16(wts[r])
	x := 0
	for ; x+32 <= n; x += 32 {
		m0, m1 := rows[r][x:x+32:x+32], rows[r+1][x:x+32:x+32]
		a0, a1 := c.Mul(ld16(m0)), c.Mul(ld16(m0[16:]))
		b0, b1 := c.Mul(ld16(m1)), c.Mul(ld16(m1[16:]))
		// L = out0's first row, H = out1's second row for step i.
		lr, hr := rows[0][x:x+32:x+32], rows[2*r+1][x:x+32:x+32]
		l0, l1 := ld16(lr), ld16(lr[16:])
		h0, h1 := ld16(hr), ld16(hr[16:])
		for i := r; i >= 1; i-- {
			v := bc16(wts[r-i])
			p, q := rows[r+i][x:x+32:x+32], rows[r+1-i][x:x+32:x+32]
			p0, p1 := ld16(p), ld16(p[16:]) // out0's second row
			q0, q1 := ld16(q), ld16(q[16:]) // out1's first row
			a0 = a0.Add(v.Mul(l0.Add(p0)))
			a1 = a1.Add(v.Mul(l1.Add(p1)))
			b0 = b0.Add(v.Mul(q0.Add(h0)))
			b1 = b1.Add(v.Mul(q1.Add(h1)))
			l0, l1 = q0, q1
			h0, h1 = p0, p1
		}
		a0.StoreSlice(out0[x:])
		a1.StoreSlice(out0[x+16:])
		b0.StoreSlice(out1[x:])
		b1.StoreSlice(out1[x+16:])
	}
	return x
}

// noiseMixAVX2 is noiseMixGo eight samples at a time, with noiseClamp done
// on the bit patterns as there: negative values (sign bit set) become +0 and
// patterns above that of 1 (NaN included) become 1.
func noiseMixAVX2(d, s, z []float32, a, b float32) {
	d, z = d[:len(s)], z[:len(s)]
	va, vb := bc8(a), bc8(b)
	one := archsimd.BroadcastInt32x8(0x3f800000)
	clamp := func(v archsimd.Float32x8) archsimd.Float32x8 {
		i := v.AsInt32x8()
		return i.AndNot(i.ShiftAllRight(31)).Min(one).AsFloat32x8()
	}
	k := 0
	switch {
	case b == 0:
		for ; k+8 <= len(s); k += 8 {
			v := ld8(s[k:])
			clamp(v.Add(va.Mul(ld8(z[k:])))).StoreSlice(d[k:])
		}
	case a == 0:
		for ; k+8 <= len(s); k += 8 {
			v := ld8(s[k:])
			clamp(v.Add(v.Mul(vb.Mul(ld8(z[k:]))))).StoreSlice(d[k:])
		}
	default:
		for ; k+8 <= len(s); k += 8 {
			v := ld8(s[k:])
			clamp(v.Add(va.Add(vb.Mul(v)).Mul(ld8(z[k:])))).StoreSlice(d[k:])
		}
	}
	archsimd.ClearAVXUpperBits()
	noiseMixGo(d[k:], s[k:], z[k:], a, b)
}

// pixelatePlan holds the window indices of the AVX-512 pixelate kernels,
// computed once per geometry from the spans (the same for every row).
type pixelatePlan struct {
	boxX    []int32  // per block of 16 BOX outputs: its first output
	box     []uint32 // per block: 16 first-sample, then 16 second-sample window indices
	boxMask []uint16 // per block: the lanes whose span has two samples
	boxBase []int32  // per block: the window's start in the row, or −1 for the scalar code
	upX     []int32  // per block of 16 enlarged outputs: its first output
	up      []uint32 // per block: 16 window indices
	upBase  []int32  // per block: the window's start in the small row, or −1
}

// pixelateBlocks returns the first outputs of the 16-output blocks covering
// n outputs: 0, 16, … and, when 16 does not divide n, a last block ending at
// n that overlaps its neighbour (recomputing some outputs, identically).
func pixelateBlocks(n int) []int32 {
	if n < 16 {
		return nil
	}
	var xs []int32
	for x := 0; x+16 <= n; x += 16 {
		xs = append(xs, int32(x))
	}
	if n%16 != 0 {
		xs = append(xs, int32(n-16))
	}
	return xs
}

// newPixelatePlan prepares the vector pixelate kernels. A block of 16 BOX
// outputs is vectorised when each span holds one or two samples, all within
// 32 samples; a block of 16 enlarged outputs when its sources lie within 16
// samples. Without AVX-512 the plan is empty and the pure-Go kernels run.
func newPixelatePlan(xs []pixelateSpan, xidx []int32) pixelatePlan {
	var p pixelatePlan
	if !simd512 {
		return p
	}
	p.boxX = pixelateBlocks(len(xs))
	nb := len(p.boxX)
	p.box, p.boxMask, p.boxBase = make([]uint32, 32*nb), make([]uint16, nb), make([]int32, nb)
	for b, x := range p.boxX {
		base := xs[x].lo
		var m uint16
		for j, s := range xs[x : x+16] {
			n := s.hi - s.lo
			if n < 1 || n > 2 || s.lo < base || s.hi-base > 32 {
				base = -1
				break
			}
			p.box[32*b+j] = uint32(s.lo - base)
			p.box[32*b+16+j] = uint32(s.hi - 1 - base)
			if n == 2 {
				m |= 1 << j
			}
		}
		p.boxBase[b], p.boxMask[b] = base, m
	}
	p.upX = pixelateBlocks(len(xidx))
	nb = len(p.upX)
	p.up, p.upBase = make([]uint32, 16*nb), make([]int32, nb)
	for b, x := range p.upX {
		base := xidx[x]
		for j, xi := range xidx[x : x+16] {
			if xi < base || xi-base >= 16 {
				base = -1
				break
			}
			p.up[16*b+j] = uint32(xi - base)
		}
		p.upBase[b] = base
	}
	return p
}

// pixelateDownRow is pixelateDownRowGo. Vector blocks sum their 32-sample
// window over the input rows in registers, in the same order as acc (which
// they never touch: reading acc right after writing it would stall on store
// forwarding), then add each span's first and, where it has two, second
// sample, as the scalar code does.
func pixelateDownRow(out, rows []float32, W int, acc []float32, xs []pixelateSpan, xinv []float32, yinv float32, plan *pixelatePlan) {
	if len(plan.boxX) == 0 {
		pixelateDownRowGo(out, rows, W, acc, xs, xinv, yinv)
		return
	}
	yv, one := bc16(yinv), bc16(1)
	for b, base32 := range plan.boxBase {
		if base32 < 0 {
			continue
		}
		base, x := int(base32), int(plan.boxX[b])
		var w0, w1 archsimd.Float32x16
		if base+32 <= W {
			w0, w1 = ld16(rows[base:base+16]), ld16(rows[base+16:base+32])
			for r := W; r < len(rows); r += W {
				w0 = w0.Add(ld16(rows[r+base : r+base+16]))
				w1 = w1.Add(ld16(rows[r+base+16 : r+base+32]))
			}
		} else { // the window runs past the row: load only its part
			w0 = ld16(rows[base : base+16])
			w1 = archsimd.LoadFloat32x16SlicePart(rows[base+16 : W])
			for r := W; r < len(rows); r += W {
				w0 = w0.Add(ld16(rows[r+base : r+base+16]))
				w1 = w1.Add(archsimd.LoadFloat32x16SlicePart(rows[r+base+16 : r+W]))
			}
		}
		idx := plan.box[32*b : 32*b+32 : 32*b+32]
		a0 := w0.ConcatPermute(w1, archsimd.LoadUint32x16Slice(idx[:16]))
		a1 := w0.ConcatPermute(w1, archsimd.LoadUint32x16Slice(idx[16:]))
		s := a0.Add(a1).Merge(a0, archsimd.Mask32x16FromBits(plan.boxMask[b]))
		m := s.Mul(ld16(xinv[x : x+16]).Mul(yv))
		one.Merge(m, m.Greater(one)).StoreSlice(out[x : x+16])
	}
	archsimd.ClearAVXUpperBits()
	// The blocks left out, in scalar code outside the vector loop (so that
	// its constants stay in registers), each from the column sums it needs.
	for b, base := range plan.boxBase {
		if base < 0 {
			x := int(plan.boxX[b])
			pixelateSumSpans(acc, rows, W, xs[x:x+16])
			pixelateBoxRowGo(out[x:x+16], acc, xs[x:x+16], xinv[x:x+16], yinv)
		}
	}
}

// pixelateSumSpans sets the acc samples that spans cover to the column sums
// of rows (see pixelateSumCols).
func pixelateSumSpans(acc, rows []float32, W int, spans []pixelateSpan) {
	lo, hi := int32(W), int32(0)
	for _, sp := range spans {
		if sp.hi > sp.lo {
			lo, hi = min(lo, sp.lo), max(hi, sp.hi)
		}
	}
	if lo < hi {
		pixelateSumCols(acc, rows, W, int(lo), int(hi))
	}
}

// pixelateUpRow is pixelateUpRowGo; in must hold 16 samples past the last
// index (pixelateSlack).
func pixelateUpRow(row, in []float32, xidx []int32, plan *pixelatePlan) {
	if len(plan.upX) == 0 {
		pixelateUpRowGo(row, in, xidx)
		return
	}
	for b, base := range plan.upBase {
		if base < 0 {
			continue
		}
		x := int(plan.upX[b])
		idx := archsimd.LoadUint32x16Slice(plan.up[16*b : 16*b+16])
		ld16(in[base : base+16]).Permute(idx).StoreSlice(row[x : x+16])
	}
	archsimd.ClearAVXUpperBits()
	for b, base := range plan.upBase {
		if base < 0 {
			x := int(plan.upX[b])
			pixelateUpRowGo(row[x:x+16], in, xidx[x:x+16])
		}
	}
}

// combineRowsSym2AVX2 is combineRowsSym2AVX512 with 8 lanes: blocks of 16
// outputs per row, each input row loaded once for both output rows.
func combineRowsSym2AVX2(out0, out1 []float32, rows [][]float32, wts []float32) int {
	n := len(out0)
	out1 = out1[:n]
	r := len(wts) / 2
	c := bc8(wts[r])
	x := 0
	for ; x+16 <= n; x += 16 {
		m0, m1 := rows[r][x:x+16:x+16], rows[r+1][x:x+16:x+16]
		a0, a1 := c.Mul(ld8(m0[0:8])), c.Mul(ld8(m0[8:16]))
		b0, b1 := c.Mul(ld8(m1[0:8])), c.Mul(ld8(m1[8:16]))
		// L = out0's first row, H = out1's second row for step i.
		lr, hr := rows[0][x:x+16:x+16], rows[2*r+1][x:x+16:x+16]
		l0, l1 := ld8(lr[0:8]), ld8(lr[8:16])
		h0, h1 := ld8(hr[0:8]), ld8(hr[8:16])
		for i := r; i >= 1; i-- {
			v := bc8(wts[r-i])
			p, q := rows[r+i][x:x+16:x+16], rows[r+1-i][x:x+16:x+16]
			p0, p1 := ld8(p[0:8]), ld8(p[8:16]) // out0's second row
			q0, q1 := ld8(q[0:8]), ld8(q[8:16]) // out1's first row
			a0 = a0.Add(v.Mul(l0.Add(p0)))
			a1 = a1.Add(v.Mul(l1.Add(p1)))
			b0 = b0.Add(v.Mul(q0.Add(h0)))
			b1 = b1.Add(v.Mul(q1.Add(h1)))
			l0, l1 = q0, q1
			h0, h1 = p0, p1
		}
		o0, o1 := out0[x:x+16:x+16], out1[x:x+16:x+16]
		a0.StoreSlice(o0[0:8])
		a1.StoreSlice(o0[8:16])
		b0.StoreSlice(o1[0:8])
		b1.StoreSlice(o1[8:16])
	}
	return x
}
