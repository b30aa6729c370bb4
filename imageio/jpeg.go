package imageio

import (
	"errors"
	"fmt"
	"sync"

	ljpeg "github.com/vcr-bench/vcr/imageio/jpeg"
)

// JPEG files are decoded by imageio/jpeg, which returns exactly the pixels
// of Pillow's libjpeg-turbo decoding (islow inverse DCT, fancy chroma
// upsampling, fixed-point YCbCr→RGB). Files it does not implement
// (arithmetic coding, 12-bit, CMYK/YCCK, progressive files that libjpeg
// would block-smooth, …; it says so with ljpeg.ErrUnsupported) fall back to
// Go's image/jpeg with Go's own colour conversion, which is within a few
// levels of libjpeg's.

type jpegCodec struct {
	dec ljpeg.Decoder
	enc ljpeg.Encoder
	pix []uint8
	buf []byte
}

var jpegPool = sync.Pool{New: func() any { return new(jpegCodec) }}

// decodeJPEG decodes a JPEG file with imageio/jpeg. ok is false (and err
// nil) when the file needs the fallback decoder.
func decodeJPEG(data []byte, maxPixels int) (m *Image, ok bool, err error) {
	c := jpegPool.Get().(*jpegCodec)
	c.dec.MaxPixels = maxPixels
	defer jpegPool.Put(c)
	defer func() {
		if r := recover(); r != nil {
			m, ok, err = nil, false, fmt.Errorf("%w: %v", ErrDecoderPanic, r)
		}
	}()
	im, err := c.dec.Decode(c.pix, data)
	if err != nil {
		if errors.Is(err, ljpeg.ErrUnsupported) {
			return nil, false, nil
		}
		if errors.Is(err, ljpeg.ErrTooLarge) {
			err = fmt.Errorf("%w (raise it with --max-pixels)", ErrTooLarge)
		}
		return nil, false, err
	}
	c.pix = im.Pix
	return FromJPEGPixels(im), true, nil
}

// FromJPEGPixels converts the 8-bit output of imageio/jpeg's decoder to an
// Image (a grayscale image gets three equal channels).
func FromJPEGPixels(im ljpeg.Image) *Image {
	m := New(im.Width, im.Height)
	fromJPEGPixels(m, im)
	return m
}

func fromJPEGPixels(m *Image, im ljpeg.Image) {
	n := im.Width * im.Height
	R, G, B := m.Ch[0][:n], m.Ch[1][:n], m.Ch[2][:n]
	if im.Channels == 1 {
		for i, v := range im.Pix[:n] {
			f := lut8[v]
			R[i], G[i], B[i] = f, f, f
		}
		return
	}
	rgb8Planes(R, G, B, im.Pix[:3*n])
}

// JPEGRoundTrip sets dst to src (rounded to 8 bit with Round) after a JPEG
// encoding at the given quality and a decoding, both byte- and pixel-exact
// with Pillow: im.save(f, "JPEG", quality=quality) followed by
// Image.open(f).convert("RGB"). dst and src must have the same size and may
// be the same image.
func JPEGRoundTrip(dst, src *Image, quality int) error {
	dst.mustMatch(src)
	w, h := src.Width, src.Height
	c := jpegPool.Get().(*jpegCodec)
	defer jpegPool.Put(c)
	n := w * h
	if cap(c.pix) < 3*n {
		c.pix = make([]uint8, 3*n)
	}
	p := c.pix[: 3*n : 3*n]
	toRGB8(p, src, Round)
	buf, err := c.enc.EncodeRGB(c.buf[:0], p, w, h, 3*w, quality)
	if err != nil {
		return err
	}
	c.buf = buf
	c.dec.MaxPixels = 0
	im, err := c.dec.Decode(c.pix, buf)
	if err != nil {
		return fmt.Errorf("imageio: decoding our own JPEG failed: %w", err)
	}
	c.pix = im.Pix
	fromJPEGPixels(dst, im)
	return nil
}

// encodeJPEG writes m as Pillow's im.save(f, "JPEG", quality=q) writes the
// same 8-bit RGB image.
func encodeJPEG(m *Image, q int, r Rounding) ([]byte, error) {
	c := jpegPool.Get().(*jpegCodec)
	defer jpegPool.Put(c)
	n := m.Width * m.Height
	if cap(c.pix) < 3*n {
		c.pix = make([]uint8, 3*n)
	}
	p := c.pix[: 3*n : 3*n]
	toRGB8(p, m, r)
	return c.enc.EncodeRGB(nil, p, m.Width, m.Height, 3*m.Width, q)
}
