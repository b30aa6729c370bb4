package contrast

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

func BenchmarkEstimate224(b *testing.B) {
	m := testimg.Natural(224, 224, 1)
	b.ReportAllocs()
	for b.Loop() {
		Estimate(m, nil)
	}
}

// BenchmarkAnalyse100k times Analyse on 20,000 images × 5 severities
// (100,000 rows), 200 bootstrap replicates.
func BenchmarkAnalyse100k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	csv, rows := simulate(rng, 5000, 0.5, 0.05, 0.05, 0.01)
	labels, err := ReadLabels(strings.NewReader(csv), "c.csv", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyse([]Model{{Name: "m", Rows: rows}}, labels, Options{Replicates: 200, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
