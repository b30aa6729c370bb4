package corrupt

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// reflect101 and symmetricIdx are the border rules written from their
// definitions (OpenCV BORDER_REFLECT_101: …c b | a b c…; scipy "reflect":
// …b a | a b c…), by walking the mirror back and forth.
func reflect101(i, n int) int {
	if n == 1 {
		return 0
	}
	for i < 0 || i >= n {
		if i < 0 {
			i = -i
		}
		if i >= n {
			i = 2*(n-1) - i
		}
	}
	return i
}

func symmetricIdx(i, n int) int {
	for i < 0 || i >= n {
		if i < 0 {
			i = -1 - i
		}
		if i >= n {
			i = 2*n - 1 - i
		}
	}
	return i
}

// bilinear samples p (w×h) at (x, y) with the given border rule.
func bilinear(p []float32, w, h int, x, y float64, idx func(int, int) int) float64 {
	fx, fy := math.Floor(x), math.Floor(y)
	tx, ty := x-fx, y-fy
	at := func(i, j int) float64 { return float64(p[idx(j, h)*w+idx(i, w)]) }
	i, j := int(fx), int(fy)
	return (1-tx)*(1-ty)*at(i, j) + tx*(1-ty)*at(i+1, j) + (1-tx)*ty*at(i, j+1) + tx*ty*at(i+1, j+1)
}

// slowGaussian filters f (w×h) with the truncated Gaussian (radius
// int(3σ+0.5)), symmetric borders, straight from the definition, in float64.
func slowGaussian(f []float32, w, h int, sigma float64) []float64 {
	r := int(3*sigma + 0.5)
	g := make([]float64, 2*r+1)
	var s float64
	for k := -r; k <= r; k++ {
		g[k+r] = math.Exp(-float64(k*k) / (2 * sigma * sigma))
		s += g[k+r]
	}
	for k := range g {
		g[k] /= s
	}
	tmp := make([]float64, w*h)
	for y := range h {
		for x := range w {
			var a float64
			for k := -r; k <= r; k++ {
				a += g[k+r] * float64(f[y*w+symmetricIdx(x+k, w)])
			}
			tmp[y*w+x] = a
		}
	}
	out := make([]float64, w*h)
	for y := range h {
		for x := range w {
			var a float64
			for k := -r; k <= r; k++ {
				a += g[k+r] * tmp[symmetricIdx(y+k, h)*w+x]
			}
			out[y*w+x] = a
		}
	}
	return out
}

