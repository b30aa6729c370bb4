package jpeg

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The golden files in testdata/golden were written by Pillow 9.4.0 with
// libjpeg-turbo 2.1.5 (Debian 12 python3-pil) from the generated images of
// testImage, by running
//
//	VCR_JPEG_WRITE_GOLDEN=1 go test -run TestGolden ./imageio/jpeg
//
// They let a machine without Pillow check the encoder's bytes and the
// decoder's pixels. Each case is NAME.raw (the source pixels), NAME.jpg
// (Pillow's file) and NAME.dec (Pillow's decoding of NAME.jpg), listed in
// cases.txt as "NAME W H MODE Q SUBSAMPLING PROGRESSIVE"; the encoder is
// checked on the cases with Pillow's default settings (SUBSAMPLING -1,
// PROGRESSIVE 0).
var goldenCases = []struct {
	w, h, nc, q, sub, prog, kind int
}{
	{17, 9, 3, 75, -1, 0, 3},
	{7, 13, 3, 12, -1, 0, 2},
	{33, 17, 1, 50, -1, 0, 0},
	{1, 1, 3, 95, -1, 0, 1},
	{31, 33, 3, 80, 1, 1, 3},
	{23, 19, 3, 60, 0, 0, 2},
	{19, 21, 1, 40, -1, 1, 1},
}

const goldenDir = "testdata/golden"

func writeGolden(t *testing.T) {
	requirePillow(t)
	tmp := t.TempDir()
	var jobs, lines []string
	for i, g := range goldenCases {
		mode := "RGB"
		if g.nc == 1 {
			mode = "L"
		}
		name := fmt.Sprintf("g%d_%dx%d_%s_q%d", i, g.w, g.h, mode, g.q)
		pix := testImage(g.kind, g.w, g.h, g.nc, uint64(7000+i))
		if err := os.WriteFile(filepath.Join(tmp, name+".raw"), pix, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, fmt.Sprintf("encx %s %d %d %s %d %d %d", name, g.w, g.h, mode, g.q, g.sub, g.prog), "dec "+name)
		lines = append(lines, fmt.Sprintf("%s %d %d %s %d %d %d", name, g.w, g.h, mode, g.q, g.sub, g.prog))
	}
	runPillow(t, tmp, jobs)
	if err := os.MkdirAll(goldenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		name := strings.Fields(l)[0]
		for _, ext := range []string{".raw", ".jpg", ".dec"} {
			b, err := os.ReadFile(filepath.Join(tmp, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(goldenDir, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(goldenDir, "cases.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGolden checks the encoder and decoder against files Pillow wrote
// (see goldenCases); it needs no Python.
func TestGolden(t *testing.T) {
	if os.Getenv("VCR_JPEG_WRITE_GOLDEN") == "1" {
		writeGolden(t)
	}
	list, err := os.ReadFile(filepath.Join(goldenDir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var e Encoder
	var d Decoder
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.Fields(l)
		name, mode := f[0], f[3]
		var v [5]int
		for i, s := range []string{f[1], f[2], f[4], f[5], f[6]} {
			if v[i], err = strconv.Atoi(s); err != nil {
				t.Fatalf("cases.txt: %q: %v", l, err)
			}
		}
		w, h, q, sub, prog := v[0], v[1], v[2], v[3], v[4]
		read := func(ext string) []byte {
			b, err := os.ReadFile(filepath.Join(goldenDir, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		raw, jpg, dec := read(".raw"), read(".jpg"), read(".dec")
		if sub == -1 && prog == 0 {
			var got []byte
			if mode == "L" {
				got, err = e.EncodeGray(nil, raw, w, h, w, q)
			} else {
				got, err = e.EncodeRGB(nil, raw, w, h, 3*w, q)
			}
			if err != nil || !bytes.Equal(got, jpg) {
				t.Errorf("%s: encoding differs from Pillow's file (err %v, %d vs %d bytes)", name, err, len(got), len(jpg))
			}
			n++
		}
		m, err := d.Decode(nil, jpg)
		if err != nil || !bytes.Equal(m.Pix, dec) {
			t.Errorf("%s: decoding differs from Pillow's (err %v)", name, err)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d golden checks ran", n)
	}
}
