package main

// The pyramid's kernels: the band 0/3 strip sweep (bandStripAsm) and the
// step-2 lowpass (splitEvenOddAsm, foldSplitAsm, lowRowAsm) and lo0filt (lo0RowAsm).

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// bandStripVectors is the most column vectors one bandStripAsm call
// handles (iqa's bandStripVectors; the layout of the scratch depends on it).
const bandStripVectors = 16

// bandPrefetchRows is how many padded rows ahead of the H pass bandStripAsm
// prefetches.
const bandPrefetchRows = 2

// bandStrip: the strip sweep of bandFiltersAVX (iqa/kernels_amd64.go), the
// operations of bandFiltersGo (bandHGo, bandOut3Go, bandVGo, bandOutGo)
// for a strip of nv ≤ bandStripVectors column vectors. The scratch ring
// holds 8 slots of H rows (slot s, H_k, vector v at 4·S·(3s + k − 1) + 4v
// samples, S = bandStripVectors), then two buffers of V rows (buffer b,
// V_l, padded column j at 96·S + (4·S + 8)·(3b + l − 1) + j): 120·S + 48
// samples in all. Step i of the sweep (i = 0 … ch+6):
//
//   - i < ch+6: H_1…3 of padded row i into slot i mod 8, and from i = 6 on,
//     in the same loop, band 3's output row i − 6 (its H_3 of padded row i
//     still in a register);
//   - 6 ≤ i < ch+6: V_1…3 of padded rows r … r+6 (r = i − 6) over the
//     strip's 4·nv + 6 padded columns (nv + 1 vectors, then the last 4
//     columns once more) into buffer r mod 2, and in the same loop band
//     0's output row r − 1 from buffer (r − 1) mod 2; i = ch + 6: band 0's
//     last row. Band 0 reads the V rows a step after they were written
//     (at shifted columns: loads from stores still in flight would stall).
//
// The H pass is the first to read a padded row of the strip; it prefetches
// the row bandPrefetchRows ahead (prefetches do not fault, so past the
// image's last row is harmless). All 12 taps of a pass stay in registers.
func bandStrip() {
	const S = bandStripVectors
	const hB = 32 * S         // bytes per filter within a slot
	const slotB = 3 * hB      // bytes per ring slot
	const vB = 8 * (4*S + 8)  // bytes per V row
	const vbufOff = 8 * slotB // the V buffers after the ring's 8 slots
	TEXT("bandStripAsm", NOSPLIT, "func(b0, b3, xp []float64, ring *[1968]float64, nv, ch, cw, pw int, t *[96]float64)")
	Pragma("noescape")
	Doc("bandStripAsm computes the output rows 0 … ch−1 of the columns 0 … 4·nv−1",
		"(1 ≤ nv ≤ 16) of bands 0 (b0) and 3 (b3), stride cw, from the padded image",
		"xp (stride pw, from the first output column): per output the operations of",
		"bandFiltersGo. ring is scratch; t holds the taps (bandTaps).")
	var tp Mem
	// regTaps loads the taps b+4j … b+4j+3 of the three filters j = 0, 1,
	// 2 into registers: with them, at most 4 working vectors are live.
	regTaps := func(b int) (t [3][4]VecVirtual) {
		for j := range t {
			for m := range t[j] {
				t[j][m] = YMM()
				VMOVUPD(tp.Offset(32*(b+4*j+m)), t[j][m])
			}
		}
		return t
	}
	// filt3 returns the three filters j = 0, 1, 2 as bandHGo and bandVGo
	// compute them: fma(t_{b+4j+3}, a3, fma(t_{b+4j+2}, a2, fma(t_{b+4j+1},
	// a1, t_{b+4j}·c))), each fused multiply-add rounded once like
	// math.FMA (t·v as v·t: multiplication commutes exactly). The folds a_m
	// are made one at a time by fold(m), so that only one is live.
	filt3 := func(c VecVirtual, fold func(m int) VecVirtual, t *[3][4]VecVirtual) (acc [3]VecVirtual) {
		for j := range acc {
			acc[j] = mul(c, t[j][0])
		}
		for m := 1; m <= 3; m++ {
			a := fold(m)
			for j := range acc {
				VFMADD231PD(t[j][m], a, acc[j]) // acc += a·t, rounded once
			}
		}
		return acc
	}
	// slotOf returns the address of ring slot (i + d) mod 8.
	slotOf := func(i GPVirtual, d int) GPVirtual {
		s := GP64()
		LEAQ(Mem{Base: i}.Offset(d), s)
		ANDQ(Imm(7), s)
		IMUL3Q(U32(slotB), s, s)
		ADDQ(Load(Param("ring"), GP64()), s)
		return s
	}
	// vbufOf returns the address of V buffer (i + d) mod 2.
	vbufOf := func(i GPVirtual, d int) GPVirtual {
		s := GP64()
		LEAQ(Mem{Base: i}.Offset(d), s)
		ANDQ(Imm(1), s)
		IMUL3Q(U32(3*vB), s, s)
		ADDQ(Load(Param("ring"), GP64()), s)
		ADDQ(U32(vbufOff), s)
		return s
	}
	// outRow returns the address of output row i + d of band b.
	outRow := func(b string, i GPVirtual, d int) GPVirtual {
		out := GP64()
		Load(Param("cw"), out)
		r := GP64()
		LEAQ(Mem{Base: i}.Offset(d), r)
		IMULQ(r, out)
		SHLQ(Imm(3), out)
		ADDQ(Load(Param(b).Base(), GP64()), out)
		return out
	}
	nvBytes := func() GPVirtual {
		n := Load(Param("nv"), GP64()).(GPVirtual)
		SHLQ(Imm(5), n)
		return n
	}
	// b0Vec stores band 0's output vector at o from the V buffer vb:
	// ((V1[c+4] − V1[c+2]) + (V2[c+5] − V2[c+1])) + (V3[c+6] − V3[c]).
	b0Vec := func(vb, out, o GPVirtual) {
		v := func(l, j int) Mem { return Mem{Base: vb}.Offset(vB*(l-1)).Idx(o, 1).Offset(8 * j) }
		r := func(l, j int) VecVirtual { y := YMM(); VMOVUPD(v(l, j), y); return y }
		acc := sub(r(1, 4), v(1, 2))
		acc = add(acc, sub(r(2, 5), v(2, 1)))
		acc = add(acc, sub(r(3, 6), v(3, 0)))
		st(acc, Mem{Base: out}, o, 0)
	}

	i := GP64() // the step
	XORQ(i, i)
	Label("bandStrip_step")

	// H_1…3 of padded row i, with band 3's row i − 6 from i = 6 on.
	lim := Load(Param("ch"), GP64())
	ADDQ(Imm(6), lim)
	CMPQ(i, lim)
	JAE(LabelRef("bandStrip_noh"))
	for _, with3 := range []bool{false, true} {
		name := "bandStrip_h"
		if with3 {
			name = "bandStrip_h3"
			Label(name)
		} else {
			CMPQ(i, Imm(6))
			JAE(LabelRef("bandStrip_h3"))
		}
		tp = Mem{Base: Load(Param("t"), GP64())}
		x := GP64()
		Load(Param("pw"), x)
		IMULQ(i, x)
		SHLQ(Imm(3), x)
		ADDQ(Load(Param("xp").Base(), GP64()), x)
		// The padded row bandPrefetchRows ahead, fetched into the L1
		// cache while this one is filtered (this pass is its first
		// reader: the sweep goes down the strip a row per step).
		pf := Load(Param("pw"), GP64())
		IMUL3Q(U32(8*bandPrefetchRows), pf, pf)
		ADDQ(x, pf)
		hs := slotOf(i, 0)
		var sl [6]GPVirtual
		var out GPVirtual
		if with3 { // the slots of padded rows i−6 … i−1
			for k := range sl {
				if k != 3 {
					sl[k] = slotOf(i, k-6)
				}
			}
			out = outRow("b3", i, -6)
		}
		n := nvBytes()
		ht := regTaps(12)
		o := GP64()
		XORQ(o, o)
		Label(name + "_loop")
		xm := Mem{Base: x}
		PREFETCHT0(Mem{Base: pf, Index: o, Scale: 1})
		h := filt3(ld(xm, o, 3), func(l int) VecVirtual { return add(ld(xm, o, 3-l), xm.Idx(o, 1).Offset(8*(3+l))) }, &ht)
		for k := range 3 {
			st(h[k], Mem{Base: hs}.Offset(hB*k), o, 0)
		}
		if with3 {
			hk := func(row, k int) Mem { return Mem{Base: sl[row]}.Offset(hB*k).Idx(o, 1) }
			r := func(row, k int) VecVirtual { y := YMM(); VMOVUPD(hk(row, k), y); return y }
			acc := sub(r(4, 0), hk(2, 0))
			acc = add(acc, sub(r(5, 1), hk(1, 1)))
			acc = add(acc, sub(h[2], hk(0, 2)))
			st(acc, Mem{Base: out}, o, 0)
		}
		ADDQ(Imm(32), o)
		CMPQ(o, n)
		JB(LabelRef(name + "_loop"))
		if !with3 {
			JMP(LabelRef("bandStrip_noh"))
		}
	}
	Label("bandStrip_noh")

	// V_1…3 of output row r = i − 6, with band 0's row r − 1 from r = 1
	// on; band 0's last row alone at i = ch + 6.
	CMPQ(i, Imm(6))
	JB(LabelRef("bandStrip_next"))
	lim = Load(Param("ch"), GP64())
	ADDQ(Imm(6), lim)
	CMPQ(i, lim)
	JAE(LabelRef("bandStrip_last"))
	for _, with0 := range []bool{false, true} {
		name := "bandStrip_v"
		if with0 {
			name = "bandStrip_v0"
			Label(name)
		} else {
			CMPQ(i, Imm(7))
			JAE(LabelRef("bandStrip_v0"))
		}
		tp = Mem{Base: Load(Param("t"), GP64())}
		pwB := Load(Param("pw"), GP64())
		SHLQ(Imm(3), pwB)
		pw3 := GP64()
		LEAQ(Mem{Base: pwB, Index: pwB, Scale: 2}, pw3)
		xr := GP64() // padded row r
		LEAQ(Mem{Base: i}.Offset(-6), xr)
		IMULQ(pwB, xr)
		ADDQ(Load(Param("xp").Base(), GP64()), xr)
		vb := vbufOf(i, -6)
		var pb, out GPVirtual
		if with0 {
			pb = vbufOf(i, -7)
			out = outRow("b0", i, -7)
		}
		n := nvBytes()
		vt := regTaps(0)
		o := GP64()
		XORQ(o, o)
		body := func(o GPVirtual) {
			a, b, c := GP64(), GP64(), GP64()
			LEAQ(Mem{Base: xr, Index: o, Scale: 1}, a)
			LEAQ(Mem{Base: a, Index: pw3, Scale: 1}, b)
			LEAQ(Mem{Base: b, Index: pw3, Scale: 1}, c)
			rows := [7]Mem{
				{Base: a}, {Base: a, Index: pwB, Scale: 1}, {Base: a, Index: pwB, Scale: 2},
				{Base: b}, {Base: b, Index: pwB, Scale: 1}, {Base: b, Index: pwB, Scale: 2},
				{Base: c},
			}
			row := func(m Mem) VecVirtual { y := YMM(); VMOVUPD(m, y); return y }
			v := filt3(row(rows[3]), func(k int) VecVirtual { return add(row(rows[3-k]), rows[3+k]) }, &vt)
			for l := range 3 {
				st(v[l], Mem{Base: vb}.Offset(vB*l), o, 0)
			}
		}
		Label(name + "_loop")
		body(o)
		if with0 {
			b0Vec(pb, out, o)
		}
		ADDQ(Imm(32), o)
		CMPQ(o, n)
		JB(LabelRef(name + "_loop"))
		// Vector nv, then the last 4 of the 4·nv + 6 columns.
		body(o)
		ADDQ(Imm(16), o)
		body(o)
		JMP(LabelRef("bandStrip_next"))
	}
	Label("bandStrip_last")
	{
		vb := vbufOf(i, -7)
		out := outRow("b0", i, -7)
		n := nvBytes()
		o := GP64()
		XORQ(o, o)
		Label("bandStrip_b0_loop")
		b0Vec(vb, out, o)
		ADDQ(Imm(32), o)
		CMPQ(o, n)
		JB(LabelRef("bandStrip_b0_loop"))
	}
	Label("bandStrip_next")
	INCQ(i)
	lim = Load(Param("ch"), GP64())
	ADDQ(Imm(6), lim)
	CMPQ(i, lim)
	JBE(LabelRef("bandStrip_step"))
	VZEROUPPER()
	RET()
}

