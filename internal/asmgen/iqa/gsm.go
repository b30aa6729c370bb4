package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The generators of the GSM-model kernels (iqa/gsm.go).

// patchLanes: patchLanesGo, one lane per residue l of k mod 4.
func patchLanes() {
	TEXT("patchLanesAsm", NOSPLIT, "func(r0, r1, r2 []float64, kn int, q *[14][4]float64)")
	Pragma("noescape")
	Doc("patchLanesAsm is patchLanesGo (gsm.go) for n4 = kn: lane l of vector",
		"q[i] sums the terms k ≡ l (mod 4), k < kn, in increasing k. It reads",
		"r0[0 … kn+3], r1 and r2[0 … kn+3].")
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
		VMULPD(t.m.Idx(off, 1).Offset(8*t.off), c, p)
		VADDPD(p, sums[1+i], sums[1+i])
	}
	ADDQ(Imm(32), off)
	JMP(LabelRef("patchLanes_loop"))
	Label("patchLanes_done")
	for i := range sums {
		VMOVUPD(sums[i], qp.Offset(32*i))
	}
	VZEROUPPER()
	RET()
}
