package imageio_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/imageio/jpeg"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// random8 returns a w×h image whose samples are random 8-bit values k/255.
func random8(w, h int, seed uint64) *imageio.Image {
	r := rand.New(rand.NewPCG(seed, 1))
	m := imageio.New(w, h)
	for c := range 3 {
		for i := range m.Ch[c] {
			m.Ch[c][i] = imageio.From8(uint8(r.IntN(256)))
		}
	}
	return m
}

func TestPNGRoundTripLossless(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {7, 3}, {64, 48}} {
		m := random8(sz[0], sz[1], uint64(sz[0]))
		var b bytes.Buffer
		if err := imageio.Encode(&b, m, imageio.PNG, imageio.EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		got, format, err := imageio.Decode(&b, imageio.Options{})
		if err != nil || format != "png" {
			t.Fatalf("decode: %v (%s)", err, format)
		}
		if d := imageio.MaxAbsDiff(got, m); d != 0 {
			t.Errorf("%dx%d: PNG round trip changed samples by up to %g", sz[0], sz[1], d)
		}
	}
}

// TestEncodeRounding checks that Encode applies the requested rounding:
// 100.5/255 is written as 101 when rounding and 100 when truncating.
func TestEncodeRounding(t *testing.T) {
	m := imageio.New(1, 1)
	for c := range 3 {
		m.Ch[c][0] = 100.5 / 255
	}
	for _, tc := range []struct {
		r    imageio.Rounding
		want uint8
	}{{imageio.Round, 101}, {imageio.Truncate, 100}} {
		var b bytes.Buffer
		if err := imageio.Encode(&b, m, imageio.PNG, imageio.EncodeOptions{Rounding: tc.r}); err != nil {
			t.Fatal(err)
		}
		got, _, err := imageio.Decode(&b, imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if g := got.Ch[0][0]; g != imageio.From8(tc.want) {
			t.Errorf("rounding %d: wrote %v, want %d", tc.r, g*255, tc.want)
		}
	}
}

func TestJPEGRoundTripClose(t *testing.T) {
	src := testimg.Natural(96, 64, 2)
	for _, tc := range []struct {
		quality int
		minPSNR float64 // dB; measured 34.0 and 29.1 on this hard-edged image (Go encodes 4:2:0)
	}{{95, 33}, {50, 28}} {
		var b bytes.Buffer
		if err := imageio.Encode(&b, src, imageio.JPEG, imageio.EncodeOptions{JPEGQuality: tc.quality}); err != nil {
			t.Fatal(err)
		}
		n := b.Len()
		got, format, err := imageio.Decode(&b, imageio.Options{})
		if err != nil || format != "jpeg" {
			t.Fatalf("decode: %v (%s)", err, format)
		}
		psnr := -10 * math.Log10(imageio.MeanSquaredDiff(got, src))
		t.Logf("quality %d: PSNR %.1f dB, %d bytes", tc.quality, psnr, n)
		if psnr < tc.minPSNR {
			t.Errorf("quality %d: PSNR %.1f dB, want ≥ %v", tc.quality, psnr, tc.minPSNR)
		}
	}
}

// TestJPEGTruncatedError checks what a user reads for a cut-off JPEG: the
// decoder's own error, which names the format and the damage once
// ("jpeg: invalid: image data is truncated", not "decode jpeg: jpeg: …"),
// and wraps jpeg.ErrFormat.
func TestJPEGTruncatedError(t *testing.T) {
	var b bytes.Buffer
	if err := imageio.Encode(&b, testimg.Natural(96, 64, 3), imageio.JPEG, imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := imageio.Decode(bytes.NewReader(b.Bytes()[:b.Len()/2]), imageio.Options{})
	if err == nil {
		t.Fatal("a JPEG cut in half decoded without error")
	}
	if !errors.Is(err, jpeg.ErrFormat) {
		t.Errorf("error %q does not wrap jpeg.ErrFormat", err)
	}
	if want := "jpeg: invalid: image data is truncated"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestSaveLeavesNoFileOnError(t *testing.T) {
	dir := t.TempDir()
	// An empty image cannot be encoded as PNG.
	if err := imageio.Save(filepath.Join(dir, "empty.png"), imageio.New(0, 0), imageio.EncodeOptions{}); err == nil {
		t.Error("Save of a 0×0 PNG: no error")
	}
	// Unknown extension.
	if err := imageio.Save(filepath.Join(dir, "x.txt"), imageio.New(2, 2), imageio.EncodeOptions{}); err == nil {
		t.Error("Save to .txt: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind after failed saves: %v", ents)
	}
	// A missing directory is an error, not a panic.
	if err := imageio.Save(filepath.Join(dir, "no", "such", "x.png"), imageio.New(2, 2), imageio.EncodeOptions{}); err == nil {
		t.Error("Save into a missing directory: no error")
	}
	// A failed save does not touch an existing file.
	path := filepath.Join(dir, "keep.png")
	m := random8(4, 4, 9)
	if err := imageio.Save(path, m, imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := imageio.Save(path, imageio.New(0, 0), imageio.EncodeOptions{}); err == nil {
		t.Error("overwriting with a 0×0 image: no error")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a failed save changed the existing file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("want only keep.png in the directory, got %v", ents)
	}
	got, err := imageio.Load(path, imageio.Options{})
	if err != nil || imageio.MaxAbsDiff(got, m) != 0 {
		t.Errorf("Load after Save: %v", err)
	}
}

// TestLuma compares Luma with OpenCV's fixed-point RGB→GRAY written from
// its definition, (9798·R + 19235·G + 3735·B + 16384) >> 15 on the 8-bit
// rounded channels (vif.md §1), on every combination of a set of levels
// plus random colours, including samples between 8-bit levels.
func TestLuma(t *testing.T) {
	levels := []float32{0, 1.0 / 255, 0.5 / 255, 0.4999 / 255, 127.5 / 255, 128.0 / 255, 254.5 / 255, 1, -0.1, 1.2}
	var cols [][3]float32
	for _, r := range levels {
		for _, g := range levels {
			for _, b := range levels {
				cols = append(cols, [3]float32{r, g, b})
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 5000 {
		cols = append(cols, [3]float32{rng.Float32(), rng.Float32(), rng.Float32()})
	}
	m := imageio.New(len(cols), 1)
	for i, c := range cols {
		m.Ch[0][i], m.Ch[1][i], m.Ch[2][i] = c[0], c[1], c[2]
	}
	got := make([]float64, len(cols))
	m.Luma(got)
	round8 := func(v float32) int {
		x := math.Floor(float64(v)*255 + 0.5)
		return int(math.Min(255, math.Max(0, x)))
	}
	for i, c := range cols {
		R, G, B := round8(c[0]), round8(c[1]), round8(c[2])
		want := float64((9798*R + 19235*G + 3735*B + 16384) >> 15)
		if got[i] != want {
			t.Fatalf("Luma%v (8-bit %d,%d,%d) = %v, want %v", c, R, G, B, got[i], want)
		}
		// The fixed point is within half a level of 0.299R + 0.587G + 0.114B,
		// plus the weights' rounding to 1/32768 (at most 255·3.4e-5 ≈ 0.009).
		if f := 0.299*float64(R) + 0.587*float64(G) + 0.114*float64(B); math.Abs(f-want) > 0.51 {
			t.Fatalf("Luma%v = %v, float formula %v", c, want, f)
		}
	}
	// Grey stays grey: R = G = B = k gives k (the weights sum to 2^15).
	for k := range 256 {
		g := imageio.New(1, 1)
		for c := range 3 {
			g.Ch[c][0] = imageio.From8(uint8(k))
		}
		y := make([]float64, 1)
		g.Luma(y)
		if y[0] != float64(k) {
			t.Errorf("Luma of grey %d = %v", k, y[0])
		}
	}
}

func TestTo8(t *testing.T) {
	for k := range 256 {
		for _, r := range []imageio.Rounding{imageio.Round, imageio.Truncate} {
			if got := imageio.To8(imageio.From8(uint8(k)), r); got != uint8(k) {
				t.Errorf("To8(From8(%d), %d) = %d", k, r, got)
			}
		}
		if k < 255 {
			lo, hi := (float32(k)+0.49)/255, (float32(k)+0.51)/255
			if imageio.To8(lo, imageio.Round) != uint8(k) || imageio.To8(hi, imageio.Round) != uint8(k+1) {
				t.Errorf("Round around %d.5: %d, %d", k, imageio.To8(lo, imageio.Round), imageio.To8(hi, imageio.Round))
			}
			if got := imageio.To8((float32(k)+0.99)/255, imageio.Truncate); got != uint8(k) {
				t.Errorf("Truncate(%d.99) = %d", k, got)
			}
		}
	}
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for _, tc := range []struct {
		v            float32
		round, trunc uint8
	}{
		{-0.1, 0, 0}, {nan, 0, 0}, {inf, 255, 255}, {-inf, 0, 0},
		{1.0001, 255, 255}, {1, 255, 255}, {254.9 / 255, 255, 254}, {0.4 / 255, 0, 0}, {0.6 / 255, 1, 0},
	} {
		if g := imageio.To8(tc.v, imageio.Round); g != tc.round {
			t.Errorf("To8(%v, Round) = %d, want %d", tc.v, g, tc.round)
		}
		if g := imageio.To8(tc.v, imageio.Truncate); g != tc.trunc {
			t.Errorf("To8(%v, Truncate) = %d, want %d", tc.v, g, tc.trunc)
		}
	}
}

func TestQuantize(t *testing.T) {
	vals := []float32{-0.5, 0, 0.2 / 255, 0.7 / 255, 100.5 / 255, 254.99 / 255, 1, 1.5}
	for _, r := range []imageio.Rounding{imageio.Round, imageio.Truncate} {
		m := imageio.New(len(vals), 1)
		for c := range 3 {
			copy(m.Ch[c], vals)
		}
		m.Quantize(r)
		for i, v := range vals {
			want := imageio.From8(imageio.To8(v, r))
			if m.Ch[1][i] != want {
				t.Errorf("Quantize(%d): %v → %v, want %v", r, v, m.Ch[1][i], want)
			}
		}
		// Quantizing twice changes nothing.
		q := m.Clone()
		q.Quantize(r)
		if imageio.MaxAbsDiff(q, m) != 0 {
			t.Errorf("Quantize(%d) is not idempotent", r)
		}
	}
}

func TestDecodeReaderError(t *testing.T) {
	want := errors.New("disk on fire")
	if _, _, err := imageio.Decode(errReader{want}, imageio.Options{}); !errors.Is(err, want) {
		t.Errorf("Decode of a failing reader: %v, want %v", err, want)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// BenchmarkDecodeJPEG224 decodes a 224×224 quality-75 JPEG (PIL: 0.21 ms
// minimum, perf-baseline.md §5).
func BenchmarkDecodeJPEG224(b *testing.B) {
	var buf bytes.Buffer
	if err := imageio.Encode(&buf, testimg.Natural(224, 224, 1), imageio.JPEG, imageio.EncodeOptions{JPEGQuality: 75}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := imageio.DecodeBytes(data, imageio.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodePNG224 encodes a 224×224 image as PNG (zlib level 1; PIL's
// default level 6: 5.9 ms, OpenCV's level 1: 1.56 ms, perf-baseline.md §5).
func BenchmarkEncodePNG224(b *testing.B) {
	m := testimg.Natural(224, 224, 1)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := imageio.Encode(&buf, m, imageio.PNG, imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
