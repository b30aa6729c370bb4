//go:build !amd64 || purego

package jpeg

// idctVec reports whether a vector inverse DCT handled the block: never in
// this build, which has only the pure-Go code.
func idctVec(out []uint8, stride int, in *[64]int32, kmax int) bool { return false }

// fdctVec reports whether a vector forward DCT handled the block: never in
// this build, which has only the pure-Go code.
func fdctVec(blk *[64]int32, src []uint8, stride int, dv *divisors) bool { return false }
