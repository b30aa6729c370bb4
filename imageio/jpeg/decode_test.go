package jpeg

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRestartIntervals checks restart-marker handling: files written with a
// restart marker every 1, 2, 5 and 7 MCUs must decode to the pixels Pillow
// decodes from those same files, and to the pixels of the file without
// restarts (restarts do not change the coefficients).
func TestRestartIntervals(t *testing.T) {
	requirePillow(t)
	dir := t.TempDir()
	var names, jobs []string
	plain := map[string][]byte{}
	for i, s := range [][2]int{{37, 29}, {16, 16}, {5, 70}} {
		for _, nc := range []int{3, 1} {
			for _, rst := range []int{1, 2, 5, 7} {
				pix := testImage(i+nc, s[0], s[1], nc, uint64(50+i))
				e := Encoder{restart: rst}
				var b, p []byte
				var err error
				if nc == 3 {
					b, err = e.EncodeRGB(nil, pix, s[0], s[1], 3*s[0], 60)
					p, _ = (&Encoder{}).EncodeRGB(nil, pix, s[0], s[1], 3*s[0], 60)
				} else {
					b, err = e.EncodeGray(nil, pix, s[0], s[1], s[0], 60)
					p, _ = (&Encoder{}).EncodeGray(nil, pix, s[0], s[1], s[0], 60)
				}
				if err != nil {
					t.Fatal(err)
				}
				mcus := ((s[0] + 15) / 16) * ((s[1] + 15) / 16)
				if nc == 1 {
					mcus = ((s[0] + 7) / 8) * ((s[1] + 7) / 8)
				}
				rsts := 0
				for m := byte(0xd0); m <= 0xd7; m++ {
					rsts += bytes.Count(b, []byte{0xff, m})
				}
				if rsts != (mcus-1)/rst {
					t.Fatalf("%d restart markers for %d MCUs at interval %d", rsts, mcus, rst)
				}
				name := fmt.Sprintf("r%d_%d_%d", i, nc, rst)
				if err := os.WriteFile(filepath.Join(dir, name+".jpg"), b, 0o644); err != nil {
					t.Fatal(err)
				}
				names = append(names, name)
				jobs = append(jobs, "dec "+name)
				plain[name] = p
			}
		}
	}
	runPillow(t, dir, jobs)
	var d Decoder
	for _, name := range names {
		data, _ := os.ReadFile(filepath.Join(dir, name+".jpg"))
		want, err := os.ReadFile(filepath.Join(dir, name+".dec"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Decode(nil, data)
		if err != nil || !bytes.Equal(m.Pix, want) {
			t.Errorf("%s: decoding differs from Pillow's (err %v)", name, err)
			continue
		}
		m2, err := d.Decode(nil, plain[name])
		if err != nil || !bytes.Equal(m2.Pix, want) {
			t.Errorf("%s: the file without restarts decodes differently (err %v)", name, err)
		}
	}
}

// TestDecodeErrors checks that what the decoder does not implement is
// reported as ErrUnsupported (so imageio falls back to image/jpeg) and that
// damaged files are ErrFormat, never a silently wrong image.
func TestDecodeErrors(t *testing.T) {
	var e Encoder
	base, err := e.EncodeRGB(nil, testImage(2, 24, 16, 3, 1), 24, 16, 72, 75)
	if err != nil {
		t.Fatal(err)
	}
	sof := bytes.Index(base, []byte{0xff, 0xc0})
	patch := func(f func(b []byte)) []byte {
		b := bytes.Clone(base)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"arithmetic (SOF9)", patch(func(b []byte) { b[sof+1] = 0xc9 }), ErrUnsupported},
		{"lossless (SOF3)", patch(func(b []byte) { b[sof+1] = 0xc3 }), ErrUnsupported},
		{"12-bit", patch(func(b []byte) { b[sof+4] = 12 }), ErrUnsupported},
		{"chroma sampling 3x1 with luma 2x2", patch(func(b []byte) { b[sof+14] = 0x31 }), ErrUnsupported},
		{"truncated", base[:len(base)/2], ErrFormat},
		{"not a JPEG", []byte("\x89PNG\r\n"), ErrFormat},
		{"no tables", patch(func(b []byte) { b[bytes.Index(b, []byte{0xff, 0xc4})+1] = 0xe5 }), ErrFormat},
		// libjpeg (jdhuff.c jpeg_make_d_derived_tbl) rejects a DC table with
		// a symbol above 15; Pillow 9.4 fails on this file ("broken data
		// stream").
		{"DC table symbol 16", patch(func(b []byte) { b[bytes.Index(b, []byte{0xff, 0xc4})+4+1+16+11] = 16 }), ErrFormat},
	} {
		var d Decoder
		if _, err := d.Decode(nil, tc.data); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	var d Decoder
	if _, err := d.Decode(nil, bytes.Clone(base[:len(base)-2])); err != nil {
		t.Errorf("file without EOI: %v, want the image as libjpeg decodes it", err)
	}
}

// FuzzDecode feeds arbitrary data to the decoder: it must not panic, and an
// image it returns must have the size its header declares.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.jpg"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		d := Decoder{MaxPixels: 1 << 20}
		m, err := d.Decode(nil, data)
		if err != nil {
			return
		}
		if len(m.Pix) != m.Width*m.Height*m.Channels {
			t.Fatalf("%dx%dx%d image with %d samples", m.Width, m.Height, m.Channels, len(m.Pix))
		}
	})
}

