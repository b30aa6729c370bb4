//go:build !amd64 || purego

package corrupt

// hsvVec vectorises nothing in this build: colourHSVMap's Go loop does
// every pixel.
func hsvVec(_ hsvOp, _ [2]float64, _, _, _, _, _, _ []float32) int { return 0 }
