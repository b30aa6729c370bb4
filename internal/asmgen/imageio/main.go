// Command imageio writes the AVX2 assembly of package imageio
// (imageio/png_amd64.s) and its Go declarations (imageio/png_amd64_decl.go)
// with avo (github.com/mmcloughlin/avo). Regenerate with
//
//	go generate ./imageio
//
// (see the go:generate line in imageio/png_amd64.go), which runs
//
//	go -C internal/asmgen run ./imageio -out ../../imageio/png_amd64.s -stubs ../../imageio/png_amd64_decl.go -pkg imageio
//
// and commit both generated files.
//
// Each routine is the whole-vector loop of one pure-Go kernel of package
// imageio; the Go callers (imageio/png_amd64.go) check the lengths and do
// the ragged ends. Every routine that uses vector registers ends with
// VZEROUPPER.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	paethFilter()
	rgb8Planes()
	adler32()
	paethUnfilter()
	huffmanCodes()
	inflateFast()
	Generate()
}

// paethFilter: the loop of paethFilterGo from byte 3 on, 16 bytes a step.
func paethFilter() {
	TEXT("paethFilterAsm", NOSPLIT, "func(dst, cur, prev []byte, k int)")
	Pragma("noescape")
	Doc("paethFilterAsm writes dst[3+j] = cur[3+j] − Paeth(cur[j], prev[3+j], prev[j])",
		"for j < 16k, sixteen bytes a step in 16-bit lanes, with the specification's",
		"predictor: p = a + b − c; a if |p − a| ≤ |p − b| and |p − a| ≤ |p − c|, else b",
		"if |p − b| ≤ |p − c|, else c. The slices must hold 16k + 3 bytes.")
	dst := Mem{Base: Load(Param("dst").Base(), GP64())}
	cur := Mem{Base: Load(Param("cur").Base(), GP64())}
	prev := Mem{Base: Load(Param("prev").Base(), GP64())}
	k := Load(Param("k"), GP64())
	off := GP64()
	XORQ(off, off)
	Label("paeth_loop")
	TESTQ(k, k)
	JZ(LabelRef("paeth_done"))
	a, b, c := YMM(), YMM(), YMM()
	VPMOVZXBW(cur.Idx(off, 1), a)
	VPMOVZXBW(prev.Idx(off, 1).Offset(3), b)
	VPMOVZXBW(prev.Idx(off, 1), c)
	bc, ac := YMM(), YMM()
	VPSUBW(c, b, bc) // b − c
	VPSUBW(c, a, ac) // a − c
	pc := YMM()
	VPADDW(ac, bc, pc) // a + b − 2c
	VPABSW(pc, pc)
	VPABSW(bc, bc) // pa = |p − a|
	VPABSW(ac, ac) // pb = |p − b|
	g1, g2 := YMM(), YMM()
	VPCMPGTW(ac, bc, g1) // pa > pb
	VPCMPGTW(pc, bc, g2) // pa > pc
	VPOR(g2, g1, g1)     // not a
	g3 := YMM()
	VPCMPGTW(pc, ac, g3) // pb > pc
	t := YMM()
	VPBLENDVB(g3, c, b, t) // pb > pc ? c : b
	VPBLENDVB(g1, t, a, t) // not a ? t : a
	hi := XMM()
	VEXTRACTI128(Imm(1), t, hi)
	lo := t.AsX()
	VPACKUSWB(hi, lo, lo)
	x := XMM()
	VMOVDQU(cur.Idx(off, 1).Offset(3), x)
	VPSUBB(lo, x, x)
	VMOVDQU(x, dst.Idx(off, 1).Offset(3))
	ADDQ(Imm(16), off)
	DECQ(k)
	JMP(LabelRef("paeth_loop"))
	Label("paeth_done")
	VZEROUPPER()
	RET()
}

