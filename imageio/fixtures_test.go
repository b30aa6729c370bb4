package imageio

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

var gen = flag.Bool("gen", false, "rewrite the Go-encoded fixtures in testdata (see testdata/README.md)")

// blockColours are the eight flat colours of the synthetic "blocks" image,
// laid out as 4×2 blocks of 16×16 pixels (64×32 in all). Flat 16×16 blocks
// align with JPEG's 8×8 DCT blocks and 16×16 4:2:0 MCUs, so lossy codecs
// reproduce them closely.
var blockColours = [8][3]uint8{
	{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255},
	{0, 0, 0}, {128, 64, 32}, {200, 180, 20}, {30, 144, 255},
}

const blocksW, blocksH, blockSide = 64, 32, 16

// blockAt returns the colour of pixel (x, y) of the blocks image.
func blockAt(x, y int) [3]uint8 { return blockColours[(y/blockSide)*4+x/blockSide] }

func blocksNRGBA() *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, blocksW, blocksH))
	for y := range blocksH {
		for x := range blocksW {
			c := blockAt(x, y)
			m.SetNRGBA(x, y, color.NRGBA{c[0], c[1], c[2], 255})
		}
	}
	return m
}

// rgbaFixture is 8×4 with straight colour (x·32, y·64, 200) and alpha
// x·36 (0 in the first column: fully transparent pixels that still store a
// colour, which the alpha policy keeps).
func rgbaFixture() *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, 8, 4))
	for y := range 4 {
		for x := range 8 {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x * 32), uint8(y * 64), 200, uint8(x * 36)})
		}
	}
	return m
}

// sixteenBit holds 16-bit sample values that are not multiples of 257, so a
// decoder that drops the low byte is caught.
var sixteenBit = [4]uint16{0x0000, 0x1234, 0xabcd, 0xffff}

func rgb16Fixture() *image.RGBA64 {
	m := image.NewRGBA64(image.Rect(0, 0, 4, 2))
	for y := range 2 {
		for x := range 4 {
			m.SetRGBA64(x, y, color.RGBA64{sixteenBit[x], sixteenBit[(x+y+1)%4], sixteenBit[(x+2)%4], 0xffff})
		}
	}
	return m
}

func gray16Fixture() *image.Gray16 {
	m := image.NewGray16(image.Rect(0, 0, 4, 1))
	for x := range 4 {
		m.SetGray16(x, 0, color.Gray16{sixteenBit[x]})
	}
	return m
}

func grayFixture() *image.Gray {
	m := image.NewGray(image.Rect(0, 0, 16, 16))
	for i := range m.Pix {
		m.Pix[i] = uint8(i) // every value 0…255 once
	}
	return m
}

// palFixture is a 4×2 paletted image whose palette has a fully transparent
// entry with a stored colour (tRNS chunk) and a half-transparent one.
func palFixture() *image.Paletted {
	pal := color.Palette{
		color.NRGBA{10, 20, 30, 255},
		color.NRGBA{250, 128, 0, 0}, // transparent, colour kept
		color.NRGBA{0, 200, 100, 128},
		color.NRGBA{255, 255, 255, 255},
	}
	m := image.NewPaletted(image.Rect(0, 0, 4, 2), pal)
	for i := range m.Pix {
		m.Pix[i] = uint8(i % 4)
	}
	return m
}

func blocksPaletted() *image.Paletted {
	var pal color.Palette
	for _, c := range blockColours {
		pal = append(pal, color.RGBA{c[0], c[1], c[2], 255})
	}
	m := image.NewPaletted(image.Rect(0, 0, blocksW, blocksH), pal)
	for y := range blocksH {
		for x := range blocksW {
			m.SetColorIndex(x, y, uint8((y/blockSide)*4+x/blockSide))
		}
	}
	return m
}

