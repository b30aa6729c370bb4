// Command iqa writes the AVX assembly kernels of package iqa
// (iqa/kernels_amd64.s) and their Go declarations (iqa/kernels_amd64_decl.go)
// with avo (github.com/mmcloughlin/avo). The generators live in a module of
// their own (internal/asmgen) so that vcr's go.mod does not depend on avo.
// Regenerate with
//
//	go generate ./iqa
//
// (see the go:generate line in iqa/kernels_amd64.go), which runs
//
//	go -C internal/asmgen run ./iqa -out ../../iqa/kernels_amd64.s -stubs ../../iqa/kernels_amd64_decl.go -pkg iqa
//
// and commit both generated files.
//
// Every routine here is the vector loop of one kernel of iqa's pure-Go build
// (pyramid.go, gsm.go, wavelet.go, pixel.go), four float64 outputs per
// 256-bit vector: each lane performs the same IEEE operations on the same
// operands in the same order as the scalar code, with separate multiplies
// and adds, and fused multiply-adds only where the scalar code calls
// math.FMA (the band filters), so the results are bit-identical. The
// routines handle only whole vectors; the Go callers (iqa/kernels_amd64.go)
// keep the control flow, bounds checks and ragged ends. Every routine ends
// with VZEROUPPER, since the SSE code that follows otherwise runs several
// times slower.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	rows()
	bandStrip()
	lo0Vert()
	lo0Horz()
	lowVertLanes()
	lowHorz()
	patchLanes()
	blockProducts()
	windowRows()
	channelBlocks()
	pixelFactors()
	Generate()
}

// base loads the base pointer of the slice parameter name.
func base(name string) Mem { return Mem{Base: Load(Param(name).Base(), GP64())} }

// ptr loads the pointer parameter name.
func ptr(name string) Mem { return Mem{Base: Load(Param(name), GP64())} }

// count loads the length of the slice parameter name, or the int parameter
// name when slice is false.
func count(name string, slice bool) GPVirtual {
	if slice {
		return Load(Param(name).Len(), GP64()).(GPVirtual)
	}
	return Load(Param(name), GP64()).(GPVirtual)
}

