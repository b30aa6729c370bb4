package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The generators of the GSM-model kernels (iqa/gsm.go).

// patchLanes: patchLanesGo, one lane per residue l of k mod 4.
func patchLanes() {
	TEXT("patchLanesAsm", NOSPLIT, "func(r0, r1, r2 []float64, kn int, q *[14]float64)")
	Pragma("noescape")
	Doc("patchLanesAsm is patchLanesGo (gsm.go) for n4 = kn followed by the",
		"reduction of patchCoreFinish: with lane l of sum i summing the terms",
		"k ≡ l (mod 4), k < kn, in increasing k, it writes (l0 + l1) + (l2 + l3)",
		"into q[i]. It reads r0[0 … kn+3], r1 and r2[0 … kn+3].")
	r0, r1, r2 := base("r0"), base("r1"), base("r2")
	qp := ptr("q")
	n := count("kn", false)
	// 14 sums, the core samples and one product: all 16 YMM registers.
	var sums [14]VecVirtual
	for i := range sums {
		sums[i] = YMM()
		VXORPD(sums[i], sums[i], sums[i])
	}
	type term struct {
		m   Mem
		off int // in samples
	}
	terms := []term{{r0, 2}, {r0, 3}, {r0, 4}}
	for _, r := range []Mem{r1, r2} {
		for j := range 5 {
			terms = append(terms, term{r, j})
		}
	}
	off := GP64()
	XORQ(off, off)
	SHLQ(Imm(3), n)
	Label("patchLanes_loop")
	CMPQ(off, n)
	JAE(LabelRef("patchLanes_done"))
	c := ld(r0, off, 2) // c[k…k+3] = r0[2+k…5+k]
	VADDPD(c, sums[0], sums[0])
	p := YMM()
	for i, t := range terms {
		if i == 0 { // r0[2+k…] is c itself
			VMULPD(c, c, p)
		} else {
			VMULPD(t.m.Idx(off, 1).Offset(8*t.off), c, p)
		}
		VADDPD(p, sums[1+i], sums[1+i])
	}
	ADDQ(Imm(32), off)
	JMP(LabelRef("patchLanes_loop"))
	Label("patchLanes_done")
	for i := range sums {
		h := YMM()
		VHADDPD(sums[i], sums[i], h) // l0+l1, ·, l2+l3, ·
		x := XMM()
		VEXTRACTF128(Imm(1), h, x)
		VADDSD(x, h.AsX(), x)
		VMOVSD(x, qp.Offset(8*i))
	}
	VZEROUPPER()
	RET()
}

// blockProducts: the vector loops of blockProductsAVX, blockSAVX and
// blockProductsSAVX: s of four blocks at a time, then their products, in
// two loops (one fused loop holds about 200 instructions per iteration,
// mostly in long dependency chains, and runs 20 % slower).
func blockProducts() {
	TEXT("blockSAsm", NOSPLIT, "func(s, r0, r1, r2 []float64, tab *[232]float64)")
	Pragma("noescape")
	Doc("blockSAsm writes s = yᵀ·Cu⁻¹·y/9 of len(s), a multiple of 4, blocks into",
		"s, as blockSGo (wavelet.go) computes it: block c holds the samples",
		"r_i[3c … 3c+2] of the rows r0, r1, r2 (at least 3·len(s) samples each),",
		"tab the upper triangle of Cu⁻¹ (45 entries), λ (9), 1, 9 and σn², each",
		"broadcast to 4 lanes.")
	sp := base("s")
	rows := [3]Mem{base("r0"), base("r1"), base("r2")}
	tp := ptr("tab")
	n := count("s", true)
	loop("blockS", n, 4, func(o GPVirtual) {
		st(quadForm(blockSamples(rows, o), tp), sp, o, 0)
	})

	TEXT("blockProductsSAsm", NOSPLIT, "func(pn, pd, g, sv, s []float64, tab *[232]float64)")
	Pragma("noescape")
	Doc("blockProductsSAsm writes the products pn, pd of blockProductsSGo",
		"(wavelet.go) of len(pn), a multiple of 4, blocks from their s (blockSAsm),",
		"gains g and noise variances sv; tab as for blockSAsm. s may be pd.")
	pn, pd, g, sv, sp, tp := base("pn"), base("pd"), base("g"), base("sv"), base("s"), ptr("tab")
	n = count("pn", true)
	loop("blockProductsS", n, 4, func(o GPVirtual) {
		blockFactors(pn, pd, g, sv, o, tp, ld(sp, o, 0))
	})
}

