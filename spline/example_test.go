package spline_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/spline"
)

func ExampleFitSmooth() {
	// Per-bin human accuracy (Δv bin edge, proportion correct).
	x := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}
	y := []float64{0.97, 0.96, 0.97, 0.93, 0.90, 0.84, 0.75, 0.61, 0.45, 0.30}
	s, err := spline.FitSmooth(x, y, nil, spline.SmoothOptions{}) // smooth.spline(x, y, cv = TRUE)
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := s.Band(spline.Z83)
	fmt.Printf("df %.2f, fit at 0.5: %.3f, 83%% band [%.3f, %.3f]\n", s.DF, s.Predict(0.5), lo[4], hi[4])
	// Output: df 5.67, fit at 0.5: 0.900, 83% band [0.889, 0.910]
}

func ExampleFitMonotone() {
	// Bin centres on Δv ∈ [0, 1], accuracy per bin, trials per bin as weights.
	x := []float64{0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95}
	y := []float64{0.93, 0.95, 0.90, 0.91, 0.85, 0.80, 0.82, 0.60, 0.45, 0.35}
	n := []float64{120, 80, 95, 60, 70, 40, 30, 50, 45, 20}
	clean := 0.95
	m, err := spline.FitMonotone(x, y, n, spline.MonotoneOptions{
		Domain: [2]float64{0, 1}, Anchor: &clean, Clamp: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("s(0) = %.2f, R̂ = ∫₀¹ s = %.3f\n", m.Eval(0), m.Integral(0, 1))
	// Output: s(0) = 0.95, R̂ = ∫₀¹ s = 0.753
}
