package imageio_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// resizeSlow is the 2-D form of Pillow's bilinear resize, written straight
// from the formula in resize.go: out(x, y) = Σ_i Σ_j wx(x, i)·wy(y, j)·in(i, j)
// with each axis' weights normalised to sum 1, all in float64.
func resizeSlow(m *imageio.Image, w, h int) *imageio.Image {
	weights := func(n, out, o int) (lo int, ws []float64) {
		scale := float64(n) / float64(out)
		fscale := math.Max(scale, 1)
		center := (float64(o) + 0.5) * scale
		lo = max(0, int(center-fscale+0.5))
		hi := min(n, int(center+fscale+0.5))
		var sum float64
		for i := lo; i < hi; i++ {
			v := math.Max(0, 1-math.Abs((float64(i)-center+0.5)/fscale))
			ws = append(ws, v)
			sum += v
		}
		for i := range ws {
			ws[i] /= sum
		}
		return lo, ws
	}
	out := imageio.New(w, h)
	for c := range 3 {
		for y := range h {
			y0, wy := weights(m.Height, h, y)
			for x := range w {
				x0, wx := weights(m.Width, w, x)
				var acc float64
				for j, b := range wy {
					for i, a := range wx {
						acc += a * b * float64(m.Ch[c][(y0+j)*m.Width+x0+i])
					}
				}
				out.Ch[c][y*w+x] = float32(acc)
			}
		}
	}
	return out
}

func TestResizeMatchesSlowReference(t *testing.T) {
	src := testimg.Natural(61, 47, 3)
	for _, sz := range [][2]int{{30, 23}, {17, 40}, {61, 20}, {122, 94}, {7, 5}, {1, 1}, {200, 13}} {
		got := imageio.ResizeFloat(src, sz[0], sz[1])
		want := resizeSlow(src, sz[0], sz[1])
		// Only float32 rounding of the intermediate row pass separates the two.
		if d := imageio.MaxAbsDiff(got, want); d > 2e-6 {
			t.Errorf("Resize to %dx%d differs from the 2-D reference by %g", sz[0], sz[1], d)
		}
	}
}

func TestResizeHandValues(t *testing.T) {
	for _, tc := range []struct {
		in, want []float32
	}{
		// 4 → 2 of (0, 1, 2, 3)/3, computed by hand from the formula: output 0
		// has center 1, taps 0…2 with weights 0.75, 0.75, 0.25 →
		// (0·.75 + 1·.75 + 2·.25)/1.75 = 5/7; output 1 has center 3, taps 1…3
		// with 0.25, 0.75, 0.75 → 4/1.75 = 16/7; both divided by 3.
		{[]float32{0, 1.0 / 3, 2.0 / 3, 1}, []float32{5.0 / 21, 16.0 / 21}},
		// 2 → 4 (upscaling, support 1): centers 0.25, 0.75, 1.25, 1.75.
		{[]float32{0, 1}, []float32{0, 0.25, 0.75, 1}},
	} {
		m := imageio.New(len(tc.in), 1)
		copy(m.Ch[1], tc.in)
		got := imageio.ResizeFloat(m, len(tc.want), 1)
		for i, w := range tc.want {
			if math.Abs(float64(got.Ch[1][i]-w)) > 1e-6 {
				t.Errorf("Resize(%v)[%d] = %v, want %v", tc.in, i, got.Ch[1][i], w)
			}
		}
		// The same along the vertical axis.
		v := imageio.New(1, len(tc.in))
		copy(v.Ch[2], tc.in)
		gotv := imageio.ResizeFloat(v, 1, len(tc.want))
		for i, w := range tc.want {
			if math.Abs(float64(gotv.Ch[2][i]-w)) > 1e-6 {
				t.Errorf("vertical Resize(%v)[%d] = %v, want %v", tc.in, i, gotv.Ch[2][i], w)
			}
		}
	}
}

func TestResizeConstantStaysConstant(t *testing.T) {
	m := imageio.New(37, 29)
	for c, v := range []float32{0.2, 0.5, 1} {
		for i := range m.Ch[c] {
			m.Ch[c][i] = v
		}
	}
	for _, sz := range [][2]int{{10, 10}, {224, 100}, {36, 29}, {3, 71}} {
		out := imageio.Resize(m, sz[0], sz[1])
		for c, v := range []float32{0.2, 0.5, 1} {
			for i, got := range out.Ch[c] {
				if math.Abs(float64(got-v)) > 2.5e-7 || got > 1 {
					t.Fatalf("Resize %dx%d of constant %v: sample %d = %v", sz[0], sz[1], v, i, got)
				}
			}
		}
	}
}

// An integer downscale by k of a linear ramp a·i + b averages k… samples with
// weights symmetric about the block centre ok + (k−1)/2, so away from the
// borders the output is exactly the ramp at that point.
func TestResizeIntegerDownscaleOfRamp(t *testing.T) {
	const a, b = 1.0 / 512, 0.1
	for _, k := range []int{2, 3, 4, 5} {
		n := 40 * k
		m := imageio.New(n, n)
		for y := range n {
			for x := range n {
				m.Ch[0][y*n+x] = float32(a*float64(x) + b)
				m.Ch[1][y*n+x] = float32(a*float64(y) + b)
			}
		}
		out := imageio.Resize(m, 40, 40)
		for o := 1; o < 39; o++ {
			want := a*(float64(o*k)+float64(k-1)/2) + b
			if got := out.Ch[0][20*40+o]; math.Abs(float64(got)-want) > 1e-6 {
				t.Errorf("k=%d: horizontal ramp at %d = %v, want %v", k, o, got, want)
			}
			if got := out.Ch[1][o*40+20]; math.Abs(float64(got)-want) > 1e-6 {
				t.Errorf("k=%d: vertical ramp at %d = %v, want %v", k, o, got, want)
			}
		}
	}
}

