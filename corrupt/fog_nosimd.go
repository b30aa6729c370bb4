//go:build !amd64 || purego

package corrupt

// The pure-Go build (the build tag purego, or not amd64) has no vectorised
// fog kernels (fog_amd64.go has them): these handle
// no samples and the Go loops do all of them.

func fogBlendVec(_, _, _, _, _, _, _ []float32, _, _, _ float32) int { return 0 }

func fogMaxVec([]float32) (float32, int) { return 0, 0 }

// frostBlendVec vectorises nothing in this build.
func frostBlendVec(_, _, _ []float32, _, _ float32) int { return 0 }

// frostBlend4Vec vectorises nothing in this build.
func frostBlend4Vec(_, _, _, _, _, _ []float32, _, _ float32, _ [4]float32) int { return 0 }
