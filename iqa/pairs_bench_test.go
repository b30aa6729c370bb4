package iqa_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/iqa"
)

// BenchmarkScoreVCRPyPairs times the vcr-py VIF on image pairs made outside
// the test: for every size N listed in $VCR_VIF_BENCH_SIZES (space-separated)
// it loads $VCR_VIF_BENCH_PAIRS/ref-N.png and dist-N.png and scores them with
// one reused Scorer, timing each call on its own as the Python reference's
// harness does (shared/reference/perf-baseline.md §1). Besides ns/op it
// reports the fastest call (min-ms/op) and the median call (median-ms/op).
// scripts/bench-vs-python.sh runs it beside the Python reference on the
// same PNG files; it is skipped when the variables are unset.
func BenchmarkScoreVCRPyPairs(b *testing.B) {
	dir, sizes := os.Getenv("VCR_VIF_BENCH_PAIRS"), os.Getenv("VCR_VIF_BENCH_SIZES")
	if dir == "" || sizes == "" {
		b.Skip("set VCR_VIF_BENCH_PAIRS and VCR_VIF_BENCH_SIZES (see scripts/bench-vs-python.sh)")
	}
	for _, n := range strings.Fields(sizes) {
		b.Run(n, func(b *testing.B) {
			if _, err := strconv.Atoi(n); err != nil {
				b.Fatalf("VCR_VIF_BENCH_SIZES: %q is not a size", n)
			}
			load := func(name string) *iqa.Gray {
				m, err := imageio.Load(filepath.Join(dir, name+"-"+n+".png"), imageio.Options{})
				if err != nil {
					b.Fatal(err)
				}
				return iqa.GrayFrom(m)
			}
			ref, dist := load("ref"), load("dist")
			s := iqa.NewScorer(iqa.VCRPy)
			if _, err := s.Score(ref, dist); err != nil { // size the workspace
				b.Fatal(err)
			}
			var calls []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.Score(ref, dist); err != nil {
					b.Fatal(err)
				}
				calls = append(calls, time.Since(t0))
			}
			slices.Sort(calls)
			med := calls[len(calls)/2]
			if len(calls)%2 == 0 {
				med = (calls[len(calls)/2-1] + med) / 2
			}
			b.ReportMetric(float64(calls[0])/1e6, "min-ms/op")
			b.ReportMetric(float64(med)/1e6, "median-ms/op")
		})
	}
}