func TestShorterSideSize(t *testing.T) {
	for _, tc := range []struct{ w, h, side, ww, wh int }{
		// torchvision: long = int(side * long / short).
		{500, 375, 224, 298, 224}, // 298.67
		{375, 500, 224, 224, 298},
		{500, 375, 256, 341, 256}, // 341.33
		{640, 480, 256, 341, 256},
		{100, 100, 224, 224, 224},
		{32, 32, 32, 32, 32},
		{1000, 10, 5, 500, 5},
	} {
		if w, h := imageio.ShorterSideSize(tc.w, tc.h, tc.side); w != tc.ww || h != tc.wh {
			t.Errorf("ShorterSideSize(%d, %d, %d) = %d×%d, want %d×%d", tc.w, tc.h, tc.side, w, h, tc.ww, tc.wh)
		}
	}
	m := testimg.Natural(32, 32, 1)
	if imageio.ResizeShorter(m, 32) != m {
		t.Error("ResizeShorter to the same size should return m itself")
	}
}

func TestCenterCrop(t *testing.T) {
	// Source sample (x, y) holds x + 100·y (scaled), so the crop origin can be read back.
	mk := func(w, h int) *imageio.Image {
		m := imageio.New(w, h)
		for y := range h {
			for x := range w {
				m.Ch[0][y*w+x] = float32(x+100*y+1) / 1e5
			}
		}
		return m
	}
	for _, tc := range []struct{ w, h, cw, ch, x0, y0 int }{
		// torchvision: left = round((w − cw)/2) with Python's round-half-to-even.
		{298, 224, 224, 224, 37, 0},
		{341, 256, 224, 224, 58, 16}, // 58.5 → 58
		{7, 8, 2, 2, 2, 3},           // 2.5 → 2, 3
		{9, 6, 2, 3, 4, 2},           // 3.5 → 4, 1.5 → 2
		{4, 4, 3, 3, 0, 0},           // 0.5 → 0
	} {
		out := imageio.CenterCrop(mk(tc.w, tc.h), tc.cw, tc.ch)
		if out.Width != tc.cw || out.Height != tc.ch {
			t.Fatalf("CenterCrop size %dx%d", out.Width, out.Height)
		}
		want := float32(tc.x0+100*tc.y0+1) / 1e5
		if got := out.Ch[0][0]; got != want {
			t.Errorf("CenterCrop(%dx%d → %dx%d) origin value %v, want %v (x0=%d, y0=%d)", tc.w, tc.h, tc.cw, tc.ch, got, want, tc.x0, tc.y0)
		}
	}
	// Padding: a 3×2 image cropped to 6×5 sits at column (6−3)/2 = 1, row (5−2)/2 = 1.
	out := imageio.CenterCrop(mk(3, 2), 6, 5)
	for y := range 5 {
		for x := range 6 {
			var want float32
			if x >= 1 && x < 4 && y >= 1 && y < 3 {
				want = float32(x-1+100*(y-1)+1) / 1e5
			}
			if got := out.Ch[0][y*6+x]; got != want {
				t.Errorf("padded crop (%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	m := mk(5, 5)
	if imageio.CenterCrop(m, 5, 5) != m {
		t.Error("CenterCrop to the same size should return m itself")
	}
}

func TestPreprocess(t *testing.T) {
	src := testimg.Natural(500, 375, 2)
	out := imageio.Preprocess(src, 256, 224)
	if out.Width != 224 || out.Height != 224 {
		t.Fatalf("Preprocess size %dx%d, want 224x224", out.Width, out.Height)
	}
	want := imageio.CenterCrop(imageio.Resize(src, 341, 256), 224, 224)
	if d := imageio.MaxAbsDiff(out, want); d != 0 {
		t.Errorf("Preprocess differs from Resize+CenterCrop by %g", d)
	}
	if imageio.Preprocess(src, 0, 0) != src {
		t.Error("Preprocess(0, 0) should return src")
	}
	if o := imageio.Preprocess(src, 0, 100); o.Width != 100 || o.Height != 100 {
		t.Errorf("crop only: %dx%d", o.Width, o.Height)
	}
	if o := imageio.Preprocess(src, 100, 0); o.Width != 133 || o.Height != 100 {
		t.Errorf("resize only: %dx%d, want 133x100", o.Width, o.Height)
	}
}

func BenchmarkResizeShorter(b *testing.B) {
	src := testimg.Natural(500, 375, 1)
	b.ReportAllocs()
	for b.Loop() {
		imageio.ResizeShorter(src, 224)
	}
}

func ExamplePreprocess() {
	m := imageio.New(500, 375) // an ImageNet validation photo's size
	r := imageio.ResizeShorter(m, 256)
	fmt.Println(r.Width, r.Height)
	c := imageio.Preprocess(m, 256, 224)
	fmt.Println(c.Width, c.Height)
	// Output:
	// 341 256
	// 224 224
}
