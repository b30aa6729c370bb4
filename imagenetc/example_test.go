package imagenetc_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/imagenetc"
)

func ExampleCompute() {
	// A model at AlexNet's errors on every benchmark corruption: N = 1,000,000
	// images per severity, misclassified in AlexNet's proportion.
	var counts []imagenetc.Count
	for _, c := range imagenetc.Benchmark {
		a, _ := imagenetc.AlexNetError(c)
		for s := 1; s <= imagenetc.Severities; s++ {
			counts = append(counts, imagenetc.Count{Corruption: c, Severity: s, N: 1000000, Errors: int(a*1e6 + 0.5)})
		}
	}
	r := imagenetc.Compute(imagenetc.Model{Name: "alexnet-like", Counts: counts, CleanN: 100000, CleanErrors: 43478})
	fmt.Printf("mCE %.3f, relative mCE %.3f, CE frost %.3f\n", *r.MCE, *r.RelativeMCE, r.CE["frost"])
	// Output: mCE 100.000, relative mCE 100.000, CE frost 100.000
}
