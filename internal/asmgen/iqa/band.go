package main

// The pyramid's band kernels: the band 0/3 strip sweep (bandColsAsm) and
// bandPairAsm (lo0filt and the lowpass are in lowpass.go).

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// bandCols: the strip sweep of bandFiltersAVX (iqa/kernels_amd64.go).
// For a strip of up to 8 column vectors it walks down the rows in blocks
// of 8: per column vector, each padded row is folded once into that
// vector's ring of 8 slots (7 vectors each: d1, d2, d3, s1, s2, s3 and the
// centre column), and each pair of output rows reads its 8 slots. Within a
// block the slot indices are constants (the ring turns once per block).
func bandCols() {
	TEXT("bandColsAsm", NOSPLIT, "func(b0, b3, xp []float64, ring *[1792]float64, nv, nb, cw, pw int, t *[96]float64)")
	Pragma("noescape")
	Doc("bandColsAsm computes the first 8·nb output rows of the columns 0 … 4·nv−1",
		"(nv ≤ 8) of bands 0 (b0) and 3 (b3), stride cw, from the padded image xp",
		"(stride pw, from the first output column): per output the operations of",
		"bandPairGo. ring is scratch; t holds the taps (bandTaps).")
	tp := ptr("t")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	cwB := count("cw", false)
	SHLQ(Imm(3), cwB)
	nvB := count("nv", false)
	SHLQ(Imm(5), nvB)
	rv := GP64() // this column vector's ring
	slot := func(k, j int) Mem { return Mem{Base: rv}.Offset(32 * (7*(k%8) + j)) }
	tap := func(i int) Mem { return tp.Offset(32 * i) }
	mt := func(v VecVirtual, i int) VecVirtual { d := YMM(); VMULPD(tap(i), v, d); return d }
	y := GP64()
	fold := func(k int) { // the padded row at y into slot k, then the next row
		x := Mem{Base: y}
		var v [7]VecVirtual
		for i := range v {
			v[i] = YMM()
			VMOVUPD(x.Offset(8*i), v[i])
		}
		for l := 1; l <= 3; l++ {
			VMOVUPD(sub(v[3+l], v[3-l]), slot(k, l-1))
			VMOVUPD(add(v[3-l], v[3+l]), slot(k, 2+l))
		}
		VMOVUPD(v[3], slot(k, 6))
		ADDQ(pwB, y)
	}
	o0, o3 := GP64(), GP64()
	pair := func(j int) { // output rows 2j, 2j+1 of the block from slots 2j … 2j+7
		var a, b VecVirtual
		for l := 1; l <= 3; l++ {
			var d [8]VecVirtual
			for k := range d {
				d[k] = YMM()
				VMOVUPD(slot(2*j+k, l-1), d[k])
			}
			sa, sb := symVert7x2(&d, mt, 4*(l-1))
			if l == 1 {
				a, b = sa, sb
			} else {
				a, b = add(a, sa), add(b, sb)
			}
		}
		VMOVUPD(a, Mem{Base: o0})
		VMOVUPD(b, Mem{Base: o0, Index: cwB, Scale: 1})
		for l := range 4 {
			var s [8]VecVirtual
			for k := range s {
				s[k] = YMM()
				if l == 0 {
					VMOVUPD(slot(2*j+k, 6), s[k])
				} else {
					VMOVUPD(slot(2*j+k, 2+l), s[k])
				}
			}
			sa, sb := antiVert7x2(&s, mt, 12+3*l)
			if l == 0 {
				a, b = sa, sb
			} else {
				a, b = add(a, sa), add(b, sb)
			}
		}
		VMOVUPD(a, Mem{Base: o3})
		VMOVUPD(b, Mem{Base: o3, Index: cwB, Scale: 1})
		ADDQ(cwB, o0)
		ADDQ(cwB, o0)
		ADDQ(cwB, o3)
		ADDQ(cwB, o3)
	}
	v := GP64()
	// ringOf points rv at column vector v's ring (1792 bytes each).
	ringOf := func() {
		IMUL3Q(Imm(56), v, rv) // v counts bytes of 32
		ADDQ(Load(Param("ring"), GP64()), rv)
	}
	// Prologue: padded rows 0 … 5 into slots 0 … 5 of every ring.
	XORQ(v, v)
	Label("bandCols_pro")
	CMPQ(v, nvB)
	JAE(LabelRef("bandCols_blocks"))
	Load(Param("xp").Base(), y)
	ADDQ(v, y)
	ringOf()
	for k := range 6 {
		fold(k)
	}
	ADDQ(Imm(32), v)
	JMP(LabelRef("bandCols_pro"))

	Label("bandCols_blocks")
	xb, ob0, ob3 := GP64(), GP64(), GP64() // padded row 8b+6, output row 8b
	Load(Param("xp").Base(), xb)
	for range 6 {
		ADDQ(pwB, xb)
	}
	Load(Param("b0").Base(), ob0)
	Load(Param("b3").Base(), ob3)
	blk := GP64()
	Load(Param("nb"), blk)
	Label("bandCols_blk")
	TESTQ(blk, blk)
	JZ(LabelRef("bandCols_done"))
	XORQ(v, v)
	Label("bandCols_vec")
	CMPQ(v, nvB)
	JAE(LabelRef("bandCols_next"))
	MOVQ(xb, y)
	ADDQ(v, y)
	ringOf()
	MOVQ(ob0, o0)
	ADDQ(v, o0)
	MOVQ(ob3, o3)
	ADDQ(v, o3)
	for j := range 4 {
		fold(6 + 2*j)
		fold(7 + 2*j)
		pair(j)
	}
	ADDQ(Imm(32), v)
	JMP(LabelRef("bandCols_vec"))
	Label("bandCols_next")
	for range 8 {
		ADDQ(pwB, xb)
		ADDQ(cwB, ob0)
		ADDQ(cwB, ob3)
	}
	DECQ(blk)
	JMP(LabelRef("bandCols_blk"))
	Label("bandCols_done")
	VZEROUPPER()
	RET()
}

