package main

// lo0filt and the step-2 lowpass, each as a vertical pass (the column
// filters, sharing the vertical folds) and a horizontal pass (the folded
// combination): lo0VertAsm, lo0HorzAsm, lowVert3Asm, lowVert2Asm, lowHorzAsm.

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

// lowVert: lowVert (iqa/pyramid.go) for the columns ls.
func lowVert(name string, ls []int) {
	TEXT(name, NOSPLIT, "func(d, s []float64, pw, n int, k *[100]float64)")
	Pragma("noescape")
	Doc(name+" writes, for i < n (n ≥ 4) and the column filters l of lowVert in the", "order listed in its generator, d[j·pw+i] = lowVert's V_l with u_k = s[k·pw+i]",
		"(j counting the filters); k is lowTaps4.")
	d, s := base("d"), base("s")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	kp := ptr("k")
	var u [5]Mem
	u[0] = s
	for i := 1; i < 5; i++ {
		u[i] = Mem{Base: GP64()}
		LEAQ(Mem{Base: u[i-1].Base, Index: pwB, Scale: 1}, u[i].Base)
	}
	out := make([]Mem, len(ls))
	out[0] = d
	for j := 1; j < len(ls); j++ {
		out[j] = Mem{Base: GP64()}
		LEAQ(Mem{Base: out[j-1].Base, Index: pwB, Scale: 1}, out[j].Base)
	}
	n := count("n", false)
	SHLQ(Imm(3), n)
	rowLoop(name, n, func(o GPVirtual) {
		var x [5]VecVirtual
		for i := range x {
			x[i] = ld(u[i], o, 0)
		}
		for j, l := range ls {
			acc := mul(x[0], kp.Offset(32*l))
			for i := 1; i < 5; i++ {
				acc = add(acc, mul(x[i], kp.Offset(32*(5*i+l))))
			}
			st(acc, out[j], o, 0)
		}
	})
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