// TestGenerateFixtures writes the Go-encoded fixtures when run with -gen.
// The others come from testdata/make_fixtures.sh (ImageMagick, cjpeg, cwebp).
func TestGenerateFixtures(t *testing.T) {
	if !*gen {
		t.Skip("run with -gen to rewrite the fixtures")
	}
	write := func(name string, enc func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pngEnc := func(m image.Image) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error {
			e := png.Encoder{CompressionLevel: png.BestCompression}
			return e.Encode(b, m)
		}
	}
	write("blocks.png", pngEnc(blocksNRGBA()))
	write("rgba.png", pngEnc(rgbaFixture()))
	write("rgb16.png", pngEnc(rgb16Fixture()))
	write("gray16.png", pngEnc(gray16Fixture()))
	write("gray.png", pngEnc(grayFixture()))
	write("paletted_trns.png", pngEnc(palFixture()))
	write("blocks.gif", func(b *bytes.Buffer) error { return gif.Encode(b, blocksPaletted(), nil) })
	write("blocks.bmp", func(b *bytes.Buffer) error { return bmp.Encode(b, blocksNRGBA()) })
	write("blocks.tiff", func(b *bytes.Buffer) error {
		return tiff.Encode(b, blocksNRGBA(), &tiff.Options{Compression: tiff.Deflate})
	})
	write("gray16.tiff", func(b *bytes.Buffer) error { return tiff.Encode(b, gray16Fixture(), nil) })
	write("jpeg_adobe_cmyk.jpg", func(b *bytes.Buffer) error {
		b.Write(flatCMYKJPEG(blocksW, blocksH, func(x, y int) [4]uint8 { return cmykInk(blockAt(x, y)) }))
		return nil
	})
	// DC-only YCbCr JPEGs (luma flat per 8×8 block, chroma per chroma
	// block): libjpeg's upsampling and colour conversion are then the only
	// differences from the flat blocks, so vcr must match djpeg exactly.
	for _, tc := range []struct {
		name   string
		w, h   int
		hs, vs int
	}{{"jpeg_dc_420.jpg", 45, 37, 2, 2}, {"jpeg_dc_422.jpg", 45, 21, 2, 1}, {"jpeg_dc_444.jpg", 21, 13, 1, 1}} {
		write(tc.name, func(b *bytes.Buffer) error {
			b.Write(flatJPEG(tc.w, tc.h, []flatComp{
				{tc.hs, tc.vs, func(bx, by int) uint8 { return dcChroma(1, bx, by) }},
				{1, 1, func(bx, by int) uint8 { return dcChroma(2, bx, by) }},
				{1, 1, func(bx, by int) uint8 { return dcChroma(3, bx, by) }},
			}, false))
			return nil
		})
	}
	write("natural.png", pngEnc(natural45x37()))
	// A GIF whose only frame (16×8 at offset (8, 4)) does not cover its
	// 32×16 logical screen; background index 3 (white).
	write("offset_frame.gif", func(b *bytes.Buffer) error {
		fr := image.NewPaletted(image.Rect(8, 4, 24, 12), blocksPaletted().Palette)
		for i := range fr.Pix {
			fr.Pix[i] = 0 // red
		}
		return gif.EncodeAll(b, &gif.GIF{
			Image: []*image.Paletted{fr}, Delay: []int{0},
			Config:          image.Config{ColorModel: blocksPaletted().Palette, Width: 32, Height: 16},
			BackgroundIndex: 3,
		})
	})
}

// cmykInk gives the CMYK ink values (0 = no ink) of the blocks image's
// colours, as ImageMagick's naive sRGB→CMYK does: K = 255 − max(R, G, B),
// C = (255 − R − K)·255/(255 − K), etc.
func cmykInk(c [3]uint8) [4]uint8 {
	mx := max(c[0], c[1], c[2])
	k := 255 - int(mx)
	var out [4]uint8
	out[3] = uint8(k)
	for i := range 3 {
		if k == 255 {
			continue
		}
		out[i] = uint8((255 - int(c[i]) - k) * 255 / (255 - k))
	}
	return out
}

// flatCMYKJPEG writes a baseline Adobe CMYK JPEG (APP14 transform 0, the
// inverted "Adobe" convention: stored sample = 255 − ink) of an image made
// of flat 8×8-aligned blocks, with flatJPEG. libjpeg converts CMYK input to
// YCCK, and the tools at hand cannot write plain CMYK.
func flatCMYKJPEG(w, h int, at func(x, y int) [4]uint8) []byte {
	var comps []flatComp
	for c := range 4 {
		comps = append(comps, flatComp{1, 1, func(bx, by int) uint8 { return 255 - at(8*bx, 8*by)[c] }})
	}
	return flatJPEG(w, h, comps, true)
}

// flatComp is one component of flatJPEG: sampling factors and the sample
// value of each 8×8 block (in the component's own block grid).
type flatComp struct {
	h, v int
	at   func(bx, by int) uint8
}

