//go:build goexperiment.simd && amd64 && !purego

package corrupt

import "simd/archsimd"

// Vectorised elastic_transform kernels (GOEXPERIMENT=simd, AVX2). Each
// computes the first outputs of a pass of elasticSymAccumulate, eight per
// vector, and returns how many (a multiple of 8, or 0 without AVX2); the
// caller's Go loop does the rest. Every lane does exactly the float32
// operations of that Go loop in the same order (separate multiplies and
// adds), so the results are bit-identical (TestElasticSymAccumulate).

// elasticSym3Vec: out = (w[0]·m + w[1]·(a+b)) + (w[2]·(a₁+b₁) + w[3]·(a₂+b₂))
// with rows = m, a, b, a₁, b₁, a₂, b₂.
func elasticSym3Vec(out []float32, rows [7][]float32, w [4]float32) int {
	if !simdKernels {
		return 0
	}
	n := len(out)
	k0, g, g1, g2 := bc8(w[0]), bc8(w[1]), bc8(w[2]), bc8(w[3])
	mid := rows[0][:n]
	a, b := rows[1][:n], rows[2][:n]
	a1, b1 := rows[3][:n], rows[4][:n]
	a2, b2 := rows[5][:n], rows[6][:n]
	x := 0
	for ; x+8 <= n; x += 8 {
		t := k0.Mul(ld8(mid[x:])).Add(g.Mul(ld8(a[x:]).Add(ld8(b[x:]))))
		u := g1.Mul(ld8(a1[x:]).Add(ld8(b1[x:]))).Add(g2.Mul(ld8(a2[x:]).Add(ld8(b2[x:]))))
		t.Add(u).StoreSlice(out[x:])
	}
	archsimd.ClearAVXUpperBits()
	return x
}

// elasticPair2Vec: out = (out + (w[0]·(a₁+b₁) + w[1]·(a₂+b₂))) +
// (w[2]·(a₃+b₃) + w[3]·(a₄+b₄)) with rows = a₁, b₁, …, b₄.
func elasticPair2Vec(out []float32, rows [8][]float32, w [4]float32) int {
	if !simdKernels {
		return 0
	}
	n := len(out)
	g1, g2, g3, g4 := bc8(w[0]), bc8(w[1]), bc8(w[2]), bc8(w[3])
	a1, b1 := rows[0][:n], rows[1][:n]
	a2, b2 := rows[2][:n], rows[3][:n]
	a3, b3 := rows[4][:n], rows[5][:n]
	a4, b4 := rows[6][:n], rows[7][:n]
	x := 0
	for ; x+8 <= n; x += 8 {
		p := g1.Mul(ld8(a1[x:]).Add(ld8(b1[x:]))).Add(g2.Mul(ld8(a2[x:]).Add(ld8(b2[x:]))))
		q := g3.Mul(ld8(a3[x:]).Add(ld8(b3[x:]))).Add(g4.Mul(ld8(a4[x:]).Add(ld8(b4[x:]))))
		ld8(out[x:]).Add(p).Add(q).StoreSlice(out[x:])
	}
	archsimd.ClearAVXUpperBits()
	return x
}
