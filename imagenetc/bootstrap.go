package imagenetc

import (
	"context"
	"fmt"
	"hash/fnv"

	"math/rand/v2"
	"slices"

	"github.com/vcr-bench/vcr/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided percentile bootstrap interval [Lo, Hi].
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Bootstrap says how Intervals resamples. The zero Level means
// DefaultLevel.
type Bootstrap struct {
	// Replicates is the number B of bootstrap replicates (≥ 1).
	Replicates int `json:"replicates"`
	// Seed is the master seed; a model's replicates draw from a generator
	// seeded from it and the model's name (ModelSeed).
	Seed uint64 `json:"seed"`
	// Level is the two-sided level, in (0, 1).
	Level float64 `json:"level"`
}

// DefaultLevel is the level of the intervals when Bootstrap.Level is 0.
const DefaultLevel = 0.95

// ModelSeed derives a model's bootstrap seed: FNV-1a (64 bit) of
// "master\x00imagenet-c\x00model".
func ModelSeed(master uint64, model string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00imagenet-c\x00%s", master, model)
	return h.Sum64()
}

// Intervals adds percentile bootstrap intervals to r, the Result of
// Compute(m): for every CE, relative CE, mCE and relative mCE that r has.
// Each replicate resamples, with replacement, the images of every
// corruption × severity cell (and the clean images, for the relative
// forms) within that cell, and recomputes the metrics from the resampled
// errors. A cell's resampled error count depends only on how many of its
// n draws are misclassified images, so it is drawn as Binomial(n, e/n) —
// exactly the distribution of drawing the n images one by one — in time
// independent of n. Cells are resampled independently of each other (the
// same source image in several cells is not tied together). The
// replicates draw from one PCG generator seeded by ModelSeed(b.Seed,
// m.Name), cells in a fixed order, so a seed reproduces the intervals
// exactly. It returns an error for B < 1 or a level outside (0, 1), and
// ctx.Err() (checked per replicate).
func Intervals(ctx context.Context, m Model, r *Result, b Bootstrap) error {
	if b.Level == 0 {
		b.Level = DefaultLevel
	}
	if b.Replicates < 1 || !(b.Level > 0 && b.Level < 1) {
		return fmt.Errorf("imagenetc: bootstrap needs at least 1 replicate and a level in (0, 1), got %d and %v", b.Replicates, b.Level)
	}
	// The cells of the corruptions that have a CE, in r's order.
	type cell struct{ n, e int }
	var names []string
	cells := map[string]*[Severities]cell{}
	for _, c := range r.Corruptions {
		if c.CE != nil {
			names = append(names, c.Corruption)
			cells[c.Corruption] = &[Severities]cell{}
		}
	}
	for _, c := range m.Counts {
		if t := cells[c.Corruption]; t != nil {
			t[c.Severity-1].n += c.N
			t[c.Severity-1].e += c.Errors
		}
	}
	if len(names) == 0 {
		return nil
	}
	src := rand.NewPCG(ModelSeed(b.Seed, m.Name), 0x9e3779b97f4a7c15)
	binom := func(n, e int) int {
		switch {
		case e == 0:
			return 0
		case e == n:
			return n
		}
		return int(distuv.Binomial{N: float64(n), P: float64(e) / float64(n), Src: src}.Rand())
	}
	relative := r.CleanError != nil
	ce := make(map[string][]float64, len(names))
	rel := make(map[string][]float64, len(names))
	var mce, rmce []float64
	full := r.MCE != nil
	for range b.Replicates {
		if err := ctx.Err(); err != nil {
			return err
		}
		clean := 0.0
		if relative {
			clean = float64(binom(m.CleanN, m.CleanErrors)) / float64(m.CleanN)
		}
		sumCE, sumRel := 0.0, 0.0
		for _, name := range names {
			mean := 0.0
			for _, x := range cells[name] {
				mean += float64(binom(x.n, x.e)) / float64(x.n)
			}
			mean /= Severities
			a, _ := AlexNetError(name)
			v := 100 * mean / a
			ce[name] = append(ce[name], v)
			sumCE += v
			if relative {
				w := 100 * (mean - clean) / (a - AlexNetCleanError)
				rel[name] = append(rel[name], w)
				sumRel += w
			}
		}
		if full {
			mce = append(mce, sumCE/float64(len(Benchmark)))
			if relative {
				rmce = append(rmce, sumRel/float64(len(Benchmark)))
			}
		}
	}
	alpha := (1 - b.Level) / 2
	interval := func(v []float64) *Interval {
		slices.Sort(v)
		return &Interval{stats.Quantile(v, alpha), stats.Quantile(v, 1-alpha)}
	}
	r.CEInterval = map[string]Interval{}
	for i := range r.Corruptions {
		c := &r.Corruptions[i]
		if v, ok := ce[c.Corruption]; ok {
			c.CEInterval = interval(v)
			r.CEInterval[c.Corruption] = *c.CEInterval
		}
		if v, ok := rel[c.Corruption]; ok {
			c.RelativeCEInterval = interval(v)
			if r.RelativeCEInterval == nil {
				r.RelativeCEInterval = map[string]Interval{}
			}
			r.RelativeCEInterval[c.Corruption] = *c.RelativeCEInterval
		}
	}
	if full {
		r.MCEInterval = interval(mce)
		if relative {
			r.RelativeMCEInterval = interval(rmce)
		}
	}
	r.Bootstrap = &b
	return nil
}
