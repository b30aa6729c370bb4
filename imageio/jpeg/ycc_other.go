//go:build !amd64 || purego

package jpeg

// yccToRGB is jdcolor.c ycc_rgb_convert for one row: o gets 3·len(yr)
// samples. This build has only the pure-Go version.
func yccToRGB(o, yr, cb, cr []uint8) { yccToRGBGo(o, yr, cb, cr) }

// fuse420 reports whether 4:2:0 frames take the fused path (fancy420Row).
func fuse420() bool { return true }

// fancyH2V2 is jdsample.c h2v2_fancy_upsample for one output row (see
// fancyH2V2Go).
func fancyH2V2(out, near, far []uint8) { fancyH2V2Go(out, near, far) }

// rgbToYcc is jccolor.c rgb_ycc_convert for one row (see rgbToYccGo).
func rgbToYcc(yr, cbr, crr, src []uint8) { rgbToYccGo(yr, cbr, crr, src) }

// downsampleH2V2 is jcsample.c h2v2_downsample for one output row (see
// downsampleH2V2Go).
func downsampleH2V2(o, r0, r1 []uint8) { downsampleH2V2Go(o, r0, r1) }
