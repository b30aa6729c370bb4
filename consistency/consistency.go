package consistency

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/vcr-bench/vcr/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Stat is the error consistency of two observers on N shared trials.
type Stat struct {
	N int
	// AccuracyA and AccuracyB are the observers' accuracies p1, p2 on the
	// shared trials.
	AccuracyA, AccuracyB float64
	// Observed is c_obs, Expected c_exp, Kappa Cohen's kappa.
	Observed, Expected, Kappa float64
}

// Expected returns c_exp = p1·p2 + (1 − p1)·(1 − p2).
func Expected(p1, p2 float64) float64 { return p1*p2 + (1-p1)*(1-p2) }

// Kappa returns (observed − expected)/(1 − expected), and 1 when observed
// is 1 (as model-vs-human does; then expected may be 1 too). It is NaN
// when expected is 1 but observed is not, which counts from real trials
// cannot give.
func Kappa(observed, expected float64) float64 {
	switch {
	case observed == 1:
		return 1
	case expected == 1:
		return math.NaN()
	}
	return (observed - expected) / (1 - expected)
}

// Compute returns the error consistency of two observers whose answers to
// the same trials, in the same order, were right (true) or wrong (false).
// It panics if the lengths differ; with no trials every rate is NaN.
func Compute(a, b []bool) Stat {
	if len(a) != len(b) {
		panic("consistency: Compute of slices of different lengths")
	}
	ka, kb, agree := 0, 0, 0
	for i, x := range a {
		if x {
			ka++
		}
		if b[i] {
			kb++
		}
		if x == b[i] {
			agree++
		}
	}
	return fromCounts(len(a), ka, kb, agree)
}

// fromCounts computes the statistic from n trials, ka and kb right answers
// and agree trials with equal outcomes. The divisions are those of
// model-vs-human: accuracy = k / n, c_obs = agree / n.
func fromCounts(n, ka, kb, agree int) Stat {
	s := Stat{N: n}
	if n == 0 {
		s.AccuracyA, s.AccuracyB, s.Observed, s.Expected, s.Kappa = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return s
	}
	fn := float64(n)
	s.AccuracyA, s.AccuracyB = float64(ka)/fn, float64(kb)/fn
	s.Observed = float64(agree) / fn
	s.Expected = Expected(s.AccuracyA, s.AccuracyB)
	s.Kappa = Kappa(s.Observed, s.Expected)
	return s
}

// Trial is one judgement of an observer.
type Trial struct {
	// Stimulus identifies the image judged; two observers' trials with the
	// same Stimulus are shared trials.
	Stimulus string
	// Corruption is the stimulus's corruption (the condition).
	Corruption string
	// DV is the stimulus's Δv ∈ [0, 1] (for the Δv bins).
	DV float64
	// Correct says whether the observer's answer was right.
	Correct bool
}

// Observer is a human participant or a model with its trials.
type Observer struct {
	Name   string
	Human  bool
	Trials []Trial
}

// Options tune Compare. The zero value computes no intervals and one bin.
type Options struct {
	// Bins is the number of equal Δv bins on [0, 1] (besides the row over
	// all Δv of a corruption); 0 or 1: no per-bin rows.
	Bins int
	// Bootstrap is the number of replicates of the interval (0: none).
	Bootstrap int
	// Seed is the master seed; each row's replicates draw from a
	// generator seeded from it and the row's observers, corruption and bin.
	Seed uint64
	// Level is the two-sided interval's level, e.g. 0.95 (0: 0.95).
	Level float64
}

// DefaultBins is the number of Δv bins 'vcr analyze' reports; DefaultLevel
// the level of its intervals.
const (
	DefaultBins  = 5
	DefaultLevel = 0.95
)

// AllDV is Row.Bin for the row over all Δv of a corruption.
const AllDV = "all"

// Row is the error consistency of one pair on the shared trials of one
// corruption and Δv bin.
type Row struct {
	A, B string
	// Kind is "human-human", "model-human" (A the model) or "model-model".
	Kind       string
	Corruption string
	// Bin is AllDV or "lo-hi" (Δv in [lo, hi), the last bin closed).
	Bin string
	Stat
	// Lo and Hi bound the bootstrap percentile interval of Kappa (NaN
	// without bootstrap or with fewer than 2 trials).
	Lo, Hi float64
}

