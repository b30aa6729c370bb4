package consistency_test

import (
	"context"
	"fmt"

	"github.com/vcr-bench/vcr/consistency"
)

func ExampleCompute() {
	// Two observers on the same six trials (true: right).
	a := []bool{true, true, true, false, false, true}
	b := []bool{true, true, false, false, true, true}
	s := consistency.Compute(a, b)
	fmt.Printf("p1 %.3f p2 %.3f c_obs %.3f c_exp %.3f kappa %.3f\n", s.AccuracyA, s.AccuracyB, s.Observed, s.Expected, s.Kappa)
	// Output: p1 0.667 p2 0.667 c_obs 0.667 c_exp 0.556 kappa 0.250
}

func ExampleCompare() {
	model := consistency.Observer{Name: "resnet", Trials: []consistency.Trial{
		{Stimulus: "img1/blur", Corruption: "blur", DV: 0.1, Correct: true},
		{Stimulus: "img2/blur", Corruption: "blur", DV: 0.5, Correct: false},
		{Stimulus: "img3/blur", Corruption: "blur", DV: 0.9, Correct: false},
	}}
	person := consistency.Observer{Name: "human:1", Human: true, Trials: []consistency.Trial{
		{Stimulus: "img1/blur", Corruption: "blur", DV: 0.1, Correct: true},
		{Stimulus: "img3/blur", Corruption: "blur", DV: 0.9, Correct: false},
	}}
	res, _ := consistency.Compare(context.Background(), []consistency.Observer{model, person}, consistency.Options{})
	for _, r := range res.Rows {
		fmt.Println(r.A, r.B, r.Kind, r.Corruption, r.Bin, r.N, r.Kappa)
	}
	// Output: resnet human:1 model-human blur all 2 1
}
