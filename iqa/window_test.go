package iqa

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWindowSumsMatchNaive compares the window sums of windowSums (the
// differences of ws.vert rows 3r+win and 3r that channel reads) with a
// naive double loop over each window, for every window side and bands of
// several shapes, at 224×224's level-0 size too. Each sum is checked
// relative to the sum of the absolute values of its terms, the scale of
// its rounding error. The window sums are differences of prefix sums along
// the rows and down the band, so that error grows with the band's size:
// the largest seen here is 9.7e-14 (222×222 with window 3; 9.2e-15 with
// window 17, the pairing a 224×224 pair uses), hence the bound of 1e-12; a
// wrong window or quantity gives errors of order 1.
func TestWindowSumsMatchNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	worst := 0.0
	for _, sz := range [][2]int{{9, 9}, {27, 18}, {33, 36}, {60, 51}, {111, 111}, {222, 222}} {
		cw, ch := sz[0], sz[1]
		x := randImage(rng, cw, ch)
		y := make([]float64, len(x))
		for i := range y {
			y[i] = 0.6*x[i] + 30*rng.NormFloat64() - 40
		}
		ws := newWaveWorkspace(cw, ch, PyramidHeight(cw, ch))
		for _, win := range []int{3, 5, 9, 17} {
			worstHere := 0.0
			r0, c0, rows, _, nr, nc := ws.windowGeometry(cw, ch, win)
			if nr < 1 || nc < 1 {
				continue
			}
			ws.windowSums(x, y, cw, ch, win)
			vert := ws.vert[:5*(rows+1)*nc]
			for r := range nr {
				top := vert[5*blockM*r*nc:][:5*nc]
				bot := vert[5*(blockM*r+win)*nc:][:5*nc]
				for c := range nc {
					var s, a [5]float64
					for i := r0 + blockM*r; i < r0+blockM*r+win; i++ {
						for j := c0 + blockM*c; j < c0+blockM*c+win; j++ {
							xv, yv := x[i*cw+j], y[i*cw+j]
							v := [5]float64{xv, yv, xv * xv, yv * yv, xv * yv}
							for q := range v {
								s[q] += v[q]
								a[q] += math.Abs(v[q])
							}
						}
					}
					for q := range s {
						got := bot[q*nc+c] - top[q*nc+c]
						rel := math.Abs(got-s[q]) / a[q]
						worst, worstHere = max(worst, rel), max(worstHere, rel)
						if rel > 1e-12 {
							t.Fatalf("%d×%d win %d block (%d, %d) quantity %d: %v, naive %v (relative %.2g)",
								cw, ch, win, r, c, q, got, s[q], rel)
						}
					}
				}
			}
			t.Logf("%d×%d win %d: largest relative error %.2g", cw, ch, win, worstHere)
		}
	}
	t.Logf("largest relative error %.2g", worst)
}
