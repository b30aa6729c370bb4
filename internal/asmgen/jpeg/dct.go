package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// libjpeg's islow fixed-point constants (jfdctint.c, jidctint.c):
// round(c·2^13) for the LL&M rotation factors.
const (
	fix0298631336 = 2446
	fix0390180644 = 3196
	fix0541196100 = 4433
	fix0765366865 = 6270
	fix0899976223 = 7373
	fix1175875602 = 9633
	fix1501321110 = 12299
	fix1847759065 = 15137
	fix1961570560 = 16069
	fix2053119869 = 16819
	fix2562915447 = 20995
	fix3072711026 = 25172
)

// dctConsts is a table of 32-bit constants, each stored eight times (one
// 32-byte vector) so that instructions can read it as a memory operand.
type dctConsts struct {
	mem Mem
	off map[int32]int
}

var dctc dctConsts

// dctConstants declares the table (dctconst) with the constants the
// kernels use; it must run before any other GLOBL, as DATA writes to the
// last one declared.
func dctConstants() {
	dctc = dctConsts{mem: GLOBL("dctconst", RODATA|NOPTR), off: map[int32]int{}}
	for _, v := range []int32{
		fix0298631336, fix0541196100, fix0765366865, fix1175875602,
		fix1501321110, fix2053119869, fix3072711026,
		-fix0390180644, -fix0899976223, -fix1847759065, -fix1961570560,
		-fix2562915447,
		1 << 10, 1 << 17, 1 << 14, 2, 128,
		-0x7f7f7f80, // 0x80 in every byte
	} {
		o := 32 * len(dctc.off)
		dctc.off[v] = o
		for i := range 8 {
			DATA(o+4*i, U32(uint32(v)))
		}
	}
	idctShuf = GLOBL("idctshuf", RODATA|NOPTR)
	for h := range 2 {
		DATA(16*h, U64(0x0d0905010c080400))
		DATA(16*h+8, U64(0x0f0b07030e0a0602))
	}
}

// idctShuf is the byte shuffle that turns, in each 128-bit half, four
// columns of four rows (byte 4·column + row) into rows (byte 4·row + column).
var idctShuf Mem

// k returns the vector of eight copies of v from the table.
func (c *dctConsts) k(v int32) Mem {
	o, ok := c.off[v]
	if !ok {
		panic("dctconst lacks a constant")
	}
	return c.mem.Offset(o)
}

// transpose8 transposes the 8×8 matrix of 32-bit lanes held in r (r[i]
// lane j is element (i, j)) and returns the transposed rows.
func transpose8(r [8]VecVirtual) (o [8]VecVirtual) {
	var t, u [8]VecVirtual
	for i := 0; i < 8; i += 2 {
		t[i], t[i+1] = YMM(), YMM()
		VPUNPCKLDQ(r[i+1], r[i], t[i])
		VPUNPCKHDQ(r[i+1], r[i], t[i+1])
	}
	for g := 0; g < 8; g += 4 {
		for h := range 2 {
			a, b := t[g+h], t[g+h+2]
			u[g+2*h], u[g+2*h+1] = YMM(), YMM()
			VPUNPCKLQDQ(b, a, u[g+2*h])
			VPUNPCKHQDQ(b, a, u[g+2*h+1])
		}
	}
	for j := range 4 {
		o[j], o[j+4] = YMM(), YMM()
		VPERM2I128(Imm(0x20), u[4+j], u[j], o[j])
		VPERM2I128(Imm(0x31), u[4+j], u[j], o[j+4])
	}
	return o
}

