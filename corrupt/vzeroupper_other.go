//go:build !goexperiment.simd || !amd64

package corrupt

// cleanVectorState does nothing outside the GOEXPERIMENT=simd build: only
// that build's runtime leaves the vector registers' upper halves dirty
// (vzeroupper_simd.go).
func cleanVectorState() {}
