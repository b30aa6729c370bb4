package robustness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/vcr-bench/vcr/spline"

	"github.com/vcr-bench/vcr/stats"
)

// BinIndex returns the bin of Δv v among m equal bins of [0, 1]:
// ⌊v·m⌋, with v = 1 folded into the last bin. (The paper's ⌊v·(m−1)⌋
// leaves the last bin holding only v = 1 exactly; this indexing gives m
// bins of equal width 1/m.) Centre of bin k: (k + ½)/m.
func BinIndex(v float64, m int) int {
	k := int(v * float64(m))
	if k >= m {
		k = m - 1
	}
	if k < 0 {
		k = 0
	}
	return k
}

// data is a series reduced to resampling cells.
type data struct {
	joint bool
	// joint: bin centres and 6 cells per bin, index 3·correct + c with
	// c = 0 inconsistent, 1 consistent, 2 unpaired.
	x     []float64
	cells []int
	n     int
	// separate (pre-binned): per curve, bin positions and 2 cells per bin
	// (successes, failures).
	ax, cx         []float64
	acells, ccells []int
	an, cn         int
}

func (o *Options) defaults() error {
	if o.Bins == 0 {
		o.Bins = DefaultBins
	}
	if o.MinCount == 0 {
		o.MinCount = DefaultMinCount
	}
	if o.Replicates == 0 {
		o.Replicates = DefaultReplicates
	}
	if o.Grid == 0 {
		o.Grid = DefaultGrid
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Bins < 1 || o.MinCount < 1 || o.Grid < 2 {
		return fmt.Errorf("robustness: bins (%d), minimum count (%d) and grid (%d) must be ≥ 1, 1 and 2", o.Bins, o.MinCount, o.Grid)
	}
	return nil
}

func reduce(s *Series, m int) (*data, error) {
	if len(s.Trials) > 0 {
		d := &data{joint: true, x: make([]float64, m), cells: make([]int, 6*m), n: len(s.Trials)}
		for k := range d.x {
			d.x[k] = (float64(k) + 0.5) / float64(m)
		}
		for i, t := range s.Trials {
			if !(t.DV >= 0 && t.DV <= 1) {
				return nil, fmt.Errorf("%w: trial %d of %s/%s has Δv %v", ErrDV, i, s.Subject, s.Corruption, t.DV)
			}
			c := 6 * BinIndex(t.DV, m)
			if t.Correct {
				c += 3
			}
			switch {
			case t.Unpaired:
				c += 2
			case t.Consistent:
				c++
			}
			d.cells[c]++
		}
		return d, nil
	}
	if s.Binned == nil {
		return nil, fmt.Errorf("%w: %s/%s has no trials", ErrNoData, s.Subject, s.Corruption)
	}
	d := &data{}
	var err error
	if d.ax, d.acells, d.an, err = countCells(s.Binned.Accuracy); err != nil {
		return nil, fmt.Errorf("%s/%s accuracy bins: %w", s.Subject, s.Corruption, err)
	}
	if d.cx, d.ccells, d.cn, err = countCells(s.Binned.Consistency); err != nil {
		return nil, fmt.Errorf("%s/%s consistency bins: %w", s.Subject, s.Corruption, err)
	}
	if d.an == 0 && d.cn == 0 {
		return nil, fmt.Errorf("%w: %s/%s has no binned trials", ErrNoData, s.Subject, s.Corruption)
	}
	return d, nil
}

func countCells(c Counts) (x []float64, cells []int, n int, err error) {
	if len(c.N) != len(c.X) || len(c.K) != len(c.X) {
		return nil, nil, 0, fmt.Errorf("X, N and K lengths differ (%d, %d, %d)", len(c.X), len(c.N), len(c.K))
	}
	for i := range c.X {
		if !(c.X[i] >= 0 && c.X[i] <= 1) {
			return nil, nil, 0, fmt.Errorf("%w: bin %d at %v", ErrDV, i, c.X[i])
		}
		if c.N[i] < 0 || c.K[i] < 0 || c.K[i] > c.N[i] {
			return nil, nil, 0, fmt.Errorf("bin %d: %d successes of %d trials", i, c.K[i], c.N[i])
		}
		x = append(x, c.X[i])
		cells = append(cells, c.K[i], c.N[i]-c.K[i])
		n += c.N[i]
	}
	return x, cells, n, nil
}

// curves turns (possibly resampled) cells into per-curve counts.
func (d *data) curves(cells, acells, ccells []int) (acc, con Counts) {
	if d.joint {
		m := len(d.x)
		acc = Counts{X: d.x, N: make([]int, m), K: make([]int, m)}
		con = Counts{X: d.x, N: make([]int, m), K: make([]int, m)}
		for k := range m {
			c := cells[6*k : 6*k+6]
			acc.N[k] = c[0] + c[1] + c[2] + c[3] + c[4] + c[5]
			acc.K[k] = c[3] + c[4] + c[5]
			con.N[k] = c[0] + c[1] + c[3] + c[4]
			con.K[k] = c[1] + c[4]
		}
		return acc, con
	}
	split := func(x []float64, cells []int) Counts {
		c := Counts{X: x, N: make([]int, len(x)), K: make([]int, len(x))}
		for i := range x {
			c.K[i] = cells[2*i]
			c.N[i] = cells[2*i] + cells[2*i+1]
		}
		return c
	}
	return split(d.ax, acells), split(d.cx, ccells)
}

// fitCounts fits the anchored monotone spline to the bins with N ≥ minN.
func fitCounts(c Counts, minN int, anchor float64, opt *Options, used []bool) (*spline.Monotone, error) {
	var x, y, w []float64
	for i := range c.X {
		ok := c.N[i] >= minN && c.N[i] > 0
		if used != nil {
			used[i] = ok
		}
		if ok {
			x = append(x, c.X[i])
			y = append(y, float64(c.K[i])/float64(c.N[i]))
			w = append(w, float64(c.N[i]))
		}
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("%w: no bin has at least %d trials", ErrNoData, minN)
	}
	mo := spline.MonotoneOptions{Domain: [2]float64{0, 1}, Clamp: true, Lambda: opt.Lambda, Segments: opt.Segments}
	if !math.IsNaN(anchor) {
		a := anchor
		mo.Anchor = &a
	}
	return spline.FitMonotone(x, y, w, mo)
}

// FitCurve fits one curve as Fit does (the monotone non-increasing
// spline on [0, 1], weighted by the bins' trials, anchored at anchor
// unless it is NaN) to the bins of c with at least minCount trials, with
// the default smoothing (Options' zero Lambda and Segments). It returns
// ErrNoData when no bin qualifies. It serves live views of partial data
// (the experiment's admin page) that must draw the curve the analysis
// will fit.
func FitCurve(c Counts, minCount int, anchor float64) (*spline.Monotone, error) {
	return fitCounts(c, minCount, anchor, &Options{}, nil)
}

// Fit estimates the VCR curves of s: binning (Algorithm 1), anchored
// monotone splines, R̂a and R̂p, and, unless opt.Replicates < 0, the
// bootstrap bands and intervals. It returns ErrDV for a Δv outside [0, 1],
// ErrNoData for a series without usable bins, and ctx.Err() if cancelled.
// The result depends only on (s, opt without Workers/Progress).
func Fit(ctx context.Context, s Series, opt Options) (*Estimate, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	okAnchor := func(v float64) bool { return math.IsNaN(v) || (v >= 0 && v <= 1) }
	if !okAnchor(s.CleanAccuracy) || !okAnchor(s.CleanConsistency) {
		return nil, fmt.Errorf("robustness: %s/%s: clean accuracy %v and consistency %v must lie in [0, 1]",
			s.Subject, s.Corruption, s.CleanAccuracy, s.CleanConsistency)
	}
	d, err := reduce(&s, opt.Bins)
	if err != nil {
		return nil, err
	}
	e := &Estimate{Subject: s.Subject, Corruption: s.Corruption, VIFMethod: s.VIFMethod, Human: s.Human,
		Bins: opt.Bins, MinCount: opt.MinCount, Replicates: max(opt.Replicates, 0), Seed: opt.Seed}
	minN := opt.MinCount
	if !d.joint {
		minN = 1
	}
	acc, con := d.curves(d.cells, d.acells, d.ccells)
	e.N = d.n
	if !d.joint {
		e.N = max(d.an, d.cn)
	}
	e.MeanAccuracy, e.MeanConsistency = mean(acc), mean(con)
	for _, p := range []struct {
		c      *Curve
		counts Counts
		anchor float64
		name   string
	}{{&e.Accuracy, acc, s.CleanAccuracy, "accuracy"}, {&e.Consistency, con, s.CleanConsistency, "consistency"}} {
		p.c.Bins, p.c.Anchor = p.counts, p.anchor
		p.c.Used = make([]bool, len(p.counts.X))
		if p.c.Fit, err = fitCounts(p.counts, minN, p.anchor, &opt, p.c.Used); err != nil {
			return nil, fmt.Errorf("%s/%s %s curve: %w", s.Subject, s.Corruption, p.name, err)
		}
		dropped, used := 0, 0
		if math.IsNaN(p.anchor) {
			p.c.Covered[0] = 1
		}
		for i, u := range p.c.Used {
			if u {
				used++
				p.c.Covered[1] = math.Max(p.c.Covered[1], p.counts.X[i])
				if math.IsNaN(p.anchor) {
					p.c.Covered[0] = math.Min(p.c.Covered[0], p.counts.X[i])
				}
			} else {
				dropped += p.counts.N[i]
			}
		}
		if dropped > 0 {
			e.Warnings = append(e.Warnings, &Warning{Subject: s.Subject, Corruption: s.Corruption, Property: p.name, Count: dropped,
				Kind: fmt.Sprintf("trials in bins with fewer than %d trials left out of the fit", minN)})
		}
		if used < 4 {
			e.Warnings = append(e.Warnings, &Warning{Subject: s.Subject, Corruption: s.Corruption, Property: p.name, Count: used,
				Kind: "usable bins only (fewer than 4)"})
		}
		p.c.Grid = make([]float64, opt.Grid)
		p.c.Value = make([]float64, opt.Grid)
		for i := range p.c.Grid {
			p.c.Grid[i] = float64(i) / float64(opt.Grid-1)
			p.c.Value[i] = p.c.Fit.Eval(p.c.Grid[i])
		}
	}
	e.Ra = Interval{Value: e.Accuracy.Fit.Integral(0, 1), Lo83: math.NaN(), Hi83: math.NaN(), Lo95: math.NaN(), Hi95: math.NaN()}
	e.Rp = Interval{Value: e.Consistency.Fit.Integral(0, 1), Lo83: math.NaN(), Hi83: math.NaN(), Lo95: math.NaN(), Hi95: math.NaN()}
	if opt.Replicates > 0 {
		if err := bootstrap(ctx, e, d, &s, minN, &opt); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func mean(c Counts) float64 {
	n, k := 0, 0
	for i := range c.N {
		n += c.N[i]
		k += c.K[i]
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

// bootstrap runs the replicates in parallel; replicate b draws from
// PCG(opt.Seed, b) only, so the results do not depend on the worker count.
func bootstrap(ctx context.Context, e *Estimate, d *data, s *Series, minN int, opt *Options) error {
	B := opt.Replicates
	accReps := make([]*spline.Monotone, B)
	conReps := make([]*spline.Monotone, B)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, opt.Workers)
	for w := range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cells := make([]int, len(d.cells))
			acells := make([]int, len(d.acells))
			ccells := make([]int, len(d.ccells))
			for {
				b := int(next.Add(1) - 1)
				if b >= B {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				r := rand.New(rand.NewPCG(opt.Seed, uint64(b)))
				if d.joint {
					multinomial(r, cells, d.cells, d.n)
				} else {
					multinomial(r, acells, d.acells, d.an)
					multinomial(r, ccells, d.ccells, d.cn)
				}
				ca, cc := s.CleanAccuracy, s.CleanConsistency
				if s.CleanN > 0 {
					// NaN (unanchored) stays NaN.
					if !math.IsNaN(ca) {
						ca = float64(binomial(r, s.CleanN, ca)) / float64(s.CleanN)
					}
					if !math.IsNaN(cc) {
						cc = float64(binomial(r, s.CleanN, cc)) / float64(s.CleanN)
					}
				}
				acc, con := d.curves(cells, acells, ccells)
				// A replicate whose fit fails (no usable bin) stays nil.
				accReps[b], _ = fitCounts(acc, minN, ca, opt, nil)
				conReps[b], _ = fitCounts(con, minN, cc, opt, nil)
				n := int(done.Add(1))
				if opt.Progress != nil {
					opt.Progress(n, B)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	// Pair failures: keep only replicates where both curves fitted, so that
	// every statistic uses the same replicate set.
	failed := 0
	for b := range B {
		if accReps[b] == nil || conReps[b] == nil {
			failed++
		}
	}
	if failed > 0 {
		e.Warnings = append(e.Warnings, &Warning{Subject: s.Subject, Corruption: s.Corruption, Count: failed, Of: B,
			Kind: "bootstrap replicates had no usable bin and were left out"})
	}
	e.Accuracy.setBands(accReps)
	e.Consistency.setBands(conReps)
	e.Ra.setCI(integrals(e.Accuracy.reps))
	e.Rp.setCI(integrals(e.Consistency.reps))
	return nil
}

func integrals(reps []*spline.Monotone) []float64 {
	v := make([]float64, 0, len(reps))
	for _, r := range reps {
		if r != nil {
			v = append(v, r.Integral(0, 1))
		}
	}
	return v
}

// setBands stores the replicates and the pointwise percentile bands.
func (c *Curve) setBands(reps []*spline.Monotone) {
	c.reps = reps
	g := len(c.Grid)
	c.Lo83, c.Hi83 = make([]float64, g), make([]float64, g)
	c.Lo95, c.Hi95 = make([]float64, g), make([]float64, g)
	v := make([]float64, 0, len(reps))
	for i, x := range c.Grid {
		v = v[:0]
		for _, r := range reps {
			if r != nil {
				v = append(v, r.Eval(x))
			}
		}
		sort.Float64s(v)
		c.Lo83[i], c.Hi83[i] = stats.Quantile(v, 0.085), stats.Quantile(v, 0.915)
		c.Lo95[i], c.Hi95[i] = stats.Quantile(v, 0.025), stats.Quantile(v, 0.975)
	}
}

// Replicates returns the bootstrap replicate fits (nil entries: replicates
// that could not be fitted). Replicate b of two estimates made with the same
// Options.Replicates are independent draws, so pairing them by index is a
// valid joint bootstrap of two independently sampled series.
func (c *Curve) Replicates() []*spline.Monotone { return c.reps }
