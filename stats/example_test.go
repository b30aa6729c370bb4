package stats_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/stats"
)

func ExampleBinomGreater() {
	// 15 of 20 "same corruption?" answers right: R's
	// binom.test(15, 20, 0.5, alternative = "greater") gives p = 0.02069.
	fmt.Printf("%.5f\n", stats.BinomGreater(15, 20, 0.5))
	// Output: 0.02069
}

func ExampleBinomTest() {
	// 7 of 20 against p = 0.5: R's binom.test(7, 20, 0.5)$p.value.
	p, _ := stats.BinomTest(7, 20, 0.5)
	fmt.Printf("%.6f\n", p)
	// Output: 0.263176
}
