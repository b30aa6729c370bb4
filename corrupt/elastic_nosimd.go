//go:build !goexperiment.simd || !amd64 || purego

package corrupt

// The default build has no vectorised elastic_transform kernels
// (elastic_simd_amd64.go has them): these compute no outputs, and
// elasticSymAccumulate's Go loops do all of them.

func elasticSym3Vec([]float32, [7][]float32, [4]float32) int { return 0 }

func elasticPair2Vec([]float32, [8][]float32, [4]float32) int { return 0 }
