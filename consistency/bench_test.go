package consistency_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/consistency"
)

// BenchmarkCompareModels: two models sharing 50,000 trials of one
// corruption, 1,000 bootstrap replicates, 5 Δv bins.
func BenchmarkCompareModels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	obs := []consistency.Observer{{Name: "a"}, {Name: "b"}}
	for i := range 50000 {
		dv := rng.Float64()
		for j := range obs {
			obs[j].Trials = append(obs[j].Trials, consistency.Trial{Stimulus: strconv.Itoa(i), Corruption: "blur", DV: dv, Correct: rng.Float64() < 1-dv})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		consistency.Compare(context.Background(), obs, consistency.Options{Bins: 5, Bootstrap: 1000, Seed: 1})
	}
}