// loop emits "for off := 0; off < 8·n; off += step·8 { body(off) }", with
// off a byte offset.
func loop(name string, n GPVirtual, step int, body func(off GPVirtual)) {
	off := GP64()
	XORQ(off, off)
	SHLQ(Imm(3), n)
	Label(name + "_loop")
	CMPQ(off, n)
	JAE(LabelRef(name + "_done"))
	body(off)
	ADDQ(Imm(uint64(8*step)), off)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

func ld(m Mem, off GPVirtual, i int) VecVirtual {
	y := YMM()
	VMOVUPD(m.Idx(off, 1).Offset(8*i), y)
	return y
}

func st(y VecVirtual, m Mem, off GPVirtual, i int) { VMOVUPD(y, m.Idx(off, 1).Offset(8*i)) }

func add(a, b Op) VecVirtual { d := YMM(); VADDPD(b, a, d); return d } // a + b
func sub(a, b Op) VecVirtual { d := YMM(); VSUBPD(b, a, d); return d } // a − b
func mul(a, b Op) VecVirtual { d := YMM(); VMULPD(b, a, d); return d } // a · b
func div(a, b Op) VecVirtual { d := YMM(); VDIVPD(b, a, d); return d } // a / b

func bcast(m Mem) VecVirtual { y := YMM(); VBROADCASTSD(m, y); return y }

var setAdd = []struct {
	suffix string
	first  bool
}{{"Set", true}, {"Add", false}}

// rows: foldRowsGo.
func rows() {
	for _, op := range []string{"add", "sub"} {
		TEXT(op+"RowsAsm", NOSPLIT, "func(dst, a, b []float64)")
		Pragma("noescape")
		Doc(op + "RowsAsm is foldRowsGo with sign " + map[string]string{"add": "+1", "sub": "−1"}[op] +
			" for len(dst), a multiple of 4, samples.")
		dst, a, b := base("dst"), base("a"), base("b")
		n := count("dst", true)
		loop(op+"Rows", n, 4, func(o GPVirtual) {
			if op == "add" {
				st(add(ld(a, o, 0), ld(b, o, 0)), dst, o, 0)
			} else {
				st(sub(ld(a, o, 0), ld(b, o, 0)), dst, o, 0)
			}
		})
	}
}

// transpose4 returns the columns of the 4×4 matrix with rows a, b, c, d.
func transpose4(a, b, c, d VecVirtual) (VecVirtual, VecVirtual, VecVirtual, VecVirtual) {
	t0, t1, t2, t3 := YMM(), YMM(), YMM(), YMM()
	VUNPCKLPD(b, a, t0) // a0 b0 a2 b2
	VUNPCKHPD(b, a, t1) // a1 b1 a3 b3
	VUNPCKLPD(d, c, t2) // c0 d0 c2 d2
	VUNPCKHPD(d, c, t3) // c1 d1 c3 d3
	c0, c1, c2, c3 := YMM(), YMM(), YMM(), YMM()
	VPERM2F128(Imm(0x20), t2, t0, c0)
	VPERM2F128(Imm(0x20), t3, t1, c1)
	VPERM2F128(Imm(0x31), t2, t0, c2)
	VPERM2F128(Imm(0x31), t3, t1, c3)
	return c0, c1, c2, c3
}

// windowRows: the two vector loops of windowRowsAVX.
func windowRows() {
	for _, two := range []bool{false, true} {
		name := map[bool]string{false: "prefixT3Asm", true: "prefixT2Asm"}[two]
		TEXT(name, NOSPLIT, "func(p3, p2, x, y []float64, cw, n int, s *[20]float64)")
		Pragma("noescape")
		Doc(name+" is the prefix loop of windowRowsAVX with two = "+map[bool]string{false: "false", true: "true"}[two]+
			" for the columns j < n (a multiple of 4,",
			"starting at column 0) of the 4 rows x[i·cw+j], y[i·cw+j]: it transposes",
			"each 4×4 tile in registers and adds the 5 quantities of each column to",
			"the lane sums s (in and out, 4 lanes per quantity), storing them into p3",
			"after each column j ≡ 2 (mod 3)"+map[bool]string{false: ".", true: " and into p2 after each j ≡ 1."}[two])
		p3, p2, x, y := base("p3"), base("p2"), base("x"), base("y")
		_ = p2
		cw := count("cw", false)
		SHLQ(Imm(3), cw)
		sp := ptr("s")
		var sv [5]VecVirtual
		for i := range sv {
			sv[i] = YMM()
			VMOVUPD(sp.Offset(32*i), sv[i])
		}
		k := GP64() // column index mod 3
		XORQ(k, k)
		n := count("n", false)
		off := GP64()
		XORQ(off, off)
		SHLQ(Imm(3), n)
		Label(name + "_loop")
		CMPQ(off, n)
		JAE(LabelRef(name + "_done"))
		// tile returns the columns of the 4×4 tile of rows base+i·cw at
		// off: t0 = a0 a1 | c0 c1, t1 = b0 b1 | d0 d1, t2 = a2 a3 | c2 c3,
		// t3 = b2 b3 | d2 d3 from 128-bit loads, then one unpack per column.
		tile := func(b Mem) [4]VecVirtual {
			pa, pc := GP64(), GP64()
			LEAQ(b.Idx(off, 1), pa)
			LEAQ(Mem{Base: pa, Index: cw, Scale: 2}, pc)
			half := func(lo, hi Mem) VecVirtual {
				x := XMM()
				VMOVUPD(lo, x)
				y := YMM()
				VINSERTF128(Imm(1), hi, x.AsY(), y)
				return y
			}
			t0 := half(Mem{Base: pa}, Mem{Base: pc})
			t1 := half(Mem{Base: pa, Index: cw, Scale: 1}, Mem{Base: pc, Index: cw, Scale: 1})
			t2 := half(Mem{Base: pa}.Offset(16), Mem{Base: pc}.Offset(16))
			t3 := half(Mem{Base: pa, Index: cw, Scale: 1}.Offset(16), Mem{Base: pc, Index: cw, Scale: 1}.Offset(16))
			var c [4]VecVirtual
			for i := range c {
				c[i] = YMM()
			}
			VUNPCKLPD(t1, t0, c[0])
			VUNPCKHPD(t1, t0, c[1])
			VUNPCKLPD(t3, t2, c[2])
			VUNPCKHPD(t3, t2, c[3])
			return c
		}
		X := tile(x)
		Y := tile(y)
		store := func(P Mem) {
			for i := range sv {
				VMOVUPD(sv[i], P.Offset(32*i))
			}
			ADDQ(Imm(160), P.Base)
		}
		for col := range 4 {
			VADDPD(X[col], sv[0], sv[0])
			VADDPD(Y[col], sv[1], sv[1])
			VADDPD(mul(X[col], X[col]), sv[2], sv[2])
			VADDPD(mul(Y[col], Y[col]), sv[3], sv[3])
			VADDPD(mul(X[col], Y[col]), sv[4], sv[4])
			l := fmt.Sprintf("%s_c%d", name, col)
			if two {
				CMPQ(k, Imm(1))
				JNE(LabelRef(l + "_n2"))
				store(p2)
				Label(l + "_n2")
			}
			CMPQ(k, Imm(2))
			JNE(LabelRef(l + "_n3"))
			store(p3)
			MOVQ(I64(-1), k)
			Label(l + "_n3")
			INCQ(k)
		}
		ADDQ(Imm(32), off)
		JMP(LabelRef(name + "_loop"))
		Label(name + "_done")
		for i := range sv {
			VMOVUPD(sv[i], sp.Offset(32*i))
		}
		VZEROUPPER()
		RET()
	}

	TEXT("vertAcc4Asm", NOSPLIT, "func(vert []float64, e5 int, hi, lo []float64, n int)")
	Pragma("noescape")
	Doc("vertAcc4Asm is the last loop of windowRowsAVX for one quantity and the",
		"blocks c < n, a multiple of 4: with prev = vert[:e5] and cur_i =",
		"vert[(i+1)·e5:], it adds the window row sums hi[20c+i] − lo[20c+i] of",
		"rows i = 0…3 to the running vertical prefix at c.")
	{
		vert := base("vert")
		e5 := count("e5", false)
		SHLQ(Imm(3), e5)
		var cur [5]Mem
		cur[0] = vert
		for i := 1; i < 5; i++ {
			cur[i] = Mem{Base: GP64()}
			MOVQ(cur[i-1].Base, cur[i].Base)
			ADDQ(e5, cur[i].Base)
		}
		hi, lo := base("hi"), base("lo")
		n := count("n", false)
		loop("vertAcc4", n, 4, func(o GPVirtual) {
			// hi and lo hold 20 samples per block (4 rows of each of the 5
			// quantities): they are read at twenty times the offset.
			var d [4]VecVirtual
			for i := range d {
				h, l := YMM(), YMM()
				VMOVUPD(Mem{Base: hi.Base}.Offset(160*i), h)
				VMOVUPD(Mem{Base: lo.Base}.Offset(160*i), l)
				d[i] = sub(h, l)
			}
			ADDQ(U32(640), hi.Base)
			ADDQ(U32(640), lo.Base)
			r0, r1, r2, r3 := transpose4(d[0], d[1], d[2], d[3])
			v := add(ld(cur[0], o, 0), r0)
			st(v, cur[1], o, 0)
			v = add(v, r1)
			st(v, cur[2], o, 0)
			v = add(v, r2)
			st(v, cur[3], o, 0)
			v = add(v, r3)
			st(v, cur[4], o, 0)
		})
	}
}

// Comparison predicates of VCMPPD.
const (
	cmpLT    = 0x01 // a < b, false for NaN
	cmpLE    = 0x02 // a ≤ b, false for NaN
	cmpNLEUQ = 0x16 // !(a ≤ b): a > b or NaN
)

func cmp(pred uint64, a, b Op) VecVirtual { m := YMM(); VCMPPD(Imm(pred), b, a, m); return m }

func or(a, b Op) VecVirtual { d := YMM(); VORPD(b, a, d); return d }

// merge returns a where m is set, b elsewhere (lane by lane).
func merge(a, b, m Op) VecVirtual { d := YMM(); VBLENDVPD(m, a, b, d); return d }

// max0 is Go's max(x, 0) lane by lane: NaN stays NaN, −0 and negative
// values become +0 (x where x > 0 or NaN, else all bits clear).
func max0(x VecVirtual) VecVirtual {
	z := YMM()
	VXORPD(z, z, z)
	d := YMM()
	VANDPD(cmp(cmpNLEUQ, x, z), x, d)
	return d
}

// channelBlocks: the vector loop of channelBlocksAVX.
func channelBlocks() {
	for _, variant := range []string{"Py", "Vec", "VecStrict"} {
		name := "channelBlocks" + variant + "Asm"
		TEXT(name, NOSPLIT, "func(gs, svs, top, bot []float64, st int, c *[2]float64)")
		Pragma("noescape")
		Doc(name+" is the vector loop of channelBlocksAVX (kernels_amd64.go) for",
			"len(gs), a multiple of 4, blocks "+map[string]string{
				"Py":        "with vifvec = false",
				"Vec":       "with vifvec = true, strictClamp = false",
				"VecStrict": "with vifvec = true, strictClamp = true",
			}[variant]+": the window sums of block c",
			"are bot[q·st+c] − top[q·st+c], c the window size ww and tol.")
		gs, svs, tp, bp, cp := base("gs"), base("svs"), base("top"), base("bot"), ptr("c")
		stb := count("st", false)
		SHLQ(Imm(3), stb)
		n := count("gs", true)
		W, tol := bcast(cp), bcast(cp.Offset(8))
		z := YMM()
		VXORPD(z, z, z)
		loop(name, n, 4, func(o GPVirtual) {
			// plane returns quantity q of the 4 blocks from m: m + o + q·st.
			plane := func(m Mem, q int) VecVirtual {
				p := GP64()
				LEAQ(m.Idx(o, 1), p)
				var a Mem
				switch q {
				case 0:
					a = Mem{Base: p}
				case 1:
					a = Mem{Base: p, Index: stb, Scale: 1}
				case 2:
					a = Mem{Base: p, Index: stb, Scale: 2}
				case 3:
					LEAQ(Mem{Base: p, Index: stb, Scale: 2}, p)
					a = Mem{Base: p, Index: stb, Scale: 1}
				default:
					a = Mem{Base: p, Index: stb, Scale: 4}
				}
				y := YMM()
				VMOVUPD(a, y)
				return y
			}
			var q [5]VecVirtual
			for i := range q {
				q[i] = sub(plane(bp, i), plane(tp, i))
			}
			sx, sy, sxx, syy, sxy := q[0], q[1], q[2], q[3], q[4]
			muX, muY := div(sx, W), div(sy, W)
			var g, sv, vy VecVirtual
			if variant != "Py" {
				cov := sub(sxy, mul(mul(W, muX), muY))
				ssX := max0(sub(sxx, mul(mul(W, muX), muX)))
				ssY := max0(sub(syy, mul(mul(W, muY), muY)))
				g = div(cov, add(ssX, tol))
				sv = div(sub(ssY, mul(g, cov)), W)
				m := cmp(cmpLT, ssX, tol)
				g, sv = merge(z, g, m), merge(ssY, sv, m)
				vy = ssY
			} else {
				varX := sub(div(sxx, W), mul(muX, muX))
				varY := sub(div(syy, W), mul(muY, muY))
				cov := sub(div(sxy, W), mul(muX, muY))
				cov = merge(z, cov, or(cmp(cmpLT, varX, z), cmp(cmpLT, varY, z)))
				varX, varY = max0(varX), max0(varY)
				g = div(cov, add(varX, tol))
				sv = sub(varY, mul(g, cov))
				m := cmp(cmpLT, varX, tol)
				g, sv = merge(z, g, m), merge(varY, sv, m)
				vy = varY
			}
			m := cmp(cmpLT, vy, tol)
			g, sv = merge(z, g, m), merge(z, sv, m)
			m = cmp(cmpLT, g, z)
			g, sv = merge(z, g, m), merge(vy, sv, m)
			if variant == "Vec" {
				m = cmp(cmpLE, sv, tol)
			} else {
				m = cmp(cmpLT, sv, tol)
			}
			sv = merge(tol, sv, m)
			st(g, gs, o, 0)
			st(sv, svs, o, 0)
		})
	}
}

// pixelFactors: the vector loop of pixelFactorsRowAVX.
func pixelFactors() {
	TEXT("pixelFactorsAsm", NOSPLIT, "func(a, b, d []float64, c *[6]float64)")
	Pragma("noescape")
	Doc("pixelFactorsAsm is pixelFactorsRowGo for len(a), a multiple of 4, windows:",
		"both branches of pixelFactors are computed and blended; c holds 1, 0.5,",
		"the tolerance, σn², 1/σn² and the bits of the sign-clearing mask.")
	a, b, d, cp := base("a"), base("b"), base("d"), ptr("c")
	one, half, tol := bcast(cp), bcast(cp.Offset(8)), bcast(cp.Offset(16))
	sn, isn, noSign := bcast(cp.Offset(24)), bcast(cp.Offset(32)), bcast(cp.Offset(40))
	z := YMM()
	VXORPD(z, z, z)
	n := count("a", true)
	loop("pixelFactors", n, 4, func(o GPVirtual) {
		vx, vy, cov := ld(a, o, 0), ld(b, o, 0), ld(d, o, 0)
		tiny := cmp(cmpLT, vx, tol)
		small := or(tiny, cmp(cmpLT, vy, tol))
		fden := add(one, mul(merge(z, vx, tiny), isn))
		dd := add(vx, tol)
		abs := YMM()
		VANDPD(noSign, cov, abs)
		c := mul(add(cov, abs), half)
		t := sub(mul(dd, vy), mul(cov, cov))
		td := mul(tol, dd)
		t = merge(td, t, cmp(cmpLT, t, td))
		bb := mul(dd, add(t, mul(sn, dd)))
		aa := add(bb, mul(mul(c, c), vx))
		st(merge(one, aa, small), a, o, 0)
		st(merge(one, bb, small), b, o, 0)
		st(fden, d, o, 0)
	})
}
