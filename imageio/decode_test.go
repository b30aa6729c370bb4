package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rgb8(c [3]uint8) [3]float32 { return [3]float32{From8(c[0]), From8(c[1]), From8(c[2])} }

// TestDecodeKnownPixels decodes every fixture (testdata/README.md says how
// each was made) and compares every pixel with the value it was made from.
// Lossless files must match exactly; lossy ones within the stated tolerance.
func TestDecodeKnownPixels(t *testing.T) {
	blocks := func(x, y int) [3]float32 { return rgb8(blockAt(x, y)) }
	rgba := func(x, y int) [3]float32 {
		// Straight colour kept, alpha dropped, also where alpha = 0 (x = 0).
		return rgb8([3]uint8{uint8(x * 32), uint8(y * 64), 200})
	}
	s16 := func(v uint16) float32 { return float32(v) / 65535 }
	gray16 := func(x, y int) [3]float32 { v := s16(sixteenBit[x]); return [3]float32{v, v, v} }
	// The fixed-point luma of a block colour (libjpeg's RGB→grey in cjpeg
	// -grayscale rounds 0.299R + 0.587G + 0.114B to nearest).
	blockLuma := func(x, y int) [3]float32 {
		c := blockAt(x, y)
		v := From8(uint8(math.Round(0.299*float64(c[0]) + 0.587*float64(c[1]) + 0.114*float64(c[2]))))
		return [3]float32{v, v, v}
	}
	for _, tc := range []struct {
		file, format string
		w, h         int
		want         func(x, y int) [3]float32
		tol          float64 // in 8-bit steps
		interior     bool    // skip pixels within 2 of a block edge (chroma upsampling blends there)
	}{
		{"blocks.png", "png", 64, 32, blocks, 0, false},
		{"rgba.png", "png", 8, 4, rgba, 0, false},
		{"rgb16.png", "png", 4, 2, func(x, y int) [3]float32 {
			return [3]float32{s16(sixteenBit[x]), s16(sixteenBit[(x+y+1)%4]), s16(sixteenBit[(x+2)%4])}
		}, 0, false},
		{"gray16.png", "png", 4, 1, gray16, 0, false},
		{"gray.png", "png", 16, 16, func(x, y int) [3]float32 {
			v := From8(uint8(y*16 + x))
			return [3]float32{v, v, v}
		}, 0, false},
		{"paletted_trns.png", "png", 4, 2, func(x, y int) [3]float32 {
			// Palette entries' straight colours, including the fully transparent one.
			return [4][3]float32{rgb8([3]uint8{10, 20, 30}), rgb8([3]uint8{250, 128, 0}),
				rgb8([3]uint8{0, 200, 100}), rgb8([3]uint8{255, 255, 255})}[(y*4+x)%4]
		}, 0, false},
		{"blocks.gif", "gif", 64, 32, blocks, 0, false},
		{"offset_frame.gif", "gif", 32, 16, func(x, y int) [3]float32 {
			if x >= 8 && x < 24 && y >= 4 && y < 12 {
				return rgb8(blockColours[0]) // the frame: red
			}
			return rgb8(blockColours[3]) // background index 3: white
		}, 0, false},
		{"blocks.bmp", "bmp", 64, 32, blocks, 0, false},
		{"blocks.tiff", "tiff", 64, 32, blocks, 0, false},
		{"gray16.tiff", "tiff", 4, 1, gray16, 0, false},
		{"webp_lossless.webp", "webp", 64, 32, blocks, 0, false},
		{"webp_rgba_lossless.webp", "webp", 8, 4, rgba, 0, false},
		// DC-only CMYK JPEG: decodes exactly to the inks; RGB is Go's
		// CMYK→RGB of them ((255 − C)(255 − K)/255, as Pillow's convert("RGB")).
		{"jpeg_adobe_cmyk.jpg", "jpeg", 64, 32, func(x, y int) [3]float32 {
			k := cmykInk(blockAt(x, y))
			r, g, b := color.CMYKToRGB(k[0], k[1], k[2], k[3])
			return rgb8([3]uint8{r, g, b})
		}, 0, false},
		// Lossy: flat 16×16 blocks at quality 95 (measured max error 1–2
		// steps; tolerance 3).
		{"jpeg_444.jpg", "jpeg", 64, 32, blocks, 3, false},
		{"jpeg_420.jpg", "jpeg", 64, 32, blocks, 3, true},
		{"jpeg_progressive.jpg", "jpeg", 64, 32, blocks, 3, true},
		{"jpeg_gray.jpg", "jpeg", 64, 32, blockLuma, 3, false},
		{"jpeg_ycck.jpg", "jpeg", 64, 32, blocks, 3, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, format, err := DecodeBytes(readFixture(t, tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format || m.Width != tc.w || m.Height != tc.h {
				t.Fatalf("decoded as %s %dx%d, want %s %dx%d", format, m.Width, m.Height, tc.format, tc.w, tc.h)
			}
			var worst float64
			wx, wy := 0, 0
			for y := range m.Height {
				for x := range m.Width {
					if tc.interior && (x%blockSide < 2 || x%blockSide >= blockSide-2 || y%blockSide < 2 || y%blockSide >= blockSide-2) {
						continue
					}
					want := tc.want(x, y)
					for c := range 3 {
						d := math.Abs(float64(m.Ch[c][y*m.Width+x]-want[c])) * 255
						if d > worst {
							worst, wx, wy = d, x, y
						}
					}
				}
			}
			if worst > tc.tol+1e-3 {
				t.Errorf("max error %.2f steps at (%d, %d), tolerance %v", worst, wx, wy, tc.tol)
			}
			t.Logf("max error %.2f steps", worst)
		})
	}
}

// TestDecodeWebPLossy compares lossy WebP decoding with libwebp's own
// decoder (dwebp, default fancy upsampling; its PNG output is committed
// beside each file): they must agree exactly. In the blocks image's
// interiors (2 pixels from every block edge, where chroma upsampling does
// not mix colours) the result must also be close to the source colours —
// which the full-range conversion of image.YCbCr misses by up to 20 steps.
func TestDecodeWebPLossy(t *testing.T) {
	for _, name := range []string{"webp_lossy", "webp_lossy_odd", "webp_lossy_alpha"} {
		got, format, err := DecodeBytes(readFixture(t, name+".webp"), Options{})
		if err != nil || format != "webp" {
			t.Fatalf("%s: %v (format %q)", name, err, format)
		}
		want, _, err := DecodeBytes(readFixture(t, name+".dwebp.png"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.SameSize(want) {
			t.Fatalf("%s: %dx%d, dwebp %dx%d", name, got.Width, got.Height, want.Width, want.Height)
		}
		if d := MaxAbsDiff(got, want); d != 0 {
			t.Errorf("%s: differs from dwebp by up to %.0f steps", name, d*255)
		}
	}
	m, _, _ := DecodeBytes(readFixture(t, "webp_lossy.webp"), Options{})
	var worst float64
	for y := range m.Height {
		for x := range m.Width {
			if x%blockSide < 2 || x%blockSide >= blockSide-2 || y%blockSide < 2 || y%blockSide >= blockSide-2 {
				continue
			}
			want := rgb8(blockAt(x, y))
			for c := range 3 {
				worst = math.Max(worst, math.Abs(float64(m.Ch[c][y*m.Width+x]-want[c]))*255)
			}
		}
	}
	// Measured: 3 steps (cwebp -q 90).
	if worst > 4 {
		t.Errorf("webp_lossy.webp: block interiors off by up to %.0f steps, want ≤ 4", worst)
	}
}

// TestCMYKFixtureColours checks that the CMYK and YCCK JPEGs, made from the
// blocks image, decode close to its RGB colours (the naive RGB↔CMYK
// conversion round trip).
func TestCMYKFixtureColours(t *testing.T) {
	for _, f := range []string{"jpeg_adobe_cmyk.jpg", "jpeg_ycck.jpg"} {
		m, _, err := DecodeBytes(readFixture(t, f), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range blockColours {
			x, y := (i%4)*blockSide+8, (i/4)*blockSide+8
			for ch := range 3 {
				if d := math.Abs(float64(m.Ch[ch][y*m.Width+x]*255) - float64(c[ch])); d > 3 {
					t.Errorf("%s block %d channel %d: %v, want %d", f, i, ch, m.Ch[ch][y*m.Width+x]*255, c[ch])
				}
			}
		}
	}
}

// pngWithSize returns a PNG signature plus an IHDR chunk (8-bit RGB)
// declaring w×h, with a correct CRC, and nothing else.
func pngWithSize(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 17)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 2
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(ihdr)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(ihdr))
	return b.Bytes()
}

// TestPixelLimit checks that headers declaring too many pixels are rejected
// with ErrTooLarge before the pixel buffer is allocated.
func TestPixelLimit(t *testing.T) {
	huge := map[string][]byte{"png": pngWithSize(100000, 100000)}
	// GIF: logical screen 65535×65535 (bytes 6…9, little endian).
	g := bytes.Clone(readFixture(t, "blocks.gif"))
	binary.LittleEndian.PutUint16(g[6:], 65535)
	binary.LittleEndian.PutUint16(g[8:], 65535)
	huge["gif"] = g
	// BMP: width and height at bytes 18…25.
	bm := bytes.Clone(readFixture(t, "blocks.bmp"))
	binary.LittleEndian.PutUint32(bm[18:], 60000)
	binary.LittleEndian.PutUint32(bm[22:], 60000)
	huge["bmp"] = bm
	// JPEG: height and width in the SOF0 segment.
	j := bytes.Clone(readFixture(t, "jpeg_444.jpg"))
	sof := bytes.Index(j, []byte{0xff, 0xc0})
	binary.BigEndian.PutUint16(j[sof+5:], 60000)
	binary.BigEndian.PutUint16(j[sof+7:], 60000)
	huge["jpeg"] = j
	for format, data := range huge {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err := DecodeBytes(data, Options{})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: error %v, want ErrTooLarge", format, err)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
			t.Errorf("%s: allocated %d bytes before rejecting", format, a)
		}
	}
	// The limit is exact: blocks.png has 64·32 = 2048 pixels.
	data := readFixture(t, "blocks.png")
	for _, tc := range []struct {
		max     int
		wantErr bool
	}{{2047, true}, {2048, false}, {0, false}, {-1, false}} {
		_, _, err := DecodeBytes(data, Options{MaxPixels: tc.max})
		if (err != nil) != tc.wantErr || (tc.wantErr && !errors.Is(err, ErrTooLarge)) {
			t.Errorf("MaxPixels %d: error %v, want error %v", tc.max, err, tc.wantErr)
		}
	}
}

func fixtureNames(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		switch filepath.Ext(e.Name()) {
		case ".png", ".gif", ".bmp", ".tiff", ".webp", ".jpg":
			names = append(names, e.Name())
		}
	}
	if len(names) < 15 {
		t.Fatalf("only %d fixtures in testdata", len(names))
	}
	return names
}