// idctPass is one pass of jidctint.c's jpeg_idct_islow on eight columns
// at once: x[k] holds input k of each of the eight 1-D transforms (x is
// consumed), round is added before the final arithmetic right shift by
// shift (shift 0 leaves the sums undescaled, with round added). It returns
// the eight outputs in order.
func idctPass(x [8]VecVirtual, round int32, shift uint64) (o [8]VecVirtual) {
	k := dctc.k
	// Even part: x[2], x[6] rotate, x[0], x[4] add; round goes into tmp0
	// and tmp1, which every output contains once.
	z1 := YMM()
	VPADDD(x[6], x[2], z1)
	VPMULLD(k(fix0541196100), z1, z1)
	tmp2, tmp3 := YMM(), YMM()
	VPMULLD(k(-fix1847759065), x[6], tmp2)
	VPADDD(z1, tmp2, tmp2)
	VPMULLD(k(fix0765366865), x[2], tmp3)
	VPADDD(z1, tmp3, tmp3)
	tmp0, tmp1 := YMM(), YMM()
	VPADDD(x[4], x[0], tmp0)
	VPSUBD(x[4], x[0], tmp1)
	VPSLLD(Imm(13), tmp0, tmp0)
	VPSLLD(Imm(13), tmp1, tmp1)
	VPADDD(k(round), tmp0, tmp0)
	VPADDD(k(round), tmp1, tmp1)
	tmp10, tmp13, tmp11, tmp12 := YMM(), YMM(), YMM(), YMM()
	VPADDD(tmp3, tmp0, tmp10)
	VPSUBD(tmp3, tmp0, tmp13)
	VPADDD(tmp2, tmp1, tmp11)
	VPSUBD(tmp2, tmp1, tmp12)

	// Odd part: tmp0…tmp3 are x[7], x[5], x[3], x[1].
	o0, o1, o2, o3 := x[7], x[5], x[3], x[1]
	z1, z2, z3, z4, z5 := YMM(), YMM(), YMM(), YMM(), YMM()
	VPADDD(o3, o0, z1)
	VPADDD(o2, o1, z2)
	VPADDD(o2, o0, z3)
	VPADDD(o3, o1, z4)
	VPADDD(z4, z3, z5)
	VPMULLD(k(fix1175875602), z5, z5)
	VPMULLD(k(fix0298631336), o0, o0)
	VPMULLD(k(fix2053119869), o1, o1)
	VPMULLD(k(fix3072711026), o2, o2)
	VPMULLD(k(fix1501321110), o3, o3)
	VPMULLD(k(-fix0899976223), z1, z1)
	VPMULLD(k(-fix2562915447), z2, z2)
	VPMULLD(k(-fix1961570560), z3, z3)
	VPADDD(z5, z3, z3)
	VPMULLD(k(-fix0390180644), z4, z4)
	VPADDD(z5, z4, z4)
	VPADDD(z1, o0, o0)
	VPADDD(z3, o0, o0)
	VPADDD(z2, o1, o1)
	VPADDD(z4, o1, o1)
	VPADDD(z2, o2, o2)
	VPADDD(z3, o2, o2)
	VPADDD(z1, o3, o3)
	VPADDD(z4, o3, o3)

	pair := func(i, j int, even, odd VecVirtual) {
		o[i], o[j] = YMM(), YMM()
		VPADDD(odd, even, o[i])
		VPSUBD(odd, even, o[j])
		if shift > 0 {
			VPSRAD(Imm(shift), o[i], o[i])
			VPSRAD(Imm(shift), o[j], o[j])
		}
	}
	pair(0, 7, tmp10, o3)
	pair(1, 6, tmp11, o2)
	pair(2, 5, tmp12, o1)
	pair(3, 4, tmp13, o0)
	return o
}

