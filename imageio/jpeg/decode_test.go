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
