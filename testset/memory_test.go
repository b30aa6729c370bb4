package testset

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// allocated returns the bytes f allocates. With the garbage collector off
// (the caller's job) nothing is freed meanwhile, so it bounds f's peak
// live memory from above.
func allocated(f func()) int64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return int64(b.TotalAlloc - a.TotalAlloc)
}

// TestBytesPerPixel checks the memory model's figures against what
// decoding every format and one draw of every corruption, scored with all
// five Δv flavours, allocate: DecodeBytesPerPixel per source pixel (the
// file aside) and PipelineBytesPerPixel per pixel of the image drawn (the
// image itself included). A stage that needs more memory fails it: raise
// the figure, and the docs' table (docs/performance.md), with it.
func TestBytesPerPixel(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 1 GB with the garbage collector off")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const w, h = 1000, 1000
	m := testimg.Natural(w, h, 1)
	nrgba := m.NRGBA(imageio.Round)
	rgba64 := image.NewRGBA64(nrgba.Rect)
	for i := range nrgba.Pix {
		rgba64.Pix[2*i], rgba64.Pix[2*i+1] = nrgba.Pix[i], nrgba.Pix[i]
	}
	pal := image.NewPaletted(nrgba.Rect, palette.Plan9)
	for i := range pal.Pix {
		pal.Pix[i] = byte(i * 7)
	}
	enc := []struct {
		name string
		f    func(*bytes.Buffer) error
	}{
		{"png", func(b *bytes.Buffer) error { return png.Encode(b, nrgba) }},
		{"png 16-bit", func(b *bytes.Buffer) error { return png.Encode(b, rgba64) }},
		{"jpeg", func(b *bytes.Buffer) error { return jpeg.Encode(b, nrgba, &jpeg.Options{Quality: 90}) }},
		{"gif", func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) }},
		{"bmp", func(b *bytes.Buffer) error { return bmp.Encode(b, nrgba) }},
		{"tiff", func(b *bytes.Buffer) error { return tiff.Encode(b, nrgba, nil) }},
		{"tiff 16-bit", func(b *bytes.Buffer) error { return tiff.Encode(b, rgba64, nil) }},
	}
	dir := t.TempDir()
	for _, e := range enc {
		var b bytes.Buffer
		if err := e.f(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "img")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, pre := range []struct{ resize, crop int }{{0, 0}, {256, 224}} {
			a := allocated(func() {
				img, err := imageio.Load(p, imageio.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if pre.resize > 0 {
					imageio.Preprocess(img, pre.resize, pre.crop)
				}
			})
			perPixel := float64(a-int64(b.Len())) / (w * h)
			t.Logf("decode %-11s resize %3d: %5.1f bytes per pixel", e.name, pre.resize, perPixel)
			if perPixel > DecodeBytesPerPixel {
				t.Errorf("decoding %s (resize %d) allocates %.1f bytes per pixel, more than DecodeBytesPerPixel = %d", e.name, pre.resize, perPixel, DecodeBytesPerPixel)
			}
		}
	}

	const side = 512
	img := testimg.Natural(side, side, 2)
	st := &runState{cfg: Config{Method: iqa.VCRPy, Rounding: imageio.Round}, dvMethods: iqa.Methods}
	worst := 0.0
	for _, c := range corrupt.All() {
		// Warm up: one-time loads (the frost textures) are ProgramReserve's.
		c.Apply(imageio.New(8, 8), imageio.New(8, 8), Uniform{c}.Sample(corrupt.NewRand(3, 1)), corrupt.NewRand(3, 0))
		p := Uniform{c}.Sample(corrupt.NewRand(3, 1))
		// prepared: an --imagenet-c draw, whose severities are scored
		// against one prepared reference (iqa.Reference).
		for _, prepared := range []bool{false, true} {
			a := allocated(func() {
				w := st.newWorker(context.Background())
				w.prepare(img)
				if prepared {
					w.prepareRef()
				}
				if _, _, err := w.scoreCorrupted(c, img, p, 5, prepared); err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if err := w.encode(&bytes.Buffer{}); err != nil {
					t.Fatal(err)
				}
			})
			perPixel := float64(a)/(side*side) + 12 // the image itself: three float32 planes
			worst = max(worst, perPixel)
			if perPixel > PipelineBytesPerPixel {
				t.Errorf("a draw of %s (prepared reference: %v) allocates %.1f bytes per pixel, more than PipelineBytesPerPixel = %d", c.Name, prepared, perPixel, PipelineBytesPerPixel)
			}
		}
	}
	t.Logf("a draw (all five Δv flavours): at most %.1f bytes per pixel", worst)
}