// lastVector emits body(o) for o = 8·(n−4) when n is not a multiple of 4:
// the ragged end of a row as its last 4 outputs once more (the outputs
// computed twice get the same values, as each is written once). nB holds
// 8·n; it requires n ≥ 4.
func lastVector(name string, nB GPVirtual, body func(o GPVirtual)) {
	TESTQ(U32(31), nB)
	JZ(LabelRef(name + "_end"))
	o := GP64()
	MOVQ(nB, o)
	SUBQ(Imm(32), o)
	body(o)
	Label(name + "_end")
}

// vectors emits "for ; o+32·nv ≤ nB; o += 32·nv { body(o, nv) }", then the
// same one vector at a time: the whole vectors of a row of nB bytes.
func vectors(name string, o, nB GPVirtual, nv int, body func(o GPVirtual, nv int)) {
	for _, k := range []int{nv, 1} {
		lim := GP64()
		MOVQ(nB, lim)
		SUBQ(U32(32*k), lim)
		l := fmt.Sprintf("%s_loop%d", name, k)
		Label(l)
		CMPQ(o, lim)
		JG(LabelRef(l + "_done"))
		body(o, k)
		ADDQ(U32(32*k), o)
		JMP(LabelRef(l))
		Label(l + "_done")
		if nv == 1 {
			break
		}
	}
}

// symVert7x2 returns the symmetric vertical 7-tap filter, taps t … t+3 by
// mt (centre first), of the rows d[0…6] (first output row) and d[1…7]
// (second): t0·d3 + t1·(d2+d4) + t2·(d1+d5) + t3·(d0+d6), summed in that
// order as the Go kernels sum it.
func symVert7x2(d *[8]VecVirtual, mt func(VecVirtual, int) VecVirtual, t int) (a, b VecVirtual) {
	a = mt(d[3], t)
	a = add(a, mt(add(d[2], d[4]), t+1))
	a = add(a, mt(add(d[1], d[5]), t+2))
	a = add(a, mt(add(d[0], d[6]), t+3))
	b = mt(d[4], t)
	b = add(b, mt(add(d[3], d[5]), t+1))
	b = add(b, mt(add(d[2], d[6]), t+2))
	b = add(b, mt(add(d[1], d[7]), t+3))
	return a, b
}

// antiVert7x2 returns the antisymmetric vertical 7-tap filter, taps t …
// t+2 by mt, of the rows s[0…6] and s[1…7]: t0·(s4−s2) + t1·(s5−s1) +
// t2·(s6−s0), in that order.
func antiVert7x2(s *[8]VecVirtual, mt func(VecVirtual, int) VecVirtual, t int) (a, b VecVirtual) {
	a = mt(sub(s[4], s[2]), t)
	a = add(a, mt(sub(s[5], s[1]), t+1))
	a = add(a, mt(sub(s[6], s[0]), t+2))
	b = mt(sub(s[5], s[3]), t)
	b = add(b, mt(sub(s[6], s[2]), t+1))
	b = add(b, mt(sub(s[7], s[1]), t+2))
	return a, b
}