// idct writes idctIslowAsm.
func idct() {
	TEXT("idctIslowAsm", NOSPLIT, "func(out []byte, stride int, in *[64]int32) bool")
	Pragma("noescape")
	Doc("idctIslowAsm is idctIslow (jidctint.c jpeg_idct_islow) of the",
		"transposed, dequantised block in, written as 8×8 samples at out[0:],",
		"rows stride apart, when every |in[i]| < 2^15; then it returns true.",
		"Otherwise it writes nothing and returns false. Both passes run on",
		"eight columns (rows) at once in 32-bit lanes. The bound keeps every",
		"first-pass sum inside ±2^31 (|sum| ≤ 61214·(2^15 − 1) + 2^10), so",
		"the wrapping lane arithmetic gives the scalar code's workspace",
		"exactly; the second pass wraps harmlessly, as only bits 18…27 of",
		"its sums reach the range-limit table (index & 1023), which the",
		"assembly reproduces by sign-extending those ten bits and saturating",
		"to −128…127 before adding 128. out must hold 7·stride + 8 bytes.")
	out := Load(Param("out").Base(), GP64())
	stride := Load(Param("stride"), GP64())
	in := Load(Param("in"), GP64())

	var c [8]VecVirtual
	for i := range c {
		c[i] = YMM()
		VMOVDQU(Mem{Base: in, Disp: 32 * i}, c[i])
	}
	// Bound check: OR of |in[i]| below 2^15.
	acc, t := YMM(), YMM()
	VPABSD(c[0], acc)
	for i := 1; i < 8; i++ {
		VPABSD(c[i], t)
		VPOR(t, acc, acc)
	}
	VPSRLD(Imm(15), acc, acc)
	VPTEST(acc, acc)
	JZ(LabelRef("idct_ok"))
	VZEROUPPER()
	no := GP8()
	MOVB(U8(0), no)
	Store(no, ReturnIndex(0))
	RET()

	Label("idct_ok")
	// c[i] is column i (lane r = row r); the column pass needs row k of
	// all columns.
	ws := idctPass(transpose8(c), 1<<10, 11)
	// ws[k] lane j is workspace row k, column j: transpose to run the
	// row pass on eight rows at once.
	v := idctPass(transpose8(ws), 1<<17, 0)
	// v[j] lane r is output column j of row r before the descale: bits
	// 18…27 sign-extended, saturated and shifted by 128 as rangeLimit does.
	for j := range v {
		VPSLLD(Imm(4), v[j], v[j])
		VPSRAD(Imm(22), v[j], v[j])
	}
	var a [4]VecVirtual
	for i := range a {
		a[i] = YMM()
		VPACKSSDW(v[2*i+1], v[2*i], a[i]) // half h: v[2i] rows 4h…4h+3, v[2i+1] likewise
	}
	// b[0] half h byte 4j + r is column j (0…3) of row 4h + r; b[1] has
	// columns 4…7.
	b := [2]VecVirtual{YMM(), YMM()}
	VPACKSSWB(a[1], a[0], b[0])
	VPACKSSWB(a[3], a[2], b[1])
	bias := YMM()
	VMOVDQU(dctc.k(-0x7f7f7f80), bias) // 0x80 in every byte
	for i := range b {
		VPXOR(bias, b[i], b[i])
		VPSHUFB(idctShuf, b[i], b[i]) // half h: rows 4h…4h+3, four columns each
	}
	lo, hi := YMM(), YMM()
	VPUNPCKLDQ(b[1], b[0], lo) // half h: rows 4h, 4h+1
	VPUNPCKHDQ(b[1], b[0], hi) // half h: rows 4h+2, 4h+3
	s3 := GP64()
	LEAQ(Mem{Base: stride, Index: stride, Scale: 2}, s3)
	VMOVQ(lo.AsX(), Mem{Base: out})
	VPEXTRQ(Imm(1), lo.AsX(), Mem{Base: out, Index: stride, Scale: 1})
	VMOVQ(hi.AsX(), Mem{Base: out, Index: stride, Scale: 2})
	VPEXTRQ(Imm(1), hi.AsX(), Mem{Base: out, Index: s3, Scale: 1})
	LEAQ(Mem{Base: out, Index: stride, Scale: 4}, out)
	lo4, hi4 := XMM(), XMM()
	VEXTRACTI128(Imm(1), lo, lo4)
	VEXTRACTI128(Imm(1), hi, hi4)
	VMOVQ(lo4, Mem{Base: out})
	VPEXTRQ(Imm(1), lo4, Mem{Base: out, Index: stride, Scale: 1})
	VMOVQ(hi4, Mem{Base: out, Index: stride, Scale: 2})
	VPEXTRQ(Imm(1), hi4, Mem{Base: out, Index: s3, Scale: 1})
	VZEROUPPER()
	yes := GP8()
	MOVB(U8(1), yes)
	Store(yes, ReturnIndex(0))
	RET()
}

