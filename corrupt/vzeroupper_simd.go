//go:build goexperiment.simd && amd64

package corrupt

import "simd/archsimd"

// cleanVectorState executes VZEROUPPER. Corruption.Apply calls it first
// because in the GOEXPERIMENT=simd build the runtime's asynchronous
// preemption handler (runtime/preempt_amd64.s, Go 1.26) restores the full
// AVX-512 register state and returns with the upper halves dirty; until the
// next VZEROUPPER, every legacy-SSE (scalar float) instruction then pays a
// transition penalty, which made scalar-only corruptions 10–25 % slower
// than in the other builds. (The assembly kernels end with VZEROUPPER
// themselves.)
func cleanVectorState() {
	if archsimd.X86.AVX() {
		archsimd.ClearAVXUpperBits()
	}
}
