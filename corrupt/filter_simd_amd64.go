//go:build goexperiment.simd && amd64

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
		for ; x+32 <= len(out); x += 32 {
			p := pad[x : x+n+31]
			m := p[r : r+32]
			s0, s1 := c.Mul(ld8(m)), c.Mul(ld8(m[8:]))
			s2, s3 := c.Mul(ld8(m[16:])), c.Mul(ld8(m[24:]))
			for i := 1; i <= r; i++ {
				v := bc8(k[r+i])
				lo, hi := p[r-i:r-i+32], p[r+i:r+i+32]
				s0 = s0.Add(v.Mul(ld8(lo).Add(ld8(hi))))
				s1 = s1.Add(v.Mul(ld8(lo[8:]).Add(ld8(hi[8:]))))
				s2 = s2.Add(v.Mul(ld8(lo[16:]).Add(ld8(hi[16:]))))
				s3 = s3.Add(v.Mul(ld8(lo[24:]).Add(ld8(hi[24:]))))
			}
			o := out[x : x+32]
			s0.StoreSlice(o)
			s1.StoreSlice(o[8:])
			s2.StoreSlice(o[16:])
			s3.StoreSlice(o[24:])
		}
		for ; x+8 <= len(out); x += 8 {
			p := pad[x : x+n+7]
			s := c.Mul(ld8(p[r:]))
			for i := 1; i <= r; i++ {
				s = s.Add(bc8(k[r+i]).Mul(ld8(p[r-i:]).Add(ld8(p[r+i:]))))
			}
			s.StoreSlice(out[x:])
		}
	} else {
		// s = 0; s += k[i]·p[i] for i = 0…n−1.
		for ; x+32 <= len(out); x += 32 {
			p := pad[x : x+n+31]
			var s0, s1, s2, s3 archsimd.Float32x8
			for i, kv := range k {
				v := bc8(kv)
				q := p[i : i+32]
				s0 = s0.Add(v.Mul(ld8(q)))
				s1 = s1.Add(v.Mul(ld8(q[8:])))
				s2 = s2.Add(v.Mul(ld8(q[16:])))
				s3 = s3.Add(v.Mul(ld8(q[24:])))
			}
			o := out[x : x+32]
			s0.StoreSlice(o)
			s1.StoreSlice(o[8:])
			s2.StoreSlice(o[16:])
			s3.StoreSlice(o[24:])
		}
		for ; x+8 <= len(out); x += 8 {
			p := pad[x : x+n+7]
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
		combineRowsSymAVX2(out, rows, wts)
		return
	}
	n := len(out)
	x := 0
	for ; x+32 <= n; x += 32 {
		var s0, s1, s2, s3 archsimd.Float32x8
		for k, wv := range wts {
			v := bc8(wv)
			r := rows[k][x : x+32]
			s0 = s0.Add(v.Mul(ld8(r)))
			s1 = s1.Add(v.Mul(ld8(r[8:])))
			s2 = s2.Add(v.Mul(ld8(r[16:])))
			s3 = s3.Add(v.Mul(ld8(r[24:])))
		}
		o := out[x : x+32]
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

// combineRowsSymAVX2 is combineRowsSymGo vectorised across x.
func combineRowsSymAVX2(out []float32, rows [][]float32, wts []float32) {
	n := len(out)
	r := len(wts) / 2
	c := bc8(wts[r])
	mid := rows[r][:n]
	x := 0
	for ; x+32 <= n; x += 32 {
		m := mid[x : x+32]
		s0, s1 := c.Mul(ld8(m)), c.Mul(ld8(m[8:]))
		s2, s3 := c.Mul(ld8(m[16:])), c.Mul(ld8(m[24:]))
		for k := 0; k < r; k++ {
			v := bc8(wts[k])
			a := rows[k][x : x+32]
			b := rows[len(rows)-1-k][x : x+32]
			s0 = s0.Add(v.Mul(ld8(a).Add(ld8(b))))
			s1 = s1.Add(v.Mul(ld8(a[8:]).Add(ld8(b[8:]))))
			s2 = s2.Add(v.Mul(ld8(a[16:]).Add(ld8(b[16:]))))
			s3 = s3.Add(v.Mul(ld8(a[24:]).Add(ld8(b[24:]))))
		}
		o := out[x : x+32]
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
		h, l := chi[x:x+32], clo[x:x+32]
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
		o := out[x : x+32]
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