// fdctPass is one pass of jfdctint.c's jpeg_fdct_islow on eight rows
// (columns) at once: x[j] holds input j of each 1-D transform (x is
// consumed). Outputs 0 and 4 are (tmp10 ± tmp11 + r0) >> s0 and the others
// (… + r1) >> s1, with r0 added only when s0 > 0 and outputs 0 and 4
// shifted left by pass1Bits (2) when s0 is 0, as in the first pass.
func fdctPass(x [8]VecVirtual, s0, s1 uint64) (o [8]VecVirtual) {
	k := dctc.k
	var tmp [8]VecVirtual
	for i := range 4 {
		tmp[i], tmp[7-i] = YMM(), YMM()
		VPADDD(x[7-i], x[i], tmp[i])
		VPSUBD(x[7-i], x[i], tmp[7-i])
	}
	tmp10, tmp13, tmp11, tmp12 := YMM(), YMM(), YMM(), YMM()
	VPADDD(tmp[3], tmp[0], tmp10)
	VPSUBD(tmp[3], tmp[0], tmp13)
	VPADDD(tmp[2], tmp[1], tmp11)
	VPSUBD(tmp[2], tmp[1], tmp12)
	o[0], o[4] = YMM(), YMM()
	if s0 == 0 {
		VPADDD(tmp11, tmp10, o[0])
		VPSUBD(tmp11, tmp10, o[4])
		VPSLLD(Imm(2), o[0], o[0])
		VPSLLD(Imm(2), o[4], o[4])
	} else {
		VPADDD(k(1<<(s0-1)), tmp10, tmp10)
		VPADDD(tmp11, tmp10, o[0])
		VPSUBD(tmp11, tmp10, o[4])
		VPSRAD(Imm(s0), o[0], o[0])
		VPSRAD(Imm(s0), o[4], o[4])
	}
	round := k(1 << (s1 - 1))
	z1 := YMM()
	VPADDD(tmp13, tmp12, z1)
	VPMULLD(k(fix0541196100), z1, z1)
	VPADDD(round, z1, z1)
	o[2], o[6] = YMM(), YMM()
	VPMULLD(k(fix0765366865), tmp13, o[2])
	VPADDD(z1, o[2], o[2])
	VPSRAD(Imm(s1), o[2], o[2])
	VPMULLD(k(-fix1847759065), tmp12, o[6])
	VPADDD(z1, o[6], o[6])
	VPSRAD(Imm(s1), o[6], o[6])

	t4, t5, t6, t7 := tmp[4], tmp[5], tmp[6], tmp[7]
	z2, z3, z4, z5 := YMM(), YMM(), YMM(), YMM()
	z1 = YMM()
	VPADDD(t7, t4, z1)
	VPADDD(t6, t5, z2)
	VPADDD(t6, t4, z3)
	VPADDD(t7, t5, z4)
	VPADDD(z4, z3, z5)
	VPMULLD(k(fix1175875602), z5, z5)
	VPMULLD(k(fix0298631336), t4, t4)
	VPMULLD(k(fix2053119869), t5, t5)
	VPMULLD(k(fix3072711026), t6, t6)
	VPMULLD(k(fix1501321110), t7, t7)
	VPMULLD(k(-fix0899976223), z1, z1)
	VPADDD(round, z1, z1) // z1 and z2 each enter two outputs once
	VPMULLD(k(-fix2562915447), z2, z2)
	VPADDD(round, z2, z2)
	VPMULLD(k(-fix1961570560), z3, z3)
	VPADDD(z5, z3, z3)
	VPMULLD(k(-fix0390180644), z4, z4)
	VPADDD(z5, z4, z4)
	sum := func(i int, t, a, b VecVirtual) {
		VPADDD(a, t, t)
		VPADDD(b, t, t)
		VPSRAD(Imm(s1), t, t)
		o[i] = t
	}
	sum(7, t4, z1, z3)
	sum(5, t5, z2, z4)
	sum(3, t6, z2, z3)
	sum(1, t7, z1, z4)
	return o
}

