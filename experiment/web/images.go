package web

import (
	"bytes"
	"image"
	_ "image/jpeg" // stimulus sizes of JPEG files
	_ "image/png"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/experiment"
)

// readImage reads an image file below the design's folder (it cannot
// escape it).
func (s *Server) readImage(path string) ([]byte, error) {
	return s.images.ReadFile(filepath.FromSlash(path))
}

// imageType is the Content-Type of image bytes.
func imageType(b []byte) string {
	t := http.DetectContentType(b)
	if !strings.HasPrefix(t, "image/") {
		return "application/octet-stream"
	}
	return t
}

// imageSize returns the width and height of the image file, cached.
func (s *Server) imageSize(path string) ([2]int, error) {
	if v, ok := s.sizes.Load(path); ok {
		return v.([2]int), nil
	}
	b, err := s.readImage(path)
	if err != nil {
		return [2]int{}, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return [2]int{}, err
	}
	wh := [2]int{cfg.Width, cfg.Height}
	s.sizes.Store(path, wh)
	return wh, nil
}

type maskKey struct{ i, w, h int }

// mask returns noise mask i at w×h as PNG, cached.
func (s *Server) mask(i, w, h int) []byte {
	k := maskKey{i, w, h}
	if v, ok := s.masks.Load(k); ok {
		return v.([]byte)
	}
	b := experiment.MaskPNG(s.d, i, w, h)
	v, _ := s.masks.LoadOrStore(k, b)
	return v.([]byte)
}
