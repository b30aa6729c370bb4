package testset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/vcr-bench/vcr/corrupt"
)

// MinPilot is the smallest number of usable pilot points NewTargeted accepts.
const MinPilot = 20

// UniformShare is the fraction of a targeted sampler's draws that take the
// driving parameter uniformly from its domain, as plain Algorithm 1 does. It
// is a safety net: a region the pilot fit wrongly believes flat (and would
// never visit) still gets draws, and the next pilot can correct the fit.
const UniformShare = 0.05

// MinR2 is the smallest share of Δv variance a trend-free parameter's fit
// must explain for it to drive a targeted sampler.
const MinR2 = 0.2

// Warnings NewTargeted attaches to a sampler that cannot target Δv; it then
// draws uniformly. Test with errors.Is.
var (
	// ErrNoDriver: no parameter's value is related to Δv in the pilot (the
	// corruption has no parameters, or all pilot Δv are equal).
	ErrNoDriver = errors.New("no parameter drives Δv in the pilot")
)

// Targeted is a Δv-targeted parameter sampler. It learns, from a pilot
// sample, how one driving parameter θ maps to the visual change Δv, and
// draws θ so that Δv = f(θ) is uniform over the range of Δv the domain can
// reach; the other parameters keep their uniform distribution. NewTargeted
// builds it.
//
// The method follows the suggestion of the VCR study (Hu et al.): fit a
// monotone curve to (c, Δv) and invert it for uniformly drawn Δv.
// Concretely:
//
//  1. Driver: among the parameters with Trend ≠ 0 whose fit (below)
//     explains at least MinR2 of the pilot's Δv variance, the one whose
//     Spearman rank correlation with Δv, signed by Trend, is largest. When
//     there is none (hue shifts, colour jitter, or a declared trend that
//     matters less than another parameter), the parameter whose fit
//     explains most variance, if at least MinR2.
//  2. Fit: for Trend ≠ 0, isotonic regression (pool-adjacent-violators,
//     Ayer et al. 1955) of Δv on θ in the direction of Trend, with tied θ
//     pooled first; knots at each block's weighted mean θ, linear in
//     between. For Trend = 0, the best of a non-decreasing, a non-increasing
//     and a valley-shaped (non-increasing, then non-decreasing) isotonic fit,
//     since Δv is smallest at a shift's identity inside the domain. The fit
//     is extended to the domain ends as a constant (no extrapolation); for a
//     single-parameter corruption whose identity lies at a domain end, it is
//     anchored at Δv = 0 there.
//  3. Draw: a target t uniform on the achievable range [min f, max f]
//     widened at each end by a margin of twice the pilot's RMS residual
//     there, with targets beyond an end reflected back inside (t ↦ 2·end − t),
//     then θ with f(θ) = t; when several θ reach t (a valley), one of them
//     with equal chance. Targets are not drawn on [0, 1] and clamped, which
//     would pile draws up on a domain boundary; the reflection instead
//     doubles the density over the last margin width, where the scatter of
//     Δv around f carries half the draws beyond the end — the only way to
//     reach Δv beyond the fitted range. Flat parts of f get no draws (they
//     add no Δv range). A share UniformShare of the draws keeps the driver
//     uniform over its domain instead.
//  4. Integer and odd parameters are snapped to the nearest valid value.
//
// Δv of one draw still scatters around f(θ) (different images, other
// parameters), so the achieved histogram is the uniform target smoothed by
// that scatter; its ends fall off over about one scatter width.
//
// Sample is deterministic given the pilot and rng, and safe for concurrent
// use (the sampler is read-only after construction).
type Targeted struct {
	C *corrupt.Corruption
	// Driver is the index in C.Params of the parameter that is targeted; −1
	// when none (Sample then draws uniformly).
	Driver int
	// Knots and Fit describe the fitted f: Fit[k] is Δv at θ = Knots[k];
	// Knots increase and span the driver's domain.
	Knots, Fit []float64
	// Achievable is the [min, max] of the fitted f over the domain.
	Achievable [2]float64
	// Correlation is the Spearman rank correlation of the driver with Δv in
	// the pilot (for Trend = 0, the square root of the fit's R²).
	Correlation float64
	// R2 is the share of the pilot's Δv variance the fit explains.
	R2 float64
	// Margin holds the widths by which the target range extends below and
	// above Achievable before being reflected back into it.
	Margin [2]float64
	// Pilot is the number of usable pilot points.
	Pilot int
	// Warnings are statistical caveats (see ErrNoDriver).
	Warnings []error
}