// TestTruncated decodes every prefix of every fixture: each must return an
// error or a valid image, never panic, and cutting a file in half must be an
// error.
func TestTruncated(t *testing.T) {
	for _, name := range fixtureNames(t) {
		data := readFixture(t, name)
		for n := range len(data) {
			m, _, err := DecodeBytes(data[:n], Options{})
			if err == nil {
				checkDecoded(t, m, DefaultMaxPixels)
			}
			if n == len(data)/2 && err == nil {
				t.Errorf("%s cut to %d of %d bytes decoded without error", name, n, len(data))
			}
		}
	}
}

func TestNotAnImage(t *testing.T) {
	for _, data := range [][]byte{
		nil, []byte("hello, world"), []byte("%PDF-1.4\n"), bytes.Repeat([]byte{0}, 1000),
		[]byte("\x89PNG\r\n"), []byte("GIF8"), []byte("RIFF\x00\x00\x00\x00WEBP"),
	} {
		m, _, err := DecodeBytes(data, Options{})
		if err == nil {
			t.Errorf("%q decoded as a %dx%d image", data, m.Width, m.Height)
		}
	}
	if _, _, err := DecodeBytes([]byte("plain text, no image"), Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("text: error %v, want ErrFormat", err)
	}
	if _, err := Load(filepath.Join("testdata", "README.md"), Options{}); err == nil || !errors.Is(err, ErrFormat) {
		t.Errorf("Load(README.md) error %v, want ErrFormat naming the file", err)
	}
	if _, err := Load(filepath.Join("testdata", "missing.png"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) error %v, want ErrNotExist", err)
	}
}

