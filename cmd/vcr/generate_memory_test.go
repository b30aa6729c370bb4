package main

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// zeroPNG returns a w×h 8-bit RGB PNG whose pixels are all zero: a
// decompression bomb of a few hundred kilobytes (deflate packs about 1000
// zero bytes into one), written chunk by chunk without an image in memory.
func zeroPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, c.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bit, RGB
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+3*w) // filter byte 0, then zero samples
	for range h {
		zw.Write(row)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

// animatedGIF returns a GIF of frames identical w×h frames: about 1 KB per
// frame on disk, w·h bytes per frame decoded.
func animatedGIF(t *testing.T, w, h, frames int) []byte {
	t.Helper()
	m := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	for i := range m.Pix {
		m.Pix[i] = byte(i / w % 2)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{m}, Delay: []int{0}}); err != nil {
		t.Fatal(err)
	}
	one := b.Bytes()
	start := 13 // header and logical screen descriptor, then the global palette if any
	if one[10]&0x80 != 0 {
		start += 3 << (one[10]&7 + 1)
	}
	out := bytes.Clone(one[:start])
	for range frames {
		out = append(out, one[start:len(one)-1]...)
	}
	return append(out, 0x3b)
}

// runReportingPeakRSS runs the command of os.Args and writes the process's
// peak resident memory, in bytes, to path: VmHWM of /proc/self/status, the
// high-water mark since exec. The child's getrusage ru_maxrss would not do:
// Linux carries the parent's high-water mark over into it when the parent,
// as Go's os/exec does, starts the child with vfork (the child's ru_maxrss
// read 311 MiB for a run whose VmHWM was 143 MiB, after the test process
// had decoded a 250 MB GIF).
func runReportingPeakRSS(path string) int {
	code := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if err := os.WriteFile(path, []byte(strconv.FormatInt(kb<<10, 10)), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			return code
		}
	}
	fmt.Fprintln(os.Stderr, "no VmHWM in /proc/self/status")
	return 1
}

