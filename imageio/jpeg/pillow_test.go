package jpeg

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests in this file compare the codec with Pillow (libjpeg-turbo) run
// by the test itself. They skip when /usr/bin/python3 with PIL is missing,
// unless VCR_REQUIRE_PILLOW=1, which turns the skip into a failure (CI).

const pillowPython = "/usr/bin/python3"

// pillowScript runs one job per line of jobs.txt in the folder given as its
// argument. Jobs:
//
//	enc NAME W H MODE Q    NAME.raw (RGB or L bytes) → NAME.jpg, Pillow's save(quality=Q)
//	encx NAME W H MODE Q SUB PROG   as enc with subsampling=SUB (-1: default) and progressive
//	dec NAME               NAME.jpg → NAME.dec (Image.open + tobytes) and NAME.mode
const pillowScript = `
import io, os, sys
from PIL import Image, ImageFile
ImageFile.MAXBLOCK = 1 << 24  # progressive saves of tiny images need a large buffer in Pillow 9
d = sys.argv[1]
for line in open(os.path.join(d, "jobs.txt")):
    f = line.split()
    if not f:
        continue
    p = lambda s: os.path.join(d, s)
    if f[0] in ("enc", "encx"):
        name, w, h, mode, q = f[1], int(f[2]), int(f[3]), f[4], int(f[5])
        im = Image.frombytes(mode, (w, h), open(p(name + ".raw"), "rb").read())
        kw = {"quality": q}
        if f[0] == "encx":
            if int(f[6]) >= 0:
                kw["subsampling"] = int(f[6])
            kw["progressive"] = f[7] == "1"
        im.save(p(name + ".jpg"), "JPEG", **kw)
    elif f[0] == "dec":
        im = Image.open(p(f[1] + ".jpg"))
        im.load()
        open(p(f[1] + ".dec"), "wb").write(im.tobytes())
        open(p(f[1] + ".mode"), "w").write(im.mode)
`

// requirePillow skips (or, with VCR_REQUIRE_PILLOW=1, fails) the test when
// Pillow is not available.
func requirePillow(t testing.TB) {
	t.Helper()
	err := exec.Command(pillowPython, "-c", "import PIL.Image, PIL.features; assert PIL.features.check('jpg')").Run()
	if err == nil {
		return
	}
	if os.Getenv("VCR_REQUIRE_PILLOW") == "1" {
		t.Fatalf("Pillow with JPEG support is required (VCR_REQUIRE_PILLOW=1) but %s failed: %v; install python3-pil", pillowPython, err)
	}
	t.Skipf("no Pillow with JPEG support at %s (%v); set VCR_REQUIRE_PILLOW=1 to make this a failure", pillowPython, err)
}

// runPillow writes jobs to dir and runs the script over them.
func runPillow(t testing.TB, dir string, jobs []string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "jobs.txt"), []byte(strings.Join(jobs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pillowPython, "-c", pillowScript, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("pillow script: %v\n%s", err, out)
	}
}

// testImage is a procedurally generated 8-bit image (3 bytes per pixel for
// RGB, 1 for gray) of one of several kinds: smooth gradients, uniform noise,
// hard-edged colour blocks and a mix, so that every DCT coefficient range,
// the clamping paths and the chroma edges get exercised.
func testImage(kind, w, h, nc int, seed uint64) []uint8 {
	r := rand.New(rand.NewPCG(seed, uint64(kind)))
	pix := make([]uint8, w*h*nc)
	bs := 1 + r.IntN(9)
	cols := make([][3]uint8, 64)
	for i := range cols {
		cols[i] = [3]uint8{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256))}
	}
	fx, fy := r.Float64()*0.3, r.Float64()*0.3
	for y := range h {
		for x := range w {
			for c := range nc {
				var v float64
				switch kind % 4 {
				case 0: // gradients and waves
					v = 127.5 + 127.5*math.Sin(fx*float64(x)*float64(c+1)+fy*float64(y)+float64(c))
				case 1: // noise
					v = float64(r.IntN(256))
				case 2: // blocks of saturated colour
					v = float64(cols[((x/bs)*7+(y/bs)*13)%64][c])
				default: // blocks plus noise, clipped
					v = float64(cols[((x/bs)+(y/bs)*3)%64][c]) + float64(r.IntN(81)-40)
				}
				pix[(y*w+x)*nc+c] = uint8(min(max(math.Round(v), 0), 255))
			}
		}
	}
	return pix
}

var testSizes = [][2]int{{1, 1}, {7, 13}, {17, 9}, {224, 224}, {500, 375}, {2, 2}, {8, 8}, {16, 16}, {15, 17}, {33, 1}, {1, 40}, {3, 3}, {31, 33}, {5, 6}, {6, 5}}

type encCase struct {
	name     string
	w, h, nc int
	q        int
	kind     int
	pix      []uint8
}

// encCases covers every quality 1…100 (each with a different size, kind and
// mode) and every size at a few qualities.
func encCases() []encCase {
	var cs []encCase
	add := func(w, h, nc, q, kind int) {
		name := fmt.Sprintf("e%d_%dx%d_%d_q%d_k%d", len(cs), w, h, nc, q, kind)
		cs = append(cs, encCase{name, w, h, nc, q, kind, testImage(kind, w, h, nc, uint64(len(cs)))})
	}
	for q := 1; q <= 100; q++ {
		s := testSizes[q%len(testSizes)]
		if s[0]*s[1] > 60000 {
			s = [2]int{s[0] / 3, s[1] / 3}
		}
		nc := 3
		if q%5 == 0 {
			nc = 1
		}
		add(s[0], s[1], nc, q, q)
	}
	for i, s := range testSizes {
		for _, q := range []int{5, 50, 75, 95, 100} {
			add(s[0], s[1], 3, q, i+q)
		}
		add(s[0], s[1], 1, 90, i)
	}
	return cs
}

