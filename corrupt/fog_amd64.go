//go:build amd64 && !purego

package corrupt

// Fog kernels of the default amd64 build, whose vector loops are assembly
// (filter_amd64.s). Both give the Go loops' results bit for bit, NaN and
// signed zeros included: the blend clips with 1 < o ? 1 : o, which is the
// Go comparison, and the maximum keeps weatherMax's eight lanes and update
// rule (fog_amd64_test.go).

// fogBlendVec: d_c = min(s_c·k + a·(p − lo), 1) for the three channels, for
// the first outputs (a multiple of 8); it returns how many.
func fogBlendVec(d0, d1, d2, s0, s1, s2, pr []float32, k, a, lo float32) int {
	if !simdKernels {
		return 0
	}
	n := len(pr)
	x := n &^ 7
	d0, d1, d2 = d0[:n], d1[:n], d2[:n]
	s0, s1, s2 = s0[:n], s1[:n], s2[:n]
	c := [3]float32{k, a, lo}
	fogBlendAsm(d0, d1, d2, s0, s1, s2, pr[:x], &c)
	return x
}

// fogMaxVec returns weatherMax(p) and len(p), or 0, 0 without AVX2 or
// when len(p) < 8.
func fogMaxVec(p []float32) (hi float32, done int) {
	if !simdKernels || len(p) < 8 {
		return 0, 0
	}
	return weatherMaxAVX2(p), len(p)
}

// weatherMaxAVX2 is weatherMax with its eight lanes in one vector.
func weatherMaxAVX2(p []float32) float32 {
	h0 := p[0]
	h := [8]float32{h0, h0, h0, h0, h0, h0, h0, h0}
	i := len(p) &^ 7
	maxLanesAsm(p[:i], &h)
	h0 = h[0]
	for _, v := range p[i:] {
		if v > h0 {
			h0 = v
		}
	}
	for _, v := range h[1:] {
		if v > h0 {
			h0 = v
		}
	}
	return h0
}

// frostBlendVec: d = weatherClamp01(s·src + t·f) (frostApply), for the
// first samples (a multiple of 8); it returns how many.
func frostBlendVec(d, src, f []float32, s, t float32) int {
	if !simdKernels {
		return 0
	}
	n := len(d)
	x := n &^ 7
	c := [2]float32{s, t}
	frostBlendAsm(d[:x], src[:x], f[:x], &c)
	return x
}

// frostBlend4Vec: d = weatherClamp01(s·src + t·weatherClamp01(Σ w_i·r_i))
// (frostApply's enlarged texture), for the first samples (a multiple of
// 8); it returns how many.
func frostBlend4Vec(d, src, r0, r1, r2, r3 []float32, s, t float32, w [4]float32) int {
	if !simdKernels {
		return 0
	}
	n := len(d)
	x := n &^ 7
	c := [6]float32{s, t, w[0], w[1], w[2], w[3]}
	frostBlend4Asm(d[:x], src[:x], r0[:x], r1[:x], r2[:x], r3[:x], &c)
	return x
}
