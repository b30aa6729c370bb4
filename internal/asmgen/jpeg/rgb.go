package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// rgbToYcc writes rgbToYccAsm: jccolor.c rgb_ycc_convert for eight pixels
// at a time in 32-bit lanes.
func rgbToYcc() {
	consts := GLOBL("rgbconst", RODATA|NOPTR)
	// FIX(0.29900), FIX(0.58700), FIX(0.11400), −FIX(0.16874),
	// −FIX(0.33126), −FIX(0.41869), −FIX(0.08131), ONE_HALF and
	// CBCR_OFFSET + ONE_HALF − 1.
	// Each is stored eight times (a 32-byte vector), read as a memory
	// operand: held in registers they would leave too few for the rest.
	for i, v := range []int32{19595, 38470, 7471, -11059, -21709, -27439, -5329, 1 << 15, 128<<16 + 1<<15 - 1} {
		for j := range 8 {
			DATA(32*i+4*j, U32(uint32(v)))
		}
	}
	// Byte shuffles taking R, G and B of the four pixels in the first 12
	// bytes of each 128-bit half to four zero-extended 32-bit lanes.
	shuf := GLOBL("rgbshuf", RODATA|NOPTR)
	for c := range 3 {
		var lo, hi uint64
		for p := range 2 {
			lo |= uint64(0x80808000|(3*p+c)) << (32 * p)
			hi |= uint64(0x80808000|(3*(p+2)+c)) << (32 * p)
		}
		for h := range 2 {
			DATA(32*c+16*h, U64(lo))
			DATA(32*c+16*h+8, U64(hi))
		}
	}
	perm := GLOBL("rgbperm", RODATA|NOPTR)
	for i, v := range []uint32{0, 4, 1, 5, 2, 6, 3, 7} {
		DATA(4*i, U32(v))
	}

	TEXT("rgbToYccAsm", NOSPLIT, "func(y, cb, cr, rgb []byte, k int)")
	Pragma("noescape")
	Doc("rgbToYccAsm is Encoder.convertRGB's colour conversion for the first 8k",
		"pixels, eight at a time, in 32-bit lanes with libjpeg's formulas",
		"(jccolor.c rgb_ycc_convert): Y = (19595·R +",
		"38470·G + 7471·B + 2^15) >> 16, Cb = (−11059·R − 21709·G + 32768·B +",
		"128·2^16 + 2^15 − 1) >> 16, Cr = (32768·R − 27439·G − 5329·B + 128·2^16",
		"+ 2^15 − 1) >> 16, all within 0…255. It reads rgb at 0 … 24k + 3 (two",
		"16-byte loads per 8 pixels), so rgb must hold 24k + 4 bytes, and writes",
		"8k bytes of y, cb and cr.")
	yp := Load(Param("y").Base(), GP64())
	cbp := Load(Param("cb").Base(), GP64())
	crp := Load(Param("cr").Base(), GP64())
	src := Load(Param("rgb").Base(), GP64())
	k := Load(Param("k"), GP64())
	cst := func(i int) Mem { return consts.Offset(32 * i) }
	kRY, kGY, kBY, kRCb, kGCb, kGCr, kBCr, half, off := cst(0), cst(1), cst(2), cst(3), cst(4), cst(5), cst(6), cst(7), cst(8)
	idx := YMM()
	VMOVDQU(perm, idx)
	o := GP64() // pixel offset
	XORQ(o, o)
	Label("rgb_loop")
	TESTQ(k, k)
	JZ(LabelRef("rgb_done"))
	v := YMM()
	VMOVDQU(Mem{Base: src}, v.AsX())
	VINSERTI128(Imm(1), Mem{Base: src, Disp: 12}, v, v)
	r, g, b := YMM(), YMM(), YMM()
	VPSHUFB(shuf, v, r)
	VPSHUFB(shuf.Offset(32), v, g)
	VPSHUFB(shuf.Offset(64), v, b)
	y, cb, cr, t := YMM(), YMM(), YMM(), YMM()
	VPMULLD(kRY, r, y)
	VPMULLD(kGY, g, t)
	VPADDD(t, y, y)
	VPMULLD(kBY, b, t)
	VPADDD(t, y, y)
	VPADDD(half, y, y)
	VPMULLD(kRCb, r, cb)
	VPMULLD(kGCb, g, t)
	VPADDD(t, cb, cb)
	VPSLLD(Imm(15), b, t)
	VPADDD(t, cb, cb)
	VPADDD(off, cb, cb)
	VPSLLD(Imm(15), r, cr)
	VPMULLD(kGCr, g, t)
	VPADDD(t, cr, cr)
	VPMULLD(kBCr, b, t)
	VPADDD(t, cr, cr)
	VPADDD(off, cr, cr)
	for _, c := range []VecVirtual{y, cb, cr} {
		VPSRLD(Imm(16), c, c)
	}
	VPACKSSDW(cb, y, y)   // half h: Y, Cb of pixels 4h…4h+3
	VPACKSSDW(cr, cr, cr) // half h: Cr twice
	VPACKUSWB(cr, y, y)   // half h dwords: Y, Cb, Cr, Cr
	VPERMD(y, idx, y)     // qwords: Y, Cb, Cr, Cr of pixels 0…7
	VMOVQ(y.AsX(), Mem{Base: yp, Index: o, Scale: 1})
	VPEXTRQ(Imm(1), y.AsX(), Mem{Base: cbp, Index: o, Scale: 1})
	hi := XMM()
	VEXTRACTI128(Imm(1), y, hi)
	VMOVQ(hi, Mem{Base: crp, Index: o, Scale: 1})
	ADDQ(Imm(24), src)
	ADDQ(Imm(8), o)
	DECQ(k)
	JMP(LabelRef("rgb_loop"))
	Label("rgb_done")
	VZEROUPPER()
	RET()
}

