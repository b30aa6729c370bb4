//go:build !goexperiment.simd || !amd64 || purego

package corrupt

// The default build has no vectorised fog kernels (fog_simd_amd64.go has
// them): these handle no samples and the Go loops do all of them.

func fogBlendVec(_, _, _, _, _, _, _ []float32, _, _, _ float32) int { return 0 }

func fogMaxVec([]float32) (float32, int) { return 0, 0 }
