package imageio

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	_ "image/jpeg" // JPEG headers, and the fallback decoder (jpeg.go)
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	ljpeg "github.com/vcr-bench/vcr/imageio/jpeg"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	_ "golang.org/x/image/bmp"  // register BMP
	_ "golang.org/x/image/tiff" // register TIFF
	_ "golang.org/x/image/webp" // register WebP
)

// DefaultMaxPixels is the default decompression-bomb limit: 100 megapixels
// (a 10,000×10,000 image), far above any dataset image vcr is meant for.
const DefaultMaxPixels = 100_000_000

// ErrTooLarge is returned (wrapped) when an image header declares more pixels
// than the configured limit.
var ErrTooLarge = errors.New("image exceeds the pixel limit")

// ErrFormat is returned (wrapped) when the data is not an image in a supported format.
var ErrFormat = errors.New("not a supported image (JPEG, PNG, GIF, BMP, TIFF, WebP)")

// Options controls decoding.
type Options struct {
	// MaxPixels rejects images whose header declares more than this many
	// pixels, before the pixel buffer is allocated. 0 means DefaultMaxPixels;
	// a negative value disables the check.
	MaxPixels int
}

func (o Options) maxPixels() int {
	if o.MaxPixels == 0 {
		return DefaultMaxPixels
	}
	return o.MaxPixels
}

// Decode reads one image from r. The format is detected from the content. It
// returns an error wrapping ErrFormat for data that is not a supported image,
// ErrTooLarge for images over the pixel limit, and the decoder's error for
// truncated or corrupt files.
func Decode(r io.Reader, opt Options) (*Image, string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, "", err
	}
	return DecodeBytes(data, opt)
}

// DecodeBytes is Decode for an in-memory file.
func DecodeBytes(data []byte, opt Options) (*Image, string, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, "", ErrFormat
		}
		return nil, "", fmt.Errorf("read header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, format, fmt.Errorf("%s header declares an empty image (%dx%d)", format, cfg.Width, cfg.Height)
	}
	if mp := opt.maxPixels(); mp > 0 && (cfg.Width > mp/cfg.Height) {
		return nil, format, fmt.Errorf("%s is %dx%d = %d pixels, limit %d: %w (raise it with --max-pixels)",
			format, cfg.Width, cfg.Height, int64(cfg.Width)*int64(cfg.Height), mp, ErrTooLarge)
	}
	if format == "jpeg" {
		m, ok, err := decodeJPEG(data, opt.maxPixels()) // Pillow-exact (jpeg.go)
		if err != nil {
			// The jpeg package's own errors already say "jpeg: invalid: …" or
			// "jpeg: unsupported: …"; only the others need the context.
			if !errors.Is(err, ljpeg.ErrFormat) && !errors.Is(err, ljpeg.ErrUnsupported) {
				err = fmt.Errorf("decode jpeg: %w", err)
			}
			return nil, format, err
		}
		if ok {
			return m, format, nil
		}
	}
	if format == "png" {
		if m, ok, err := decodePNGRGB8(data); ok { // the common case, faster (pngdec.go)
			if err != nil {
				return nil, format, fmt.Errorf("decode png: %w", err)
			}
			return m, format, nil
		}
	}
	img, err := decodePixels(data, format)
	if err != nil {
		return nil, format, fmt.Errorf("decode %s: %w", format, err)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return nil, format, fmt.Errorf("decode %s: header says %dx%d but pixels are %dx%d", format, cfg.Width, cfg.Height, b.Dx(), b.Dy())
	}
	if format == "webp" {
		// Lossy WebP: limited-range YUV, converted as libwebp does (webp.go).
		switch m := img.(type) {
		case *image.YCbCr:
			if m.SubsampleRatio == image.YCbCrSubsampleRatio420 {
				return fromWebPLossy(m), format, nil
			}
		case *image.NYCbCrA:
			if m.SubsampleRatio == image.YCbCrSubsampleRatio420 {
				return fromWebPLossy(&m.YCbCr), format, nil
			}
		}
	}
	return FromImage(img), format, nil
}

