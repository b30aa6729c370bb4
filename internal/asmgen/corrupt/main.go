// Command corrupt writes the AVX2 assembly kernels of package corrupt
// (corrupt/filter_amd64.s) and their Go declarations
// (corrupt/filter_amd64_decl.go) with avo (github.com/mmcloughlin/avo).
// Regenerate with
//
//	go generate ./corrupt
//
// (see the go:generate line in corrupt/filter_amd64.go), which runs
//
//	go -C internal/asmgen run ./corrupt -out ../../corrupt/filter_amd64.s -stubs ../../corrupt/filter_amd64_decl.go -pkg corrupt
//
// and commit both generated files.
//
// Every routine is the vector loop of one pure-Go kernel of package corrupt
// (filter.go, noise.go, blur.go, fog.go), eight float32 outputs per 256-bit vector, four
// vectors per block where the kernel has a tap loop (to hide the add
// latency), then single vectors. Each lane performs the same float32
// operations on the same operands in the same order as the scalar code,
// with separate multiplies and adds (no fused multiply-add), so the results
// are bit-identical; the random draws (zigNormalsAsm, glassOffsAsm) are
// wyrand's 64-bit integer arithmetic lane by lane. The routines handle only
// whole vectors (len(out) a multiple of 8), except combineRowsSymAsm,
// combineRowsGenAsm, combineRowsSym2Asm and its clamping variant, which end
// with one vector overlapping the one before;
// the Go callers (corrupt/filter_amd64.go) do the rest.
// Every routine ends with VZEROUPPER.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	corrRow()
	combineRows()
	onef32 = ConstData("onef32", F32(1))
	combineOff("combineOffAsm", false)
	combineOff("combineOffClampAsm", true)
	combineRowsSym2("combineRowsSym2Asm", false)
	combineRowsSym2("combineRowsSym2ClampAsm", true)
	clampPlane()
	addRows()
	noiseMix()
	incs := wyIncs()
	zigNormals(incs)
	glassOffs(incs)
	diskRows()
	glassQuantize()
	fog()
	frost()
	hsv("hsvBrightnessAsm")
	hsv("hsvSaturateAsm")
	Generate()
}

func base(name string) Mem { return Mem{Base: Load(Param(name).Base(), GP64())} }

func ptr(name string) Mem { return Mem{Base: Load(Param(name), GP64())} }

func length(name string) GPVirtual { return Load(Param(name).Len(), GP64()).(GPVirtual) }

func add(a, b Op) VecVirtual { d := YMM(); VADDPS(b, a, d); return d } // a + b
func sub(a, b Op) VecVirtual { d := YMM(); VSUBPS(b, a, d); return d } // a − b
func mul(a, b Op) VecVirtual { d := YMM(); VMULPS(b, a, d); return d } // a · b

func bcast(m Mem) VecVirtual { y := YMM(); VBROADCASTSS(m, y); return y }

// blocks emits the loops over the outputs: off (a byte offset) runs over
// blocks of 4 vectors (32 outputs) while they fit in n outputs, then over
// single vectors; body(off, w) emits the code for w vectors at off. n must
// be a multiple of 8; it is clobbered.
func blocks(name string, n GPVirtual, body func(off GPVirtual, w int)) {
	blocksW(name, n, []int{4, 1}, body)
}

// blocksW is blocks with the block widths ws (in vectors, decreasing, the
// last 1): each width runs while its blocks fit, then the next.
// The filter kernels use 8-vector blocks: eight independent sums hide the
// latency of the dependent additions (two add pipes, 3 cycles each on Zen).
func blocksW(name string, n GPVirtual, ws []int, body func(off GPVirtual, w int)) {
	blocksWTail(name, n, ws, false, body)
}