// rgb8Planes: rgb8PlanesGo, eight pixels a step.
func rgb8Planes() {
	// Gathers the R, G and B bytes of four interleaved pixels (12 bytes)
	// into the first three 32-bit lanes.
	shuf := GLOBL("rgb8shuf", RODATA|NOPTR)
	DATA(0, U64(0x0a07040109060300))
	DATA(8, U64(0x808080800b080502))
	c255 := ConstData("rgb8c255", F32(255))

	TEXT("rgb8PlanesAsm", NOSPLIT, "func(r, g, b []float32, src []byte, k int)")
	Pragma("noescape")
	Doc("rgb8PlanesAsm writes r[i], g[i], b[i] = float32(s)/255 of the interleaved",
		"RGB bytes of pixel i of src for i < 8k (the division is IEEE, as lut8's):",
		"src must hold 24k + 4 bytes (each step loads 28).")
	var ch [3]Mem
	for i, name := range []string{"r", "g", "b"} {
		ch[i] = Mem{Base: Load(Param(name).Base(), GP64())}
	}
	src := Mem{Base: Load(Param("src").Base(), GP64())}
	k := Load(Param("k"), GP64())
	sh := YMM()
	VBROADCASTI128(shuf, sh)
	d := YMM()
	VBROADCASTSS(c255, d)
	off := GP64() // float offset in bytes; src advances by 24 per step
	XORQ(off, off)
	Label("rgb8_loop")
	TESTQ(k, k)
	JZ(LabelRef("rgb8_done"))
	p, q := XMM(), XMM()
	VMOVDQU(src, p)
	VMOVDQU(src.Offset(12), q)
	VPSHUFB(sh.AsX(), p, p) // r0..r3 g0..g3 b0..b3
	VPSHUFB(sh.AsX(), q, q) // r4..r7 g4..g7 b4..b7
	rg, bx := XMM(), XMM()
	VPUNPCKLDQ(q, p, rg) // r0..3 r4..7 g0..3 g4..7
	VPUNPCKHDQ(q, p, bx) // b0..3 b4..7
	gx := XMM()
	VPSRLDQ(Imm(8), rg, gx)
	for i, s := range []VecVirtual{rg, gx, bx} {
		v := YMM()
		VPMOVZXBD(s, v)
		VCVTDQ2PS(v, v)
		VDIVPS(d, v, v)
		VMOVUPS(v, ch[i].Idx(off, 1))
	}
	ADDQ(Imm(24), src.Base)
	ADDQ(Imm(32), off)
	DECQ(k)
	JMP(LabelRef("rgb8_loop"))
	Label("rgb8_done")
	VZEROUPPER()
	RET()
}

