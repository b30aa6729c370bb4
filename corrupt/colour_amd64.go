//go:build amd64 && !purego

package corrupt

// hsvVec runs colourHSVMap's op on the pixels of R, G, B from the first on,
// four at a time in assembly (hsvBrightnessAsm, hsvSaturateAsm in
// filter_amd64.s), writing dR, dG, dB, until fewer than four are left or a
// group has a sample outside [+0, 1]; it returns the pixels done. Every
// lane does the Go code's float64 operations in the same order, with
// blends for its branches, so the results are bit-identical
// (TestHSVVecExact).
func hsvVec(op hsvOp, c [2]float64, dR, dG, dB, R, G, B []float32) int {
	if !simdKernels {
		return 0
	}
	k := len(R) / 4
	n := 4 * k
	dR, dG, dB, R, G, B = dR[:n], dG[:n], dB[:n], R[:n], G[:n], B[:n]
	if op == hsvSaturate {
		return 4 * hsvSaturateAsm(dR, dG, dB, R, G, B, &c, k)
	}
	return 4 * hsvBrightnessAsm(dR, dG, dB, R, G, B, &c, k)
}
