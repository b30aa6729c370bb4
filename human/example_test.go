package human_test

import (
	"context"
	"fmt"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/robustness"
)

func ExampleBuiltin() {
	d, err := human.Builtin("icse2022-imagenet")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := d.Lookup("gaussian_noise")
	e, err := robustness.Fit(context.Background(), *s, robustness.Options{Replicates: 100, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, %s: human R̂a = %.3f (%s)\n", d.Name, e.Corruption, e.Ra.Value, e.VIFMethod)
	// Output: icse2022-imagenet, gaussian_noise: human R̂a = 0.961 (vifvec)
}
