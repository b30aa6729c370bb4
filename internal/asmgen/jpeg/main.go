// Command jpeg writes the AVX2 assembly of package imageio/jpeg
// (imageio/jpeg/jpeg_amd64.s) and its Go declaration
// (imageio/jpeg/jpeg_amd64_decl.go) with avo (github.com/mmcloughlin/avo).
// Regenerate with
//
//	go generate ./imageio/jpeg
//
// (see the go:generate line in imageio/jpeg/ycc_amd64.go), which runs
//
//	go -C internal/asmgen run ./jpeg -out ../../imageio/jpeg/jpeg_amd64.s -stubs ../../imageio/jpeg/jpeg_amd64_decl.go -pkg jpeg
//
// and commit both generated files.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	dctConstants()
	// libjpeg's ycc_rgb_convert constants (jdcolor.c build_ycc_rgb_table),
	// each broadcast to eight 32-bit lanes: the centre 128, FIX(1.40200),
	// FIX(1.77200), −FIX(0.34414), −FIX(0.71414), ONE_HALF and 255.
	consts := GLOBL("yccconst", RODATA|NOPTR)
	for i, v := range []int32{128, 91881, 116130, -22554, -46802, 1 << 15, 255} {
		DATA(4*i, U32(uint32(v)))
	}
	// Byte shuffle taking the low three bytes of the four 32-bit lanes of
	// each 128-bit half to its first 12 bytes, zeroing the last four.
	shuf := GLOBL("yccshuf", RODATA|NOPTR)
	for half := range 2 {
		DATA(16*half, U64(0x0908060504020100))
		DATA(16*half+8, U64(0x808080800e0d0c0a))
	}

	TEXT("yccToRGBAsm", NOSPLIT, "func(dst, y, cb, cr []byte, k int)")
	Pragma("noescape")
	Doc("yccToRGBAsm is yccToRGBGo for the first 8k pixels, eight at a time, in",
		"32-bit lanes with libjpeg's formulas (the ones its tables hold, so the",
		"results are identical): R = Y + (91881·(Cr−128) + 2^15) >> 16,",
		"G = Y + (−22554·(Cb−128) − 46802·(Cr−128) + 2^15) >> 16,",
		"B = Y + (116130·(Cb−128) + 2^15) >> 16, each clamped to 0…255. The three",
		"channels are interleaved by a shuffle and stored with two 16-byte stores",
		"per 8 pixels, so dst must hold 24k + 4 bytes.")
	dst := Mem{Base: Load(Param("dst").Base(), GP64())}
	yp := Mem{Base: Load(Param("y").Base(), GP64())}
	cbp := Mem{Base: Load(Param("cb").Base(), GP64())}
	crp := Mem{Base: Load(Param("cr").Base(), GP64())}
	k := Load(Param("k"), GP64())
	cst := func(i int) VecVirtual {
		r := YMM()
		VPBROADCASTD(consts.Offset(4*i), r)
		return r
	}
	c128, kR, kB, kGb, kGr, half, c255 := cst(0), cst(1), cst(2), cst(3), cst(4), cst(5), cst(6)
	zero := YMM()
	VPXOR(zero, zero, zero)
	sh := YMM()
	VMOVDQU(shuf, sh)
	off := GP64() // sample offset; dst advances by 24 per group
	XORQ(off, off)
	Label("ycc_loop")
	TESTQ(k, k)
	JZ(LabelRef("ycc_done"))
	yv, cbv, crv := YMM(), YMM(), YMM()
	VPMOVZXBD(yp.Idx(off, 1), yv)
	VPMOVZXBD(cbp.Idx(off, 1), cbv)
	VPMOVZXBD(crp.Idx(off, 1), crv)
	VPSUBD(c128, cbv, cbv)
	VPSUBD(c128, crv, crv)
	r, g, b, t := YMM(), YMM(), YMM(), YMM()
	VPMULLD(kR, crv, r)
	VPMULLD(kB, cbv, b)
	VPMULLD(kGb, cbv, g)
	VPMULLD(kGr, crv, t)
	VPADDD(t, g, g)
	for _, v := range []VecVirtual{r, g, b} {
		VPADDD(half, v, v)
		VPSRAD(Imm(16), v, v)
		VPADDD(yv, v, v)
		VPMAXSD(zero, v, v)
		VPMINSD(c255, v, v)
	}
	VPSLLD(Imm(8), g, g)
	VPSLLD(Imm(16), b, b)
	VPOR(g, r, r)
	VPOR(b, r, r)
	VPSHUFB(sh, r, r)
	hi := XMM()
	VEXTRACTI128(Imm(1), r, hi)
	VMOVDQU(r.AsX(), dst)
	VMOVDQU(hi, dst.Offset(12))
	ADDQ(Imm(24), dst.Base)
	ADDQ(Imm(8), off)
	DECQ(k)
	JMP(LabelRef("ycc_loop"))
	Label("ycc_done")
	VZEROUPPER()
	RET()

	fancyH2V2()
	idct()
	fdct()
	rgbToYcc()
	downsampleH2V2()
	Generate()
}

