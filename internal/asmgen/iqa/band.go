package main

// The pyramid's band kernel: the band 0/3 strip sweep (bandStripAsm);
// lo0filt and the lowpass are in lowpass.go.

import (
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
