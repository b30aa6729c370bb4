package main

// lo0filt and the step-2 lowpass, each as a vertical pass (the column
// filters, sharing the vertical folds) and a horizontal pass (the folded
// combination): lo0VertAsm, lo0HorzAsm, lowVertLanesAsm, lowHorzAsm.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// rowLoop emits body(o) for the byte offsets o = 0, 32, … of the whole
// vectors of n samples (nB = 8·n), then for the ragged end the last 4
// samples once more (outputs computed twice get the same values, each
// written once per pass). It requires n ≥ 4.
func rowLoop(name string, nB GPVirtual, body func(o GPVirtual)) {
	o := GP64()
	XORQ(o, o)
	n4 := GP64()
	MOVQ(nB, n4)
	ANDQ(I32(-32), n4)
	Label(name + "_loop")
	CMPQ(o, n4)
	JAE(LabelRef(name + "_tail"))
	body(o)
	ADDQ(Imm(32), o)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_tail")
	lastVector(name, nB, body)
	VZEROUPPER()
	RET()
}

// lo0Vert: lo0VertGo.
func lo0Vert() {
	TEXT("lo0VertAsm", NOSPLIT, "func(v []float64, pw int, x0, a1, b1, a2, b2 []float64, k *[9]float64)")
	Pragma("noescape")
	Doc("lo0VertAsm is lo0VertGo for len(x0) ≥ 4 samples: V_l = (k[l]·x0 + k[3+l]·(a1+b1)) +",
		"k[6+l]·(a2+b2) into v[l·pw+2:], l = 0, 1, 2.")
	v := base("v")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	x0, a1, b1, a2, b2 := base("x0"), base("a1"), base("b1"), base("a2"), base("b2")
	kp := ptr("k")
	var k [9]VecVirtual
	for i := range k {
		k[i] = bcast(kp.Offset(8 * i))
	}
	var out [3]Mem
	out[0] = Mem{Base: v.Base, Disp: 16}
	for l := 1; l < 3; l++ {
		out[l] = Mem{Base: GP64(), Disp: 16}
		LEAQ(Mem{Base: out[l-1].Base, Index: pwB, Scale: 1}, out[l].Base)
	}
	n := count("x0", true)
	SHLQ(Imm(3), n)
	rowLoop("lo0Vert", n, func(o GPVirtual) {
		x := ld(x0, o, 0)
		u1 := add(ld(a1, o, 0), ld(b1, o, 0))
		u2 := add(ld(a2, o, 0), ld(b2, o, 0))
		for l := range 3 {
			s := add(mul(k[l], x), mul(k[3+l], u1))
			st(add(s, mul(k[6+l], u2)), out[l], o, 0)
		}
	})
}

// lo0Horz: lo0HorzGo.
func lo0Horz() {
	TEXT("lo0HorzAsm", NOSPLIT, "func(out, v []float64, pw int)")
	Pragma("noescape")
	Doc("lo0HorzAsm is lo0HorzGo for len(out) ≥ 4 samples: out[c] = (v0[c+2] + (v1[c+1] +",
		"v1[c+3])) + (v2[c] + v2[c+4]), v_l = v[l·pw:].")
	out, v := base("out"), base("v")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	v1 := Mem{Base: GP64()}
	LEAQ(Mem{Base: v.Base, Index: pwB, Scale: 1}, v1.Base)
	v2 := Mem{Base: GP64()}
	LEAQ(Mem{Base: v1.Base, Index: pwB, Scale: 1}, v2.Base)
	n := count("out", true)
	SHLQ(Imm(3), n)
	rowLoop("lo0Horz", n, func(o GPVirtual) {
		s := add(ld(v, o, 2), add(ld(v1, o, 1), ld(v1, o, 3)))
		st(add(s, add(ld(v2, o, 0), ld(v2, o, 4))), out, o, 0)
	})
}

