package corrupt

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// at returns sample (x, y) of plane p (w×h) with border b.
func at(p []float32, w, h, x, y int, b Border) float64 {
	return float64(p[borderIndex(y, h, b)*w+borderIndex(x, w, b)])
}

// corr2D is the slow, obvious 2-D correlation of every channel of src with
// kernel k (kw×kh, anchor at the centre) and border b, in float64.
func corr2D(src *imageio.Image, k []float64, kw, kh int, b Border) *imageio.Image {
	w, h := src.Width, src.Height
	out := imageio.New(w, h)
	for c := range 3 {
		for y := range h {
			for x := range w {
				var s float64
				for j := range kh {
					for i := range kw {
						s += k[j*kw+i] * at(src.Ch[c], w, h, x+i-kw/2, y+j-kh/2, b)
					}
				}
				out.Ch[c][y*w+x] = float32(s)
			}
		}
	}
	return out
}

func maxDiff(t *testing.T, a, b *imageio.Image) float64 {
	t.Helper()
	return imageio.MaxAbsDiff(a, b)
}

func TestBoxBlurMatchesDirect(t *testing.T) {
	src := testimg.Natural(37, 23, 4)
	c, _ := Lookup("blur")
	for _, k := range []int{3, 5, 9, 15} {
		got := apply(c, src, []float64{float64(k)}, 1, 0)
		w, h := src.Width, src.Height
		for ch := range 3 {
			for y := range h {
				for x := range w {
					// OpenCV blur on the 8-bit image: round(Σ/k²), reflect-101.
					s := 0
					for j := -k / 2; j <= k/2; j++ {
						for i := -k / 2; i <= k/2; i++ {
							v := src.Ch[ch][borderIndex(y+j, h, Reflect101)*w+borderIndex(x+i, w, Reflect101)]
							s += int(imageio.To8(v, imageio.Round))
						}
					}
					want := uint8(math.Round(float64(s) / float64(k*k)))
					if g := imageio.To8(got.Ch[ch][y*w+x], imageio.Round); g != want {
						t.Fatalf("k=%d ch %d (%d,%d): got %d, want %d", k, ch, x, y, g, want)
					}
				}
			}
		}
	}
}

func TestMedianBlurMatchesSort(t *testing.T) {
	src := testimg.Natural(29, 31, 6)
	c, _ := Lookup("median_blur")
	w, h := src.Width, src.Height
	for _, k := range []int{3, 5, 7, 21} {
		got := apply(c, src, []float64{float64(k)}, 1, 0)
		win := make([]int, 0, k*k)
		for ch := range 3 {
			for y := range h {
				for x := range w {
					win = win[:0]
					for j := -k / 2; j <= k/2; j++ {
						for i := -k / 2; i <= k/2; i++ {
							v := src.Ch[ch][borderIndex(y+j, h, Replicate)*w+borderIndex(x+i, w, Replicate)]
							win = append(win, int(imageio.To8(v, imageio.Round)))
						}
					}
					slices.Sort(win)
					if g := int(imageio.To8(got.Ch[ch][y*w+x], imageio.Round)); g != win[k*k/2] {
						t.Fatalf("k=%d ch %d (%d,%d): got %d, want %d", k, ch, x, y, g, win[k*k/2])
					}
				}
			}
		}
	}
}

func TestMedianOfConstantImage(t *testing.T) {
	src := imageio.New(20, 15)
	for c := range 3 {
		for i := range src.Ch[c] {
			src.Ch[c][i] = imageio.From8(uint8(100 + 50*c))
		}
	}
	c, _ := Lookup("median_blur")
	if d := maxDiff(t, apply(c, src, []float64{21}, 1, 0), src); d != 0 {
		t.Errorf("median of a constant image differs by %v", d)
	}
}

func TestGaussianBlurMatchesDirect(t *testing.T) {
	src := testimg.Natural(40, 33, 2)
	c, _ := Lookup("gaussian_blur")
	for _, sigma := range []float64{0.1, 0.5, 1, 2.5, 5} {
		r := int(4*sigma + 0.5) // skimage/scipy truncate 4.0 (corruptions.md §2.6)
		n := 2*r + 1
		g := make([]float64, n)
		var s float64
		for i := range g {
			k := float64(i - r)
			g[i] = math.Exp(-k * k / (2 * sigma * sigma))
			s += g[i]
		}
		k2 := make([]float64, n*n)
		for j := range n {
			for i := range n {
				k2[j*n+i] = g[i] * g[j] / (s * s)
			}
		}
		want := corr2D(src, k2, n, n, Replicate)
		want.Clamp()
		if d := maxDiff(t, apply(c, src, []float64{sigma}, 1, 0), want); d > 2e-6 {
			t.Errorf("sigma %v: max diff %v from direct correlation", sigma, d)
		}
	}
}

