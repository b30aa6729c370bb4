// Package jpeg is a pure-Go baseline JPEG encoder and a baseline and
// progressive JPEG decoder that reproduce libjpeg-turbo, as Pillow uses it,
// to the bit.
//
// The encoder writes exactly the bytes of Pillow's
// Image.save(f, "JPEG", quality=q) with its other arguments at their
// defaults: a JFIF 1.01 APP0 header, libjpeg's standard (ITU-T T.81 Annex K)
// quantisation tables scaled by quality as jpeg_set_quality does with
// force_baseline, the standard Huffman tables (no optimisation), one
// interleaved baseline scan, and for RGB images 4:2:0 chroma subsampling.
// The steps are libjpeg-turbo's: fixed-point RGB→YCbCr (jccolor.c),
// h2v2 downsampling with the alternating bias 1, 2 (jcsample.c), edge
// replication to whole blocks and dummy blocks to whole MCUs (jcprepct.c,
// jccoefct.c), the accurate integer forward DCT "islow" (jfdctint.c;
// Loeffler, Ligtenberg & Moschytz 1989) and its reciprocal-multiplication
// quantiser (jcdctmgr.c). Grayscale images are encoded as one component
// with the luminance tables.
//
// The decoder returns the pixels of Pillow's Image.open(f).load() (libjpeg
// defaults: islow inverse DCT, "fancy" triangular chroma upsampling, no
// merged upsampling, fixed-point YCbCr→RGB tables). It reads 8-bit Huffman
// baseline, extended sequential and progressive files with one (grayscale)
// or three components (YCbCr, or RGB when an Adobe marker or the component
// IDs say so), any integral sampling factors and restart intervals. It
// returns an error wrapping ErrUnsupported for what it does not implement
// (arithmetic coding, lossless and hierarchical modes, 12-bit samples, four
// components such as CMYK/YCCK, non-integral sampling ratios, and
// progressive files whose last scans leave low-frequency coefficients
// unrefined, for which libjpeg applies its block-smoothing filter), so that
// a caller can fall back to another decoder instead of getting an image
// that differs silently.
//
// Both are tested byte for byte and pixel for pixel against Debian's Pillow
// 9.4 with libjpeg-turbo 2.1.5, which the tests run when /usr/bin/python3
// has PIL (VCR_REQUIRE_PILLOW=1 makes its absence a failure): generated
// images of many sizes (1×1, odd, 224×224, 500×375) at every quality 1…100,
// RGB and grayscale; Pillow's progressive, 4:4:4, 4:2:2 and 4:2:0 files;
// 4:4:0 and 4:1:1 files remapped from Pillow's; files with restart
// intervals; two photographs from another encoder. Golden files written by
// Pillow (testdata/golden) keep bytes and pixels tested on machines without
// it.
//
// Speed: encoding is faster than libjpeg-turbo's portable C code, decoding
// about as fast (docs/performance.md, scripts/bench-jpeg.sh); the
// inverse DCT skips exactly the arithmetic on coefficients known to be zero
// (DC-only, 2×2 and 4×4 blocks), which changes no result.
package jpeg
