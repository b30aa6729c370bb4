package testset_test

import (
	"fmt"
	"path/filepath"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/testset"
)

func ExampleParamsJSON() {
	c, _ := corrupt.Lookup("gaussian_noise")
	fmt.Println(testset.ParamsJSON(c, []float64{0.0731}))
	// Output: {"sigma":0.0731}
}

func ExampleParseShard() {
	s, _ := testset.ParseShard("3/8")
	fmt.Println(s, filepath.ToSlash(s.Dir("vcr-val")))
	_, err := testset.ParseShard("8/8")
	fmt.Println(err)
	// Output:
	// 3/8 vcr-val/shard-3-of-8
	// shard "8/8": need n ≥ 1 and 0 ≤ i < n (shards are numbered from 0 to n−1)
}

func ExampleCoverageCounter() {
	c := testset.NewCoverageCounter(testset.DefaultBins, testset.DefaultMinPerBin)
	for i := range 800 {
		c.Add(float64(i%400) / 400) // 20 values in each of the 40 bins
	}
	cv := c.Coverage()
	fmt.Println(cv.N, cv.Covered, cv.Fraction)
	// Output: 800 40 1
}