// blocksWTail is blocksW; with tail, n need not be a multiple of 8: when
// n ≥ 8 and outputs remain after the whole vectors, one more single vector
// at n − 8 computes the last 8 outputs (its first ones a second time, with
// the same operations), so the caller needs no tail of its own; n < 8 does
// nothing.
func blocksWTail(name string, n GPVirtual, ws []int, tail bool, body func(off GPVirtual, w int)) {
	off := GP64()
	XORQ(off, off)
	SHLQ(Imm(2), n)
	end := GP64()
	for i, w := range ws {
		lbl := fmt.Sprintf("%s_loop%d", name, w)
		next := name + "_done"
		if i+1 < len(ws) {
			next = fmt.Sprintf("%s_loop%d", name, ws[i+1])
		} else if tail {
			next = name + "_tail"
		}
		Label(lbl)
		MOVQ(off, end)
		ADDQ(U32(32*w), end)
		CMPQ(end, n)
		JA(LabelRef(next))
		body(off, w)
		ADDQ(U32(32*w), off)
		JMP(LabelRef(lbl))
	}
	if tail {
		if ws[len(ws)-1] != 1 {
			panic("blocksWTail: the last width must be 1")
		}
		Label(name + "_tail")
		CMPQ(off, n)
		JAE(LabelRef(name + "_done")) // no outputs left
		CMPQ(n, U8(32))
		JB(LabelRef(name + "_done")) // fewer than 8 outputs in all
		MOVQ(n, off)
		SUBQ(U8(32), off)
		JMP(LabelRef(name + "_loop1")) // one vector at n − 8, then off = n
	}
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// corrRow: corrRowGo's two paths.
func corrRow() {
	TEXT("corrRowSymAsm", NOSPLIT, "func(out, pad, k []float32)")
	Pragma("noescape")
	Doc("corrRowSymAsm is corrRowGo for an odd symmetric kernel k (n = 2r+1 taps)",
		"and len(out), a multiple of 8, outputs: s = k[r]·p[r], then",
		"s += k[r+i]·(p[r−i] + p[r+i]) for i = 1…r, p = pad[x:].")
	{
		out, pad, k := base("out"), base("pad"), base("k")
		r := length("k")
		SHRQ(Imm(1), r)
		mid := GP64() // &k[r]
		LEAQ(k.Idx(r, 4), mid)
		SHLQ(Imm(2), r) // r in bytes from here on
		n := length("out")
		blocksW("corrRowSym", n, []int{8, 4, 1}, func(off GPVirtual, w int) {
			px := GP64() // &pad[x + r]
			LEAQ(pad.Idx(off, 1), px)
			ADDQ(r, px)
			c := bcast(Mem{Base: mid})
			s := make([]VecVirtual, w)
			for j := range s {
				s[j] = mul(c, Mem{Base: px, Disp: 32 * j})
			}
			lo, hi, kp, end := GP64(), GP64(), GP64(), GP64()
			MOVQ(px, lo)
			MOVQ(px, hi)
			MOVQ(mid, kp)
			MOVQ(mid, end)
			ADDQ(r, end) // &k[2r]
			lbl := "corrRowSym_taps" + fmt.Sprint(w)
			Label(lbl)
			CMPQ(kp, end)
			JAE(LabelRef(lbl + "_done"))
			ADDQ(Imm(4), kp)
			SUBQ(Imm(4), lo)
			ADDQ(Imm(4), hi)
			v := bcast(Mem{Base: kp})
			for j := range s {
				t := YMM()
				VMOVUPS(Mem{Base: lo, Disp: 32 * j}, t)
				VADDPS(mul(v, add(t, Mem{Base: hi, Disp: 32 * j})), s[j], s[j])
			}
			JMP(LabelRef(lbl))
			Label(lbl + "_done")
			for j := range s {
				VMOVUPS(s[j], out.Idx(off, 1).Offset(32*j))
			}
		})
	}

	TEXT("corrRowGenAsm", NOSPLIT, "func(out, pad, k []float32)")
	Pragma("noescape")
	Doc("corrRowGenAsm is corrRowGo's general path for len(out), a multiple of 8,",
		"outputs: s = 0, then s += k[i]·p[i] for i = 0…len(k)−1, p = pad[x:].")
	{
		out, pad, k := base("out"), base("pad"), base("k")
		nk := length("k")
		kend := GP64()
		LEAQ(k.Idx(nk, 4), kend)
		n := length("out")
		blocksW("corrRowGen", n, []int{8, 4, 1}, func(off GPVirtual, w int) {
			px, kp := GP64(), GP64()
			LEAQ(pad.Idx(off, 1), px)
			MOVQ(k.Base, kp)
			s := make([]VecVirtual, w)
			for j := range s {
				s[j] = YMM()
				VXORPS(s[j], s[j], s[j])
			}
			lbl := "corrRowGen_taps" + fmt.Sprint(w)
			Label(lbl)
			CMPQ(kp, kend)
			JAE(LabelRef(lbl + "_done"))
			v := bcast(Mem{Base: kp})
			for j := range s {
				VADDPS(mul(v, Mem{Base: px, Disp: 32 * j}), s[j], s[j])
			}
			ADDQ(Imm(4), kp)
			ADDQ(Imm(4), px)
			JMP(LabelRef(lbl))
			Label(lbl + "_done")
			for j := range s {
				VMOVUPS(s[j], out.Idx(off, 1).Offset(32*j))
			}
		})
	}
}

// combineRows: combineRowsGo's two paths.
func combineRows() {
	TEXT("combineRowsSymAsm", NOSPLIT, "func(out []float32, rows [][]float32, wts []float32)")
	Pragma("noescape")
	Doc("combineRowsSymAsm is combineRowsSymGo (odd symmetric wts, n = 2r+1) for",
		"len(out) ≥ 8 outputs (fewer: nothing is done; the last 8 a vector of their",
		"own, overlapping the one before): s = wts[r]·rows[r][x], then",
		"s += wts[k]·(rows[k][x] + rows[n−1−k][x]) for k = 0…r−1.")
	{
		out, rows, wts := base("out"), base("rows"), base("wts")
		r := length("wts")
		SHRQ(Imm(1), r)
		// mid = &wts[r]; midRow = rows[r].base; last = &rows[2r] header.
		mid, midRow, last := GP64(), GP64(), GP64()
		LEAQ(wts.Idx(r, 4), mid)
		hdr := GP64()
		MOVQ(r, hdr)
		IMUL3Q(Imm(24), hdr, hdr)
		ADDQ(rows.Base, hdr)
		MOVQ(Mem{Base: hdr}, midRow)
		LEAQ(Mem{Base: hdr, Index: hdr, Scale: 1}, last)
		SUBQ(rows.Base, last) // rows + 48r = &rows[2r]
		n := length("out")
		blocksWTail("combineRowsSym", n, []int{8, 4, 1}, true, func(off GPVirtual, w int) {
			c := bcast(Mem{Base: mid})
			s := make([]VecVirtual, w)
			for j := range s {
				s[j] = mul(c, Mem{Base: midRow, Index: off, Scale: 1, Disp: 32 * j})
			}
			lo, hi, kp := GP64(), GP64(), GP64() // &rows[k], &rows[n−1−k], &wts[k]
			MOVQ(rows.Base, lo)
			MOVQ(last, hi)
			MOVQ(wts.Base, kp)
			lbl := "combineRowsSym_k" + fmt.Sprint(w)
			Label(lbl)
			CMPQ(kp, mid)
			JAE(LabelRef(lbl + "_done"))
			v := bcast(Mem{Base: kp})
			a, b := GP64(), GP64()
			MOVQ(Mem{Base: lo}, a)
			MOVQ(Mem{Base: hi}, b)
			for j := range s {
				t := YMM()
				VMOVUPS(Mem{Base: a, Index: off, Scale: 1, Disp: 32 * j}, t)
				VADDPS(mul(v, add(t, Mem{Base: b, Index: off, Scale: 1, Disp: 32 * j})), s[j], s[j])
			}
			ADDQ(Imm(4), kp)
			ADDQ(Imm(24), lo)
			SUBQ(Imm(24), hi)
			JMP(LabelRef(lbl))
			Label(lbl + "_done")
			for j := range s {
				VMOVUPS(s[j], out.Idx(off, 1).Offset(32*j))
			}
		})
	}

	TEXT("combineRowsGenAsm", NOSPLIT, "func(out []float32, rows [][]float32, wts []float32)")
	Pragma("noescape")
	Doc("combineRowsGenAsm is combineRowsGo's general path for len(out) ≥ 8",
		"outputs (as combineRowsSymAsm): s = 0, then s += wts[k]·rows[k][x] for",
		"k = 0…len(wts)−1.")
	{
		out, rows, wts := base("out"), base("rows"), base("wts")
		nk := length("wts")
		kend := GP64()
		LEAQ(wts.Idx(nk, 4), kend)
		n := length("out")
		blocksWTail("combineRowsGen", n, []int{8, 4, 1}, true, func(off GPVirtual, w int) {
			s := make([]VecVirtual, w)
			for j := range s {
				s[j] = YMM()
				VXORPS(s[j], s[j], s[j])
			}
			hdr, kp := GP64(), GP64()
			MOVQ(rows.Base, hdr)
			MOVQ(wts.Base, kp)
			lbl := "combineRowsGen_k" + fmt.Sprint(w)
			Label(lbl)
			CMPQ(kp, kend)
			JAE(LabelRef(lbl + "_done"))
			v := bcast(Mem{Base: kp})
			a := GP64()
			MOVQ(Mem{Base: hdr}, a)
			for j := range s {
				VADDPS(mul(v, Mem{Base: a, Index: off, Scale: 1, Disp: 32 * j}), s[j], s[j])
			}
			ADDQ(Imm(4), kp)
			ADDQ(Imm(24), hdr)
			JMP(LabelRef(lbl))
			Label(lbl + "_done")
			for j := range s {
				VMOVUPS(s[j], out.Idx(off, 1).Offset(32*j))
			}
		})
	}
}

// combineRowsSym2: two output rows of a symmetric column filter that load
// every input row once for both.
// With clamp the sums are clipped as clampPlaneAsm does before the store.
func combineRowsSym2(name string, clamp bool) {
	TEXT(name, NOSPLIT, "func(out0, out1 []float32, rows [][]float32, wts []float32)")
	Pragma("noescape")
	if clamp {
		Doc(name + " is combineRowsSym2Asm followed by clampPlaneAsm on both outputs.")
	} else {
		Doc(name+" is combineRowsSymAsm for two output rows: out0 from",
			"rows[0…n−1] and out1 from rows[1…n] (odd symmetric wts, n = 2r+1, len(rows)",
			"= n+1), len(out0) = len(out1) ≥ 8 (or nothing is done); the last 8 outputs",
			"are a vector of their own where len(out0) is not a multiple of 8 (computed",
			"twice where it overlaps the one before, with the same operations). Step k adds",
			"wts[k]·(rows[k] + rows[n−1−k]) to out0 and wts[k]·(rows[k+1] + rows[n−k]) to",
			"out1: rows[k+1] and rows[n−1−k], loaded for step k, are out0's and out1's",
			"rows of step k+1, so each row is loaded once for both outputs.")
	}
	{
		out0, out1, rows, wts := base("out0"), base("out1"), base("rows"), base("wts")
		r := length("wts")
		SHRQ(Imm(1), r)
		c := bcast(wts.Idx(r, 4)) // wts[r]
		// midHdr = &rows[r], last = &rows[2r] (slice headers, 24 bytes).
		midHdr, last := GP64(), GP64()
		MOVQ(r, midHdr)
		IMUL3Q(Imm(24), midHdr, midHdr)
		LEAQ(Mem{Base: midHdr, Index: midHdr, Scale: 1}, last)
		ADDQ(rows.Base, midHdr)
		ADDQ(rows.Base, last)
		n := length("out0")
		blocksWTail(name, n, []int{2, 1}, true, func(off GPVirtual, w int) {
			a, b := GP64(), GP64()
			MOVQ(Mem{Base: midHdr}, a)           // rows[r]
			MOVQ(Mem{Base: midHdr, Disp: 24}, b) // rows[r+1]
			s0, s1 := make([]VecVirtual, w), make([]VecVirtual, w)
			for j := range w {
				s0[j] = mul(c, Mem{Base: a, Index: off, Scale: 1, Disp: 32 * j})
				s1[j] = mul(c, Mem{Base: b, Index: off, Scale: 1, Disp: 32 * j})
			}
			MOVQ(Mem{Base: rows.Base}, a)      // rows[0]
			MOVQ(Mem{Base: last, Disp: 24}, b) // rows[n]
			L, H := make([]VecVirtual, w), make([]VecVirtual, w)
			for j := range w {
				L[j], H[j] = YMM(), YMM()
				VMOVUPS(Mem{Base: a, Index: off, Scale: 1, Disp: 32 * j}, L[j])
				VMOVUPS(Mem{Base: b, Index: off, Scale: 1, Disp: 32 * j}, H[j])
			}
			lo, hi, kp := GP64(), GP64(), GP64() // &rows[k], &rows[n−1−k], &wts[k]
			MOVQ(rows.Base, lo)
			MOVQ(last, hi)
			MOVQ(wts.Base, kp)
			lbl := name + "_k" + fmt.Sprint(w)
			Label(lbl)
			CMPQ(lo, midHdr)
			JAE(LabelRef(lbl + "_done"))
			v := bcast(Mem{Base: kp})
			MOVQ(Mem{Base: hi}, a)           // rows[n−1−k]
			MOVQ(Mem{Base: lo, Disp: 24}, b) // rows[k+1]
			for j := range w {
				A, B := YMM(), YMM()
				VMOVUPS(Mem{Base: a, Index: off, Scale: 1, Disp: 32 * j}, A)
				VMOVUPS(Mem{Base: b, Index: off, Scale: 1, Disp: 32 * j}, B)
				VADDPS(mul(v, add(L[j], A)), s0[j], s0[j])
				VADDPS(mul(v, add(B, H[j])), s1[j], s1[j])
				VMOVAPS(B, L[j])
				VMOVAPS(A, H[j])
			}
			ADDQ(Imm(4), kp)
			ADDQ(Imm(24), lo)
			SUBQ(Imm(24), hi)
			JMP(LabelRef(lbl))
			Label(lbl + "_done")
			if clamp {
				clampVecs(append(s0, s1...))
			}
			for j := range w {
				VMOVUPS(s0[j], out0.Idx(off, 1).Offset(32*j))
				VMOVUPS(s1[j], out1.Idx(off, 1).Offset(32*j))
			}
		})
	}
}

// combineOff: combineRowsGo's general path with the rows given as offsets
// into one padded plane (sparseCorr).
// With clamp the sums are clipped as clampPlaneAsm does before the store.
func combineOff(name string, clamp bool) {
	TEXT(name, NOSPLIT, "func(out, base []float32, offs []int, wts []float32)")
	Pragma("noescape")
	if clamp {
		Doc(name + " is combineOffAsm followed by clampPlaneAsm on the outputs.")
	} else {
		Doc(name+" is combineRowsGenAsm with rows[k] = base[offs[k]:]: for",
			"len(out), a multiple of 8, outputs s = 0, then s += wts[k]·base[offs[k]+x]",
			"for k = 0…len(wts)−1. len(offs) must be len(wts) and every offs[k]+len(out)",
			"at most len(base).")
	}
	{
		out, bp, offs, wts := base("out"), base("base"), base("offs"), base("wts")
		nk := length("wts")
		kend := GP64()
		LEAQ(wts.Idx(nk, 4), kend)
		n := length("out")
		blocksW(name, n, []int{8, 4, 1}, func(off GPVirtual, w int) {
			s := make([]VecVirtual, w)
			for j := range s {
				s[j] = YMM()
				VXORPS(s[j], s[j], s[j])
			}
			op, kp := GP64(), GP64()
			MOVQ(offs.Base, op)
			MOVQ(wts.Base, kp)
			lbl := name + "_k" + fmt.Sprint(w)
			Label(lbl)
			CMPQ(kp, kend)
			JAE(LabelRef(lbl + "_done"))
			v := bcast(Mem{Base: kp})
			a := GP64()
			MOVQ(Mem{Base: op}, a)
			LEAQ(Mem{Base: bp.Base, Index: a, Scale: 4}, a)
			for j := range s {
				VADDPS(mul(v, Mem{Base: a, Index: off, Scale: 1, Disp: 32 * j}), s[j], s[j])
			}
			ADDQ(Imm(4), kp)
			ADDQ(Imm(8), op)
			JMP(LabelRef(lbl))
			Label(lbl + "_done")
			if clamp {
				clampVecs(s)
			}
			for j := range s {
				VMOVUPS(s[j], out.Idx(off, 1).Offset(32*j))
			}
		})
	}
}

// clampPlane: clampPlaneGo.
// onef32 is the float32 1 of the clamps.
var onef32 Mem

// clampVecs clips the vectors as clampPlaneAsm does: lanes not above 0 (NaN
// included) become +0, lanes above 1 become 1.
func clampVecs(s []VecVirtual) {
	o, z := bcast(onef32), YMM()
	VXORPS(z, z, z)
	for _, v := range s {
		pos := YMM()
		VCMPPS(Imm(0x01), v, z, pos) // 0 < v, false for NaN
		VANDPS(v, pos, v)
		gt := YMM()
		VCMPPS(Imm(0x01), v, o, gt) // 1 < v
		VBLENDVPS(gt, o, v, v)
	}
}

func clampPlane() {
	one := onef32
	TEXT("clampPlaneAsm", NOSPLIT, "func(p []float32)")
	Pragma("noescape")
	Doc("clampPlaneAsm is clampPlaneGo for len(p), a multiple of 8, samples: lanes",
		"not above 0 (NaN included) become +0, lanes above 1 become 1.")
	p := base("p")
	n := length("p")
	o := bcast(one)
	z := YMM()
	VXORPS(z, z, z)
	blocks("clampPlane", n, func(off GPVirtual, w int) {
		for j := 0; j < w; j++ {
			m := p.Idx(off, 1).Offset(32 * j)
			v := YMM()
			VMOVUPS(m, v)
			pos := YMM()
			VCMPPS(Imm(0x01), v, z, pos) // 0 < v, false for NaN
			VANDPS(v, pos, v)
			gt := YMM()
			VCMPPS(Imm(0x01), v, o, gt) // 1 < v
			VBLENDVPS(gt, o, v, v)
			VMOVUPS(v, m)
		}
	})
}

// addRows: addRowsGo and addRowGo, defocus blur's fold corrections.
func addRows() {
	TEXT("addRowsAsm", NOSPLIT, "func(out, a, b []float32)")
	Pragma("noescape")
	Doc("addRowsAsm is addRowsGo for len(out), a multiple of 8, samples:",
		"out[x] += a[x] + b[x] (the sum first).")
	o, a, b := base("out"), base("a"), base("b")
	n := length("out")
	blocks("addRows", n, func(off GPVirtual, w int) {
		for j := 0; j < w; j++ {
			v := YMM()
			VMOVUPS(a.Idx(off, 1).Offset(32*j), v)
			VADDPS(b.Idx(off, 1).Offset(32*j), v, v)
			VADDPS(o.Idx(off, 1).Offset(32*j), v, v)
			VMOVUPS(v, o.Idx(off, 1).Offset(32*j))
		}
	})
	TEXT("addRowAsm", NOSPLIT, "func(out, a []float32)")
	Pragma("noescape")
	Doc("addRowAsm is addRowGo for len(out), a multiple of 8, samples: out[x] += a[x].")
	o, a = base("out"), base("a")
	n = length("out")
	blocks("addRow", n, func(off GPVirtual, w int) {
		for j := 0; j < w; j++ {
			v := YMM()
			VMOVUPS(o.Idx(off, 1).Offset(32*j), v)
			VADDPS(a.Idx(off, 1).Offset(32*j), v, v)
			VMOVUPS(v, o.Idx(off, 1).Offset(32*j))
		}
	})
}

// noiseMix: noiseMixGo's three paths.
func noiseMix() {
	for _, variant := range []string{"A", "B", "AB"} {
		name := "noiseMix" + variant + "Asm"
		TEXT(name, NOSPLIT, "func(d, s, z []float32, c *[2]float32)")
		Pragma("noescape")
		Doc(name+" is noiseMixGo for len(d), a multiple of 8, samples "+map[string]string{
			"A":  "with b = 0: clamp(v + a·z)",
			"B":  "with a = 0: clamp(v + v·(b·z))",
			"AB": "with a, b ≠ 0: clamp(v + (a + b·v)·z)",
		}[variant]+", c = (a, b); the clamp works on the",
			"bit patterns as noiseClamp does.")
		d, s, zp, cp := base("d"), base("s"), base("z"), ptr("c")
		va, vb := bcast(cp), bcast(cp.Offset(4))
		one := YMM()
		VPBROADCASTD(ConstData("one"+variant+"bits", U32(0x3f800000)), one)
		n := length("d")
		blocks(name, n, func(off GPVirtual, w int) {
			for j := 0; j < w; j++ {
				v := YMM()
				VMOVUPS(s.Idx(off, 1).Offset(32*j), v)
				z := zp.Idx(off, 1).Offset(32 * j)
				var r VecVirtual
				switch variant {
				case "A":
					r = add(v, mul(va, z))
				case "B":
					r = add(v, mul(v, mul(vb, z)))
				default:
					r = add(v, mul(add(va, mul(vb, v)), z))
				}
				sg := YMM()
				VPSRAD(Imm(31), r, sg)
				VPANDN(r, sg, r) // r &^ sign
				VPMINSD(one, r, r)
				VMOVUPS(r, d.Idx(off, 1).Offset(32*j))
			}
		})
	}
}

// zigNormals: zigFastGo, the ziggurat's fast path with its wyrand draws.
// wyInc4 is four steps of wyrand's state, 4·0xa0761d6478bd642f mod 2⁶⁴.
var wyInc4 = func() uint64 { inc := uint64(0xa0761d6478bd642f); return 4 * inc }()

// wyIncs holds the state steps j·inc, j = 1…4, of wyrand (wyStates).
func wyIncs() Mem {
	incs := GLOBL("wyincs", RODATA|NOPTR)
	for j := range 4 {
		DATA(8*j, U64(uint64(j+1)*0xa0761d6478bd642f))
	}
	return incs
}

func zigNormals(incs Mem) {
	TEXT("zigNormalsAsm", NOSPLIT, "func(z []float32, rej []uint64, st uint64, wk *[256]uint64) int")
	Pragma("noescape")
	Doc("zigNormalsAsm is zigFastGo from k = 0 with nr = 0 for len(z), a multiple of",
		"8, draws (len(rej) ≥ len(z)), eight a step: four wyrand states st + j·inc",
		"(j = 1…4) in 64-bit lanes, their 128-bit products st·(st ^ mix) from four",
		"32×32-bit products, u = hi ^ lo, whose 32-bit halves h are the draws of",
		"z[k], z[k+1] in that order; m = h >> 9 times zigW[h & 255] (gathered; m is",
		"exact in float32), the sign bit h & 256 moved to bit 31; rejected draws",
		"(m ≥ zigK[h & 255]) are queued in rej as index<<32 | h. wk[i] holds zigW[i]'s",
		"bits and zigK[i] << 32 (zigWK). It returns the number queued; the state",
		"after it is st + len(z)/2·inc.")
	zp := base("z")
	rp := base("rej")
	n := length("z")
	stR := Load(Param("st"), GP64())
	wkt := ptr("wk")
	// st + j·inc for j = 1…4 and the step 4·inc (all mod 2⁶⁴).
	const mix = 0xe7037ed1a0b428db
	sv := wyStates(stR, incs)
	step, mixv, lo32, m255, sgn := YMM(), YMM(), YMM(), YMM(), YMM()
	VPBROADCASTQ(ConstData("zigInc4", U64(wyInc4)), step)
	VPBROADCASTQ(ConstData("zigMix", U64(mix)), mixv)
	VPBROADCASTQ(ConstData("zigLo32", U64(0xffffffff)), lo32)
	VPBROADCASTD(ConstData("zigM255", U32(255)), m255)
	VPBROADCASTD(ConstData("zigSign", U32(0x80000000)), sgn)
	loc := AllocLocal(32) // the h of a step with rejections
	nr := GP64()
	XORQ(nr, nr)
	off := GP64()
	XORQ(off, off)
	SHLQ(Imm(2), n)
	Label("zig_loop")
	CMPQ(off, n)
	JAE(LabelRef("zig_done"))
	a := YMM()
	VMOVDQA(sv, a)
	VPADDQ(step, sv, sv)
	h := wyProducts(a, mixv, lo32)
	// The ziggurat's fast path on the eight 32-bit draws h.
	idx, mg := YMM(), YMM()
	VPAND(m255, h, idx)
	VPSRLD(Imm(9), h, mg)
	// wk[i] = zigW[i]'s bits | zigK[i]<<32: two gathers of four 64-bit
	// entries (draws 0–3, 4–7), then the W and K halves sorted out.
	ga, gb, msk := YMM(), YMM(), YMM()
	ihi := XMM()
	VEXTRACTI128(Imm(1), idx, ihi)
	VPXOR(ga, ga, ga)
	VPXOR(gb, gb, gb)
	VPCMPEQD(msk, msk, msk)
	VPGATHERDQ(msk, Mem{Base: wkt.Base, Index: idx.AsX(), Scale: 8}, ga)
	VPCMPEQD(msk, msk, msk)
	VPGATHERDQ(msk, Mem{Base: wkt.Base, Index: ihi, Scale: 8}, gb)
	wv, kv := YMM(), YMM()
	VSHUFPS(Imm(0x88), gb, ga, wv) // W0 W1 W4 W5 | W2 W3 W6 W7
	VPERMQ(Imm(0xd8), wv, wv)
	VSHUFPS(Imm(0xdd), gb, ga, kv)
	VPERMQ(Imm(0xd8), kv, kv)
	f := YMM()
	VCVTDQ2PS(mg, f)
	VMULPS(wv, f, f)
	sb := YMM()
	VPSLLD(Imm(23), h, sb)
	VPAND(sgn, sb, sb)
	VPXOR(sb, f, f)
	VMOVUPS(f, zp.Idx(off, 1))
	// Rejected where !(k > m).
	acc := YMM()
	VPCMPGTD(mg, kv, acc)
	bitsR := GP32()
	VMOVMSKPS(acc, bitsR)
	XORL(U32(0xff), bitsR)
	JNZ(LabelRef("zig_rej"))
	Label("zig_next")
	ADDQ(Imm(32), off)
	JMP(LabelRef("zig_loop"))
	// Queue the rejected lanes in lane order: rej[nr] = (k+j)<<32 | h_j.
	Label("zig_rej")
	VMOVDQU(h, loc)
	Label("zig_rej_loop")
	j := GP32()
	BSFL(bitsR, j)
	e, kk := GP64(), GP64()
	MOVL(Mem{Base: loc.Base, Disp: loc.Disp, Index: j.As64(), Scale: 4}, e.As32())
	MOVQ(off, kk)
	SHRQ(Imm(2), kk)
	ADDQ(j.As64(), kk)
	SHLQ(Imm(32), kk)
	ORQ(kk, e)
	MOVQ(e, rp.Idx(nr, 8))
	INCQ(nr)
	LEAL(Mem{Base: bitsR.As64(), Disp: -1}, j)
	ANDL(j, bitsR)
	JNZ(LabelRef("zig_rej_loop"))
	JMP(LabelRef("zig_next"))
	Label("zig_done")
	Store(nr, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// wyProducts returns wyrand's outputs hi ^ lo of the 128-bit products
// a·(a ^ mix) for the four 64-bit states in a, from four
// 32×32-bit products: with p00 = a0·b0, p01 = a0·b1, p10 = a1·b0,
// p11 = a1·b1 (32-bit halves), mid = (p00 >> 32) + low(p01) + low(p10)
// < 3·2³², lo = low(mid)<<32 | low(p00) and
// hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32). mixv holds mix and
// lo32 2³² − 1 in every 64-bit lane.
func wyProducts(a, mixv, lo32 VecVirtual) VecVirtual {
	b, a1, b1 := YMM(), YMM(), YMM()
	VPXOR(mixv, a, b)
	VPSRLQ(Imm(32), a, a1)
	VPSRLQ(Imm(32), b, b1)
	p00, p01, p10, p11 := YMM(), YMM(), YMM(), YMM()
	VPMULUDQ(b, a, p00)
	VPMULUDQ(b1, a, p01)
	VPMULUDQ(b, a1, p10)
	VPMULUDQ(b1, a1, p11)
	mid, t := YMM(), YMM()
	VPSRLQ(Imm(32), p00, mid)
	VPAND(lo32, p01, t)
	VPADDQ(t, mid, mid)
	VPAND(lo32, p10, t)
	VPADDQ(t, mid, mid)
	hi := YMM()
	VPSRLQ(Imm(32), p01, hi)
	VPADDQ(p11, hi, hi)
	VPSRLQ(Imm(32), p10, t)
	VPADDQ(t, hi, hi)
	VPSRLQ(Imm(32), mid, t)
	VPADDQ(t, hi, hi)
	lo := YMM()
	VPSLLQ(Imm(32), mid, t)
	VPBLENDD(Imm(0xaa), t, p00, lo)
	u := YMM()
	VPXOR(lo, hi, u)
	return u
}

// wyStates loads the states st + j·inc (j = 1…4) of wyrand into a new
// register from the 64-bit argument st and the constants zigincs.
func wyStates(st Register, incs Mem) VecVirtual {
	sv := YMM()
	t := XMM()
	MOVQ(st, t)
	VPBROADCASTQ(t, sv)
	VPADDQ(incs, sv, sv)
	return sv
}

// glassOffs: glassOffsGo, the source offsets of glass blur's copies.
func glassOffs(incs Mem) {
	TEXT("glassOffsAsm", NOSPLIT, "func(offs []int, st uint64, c *[3]uint64)")
	Pragma("noescape")
	Doc("glassOffsAsm is glassOffsGo for len(offs), a multiple of 4, copies, four a",
		"step: the wyrand draws v of states st + j·inc (j = 1, 2, …) as in zigNormalsAsm,",
		"dy = (v >> 32)·n >> 32, dx = low(v)·n >> 32 and offs[j−1] = dy·w + dx + base",
		"(mod 2⁶⁴), with c = (n, w, base); n and w must be below 2³².")
	op := base("offs")
	n := length("offs")
	stR := Load(Param("st"), GP64())
	cp := ptr("c")
	sv := wyStates(stR, incs)
	step, mixv, lo32, nv, wv, bv := YMM(), YMM(), YMM(), YMM(), YMM(), YMM()
	VPBROADCASTQ(ConstData("glassInc4", U64(wyInc4)), step)
	VPBROADCASTQ(ConstData("glassMix", U64(0xe7037ed1a0b428db)), mixv)
	VPBROADCASTQ(ConstData("glassLo32", U64(0xffffffff)), lo32)
	VPBROADCASTQ(cp, nv)
	VPBROADCASTQ(cp.Offset(8), wv)
	VPBROADCASTQ(cp.Offset(16), bv)
	off := GP64()
	XORQ(off, off)
	SHLQ(Imm(3), n)
	Label("glassOffs_loop")
	CMPQ(off, n)
	JAE(LabelRef("glassOffs_done"))
	a := YMM()
	VMOVDQA(sv, a)
	VPADDQ(step, sv, sv)
	v := wyProducts(a, mixv, lo32)
	dy, dx, t := YMM(), YMM(), YMM()
	VPSRLQ(Imm(32), v, t)
	VPMULUDQ(nv, t, dy)
	VPSRLQ(Imm(32), dy, dy)
	VPMULUDQ(nv, v, dx)
	VPSRLQ(Imm(32), dx, dx)
	VPMULUDQ(wv, dy, dy)
	VPADDQ(dx, dy, dy)
	VPADDQ(bv, dy, dy)
	VMOVDQU(dy, op.Idx(off, 1))
	ADDQ(Imm(32), off)
	JMP(LabelRef("glassOffs_loop"))
	Label("glassOffs_done")
	VZEROUPPER()
	RET()
}

// diskRows: diskRowsGo.
func diskRows() {
	TEXT("diskRowsAsm", NOSPLIT, "func(out, S []float32, offs []int)")
	Pragma("noescape")
	Doc("diskRowsAsm is diskRowsGo for len(out), a multiple of 8, outputs, with the",
		"rows' start offsets in S precomputed: offs[0], offs[1] are those of c_hi and",
		"c_lo, then per disk row j = 1…fr those of A_hi, B_hi, A_lo, B_lo. Output x",
		"is s = S[hi+x] − S[lo+x], then s += (S[Ahi+x] + S[Bhi+x]) − (S[Alo+x] + S[Blo+x])",
		"for each j in order.")
	out, S, offs := base("out"), base("S"), base("offs")
	no := length("offs")
	oend := GP64()
	LEAQ(offs.Idx(no, 8), oend)
	n := length("out")
	// row(i) loads the address S + 4·offs[i] (relative to the current
	// offsets pointer op) into a register.
	blocks("diskRows", n, func(off GPVirtual, w int) {
		sx := GP64() // &S[x]
		LEAQ(S.Idx(off, 1), sx)
		row := func(op GPVirtual, i int) Mem {
			r := GP64()
			MOVQ(Mem{Base: op, Disp: 8 * i}, r)
			return Mem{Base: sx, Index: r, Scale: 4}
		}
		op := GP64()
		MOVQ(offs.Base, op)
		s := make([]VecVirtual, w)
		hi, lo := row(op, 0), row(op, 1)
		for j := range s {
			t := YMM()
			VMOVUPS(hi.Offset(32*j), t)
			s[j] = sub(t, lo.Offset(32*j))
		}
		ADDQ(Imm(16), op)
		lbl := "diskRows_j" + fmt.Sprint(w)
		Label(lbl)
		CMPQ(op, oend)
		JAE(LabelRef(lbl + "_done"))
		ah, bh, al, bl := row(op, 0), row(op, 1), row(op, 2), row(op, 3)
		for j := range s {
			t, u := YMM(), YMM()
			VMOVUPS(ah.Offset(32*j), t)
			VMOVUPS(al.Offset(32*j), u)
			VADDPS(sub(add(t, bh.Offset(32*j)), add(u, bl.Offset(32*j))), s[j], s[j])
		}
		ADDQ(Imm(32), op)
		JMP(LabelRef(lbl))
		Label(lbl + "_done")
		for j := range s {
			VMOVUPS(s[j], out.Idx(off, 1).Offset(32*j))
		}
	})
}

// glassQuantize: glassQuantizeGo.
func glassQuantize() {
	TEXT("glassQuantizeAsm", NOSPLIT, "func(d []float32, c *[3]float64)")
	Pragma("noescape")
	Doc("glassQuantizeAsm is glassQuantizeGo for len(d), a multiple of 4, samples, four",
		"at a time in float64: f = float64(v)·255 + 1e-3; +0 unless f > 0 (NaN",
		"included); at most 255; truncated; times 1/255 and rounded to float32.",
		"c holds 255, 1e-3 and 1/255.")
	d, cp := base("d"), ptr("c")
	c255, eps, inv := YMM(), YMM(), YMM()
	VBROADCASTSD(cp, c255)
	VBROADCASTSD(cp.Offset(8), eps)
	VBROADCASTSD(cp.Offset(16), inv)
	z := YMM()
	VXORPD(z, z, z)
	n := length("d")
	off := GP64()
	XORQ(off, off)
	SHLQ(Imm(2), n)
	Label("glassQuantize_loop")
	CMPQ(off, n)
	JAE(LabelRef("glassQuantize_done"))
	f := YMM()
	VCVTPS2PD(d.Idx(off, 1), f)
	VMULPD(c255, f, f)
	VADDPD(eps, f, f)
	m := YMM()
	VCMPPD(Imm(0x01), f, z, m) // 0 < f, false for NaN
	VANDPD(f, m, f)
	VMINPD(c255, f, f)
	VROUNDPD(Imm(3), f, f) // toward zero
	VMULPD(inv, f, f)
	x := XMM()
	VCVTPD2PSY(f, x)
	VMOVUPS(x, d.Idx(off, 1))
	ADDQ(Imm(16), off)
	JMP(LabelRef("glassQuantize_loop"))
	Label("glassQuantize_done")
	VZEROUPPER()
	RET()
}

// fog: the blend loop of applyFog and weatherMax's lanes.
func fog() {
	TEXT("fogBlendAsm", NOSPLIT, "func(d0, d1, d2, s0, s1, s2, pr []float32, c *[3]float32)")
	Pragma("noescape")
	Doc("fogBlendAsm is fog's blend loop for len(pr), a multiple of 8, samples, c =",
		"(k, a, lo): f = a·(p − lo), d_c = s_c·k + f, set to 1 where it is above 1",
		"(NaN stays NaN, as in the Go comparison).")
	var d, sr [3]Mem
	for i := range 3 {
		d[i] = base([]string{"d0", "d1", "d2"}[i])
		sr[i] = base([]string{"s0", "s1", "s2"}[i])
	}
	pr, cp := base("pr"), ptr("c")
	k, a, lo := bcast(cp), bcast(cp.Offset(4)), bcast(cp.Offset(8))
	one := bcast(ConstData("fogone", F32(1)))
	n := length("pr")
	blocks("fogBlend", n, func(off GPVirtual, w int) {
		for j := 0; j < w; j++ {
			p := YMM()
			VMOVUPS(pr.Idx(off, 1).Offset(32*j), p)
			f := mul(a, sub(p, lo))
			for i := range 3 {
				o := add(mul(k, sr[i].Idx(off, 1).Offset(32*j)), f)
				VMINPS(o, one, o) // 1 < o ? 1 : o
				VMOVUPS(o, d[i].Idx(off, 1).Offset(32*j))
			}
		}
	})

	TEXT("maxLanesAsm", NOSPLIT, "func(p []float32, h *[8]float32)")
	Pragma("noescape")
	Doc("maxLanesAsm is weatherMax's main loop for len(p), a multiple of 8, samples:",
		"lane j of h becomes p[i] wherever p[i] > h[j] (i ≡ j mod 8), in order.")
	{
		p, hp := base("p"), ptr("h")
		h := YMM()
		VMOVUPS(hp, h)
		n := length("p")
		SHLQ(Imm(2), n)
		off := GP64()
		XORQ(off, off)
		Label("maxLanes_loop")
		CMPQ(off, n)
		JAE(LabelRef("maxLanes_done"))
		q := YMM()
		VMOVUPS(p.Idx(off, 1), q)
		VMAXPS(h, q, h) // q > h ? q : h
		ADDQ(Imm(32), off)
		JMP(LabelRef("maxLanes_loop"))
		Label("maxLanes_done")
		VMOVUPS(h, hp)
		VZEROUPPER()
		RET()
	}
}

// frost: frostApply's blend loops.
func frost() {
	clamp01 := func(v VecVirtual, z, one VecVirtual) {
		VMAXPS(v, z, v)   // 0 > v ? 0 : v (NaN and −0 stay)
		VMINPS(v, one, v) // 1 < v ? 1 : v
	}
	TEXT("frostBlendAsm", NOSPLIT, "func(d, s, f []float32, c *[2]float32)")
	Pragma("noescape")
	Doc("frostBlendAsm is frostApply's blend for len(d), a multiple of 8, samples:",
		"d = weatherClamp01(c[0]·s + c[1]·f).")
	{
		d, sr, fr, cp := base("d"), base("s"), base("f"), ptr("c")
		ss, tt := bcast(cp), bcast(cp.Offset(4))
		one := bcast(ConstData("frostone", F32(1)))
		z := YMM()
		VXORPS(z, z, z)
		n := length("d")
		blocks("frostBlend", n, func(off GPVirtual, w int) {
			for j := 0; j < w; j++ {
				o := add(mul(ss, sr.Idx(off, 1).Offset(32*j)), mul(tt, fr.Idx(off, 1).Offset(32*j)))
				clamp01(o, z, one)
				VMOVUPS(o, d.Idx(off, 1).Offset(32*j))
			}
		})
	}

	TEXT("frostBlend4Asm", NOSPLIT, "func(d, s, r0, r1, r2, r3 []float32, c *[6]float32)")
	Pragma("noescape")
	Doc("frostBlend4Asm is frostApply's blend of an enlarged texture for len(d), a",
		"multiple of 8, samples, c = (s, t, w0, w1, w2, w3):",
		"f = weatherClamp01(w0·r0 + w1·r1 + w2·r2 + w3·r3), summed left to right,",
		"d = weatherClamp01(s·src + t·f).")
	{
		d, sr, cp := base("d"), base("s"), ptr("c")
		r := [4]Mem{base("r0"), base("r1"), base("r2"), base("r3")}
		ss, tt := bcast(cp), bcast(cp.Offset(4))
		var wt [4]VecVirtual
		for i := range wt {
			wt[i] = bcast(cp.Offset(8 + 4*i))
		}
		one := bcast(ConstData("frostone4", F32(1)))
		z := YMM()
		VXORPS(z, z, z)
		n := length("d")
		blocks("frostBlend4", n, func(off GPVirtual, w int) {
			for j := 0; j < w; j++ {
				f := mul(wt[0], r[0].Idx(off, 1).Offset(32*j))
				for i := 1; i < 4; i++ {
					f = add(f, mul(wt[i], r[i].Idx(off, 1).Offset(32*j)))
				}
				clamp01(f, z, one)
				o := add(mul(ss, sr.Idx(off, 1).Offset(32*j)), mul(tt, f))
				clamp01(o, z, one)
				VMOVUPS(o, d.Idx(off, 1).Offset(32*j))
			}
		})
	}
}

var hsvConsts Mem

// hsv: colourHSVMap's loop for brightness and saturate, four pixels (float64
// lanes) a step.
func hsv(name string) {
	if hsvConsts.Symbol.Name == "" {
		hsvConsts = GLOBL("hsvconst", RODATA|NOPTR)
		for i := range 7 {
			DATA(8*i, F64(float64(i))) // 0, 1, …, 6
		}
	}
	cst := func(i int) VecVirtual { y := YMM(); VBROADCASTSD(hsvConsts.Offset(8*i), y); return y }
	TEXT(name, NOSPLIT, "func(dR, dG, dB, R, G, B []float32, c *[2]float64, k int) int")
	Pragma("noescape")
	what := "V := colourClip(V + c[0])"
	if name == "hsvSaturateAsm" {
		what = "S := colourClip(float64(S·c[0]) + c[1])"
	}
	Doc(name+" is colourHSVMap with "+what+" for up to k groups of four",
		"pixels, in float64 lanes: skRGBToHSV with the division and tie rules of the",
		"Go code (blends instead of branches), skHSVToRGB with the sector chosen by",
		"comparing ⌊6H⌋ with 0…6, colourClip and the conversion to float32. It stops",
		"before the first group with a sample outside [+0, 1] (NaN, −0 and negative",
		"values included), which the Go code handles, and returns the groups done.")
	var dst, src [3]Mem
	for i, n := range []string{"dR", "dG", "dB"} {
		dst[i] = base(n)
	}
	for i, n := range []string{"R", "G", "B"} {
		src[i] = base(n)
	}
	cp := ptr("c")
	k := Load(Param("k"), GP64())
	done := GP64()
	XORQ(done, done)
	off := GP64()
	XORQ(off, off)
	Label(name + "_loop")
	CMPQ(done, k)
	JAE(LabelRef(name + "_done"))
	zero, one := cst(0), cst(1)
	var in [3]VecVirtual
	for i := range in {
		in[i] = YMM()
		VCVTPS2PD(src[i].Idx(off, 1), in[i])
	}
	r, g, b := in[0], in[1], in[2]
	// Leave the group to Go unless every sample is in [+0, 1].
	or := YMM()
	VORPD(g, r, or)
	VORPD(b, or, or)
	sign := GP32()
	VMOVMSKPD(or, sign)
	TESTL(sign, sign)
	JNZ(LabelRef(name + "_done"))
	le, t := YMM(), YMM()
	VCMPPD(Imm(0x02), one, r, le) // r ≤ 1, false for NaN
	VCMPPD(Imm(0x02), one, g, t)
	VANDPD(t, le, le)
	VCMPPD(Imm(0x02), one, b, t)
	VANDPD(t, le, le)
	okm := GP32()
	VMOVMSKPD(le, okm)
	CMPL(okm, U8(15))
	JNE(LabelRef(name + "_done"))

	// skRGBToHSV. With no −0 and no NaN, VMAXPD and VMINPD are Go's max
	// and min.
	v, mn := YMM(), YMM()
	VMAXPD(g, r, v)
	VMAXPD(b, v, v)
	VMINPD(g, r, mn)
	VMINPD(b, mn, mn)
	delta := YMM()
	VSUBPD(mn, v, delta) // v − min
	s := YMM()
	VDIVPD(v, delta, s) // delta / v
	mb, mg := YMM(), YMM()
	VCMPPD(Imm(0x00), b, v, mb) // v == b
	VCMPPD(Imm(0x00), g, v, mg) // v == g
	num, t2 := YMM(), YMM()
	VSUBPD(b, g, num) // g − b (red is the maximum)
	VSUBPD(r, b, t2)  // b − r
	VBLENDVPD(mg, t2, num, num)
	VSUBPD(g, r, t2) // r − g
	VBLENDVPD(mb, t2, num, num)
	h := YMM()
	VDIVPD(delta, num, h)
	hg, hb := YMM(), YMM()
	VADDPD(cst(2), h, hg) // 2 + x
	VADDPD(cst(4), h, hb) // 4 + x
	VBLENDVPD(mg, hg, h, h)
	VBLENDVPD(mb, hb, h, h)
	VDIVPD(cst(6), h, h) // h / 6
	neg, h1 := YMM(), YMM()
	VCMPPD(Imm(0x01), zero, h, neg) // h < 0
	VADDPD(one, h, h1)
	VBLENDVPD(neg, h1, h, h)
	flat := YMM()
	VCMPPD(Imm(0x00), zero, delta, flat) // delta == 0: H = S = 0
	VBLENDVPD(flat, zero, h, h)
	VBLENDVPD(flat, zero, s, s)

	// The corruption's change, with colourClip.
	clip := func(x VecVirtual) {
		VMAXPD(x, zero, x) // 0 > x ? 0 : x
		VMINPD(x, one, x)  // 1 < x ? 1 : x
	}
	if name == "hsvSaturateAsm" {
		a, c := YMM(), YMM()
		VBROADCASTSD(cp, a)
		VBROADCASTSD(cp.Offset(8), c)
		VMULPD(a, s, s)
		VADDPD(c, s, s)
		clip(s)
	} else {
		c := YMM()
		VBROADCASTSD(cp, c)
		VADDPD(c, v, v)
		clip(v)
	}

	// skHSVToRGB.
	h6, hi, f := YMM(), YMM(), YMM()
	VMULPD(cst(6), h, h6)
	VROUNDPD(Imm(0x09), h6, hi) // floor, no precision exception
	VSUBPD(hi, h6, f)
	p, q, tt := YMM(), YMM(), YMM()
	VSUBPD(s, one, p) // 1 − s
	VMULPD(p, v, p)   // v·(1 − s)
	VMULPD(s, f, q)   // f·s
	VSUBPD(q, one, q) // 1 − f·s
	VMULPD(q, v, q)
	VSUBPD(f, one, tt) // 1 − f
	VMULPD(s, tt, tt)  // (1 − f)·s
	VSUBPD(tt, one, tt)
	VMULPD(tt, v, tt)
	// Sectors: ⌊6H⌋ = 0 or 6 → (v, t, p), 1 → (q, v, p), 2 → (p, v, t),
	// 3 → (p, q, v), 4 → (t, p, v), 5 → (v, p, q).
	var m [6]VecVirtual
	for i := 1; i < 6; i++ {
		m[i] = YMM()
		VCMPPD(Imm(0x00), cst(i), hi, m[i])
	}
	outs := [3][6]VecVirtual{
		{v, q, p, p, tt, v},
		{tt, v, v, q, p, p},
		{p, p, tt, v, v, q},
	}
	for ch := range 3 {
		o := YMM()
		VMOVAPD(outs[ch][0], o)
		for i := 1; i < 6; i++ {
			VBLENDVPD(m[i], outs[ch][i], o, o) // hi == i ? sector i's : o
		}
		clip(o)
		x := XMM()
		VCVTPD2PSY(o, x)
		VMOVUPS(x, dst[ch].Idx(off, 1))
	}
	ADDQ(Imm(16), off)
	INCQ(done)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	Store(done, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
