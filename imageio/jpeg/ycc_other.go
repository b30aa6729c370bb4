//go:build !amd64 || purego

package jpeg

// yccToRGB is jdcolor.c ycc_rgb_convert for one row: o gets 3·len(yr)
// samples. This build has only the pure-Go version.
func yccToRGB(o, yr, cb, cr []uint8) { yccToRGBGo(o, yr, cb, cr) }

// fuse420 reports whether 4:2:0 frames take the fused path (fancy420Row).
func fuse420() bool { return true }
