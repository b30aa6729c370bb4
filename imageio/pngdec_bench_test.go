package imageio

import (
	"bytes"
	"image/png"
	"testing"
)

// BenchmarkDecodePNG224 compares the RGB8 fast path with image/png plus
// FromImage on a 224×224 file written by PNGEncoder.
func BenchmarkDecodePNG224(b *testing.B) {
	var buf bytes.Buffer
	var enc PNGEncoder
	enc.Encode(&buf, testRGB(224, 224, 1), Round)
	data := buf.Bytes()
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decodePNGRGB8(data)
		}
	})
	b.Run("image-png", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			img, _ := png.Decode(bytes.NewReader(data))
			FromImage(img)
		}
	})
}