// fdct writes fdctQuantAsm.
func fdct() {
	TEXT("fdctQuantAsm", NOSPLIT, "func(blk *[64]int32, src []byte, stride int, corr, recip, shift *[64]uint32) uint64")
	Pragma("noescape")
	Doc("fdctQuantAsm loads the 8×8 samples at src[0:] (rows stride apart, so",
		"src must hold 7·stride + 8 bytes), level-shifts them by −128, runs",
		"fdctIslow (jfdctint.c jpeg_fdct_islow) on eight rows, then eight",
		"columns, at once in 32-bit lanes (the scalar code's int32 arithmetic,",
		"so identical), and quantises as Encoder.block does: with a = |v|,",
		"q = (a + corr)·recip >> shift, the sign of v restored; the product",
		"stays below 2^32 because a + corr < 2^16 and recip < 2^16. The",
		"result goes to blk in natural order; the returned mask has bit i set",
		"where blk[i] ≠ 0.")
	blk := Load(Param("blk"), GP64())
	src := Load(Param("src").Base(), GP64())
	stride := Load(Param("stride"), GP64())
	s3 := GP64()
	LEAQ(Mem{Base: stride, Index: stride, Scale: 2}, s3)
	var r [8]VecVirtual
	for i := range r {
		r[i] = YMM()
		if i == 4 {
			LEAQ(Mem{Base: src, Index: stride, Scale: 4}, src)
		}
		m := Mem{Base: src}
		switch i % 4 {
		case 1:
			m = Mem{Base: src, Index: stride, Scale: 1}
		case 2:
			m = Mem{Base: src, Index: stride, Scale: 2}
		case 3:
			m = Mem{Base: src, Index: s3, Scale: 1}
		}
		VPMOVZXBD(m, r[i])
		VPSUBD(dctc.k(128), r[i], r[i])
	}
	// r[i] is sample row i; the row pass needs column j of all rows.
	rows := fdctPass(transpose8(r), 0, 11)
	// rows[u] lane i is coefficient u of row i: transpose for the column
	// pass, whose outputs are then the natural rows.
	d := fdctPass(transpose8(rows), 2, 15)
	corr := Load(Param("corr"), GP64())
	recip := Load(Param("recip"), GP64())
	shift := Load(Param("shift"), GP64())
	zero := YMM()
	VPXOR(zero, zero, zero)
	zeros := GP64() // bit i set where blk[i] = 0
	XORQ(zeros, zeros)
	for i, v := range d {
		sign, a := YMM(), YMM()
		VPSRAD(Imm(31), v, sign)
		VPABSD(v, a)
		VPADDD(Mem{Base: corr, Disp: 32 * i}, a, a)
		VPMULLD(Mem{Base: recip, Disp: 32 * i}, a, a)
		VPSRLVD(Mem{Base: shift, Disp: 32 * i}, a, a)
		VPXOR(sign, a, a)
		VPSUBD(sign, a, a)
		VMOVDQU(a, Mem{Base: blk, Disp: 32 * i})
		VPCMPEQD(zero, a, a)
		bitsRow := GP64()
		VMOVMSKPS(a, bitsRow.As32())
		if i > 0 {
			SHLQ(Imm(uint64(8*i)), bitsRow)
		}
		ORQ(bitsRow, zeros)
	}
	VZEROUPPER()
	NOTQ(zeros)
	Store(zeros, ReturnIndex(0))
	RET()
}
