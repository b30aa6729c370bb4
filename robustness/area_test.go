package robustness

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vcr-bench/vcr/spline"
)

// cubic builds a one-piece spline on [0, 1] from monomial coefficients
// c0 + c1 t + c2 t² + c3 t³ (converted to Bernstein form).
func cubic(c0, c1, c2, c3 float64, clamp bool) *spline.Monotone {
	b := []float64{c0, c0 + c1/3, c0 + 2*c1/3 + c2/3, c0 + c1 + c2 + c3}
	return &spline.Monotone{Lo: 0, Hi: 1, Knots: []float64{0, 0, 0, 0, 1, 1, 1, 1}, Coef: b, Clamp: clamp}
}

// slowPositiveArea is composite Simpson on n intervals of max(0, f − g).
func slowPositiveArea(f, g *spline.Monotone, n int) float64 {
	h := 1 / float64(n)
	d := func(v float64) float64 { return math.Max(0, f.Eval(v)-g.Eval(v)) }
	s := d(0) + d(1)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * d(float64(i)*h)
	}
	return s * h / 3
}

func TestPositiveAreaExact(t *testing.T) {
	// Three roots: f − g = ½(t − 0.2)(t − 0.5)(t − 0.8) = ½(t³ − 1.5t² + 0.66t − 0.08)
	// with g = 0.9 − 0.9t. Positive on (0.2, 0.5) and (0.8, 1); the
	// antiderivative F(t) = ½(t⁴/4 − t³/2 + 0.33t² − 0.08t) gives
	// [F(0.5) − F(0.2)] + [F(1) − F(0.8)].
	F := func(t float64) float64 { return 0.5 * (t*t*t*t/4 - t*t*t/2 + 0.33*t*t - 0.08*t) }
	want3 := F(0.5) - F(0.2) + F(1) - F(0.8)
	g3 := cubic(0.9, -0.9, 0, 0, false)
	f3 := cubic(0.9-0.04, -0.9+0.33, -0.75, 0.5, false)
	for _, tc := range []struct {
		name string
		f, g *spline.Monotone
		want float64
	}{
		// Lines 0.9 − 0.6v and 0.7 − 0.2v: difference 0.2 − 0.4v, triangle ½·0.5·0.2.
		{"lines", cubic(0.9, -0.6, 0, 0, false), cubic(0.7, -0.2, 0, 0, false), 0.05},
		// Reversed: −0.2 + 0.4v, positive on (½, 1), the same triangle.
		{"lines reversed", cubic(0.7, -0.2, 0, 0, false), cubic(0.9, -0.6, 0, 0, false), 0.05},
		// f = 1 − 1.5t + 1.5t² − t³ (Bernstein 1, ½, ½, 0) against ½: f(t) + f(1 − t) = 1,
		// ∫₀^½ f = 0.359375 by the antiderivative, so the area is 0.359375 − 0.25.
		{"symmetric cubic", cubic(1, -1.5, 1.5, -1, false), cubic(0.5, 0, 0, 0, false), 0.109375},
		{"three roots", f3, g3, want3},
		// Clamped line 1.3 − 1.6v: 1 on [0, 3/16], 0 from 13/16; against ½ the
		// positive part is 3/16·½ + ∫_{3/16}^{0.5} (0.8 − 1.6v) dv = 0.09375 + 0.078125.
		{"clamped", cubic(1.3, -1.6, 0, 0, true), cubic(0.5, 0, 0, 0, false), 0.09375 + 0.078125},
		{"identical", g3, g3, 0},
	} {
		got := PositiveArea(tc.f, tc.g)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: PositiveArea = %.15g, want %.15g", tc.name, got, tc.want)
		}
	}
}

// TestPositiveAreaSlow compares against Simpson with 200,000 intervals on
// fitted splines with different knots (Simpson's error at the kinks of
// max(0, ·) is O(h²) ≈ 1e-10 here).
func TestPositiveAreaSlow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 5 {
		fit := func(nb int, shift float64) *spline.Monotone {
			var x, y, w []float64
			for i := range nb {
				v := (float64(i) + 0.5) / float64(nb)
				x = append(x, v)
				y = append(y, 1-v*v*(0.5+shift)+0.05*r.NormFloat64())
				w = append(w, 50)
			}
			a := 0.95
			m, err := spline.FitMonotone(x, y, w, spline.MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &a, Clamp: true})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		f, g := fit(40, 0.3), fit(23, 0.2*float64(k))
		got, want := PositiveArea(f, g), slowPositiveArea(f, g, 200000)
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("case %d: PositiveArea = %.12g, Simpson %.12g", k, got, want)
		}
		// A(f>g) − A(g>f) = ∫f − ∫g exactly.
		if d := PositiveArea(f, g) - PositiveArea(g, f) - (f.Integral(0, 1) - g.Integral(0, 1)); math.Abs(d) > 1e-13 {
			t.Errorf("case %d: A(f>g) − A(g>f) − (∫f − ∫g) = %g", k, d)
		}
	}
}