// adler32: the sums of adler32Update over whole 32-byte blocks.
func adler32() {
	w := GLOBL("adlerweights", RODATA|NOPTR)
	for i := range 32 {
		DATA(i, U8(32-i))
	}
	ones := GLOBL("adlerones", RODATA|NOPTR)
	for i := range 16 {
		DATA(2*i, U16(1))
	}
	TEXT("adler32Asm", NOSPLIT, "func(p []byte, k int) (a, b uint64)")
	Pragma("noescape")
	Doc("adler32Asm returns, for the k 32-byte blocks of p (k < 2¹⁶, so that no",
		"32-bit lane overflows), a = the sum of their bytes and b = Σ over blocks of",
		"32·(the sum of the bytes of the blocks before it) + Σ_i (32 − i)·byte_i: an",
		"Adler-32 state (s1, s2) becomes (s1 + a, s2 + 32k·s1 + b), before the",
		"reductions modulo 65521.")
	p := Mem{Base: Load(Param("p").Base(), GP64())}
	k := Load(Param("k"), GP64())
	wt, one := YMM(), YMM()
	VMOVDQU(w, wt)
	VMOVDQU(ones, one)
	z, s1, s1sum, s2 := YMM(), YMM(), YMM(), YMM()
	VPXOR(z, z, z)
	VPXOR(s1, s1, s1)
	VPXOR(s1sum, s1sum, s1sum)
	VPXOR(s2, s2, s2)
	Label("adler_loop")
	TESTQ(k, k)
	JZ(LabelRef("adler_done"))
	x, t, u := YMM(), YMM(), YMM()
	VMOVDQU(p, x)
	VPADDQ(s1, s1sum, s1sum) // the blocks before this one
	VPSADBW(z, x, t)         // four sums of 8 bytes
	VPADDQ(t, s1, s1)
	VPMADDUBSW(wt, x, u) // (32 − i)·byte_i, pairs summed to words
	VPMADDWD(one, u, u)  // pairs of words summed to dwords
	VPADDD(u, s2, s2)
	ADDQ(Imm(32), p.Base)
	DECQ(k)
	JMP(LabelRef("adler_loop"))
	Label("adler_done")
	// Horizontal sums: s1 and s1sum have four 64-bit lanes, s2 eight
	// 32-bit lanes (their total fits 32 bits).
	hsumQ := func(v VecVirtual) GPVirtual {
		hi := XMM()
		VEXTRACTI128(Imm(1), v, hi)
		lo := v.AsX()
		VPADDQ(hi, lo, lo)
		h2 := XMM()
		VPSRLDQ(Imm(8), lo, h2)
		VPADDQ(h2, lo, lo)
		r := GP64()
		VMOVQ(lo, r)
		return r
	}
	// s2's dwords to qwords: add the odd lanes onto the even ones.
	odd := YMM()
	VPSRLQ(Imm(32), s2, odd)
	VPADDD(odd, s2, s2)
	mask := YMM()
	VPCMPEQD(mask, mask, mask)
	VPSRLQ(Imm(32), mask, mask)
	VPAND(mask, s2, s2)
	a := hsumQ(s1)
	b := hsumQ(s1sum)
	c := hsumQ(s2)
	SHLQ(Imm(5), b)
	ADDQ(c, b)
	Store(a, ReturnIndex(0))
	Store(b, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// paethUnfilter: unfilter's Paeth loop for 3 bytes per pixel.
func paethUnfilter() {
	TEXT("paethUnfilter3Asm", NOSPLIT, "func(cur, prev []byte, k int)")
	Pragma("noescape")
	Doc("paethUnfilter3Asm reverses the Paeth filter on the first k pixels of the",
		"row cur (3 bytes per pixel) given the unfiltered row above, prev, one pixel",
		"a step with the three samples in 16-bit lanes, with stb_image's form of the",
		"predictor (as paeth): t = 3c − a − b; max(a, b) if t ≤ min(a, b), else",
		"min(a, b) if max(a, b) ≤ t, else c. Each step loads 4 bytes of cur and",
		"prev, so both must hold 3k + 1 bytes; it stores 3.")
	cur := Mem{Base: Load(Param("cur").Base(), GP64())}
	prev := Mem{Base: Load(Param("prev").Base(), GP64())}
	k := Load(Param("k"), GP64())
	a, c := XMM(), XMM()
	VPXOR(a, a, a) // left of the first pixel: 0
	VPXOR(c, c, c) // up-left of the first pixel: 0
	t32 := GP32()
	Label("unpaeth_loop")
	TESTQ(k, k)
	JZ(LabelRef("unpaeth_done"))
	b, x := XMM(), XMM()
	MOVL(prev, t32)
	VMOVD(t32, b)
	VPMOVZXBW(b, b)
	MOVL(cur, t32)
	VMOVD(t32, x)
	VPMOVZXBW(x, x)
	// k3 = 3c − b, independent of a.
	k3 := XMM()
	VPADDW(c, c, k3)
	VPADDW(c, k3, k3)
	VPSUBW(b, k3, k3)
	t, lo, hi := XMM(), XMM(), XMM()
	VPSUBW(a, k3, t) // t = 3c − a − b
	VPMINSW(b, a, lo)
	VPMAXSW(b, a, hi)
	m1, m2 := XMM(), XMM()
	VPCMPGTW(t, hi, m1) // hi > t: not lo
	VPCMPGTW(lo, t, m2) // t > lo: not hi
	// a = x + the predictor modulo 256, the sums formed before the choice
	// (so that they leave a's chain): byte adds, the words' high bytes (0
	// in both) staying 0.
	xc, xlo, xhi := XMM(), XMM(), XMM()
	VPADDB(x, c, xc)
	VPADDB(x, lo, xlo)
	VPADDB(x, hi, xhi)
	p := XMM()
	VPBLENDVB(m1, xc, xlo, p) // hi > t ? x + c : x + lo
	VPBLENDVB(m2, p, xhi, a)  // t > lo ? p : x + hi
	// Store the three bytes.
	o := XMM()
	VPACKUSWB(a, a, o)
	VMOVD(o, t32)
	MOVW(t32.As16(), cur)
	SHRL(Imm(16), t32)
	MOVB(t32.As8(), cur.Offset(2))
	VMOVDQA(b, c)
	ADDQ(Imm(3), cur.Base)
	ADDQ(Imm(3), prev.Base)
	DECQ(k)
	JMP(LabelRef("unpaeth_loop"))
	Label("unpaeth_done")
	RET()
}

// huffmanCodes: huffmanCodesGo's loop with BMI2 shifts (SHLX, SHRX), four
// codes a step joined before they meet the bit buffer.
func huffmanCodes() {
	TEXT("huffmanCodesAsm", NOSPLIT, "func(dst, data []byte, codes *[257]uint32, acc, nacc uint64, k int) (n int, acc2, nacc2 uint64)")
	Pragma("noescape")
	Doc("huffmanCodesAsm writes the Huffman codes of the first 4k bytes of data",
		"(codes[b]: the bit-reversed code of byte b in its low 16 bits, its length",
		"in the bits above) into dst after the nacc < 8 pending bits acc, least",
		"significant bit first, and returns the number of whole bytes written and",
		"the pending bits (fewer than 8). Four codes go a step: joined into one bit",
		"string of at most 60 bits, which goes into the bit buffer after the pending",
		"bits; the buffer's 8 bytes are stored, and the bits past its 64 carried",
		"into the next step. Each step advances by at most 8 bytes and stores 8, so",
		"dst must hold 8k + 8 bytes. It needs BMI2.")
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("data").Base(), GP64())
	codes := Load(Param("codes"), GP64())
	acc := Load(Param("acc"), GP64())
	nacc := Load(Param("nacc"), GP64())
	k := Load(Param("k"), GP64())
	o := GP64()
	XORQ(o, o)
	Label("huff_loop")
	TESTQ(k, k)
	JZ(LabelRef("huff_done"))
	// pair joins the codes of bytes i and i+1: their bit string and its
	// length.
	pair := func(i int) (GPVirtual, GPVirtual) {
		b0, b1 := GP64(), GP64()
		MOVBQZX(Mem{Base: src, Disp: i}, b0)
		MOVBQZX(Mem{Base: src, Disp: i + 1}, b1)
		c0, c1 := GP64(), GP64()
		MOVL(Mem{Base: codes, Index: b0, Scale: 4}, c0.As32())
		MOVL(Mem{Base: codes, Index: b1, Scale: 4}, c1.As32())
		l0, l1 := GP64(), GP64()
		MOVL(c0.As32(), l0.As32())
		SHRL(Imm(16), l0.As32())
		MOVL(c1.As32(), l1.As32())
		SHRL(Imm(16), l1.As32())
		MOVWLZX(c0.As16(), c0.As32())
		MOVWLZX(c1.As16(), c1.As32())
		SHLXQ(l0, c1, c1)
		ORQ(c1, c0)
		ADDQ(l1, l0)
		return c0, l0
	}
	p, l := pair(0)
	p23, l23 := pair(2)
	SHLXQ(l, p23, p23)
	ORQ(p23, p)
	ADDQ(l23, l)
	// lo = acc | p<<nacc; hi = the bits of p past lo's 64 (used only when
	// nacc + l ≥ 64, so nacc > 0).
	t := GP64()
	SHLXQ(nacc, p, t)
	ORQ(t, acc)
	sh := GP64()
	MOVQ(U32(64), sh)
	SUBQ(nacc, sh)
	SHRXQ(sh, p, p)
	MOVQ(acc, Mem{Base: dst, Index: o, Scale: 1})
	ADDQ(l, nacc) // n = nacc + l ≤ 67
	MOVQ(nacc, t)
	SHRQ(Imm(3), t)
	ADDQ(t, o)
	MOVQ(nacc, t)
	ANDQ(U8(0x78), t) // n &^ 7; SHRX takes 64 as 0, which the CMOV corrects
	SHRXQ(t, acc, acc)
	CMPQ(nacc, U8(64))
	CMOVQCC(p, acc)
	ANDQ(U8(7), nacc)
	ADDQ(Imm(4), src)
	DECQ(k)
	JMP(LabelRef("huff_loop"))
	Label("huff_done")
	Store(o, ReturnIndex(0))
	Store(acc, ReturnIndex(1))
	Store(nacc, ReturnIndex(2))
	RET()
}

// inflateFast: the common symbols of inflater.fastCodes' loop with BMI2
// shifts: literals (one or two a table entry) and matches whose length and
// distance codes are in the fast tables, the distance within the output.
func inflateFast() {
	TEXT("inflateFastAsm", NOSPLIT, "func(dst []byte, n int, in []byte, pos int, bits, nbits uint64, litFast, distFast *[1024]uint32) (n2, pos2 int, bits2, nbits2 uint64)")
	Pragma("noescape")
	Doc("inflateFastAsm decodes deflate symbols into dst from byte n on, from",
		"in's bits from byte pos on after the nbits pending bits (< 64) in bits, as",
		"inflater.fastCodes does, while pos + 8 ≤ len(in) and n + 266 ≤ len(dst):",
		"literals (litFast entries with fastLiteral) and matches whose length entry",
		"and distance entry are both in the tables (lengths in bits 0–3 not 0) and",
		"whose distance is at most n. It returns at a symbol boundary, before the",
		"first symbol it does not take (a long or invalid code, the end of the",
		"block, a distance beyond the output) or when the input or output runs",
		"short, with the new n, pos and bit buffer. It needs BMI2.")
	// In registers: the output and input pointers, the bit buffer, the
	// literal table; the limits, the output's start and the distance table
	// on the stack.
	loc := AllocLocal(32)
	dlimM, ilimM, dbaseM, distM := loc, loc.Offset(8), loc.Offset(16), loc.Offset(24)
	{
		b, x := Load(Param("dst").Base(), GP64()), Load(Param("dst").Len(), GP64())
		MOVQ(b, dbaseM)
		LEAQ(Mem{Base: b, Index: x, Scale: 1, Disp: -266}, x)
		MOVQ(x, dlimM) // dp ≤ dlim
		ib, il := Load(Param("in").Base(), GP64()), Load(Param("in").Len(), GP64())
		LEAQ(Mem{Base: ib, Index: il, Scale: 1, Disp: -8}, il)
		MOVQ(il, ilimM) // ip ≤ ilim
		dt := Load(Param("distFast"), GP64())
		MOVQ(dt, distM)
	}
	dp, ip := GP64(), GP64()
	{
		b, n := Load(Param("dst").Base(), GP64()), Load(Param("n"), GP64())
		LEAQ(Mem{Base: b, Index: n, Scale: 1}, dp)
		ib, pos := Load(Param("in").Base(), GP64()), Load(Param("pos"), GP64())
		LEAQ(Mem{Base: ib, Index: pos, Scale: 1}, ip)
	}
	bits := Load(Param("bits"), GP64())
	nbits := Load(Param("nbits"), GP64())
	lit := Load(Param("litFast"), GP64())
	t, e, l := GP64(), GP64(), GP64()
	// lookup loads the entry of table tab for the low 10 bits of b into e
	// and its length (bits 0–3) into l.
	lookup := func(tab, b Register) {
		MOVL(U32(1023), l.As32())
		ANDQ(b, l)
		MOVL(Mem{Base: tab, Index: l, Scale: 4}, e.As32())
		MOVL(e.As32(), l.As32())
		ANDL(U8(15), l.As32())
	}
	// next: at a symbol boundary, as at the top of fastCodes' loop: return
	// if the input or output runs short, else refill (bits |=
	// in[pos:pos+8] << nbits; pos += (63 − nbits) >> 3; nbits |= 56).
	next := func() {
		CMPQ(dp, dlimM)
		JHI(LabelRef("inf_done"))
		CMPQ(ip, ilimM)
		JHI(LabelRef("inf_done"))
		SHLXQ(nbits, Mem{Base: ip}, t)
		ORQ(t, bits)
		MOVL(U32(63), t.As32())
		SUBQ(nbits, t)
		SHRQ(Imm(3), t)
		ADDQ(t, ip)
		ORQ(U8(56), nbits)
	}
	// literal takes the literal entry in e: its code (SHRX takes the
	// length from e's low 6 bits, of which bits 4 and 5 are 0), its two
	// bytes stored (dst has the slack), dp advanced by its count.
	literal := func() {
		SHRXQ(e, bits, bits)
		SUBQ(l, nbits)
		MOVL(e.As32(), t.As32())
		SHRL(Imm(8), t.As32())
		MOVW(t.As16(), Mem{Base: dp})
		SHRL(Imm(24), e.As32())
		ANDL(U8(3), e.As32())
		ADDQ(e, dp)
	}
	Label("inf_next")
	next()
	lookup(lit, bits)
	// Here the bit buffer has been refilled and e is the entry of its low
	// bits in the literal/length table.
	Label("inf_loop")
	TESTL(e.As32(), e.As32())
	JNS(LabelRef("inf_notlit"))
	literal()
	lookup(lit, bits) // ≥ 46 bits left
	TESTL(e.As32(), e.As32())
	JNS(LabelRef("inf_next"))
	literal()
	// The next entry first (≥ 36 bits left; a refill adds bits only above
	// them), the refill after it.
	lookup(lit, bits)
	next()
	JMP(LabelRef("inf_loop"))

	Label("inf_notlit")
	TESTL(l.As32(), l.As32())
	JZ(LabelRef("inf_done")) // a long or invalid code
	TESTL(U32(1<<30), e.As32())
	JNZ(LabelRef("inf_done")) // the end of the block
	// A length: base + extra bits; then the distance entry. Nothing is
	// consumed until both are known to be taken.
	length, tb, used := GP64(), GP64(), GP64()
	SHRXQ(l, bits, tb)
	MOVL(e.As32(), t.As32())
	SHRL(Imm(8), t.As32())
	ANDL(U8(15), t.As32())
	BZHIQ(t, tb, length)
	SHRXQ(t, tb, tb)
	LEAQ(Mem{Base: l, Index: t, Scale: 1}, used) // bits used so far
	SHRL(Imm(16), e.As32())
	ADDQ(e, length)
	MOVQ(distM, t)
	lookup(t, tb)
	TESTL(l.As32(), l.As32())
	JZ(LabelRef("inf_done")) // a long or invalid distance code
	distance := GP64()
	SHRXQ(l, tb, tb)
	ADDQ(l, used)
	MOVL(e.As32(), t.As32())
	SHRL(Imm(8), t.As32())
	ANDL(U8(15), t.As32())
	BZHIQ(t, tb, distance)
	SHRXQ(t, tb, tb)
	ADDQ(t, used)
	SHRL(Imm(16), e.As32())
	ADDQ(e, distance)
	MOVQ(dp, t)
	SUBQ(dbaseM, t) // n
	CMPQ(distance, t)
	JGT(LabelRef("inf_done")) // beyond the output: fastCodes reports it
	// Taken: consume and copy from src = dp − distance.
	MOVQ(tb, bits)
	SUBQ(used, nbits)
	src := tb
	MOVQ(dp, src)
	SUBQ(distance, src)
	ADDQ(length, dp) // the match's end; e walks to it
	MOVQ(dp, e)
	SUBQ(length, e)
	CMPQ(distance, U8(8))
	JB(LabelRef("inf_bytes"))
	// 8 bytes at a time from bytes already final (distance ≥ 8); the last
	// word may write up to 7 bytes past the match, inside dst's slack.
	Label("inf_words")
	MOVQ(Mem{Base: src}, t)
	MOVQ(t, Mem{Base: e})
	ADDQ(Imm(8), src)
	ADDQ(Imm(8), e)
	CMPQ(e, dp)
	JB(LabelRef("inf_words"))
	JMP(LabelRef("inf_next"))
	Label("inf_bytes")
	MOVBLZX(Mem{Base: src}, t.As32())
	MOVB(t.As8(), Mem{Base: e})
	INCQ(src)
	INCQ(e)
	CMPQ(e, dp)
	JB(LabelRef("inf_bytes"))
	JMP(LabelRef("inf_next"))

	Label("inf_done")
	{
		b := Load(Param("dst").Base(), GP64())
		SUBQ(b, dp)
		ib := Load(Param("in").Base(), GP64())
		SUBQ(ib, ip)
	}
	Store(dp, ReturnIndex(0))
	Store(ip, ReturnIndex(1))
	Store(bits, ReturnIndex(2))
	Store(nbits, ReturnIndex(3))
	RET()
}
