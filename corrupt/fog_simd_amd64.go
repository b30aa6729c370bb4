//go:build goexperiment.simd && amd64 && !purego

package corrupt

import "simd/archsimd"

// Vectorised fog kernels (GOEXPERIMENT=simd, AVX2). Each handles the first
// outputs, eight per vector, and returns how many (0 without AVX2); the
// caller's Go loop does the rest. The blend does exactly the float32
// operations of the Go loop per lane, and its clip min(o, 1) equals the Go
// comparison for every non-NaN o; maxima of finite samples without −0 (the
// plasma map has none, and the image maximum only enters through
// max(+0, ·)) are the same values in any order. So the results are
// bit-identical (golden checksums).

// fogBlendVec: d_c = min(s_c·k + a·(p − lo), 1) for the three channels.
func fogBlendVec(d0, d1, d2, s0, s1, s2, pr []float32, k, a, lo float32) int {
	if !simdKernels {
		return 0
	}
	n := len(pr)
	d0, d1, d2 = d0[:n], d1[:n], d2[:n]
	s0, s1, s2 = s0[:n], s1[:n], s2[:n]
	vk, va, vlo, one := bc8(k), bc8(a), bc8(lo), bc8(1)
	x := 0
	for ; x+8 <= n; x += 8 {
		f := va.Mul(ld8(pr[x:]).Sub(vlo))
		ld8(s0[x:]).Mul(vk).Add(f).Min(one).StoreSlice(d0[x:])
		ld8(s1[x:]).Mul(vk).Add(f).Min(one).StoreSlice(d1[x:])
		ld8(s2[x:]).Mul(vk).Add(f).Min(one).StoreSlice(d2[x:])
	}
	archsimd.ClearAVXUpperBits()
	return x
}

// fogMaxVec returns the largest of p[:done] and done (a multiple of 8; 0
// without AVX2 or when len(p) < 8).
func fogMaxVec(p []float32) (hi float32, done int) {
	if !simdKernels || len(p) < 8 {
		return 0, 0
	}
	h0, h1 := ld8(p), ld8(p)
	x := 8
	for ; x+16 <= len(p); x += 16 {
		h0 = h0.Max(ld8(p[x:]))
		h1 = h1.Max(ld8(p[x+8:]))
	}
	for ; x+8 <= len(p); x += 8 {
		h0 = h0.Max(ld8(p[x:]))
	}
	var l [8]float32
	h0.Max(h1).Store(&l)
	archsimd.ClearAVXUpperBits()
	hi = l[0]
	for _, v := range l[1:] {
		if v > hi {
			hi = v
		}
	}
	return hi, x
}

// frostBlendVec vectorises nothing in this build.
func frostBlendVec(_, _, _ []float32, _, _ float32) int { return 0 }

// frostBlend4Vec vectorises nothing in this build.
func frostBlend4Vec(_, _, _, _, _, _ []float32, _, _ float32, _ [4]float32) int { return 0 }
