//go:build amd64 && !purego

package jpeg

import "golang.org/x/sys/cpu"

// dctVector reports whether the inverse DCT of blocks with AC terms and the
// encoder's forward DCT and quantisation use the assembly (jpeg_amd64.s),
// which needs AVX2. Tests switch it off to compare both paths.
var dctVector = cpu.X86.HasAVX2

// idctVec runs idctIslowAsm on a block (transposed, dequantised) whose last
// nonzero coefficient is at zig-zag position kmax or before, and reports
// whether it did: not without AVX2, not for DC-only blocks (kmax 0, which
// idctDC does faster; the assembly also beats the 2×2 and 4×4 shortcuts)
// and not for coefficients of 2^15 or more in magnitude (corrupt or unusual
// files), which go to the scalar code. The results are identical to
// idctIslow's.
func idctVec(out []uint8, stride int, in *[64]int32, kmax int) bool {
	return dctVector && kmax > 0 && idctIslowAsm(out[:7*stride+8], stride, in)
}

// fdctVec runs fdctQuantAsm on the 8×8 samples at src[0:] (rows stride
// apart) into blk, quantised with dv: the results of fdctIslow followed by
// Encoder.block's quantisation, exactly. It returns the mask of nonzero
// coefficients (bit i for blk[i]). Callers check dctVector first.
func fdctVec(blk *[64]int32, src []uint8, stride int, dv *divisors) uint64 {
	return fdctQuantAsm(blk, src[:7*stride+8], stride, &dv.corr, &dv.recip, &dv.shift)
}