// fancyH2V2 writes fancyH2V2Asm: jdsample.c h2v2_fancy_upsample for
// 16 input samples at a time in 16-bit lanes.
func fancyH2V2() {
	bias := GLOBL("fancybias", RODATA|NOPTR)
	DATA(0, U16(8))
	DATA(2, U16(7))
	TEXT("fancyH2V2Asm", NOSPLIT, "func(out, near, far []byte, k int)")
	Pragma("noescape")
	Doc("fancyH2V2Asm is fancyH2V2Go's loop for the input samples 1 … 16k, 16 at",
		"a time, in 16-bit lanes with the same arithmetic: with t = 3·near + far",
		"per column, out[2i] = (3·t[i] + t[i−1] + 8) >> 4 and",
		"out[2i+1] = (3·t[i] + t[i+1] + 7) >> 4, stored as one 32-byte store per 16",
		"samples. It reads near and far at 0 … 16k + 1, so they must hold",
		"16k + 2 samples and out 32k + 2.")
	out := Load(Param("out").Base(), GP64())
	np := Load(Param("near").Base(), GP64())
	fp := Load(Param("far").Base(), GP64())
	k := Load(Param("k"), GP64())
	k8, k7 := YMM(), YMM()
	VPBROADCASTW(bias, k8)
	VPBROADCASTW(bias.Offset(2), k7)
	off := GP64() // input index i
	MOVQ(U32(1), off)
	Label("fancy_loop")
	TESTQ(k, k)
	JZ(LabelRef("fancy_done"))
	var t [3]VecVirtual
	for j := range t { // t[j] = 3·near + far at i − 1 + j
		n, f := YMM(), YMM()
		VPMOVZXBW(Mem{Base: np, Index: off, Scale: 1, Disp: j - 1}, n)
		VPMOVZXBW(Mem{Base: fp, Index: off, Scale: 1, Disp: j - 1}, f)
		t[j] = YMM()
		VPSLLW(Imm(1), n, t[j])
		VPADDW(n, t[j], t[j])
		VPADDW(f, t[j], t[j])
	}
	c3 := YMM()
	VPSLLW(Imm(1), t[1], c3)
	VPADDW(t[1], c3, c3)
	VPADDW(c3, t[0], t[0])
	VPADDW(k8, t[0], t[0])
	VPSRLW(Imm(4), t[0], t[0])
	VPADDW(c3, t[2], t[2])
	VPADDW(k7, t[2], t[2])
	VPSRLW(Imm(4), t[2], t[2])
	VPSLLW(Imm(8), t[2], t[2])
	VPOR(t[2], t[0], t[0])
	VMOVDQU(t[0], Mem{Base: out, Index: off, Scale: 2})
	ADDQ(Imm(16), off)
	DECQ(k)
	JMP(LabelRef("fancy_loop"))
	Label("fancy_done")
	VZEROUPPER()
	RET()
}
