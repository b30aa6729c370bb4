//go:build !amd64 || purego

package jpeg

// dctVector is false: this build has only the pure-Go DCTs.
const dctVector = false

// idctVec reports whether a vector inverse DCT handled the block: never in
// this build.
func idctVec(out []uint8, stride int, in *[64]int32, kmax int) bool { return false }

// fdctVec is never called in this build (dctVector is false).
func fdctVec(blk *[64]int32, src []uint8, stride int, dv *divisors) uint64 {
	panic("jpeg: no vector forward DCT in this build")
}