// NewTargeted learns c's parameter → Δv relation from pilot points (typically
// ~100–200 uniform draws scored with iqa) and returns a *Targeted sampler
// whose draws make Δv close to uniform over [0, 1], as far as c's domain
// reaches. Pilot points with NaN or infinite values are skipped, Δv is
// clamped to [0, 1], and a parameter value outside the domain is clamped to
// it. It returns an error if a pilot point has the wrong number of parameters
// or fewer than MinPilot points are usable. A pilot that shows no relation
// (e.g. every Δv equal) is not an error: the sampler then draws uniformly and
// carries ErrNoDriver in Warnings.
func NewTargeted(c *corrupt.Corruption, pilot []PilotPoint) (ParamSampler, error) {
	if c == nil {
		panic("testset: NewTargeted with nil corruption")
	}
	np := len(c.Params)
	var pts []PilotPoint
	for i, p := range pilot {
		if len(p.Params) != np {
			return nil, fmt.Errorf("testset: %s: pilot point %d has %d parameters, want %d", c.Name, i, len(p.Params), np)
		}
		if !isFinite(p.DV) || slices.ContainsFunc(p.Params, func(v float64) bool { return !isFinite(v) }) {
			continue
		}
		q := PilotPoint{Params: make([]float64, np), DV: max(0, min(1, p.DV))}
		for j, v := range p.Params {
			q.Params[j] = max(c.Params[j].Min, min(c.Params[j].Max, v))
		}
		pts = append(pts, q)
	}
	if len(pts) < MinPilot {
		return nil, fmt.Errorf("testset: %s: %d usable pilot points, need at least %d", c.Name, len(pts), MinPilot)
	}
	t := &Targeted{C: c, Driver: -1, Pilot: len(pts)}
	dv := make([]float64, len(pts))
	for i, p := range pts {
		dv[i] = p.DV
	}
	theta := func(j int) []float64 {
		x := make([]float64, len(pts))
		for i, p := range pts {
			x[i] = p.Params[j]
		}
		return x
	}

	// 1. Driver and 2. fit: every parameter is fitted; a declared trend
	// is preferred, as the catalogue knows which way severity goes.
	type fit struct {
		j        int
		rho, r2  float64
		kx, ky   []float64
		declared bool
	}
	var declared, free *fit
	for j, p := range c.Params {
		if !(p.Min < p.Max) {
			continue
		}
		x, y := theta(j), dv
		f := &fit{j: j, declared: p.Trend != 0}
		if f.declared {
			f.rho = spearman(x, y)
			if id, ok := identityEnd(c, p); ok {
				// Δv is 0 at the identity for every image.
				x, y = append(x, id), append(slices.Clone(y), 0)
			}
			xs, ys, ws := pooled(x, y)
			var fitted []float64
			f.kx, f.ky, fitted = pava(xs, ys, ws, p.Trend)
			f.r2 = 1 - sse(ys, fitted, ws)/sumSquares(ys, ws)
			if f.r2 >= MinR2 && (declared == nil || float64(p.Trend)*f.rho > float64(c.Params[declared.j].Trend)*declared.rho) {
				declared = f
			}
		} else {
			f.kx, f.ky, f.r2 = valleyKnots(x, y)
			f.rho = math.Sqrt(max(0, f.r2))
		}
		if f.r2 >= MinR2 && (free == nil || f.r2 > free.r2) {
			free = f
		}
	}
	best := declared
	if best == nil {
		best = free
	}
	if best == nil {
		t.Warnings = append(t.Warnings, fmt.Errorf("%s: %w; drawing uniformly", c.Name, ErrNoDriver))
		return t, nil
	}
	d := c.Params[best.j]
	t.Driver, t.Correlation, t.R2 = best.j, best.rho, best.r2
	levels := max(8, min(40, len(pts)/5))
	kx, ky := coarsen(best.kx, best.ky, levels)
	t.Knots, t.Fit = extend(kx, ky, d.Min, d.Max)
	t.Achievable = [2]float64{slices.Min(t.Fit), slices.Max(t.Fit)}
	width := t.Achievable[1] - t.Achievable[0]
	if !(width > 1e-9) {
		t.Driver = -1
		t.Warnings = append(t.Warnings, fmt.Errorf("%s: %w (fitted Δv is flat); drawing uniformly", c.Name, ErrNoDriver))
		return t, nil
	}

	// 3. Reflection margins: twice the RMS residual of the pilot points whose
	// fitted Δv lies nearest each end of the achievable range.
	x := theta(t.Driver)
	type res struct{ f, r float64 }
	rs := make([]res, len(x))
	for i := range x {
		f := t.F(x[i])
		rs[i] = res{f, dv[i] - f}
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].f < rs[b].f })
	k := max(10, len(rs)/10)
	rms := func(rs []res) float64 {
		var s float64
		for _, r := range rs {
			s += r.r * r.r
		}
		return math.Sqrt(s / float64(len(rs)))
	}
	t.Margin = [2]float64{
		min(2*rms(rs[:k]), t.Achievable[0], width/4),
		min(2*rms(rs[len(rs)-k:]), 1-t.Achievable[1], width/4),
	}
	return t, nil
}

