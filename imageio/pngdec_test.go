package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"math/rand/v2"
)

// stdDecode is the reference: image/png, then FromImage.
func stdDecode(t *testing.T, data []byte) (*Image, error) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return FromImage(img), nil
}

// testRGB returns a w×h RGB image with smooth areas, edges and noise, so
// that Go's adaptive encoder picks every filter type somewhere.
func testRGB(w, h int, seed uint64) *Image {
	r := rand.New(rand.NewPCG(seed, 1))
	m := New(w, h)
	for y := range h {
		for x := range w {
			i := y*w + x
			for c := range 3 {
				v := float32(x+c*y) / float32(w+h)
				if (x/7+y/5)%3 == 0 {
					v = r.Float32()
				}
				if y%11 == 0 {
					v = 1 - v
				}
				m.Ch[c][i] = From8(To8(v, Round))
			}
		}
	}
	return m
}

func TestDecodePNGRGB8(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {37, 19}, {224, 224}} {
		m := testRGB(sz[0], sz[1], uint64(sz[0]))
		var files [][]byte
		var fast bytes.Buffer
		var enc PNGEncoder
		if err := enc.Encode(&fast, m, Round); err != nil {
			t.Fatal(err)
		}
		files = append(files, fast.Bytes())
		nrgba := m.NRGBA(Round)
		rgb := image.NewRGBA(nrgba.Rect)
		copy(rgb.Pix, nrgba.Pix)
		for _, level := range []png.CompressionLevel{png.NoCompression, png.BestSpeed, png.DefaultCompression, png.BestCompression} {
			var b bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: level}).Encode(&b, rgb); err != nil {
				t.Fatal(err)
			}
			files = append(files, b.Bytes())
		}
		for i, data := range files {
			got, ok, err := decodePNGRGB8(data)
			if !ok || err != nil {
				t.Fatalf("%v file %d: ok %v, err %v", sz, i, ok, err)
			}
			want, err := stdDecode(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if d := MaxAbsDiff(got, want); d != 0 || !got.SameSize(want) {
				t.Errorf("%v file %d: differs from image/png by %v", sz, i, d)
			}
			if d := MaxAbsDiff(got, m); d != 0 {
				t.Errorf("%v file %d: differs from the encoded image by %v", sz, i, d)
			}
			// Truncated files fail as they do with image/png.
			for _, cut := range []int{len(data) - 13, len(data) / 2} {
				if _, ok, err := decodePNGRGB8(data[:cut]); ok && err == nil {
					t.Errorf("%v file %d cut at %d: no error", sz, i, cut)
				}
				if _, _, err := DecodeBytes(data[:cut], Options{}); err == nil {
					t.Errorf("%v file %d cut at %d: DecodeBytes gave no error", sz, i, cut)
				}
			}
			// A flipped byte in the image data fails the checksum.
			bad := bytes.Clone(data)
			bad[len(bad)/2] ^= 0x55
			if _, _, err := DecodeBytes(bad, Options{}); err == nil {
				t.Errorf("%v file %d: corrupted data decoded", sz, i)
			}
		}
	}
}

// TestDecodePNGRGBA8 checks the 8-bit RGBA path against image/png and
// FromImage (alpha dropped, stored colour kept) on images whose alpha
// varies (transparent pixels keep their colour), written by image/png at
// every compression level (so every filter type occurs), and that
// truncated files fail.
func TestDecodePNGRGBA8(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {37, 19}, {224, 224}} {
		m := testRGB(sz[0], sz[1], uint64(sz[0])+5)
		nrgba := m.NRGBA(Round)
		for i := 3; i < len(nrgba.Pix); i += 4 {
			nrgba.Pix[i] = byte(i * 13)
		}
		for _, level := range []png.CompressionLevel{png.NoCompression, png.BestSpeed, png.DefaultCompression, png.BestCompression} {
			var b bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: level}).Encode(&b, nrgba); err != nil {
				t.Fatal(err)
			}
			data := b.Bytes()
			got, ok, err := decodePNGRGB8(data)
			if !ok || err != nil {
				t.Fatalf("%v level %d: ok %v, err %v", sz, level, ok, err)
			}
			want, err := stdDecode(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if d := MaxAbsDiff(got, want); d != 0 || !got.SameSize(want) {
				t.Errorf("%v level %d: differs from image/png by %v", sz, level, d)
			}
			if d := MaxAbsDiff(got, m); d != 0 {
				t.Errorf("%v level %d: differs from the encoded colours by %v", sz, level, d)
			}
			for _, cut := range []int{len(data) - 13, len(data) / 2} {
				if _, ok, err := decodePNGRGB8(data[:cut]); ok && err == nil {
					t.Errorf("%v level %d cut at %d: no error", sz, level, cut)
				}
			}
		}
	}
}

// TestDecodePNGOthers checks that PNGs other than 8-bit RGB and RGBA are
// left to image/png.
func TestDecodePNGOthers(t *testing.T) {
	r := image.Rect(0, 0, 5, 4)
	gray := image.NewGray(r)
	gray16 := image.NewRGBA64(r)
	pal := image.NewPaletted(r, color.Palette{color.Black, color.White})
	for _, img := range []image.Image{gray, gray16, pal} {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := decodePNGRGB8(b.Bytes()); ok {
			t.Errorf("%T taken by the RGB8 decoder", img)
		}
		got, _, err := DecodeBytes(b.Bytes(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := stdDecode(t, b.Bytes())
		if MaxAbsDiff(got, want) != 0 {
			t.Errorf("%T decodes differently", img)
		}
	}
}

// paethRef is the Paeth predictor as the PNG specification writes it.
func paethRef(a, b, c int) int {
	p := a + b - c
	pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestPaeth(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			for c := range 256 {
				if got, want := paeth(a, b, c), paethRef(a, b, c); got != want {
					t.Fatalf("paeth(%d, %d, %d) = %d, want %d", a, b, c, got, want)
				}
			}
		}
	}
}

// FuzzDecodePNGRGB8 checks that whatever the RGB8 path accepts, image/png
// decodes to the same pixels, and that it never panics.
func FuzzDecodePNGRGB8(f *testing.F) {
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {16, 9}} {
		var b bytes.Buffer
		var enc PNGEncoder
		enc.Encode(&b, testRGB(sz[0], sz[1], 7), Round)
		f.Add(b.Bytes())
		b.Reset()
		nrgba := testRGB(sz[0], sz[1], 8).NRGBA(Round)
		rgb := image.NewRGBA(nrgba.Rect)
		copy(rgb.Pix, nrgba.Pix)
		png.Encode(&b, rgb)
		f.Add(b.Bytes())
		b.Reset()
		nrgba.Pix[3] = 7 // not opaque: written as RGBA
		png.Encode(&b, nrgba)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		// Header checks (size limits) come first, as in DecodeBytes.
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > 1<<20 {
			return
		}
		m, ok, err := decodePNGRGB8(data)
		if !ok || err != nil {
			return
		}
		want, err := stdDecode(t, data)
		if err != nil {
			t.Fatalf("RGB8 path accepted a file image/png rejects: %v", err)
		}
		if !m.SameSize(want) || MaxAbsDiff(m, want) != 0 {
			t.Fatal("RGB8 path decodes other pixels than image/png")
		}
	})
}