// checkDecoded asserts the FuzzDecode invariants.
func checkDecoded(t testing.TB, m *Image, limit int) {
	t.Helper()
	if m.Width <= 0 || m.Height <= 0 || m.Width*m.Height > limit {
		t.Fatalf("decoded size %dx%d outside (0, %d] pixels", m.Width, m.Height, limit)
	}
	for c := range 3 {
		if len(m.Ch[c]) != m.Width*m.Height {
			t.Fatalf("channel %d has %d samples for %dx%d", c, len(m.Ch[c]), m.Width, m.Height)
		}
		for i, v := range m.Ch[c] {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("channel %d sample %d = %v outside [0, 1]", c, i, v)
			}
		}
	}
}

// FuzzDecode feeds arbitrary bytes to DecodeBytes: it must not panic, and
// when it succeeds the image has a positive size within the limit and
// samples in [0, 1]. Seeds: every fixture in testdata.
func FuzzDecode(f *testing.F) {
	for _, name := range fixtureNames(f) {
		f.Add(readFixture(f, name))
	}
	f.Add(pngWithSize(1, 1))
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := DecodeBytes(data, Options{MaxPixels: limit})
		if err == nil {
			checkDecoded(t, m, limit)
		}
	})
}

func init() {
	// A format whose header is fine but whose decoder panics, standing in
	// for a third-party decoder bug.
	image.RegisterFormat("panicky", "PANIC!", func(io.Reader) (image.Image, error) {
		panic("index out of range in a decoder")
	}, func(io.Reader) (image.Config, error) {
		return image.Config{ColorModel: color.RGBAModel, Width: 1, Height: 1}, nil
	})
}