// Mean is a mean kappa over pairs: the human ceiling (pairs of humans) or
// a model's mean over the human participants.
type Mean struct {
	Model      string `json:"model,omitempty"`
	Corruption string `json:"corruption"`
	Bin        string `json:"dv_bin"`
	Pairs      int    `json:"pairs"`
	// Kappa is the mean kappa over the pairs, Min and Max its range.
	Kappa float64 `json:"kappa"`
	Min   float64 `json:"kappa_min"`
	Max   float64 `json:"kappa_max"`
}

// Result is what Compare found.
type Result struct {
	// Rows are sorted by kind (human-human, model-human, model-model),
	// observers, corruption and bin (AllDV first).
	Rows []Row
	// Ceiling is the mean kappa over pairs of humans per corruption and
	// bin; ModelHuman each model's mean kappa over the participants.
	Ceiling, ModelHuman []Mean
	// Humans and Models count the observers compared.
	Humans, Models int
	Options        Options
}

// Compare computes the error consistency of every pair of observers that
// share at least one trial, per corruption and Δv bin. It returns an error
// for an observer with two trials of one stimulus, a Δv outside [0, 1],
// and ctx.Err().
func Compare(ctx context.Context, obs []Observer, opt Options) (*Result, error) {
	if opt.Level == 0 {
		opt.Level = DefaultLevel
	}
	if !(opt.Level > 0 && opt.Level < 1) || opt.Bootstrap < 0 || opt.Bins < 0 {
		return nil, fmt.Errorf("consistency: bad options %+v", opt)
	}
	index := make([]map[string]int, len(obs))
	for i, o := range obs {
		index[i] = make(map[string]int, len(o.Trials))
		for j, t := range o.Trials {
			if _, dup := index[i][t.Stimulus]; dup {
				return nil, fmt.Errorf("consistency: observer %s judged stimulus %s twice", o.Name, t.Stimulus)
			}
			if !(t.DV >= 0 && t.DV <= 1) {
				return nil, fmt.Errorf("consistency: observer %s, stimulus %s: Δv %v outside [0, 1]", o.Name, t.Stimulus, t.DV)
			}
			index[i][t.Stimulus] = j
		}
	}
	res := &Result{Options: opt}
	for _, o := range obs {
		if o.Human {
			res.Humans++
		} else {
			res.Models++
		}
	}
	type cell struct{ a, b []bool }
	for i := range obs {
		for j := i + 1; j < len(obs); j++ {
			a, b := obs[i], obs[j]
			ib := j
			kind := "model-model"
			switch {
			case a.Human && b.Human:
				kind = "human-human"
			case a.Human:
				a, b, ib = b, a, i
				fallthrough
			case b.Human:
				kind = "model-human"
			}
			cells := map[[2]string]*cell{}
			add := func(c, bin string, x, y bool) {
				k := [2]string{c, bin}
				if cells[k] == nil {
					cells[k] = &cell{}
				}
				cells[k].a = append(cells[k].a, x)
				cells[k].b = append(cells[k].b, y)
			}
			for _, t := range a.Trials {
				k, ok := index[ib][t.Stimulus]
				if !ok {
					continue
				}
				u := b.Trials[k]
				dv := t.DV
				if b.Human {
					dv = u.DV // the humans' Δv axis
				}
				add(t.Corruption, AllDV, t.Correct, u.Correct)
				if opt.Bins > 1 {
					add(t.Corruption, binName(dv, opt.Bins), t.Correct, u.Correct)
				}
			}
			for k, c := range cells {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				r := Row{A: a.Name, B: b.Name, Kind: kind, Corruption: k[0], Bin: k[1], Stat: Compute(c.a, c.b)}
				r.Lo, r.Hi = bootstrap(c.a, c.b, opt, rowSeed(opt.Seed, r))
				res.Rows = append(res.Rows, r)
			}
		}
	}
	kindOrder := map[string]int{"human-human": 0, "model-human": 1, "model-model": 2}
	slices.SortFunc(res.Rows, func(x, y Row) int {
		return cmp.Or(cmp.Compare(kindOrder[x.Kind], kindOrder[y.Kind]), cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B),
			cmp.Compare(x.Corruption, y.Corruption), cmp.Compare(binKey(x.Bin), binKey(y.Bin)))
	})
	res.Ceiling = means(res.Rows, "human-human", false)
	res.ModelHuman = means(res.Rows, "model-human", true)
	return res, nil
}

// binName names the bin of dv among m equal bins of [0, 1].
func binName(dv float64, m int) string {
	j := min(int(dv*float64(m)), m-1)
	return strconv.FormatFloat(float64(j)/float64(m), 'g', -1, 64) + "-" + strconv.FormatFloat(float64(j+1)/float64(m), 'g', -1, 64)
}

