package robustness_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/robustness"
)

// series simulates n trials whose accuracy falls from clean to clean − drop.
func series(subject string, seed uint64, n int, clean, drop float64) robustness.Series {
	r := rand.New(rand.NewPCG(seed, 1))
	s := robustness.Series{Subject: subject, Corruption: "gaussian_noise", VIFMethod: "vifvec",
		CleanAccuracy: clean, CleanConsistency: 1}
	for range n {
		v := r.Float64()
		p := clean - drop*v*v
		s.Trials = append(s.Trials, robustness.Trial{DV: v, Correct: r.Float64() < p, Consistent: r.Float64() < p/clean})
	}
	return s
}

func ExampleFit() {
	e, err := robustness.Fit(context.Background(), series("resnet50", 1, 50000, 0.9, 0.6), robustness.Options{Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("R̂a = %.3f, 95%% CI [%.3f, %.3f]; mean accuracy %.3f\n", e.Ra.Value, e.Ra.Lo95, e.Ra.Hi95, e.MeanAccuracy)
	// (The true area is ∫₀¹ (0.9 − 0.6v²) dv = 0.7.)

	// Output: R̂a = 0.702, 95% CI [0.698, 0.705]; mean accuracy 0.700
}

func ExampleCompare() {
	ctx := context.Background()
	opt := robustness.Options{Replicates: 200, Seed: 1}
	h := series("human", 2, 8000, 0.97, 0.3)
	h.Human = true
	human, _ := robustness.Fit(ctx, h, opt)
	model, _ := robustness.Fit(ctx, series("resnet50", 3, 50000, 0.9, 0.6), opt)
	c, err := robustness.Compare(model, human, robustness.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("HMRI %.2f [%.2f, %.2f], MRSI %.2f\n", c.Accuracy.HMRI.Value, c.Accuracy.HMRI.Lo95, c.Accuracy.HMRI.Hi95, c.Accuracy.MRSI.Value)
	// True values: A(h>m) = ∫ (0.07 + 0.3v²) = 0.17, A(h) = 0.87, HMRI = 1 − 0.17/0.87 = 0.805;
	// the model is never above humans, so MRSI = 0.

	// Output: HMRI 0.80 [0.79, 0.80], MRSI 0.00
}
