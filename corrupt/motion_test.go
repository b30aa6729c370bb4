package corrupt

import (
	"math"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// sparseDirect is the slow, obvious correlation with taps and border b.
func sparseDirect(src *imageio.Image, taps []tap, b Border) *imageio.Image {
	w, h := src.Width, src.Height
	out := imageio.New(w, h)
	for c := range 3 {
		for y := range h {
			for x := range w {
				var s float64
				for _, tp := range taps {
					s += float64(tp.w) * at(src.Ch[c], w, h, x+tp.dx, y+tp.dy, b)
				}
				out.Ch[c][y*w+x] = float32(s)
			}
		}
	}
	out.Clamp()
	return out
}

func TestMagickMotionOffsets(t *testing.T) {
	// ImageMagick MotionBlurImage: offset_i = (⌈i·cos θ − 0.5⌉, ⌈i·sin θ − 0.5⌉).
	// θ = 0: (i, 0). θ = 45°: i·0.7071 − 0.5 = −0.5, 0.207, 0.914, 1.621,
	// 2.328, 3.036 → 0, 1, 1, 2, 3, 4 (note ⌈−0.5⌉ = 0 and ⌈0.5⌉ = 1).
	for _, tc := range []struct {
		angle float64
		want  [][2]int
	}{
		{0, [][2]int{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}}},
		{45, [][2]int{{0, 0}, {1, 1}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}},
		{-90, [][2]int{{0, 0}, {0, -1}, {0, -2}, {0, -3}, {0, -4}, {0, -5}}},
	} {
		taps := magickMotionTaps(nil, 2.5, 1, tc.angle) // 2⌈2.5⌉+1 = 7 taps
		if len(taps) != 7 {
			t.Fatalf("radius 2.5: %d taps, want 7", len(taps))
		}
		for i, w := range tc.want {
			if taps[i].dx != w[0] || taps[i].dy != w[1] {
				t.Errorf("angle %v tap %d: offset (%d,%d), want %v", tc.angle, i, taps[i].dx, taps[i].dy, w)
			}
		}
	}
	// One-sided Gaussian weights exp(−i²/(2σ²)) normalised: σ = 1, 3 taps
	// (radius 1): 1, e^−½, e^−2 over their sum 1.74100…
	taps := magickMotionTaps(nil, 1, 1, 0)
	s := 1 + math.Exp(-0.5) + math.Exp(-2)
	for i, want := range []float64{1 / s, math.Exp(-0.5) / s, math.Exp(-2) / s} {
		if math.Abs(float64(taps[i].w)-want) > 1e-7 {
			t.Errorf("tap %d weight %v, want %v", i, taps[i].w, want)
		}
	}
}

func TestMotionTapsSumToOne(t *testing.T) {
	for _, p := range [][3]float64{{10, 3, 0}, {25, 20, 33}, {40, 30, -45}} {
		var s float64
		for _, tp := range magickMotionTaps(nil, p[0], p[1], p[2]) {
			s += float64(tp.w)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("params %v: taps sum to %v", p, s)
		}
	}
	rng := NewRand(3, 3)
	for _, k := range []int{3, 7, 25, 49} {
		var s float64
		for _, tp := range motionLineTaps(nil, k, rng) {
			s += float64(tp.w)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("k %d: line taps sum to %v", k, s)
		}
	}
}

func TestMotionBlurMatchesDirect(t *testing.T) {
	src := testimg.Natural(41, 29, 5)
	c, _ := Lookup("motion_blur")
	for _, p := range [][]float64{{10, 3, 0}, {12.5, 10, 30}, {10, 30, -45}, {40, 20, 17}} {
		got := apply(c, src, p, 1, 0)
		want := sparseDirect(src, magickMotionTaps(nil, p[0], p[1], p[2]), Replicate)
		if d := maxDiff(t, got, want); d > 2e-6 {
			t.Errorf("params %v: max diff %v from direct", p, d)
		}
	}
}