// flatJPEG writes a baseline JPEG whose every 8×8 block is flat, so it needs
// only DC coefficients (8·(v − 128), all quantisation steps 1) and one
// end-of-block per block, and decodes exactly, whatever the decoder's
// inverse DCT. adobe adds an Adobe APP14 marker with transform 0 (CMYK).
func flatJPEG(w, h int, comps []flatComp, adobe bool) []byte {
	var b bytes.Buffer
	seg := func(marker byte, payload []byte) {
		b.Write([]byte{0xff, marker, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)})
		b.Write(payload)
	}
	b.Write([]byte{0xff, 0xd8})
	if adobe {
		seg(0xee, []byte{'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0})
	}
	q := make([]byte, 65) // table 0, all steps 1
	for i := 1; i < 65; i++ {
		q[i] = 1
	}
	seg(0xdb, q)
	hmax, vmax := 1, 1
	for _, c := range comps {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(len(comps))}
	for i, c := range comps {
		sof = append(sof, byte(i+1), byte(c.h<<4|c.v), 0)
	}
	seg(0xc0, sof)
	// DC table 0: the standard luminance DC table (ITU T.81 Table K.3);
	// AC table 0: a single 1-bit code "0" for end-of-block.
	dcBits := [16]byte{0, 1, 5, 1, 1, 1, 1, 1, 1}
	dht := append([]byte{0x00}, dcBits[:]...)
	dht = append(dht, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	dht = append(dht, 0x10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00)
	seg(0xc4, dht)
	sos := []byte{byte(len(comps))}
	for i := range comps {
		sos = append(sos, byte(i+1), 0x00)
	}
	seg(0xda, append(sos, 0, 63, 0))
	// Canonical codes of the DC table: category → (code, length).
	var code [12]uint16
	var length [12]uint8
	c, sym := uint16(0), 0
	for l := 1; l <= 16; l++ {
		for range dcBits[l-1] {
			code[sym], length[sym] = c, uint8(l)
			c++
			sym++
		}
		c <<= 1
	}
	var acc uint32
	var nacc uint
	put := func(v uint32, n uint) {
		acc = acc<<n | v&(1<<n-1)
		nacc += n
		for nacc >= 8 {
			by := byte(acc >> (nacc - 8))
			b.WriteByte(by)
			if by == 0xff {
				b.WriteByte(0)
			}
			nacc -= 8
		}
	}
	pred := make([]int, len(comps))
	mcuW, mcuH := 8*hmax, 8*vmax
	for my := 0; my < (h+mcuH-1)/mcuH; my++ {
		for mx := 0; mx < (w+mcuW-1)/mcuW; mx++ {
			for ci, comp := range comps {
				for v := range comp.v {
					for hh := range comp.h {
						dc := 8 * (int(comp.at(mx*comp.h+hh, my*comp.v+v)) - 128)
						diff := dc - pred[ci]
						pred[ci] = dc
						s, a := 0, diff
						if a < 0 {
							a = -a
						}
						for a>>s != 0 {
							s++
						}
						put(uint32(code[s]), uint(length[s]))
						if s > 0 {
							v := diff
							if v < 0 {
								v += 1<<s - 1
							}
							put(uint32(v), uint(s))
						}
						put(0, 1) // end of block
					}
				}
			}
		}
	}
	if nacc > 0 {
		put(1<<(8-nacc)-1, 8-nacc)
	}
	b.Write([]byte{0xff, 0xd9})
	return b.Bytes()
}

// dcChroma returns a deterministic pseudo-random chroma block value with
// large jumps between neighbouring blocks, which fancy upsampling blends.
func dcChroma(seed, bx, by int) uint8 {
	x := uint32(seed*7919+bx*104729+by*1299709) * 2654435761
	return uint8(40 + (x>>24)%176)
}

// natural45x37 is a smooth colourful pattern with a few hard edges (45×37,
// odd sizes), for the libjpeg comparison of tool-encoded JPEGs.
func natural45x37() *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, 45, 37))
	for y := range 37 {
		for x := range 45 {
			r := 128 + 100*math.Sin(float64(x)/5)
			g := 128 + 100*math.Cos(float64(y)/4+float64(x)/9)
			bb := 128 + 90*math.Sin(float64(x+y)/7)
			if (x-20)*(x-20)+(y-18)*(y-18) < 100 {
				r, g, bb = 240, 30, 60
			}
			if x > 33 && y < 12 {
				r, g, bb = 20, 220, 240
			}
			m.SetNRGBA(x, y, color.NRGBA{uint8(r), uint8(g), uint8(bb), 255})
		}
	}
	return m
}