// ErrDecoderPanic is wrapped by the error returned when a decoder panics on
// malformed data; the panic is contained so that one bad file cannot stop a
// run over many images.
var ErrDecoderPanic = errors.New("decoder failed on malformed data")

// decodePixels decodes data, whose header has already been checked, turning
// a decoder panic into an error. A GIF whose first frame does not cover its
// logical screen is placed on a screen-sized canvas filled with the
// background colour (black when the global palette lacks it), as the GIF
// format describes; Go's decoder returns the bare frame.
func decodePixels(data []byte, format string) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("%w: %v", ErrDecoderPanic, r)
		}
	}()
	if format == "gif" {
		// gif.Decode stops after the first frame; gif.DecodeAll would
		// decode every frame of an animation (1000 frames of a 3.8 MB file
		// took 4 GB), although only the first is used.
		cfg, err := gif.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		first, err := gif.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		fr, ok := first.(*image.Paletted)
		if !ok {
			return nil, errors.New("gif: first frame is not paletted")
		}
		screen := image.Rect(0, 0, cfg.Width, cfg.Height)
		if fr.Rect == screen {
			return fr, nil
		}
		canvas := image.NewNRGBA(screen)
		bg := color.NRGBA{A: 255}
		// The logical screen descriptor's background colour index is
		// byte 11 of the file (after the 6-byte signature, width, height
		// and flags); it indexes the global palette.
		if p, ok := cfg.ColorModel.(color.Palette); ok && len(data) > 11 && int(data[11]) < len(p) {
			bg = color.NRGBAModel.Convert(p[data[11]]).(color.NRGBA)
			bg.A = 255
		}
		draw.Draw(canvas, screen, image.NewUniform(bg), image.Point{}, draw.Src)
		draw.Draw(canvas, fr.Rect.Intersect(screen), fr, fr.Rect.Intersect(screen).Min, draw.Src)
		return canvas, nil
	}
	img, _, err = image.Decode(bytes.NewReader(data))
	return img, err
}

// Load decodes the image file at path. Errors name the file.
func Load(path string, opt Options) (*Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, _, err := DecodeBytes(data, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}

// Format is an output file format.
type Format int

const (
	PNG Format = iota
	JPEG
)

// FormatFromPath picks the output format from the file extension (.png,
// .jpg, .jpeg; case-insensitive).
func FormatFromPath(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return PNG, nil
	case ".jpg", ".jpeg":
		return JPEG, nil
	}
	return 0, fmt.Errorf("%s: cannot write %q files; use .png or .jpg", path, filepath.Ext(path))
}

// EncodeOptions controls encoding.
type EncodeOptions struct {
	// JPEGQuality is 1…100; 0 means 95.
	JPEGQuality int
	// Rounding converts float samples to 8 bit; the zero value rounds to nearest.
	Rounding Rounding
}

// Encode writes m to w in the given format. PNG uses the fast compression
// level (zlib level 1), as OpenCV's default does. JPEG is written byte for
// byte as Pillow's im.save(f, "JPEG", quality=q) writes the 8-bit RGB image
// (imageio/jpeg: 4:2:0, standard tables, baseline).
func Encode(w io.Writer, m *Image, f Format, opt EncodeOptions) error {
	switch f {
	case PNG:
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, m.NRGBA(opt.Rounding))
	case JPEG:
		q := opt.JPEGQuality
		if q == 0 {
			q = 95
		}
		b, err := encodeJPEG(m, q, opt.Rounding)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("imageio: unknown format %d", f)
}

// Save writes m to path, choosing the format from the extension. The file
// appears atomically: on error no partial file is left behind.
func Save(path string, m *Image, opt EncodeOptions) error {
	f, err := FormatFromPath(path)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := Encode(w, m, f, opt); err != nil {
			return fmt.Errorf("encode %s: %w", path, err)
		}
		return nil
	})
}
