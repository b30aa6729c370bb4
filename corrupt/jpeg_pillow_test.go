package corrupt

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestJPEGCompressionMatchesPillow runs the reference's jpeg_compression
// (corruptions.md §2.23: Pillow im.save(f, "JPEG", quality=q), then
// Image.open(f)) in Debian's Pillow and requires vcr's output to be the
// same 8-bit image, for every quality 1…100 on a 37×29 image and for a few
// qualities at 224×224, 500×375 and tiny sizes. It skips without
// /usr/bin/python3 and PIL unless VCR_REQUIRE_PILLOW=1.
func TestJPEGCompressionMatchesPillow(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import PIL.Image, PIL.features; assert PIL.features.check('jpg')").Run(); err != nil {
		if os.Getenv("VCR_REQUIRE_PILLOW") == "1" {
			t.Fatalf("Pillow is required (VCR_REQUIRE_PILLOW=1) but %s failed: %v; install python3-pil", py, err)
		}
		t.Skipf("no Pillow at %s (%v); set VCR_REQUIRE_PILLOW=1 to make this a failure", py, err)
	}
	type tc struct{ w, h, q int }
	var cases []tc
	for q := 1; q <= 100; q++ {
		cases = append(cases, tc{37, 29, q})
	}
	for _, s := range [][2]int{{224, 224}, {500, 375}, {1, 1}, {7, 13}, {17, 9}} {
		for _, q := range []int{1, 7, 25, 49, 90} {
			cases = append(cases, tc{s[0], s[1], q})
		}
	}
	dir := t.TempDir()
	c, _ := Lookup("jpeg_compression")
	var jobs []string
	got := make([][]uint8, len(cases))
	for i, k := range cases {
		src := testimg.Natural(k.w, k.h, uint64(i))
		raw := interleaved8(src)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)+".raw"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, fmt.Sprintf("%d %d %d %d", i, k.w, k.h, k.q))
		got[i] = interleaved8(apply(c, src, []float64{float64(k.q)}, 1, 0))
	}
	script := `
import io, os, sys
from PIL import Image
d = sys.argv[1]
for line in open(os.path.join(d, "jobs.txt")):
    i, w, h, q = line.split()
    im = Image.frombytes("RGB", (int(w), int(h)), open(os.path.join(d, i + ".raw"), "rb").read())
    f = io.BytesIO()
    im.save(f, "JPEG", quality=int(q))
    f.seek(0)
    open(os.path.join(d, i + ".out"), "wb").write(Image.open(f).convert("RGB").tobytes())
`
	if err := os.WriteFile(filepath.Join(dir, "jobs.txt"), []byte(strings.Join(jobs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("pillow: %v\n%s", err, out)
	}
	for i, k := range cases {
		want, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i)+".out"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[i], want) {
			n := 0
			for j := range want {
				if got[i][j] != want[j] {
					n++
				}
			}
			t.Errorf("%dx%d quality %d: %d of %d samples differ from Pillow's", k.w, k.h, k.q, n, len(want))
		}
	}
}

// interleaved8 returns m's samples rounded to 8 bit, interleaved RGB.
func interleaved8(m *imageio.Image) []uint8 {
	n := m.Width * m.Height
	out := make([]uint8, 3*n)
	for i := range n {
		for c := range 3 {
			out[3*i+c] = imageio.To8(m.Ch[c][i], imageio.Round)
		}
	}
	return out
}