// binKey orders AllDV before the bins, and bins by their lower bound.
func binKey(b string) float64 {
	if b == AllDV {
		return -1
	}
	for i := 1; i < len(b); i++ {
		if b[i] == '-' {
			v, _ := strconv.ParseFloat(b[:i], 64)
			return v
		}
	}
	return 0
}

// rowSeed derives a row's bootstrap seed: FNV-1a (64 bit) of
// "master\x00A\x00B\x00corruption\x00bin".
func rowSeed(master uint64, r Row) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%s", master, r.A, r.B, r.Corruption, r.Bin)
	return h.Sum64()
}

// bootstrap returns the percentile interval of kappa over opt.Bootstrap
// resamples (with replacement) of the n shared trials, or NaNs. Kappa
// depends on a resample only through the counts of its four outcome cells
// (both right, only A right, only B right, both wrong), so each replicate
// draws those counts from their multinomial distribution (sequential
// binomials), which has exactly the distribution of resampling the trials
// one by one, in time independent of n.
func bootstrap(a, b []bool, opt Options, seed uint64) (lo, hi float64) {
	n := len(a)
	if opt.Bootstrap == 0 || n < 2 {
		return math.NaN(), math.NaN()
	}
	var cell [4]int // 0: both right, 1: only A, 2: only B, 3: both wrong
	for i, x := range a {
		switch {
		case x && b[i]:
			cell[0]++
		case x:
			cell[1]++
		case b[i]:
			cell[2]++
		default:
			cell[3]++
		}
	}
	src := rand.NewPCG(seed, 0x9e3779b97f4a7c15)
	binom := func(m int, p float64) int {
		switch {
		case m == 0 || p <= 0:
			return 0
		case p >= 1:
			return m
		}
		return int(distuv.Binomial{N: float64(m), P: p, Src: src}.Rand())
	}
	ks := make([]float64, 0, opt.Bootstrap)
	for range opt.Bootstrap {
		var c [4]int
		left, rest := n, n // trials still to place; trials of the cells not yet drawn
		for j := range 3 {
			c[j] = binom(left, float64(cell[j])/float64(rest))
			left -= c[j]
			rest -= cell[j]
		}
		c[3] = left
		if k := fromCounts(n, c[0]+c[1], c[0]+c[2], c[0]+c[3]).Kappa; !math.IsNaN(k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	alpha := (1 - opt.Level) / 2
	return stats.Quantile(ks, alpha), stats.Quantile(ks, 1-alpha)
}

// means averages kappa over the rows of one kind, per corruption and bin
// (and per model A when perModel).
func means(rows []Row, kind string, perModel bool) []Mean {
	type key struct{ model, c, bin string }
	acc := map[key]*Mean{}
	var order []key
	for _, r := range rows {
		if r.Kind != kind || math.IsNaN(r.Kappa) {
			continue
		}
		k := key{c: r.Corruption, bin: r.Bin}
		if perModel {
			k.model = r.A
		}
		m := acc[k]
		if m == nil {
			m = &Mean{Model: k.model, Corruption: k.c, Bin: k.bin, Min: math.Inf(1), Max: math.Inf(-1)}
			acc[k] = m
			order = append(order, k)
		}
		m.Pairs++
		m.Kappa += r.Kappa
		m.Min, m.Max = min(m.Min, r.Kappa), max(m.Max, r.Kappa)
	}
	out := make([]Mean, 0, len(order))
	for _, k := range order {
		m := acc[k]
		m.Kappa /= float64(m.Pairs)
		out = append(out, *m)
	}
	slices.SortFunc(out, func(x, y Mean) int {
		return cmp.Or(cmp.Compare(x.Model, y.Model), cmp.Compare(x.Corruption, y.Corruption), cmp.Compare(binKey(x.Bin), binKey(y.Bin)))
	})
	return out
}

// CSVColumns are the columns WriteCSV writes (error_consistency.csv).
var CSVColumns = []string{"observer_a", "observer_b", "kind", "corruption", "dv_bin", "n", "accuracy_a", "accuracy_b",
	"c_obs", "c_exp", "kappa", "kappa_lo", "kappa_hi"}

// WriteCSV writes one line per row (CSVColumns); undefined numbers are
// empty cells.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, x := range r.Rows {
		if err := cw.Write([]string{x.A, x.B, x.Kind, x.Corruption, x.Bin, strconv.Itoa(x.N), f(x.AccuracyA), f(x.AccuracyB),
			f(x.Observed), f(x.Expected), f(x.Kappa), f(x.Lo), f(x.Hi)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
