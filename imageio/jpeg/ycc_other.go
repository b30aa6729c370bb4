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

// rgbToYccVec reports how many pixels of a row a vector colour converter
// did: none in this build, which has only the pure-Go code.
func rgbToYccVec(yr, cbr, crr, src []uint8) int { return 0 }

// downsampleH2V2Vec reports how many outputs of a row a vector downsampler
// did: none in this build, which has only the pure-Go code.
func downsampleH2V2Vec(o, r0, r1 []uint8) int { return 0 }
