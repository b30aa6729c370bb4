package imageio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadHeader checks ReadHeader against the decoded size of every
// fixture format, and its errors for a missing file, a file that is not an
// image and a header declaring 100000×100000 pixels (read, not refused:
// the caller decides).
func TestReadHeader(t *testing.T) {
	for _, name := range []string{"blocks.png", "gray16.png", "jpeg_420.jpg", "jpeg_progressive.jpg", "blocks.gif", "offset_frame.gif", "blocks.bmp", "blocks.tiff"} {
		p := filepath.Join("testdata", name)
		h, err := ReadHeader(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		m, format, err := DecodeBytes(readFixture(t, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if h.Width != m.Width || h.Height != m.Height || h.Format != format || h.FileSize != fi.Size() || h.Pixels() != int64(m.Pixels()) {
			t.Errorf("%s: ReadHeader = %+v; decoded %dx%d %s, file %d bytes", name, h, m.Width, m.Height, format, fi.Size())
		}
	}
	dir := t.TempDir()
	if _, err := ReadHeader(filepath.Join(dir, "missing.png")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	text := filepath.Join(dir, "text.png")
	os.WriteFile(text, []byte("hello"), 0o644)
	if _, err := ReadHeader(text); !errors.Is(err, ErrFormat) {
		t.Errorf("text file: %v, want ErrFormat", err)
	}
	big := filepath.Join(dir, "big.png")
	os.WriteFile(big, pngWithSize(100000, 100000), 0o644)
	if h, err := ReadHeader(big); err != nil || h.Pixels() != 1e10 {
		t.Errorf("100000×100000 header: %+v, %v", h, err)
	}
}