// coarsen thins a piecewise-linear fit made of monotone branches (one, or
// two meeting at the minimum for a valley) to the points where each branch
// crosses levels evenly spaced over its Δv range, levels+1 per branch. The
// isotonic fit of a noisy pilot has many short segments whose slopes are
// noisy; inverted, each slope error makes Δv's density locally uneven.
// Segments spanning 1/levels of the Δv range average that noise out while
// following steep regions of θ → Δv as closely as flat ones.
func coarsen(kx, ky []float64, levels int) ([]float64, []float64) {
	if len(kx) < 3 {
		return kx, ky
	}
	m := 0
	for i := range ky {
		if ky[i] < ky[m] {
			m = i
		}
	}
	var ox, oy []float64
	add := func(x, y float64) {
		if len(ox) == 0 || x > ox[len(ox)-1] { // skip the valley's shared minimum
			ox, oy = append(ox, x), append(oy, y)
		}
	}
	for _, b := range [][2]int{{0, m + 1}, {m, len(kx)}} {
		bx, by := kx[b[0]:b[1]], ky[b[0]:b[1]]
		n := len(bx) - 1
		if n < 1 {
			continue
		}
		lo, hi := by[0], by[n]
		// Flat stretches at the branch ends (exact zeros) are kept as they
		// are; the levels span the part in between, [bx[s], bx[e]].
		s, e := 0, n
		for s < n && by[s+1] == lo {
			s++
		}
		for e > s && by[e-1] == hi {
			e--
		}
		add(bx[0], lo)
		add(bx[s], lo)
		k := s
		for j := 1; j < levels && s < e; j++ {
			l := lo + (hi-lo)*float64(j)/float64(levels)
			// Advance to the segment [k, k+1] that reaches level l; the
			// branch is monotone, so the crossing is unique.
			for k < e-1 && (by[k+1]-l)*(hi-lo) < 0 {
				k++
			}
			x := bx[k+1]
			if by[k+1] != by[k] {
				x = bx[k] + (l-by[k])/(by[k+1]-by[k])*(bx[k+1]-bx[k])
			}
			add(x, l)
		}
		add(bx[e], hi)
		add(bx[n], hi)
	}
	return ox, oy
}

// identityEnd returns the value of c's single parameter p at which Δv is 0:
// its identity when inside the domain, or the nearer domain end when the
// identity lies outside but within 0.1% of the domain width of it (Gaussian
// blur's σ ∈ [0.00001, 5] with identity 0).
func identityEnd(c *corrupt.Corruption, p corrupt.Param) (float64, bool) {
	if len(c.Params) != 1 || c.Identity == nil {
		return 0, false
	}
	id, tol := c.Identity[0], 1e-3*(p.Max-p.Min)
	switch {
	case p.Contains(id):
		return id, true
	case id < p.Min && p.Min-id <= tol:
		return p.Min, true
	case id > p.Max && id-p.Max <= tol:
		return p.Max, true
	}
	return 0, false
}

func sumSquares(ys, ws []float64) float64 {
	var mean, sw float64
	for i := range ys {
		mean += ws[i] * ys[i]
		sw += ws[i]
	}
	mean /= sw
	var s float64
	for i := range ys {
		s += ws[i] * (ys[i] - mean) * (ys[i] - mean)
	}
	return s
}

// Mode implements ParamSampler.
func (*Targeted) Mode() string { return "targeted" }

// Sample implements ParamSampler: the non-driving parameters are uniform, the
// driver is drawn as described on Targeted.
func (t *Targeted) Sample(rng *rand.Rand) []float64 {
	p := t.C.Sample(rng)
	if t.Driver < 0 {
		return p
	}
	u, v, w := rng.Float64(), rng.Float64(), rng.Float64()
	if u < UniformShare {
		return p // the driver keeps its uniform draw
	}
	lo, hi := t.Achievable[0], t.Achievable[1]
	target := lo - t.Margin[0] + v*(hi-lo+t.Margin[0]+t.Margin[1])
	if target < lo {
		target = 2*lo - target
	} else if target > hi {
		target = 2*hi - target
	}
	p[t.Driver] = snap(t.C.Params[t.Driver], t.Theta(target, w))
	return p
}

