package imageio

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"os"
)

// Header is what an image file's header declares, read without decoding
// its pixels.
type Header struct {
	// Width and Height are the declared size in pixels (for a GIF, its
	// logical screen, the size of the image Decode returns).
	Width, Height int
	// Format is the format's name as Decode returns it ("png", "jpeg", …).
	Format string
	// FileSize is the file's size in bytes (Load reads the whole file).
	FileSize int64
}

// Pixels returns Width·Height.
func (h Header) Pixels() int64 { return int64(h.Width) * int64(h.Height) }

// ReadHeader reads the header of the image file at path: the PNG IHDR, the
// JPEG SOF, or the GIF, BMP, TIFF or WebP header, through
// image.DecodeConfig, reading no more of the file than the header needs.
// It returns an error wrapping ErrFormat for files that are not a supported
// image, and an error for a header that declares an empty image. Errors
// name the file.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Header{}, err
	}
	cfg, format, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return Header{}, fmt.Errorf("%s: %w", path, ErrFormat)
		}
		return Header{}, fmt.Errorf("%s: read header: %w", path, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Header{}, fmt.Errorf("%s: %s header declares an empty image (%dx%d)", path, format, cfg.Width, cfg.Height)
	}
	return Header{Width: cfg.Width, Height: cfg.Height, Format: format, FileSize: fi.Size()}, nil
}