// slowElastic is ImageNet-C's elastic_transform (corruptions.md §2.25) in
// float64 with the same random draws as elasticApply.
func slowElastic(src *imageio.Image, p []float64, seed, index uint64) *imageio.Image {
	W, H := src.Width, src.Height
	S := float64(min(W, H)) * 244 / 224
	c1, c2, c3 := p[0]*S, p[1]*S, p[2]*S
	rng := NewRand(seed, index)
	cx, cy := float64(W/2), float64(H/2)
	sq := float64(min(W, H) / 3)
	pts1 := [3][2]float64{{cx + sq, cy + sq}, {cx + sq, cy - sq}, {cx - sq, cy - sq}}
	var pts2 [3][2]float64
	for i := range pts1 {
		for j := range 2 {
			pts2[i][j] = pts1[i][j] + rng.Float64()*2*c3 - c3
		}
	}
	// Forward affine M (pts1 → pts2) by Gaussian elimination, then invert it.
	solve := func(a [3][3]float64, b [3]float64) [3]float64 {
		for col := range 3 {
			piv := col
			for r := col + 1; r < 3; r++ {
				if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
					piv = r
				}
			}
			a[col], a[piv] = a[piv], a[col]
			b[col], b[piv] = b[piv], b[col]
			for r := range 3 {
				if r != col {
					f := a[r][col] / a[col][col]
					for k := range 3 {
						a[r][k] -= f * a[col][k]
					}
					b[r] -= f * b[col]
				}
			}
		}
		return [3]float64{b[0] / a[0][0], b[1] / a[1][1], b[2] / a[2][2]}
	}
	var A [3][3]float64
	for i := range 3 {
		A[i] = [3]float64{pts1[i][0], pts1[i][1], 1}
	}
	mx := solve(A, [3]float64{pts2[0][0], pts2[1][0], pts2[2][0]})
	my := solve(A, [3]float64{pts2[0][1], pts2[1][1], pts2[2][1]})
	// dst(x, y) = src(M⁻¹(x, y)).
	det := mx[0]*my[1] - mx[1]*my[0]
	n := W * H
	warped := imageio.New(W, H)
	for y := range H {
		for x := range W {
			u, v := float64(x)-mx[2], float64(y)-my[2]
			sx := (my[1]*u - mx[1]*v) / det
			sy := (-my[0]*u + mx[0]*v) / det
			for c := range 3 {
				warped.Ch[c][y*W+x] = float32(bilinear(src.Ch[c], W, H, sx, sy, reflect101))
			}
		}
	}
	r := fogRand{s: rng.Uint64()}
	nx, ny := make([]float32, n), make([]float32, n)
	for i := range nx {
		nx[i] = r.uniform()
	}
	for i := range ny {
		ny[i] = r.uniform()
	}
	dx, dy := slowGaussian(nx, W, H, c2), slowGaussian(ny, W, H, c2)
	out := imageio.New(W, H)
	for y := range H {
		for x := range W {
			sx, sy := float64(x)+c1*dx[y*W+x], float64(y)+c1*dy[y*W+x]
			for c := range 3 {
				v := bilinear(warped.Ch[c], W, H, sx, sy, symmetricIdx)
				out.Ch[c][y*W+x] = float32(math.Min(1, math.Max(0, v)))
			}
		}
	}
	return out
}

func TestElasticMatchesSlow(t *testing.T) {
	c, err := Lookup("elastic_transform")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w, h int
		p    []float64
	}{
		{64, 48, c.Severities[2]}, {64, 48, c.Severities[4]},
		{48, 64, []float64{0.5, 0.02, 0.1}},
		{40, 40, []float64{2, 0.1, 0.2}}, // σ = 4.4 px: still the exact path
		{30, 50, []float64{0, 0.05, 0}},  // identity parameters
		{9, 8, []float64{1, 0.01, 0.05}}, // σ ≈ 0.09 px: kernel radius 0
	} {
		src := testimg.Natural(tc.w, tc.h, 6)
		got := apply(c, src, tc.p, 4, 2)
		want := slowElastic(src, tc.p, 4, 2)
		if d := imageio.MaxAbsDiff(got, want); d > 2e-4 {
			t.Errorf("%dx%d %v: max |fast − slow| = %g", tc.w, tc.h, tc.p, d)
		}
		if tc.p[0] == 0 && tc.p[2] == 0 {
			if d := imageio.MaxAbsDiff(got, src); d > 1e-6 {
				t.Errorf("alpha = affine = 0 changed the image by %g", d)
			}
		}
	}
}

// TestElasticReducedSmoothing compares the reduced-resolution smoothing used
// for σ > elasticExactSigma with the exact truncated Gaussian on the same
// noise: relative RMS error and the field's standard deviation.
func TestElasticReducedSmoothing(t *testing.T) {
	const w, h = 160, 120
	for _, sigma := range []float64{7, 12, 25, 60, 150} {
		r := fogRand{s: 17}
		f := make([]float32, w*h)
		for i := range f {
			f[i] = r.uniform()
		}
		exact := slowGaussian(f, w, h, sigma)
		tmp := make([]float32, w*h)
		line := make([]float32, max(w, h)+1)
		elasticSmooth(f, w, h, sigma, tmp, line)
		var se, s2, f2 float64
		for i, v := range exact {
			d := float64(f[i]) - v
			se += d * d
			s2 += v * v
			f2 += float64(f[i]) * float64(f[i])
		}
		rel := math.Sqrt(se / s2)
		ratio := math.Sqrt(f2 / s2)
		t.Logf("σ = %v: relative RMS error %.3f, amplitude ratio %.3f", sigma, rel, ratio)
		if rel > 0.1 || math.Abs(ratio-1) > 0.1 {
			t.Errorf("σ = %v: relative RMS error %.3f (want ≤ 0.1), amplitude ratio %.3f (want 1 ± 0.1)", sigma, rel, ratio)
		}
	}
}