// Theta returns a driver value θ with f(θ) = target (clamped to
// Achievable), before snapping. When several θ reach the target (a
// trend-free fit), w ∈ [0, 1) picks one of them with equal chance. It panics
// if the sampler has no driver.
func (t *Targeted) Theta(target, w float64) float64 {
	if t.Driver < 0 {
		panic("testset: Theta on a sampler without driver")
	}
	target = max(t.Achievable[0], min(t.Achievable[1], target))
	crosses := func(k int) bool {
		y0, y1 := t.Fit[k], t.Fit[k+1]
		return y0 != y1 && min(y0, y1) <= target && target <= max(y0, y1)
	}
	n := 0
	for k := range len(t.Knots) - 1 {
		if crosses(k) {
			n++
		}
	}
	pick := min(n-1, int(w*float64(n)))
	for k := range len(t.Knots) - 1 {
		if !crosses(k) {
			continue
		}
		if pick > 0 {
			pick--
			continue
		}
		a := (target - t.Fit[k]) / (t.Fit[k+1] - t.Fit[k])
		return t.Knots[k] + a*(t.Knots[k+1]-t.Knots[k])
	}
	panic("testset: no crossing of an achievable target") // unreachable: f is continuous
}

// F returns the fitted Δv at driver value theta (clamped to the domain).
func (t *Targeted) F(theta float64) float64 {
	if len(t.Knots) == 0 {
		return math.NaN()
	}
	return interp(t.Knots, t.Fit, theta)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// snap returns the valid value of p nearest to v.
func snap(p corrupt.Param, v float64) float64 {
	v = max(p.Min, min(p.Max, v))
	switch p.Kind {
	case corrupt.Integer:
		v = math.Round(v)
		if v < p.Min {
			v++
		} else if v > p.Max {
			v--
		}
	case corrupt.Odd:
		v = 2*math.Round((v-1)/2) + 1
		if v < p.Min {
			v += 2
		} else if v > p.Max {
			v -= 2
		}
	}
	return v
}

// interp is linear interpolation in (xs, ys), constant beyond the ends.
func interp(xs, ys []float64, x float64) float64 {
	if x <= xs[0] {
		return ys[0]
	}
	n := len(xs)
	if x >= xs[n-1] {
		return ys[n-1]
	}
	k := sort.SearchFloat64s(xs, x) // xs[k-1] < x ≤ xs[k]
	a := (x - xs[k-1]) / (xs[k] - xs[k-1])
	return ys[k-1] + a*(ys[k]-ys[k-1])
}

// ranks returns the 1-based ranks of x, ties getting their mean rank.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// spearman returns the Spearman rank correlation of x and y, 0 when either
// is constant.
func spearman(x, y []float64) float64 {
	return pearson(ranks(x), ranks(y))
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// pooled sorts (x, y) by x and merges equal x into one point with the mean y
// and a weight equal to the count.
func pooled(x, y []float64) (xs, ys, ws []float64) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	for _, i := range idx {
		if n := len(xs); n > 0 && xs[n-1] == x[i] {
			ws[n-1]++
			ys[n-1] += (y[i] - ys[n-1]) / ws[n-1]
			continue
		}
		xs, ys, ws = append(xs, x[i]), append(ys, y[i]), append(ws, 1)
	}
	return xs, ys, ws
}

// isotonicKnots fits y on x by weighted isotonic regression, non-decreasing
// when trend > 0 and non-increasing when trend < 0 (pool-adjacent-violators
// on tie-pooled points), and returns one knot per block: the block's
// weighted mean x and its fitted value.
func isotonicKnots(x, y []float64, trend int) (kx, ky []float64) {
	xs, ys, ws := pooled(x, y)
	kx, ky, _ = pava(xs, ys, ws, trend)
	return kx, ky
}

// sse is the weighted residual sum of squares of fitted against ys.
func sse(ys, fitted, ws []float64) float64 {
	var s float64
	for i := range ys {
		s += ws[i] * (ys[i] - fitted[i]) * (ys[i] - fitted[i])
	}
	return s
}

// pava is pool-adjacent-violators on points sorted by distinct x with
// weights w: one knot per block (weighted mean x, fitted value; two, at its
// ends, for a block whose points all have the same y) and the fitted value
// of every point.
func pava(xs, ys, ws []float64, trend int) (kx, ky, fitted []float64) {
	s := float64(trend)
	type block struct {
		wx, wy, w float64
		lo, hi    int // points [lo, hi)
	}
	var st []block
	for i := range xs {
		b := block{ws[i] * xs[i], ws[i] * s * ys[i], ws[i], i, i + 1}
		for len(st) > 0 && st[len(st)-1].wy/st[len(st)-1].w >= b.wy/b.w {
			top := st[len(st)-1]
			st = st[:len(st)-1]
			b = block{top.wx + b.wx, top.wy + b.wy, top.w + b.w, top.lo, b.hi}
		}
		st = append(st, b)
	}
	for _, b := range st {
		f := s * b.wy / b.w
		if b.hi-b.lo > 1 && slices.Min(ys[b.lo:b.hi]) == slices.Max(ys[b.lo:b.hi]) {
			// Every point of the block has the same Δv (exact zeros below
			// the 8-bit threshold of a blur): f is flat across the whole
			// block, not just at its centre.
			kx, ky = append(kx, xs[b.lo], xs[b.hi-1]), append(ky, f, f)
		} else {
			kx, ky = append(kx, b.wx/b.w), append(ky, f)
		}
		for range b.hi - b.lo {
			fitted = append(fitted, f)
		}
	}
	return kx, ky, fitted
}

// valleyKnots is the fit for a parameter without a declared trend: the best
// (least squares) of a non-decreasing, a non-increasing and a valley-shaped
// (non-increasing, then non-decreasing) isotonic fit — the shape of Δv
// against a hue or brightness shift whose identity lies inside the domain.
// It returns the knots and the fit's R² (share of Δv variance explained).
func valleyKnots(x, y []float64) (kx, ky []float64, r2 float64) {
	xs, ys, ws := pooled(x, y)
	sst := sumSquares(ys, ws)
	if sst == 0 {
		return nil, nil, 0
	}
	best := math.Inf(1)
	// Split s: points [0, s) non-increasing, [s, n) non-decreasing; s = 0 and
	// s = n are the monotone fits.
	for s := 0; s <= len(xs); s++ {
		lx, ly, lf := pava(xs[:s], ys[:s], ws[:s], -1)
		rx, ry, rf := pava(xs[s:], ys[s:], ws[s:], +1)
		if e := sse(ys[:s], lf, ws[:s]) + sse(ys[s:], rf, ws[s:]); e < best-1e-12 {
			best = e
			kx, ky = append(lx, rx...), append(ly, ry...)
		}
	}
	return kx, ky, 1 - best/sst
}

// extend adds knots at the domain ends lo and hi with the value of the
// nearest fitted knot. It does not extrapolate: isotonic fits are least
// reliable at the ends (a few extreme points form the end blocks), and a
// steep end segment extrapolated would promise Δv the domain cannot reach.
func extend(kx, ky []float64, lo, hi float64) ([]float64, []float64) {
	if len(kx) == 0 {
		return []float64{lo, hi}, []float64{0, 0}
	}
	if kx[0] > lo {
		kx, ky = append([]float64{lo}, kx...), append([]float64{ky[0]}, ky...)
	}
	if n := len(kx); kx[n-1] < hi {
		kx, ky = append(kx, hi), append(ky, ky[n-1])
	}
	return kx, ky
}

// PilotDraw makes pilot draw i (0 ≤ i < n) with sampler s and returns its
// parameters and measured Δv. The caller owns images, seeding and scoring:
// typically it seeds a generator from (master seed, a pilot stream, i),
// picks an image, calls s.Sample, corrupts, quantises and scores.
type PilotDraw func(s ParamSampler, i int) (PilotPoint, error)

// LearnTargeted runs the recommended two-stage pilot of n draws and returns
// the sampler fitted to all of them: draws 0…n/2−1 use Uniform; a first
// NewTargeted fit drives draws n/2…n−1; the final fit uses every draw. A
// uniform pilot alone samples steep parts of θ → Δv sparsely (Gaussian
// noise's Δv rises from 0 to 0.5 over the first tenth of its σ domain),
// and the second stage puts pilot draws there. 200 draws is a good default.
// It returns the first error of draw or NewTargeted, and the pilot points.
func LearnTargeted(c *corrupt.Corruption, n int, draw PilotDraw) (*Targeted, []PilotPoint, error) {
	pilot := make([]PilotPoint, 0, n)
	var s ParamSampler = Uniform{c}
	for i := range n {
		if i == n/2 {
			var err error
			if s, err = NewTargeted(c, pilot); err != nil {
				return nil, pilot, err
			}
		}
		p, err := draw(s, i)
		if err != nil {
			return nil, pilot, err
		}
		pilot = append(pilot, p)
	}
	s, err := NewTargeted(c, pilot)
	if err != nil {
		return nil, pilot, err
	}
	return s.(*Targeted), pilot, nil
}
