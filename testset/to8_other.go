//go:build !amd64 || purego

package testset

import "github.com/vcr-bench/vcr/imageio"

// to8RGB writes m's samples, converted to 8 bit with r, into dst
// (interleaved RGB, len 3·pixels). This build has only the pure-Go version.
func to8RGB(dst []byte, m *imageio.Image, r imageio.Rounding) { to8RGBGo(dst, m, r) }
