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
package imageio