func TestDecoderPanicIsError(t *testing.T) {
	_, format, err := DecodeBytes([]byte("PANIC! and more"), Options{})
	if format != "panicky" || !errors.Is(err, ErrDecoderPanic) {
		t.Errorf("decoder panic: format %q, error %v, want ErrDecoderPanic", format, err)
	}
}

// TestDecodeJPEGLikeLibjpeg compares JPEG decoding with libjpeg-turbo's own
// (djpeg with its defaults, which Pillow shares; PNGs committed beside each
// file). imageio/jpeg reproduces libjpeg-turbo, so every file, DC-only
// (chroma upsampling and colour conversion alone) or natural (the inverse
// DCT too), must match exactly; Go's image/jpeg differed by up to 2 levels.
func TestDecodeJPEGLikeLibjpeg(t *testing.T) {
	for _, tc := range []struct {
		name string
		tol  float64
	}{
		{"jpeg_dc_420", 0}, {"jpeg_dc_422", 0}, {"jpeg_dc_444", 0},
		{"jpeg_natural_420", 0}, {"jpeg_natural_422", 0},
		{"jpeg_444", 0}, {"jpeg_420", 0}, {"jpeg_progressive", 0},
	} {
		data := readFixture(t, tc.name+".jpg")
		got, _, err := DecodeBytes(data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := DecodeBytes(readFixture(t, tc.name+".djpeg.png"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.SameSize(want) {
			t.Fatalf("%s: %dx%d, djpeg %dx%d", tc.name, got.Width, got.Height, want.Width, want.Height)
		}
		d := MaxAbsDiff(got, want) * 255
		if d > tc.tol+1e-3 {
			t.Errorf("%s: differs from djpeg by up to %.0f levels, tolerance %v", tc.name, d, tc.tol)
		}
		// Go's own conversion (nearest-neighbour chroma) is far off at the
		// chroma block edges of the subsampled files: the test discriminates.
		raw, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if old := MaxAbsDiff(FromImage(raw), want) * 255; strings.HasPrefix(tc.name, "jpeg_dc_42") && old < 10 {
			t.Errorf("%s: nearest-neighbour chroma is only %.0f levels off; the fixture does not test upsampling", tc.name, old)
		}
	}
}
