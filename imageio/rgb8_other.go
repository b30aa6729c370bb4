//go:build !amd64 || purego

package imageio

// toRGB8 is ToRGB8. This build has only the pure-Go version.
func toRGB8(dst []byte, m *Image, r Rounding) { toRGB8Go(dst, m, r) }

// toRGB8Luma is ToRGB8Luma: toRGB8Go followed by lumaRGB8.
func toRGB8Luma(dst []byte, grey []float64, m *Image, r Rounding) {
	n := len(m.Ch[0])
	toRGB8Go(dst, m, r)
	lumaRGB8(grey[:n], dst[:3*n])
}
