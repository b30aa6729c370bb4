package corrupt

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

func TestZoomFactors(t *testing.T) {
	// numpy arange length ⌈(stop − start)/step⌉ in float64: (1.11 − 1)/0.01 =
	// 11.000000000000009, so severity 1 has 12 factors (1.00…1.11); the others
	// give 16 (…1.15), 11 (…1.20), 13 (…1.24) and 11 (…1.30).
	for _, tc := range []struct {
		stop, step float64
		n          int
		last       float64
	}{
		{1.11, 0.01, 12, 1.11}, {1.16, 0.01, 16, 1.15}, {1.21, 0.02, 11, 1.20},
		{1.26, 0.02, 13, 1.24}, {1.31, 0.03, 11, 1.30}, {1, 0.01, 0, 0},
	} {
		z := zoomFactors(nil, tc.stop, tc.step)
		if len(z) != tc.n || (tc.n > 0 && (z[0] != 1 || math.Abs(z[len(z)-1]-tc.last) > 1e-12)) {
			t.Errorf("arange(1, %v, %v) = %v, want %d factors ending at %v", tc.stop, tc.step, z, tc.n, tc.last)
		}
	}
}

// zoomDirect is scipy's clipped_zoom written out per pixel for one plane and
// per axis: crop the central ⌈n/z⌉, map output o of the round(c·z)-sample
// zoom to input o·(c−1)/(m−1), interpolate linearly, keep the central n.
func zoomDirect(src []float32, w, h int, z float64) []float32 {
	axis := func(n int) (top, c, m, trim int) {
		c = int(math.Ceil(float64(n) / z))
		m = int(math.RoundToEven(float64(c) * z))
		return (n - c) / 2, c, m, (m - n) / 2
	}
	tx, cx, mx, trx := axis(w)
	ty, cy, my, try := axis(h)
	out := make([]float32, w*h)
	for y := range h {
		fy := float64(y+try) * float64(cy-1) / float64(my-1)
		y0 := int(math.Floor(fy))
		y1 := min(y0+1, cy-1)
		for x := range w {
			fx := float64(x+trx) * float64(cx-1) / float64(mx-1)
			x0 := int(math.Floor(fx))
			x1 := min(x0+1, cx-1)
			v := func(yy, xx int) float64 { return float64(src[(ty+yy)*w+tx+xx]) }
			ax, ay := fx-float64(x0), fy-float64(y0)
			out[y*w+x] = float32((1-ay)*((1-ax)*v(y0, x0)+ax*v(y0, x1)) + ay*((1-ax)*v(y1, x0)+ax*v(y1, x1)))
		}
	}
	return out
}

func TestZoomBlurMatchesDirect(t *testing.T) {
	for _, sz := range [][2]int{{40, 40}, {57, 31}, {224, 224}} {
		src := testimg.Natural(sz[0], sz[1], 12)
		c, _ := Lookup("zoom_blur")
		for _, p := range [][]float64{{1.11, 0.01}, {1.31, 0.03}, {1.2, 0.017}} {
			w, h := src.Width, src.Height
			want := imageio.New(w, h)
			zs := zoomFactors(nil, p[0], p[1])
			for ch := range 3 {
				acc := make([]float64, w*h)
				for i, v := range src.Ch[ch] {
					acc[i] = float64(v)
				}
				for _, z := range zs {
					for i, v := range zoomDirect(src.Ch[ch], w, h, z) {
						acc[i] += float64(v)
					}
				}
				for i := range acc {
					want.Ch[ch][i] = float32(acc[i] / float64(len(zs)+1))
				}
			}
			want.Clamp()
			if d := maxDiff(t, apply(c, src, p, 1, 0), want); d > 2e-6 {
				t.Errorf("%dx%d params %v: max diff %v from direct", w, h, p, d)
			}
		}
	}
}

func TestZoomOfOneIsCopy(t *testing.T) {
	src := testimg.Natural(31, 22, 2)
	var ax, ay zoomAxis
	ax.plan(31, 1, false)
	ay.plan(22, 1, false)
	out := make([]float32, 31*22)
	zoomPlane(out, src.Ch[0], 31, &ax, &ay, make([]float32, 62), false)
	for i, v := range out {
		if v != src.Ch[0][i] {
			t.Fatalf("zoom 1 changed sample %d: %v → %v", i, src.Ch[0][i], v)
		}
	}
}

func TestBlurFamilyTinyImages(t *testing.T) {
	// Borders wider than the image must still work (reflect-101 and
	// replicate fold any index back into the image).
	for _, name := range []string{"blur", "median_blur", "gaussian_blur", "glass_blur", "defocus_blur",
		"motion_blur", "motion_blur_line", "zoom_blur", "snow"} {
		c, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sz := range [][2]int{{1, 1}, {2, 3}, {5, 1}} {
			src := testimg.Natural(sz[0], sz[1], 1)
			for i := range uint64(3) {
				p := c.Sample(NewRand(2, i))
				out := apply(c, src, p, 3, i)
				for ch := range 3 {
					for _, v := range out.Ch[ch] {
						if !(v >= 0 && v <= 1) {
							t.Fatalf("%s %dx%d params %v: sample %v", name, sz[0], sz[1], p, v)
						}
					}
				}
			}
		}
	}
}

// BenchmarkSeverity3 times the blur-family corruptions at ImageNet-C
// severity 3 on 224×224, the setting of the imagecorruptions timings
// (perf-baseline.md §4).
func BenchmarkSeverity3(b *testing.B) {
	src := testimg.Natural(224, 224, 1)
	dst := imageio.New(224, 224)
	for _, name := range []string{"gaussian_blur", "glass_blur", "defocus_blur", "motion_blur", "zoom_blur", "snow"} {
		c, err := Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			rng := NewRand(1, 0)
			b.ReportAllocs()
			for b.Loop() {
				c.Apply(dst, src, c.Severities[2], rng)
			}
		})
	}
}