// lowpass: the de-interleaving of splitPadRow (the centre row).
func lowpass() {
	TEXT("splitEvenOddAsm", NOSPLIT, "func(e, o, s []float64)")
	Pragma("noescape")
	Doc("splitEvenOddAsm writes s[2k] into e[k] and s[2k+1] into o[k] for k < len(e),",
		"a multiple of 4.")
	e, od, s := base("e"), base("o"), base("s")
	n := count("e", true)
	loop("splitEvenOdd", n, 4, func(o GPVirtual) {
		// s is read at twice the offset: o2 = 2·o.
		o2 := GP64()
		LEAQ(Mem{Base: o, Index: o, Scale: 1}, o2)
		a, b := ld(s, o2, 0), ld(s, o2, 4)
		lo, hi := YMM(), YMM()
		VPERM2F128(Imm(0x20), b, a, lo) // s0 s1 s4 s5
		VPERM2F128(Imm(0x31), b, a, hi) // s2 s3 s6 s7
		ev, ov := YMM(), YMM()
		VUNPCKLPD(hi, lo, ev) // s0 s2 s4 s6
		VUNPCKHPD(hi, lo, ov) // s1 s3 s5 s7
		st(ev, e, o, 0)
		st(ov, od, o, 0)
	})

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

// lo0Row: one output row of lo0FilterAVX.
func lo0Row() {
	TEXT("lo0RowAsm", NOSPLIT, "func(out, t []float64, pw int, k *[9]float64)")
	Pragma("noescape")
	Doc("lo0RowAsm writes one output row of lo0filt: out[c] is the sum, in the order",
		"i = 0, 1, 2, of accSym5Go's expression on the row t[i·pw:] with the taps",
		"k[3i … 3i+2] (the padded centre row, then the two vertically folded row",
		"pairs). len(out) ≥ 4; the ragged end is the last 4 outputs once more.")
	out, t, kp := base("out"), base("t"), ptr("k")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	var rows [3]Mem
	rows[0] = t
	for i := 1; i < 3; i++ {
		rows[i] = Mem{Base: GP64()}
		LEAQ(Mem{Base: rows[i-1].Base, Index: pwB, Scale: 1}, rows[i].Base)
	}
	var k [9]VecVirtual
	for i := range k {
		k[i] = bcast(kp.Offset(8 * i))
	}
	n := count("out", true)
	SHLQ(Imm(3), n)
	body := func(o GPVirtual) {
		var acc VecVirtual
		for i, x := range rows {
			s := mul(k[3*i], ld(x, o, 2))
			s = add(s, mul(k[3*i+1], add(ld(x, o, 1), ld(x, o, 3))))
			s = add(s, mul(k[3*i+2], add(ld(x, o, 0), ld(x, o, 4))))
			if i == 0 {
				acc = s
			} else {
				acc = add(acc, s)
			}
		}
		st(acc, out, o, 0)
	}
	o := GP64()
	XORQ(o, o)
	n4 := GP64()
	MOVQ(n, n4)
	ANDQ(I32(-32), n4)
	Label("lo0Row_loop")
	CMPQ(o, n4)
	JAE(LabelRef("lo0Row_tail"))
	body(o)
	ADDQ(Imm(32), o)
	JMP(LabelRef("lo0Row_loop"))
	Label("lo0Row_tail")
	lastVector("lo0Row", n, body)
	VZEROUPPER()
	RET()
}

// lowRow: one output row of lowpassDownAVX.
func lowRow() {
	TEXT("lowRowAsm", NOSPLIT, "func(out, t []float64, pw, ne int, k *[100]float64)")
	Pragma("noescape")
	Doc("lowRowAsm writes one output row of the step-2 lowpass: out[c] is the sum, in",
		"the order i = 0 … 4, of accSym9Step2's expression on the de-interleaved row",
		"t[i·pw:] (even samples, then from ne the odd ones) with the taps k[20i …",
		"20i+19] (5 taps, each broadcast to 4 lanes): the padded centre row, then the",
		"four vertically folded row pairs. len(out) ≥ 4; the ragged end is the last 4",
		"outputs once more.")
	out, t, kp := base("out"), base("t"), ptr("k")
	pwB := count("pw", false)
	SHLQ(Imm(3), pwB)
	neB := count("ne", false)
	SHLQ(Imm(3), neB)
	var rows [5]Mem
	rows[0] = t
	for i := 1; i < 5; i++ {
		rows[i] = Mem{Base: GP64()}
		LEAQ(Mem{Base: rows[i-1].Base, Index: pwB, Scale: 1}, rows[i].Base)
	}
	n := count("out", true)
	SHLQ(Imm(3), n)
	tap := func(i int) Mem { return kp.Offset(32 * i) }
	// body computes nv output vectors from offset o, row by row,
	// each row's 5 taps loaded once for all of them.
	body := func(o GPVirtual, nv int) {
		oo := GP64() // the odd samples' offset
		LEAQ(Mem{Base: o, Index: neB, Scale: 1}, oo)
		acc := make([]VecVirtual, nv)
		for i, x := range rows {
			var T [5]VecVirtual
			for m := range T {
				T[m] = YMM()
				VMOVUPD(tap(5*i+m), T[m])
			}
			for v := range nv {
				E := func(j int) VecVirtual { return ld(x, o, 4*v+j) }
				O := func(j int) VecVirtual { return ld(x, oo, 4*v+j) }
				s := mul(E(2), T[0])
				s = add(s, mul(add(O(1), O(2)), T[1]))
				s = add(s, mul(add(E(1), E(3)), T[2]))
				s = add(s, mul(add(O(0), O(3)), T[3]))
				s = add(s, mul(add(E(0), E(4)), T[4]))
				if i == 0 {
					acc[v] = s
				} else {
					acc[v] = add(acc[v], s)
				}
			}
		}
		for v := range nv {
			st(acc[v], out, o, 4*v)
		}
	}
	o := GP64()
	XORQ(o, o)
	vectors("lowRow", o, n, lowRowVectors, body)
	Label("lowRow_tail")
	lastVector("lowRow", n, func(o GPVirtual) { body(o, 1) })
	VZEROUPPER()
	RET()
}

// foldSplit: the vertical fold and de-interleaving of lowpassDownAVX.
func foldSplit() {
	TEXT("foldSplitAsm", NOSPLIT, "func(e, o, a, b []float64)")
	Pragma("noescape")
	Doc("foldSplitAsm writes a[2k] + b[2k] into e[k] and a[2k+1] + b[2k+1] into o[k]",
		"for k < len(e), a multiple of 4.")
	e, od, a, b := base("e"), base("o"), base("a"), base("b")
	n := count("e", true)
	loop("foldSplit", n, 4, func(o GPVirtual) {
		o2 := GP64()
		LEAQ(Mem{Base: o, Index: o, Scale: 1}, o2)
		x := add(ld(a, o2, 0), ld(b, o2, 0)) // s0 s1 s2 s3
		y := add(ld(a, o2, 4), ld(b, o2, 4)) // s4 s5 s6 s7
		lo, hi := YMM(), YMM()
		VPERM2F128(Imm(0x20), y, x, lo) // s0 s1 s4 s5
		VPERM2F128(Imm(0x31), y, x, hi) // s2 s3 s6 s7
		ev, ov := YMM(), YMM()
		VUNPCKLPD(hi, lo, ev) // s0 s2 s4 s6
		VUNPCKHPD(hi, lo, ov) // s1 s3 s5 s7
		st(ev, e, o, 0)
		st(ov, od, o, 0)
	})
}

// lowRowVectors is the number of output vectors lowRowAsm computes per
// iteration, sharing the loads of the taps.
const lowRowVectors = 3

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