func TestGaussianTapsSumToOne(t *testing.T) {
	for _, sigma := range []float64{0.3, 1, 4.7} {
		r := skimageRadius(sigma)
		var s float64
		for _, v := range gaussianTapsInto(nil, sigma, r) {
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-6 {
			t.Errorf("sigma %v: taps sum to %v", sigma, s)
		}
	}
}

func TestSeparableMatchesDirect(t *testing.T) {
	src := testimg.Natural(19, 13, 8)
	kx := []float32{0.1, 0.2, 0.4, 0.2, 0.1}
	ky := []float32{0.3, 0.5, 0.2} // asymmetric: exercises the general path
	for _, b := range []Border{Replicate, Reflect101, Symmetric, Wrap} {
		w, h := src.Width, src.Height
		got := make([]float32, w*h)
		separable(got, src.Ch[1], w, h, kx, ky, b, make([]float32, w*h), make([]float32, 40))
		for y := range h {
			for x := range w {
				var s float64
				for j, vy := range ky {
					for i, vx := range kx {
						s += float64(vx) * float64(vy) * at(src.Ch[1], w, h, x+i-2, y+j-1, b)
					}
				}
				if d := math.Abs(float64(got[y*w+x]) - s); d > 1e-6 {
					t.Fatalf("border %d (%d,%d): got %v want %v", b, x, y, got[y*w+x], s)
				}
			}
		}
	}
}

// glassReference replays the reference's loops with numpy's view semantics
// on an 8-bit image (σ = 0, so both blurs are the identity): the statement
// x[h, w], x[h', w'] = x[h', w'], x[h, w] first builds two views, then copies
// the first into (h, w) and the second — which now shows the new (h, w) —
// into (h', w'), so (h', w') keeps its value. swap selects a true swap.
func glassReference(src *imageio.Image, delta, iters int, g wyrand, swap bool) *imageio.Image {
	x := src.Clone()
	w, h := x.Width, x.Height
	n := uint64(2 * delta)
	for range iters {
		for hh := h - delta; hh > delta; hh-- {
			for ww := w - delta; ww > delta; ww-- {
				v := g.next()
				dx := int((v&0xffffffff)*n>>32) - delta
				dy := int((v>>32)*n>>32) - delta
				a, b := hh*w+ww, (hh+dy)*w+ww+dx
				for c := range 3 {
					view1, view2 := &x.Ch[c][b], &x.Ch[c][a] // right-hand side views
					if swap {
						x.Ch[c][a], x.Ch[c][b] = *view1, *view2
						continue
					}
					x.Ch[c][a] = *view1
					x.Ch[c][b] = *view2
				}
			}
		}
	}
	return x
}

func TestGlassBlurCopySemantics(t *testing.T) {
	// A tiny 8-bit image whose pixels are all distinct.
	src := imageio.New(7, 6)
	for i := range src.Ch[0] {
		src.Ch[0][i] = imageio.From8(uint8(5 * i))
		src.Ch[1][i] = imageio.From8(uint8(250 - 5*i))
		src.Ch[2][i] = imageio.From8(uint8(i))
	}
	c, _ := Lookup("glass_blur")
	for _, tc := range []struct{ delta, iters int }{{1, 1}, {2, 1}, {2, 3}} {
		got := apply(c, src, []float64{0, float64(tc.delta), float64(tc.iters)}, 9, 4)
		seed := NewRand(9, 4).Uint64() // the generator applyGlassBlur seeds from rng
		want := glassReference(src, tc.delta, tc.iters, wyrand(seed), false)
		if d := maxDiff(t, got, want); d != 0 {
			t.Errorf("delta %d iters %d: differs from the reference copy semantics by %v", tc.delta, tc.iters, d)
		}
		if tc.delta == 2 {
			swapped := glassReference(src, tc.delta, tc.iters, wyrand(seed), true)
			if maxDiff(t, got, swapped) == 0 {
				t.Errorf("delta %d: copy and true swap agree; the test draws do not distinguish them", tc.delta)
			}
			// A copy duplicates values; a swap only permutes them.
			seen := map[float32]bool{}
			dup := false
			for _, v := range got.Ch[0] {
				dup = dup || seen[v]
				seen[v] = true
			}
			if !dup {
				t.Errorf("delta %d: no duplicated pixel after copying", tc.delta)
			}
		}
	}
}

func TestGlassDrawRange(t *testing.T) {
	// dx, dy must cover exactly −δ…δ−1 (numpy randint upper bound excluded).
	g := wyrand(12345)
	for _, delta := range []int{1, 4, 9} {
		n := uint64(2 * delta)
		seen := map[int]bool{}
		for range 20000 {
			v := g.next()
			for _, d := range []int{int((v&0xffffffff)*n>>32) - delta, int((v>>32)*n>>32) - delta} {
				if d < -delta || d >= delta {
					t.Fatalf("delta %d: draw %d out of range", delta, d)
				}
				seen[d] = true
			}
		}
		if len(seen) != 2*delta {
			t.Errorf("delta %d: saw %d distinct offsets, want %d", delta, len(seen), 2*delta)
		}
	}
}

func TestDefocusMatchesDirect(t *testing.T) {
	src := testimg.Natural(45, 38, 7)
	c, _ := Lookup("defocus_blur")
	for _, r := range []float64{0, 0.7, 3, 5.5, 6.99} {
		for _, alias := range []float64{0, 0.3, 1} {
			k, n := defocusKernel(r, alias, false)
			want := corr2D(src, k, n, n, Reflect101)
			want.Clamp()
			if d := maxDiff(t, apply(c, src, []float64{r, alias}, 1, 0), want); d > 2e-5 {
				t.Errorf("r %v alias %v: max diff %v from direct correlation with the combined kernel", r, alias, d)
			}
		}
	}
}

func TestDefocusKernelSumsToOne(t *testing.T) {
	for _, r := range []float64{0, 4, 8, 9.3, 10} {
		for _, fold := range []bool{false, true} {
			k, _ := defocusKernel(r, 0.5, fold)
			var s float64
			for _, v := range k {
				s += v
			}
			// The folded kernel (OpenCV blurs the array with reflect-101 and
			// does not renormalise) gains mass once the disk reaches the edge.
			if want := !fold || r < 7; want != (math.Abs(s-1) < 1e-12) {
				t.Errorf("r %v fold %v: kernel sums to %v", r, fold, s)
			}
		}
	}
}

// TestDefocusFold checks the fold correction: the unfolded kernel equals
// OpenCV's folded one while the smoothed disk stays clear of the array's edge
// (r < 7), and beyond that Apply (fast unfolded path + fold correction)
// matches direct correlation with the folded reference kernel.
func TestDefocusFold(t *testing.T) {
	for _, r := range []float64{0, 3, 6.9} {
		kf, nf := defocusKernel(r, 0, true)
		ku, nu := defocusKernel(r, 0, false)
		o := (nu - nf) / 2
		for y := range nu {
			for x := range nu {
				var want float64
				if y >= o && y < o+nf && x >= o && x < o+nf {
					want = kf[(y-o)*nf+x-o]
				}
				if math.Abs(ku[y*nu+x]-want) > 1e-15 {
					t.Fatalf("r %v: kernels differ at (%d,%d)", r, x, y)
				}
			}
		}
	}
	src := testimg.Natural(48, 40, 3)
	c, _ := Lookup("defocus_blur")
	for _, r := range []float64{6.9, 7, 7.5, 8, 8.5, 9.3, 10} {
		for _, alias := range []float64{0, 0.5, 1} {
			k, n := defocusKernel(r, alias, true)
			want := corr2D(src, k, n, n, Reflect101)
			want.Clamp()
			if d := maxDiff(t, apply(c, src, []float64{r, alias}, 1, 0), want); d > 2e-5 {
				t.Errorf("r %v alias %v: differs from direct correlation with the folded kernel by %v", r, alias, d)
			}
		}
	}
}

func TestAliasTaps(t *testing.T) {
	// OpenCV getGaussianKernel: fixed tables for σ ≤ 0 and sizes 3 and 5.
	for _, tc := range []struct {
		n    int
		s    float64
		want []float64
	}{
		{3, 0, []float64{0.25, 0.5, 0.25}},
		{5, 0, []float64{1.0 / 16, 0.25, 0.375, 0.25, 1.0 / 16}},
		// exp(−1/2) = 0.60653…, normalised by 1 + 2·0.60653 = 2.21306.
		{3, 1, []float64{0.274068619061197, 0.451862761877606, 0.274068619061197}},
	} {
		got := aliasTaps(make([]float64, 5), tc.n, tc.s)
		for i := range tc.want {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("n %d σ %v: taps %v, want %v", tc.n, tc.s, got, tc.want)
				break
			}
		}
	}
}

// BenchmarkMedianBlurK times median_blur on a 224×224 image per window side.
func BenchmarkMedianBlurK(b *testing.B) {
	src := testimg.Natural(224, 224, 1)
	dst := imageio.New(224, 224)
	c, _ := Lookup("median_blur")
	for _, k := range []int{3, 5, 7, 13, 21} {
		b.Run("k="+strconv.Itoa(k), func(b *testing.B) {
			p := []float64{float64(k)}
			for b.Loop() {
				c.Apply(dst, src, p, NewRand(1, 0))
			}
		})
	}
}
