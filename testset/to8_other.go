//go:build !amd64 || purego

package testset

import "github.com/vcr-bench/vcr/imageio"

// to8RGB writes m's samples, converted to 8 bit with r, into dst
// (interleaved RGB, len 3·pixels). This build has only the pure-Go version.
func to8RGB(dst []byte, m *imageio.Image, r imageio.Rounding) { to8RGBGo(dst, m, r) }

// to8RGBLuma is to8RGB followed by lumaRGB8(grey, dst).
func to8RGBLuma(dst []byte, grey []float64, m *imageio.Image, r imageio.Rounding) {
	n := len(m.Ch[0])
	to8RGBGo(dst, m, r)
	lumaRGB8(grey[:n], dst[:3*n])
}