// TestGenerateMemoryBudget runs vcr generate in a child process under
// --max-memory 256MiB over a dataset of small images plus a 100-megapixel
// all-zero PNG (a few hundred KB on disk, ≈ 24 GB to process), a
// 1000-frame GIF and two 640×480 images that do not fit the budget
// together: the run finishes, failures.csv lists the PNG with the memory
// it needs and the flag to raise, the peak RSS of the child (its VmHWM)
// stays under the budget, and a --resume that must pass the PNG
// again ends with the same files.
func TestGenerateMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and runs a 100-megapixel bomb")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status (Linux) to read the child's peak RSS")
	}
	const budget = 256 << 20
	data := genDataset(t)
	big := filepath.Join(data, "big")
	os.MkdirAll(big, 0o755)
	bomb := zeroPNG(t, 10000, 10000)
	os.WriteFile(filepath.Join(big, "zero.png"), bomb, 0o644)
	anim := animatedGIF(t, 500, 500, 1000)
	if g, err := gif.DecodeAll(bytes.NewReader(anim)); err != nil || len(g.Image) != 1000 {
		t.Fatalf("the animated GIF does not hold 1000 frames: %v", err)
	}
	os.WriteFile(filepath.Join(big, "frames.gif"), anim, 0o644)
	for i := range 2 {
		if err := imageio.Save(filepath.Join(big, fmt.Sprintf("large%d.png", i)), testimg.Natural(800, 600, uint64(i)), imageio.EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("100-megapixel zero PNG: %d bytes", len(bomb))
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"generate", "--images", data, "--corruptions", "gaussian_noise,gaussian_blur", "--n", "40", "--seed", "1",
		"--vif-method", "pixel", "--workers", "2", "--max-memory", "256MiB", "--progress", "never", "--out", out}
	run := func(args ...string) (peak int64, stderr string) {
		t.Helper()
		peakFile := filepath.Join(t.TempDir(), "peak")
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "VCR_TEST_RUN_MAIN=1", "VCR_TEST_PEAK_RSS_FILE="+peakFile)
		var errBuf bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errBuf
		if err := cmd.Run(); err != nil {
			t.Fatalf("vcr %s: %v\n%s", strings.Join(args, " "), err, errBuf.String())
		}
		b, err := os.ReadFile(peakFile)
		if err != nil {
			t.Fatal(err)
		}
		if peak, err = strconv.ParseInt(string(b), 10, 64); err != nil {
			t.Fatal(err)
		}
		return peak, errBuf.String()
	}
	peak, _ := run(args...)
	t.Logf("peak RSS %.1f MiB under --max-memory 256MiB", float64(peak)/(1<<20))
	if peak >= budget {
		t.Errorf("peak RSS %d bytes (%.0f MiB), want < --max-memory 256MiB", peak, float64(peak)/(1<<20))
	}
	manifest := readFile(t, filepath.Join(out, "manifest.csv"))
	failures := readFile(t, filepath.Join(out, "failures.csv"))
	var bombRows int
	for _, line := range strings.Split(string(failures), "\n") {
		if strings.Contains(line, "big/zero.png") {
			bombRows++
			for _, want := range []string{"10000x10000", "100.0 megapixels", "--max-memory 256 MiB", "raise --max-memory to at least"} {
				if !strings.Contains(line, want) {
					t.Errorf("failure row lacks %q: %s", want, line)
				}
			}
		}
	}
	if bombRows == 0 {
		t.Fatalf("failures.csv does not list big/zero.png (draw another seed):\n%s", failures)
	}
	for _, name := range []string{"big/frames.gif", "big/large0.png", "big/large1.png"} {
		if !bytes.Contains(manifest, []byte(name)) {
			t.Errorf("manifest.csv has no row from %s (allowed within the budget)", name)
		}
	}
	t.Logf("%d manifest rows, %d failure rows for the bomb", bytes.Count(manifest, []byte("\n"))-1, bombRows)

	// An interrupted run cut back to its headers: --resume passes the bomb
	// again and ends with the same rows.
	os.Remove(filepath.Join(out, "status.json"))
	for _, f := range []string{"manifest.csv", "failures.csv"} {
		p := filepath.Join(out, f)
		b := readFile(t, p)
		os.WriteFile(p, b[:bytes.IndexByte(b, '\n')+1], 0o644)
	}
	peak, _ = run(append(args, "--resume")...)
	t.Logf("--resume: peak RSS %.1f MiB", float64(peak)/(1<<20))
	if peak >= budget {
		t.Errorf("--resume: peak RSS %.0f MiB, want < 256 MiB", float64(peak)/(1<<20))
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "manifest.csv")), manifest) || !bytes.Equal(readFile(t, filepath.Join(out, "failures.csv")), failures) {
		t.Error("manifest.csv or failures.csv after --resume differ from the first run's")
	}
}

// TestGenerateMaxMemoryFlag checks --max-memory's parsing: sizes with
// units, none, and the usage errors of a bad or too small value.
func TestGenerateMaxMemoryFlag(t *testing.T) {
	data := genDataset(t)
	base := []string{"generate", "--images", data, "--corruptions", "gaussian_noise", "--n", "3", "--vif-method", "pixel", "--progress", "never"}
	for _, tc := range []struct {
		value string
		code  int
		want  string
	}{
		{"512MiB", exitOK, ""},
		{"none", exitOK, "no memory budget"},
		{"auto", exitOK, "memory budget"},
		{"lots", exitUsage, "--max-memory: \"lots\" is not a memory size"},
		{"0", exitUsage, "--max-memory must be positive"},
		{"64MiB", exitUsage, "give at least --max-memory 128 MiB"},
	} {
		code, _, errOut := runCmd(t, append(base, "--max-memory", tc.value, "--out", filepath.Join(t.TempDir(), "o"))...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("--max-memory %s: exit %d, want %d with %q:\n%s", tc.value, code, tc.code, tc.want, errOut)
		}
	}
}
