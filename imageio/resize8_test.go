package imageio_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
)

// The reference images were made by Pillow 9.4.0's Image.resize(size,
// Image.BILINEAR) from src.png (testdata/pillow-resize/make.py): the
// resampler torchvision's Resize calls for PIL images. Resize must give the
// same 8-bit values exactly.
func TestResizeMatchesPillow(t *testing.T) {
	dir := filepath.Join("testdata", "pillow-resize")
	src, err := imageio.Load(filepath.Join(dir, "src.png"), imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !imageio.Levels8(src) {
		t.Fatal("a decoded 8-bit PNG is not all 8-bit levels")
	}
	for _, sz := range [][2]int{{30, 23}, {17, 40}, {61, 20}, {122, 94}, {7, 5}, {1, 1}, {200, 13}, {60, 47}, {90, 69}} {
		name := fmt.Sprintf("bilinear_%dx%d.png", sz[0], sz[1])
		want, err := imageio.Load(filepath.Join(dir, name), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := imageio.Resize(src, sz[0], sz[1])
		if d := imageio.MaxAbsDiff(got, want); d != 0 {
			t.Errorf("Resize to %dx%d differs from Pillow's %s by %g (%.1f levels)", sz[0], sz[1], name, d, d*255)
		}
		// Every window of the resized image is the same crop of Pillow's.
		for _, win := range [][4]int{{0, 0, sz[0], sz[1]}, {sz[0] / 3, sz[1] / 4, (sz[0] + 1) / 2, (sz[1] + 1) / 2}, {sz[0] - 1, sz[1] - 1, 1, 1}} {
			x0, y0, w, h := win[0], win[1], win[2], win[3]
			dst := make([]uint8, 3*w*h)
			if !imageio.ResizeWindow8(dst, src, sz[0], sz[1], x0, y0, w, h) {
				t.Fatalf("ResizeWindow8 rejected an 8-bit image")
			}
			for c := range 3 {
				for y := range h {
					for x := range w {
						g := imageio.From8(dst[c*w*h+y*w+x])
						if wv := want.Ch[c][(y0+y)*sz[0]+x0+x]; g != wv {
							t.Fatalf("ResizeWindow8 %dx%d window %v: channel %d (%d, %d) = %v, Pillow %v", sz[0], sz[1], win, c, x, y, g, wv)
						}
					}
				}
			}
		}
	}
}

// An image with a sample that is not an 8-bit level takes the float path:
// ResizeWindow8 refuses it and Levels8 says so.
func TestResizeWindow8RejectsFloatImages(t *testing.T) {
	m := imageio.New(8, 6)
	for i := range m.Ch[1] {
		m.Ch[1][i] = imageio.From8(uint8(i * 5))
	}
	if !imageio.Levels8(m) {
		t.Fatal("Levels8 = false for an image of 8-bit levels")
	}
	m.Ch[1][17] += 1e-4
	if imageio.Levels8(m) {
		t.Error("Levels8 = true for a sample between levels")
	}
	if imageio.ResizeWindow8(make([]uint8, 3*4*3), m, 4, 3, 0, 0, 4, 3) {
		t.Error("ResizeWindow8 accepted a sample between levels")
	}
	// Resize still works, with the float path: the 2-D reference agrees.
	if d := imageio.MaxAbsDiff(imageio.Resize(m, 4, 3), imageio.ResizeFloat(m, 4, 3)); d != 0 {
		t.Errorf("Resize of a float image differs from the float path by %g", d)
	}
}