func TestElasticAffineInverse(t *testing.T) {
	pts1 := [3][2]float64{{10, 10}, {10, 0}, {0, 0}}
	// Translation by (3, −2): the inverse maps (x, y) to (x − 3, y + 2).
	var pts2 [3][2]float64
	for i, p := range pts1 {
		pts2[i] = [2]float64{p[0] + 3, p[1] - 2}
	}
	m, ok := elasticAffineInverse(pts1, pts2)
	want := [2][3]float64{{1, 0, -3}, {0, 1, 2}}
	for r := range 2 {
		for c := range 3 {
			if !ok || math.Abs(m[r][c]-want[r][c]) > 1e-12 {
				t.Fatalf("translation: inverse %v, want %v", m, want)
			}
		}
	}
	// Collinear points have no affine map.
	if _, ok := elasticAffineInverse(pts1, [3][2]float64{{0, 0}, {1, 1}, {2, 2}}); ok {
		t.Error("collinear points: ok = true")
	}
}

func benchElastic(b *testing.B, sev int) {
	c, _ := Lookup("elastic_transform")
	src := testimg.Natural(224, 224, 1)
	dst := imageio.New(224, 224)
	rng := NewRand(1, 0)
	b.ReportAllocs()
	for b.Loop() {
		c.Apply(dst, src, c.Severities[sev-1], rng)
	}
}

// BenchmarkElastic224Sev3 is the reference's timing case: ImageNet-C severity
// 3 on 224×224 (13.1 ms in the VCR toolbox, perf-baseline.md §3).
func BenchmarkElastic224Sev3(b *testing.B) { benchElastic(b, 3) }

// BenchmarkElastic224Sev1 has σ ≈ 171 px, wider than the image.
func BenchmarkElastic224Sev1(b *testing.B) { benchElastic(b, 1) }

// elasticSymAccumulateRef is the plain version of elasticSymAccumulate:
// out = Σ_d k[r+d]·at(d), the samples at ±d added before multiplying, one
// pass over out per pair of taps.
func elasticSymAccumulateRef(out, k []float32, at func(d int) []float32) {
	r := len(k) / 2
	mid := at(0)
	if r == 0 {
		for x := range out {
			out[x] = k[r] * mid[x]
		}
		return
	}
	a, b := at(1), at(-1)
	for x := range out {
		out[x] = k[r]*mid[x] + k[r+1]*(a[x]+b[x])
	}
	d := 2
	for ; d+1 <= r; d += 2 {
		a1, b1, a2, b2 := at(d), at(-d), at(d+1), at(-d-1)
		for x := range out {
			out[x] += k[r+d]*(a1[x]+b1[x]) + k[r+d+1]*(a2[x]+b2[x])
		}
	}
	if d <= r {
		a, b := at(d), at(-d)
		for x := range out {
			out[x] += k[r+d] * (a[x] + b[x])
		}
	}
}

// TestElasticSymAccumulate checks the kernel, which runs up to two tap
// pairs per pass, against the plain one-pass-per-pair version bit for bit,
// for radii 0…13.
func TestElasticSymAccumulate(t *testing.T) {
	r := fogRand{s: 5}
	for rad := range 14 {
		k := gaussianTaps(float64(rad)/3+0.3, rad)
		for _, n := range []int{1, 7, 224} {
			rows := make([][]float32, 2*rad+1)
			for i := range rows {
				rows[i] = make([]float32, n)
				r.fill(rows[i])
			}
			at := func(d int) []float32 { return rows[rad+d] }
			got, want := make([]float32, n), make([]float32, n)
			elasticSymAccumulate(got, k, at)
			elasticSymAccumulateRef(want, k, at)
			for x := range got {
				if math.Float32bits(got[x]) != math.Float32bits(want[x]) {
					t.Fatalf("r=%d n=%d x=%d: %v, want %v", rad, n, x, got[x], want[x])
				}
			}
		}
	}
}