func TestMotionBlurLineMatchesDirect(t *testing.T) {
	src := testimg.Natural(33, 27, 9)
	c, _ := Lookup("motion_blur_line")
	for i, k := range []int{3, 9, 25, 49} {
		got := apply(c, src, []float64{float64(k)}, 4, uint64(i))
		taps := motionLineTaps(nil, k, NewRand(4, uint64(i)))
		// filter2D: correlation with the dense k×k kernel, reflect-101.
		dense := make([]float64, k*k)
		for _, tp := range taps {
			dense[(tp.dy+k/2)*k+tp.dx+k/2] = float64(tp.w)
		}
		want := corr2D(src, dense, k, k, Reflect101)
		want.Clamp()
		if d := maxDiff(t, got, want); d > 2e-6 {
			t.Errorf("k %d: max diff %v from direct", k, d)
		}
	}
}

func linePoints(n, x1, y1, x2, y2 int) [][2]int {
	k := make([]bool, n*n)
	lineKernel(k, n, x1, y1, x2, y2)
	var pts [][2]int
	for i, on := range k {
		if on {
			pts = append(pts, [2]int{i % n, i / n})
		}
	}
	return pts
}

func TestLineKernelBresenham(t *testing.T) {
	// Expected points worked by hand from OpenCV 4.x LineIterator (8-connected):
	// err = dmaj − 2·dmin; a step is diagonal when err < 0 (then err += 2·dmaj),
	// and err −= 2·dmin on every step. Points listed in row-major order.
	for _, tc := range []struct {
		x1, y1, x2, y2 int
		want           [][2]int
	}{
		// (0,0)→(4,2): err 0 → straight, −4 → diag, 0 → straight, −4 → diag.
		{0, 0, 4, 2, [][2]int{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}}},
		// Same line drawn right to left: LineIterator swaps to left-to-right.
		{4, 2, 0, 0, [][2]int{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}}},
		// Steep: (1,0)→(2,4): major y, dmin 1: err 2, 0, −2(diag), 0, …
		{1, 0, 2, 4, [][2]int{{1, 0}, {1, 1}, {1, 2}, {2, 3}, {2, 4}}},
		// Diagonal up-right from (0,4) to (4,0).
		{0, 4, 4, 0, [][2]int{{4, 0}, {3, 1}, {2, 2}, {1, 3}, {0, 4}}},
		// Vertical and horizontal lines, and a single point.
		{2, 4, 2, 1, [][2]int{{2, 1}, {2, 2}, {2, 3}, {2, 4}}},
		{3, 2, 0, 2, [][2]int{{0, 2}, {1, 2}, {2, 2}, {3, 2}}},
		{3, 3, 3, 3, [][2]int{{3, 3}}},
	} {
		got := linePoints(5, tc.x1, tc.y1, tc.x2, tc.y2)
		if !slices.Equal(got, tc.want) {
			t.Errorf("line (%d,%d)→(%d,%d): %v, want %v", tc.x1, tc.y1, tc.x2, tc.y2, got, tc.want)
		}
	}
}

func TestLineTapsEightConnected(t *testing.T) {
	rng := NewRand(8, 1)
	for range 200 {
		k := 3 + 2*rng.IntN(24)
		taps := motionLineTaps(nil, k, rng)
		if len(taps) < 2 {
			t.Fatalf("k %d: %d taps; end points must differ", k, len(taps))
		}
		// Every tap has an 8-neighbour in the line (a connected line).
		for _, a := range taps {
			ok := false
			for _, b := range taps {
				if a != b && abs(a.dx-b.dx) <= 1 && abs(a.dy-b.dy) <= 1 {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("k %d: isolated tap %v in %v", k, a, taps)
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestCombineRowsMatchesDirect(t *testing.T) {
	// Odd and even counts, symmetric and not (the symmetric fold needs an odd count).
	src := testimg.Natural(21, 12, 3).Ch[0]
	for _, wts := range [][]float32{{0.25, 0.5, 0.25}, {0.1, 0.1, 0.1, 0.1}, {0.2, 0.3, 0.3, 0.2}, {0.5, 0.2, 0.3}, {1}} {
		rows := make([][]float32, len(wts))
		for k := range rows {
			rows[k] = src[k*21 : (k+1)*21]
		}
		out := make([]float32, 19)
		combineRows(out, rows, wts)
		for x := range out {
			var s float64
			for k, v := range wts {
				s += float64(v) * float64(rows[k][x])
			}
			if math.Abs(float64(out[x])-s) > 1e-6 {
				t.Fatalf("weights %v x %d: got %v, want %v", wts, x, out[x], s)
			}
		}
	}
}