// lowVertLanes: the vertical pass of lowpassDownAVX.
func lowVertLanes() {
	TEXT("lowVertLanesAsm", NOSPLIT, "func(v []float64, pw int, rows *[9][]float64, n8 int, k *[60]float64)")
	Pragma("noescape")
	Doc("lowVertLanesAsm computes, for the source columns i < n8 (a multiple of 8), the",
		"column filters of lowpassDownAVX from rows (the centre row, then the rows ∓1 … ∓4):",
		"u_0 = rows[0][i], u_k = rows[2k−1][i] + rows[2k][i], and per filter pair a the sum",
		"over k = 0 … 4 of u_k times the lane taps k[20a+4k …] in order, at every column;",
		"it de-interleaves them into the rows v[0:] (V_0), v[pw:] (V_2), v[2·pw:] (V_4),",
		"v[3·pw:] (V_1), v[4·pw:] (V_3), at entry 2 + ⌊i/2⌋.")
	vp := GP64() // the output entry 2 + i/2 of row V_0
	Load(Param("v").Base(), vp)
	ADDQ(Imm(16), vp)
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	vp3 := GP64() // the same entry of row V_1 (3·pw further)
	LEAQ(Mem{Base: vp, Index: pwB, Scale: 2}, vp3)
	ADDQ(pwB, vp3)
	rp := ptr("rows")
	kp := ptr("k")
	n := count("n8", false)
	SHLQ(Imm(3), n)
	o := GP64()
	XORQ(o, o)
	Label("lowVertLanes_loop")
	CMPQ(o, n)
	JAE(LabelRef("lowVertLanes_done"))
	// u[h][k] for the half h (columns i … i+3, i+4 … i+7); each row's base
	// pointer is loaded once for both halves.
	var u [2][5]VecVirtual
	for k := range 5 {
		for j, ri := range [][]int{{0}, {2*k - 1, 2 * k}}[min(k, 1)] {
			b := GP64()
			MOVQ(rp.Offset(24*ri), b)
			for h := range 2 {
				y := YMM()
				VMOVUPD(Mem{Base: b, Index: o, Scale: 1, Disp: 32 * h}, y)
				if j == 0 {
					u[h][k] = y
				} else {
					u[h][k] = add(u[h][k], y)
				}
			}
		}
	}
	// Rows V_0, V_2, V_4 at vp + 0, pw, 2·pw; V_1, V_3 at vp3 + 0, pw.
	outE := []Mem{{Base: vp}, {Base: vp, Index: pwB, Scale: 1}, {Base: vp, Index: pwB, Scale: 2}}
	outO := []Mem{{Base: vp3}, {Base: vp3, Index: pwB, Scale: 1}}
	// W[h] for pair a (each lane tap loaded once for both halves), then
	// de-interleaved and stored at once.
	for a := range 3 {
		var W [2]VecVirtual
		for k := range 5 {
			t := YMM()
			VMOVUPD(kp.Offset(32*(5*a+k)), t)
			for h := range 2 {
				if k == 0 {
					W[h] = mul(u[h][0], t)
				} else {
					W[h] = add(W[h], mul(u[h][k], t))
				}
			}
		}
		lo, hi := YMM(), YMM()
		VPERM2F128(Imm(0x20), W[1], W[0], lo) // A0 A1 B0 B1
		VPERM2F128(Imm(0x31), W[1], W[0], hi) // A2 A3 B2 B3
		ev := YMM()
		VUNPCKLPD(hi, lo, ev) // A0 A2 B0 B2
		VMOVUPD(ev, outE[a])
		if a < 2 {
			od := YMM()
			VUNPCKHPD(hi, lo, od) // A1 A3 B1 B3
			VMOVUPD(od, outO[a])
		}
	}
	ADDQ(Imm(32), vp)
	ADDQ(Imm(32), vp3)
	ADDQ(Imm(64), o)
	JMP(LabelRef("lowVertLanes_loop"))
	Label("lowVertLanes_done")
	VZEROUPPER()
	RET()
}

// lowHorz: the combination of lowpassDownAVX's column filters.
func lowHorz() {
	TEXT("lowHorzAsm", NOSPLIT, "func(out, v []float64, pw int)")
	Pragma("noescape")
	Doc("lowHorzAsm writes, for c < len(out) (≥ 4), out[c] = E0[c+2] + (O1[c+1] + O1[c+2]) +",
		"(E2[c+1] + E2[c+3]) + (O3[c] + O3[c+3]) + (E4[c] + E4[c+4]), summed left to right,",
		"with E0, E2, E4, O1, O3 the rows v[0:], v[pw:], … v[4·pw:].")
	out, v := base("out"), base("v")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	var r [5]Mem
	r[0] = v
	for i := 1; i < 5; i++ {
		r[i] = Mem{Base: GP64()}
		LEAQ(Mem{Base: r[i-1].Base, Index: pwB, Scale: 1}, r[i].Base)
	}
	e0, e2, e4, o1, o3 := r[0], r[1], r[2], r[3], r[4]
	n := count("out", true)
	SHLQ(Imm(3), n)
	rowLoop("lowHorz", n, func(o GPVirtual) {
		s := add(ld(e0, o, 2), add(ld(o1, o, 1), ld(o1, o, 2)))
		s = add(s, add(ld(e2, o, 1), ld(e2, o, 3)))
		s = add(s, add(ld(o3, o, 0), ld(o3, o, 3)))
		st(add(s, add(ld(e4, o, 0), ld(e4, o, 4))), out, o, 0)
	})
}