// downsampleH2V2 writes downsampleH2V2Asm: jcsample.c h2v2_downsample for
// 16 output samples at a time in 16-bit lanes.
func downsampleH2V2() {
	consts := GLOBL("dsconst", RODATA|NOPTR)
	DATA(0, U16(0x0101)) // 1 in each byte, for the pair sums
	DATA(2, U16(1))      // the bias of even outputs
	DATA(4, U16(2))      // the bias of odd outputs
	TEXT("downsampleH2V2Asm", NOSPLIT, "func(out, r0, r1 []byte, k int)")
	Pragma("noescape")
	Doc("downsampleH2V2Asm is Encoder.convertRGB's downsampling (jcsample.c",
		"h2v2_downsample) for the outputs 0 … 16k − 1, 16 at a time in 16-bit",
		"lanes with the same arithmetic: out[x] =",
		"(r0[2x] + r0[2x+1] + r1[2x] + r1[2x+1] + 1 + x&1) >> 2. It reads 32k",
		"bytes of r0 and r1 and writes 16k bytes of out.")
	out := Load(Param("out").Base(), GP64())
	p0 := Load(Param("r0").Base(), GP64())
	p1 := Load(Param("r1").Base(), GP64())
	k := Load(Param("k"), GP64())
	ones, bias, b2 := YMM(), YMM(), YMM()
	VPBROADCASTW(consts, ones)
	VPBROADCASTW(consts.Offset(2), bias)
	VPBROADCASTW(consts.Offset(4), b2)
	VPBLENDW(Imm(0xaa), b2, bias, bias) // 1, 2, 1, 2, …
	o := GP64()
	XORQ(o, o)
	Label("ds_loop")
	TESTQ(k, k)
	JZ(LabelRef("ds_done"))
	a, b := YMM(), YMM()
	VMOVDQU(Mem{Base: p0, Index: o, Scale: 2}, a)
	VMOVDQU(Mem{Base: p1, Index: o, Scale: 2}, b)
	VPMADDUBSW(ones, a, a)
	VPMADDUBSW(ones, b, b)
	VPADDW(b, a, a)
	VPADDW(bias, a, a)
	VPSRLW(Imm(2), a, a)
	VPACKUSWB(a, a, a)
	VPERMQ(Imm(0x08), a, a)
	VMOVDQU(a.AsX(), Mem{Base: out, Index: o, Scale: 1})
	ADDQ(Imm(16), o)
	DECQ(k)
	JMP(LabelRef("ds_loop"))
	Label("ds_done")
	VZEROUPPER()
	RET()
}