// blockSamples loads the samples of the four blocks at byte offset o (of
// the per-block arrays; the rows are read at three times it) and
// de-interleaves them in registers: v[3i+k] holds sample k of row i of each
// block, y_{3i+k} of blockProductsGo.
func blockSamples(rows [3]Mem, o GPVirtual) (v [9]VecVirtual) {
	o3 := GP64()
	LEAQ(Mem{Base: o, Index: o, Scale: 2}, o3)
	for i, src := range rows {
		l0, l1, l2 := ld(src, o3, 0), ld(src, o3, 4), ld(src, o3, 8) // a0…a3, a4…a7, a8…a11
		t, u := YMM(), YMM()
		VPERM2F128(Imm(0x21), l1, l0, t) // a2 a3 a4 a5
		VPERM2F128(Imm(0x21), l2, l1, u) // a6 a7 a8 a9
		x0, x1, x2 := YMM(), YMM(), YMM()
		VBLENDPD(Imm(0b1100), l1, l0, x0) // a0 a1 a6 a7
		VBLENDPD(Imm(0b1100), u, t, x1)   // a2 a3 a8 a9
		VBLENDPD(Imm(0b1100), l2, l1, x2) // a4 a5 a10 a11
		v[3*i], v[3*i+1], v[3*i+2] = YMM(), YMM(), YMM()
		VSHUFPD(Imm(0b1010), x1, x0, v[3*i])   // a0 a3 a6 a9
		VSHUFPD(Imm(0b0101), x2, x0, v[3*i+1]) // a1 a4 a7 a10
		VSHUFPD(Imm(0b1010), x2, x1, v[3*i+2]) // a2 a5 a8 a11
	}
	return v
}

// quadForm returns s = yᵀ·Cu⁻¹·y/9 of the four blocks whose samples v
// holds (blockSamples), in the scalar kernel's order.
func quadForm(v [9]VecVirtual, tp Mem) VecVirtual {
	T := func(i int) Mem { return tp.Offset(32 * i) }
	// yᵀ·Cu⁻¹·y row by row.
	var q VecVirtual
	t := 0
	for i := range 9 {
		r := mul(v[i], T(t))
		t++
		for j := i + 1; j < 9; j++ {
			r = add(r, mul(v[j], T(t)))
			t++
		}
		r = mul(r, v[i])
		if i == 0 {
			z := YMM()
			VXORPD(z, z, z)
			q = add(z, r) // 0 + x: −0 becomes +0 as in the scalar sum
		} else {
			q = add(q, r)
		}
	}
	return div(q, T(55))
}

// blockFactors stores, for the four blocks at byte offset o, the products
// pn = Π_j (1 + gn·λj) and pd = Π_j (1 + sd·λj), gn = g²·s/(σv²+σn²),
// sd = s/σn², in the scalar kernel's order.
func blockFactors(pn, pd, g, sv Mem, o GPVirtual, tp Mem, s VecVirtual) {
	T := func(i int) Mem { return tp.Offset(32 * i) }
	const iOne, iSig = 54, 56
	gv := ld(g, o, 0)
	gn := div(mul(mul(gv, gv), s), add(ld(sv, o, 0), T(iSig)))
	sd := div(s, T(iSig))
	one := bcast(tp.Offset(32 * iOne))
	f := func(a VecVirtual, j int) VecVirtual { return add(one, mul(a, T(45+j))) }
	for k, a := range []VecVirtual{gn, sd} {
		p := mul(f(a, 0), f(a, 1))
		p = mul(p, f(a, 2))
		p = mul(p, f(a, 3))
		p = mul(p, f(a, 4))
		r := mul(f(a, 5), f(a, 6))
		r = mul(r, f(a, 7))
		r = mul(r, f(a, 8))
		st(mul(p, r), []Mem{pn, pd}[k], o, 0)
	}
}