func (c encCase) encode(t testing.TB, e *Encoder) []byte {
	var b []byte
	var err error
	if c.nc == 3 {
		b, err = e.EncodeRGB(nil, c.pix, c.w, c.h, 3*c.w, c.q)
	} else {
		b, err = e.EncodeGray(nil, c.pix, c.w, c.h, c.w, c.q)
	}
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return b
}

// TestEncodeMatchesPillow checks that the encoder's files are byte for byte
// those of Pillow's Image.save(quality=q), for every quality 1…100 and the
// sizes of testSizes (odd, tiny, 224×224, 500×375), RGB and grayscale.
func TestEncodeMatchesPillow(t *testing.T) {
	requirePillow(t)
	dir := t.TempDir()
	cs := encCases()
	var jobs []string
	for _, c := range cs {
		mode := "RGB"
		if c.nc == 1 {
			mode = "L"
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".raw"), c.pix, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, fmt.Sprintf("enc %s %d %d %s %d", c.name, c.w, c.h, mode, c.q))
	}
	runPillow(t, dir, jobs)
	var e Encoder
	bad := 0
	for _, c := range cs {
		want, err := os.ReadFile(filepath.Join(dir, c.name+".jpg"))
		if err != nil {
			t.Fatal(err)
		}
		got := c.encode(t, &e)
		if !bytes.Equal(got, want) {
			bad++
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			if bad <= 10 {
				t.Errorf("%s: %d bytes, Pillow %d; first difference at byte %d", c.name, len(got), len(want), i)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d files differ from Pillow's", bad, len(cs))
	}
	t.Logf("%d files compared with Pillow", len(cs))
}

// TestDecodeMatchesPillow checks that the decoder returns exactly the pixels
// of Pillow's Image.open(f).load() on the encoder's files and on files that
// Pillow writes with other settings: progressive, 4:4:4, 4:2:2 and 4:2:0
// subsampling, grayscale, every size of testSizes.
func TestDecodeMatchesPillow(t *testing.T) {
	requirePillow(t)
	dir := t.TempDir()
	var jobs, names []string
	var e Encoder
	for i, c := range encCases() {
		if i%3 != 0 {
			continue
		}
		b := c.encode(t, &e)
		if err := os.WriteFile(filepath.Join(dir, c.name+".jpg"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, c.name)
	}
	n := 0
	for i, s := range testSizes {
		for _, sub := range []int{-1, 0, 1, 2} {
			for _, prog := range []int{0, 1} {
				for _, nc := range []int{3, 1} {
					if nc == 1 && sub > 0 {
						continue
					}
					q := []int{3, 30, 75, 92, 100}[(n)%5]
					name := fmt.Sprintf("x%d_%dx%d_s%d_p%d_c%d_q%d", n, s[0], s[1], sub, prog, nc, q)
					mode := "RGB"
					if nc == 1 {
						mode = "L"
					}
					pix := testImage(n+i, s[0], s[1], nc, uint64(1000+n))
					if err := os.WriteFile(filepath.Join(dir, name+".raw"), pix, 0o644); err != nil {
						t.Fatal(err)
					}
					jobs = append(jobs, fmt.Sprintf("encx %s %d %d %s %d %d %d", name, s[0], s[1], mode, q, sub, prog))
					names = append(names, name)
					n++
				}
			}
		}
	}
	for _, name := range names {
		jobs = append(jobs, "dec "+name)
	}
	runPillow(t, dir, jobs)
	var d Decoder
	bad := 0
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name+".jpg"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, name+".dec"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Decode(nil, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			bad++
			continue
		}
		if !bytes.Equal(m.Pix, want) {
			bad++
			diff, maxd := 0, 0
			for i := range min(len(want), len(m.Pix)) {
				if a, b := int(m.Pix[i]), int(want[i]); a != b {
					diff++
					maxd = max(maxd, a-b, b-a)
				}
			}
			if bad <= 10 {
				t.Errorf("%s: %d of %d samples differ from Pillow's (max %d); lengths %d, %d", name, diff, len(want), maxd, len(m.Pix), len(want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d files decode differently from Pillow", bad, len(names))
	}
	t.Logf("%d files compared with Pillow's decoding", len(names))
}

// TestDecodePhotosMatchPillow decodes the two JPEG photographs vcr embeds
// (ImageNet-C's frost4.jpeg and frost5.jpeg, written by another encoder
// than libjpeg's defaults) and the rest of BenchmarkDecodePhoto's
// photographs (PhotoFiles: a 4:4:4 file, a grayscale one) and compares them with
// Pillow's decoding.
func TestDecodePhotosMatchPillow(t *testing.T) {
	requirePillow(t)
	dir := t.TempDir()
	var jobs []string
	var d Decoder
	names, files := PhotoFiles(t)
	for i, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name+".jpg"), files[i], 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, "dec "+name)
	}
	runPillow(t, dir, jobs)
	for _, name := range names {
		data, _ := os.ReadFile(filepath.Join(dir, name+".jpg"))
		want, err := os.ReadFile(filepath.Join(dir, name+".dec"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Decode(nil, data)
		if err != nil || !bytes.Equal(m.Pix, want) {
			t.Errorf("%s: decoding differs from Pillow's (err %v)", name, err)
		}
	}
}
