// Package imageio decodes and encodes images and holds the one image type the
// rest of vcr works on: Image, a float32 planar RGB image with values in [0, 1].
//
// Decoding accepts JPEG (including CMYK and YCCK), PNG (including 16-bit and
// paletted), GIF, BMP, TIFF and WebP. Conversion to the float type happens once,
// at the boundary; nothing downstream sees image.Image.
//
// Alpha policy: like Pillow's convert("RGB"), which both reference
// implementations use, the alpha channel is discarded and the straight
// (non-premultiplied) colour is kept. A fully transparent pixel therefore keeps
// whatever colour the file stores for it.
//
// Decompression bombs: Decode reads the header first and refuses images with
// more than Options.MaxPixels pixels before allocating the pixel buffer.
// ReadHeader reads a file's header alone, so that a caller can budget the
// memory an image will need before decoding it (vcr generate's
// --max-memory).
//
// Format notes. Lossy WebP is converted from its limited-range BT.601 YUV
// exactly as libwebp (and so Pillow) does, with libwebp's default "fancy"
// chroma upsampling; golang.org/x/image/webp alone would hand back full-range
// YCbCr and lose contrast (golang/go#40173). JPEG is decoded by imageio/jpeg,
// pixel for pixel as Pillow's libjpeg-turbo decodes it (islow inverse DCT,
// "fancy" chroma upsampling, fixed-point YCbCr→RGB), for baseline and
// progressive files with one or three components; what it does not implement
// (arithmetic coding, 12-bit samples, CMYK and YCCK, progressive files that
// libjpeg would block-smooth) falls back to Go's image/jpeg with Go's colour
// conversion, within a few levels of libjpeg's. JPEG files are written byte
// for byte as Pillow writes them (imageio/jpeg). A GIF whose first frame does
// not cover the logical screen is drawn on a canvas of the screen's size
// filled with the background colour; only the first frame is decoded (an
// animation's other frames are never expanded, whatever their number). A
// decoder panic on malformed data is returned as an error wrapping
// ErrDecoderPanic.
package imageio