// TestOtherSamplings checks sampling layouts Pillow cannot write — 4:4:0
// (libjpeg's h1v2 fancy upsampling) and 4:1:1 / 1×4 luma (int_upsample) —
// against Pillow's decoding. Such files are made from Pillow's own: in a
// 4:2:2 (4:2:0) file the MCU holds two (four) luma blocks, so giving luma
// the factors 1×2 (4×1, 1×4) instead, with the image size changed to keep
// the same MCU grid, turns its entropy-coded data into a valid file of the
// other layout.
func TestOtherSamplings(t *testing.T) {
	requirePillow(t)
	dir := t.TempDir()
	type tc struct {
		name      string
		w, h, sub int
		yhv       byte
		nw, nh    int
	}
	cases := []tc{
		{"440", 40, 20, 1, 0x12, 21, 37},
		{"440even", 32, 24, 1, 0x12, 16, 48},
		{"411", 40, 40, 2, 0x41, 70, 19},
		{"1x4", 40, 40, 2, 0x14, 19, 70},
	}
	var jobs []string
	for i, c := range cases {
		pix := testImage(3, c.w, c.h, 3, uint64(300+i))
		if err := os.WriteFile(filepath.Join(dir, c.name+"_src.raw"), pix, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, fmt.Sprintf("encx %s_src %d %d RGB 70 %d 0", c.name, c.w, c.h, c.sub))
	}
	runPillow(t, dir, jobs)
	jobs = jobs[:0]
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join(dir, c.name+"_src.jpg"))
		if err != nil {
			t.Fatal(err)
		}
		sof := bytes.Index(b, []byte{0xff, 0xc0})
		b[sof+5], b[sof+6] = byte(c.nh>>8), byte(c.nh)
		b[sof+7], b[sof+8] = byte(c.nw>>8), byte(c.nw)
		b[sof+11] = c.yhv
		if err := os.WriteFile(filepath.Join(dir, c.name+".jpg"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, "dec "+c.name)
	}
	runPillow(t, dir, jobs)
	var d Decoder
	for _, c := range cases {
		data, _ := os.ReadFile(filepath.Join(dir, c.name+".jpg"))
		want, err := os.ReadFile(filepath.Join(dir, c.name+".dec"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Decode(nil, data)
		if err != nil || !bytes.Equal(m.Pix, want) {
			n := -1
			if err == nil {
				n = 0
				for i := range want {
					if m.Pix[i] != want[i] {
						n++
					}
				}
			}
			t.Errorf("%s: decoding differs from Pillow's (err %v, %d samples differ)", c.name, err, n)
		}
	}
}