// TestMemBudget checks the shared budget: a reservation waits while others
// hold the memory, waiters are served in order (a large one is not passed
// by small ones), and a cancelled waiter leaves the queue.
func TestMemBudget(t *testing.T) {
	b, err := newMemBudget(ProgramReserve + 100<<20)
	if err != nil || b.cap != 100<<20 {
		t.Fatalf("newMemBudget(ProgramReserve + 100 MiB) = %+v, %v; want 100 MiB for images", b, err)
	}
	b = &memBudget{total: ProgramReserve + 100, cap: 100, free: 100}
	ctx := context.Background()
	if err := b.acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	big := make(chan struct{})
	go func() {
		b.acquire(ctx, 80) // waits for the 60
		close(big)
	}()
	for !b.contended() {
		runtime.Gosched()
	}
	small := make(chan struct{})
	go func() {
		b.acquire(ctx, 10) // 40 are free, but the 80 wait first
		close(small)
	}()
	select {
	case <-small:
		t.Fatal("a small reservation passed a waiting large one")
	case <-big:
		t.Fatal("80 granted while 60 of 100 are held")
	case <-time.After(50 * time.Millisecond):
	}
	b.release(60)
	<-big
	<-small
	if b.free != 10 {
		t.Errorf("free %d after granting 80 and 10 of 100, want 10", b.free)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- b.acquire(cctx, 50) }()
	for !b.contended() {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled acquire: %v, want context.Canceled", err)
	}
	if b.contended() {
		t.Error("a cancelled waiter stayed in the queue")
	}
	b.release(90)
	if b.free != 100 {
		t.Errorf("free %d after releasing everything, want 100", b.free)
	}
	if _, err := newMemBudget(ProgramReserve + 1<<20); err == nil {
		t.Error("a budget leaving 1 MiB for images was accepted")
	}
	if b, err := newMemBudget(-1); b != nil || err != nil {
		t.Errorf("newMemBudget(-1) = %v, %v; want no budget", b, err)
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"256MiB", 256 << 20}, {"1GiB", 1 << 30}, {"1.5 GiB", 3 << 29}, {"4G", 4e9}, {"512mb", 512e6},
		{"1048576", 1 << 20}, {"100kib", 100 << 10}, {"2T", 2e12},
	} {
		if got, err := ParseBytes(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "GiB", "-1G", "12 parsecs", "1e30"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
	for n, want := range map[int64]string{100: "100 B", 256 << 20: "256 MiB", 3 << 29: "1.5 GiB", 22 << 30: "22 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSystemMemory(t *testing.T) {
	m, from := SystemMemory()
	if _, err := os.Stat("/proc/meminfo"); err == nil && (m <= 0 || from == "") {
		t.Errorf("SystemMemory() = %d, %q on a system with /proc/meminfo", m, from)
	}
	t.Logf("SystemMemory: %s from %s; default budget %s", FormatBytes(m), from, FormatBytes(DefaultMaxMemory()))
	if d := DefaultMaxMemory(); m > 0 && d != m/4*3 {
		t.Errorf("DefaultMaxMemory() = %d, want 3/4 of %d", d, m)
	}
}

// headerOnlyPNG returns a PNG signature and an IHDR chunk declaring w×h
// 8-bit RGB pixels, and no pixel data: decoding it would fail, but only
// after allocating the pixels; the budget must refuse it from the header.
func headerOnlyPNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := []byte{0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0}
	binary.BigEndian.PutUint32(ihdr[8:], w)
	binary.BigEndian.PutUint32(ihdr[12:], h)
	b.Write(ihdr)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(ihdr[4:]))
	return b.Bytes()
}

// noHeaders hides a Source's Header method.
type noHeaders struct{ Source }

// TestGenerateOverBudget runs Generate with a budget of 128 MiB (32 MiB
// for images, about 135,000 pixels a draw) over the test dataset plus a
// 400×400 PNG, a 30000×30000 header and six 300×300 PNGs that fit only one
// at a time: the first two are failure rows naming ErrOverBudget and the
// budget, every other draw is in the manifest (the workers take turns with
// the 300×300 ones), and the outcome does not depend on the number of
// workers. A Source that
// cannot read headers is checked after decoding, with the same result.
func TestGenerateOverBudget(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	if err := imageio.Save(filepath.Join(data, "cat", "large.png"), testimg.Natural(400, 400, 5), imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "dog", "bomb.png"), headerOnlyPNG(30000, 30000), 0o644)
	// 300×300 images reserve 21 MiB each: they fit, but one at a time.
	mids := []string{"fish/mid0.png", "dog/mid1.png", "cat/mid2.png", "fish/mid3.png", "dog/mid4.png", "cat/mid5.png"}
	for _, p := range mids {
		if err := imageio.Save(filepath.Join(data, p), testimg.Natural(300, 300, 6), imageio.EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var manifests [][]byte
	for i, workers := range []int{1, 3, 2} {
		cfg := testConfig(t, data, filepath.Join(t.TempDir(), "out"))
		cfg.MaxMemory, cfg.Workers, cfg.N = ProgramReserve+32<<20, workers, 40
		if i == 2 {
			cfg.Source = noHeaders{cfg.Source}
		}
		sum, err := Generate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		fails := readCSV(t, filepath.Join(cfg.Out, FailuresFile))
		over := map[string]int{}
		for _, r := range fails[1:] {
			if bytes.Contains([]byte(r[3]), []byte(ErrOverBudget.Error())) {
				over[r[1]]++
				for _, want := range []string{"megapixels", "--max-memory 128 MiB", "leaves 32 MiB for one image"} {
					if !bytes.Contains([]byte(r[3]), []byte(want)) {
						t.Errorf("workers %d: failure of %s lacks %q: %s", workers, r[1], want, r[3])
					}
				}
			}
		}
		// Without headers the bomb reaches the decoder, whose pixel limit
		// (100 megapixels) refuses it.
		if over["cat/large.png"] == 0 || (i < 2) != (over["dog/bomb.png"] > 0) || len(over) != 2-i/2 {
			t.Errorf("workers %d, source %T: over-budget failures %v", workers, cfg.Source, over)
		}
		m, err := os.ReadFile(filepath.Join(cfg.Out, ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, mid := range mids {
			if !bytes.Contains(m, []byte(mid)) {
				t.Errorf("workers %d: no manifest row from %s, which fits the budget", workers, mid)
			}
		}
		if sum.Rows+sum.Failures != 80 {
			t.Errorf("workers %d: %d rows + %d failures, want 80", workers, sum.Rows, sum.Failures)
		}
		manifests = append(manifests, m)
	}
	if !bytes.Equal(manifests[0], manifests[1]) || !bytes.Equal(manifests[0], manifests[2]) {
		t.Error("the manifest under a budget depends on the number of workers or on the header check")
	}
}
