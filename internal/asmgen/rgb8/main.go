// Command rgb8 writes the AVX assembly of imageio's float → 8-bit RGB
// conversion (imageio/rgb8_amd64.s) and its Go declaration
// (imageio/rgb8_amd64_decl.go) with avo (github.com/mmcloughlin/avo).
// Regenerate with
//
//	go generate ./imageio
//
// (see the go:generate line in imageio/rgb8_amd64.go), which runs
//
//	go -C internal/asmgen run ./rgb8 -out ../../imageio/rgb8_amd64.s -stubs ../../imageio/rgb8_amd64_decl.go -pkg imageio
//
// and commit both generated files.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var to8Shuf, to8Luma Mem

func main() {
	ConstraintExpr("amd64,!purego")
	// Byte shuffle taking the low three bytes of four 32-bit lanes to 12
	// consecutive bytes, zeroing the last four.
	to8Shuf = GLOBL("to8shuf", RODATA|NOPTR)
	DATA(0, U64(0x0908060504020100))
	DATA(8, U64(0x808080800e0d0c0a))
	// OpenCV's fixed-point RGB→GRAY weights and rounding term, each in
	// four 32-bit lanes.
	to8Luma = GLOBL("to8luma", RODATA|NOPTR)
	for i, c := range []uint32{9798, 19235, 3735, 16384} {
		for j := range 4 {
			DATA(16*i+4*j, U32(c))
		}
	}
	to8(false)
	to8(true)
	Generate()
}

// to8 emits to8RGBAsm, or to8RGBLumaAsm with luma.
func to8(luma bool) {
	shuf := to8Shuf
	lumaW := to8Luma
	name, sig := "to8RGBAsm", "func(dst []byte, r, g, b []float32, c *[2]float64, k int)"
	if luma {
		name, sig = "to8RGBLumaAsm", "func(dst []byte, grey []float64, r, g, b []float32, c *[2]float64, k int)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	if luma {
		Doc("to8RGBLumaAsm is to8RGBAsm that also writes the grey level of each pixel",
			"into grey, as lumaRGB8: (9798·R + 19235·G + 3735·B + 16384) >> 15 in 32-bit",
			"integers, converted to float64.")
	} else {
		Doc("to8RGBAsm is to8RGBGo for the first 4k pixels, four at a time: per sample",
			"f = float64(v)·255 + c[1] (0.5 to round, 0 to truncate), +0 unless f > 0",
			"(NaN included), at most c[0] = 255, truncated; the three channels are",
			"interleaved into 12 bytes by a shuffle and stored with a 16-byte store, so",
			"dst must hold 12k + 4 bytes.")
	}
	dst := Mem{Base: Load(Param("dst").Base(), GP64())}
	var ch [3]Mem
	for i, name := range []string{"r", "g", "b"} {
		ch[i] = Mem{Base: Load(Param(name).Base(), GP64())}
	}
	var grey Mem
	if luma {
		grey = Mem{Base: Load(Param("grey").Base(), GP64())}
	}
	cp := Mem{Base: Load(Param("c"), GP64())}
	k := Load(Param("k"), GP64())
	c255, add := YMM(), YMM()
	VBROADCASTSD(cp, c255)
	VBROADCASTSD(cp.Offset(8), add)
	z := YMM()
	VXORPD(z, z, z)
	sh := XMM()
	VMOVDQU(shuf, sh)
	var wts [4]VecVirtual
	if luma {
		for i := range wts {
			wts[i] = XMM()
			VMOVDQU(lumaW.Offset(16*i), wts[i])
		}
	}
	off := GP64() // float offset in bytes; dst advances by 12 per group
	XORQ(off, off)
	Label(name + "_loop")
	TESTQ(k, k)
	JZ(LabelRef(name + "_done"))
	var q [3]VecVirtual
	for i := range ch {
		f := YMM()
		VCVTPS2PD(ch[i].Idx(off, 1), f)
		VMULPD(c255, f, f)
		VADDPD(add, f, f)
		m := YMM()
		VCMPPD(Imm(0x01), f, z, m) // 0 < f, false for NaN
		VANDPD(f, m, f)
		VMINPD(c255, f, f)
		q[i] = XMM()
		VCVTTPD2DQY(f, q[i])
	}
	if luma {
		l, t := XMM(), XMM()
		VPMULLD(wts[0], q[0], l)
		VPMULLD(wts[1], q[1], t)
		VPADDD(t, l, l)
		VPMULLD(wts[2], q[2], t)
		VPADDD(t, l, l)
		VPADDD(wts[3], l, l)
		VPSRLD(Imm(15), l, l)
		gv := YMM()
		VCVTDQ2PD(l, gv)
		VMOVUPD(gv, grey.Idx(off, 2))
	}
	VPSLLD(Imm(8), q[1], q[1])
	VPSLLD(Imm(16), q[2], q[2])
	VPOR(q[1], q[0], q[0])
	VPOR(q[2], q[0], q[0])
	VPSHUFB(sh, q[0], q[0])
	VMOVDQU(q[0], dst)
	ADDQ(Imm(12), dst.Base)
	ADDQ(Imm(16), off)
	DECQ(k)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}
