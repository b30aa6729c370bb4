package corrupt

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// slowPlasma is ImageNet-C's plasma_fractal written straight from its array
// formulation (corruptions.md §2.20), in float64, with np.roll as index
// arithmetic: fillsquares and filldiamonds on strided views, the random
// perturbation wibble·U(−wibble, wibble) drawn in row-major order of each
// view (numpy's order), from the same generator as the fast version.
func slowPlasma(n int, decay float64, seed uint64) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	r := fogRand{s: seed}
	wibble := 100.0
	for step := n; step >= 2; step /= 2 {
		h := step / 2
		k := n / step // view side
		roll := func(i int) int { return ((i % k) + k) % k }
		ww := wibble * wibble
		// fillsquares: cornerref[i][j] = m[i*step][j*step];
		// squareaccum = corner + roll(corner, -1, axis 0), then += roll(., -1, axis 1).
		corner := func(i, j int) float64 { return m[roll(i)*step][roll(j)*step] }
		sq := make([][]float64, k)
		for i := range k {
			sq[i] = make([]float64, k)
			for j := range k {
				a := func(jj int) float64 { return corner(i, jj) + corner(i+1, jj) }
				sq[i][j] = a(j) + a(j+1)
			}
		}
		for i := range k {
			for j := range k {
				m[i*step+h][j*step+h] = sq[i][j]/4 + ww*float64(r.uniform())
			}
		}
		// filldiamonds.
		dr := func(i, j int) float64 { return m[roll(i)*step+h][roll(j)*step+h] }
		ul := func(i, j int) float64 { return m[roll(i)*step][roll(j)*step] }
		lt := make([][]float64, k)
		tt := make([][]float64, k)
		for i := range k {
			lt[i] = make([]float64, k)
			tt[i] = make([]float64, k)
			for j := range k {
				// ldrsum = drgrid + roll(drgrid, 1, axis 0); lulsum = ulgrid + roll(ulgrid, -1, axis 1).
				lt[i][j] = dr(i, j) + dr(i-1, j) + ul(i, j) + ul(i, j+1)
				// tdrsum = drgrid + roll(drgrid, 1, axis 1); tulsum = ulgrid + roll(ulgrid, -1, axis 0).
				tt[i][j] = dr(i, j) + dr(i, j-1) + ul(i, j) + ul(i+1, j)
			}
		}
		for i := range k {
			for j := range k {
				m[i*step][j*step+h] = lt[i][j]/4 + ww*float64(r.uniform())
			}
		}
		for i := range k {
			for j := range k {
				m[i*step+h][j*step] = tt[i][j]/4 + ww*float64(r.uniform())
			}
		}
		wibble /= decay
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range m {
		for _, v := range row {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, row := range m {
		for j := range row {
			row[j] = (row[j] - lo) / (hi - lo)
		}
	}
	return m
}

func TestFogPlasmaMatchesSlow(t *testing.T) {
	for _, tc := range []struct {
		n     int
		decay float64
	}{{4, 2}, {32, 1.5}, {64, 3}, {256, 5}} {
		fast := make([]float32, tc.n*tc.n)
		lo, inv := fogPlasma(fast, tc.n, tc.decay, 99)
		slow := slowPlasma(tc.n, tc.decay, 99)
		var worst float64
		for y := range tc.n {
			for x := range tc.n {
				v := float64((fast[y*tc.n+x] - lo) * inv)
				worst = math.Max(worst, math.Abs(v-slow[y][x]))
			}
		}
		// float32 accumulation over levels whose values reach ~10⁴ (wibble²)
		// versus float64: agreement to well below one 8-bit step.
		if worst > 2e-4 {
			t.Errorf("n=%d decay=%v: fast plasma differs from the slow one by %g", tc.n, tc.decay, worst)
		}
	}
}

func TestFogSide(t *testing.T) {
	for _, tc := range []struct{ w, h, want int }{
		{224, 224, 256},                                 // ImageNet-C: 256 map for 224 crops
		{256, 100, 256}, {257, 10, 512}, {10, 300, 512}, // tall images get a large enough map
		{1, 1, 1}, {2, 1, 2}, {3, 3, 4},
	} {
		if got := fogSide(tc.w, tc.h); got != tc.want {
			t.Errorf("fogSide(%d, %d) = %d, want %d", tc.w, tc.h, got, tc.want)
		}
	}
}

// TestFogFormula checks out = clip((u + s·P)·m/(m + s)) with P the top-left
// crop of the slow plasma, on a wide and a tall image (the VCR toolbox fails on
// the latter).
func TestFogFormula(t *testing.T) {
	c, err := Lookup("fog")
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]int{{70, 40}, {30, 90}} {
		src := testimg.Natural(sz[0], sz[1], 4)
		p := []float64{2.5, 1.7}
		got := apply(c, src, p, 3, 9)
		// Same draws as fogApply: one Uint64 seeds the plasma.
		seed := NewRand(3, 9).Uint64()
		P := slowPlasma(fogSide(sz[0], sz[1]), p[1], seed)
		var m float64
		for ch := range 3 {
			for _, v := range src.Ch[ch] {
				m = math.Max(m, float64(v))
			}
		}
		var worst float64
		for ch := range 3 {
			for y := range src.Height {
				for x := range src.Width {
					u := float64(src.Ch[ch][y*src.Width+x])
					want := math.Min(1, math.Max(0, (u+p[0]*P[y][x])*m/(m+p[0])))
					worst = math.Max(worst, math.Abs(want-float64(got.Ch[ch][y*src.Width+x])))
				}
			}
		}
		if worst > 1e-4 {
			t.Errorf("%dx%d: max |fast − formula| = %g", sz[0], sz[1], worst)
		}
	}
}

func TestWeatherMinMax(t *testing.T) {
	for n := 1; n < 11; n++ {
		p := make([]float32, n)
		for i := range p {
			p[i] = float32((i*7)%n) - 3
		}
		lo, hi := weatherMinMax(p)
		wl, wh := p[0], p[0]
		for _, v := range p {
			wl, wh = min(wl, v), max(wh, v)
		}
		if lo != wl || hi != wh {
			t.Errorf("n=%d: weatherMinMax = %v, %v, want %v, %v", n, lo, hi, wl, wh)
		}
	}
}

// BenchmarkFog224 times fog at ImageNet-C severity 3 on 224×224 (the
// reference fog takes 2.78 ms in the VCR toolbox, perf-baseline.md §3).
func BenchmarkFog224(b *testing.B) {
	c, _ := Lookup("fog")
	src := testimg.Natural(224, 224, 1)
	dst := imageio.New(224, 224)
	rng := NewRand(1, 0)
	b.ReportAllocs()
	for b.Loop() {
		c.Apply(dst, src, c.Severities[2], rng)
	}
}

// TestFogBitExact checks fog's output bit for bit against the float32
// expression written out plainly (on amd64 this compares the assembly blend
// and maximum with scalar code): m the image's
// maximum, k = m/(m+s), a = s·k·inv, out = min(u·k + a·(P − lo), 1).
func TestFogBitExact(t *testing.T) {
	c, err := Lookup("fog")
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]int{{224, 224}, {37, 21}} {
		W, H := sz[0], sz[1]
		src := testimg.Natural(W, H, 6)
		p := []float64{2.5, 1.7}
		got := apply(c, src, p, 3, 9)
		side := fogSide(W, H)
		P := make([]float32, side*side)
		lo, inv := fogPlasma(P, side, p[1], NewRand(3, 9).Uint64())
		var m float32
		for ch := range 3 {
			for _, v := range src.Ch[ch] {
				if v > m {
					m = v
				}
			}
		}
		k := m / (m + float32(p[0]))
		a := float32(p[0]) * k * inv
		for ch := range 3 {
			for y := range H {
				for x := range W {
					u := src.Ch[ch][y*W+x]
					want := u*k + a*(P[y*side+x]-lo)
					if want > 1 {
						want = 1
					}
					if g := got.Ch[ch][y*W+x]; math.Float32bits(g) != math.Float32bits(want) {
						t.Fatalf("%dx%d ch %d (%d, %d): %v, want %v", W, H, ch, x, y, g, want)
					}
				}
			}
		}
	}
}
