package imageio

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"runtime"
	"testing"
)

// manyFrameGIF returns a GIF of frames identical w×h frames (all palette
// index 1), built by repeating the image block of a one-frame file: a small
// file (about 1 KB per frame) whose frames together hold frames·w·h pixels.
func manyFrameGIF(t testing.TB, w, h, frames int) []byte {
	t.Helper()
	m := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	for i := range m.Pix {
		m.Pix[i] = 1
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{m}, Delay: []int{0}}); err != nil {
		t.Fatal(err)
	}
	one := b.Bytes()
	// Header (6), logical screen descriptor (7), global colour table.
	start := 13
	if one[10]&0x80 != 0 {
		start += 3 << (one[10]&7 + 1)
	}
	if one[len(one)-1] != 0x3b {
		t.Fatal("one-frame GIF does not end with the trailer")
	}
	frame := one[start : len(one)-1] // graphic control extension and image block
	out := bytes.Clone(one[:start])
	for range frames {
		out = append(out, frame...)
	}
	return append(out, 0x3b)
}

// TestGIFFirstFrameOnly checks that a 1000-frame GIF decodes its first frame
// only: decoding allocates about one frame's worth of memory (the paletted
// frame, 1 byte per pixel, and the float image, 12), not 1000 frames' (the
// gif.DecodeAll of before allocated 1000 × 250,000 bytes = 250 MB here).
func TestGIFFirstFrameOnly(t *testing.T) {
	const w, h, frames = 500, 500, 1000
	data := manyFrameGIF(t, w, h, frames)
	t.Logf("%d-frame %dx%d GIF: %d bytes", frames, w, h, len(data))
	if g, err := gif.DecodeAll(bytes.NewReader(data)); err != nil || len(g.Image) != frames {
		t.Fatalf("fixture: DecodeAll gives %d frames, %v; want %d", len(g.Image), err, frames)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, format, err := DecodeBytes(data, Options{})
	runtime.ReadMemStats(&after)
	if err != nil || format != "gif" {
		t.Fatalf("DecodeBytes: %v (format %q)", err, format)
	}
	if m.Width != w || m.Height != h || m.Ch[0][0] != 1 {
		t.Errorf("got %dx%d, first sample %v; want %dx%d, 1", m.Width, m.Height, m.Ch[0][0], w, h)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("decoding allocated %d bytes (%.1f per pixel of one frame)", alloc, float64(alloc)/(w*h))
	// One frame: 1 (paletted) + 12 (float planes) bytes per pixel, 3.25 MB,
	// plus the decoder's buffers; 32 bytes per pixel (8 MB) leaves room.
	if alloc > 32*w*h {
		t.Errorf("decoding allocated %d bytes, want ≤ %d (one frame)", alloc, 32*w*h)
	}
	// The limit applies to the logical screen, the one frame decoded.
	if _, _, err := DecodeBytes(data, Options{MaxPixels: w*h - 1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxPixels %d: error %v, want ErrTooLarge", w*h-1, err)
	}
}
