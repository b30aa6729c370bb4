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

// UniformShare is the fraction of a targeted sampler's draws that are
// uniform over the target ranges (Explore), as plain Algorithm 1 is. It
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

// Methods of a Targeted sampler.
const (
	// MethodDriver inverts one driving parameter's fitted Δv curve; the
	// other parameters are drawn uniformly.
	MethodDriver = "driver"
	// MethodAdditive inverts an additive model of every parameter's effect.
	MethodAdditive = "additive"
)

// MinShare is the smallest share of the pilot's (link-scale) Δv variance an
// additive term must carry for its parameter to be targeted; parameters
// below it are drawn uniformly.
const MinShare = 0.05

// Candidates is the number of parameter vectors the additive method draws
// for each target when it targets three or more parameters (all with the
// target's fitted Δv); the one where the
// model is most accurate nearby — the smallest mean residual of the KNN
// nearest pilot points — is kept. It avoids what the additive model cannot
// express (interactions), as far as the pilot shows them.
const Candidates = 4

// EdgeShare: targets within this share of the achievable range from either
// end take the first candidate.
const EdgeShare = 0.1

// KNN is the number of neighbours of the candidates' check.
const KNN = 7

// MinSpan: an additive term is also targeted when its range is at least
// MinSpan of the sum of all terms' ranges.
const MinSpan = 0.05

// dvCap bounds Δv before the link transform y = −log(1 − Δv): the link
// stretches the top of the range, and with it the noise of Δv there.
const dvCap = 0.95

// backfitSweeps is the number of backfitting passes of the additive model.
const backfitSweeps = 8

// Targeted is a Δv-targeted parameter sampler: it learns, from a pilot
// sample, how the parameters map to the visual change Δv, and draws them so
// that Δv is close to uniform over the range the corruption reaches.
// NewTargeted builds it.
//
// Parameters are handled in normalised coordinates z ∈ [0, 1] over their
// target range (corrupt.Param.Target: the published domain, widened for a
// few corruptions that cannot otherwise reach small Δv), linear or, for
// TargetLog parameters, logarithmic. Two methods:
//
// Driver (single-parameter corruptions, or when the pilot shows only one
// parameter mattering) follows the VCR study's suggestion (Hu et al.): fit a
// monotone curve to (θ, Δv) and invert it for uniformly drawn Δv.
//
//  1. Driver: among the parameters with Trend ≠ 0 whose fit (below)
//     explains at least MinR2 of the pilot's Δv variance, the one whose
//     Spearman rank correlation with Δv, signed by Trend, is largest. When
//     there is none, the parameter whose fit explains most variance, if at
//     least MinR2.
//  2. Fit: for Trend ≠ 0, isotonic regression (pool-adjacent-violators,
//     Ayer et al. 1955) of Δv on z in the direction of Trend, with tied z
//     pooled first. For Trend = 0, the best of a non-decreasing, a
//     non-increasing and a valley-shaped isotonic fit (Δv is smallest at a
//     shift's identity inside the domain). The fit is coarsened to the
//     points where it crosses evenly spaced Δv levels and extended to the
//     domain ends as a constant; for a single-parameter corruption whose
//     identity lies at a domain end, it is anchored at Δv = 0 there.
//  3. Draw: a target t uniform on the achievable range [min f, max f]
//     widened at each end by a margin of twice the pilot's RMS residual
//     there, with targets beyond an end reflected back inside (t ↦ 2·end − t),
//     then z with f(z) = t (one of the crossings at random for a valley).
//     The reflection doubles the density over the last margin width, where
//     the scatter of Δv around f carries half the draws beyond the end.
//
// Additive (several parameters matter): Δv of a composite distortion
// behaves like 1 − Π(1 − Δv_j) (VIF of independent distortions roughly
// multiplies), so the model is additive on the link scale y = −log(1 − Δv):
// y ≈ a + Σ_j f_j(z_j), each f_j isotonic in the direction of its Trend
// (valley-shaped or monotone for Trend = 0), fitted by backfitting (Hastie &
// Tibshirani 1990) with the identity, when the corruption has one inside
// the target ranges, added as pilot points with Δv = 0. Terms carrying
// less than MinShare of the variance are drawn uniformly. A draw takes a
// target t as in step 3 above, converts it to the excess
// E = −log(1 − t) − min ŷ over the achievable minimum, splits E at random
// among the targeted parameters (in random order, each share uniform over
// what keeps the rest feasible; discrete parameters first, the rounding
// error of each carried over to the next) and inverts each f_j for its
// share. Every parameter thus takes part, and low Δv — which needs all
// parameters near their identity at once, a region uniform draws almost
// never visit — is as likely as high. With three or more targeted
// parameters, Candidates such vectors are drawn and the one whose KNN
// nearest pilot points have the smallest mean residual is kept (not for
// targets within EdgeShare of the range's ends): interactions the model
// cannot express (RGB shifts of opposite sign cancel in the luma) are
// avoided as far as the pilot shows them.
//
// In both methods a share UniformShare of the draws is uniform over the
// target ranges instead (a safety net for regions the fit wrongly believes
// flat), integer and odd parameters are snapped to valid values, and
// the Δv of a draw still scatters around its target (different images,
// model error), so the achieved histogram is the uniform target smoothed by
// that scatter.
//
// Sample is deterministic given the pilot and rng, and safe for concurrent
// use (the sampler is read-only after construction).
type Targeted struct {
	C *corrupt.Corruption
	// Method is MethodDriver or MethodAdditive.
	Method string
	// Driver is the index in C.Params of the targeted parameter (driver
	// method) or of the parameter with the largest additive term; −1 when
	// none (Sample then draws uniformly).
	Driver int
	// Knots and Fit describe the driver method's fitted f: Fit[k] is Δv at
	// θ = Knots[k] (parameter units; linear in z between knots); Knots
	// increase and span the driver's target range. Nil for the additive
	// method.
	Knots, Fit []float64
	// Parts are the additive model's terms, one per parameter (nil for the
	// driver method); Intercept is its a.
	Parts     []Part
	Intercept float64
	// Achievable is the [min, max] of the fitted Δv over the target ranges.
	Achievable [2]float64
	// Correlation is the Spearman rank correlation of the driver with Δv in
	// the pilot (for a trend-free driver, the square root of its fit's R²).
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

	axes []axis
	zk   []float64 // driver knots in z
	// The additive method's pilot points in weighted coordinates (flat, one
	// row per point), their residuals, and the weights.
	pilotWZ  []float64
	pilotRes []float64
	knnW     []float64
	active   int // number of targeted parameters
}

// Part is one parameter's term f_j of the additive model, on the link scale
// y = −log(1 − Δv).
type Part struct {
	// Param is the parameter's index in C.Params.
	Param int
	// Knots (z ∈ [0, 1]: the parameter's target range mapped linearly or
	// logarithmically) and Fit give f_j, linear in between; nil for a
	// constant parameter.
	Knots, Fit []float64
	// Lo and Hi are the minimum and maximum of Fit.
	Lo, Hi float64
	// Share is the share of the pilot's link-scale variance the term carries.
	Share float64
	// Active is true when the parameter is targeted (Share ≥ MinShare);
	// otherwise it is drawn uniformly.
	Active bool
}

// axis maps a parameter's target range to z ∈ [0, 1], linearly or on a log
// scale.
type axis struct {
	p      corrupt.Param // the target domain (corrupt.Param.Target)
	lo, hi float64       // ends of the range, logarithms on a log axis
	log    bool
}

func newAxis(p corrupt.Param) axis {
	t := p.Target()
	a := axis{p: t, lo: t.Min, hi: t.Max, log: t.TargetLog && t.Min > 0 && t.Max > t.Min}
	if a.log {
		a.lo, a.hi = math.Log(t.Min), math.Log(t.Max)
	}
	return a
}

func (a axis) constant() bool { return !(a.p.Min < a.p.Max) }

// z maps θ (clamped to the range) to [0, 1].
func (a axis) z(theta float64) float64 {
	if a.constant() {
		return 0
	}
	v := max(a.p.Min, min(a.p.Max, theta))
	if a.log {
		v = math.Log(v)
	}
	return max(0, min(1, (v-a.lo)/(a.hi-a.lo)))
}

// raw maps z ∈ [0, 1] to the parameter's range, before snapping.
func (a axis) raw(z float64) float64 {
	v := a.lo + z*(a.hi-a.lo)
	if a.log {
		v = math.Exp(v)
	}
	return max(a.p.Min, min(a.p.Max, v))
}

// theta maps z ∈ [0, 1] to a valid parameter value (snapped).
func (a axis) theta(z float64) float64 { return snap(a.p, a.raw(z)) }

// Explore draws every parameter uniformly from its target range
// (corrupt.Param.Target), on a log scale for TargetLog parameters. It is the
// first stage of the targeted pilot (LearnTargeted, vcr generate): a pilot
// confined to the published domain could not learn what the wider target
// ranges reach. For corruptions without target ranges it draws exactly what
// Uniform draws.
type Explore struct{ C *corrupt.Corruption }

// Sample implements ParamSampler.
func (e Explore) Sample(rng *rand.Rand) []float64 {
	p := e.C.Extended().Sample(rng)
	for j, d := range e.C.Params {
		if a := newAxis(d); a.log {
			p[j] = a.theta(rng.Float64())
		}
	}
	return p
}

// Mode implements ParamSampler.
func (Explore) Mode() string { return "explore" }

// NewTargeted learns c's parameter → Δv relation from pilot points (typically
// ~100–200 draws scored with iqa, from Explore and a first targeted fit:
// LearnTargeted) and returns a *Targeted sampler whose draws make Δv close to
// uniform over [0, 1], as far as c's target ranges reach. Pilot points with
// NaN or infinite values are skipped, Δv is clamped to [0, 1], and a
// parameter value outside its target range is clamped to it. It returns an
// error if a pilot point has the wrong number of parameters or fewer than
// MinPilot points are usable. A pilot that shows no relation (e.g. every Δv
// equal) is not an error: the sampler then draws uniformly and carries
// ErrNoDriver in Warnings.
func NewTargeted(c *corrupt.Corruption, pilot []PilotPoint) (ParamSampler, error) {
	if c == nil {
		panic("testset: NewTargeted with nil corruption")
	}
	np := len(c.Params)
	axes := make([]axis, np)
	for j, p := range c.Params {
		axes[j] = newAxis(p)
	}
	var zs [][]float64 // zs[i][j]: z of parameter j in usable point i
	var dv []float64
	for i, p := range pilot {
		if len(p.Params) != np {
			return nil, fmt.Errorf("testset: %s: pilot point %d has %d parameters, want %d", c.Name, i, len(p.Params), np)
		}
		if !isFinite(p.DV) || slices.ContainsFunc(p.Params, func(v float64) bool { return !isFinite(v) }) {
			continue
		}
		z := make([]float64, np)
		for j, v := range p.Params {
			z[j] = axes[j].z(v)
		}
		zs, dv = append(zs, z), append(dv, max(0, min(1, p.DV)))
	}
	if len(zs) < MinPilot {
		return nil, fmt.Errorf("testset: %s: %d usable pilot points, need at least %d", c.Name, len(zs), MinPilot)
	}
	t := &Targeted{C: c, Method: MethodDriver, Driver: -1, Pilot: len(zs), axes: axes}
	varying := 0
	for _, a := range axes {
		if !a.constant() {
			varying++
		}
	}
	var pred []float64 // fitted Δv of every pilot point
	if varying >= 2 {
		// The additive model is kept where it predicts held-out pilot points
		// clearly better than the single driver does (CVGain), or reaches a clearly wider Δv
		// range (saturate: only add ≈ 0 gets below Δv ≈ 0.1, however small
		// add's share of the variance) — unless its terms cancel each other
		// (shares adding up to more than MaxShareSum: interacting
		// parameters, as in snow, where no flakes at all make their size
		// irrelevant). Its targets need the model's corners — every
		// parameter at its weakest or strongest — which such a fit gets
		// wrong; a driver with the other parameters uniform keeps their
		// natural spread.
		if pred = t.fitAdditive(zs, dv); pred != nil {
			d := &Targeted{C: c, Method: MethodDriver, Driver: -1, axes: axes}
			wider := d.fitDriver(zs, dv) == nil ||
				t.Achievable[1]-t.Achievable[0] >= d.Achievable[1]-d.Achievable[0]+WiderBy
			if t.shareSum() > MaxShareSum || !wider && CVGain*cvError(c, axes, zs, dv, MethodDriver) <= cvError(c, axes, zs, dv, MethodAdditive) {
				t.Method, t.Parts, t.Intercept, pred = MethodDriver, nil, 0, nil
			}
		}
	}
	if t.Method == MethodDriver {
		pred = t.fitDriver(zs, dv)
		if pred == nil {
			return t, nil
		}
	}

	// Reflection margins: twice the RMS residual of the pilot points whose
	// fitted Δv lies nearest each end of the achievable range.
	width := t.Achievable[1] - t.Achievable[0]
	type res struct{ f, r float64 }
	rs := make([]res, len(dv))
	for i := range dv {
		rs[i] = res{pred[i], dv[i] - pred[i]}
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
		max(0, min(2*rms(rs[:k]), t.Achievable[0], width/4)),
		max(0, min(2*rms(rs[len(rs)-k:]), 1-t.Achievable[1], width/4)),
	}
	return t, nil
}

// CVGain: the additive model is preferred to the single driver when its
// cross-validated squared error (cvError) is below CVGain times the
// driver's.
const CVGain = 0.8

// WiderBy: the additive model is preferred to a better-predicting single
// driver when its achievable Δv range is wider by at least this much.
const WiderBy = 0.1

// MaxShareSum is the largest sum of the additive terms' variance shares
// NewTargeted accepts (1 for uncorrelated terms).
const MaxShareSum = 1.3

// shareSum is the sum of the additive terms' shares.
func (t *Targeted) shareSum() float64 {
	var s float64
	for _, pt := range t.Parts {
		s += pt.Share
	}
	return s
}

// cvFolds is the number of folds of cvError.
const cvFolds = 5

// cvError returns the mean squared error in Δv of predicting each pilot
// point from a fit (with the given method) to the other folds; a fold the
// method cannot fit predicts the mean Δv of the others.
func cvError(c *corrupt.Corruption, axes []axis, zs [][]float64, dv []float64, method string) float64 {
	var s float64
	for f := range cvFolds {
		var tz, vz [][]float64
		var tdv, vdv []float64
		for i := range zs {
			if i%cvFolds == f {
				vz, vdv = append(vz, zs[i]), append(vdv, dv[i])
			} else {
				tz, tdv = append(tz, zs[i]), append(tdv, dv[i])
			}
		}
		m := &Targeted{C: c, Method: MethodDriver, Driver: -1, axes: axes}
		var ok bool
		if method == MethodAdditive {
			ok = m.fitAdditive(tz, tdv) != nil
		} else {
			ok = m.fitDriver(tz, tdv) != nil
		}
		var mean float64
		for _, v := range tdv {
			mean += v / float64(len(tdv))
		}
		for i, z := range vz {
			f := mean
			if ok {
				f = m.predictZ(z)
			}
			s += (vdv[i] - f) * (vdv[i] - f)
		}
	}
	return s / float64(len(zs))
}

// predictZ returns the fitted Δv at normalised coordinates z.
func (t *Targeted) predictZ(z []float64) float64 {
	switch {
	case t.Driver < 0:
		return math.NaN()
	case t.Method == MethodDriver:
		return interp(t.zk, t.Fit, z[t.Driver])
	}
	y := t.Intercept
	for j, pt := range t.Parts {
		if pt.Knots != nil {
			y += interp(pt.Knots, pt.Fit, z[j])
		}
	}
	return linkInv(y)
}

// column returns z of parameter j over all points.
func column(zs [][]float64, j int) []float64 {
	x := make([]float64, len(zs))
	for i, z := range zs {
		x[i] = z[j]
	}
	return x
}

// fitDriver fits the driver method and returns the fitted Δv of every pilot
// point, or nil (with ErrNoDriver in Warnings) when no parameter drives Δv.
func (t *Targeted) fitDriver(zs [][]float64, dv []float64) []float64 {
	c := t.C
	t.Method, t.Parts, t.Intercept = MethodDriver, nil, 0
	// Every parameter is fitted; a declared trend is preferred, as the
	// catalogue knows which way severity goes.
	type fit struct {
		j       int
		rho, r2 float64
		kx, ky  []float64
	}
	var declared, free *fit
	for j, p := range c.Params {
		if t.axes[j].constant() {
			continue
		}
		x, y := column(zs, j), dv
		f := &fit{j: j}
		if p.Trend != 0 {
			f.rho = spearman(x, y)
			if id, ok := identityEnd(c, t.axes[j].p); ok {
				// Δv is 0 at the identity for every image.
				x, y = append(x, t.axes[j].z(id)), append(slices.Clone(y), 0)
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
		return nil
	}
	t.Driver, t.Correlation, t.R2 = best.j, best.rho, best.r2
	levels := max(8, min(40, len(zs)/5))
	kx, ky := coarsen(best.kx, best.ky, levels)
	t.zk, t.Fit = extend(kx, ky, 0, 1)
	t.Knots = make([]float64, len(t.zk))
	for k, z := range t.zk {
		t.Knots[k] = t.axes[t.Driver].raw(z)
	}
	t.Achievable = [2]float64{slices.Min(t.Fit), slices.Max(t.Fit)}
	if !(t.Achievable[1]-t.Achievable[0] > 1e-9) {
		t.Driver = -1
		t.Warnings = append(t.Warnings, fmt.Errorf("%s: %w (fitted Δv is flat); drawing uniformly", c.Name, ErrNoDriver))
		return nil
	}
	pred := make([]float64, len(zs))
	for i, z := range zs {
		pred[i] = interp(t.zk, t.Fit, z[t.Driver])
	}
	return pred
}

// fitAdditive fits the additive model by backfitting and, when at least two
// terms are active and it explains at least MinR2 of the Δv variance,
// makes it the sampler's method and returns the fitted Δv of every pilot
// point.
func (t *Targeted) fitAdditive(zs [][]float64, dv []float64) []float64 {
	c := t.C
	n := len(zs)
	y := make([]float64, n, n+n/20+1)
	for i, v := range dv {
		y[i] = -math.Log(1 - min(v, dvCap))
	}
	pts := zs
	// The identity, when every parameter's lies in its target range, is a
	// point every image shares: Δv = 0. It enters with the weight of n/40
	// pilot points, and trend-free terms are valleys with their minimum
	// there.
	var zid []float64
	if id := c.Identity; id != nil {
		zid = make([]float64, len(id))
		for j, v := range id {
			if !t.axes[j].constant() && !t.axes[j].p.Contains(v) {
				zid = nil
				break
			}
			zid[j] = t.axes[j].z(v)
		}
		if zid != nil {
			pts = slices.Clone(zs)
			for range max(1, n/40) {
				pts, y = append(pts, zid), append(y, 0)
			}
		}
	}
	use := make([]bool, len(c.Params))
	for j := range use {
		use[j] = !t.axes[j].constant()
	}
	// Two passes: all parameters, then only those whose terms carry at
	// least MinShare (with many parameters, weak terms mostly fit noise and
	// inflate the model's range).
	parts, F, a := backfit(c, pts, y, zid, use, n)
	active := 0
	for j := range parts {
		if use[j] = parts[j].Active; use[j] {
			active++
		}
	}
	if active < 2 {
		return nil
	}
	parts, F, a = backfit(c, pts, y, zid, use, n)
	active = 0
	lo, hi := a, a
	for j, pt := range parts {
		if pt.Active {
			active++
		}
		if use[j] {
			lo, hi = lo+pt.Lo, hi+pt.Hi
		}
	}
	pred := make([]float64, n)
	var mean float64
	for _, v := range dv {
		mean += v / float64(n)
	}
	var sres, stot float64
	for i := range n {
		s := a
		for j := range F {
			s += F[j][i]
		}
		pred[i] = linkInv(s)
		sres += (dv[i] - pred[i]) * (dv[i] - pred[i])
		stot += (dv[i] - mean) * (dv[i] - mean)
	}
	r2 := 0.0
	if stot > 0 {
		r2 = 1 - sres/stot
	}
	if active < 2 || r2 < MinR2 || !(hi-lo > 1e-9) {
		return nil
	}
	t.Method, t.Parts, t.Intercept, t.R2, t.active = MethodAdditive, parts, a, r2, active
	t.knnW = make([]float64, len(parts))
	for j, pt := range parts {
		if use[j] {
			t.knnW[j] = pt.Hi - pt.Lo
		}
	}
	for i, z := range zs {
		for j, w := range t.knnW {
			t.pilotWZ = append(t.pilotWZ, w*z[j])
		}
		t.pilotRes = append(t.pilotRes, dv[i]-pred[i])
	}
	t.Achievable = [2]float64{linkInv(lo), linkInv(hi)}
	best := -1
	for j, pt := range parts {
		if pt.Active && (best < 0 || pt.Share > parts[best].Share) {
			best = j
		}
	}
	t.Driver = best
	x := column(zs, best)
	if tr := c.Params[best].Trend; tr != 0 {
		t.Correlation = spearman(x, dv)
	} else {
		t.Correlation = math.Sqrt(parts[best].Share)
	}
	return pred
}

// backfit fits y ≈ a + Σ f_j(z_j) over the parameters with use[j] by
// backfitting (Hastie & Tibshirani 1990): each term in turn is refitted to
// the residual of the others (isotonic in the direction of the parameter's
// Trend; for Trend = 0 a valley at the identity zid when known, otherwise
// trendFreeKnots), coarsened and centred. Backfitting need not descend
// monotonically here (terms interpolate block means and are coarsened), so
// the best of backfitSweeps sweeps is kept. The first n of pts are real
// pilot points (shares are computed over them), the rest identity points.
// It returns the terms (one per parameter; Knots nil where unused), their
// values at the points, and the least-squares intercept.
func backfit(c *corrupt.Corruption, pts [][]float64, y, zid []float64, use []bool, n int) ([]Part, [][]float64, float64) {
	m := len(pts)
	parts := make([]Part, len(c.Params))
	F := make([][]float64, len(c.Params))
	xs := make([][]float64, len(c.Params))
	for j := range parts {
		parts[j].Param = j
		F[j] = make([]float64, m)
		if use[j] {
			xs[j] = column(pts, j)
		}
	}
	var a float64
	for _, v := range y {
		a += v / float64(m)
	}
	sse := func() float64 {
		var s float64
		for i := range m {
			d := y[i] - a
			for k := range F {
				d -= F[k][i]
			}
			s += d * d
		}
		return s
	}
	r := make([]float64, m)
	levels := max(8, min(40, n/5))
	bestSSE := math.Inf(1)
	var bestParts []Part
	var bestF [][]float64
	for range backfitSweeps {
		for j, p := range c.Params {
			if xs[j] == nil {
				continue
			}
			for i := range r {
				r[i] = y[i] - a
				for k := range F {
					if k != j {
						r[i] -= F[k][i]
					}
				}
			}
			var kx, ky []float64
			switch {
			case p.Trend != 0:
				ps, pr, pw := pooled(xs[j], r)
				kx, ky, _ = pava(ps, pr, pw, p.Trend)
			case zid != nil:
				kx, ky = valleyAt(xs[j], r, zid[j])
			default:
				kx, ky = trendFreeKnots(xs[j], r, max(8, n/6))
			}
			if kx == nil {
				kx, ky = []float64{0, 1}, []float64{0, 0}
			}
			if isValley(ky) {
				kx, ky = coarsen(kx, ky, levels)
			}
			kx, ky = extend(kx, ky, 0, 1)
			var mean float64
			for i, x := range xs[j] {
				F[j][i] = interp(kx, ky, x)
				mean += F[j][i] / float64(m)
			}
			for i := range F[j] {
				F[j][i] -= mean
			}
			for k := range ky {
				ky[k] -= mean
			}
			a += mean
			parts[j].Knots, parts[j].Fit = kx, ky
		}
		if s := sse(); s < bestSSE {
			bestSSE = s
			bestParts = slices.Clone(parts)
			bestF = make([][]float64, len(F))
			for j := range F {
				bestF[j] = slices.Clone(F[j])
			}
		}
	}
	parts, F = bestParts, bestF
	// Least-squares intercept for the kept terms; shares and ranges over
	// the real pilot points.
	a = 0
	for i := range m {
		s := y[i]
		for j := range F {
			s -= F[j][i]
		}
		a += s / float64(m)
	}
	yv := sumSquares(y[:n], ones(n))
	var span float64
	for j := range parts {
		pt := &parts[j]
		if pt.Knots == nil {
			continue
		}
		pt.Lo, pt.Hi = slices.Min(pt.Fit), slices.Max(pt.Fit)
		span += pt.Hi - pt.Lo
		if yv > 0 {
			pt.Share = sumSquares(F[j][:n], ones(n)) / yv
		}
	}
	for j := range parts {
		pt := &parts[j]
		// A term with little variance may still set an end of the range
		// (saturate's add: the only way below Δv ≈ 0.1 is add ≈ 0).
		pt.Active = pt.Knots != nil && pt.Hi-pt.Lo > 1e-9 && (pt.Share >= MinShare || pt.Hi-pt.Lo >= MinSpan*span)
	}
	return parts, F, a
}

// valleyAt is the isotonic fit of y on x that does not increase below x0
// and does not decrease from x0 on: a trend-free parameter whose identity x0
// lies inside the domain changes the image more the further it moves away.
func valleyAt(x, y []float64, x0 float64) (kx, ky []float64) {
	xs, ys, ws := pooled(x, y)
	s, _ := slices.BinarySearch(xs, x0)
	lx, ly, _ := pava(xs[:s], ys[:s], ws[:s], -1)
	rx, ry, _ := pava(xs[s:], ys[s:], ws[s:], +1)
	return append(lx, rx...), append(ly, ry...)
}

// trendFreeKnots fits y on x for a parameter without a declared trend: the
// valley-shaped (or monotone) isotonic fit of valleyKnots, unless a binned
// mean over bins equal-count bins fits much better (residual sum of
// squares below 0.7 times) — Δv against a hue shift has minima at 0 and at
// ±1 turn, which no valley follows.
func trendFreeKnots(x, y []float64, bins int) (kx, ky []float64) {
	xs, ys, ws := pooled(x, y)
	sst := sumSquares(ys, ws)
	if sst == 0 {
		return nil, nil
	}
	vx, vy, r2 := valleyKnots(x, y)
	bx, by := binnedKnots(xs, ys, ws, bins)
	var sb float64
	for i := range xs {
		d := ys[i] - interp(bx, by, xs[i])
		sb += ws[i] * d * d
	}
	if sb < 0.7*(1-r2)*sst {
		return bx, by
	}
	return vx, vy
}

// binnedKnots returns one knot per group of about len(xs)/bins consecutive
// (sorted, weighted) points: their weighted mean x and y.
func binnedKnots(xs, ys, ws []float64, bins int) (kx, ky []float64) {
	var total float64
	for _, w := range ws {
		total += w
	}
	per := total / float64(max(1, bins))
	var sx, sy, sw float64
	for i := range xs {
		sx, sy, sw = sx+ws[i]*xs[i], sy+ws[i]*ys[i], sw+ws[i]
		if sw >= per || i == len(xs)-1 {
			kx, ky = append(kx, sx/sw), append(ky, sy/sw)
			sx, sy, sw = 0, 0, 0
		}
	}
	return kx, ky
}

// isValley reports whether ky falls, then rises (or is monotone).
func isValley(ky []float64) bool {
	m := 0
	for i := range ky {
		if ky[i] < ky[m] {
			m = i
		}
	}
	for i := 1; i <= m; i++ {
		if ky[i] > ky[i-1] {
			return false
		}
	}
	for i := m + 1; i < len(ky); i++ {
		if ky[i] < ky[i-1] {
			return false
		}
	}
	return true
}

// linkInv maps the link scale back to Δv: 1 − exp(−max(0, y)).
func linkInv(y float64) float64 { return 1 - math.Exp(-max(0, y)) }

func ones(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
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

// Sample implements ParamSampler: see Targeted.
func (t *Targeted) Sample(rng *rand.Rand) []float64 {
	if t.Driver < 0 {
		return Explore{t.C}.Sample(rng)
	}
	if t.Method == MethodAdditive {
		return t.sampleAdditive(rng)
	}
	p := Explore{t.C}.Sample(rng)
	u, v, w := rng.Float64(), rng.Float64(), rng.Float64()
	if u < UniformShare {
		return p // the driver keeps its uniform draw
	}
	p[t.Driver] = t.axes[t.Driver].theta(invert(t.zk, t.Fit, t.target(v), w))
	return p
}

// target maps v ∈ [0, 1) to a Δv target: uniform on the achievable range
// widened by the margins, reflected back inside.
func (t *Targeted) target(v float64) float64 {
	lo, hi := t.Achievable[0], t.Achievable[1]
	target := lo - t.Margin[0] + v*(hi-lo+t.Margin[0]+t.Margin[1])
	if target < lo {
		target = 2*lo - target
	} else if target > hi {
		target = 2*hi - target
	}
	return max(lo, min(hi, target))
}

func (t *Targeted) sampleAdditive(rng *rand.Rand) []float64 {
	if rng.Float64() < UniformShare {
		return Explore{t.C}.Sample(rng)
	}
	target := t.target(rng.Float64())
	lo, hi := t.Achievable[0], t.Achievable[1]
	if edge := EdgeShare * (hi - lo); t.active < 3 || target < lo+edge || target > hi-edge {
		// With two targeted parameters the candidates lie on one curve
		// and the check only biases draws along it (measured: worse for
		// saturate); near the ends of the range the nearest pilot points
		// lie on one side only, and their residuals mislead.
		return t.split(target, rng)
	}
	best, bestErr := []float64(nil), math.Inf(1)
	wz := make([]float64, len(t.C.Params))
	for range Candidates {
		p := t.split(target, rng)
		for j, v := range p {
			wz[j] = t.knnW[j] * t.axes[j].z(v)
		}
		if d := math.Abs(t.localResidual(wz)); d < bestErr {
			best, bestErr = p, d
		}
	}
	return best
}

// localResidual returns the mean residual Δv − fitted Δv of the KNN pilot
// points nearest to the weighted coordinates wz (z_j times the range of
// parameter j's term, so that parameters the model finds irrelevant do not
// count): where the model is wrong nearby, e.g. RGB shifts of opposite sign
// whose effects on the luma cancel.
func (t *Targeted) localResidual(wz []float64) float64 {
	var nd, nr [KNN]float64
	far, farD := 0, math.Inf(1)
	n := 0
	d := len(wz)
	for i, r := range t.pilotRes {
		q := t.pilotWZ[i*d : i*d+d : i*d+d]
		var s float64
		for j, v := range wz {
			x := q[j] - v
			s += x * x
		}
		if n < KNN {
			nd[n], nr[n] = s, r
			n++
			if n == KNN {
				far, farD = farthest(&nd)
			}
			continue
		}
		if s < farD {
			nd[far], nr[far] = s, r
			far, farD = farthest(&nd)
		}
	}
	var s float64
	for k := range n {
		s += nr[k]
	}
	return s / float64(n)
}

func farthest(nd *[KNN]float64) (int, float64) {
	k := 0
	for i := 1; i < KNN; i++ {
		if nd[i] > nd[k] {
			k = i
		}
	}
	return k, nd[k]
}

// split draws one parameter vector whose additive-model Δv is target.
func (t *Targeted) split(target float64, rng *rand.Rand) []float64 {
	np := len(t.C.Params)
	p := make([]float64, np)
	// The excess over the model's minimum that the parameters must add up to.
	e := -math.Log(1-target) - t.Intercept
	order := make([]int, 0, np)
	discrete := 0
	for j, pt := range t.Parts {
		a := t.axes[j]
		switch {
		case a.constant():
			p[j] = a.p.Min
		case !pt.Active:
			p[j] = a.theta(rng.Float64())
			if pt.Knots != nil {
				e -= interp(pt.Knots, pt.Fit, a.z(p[j]))
			}
		default:
			e -= pt.Lo
			order = append(order, j)
			if t.C.Params[j].Kind != corrupt.Continuous {
				order[len(order)-1], order[discrete] = order[discrete], order[len(order)-1]
				discrete++
			}
		}
	}
	// Random order within the discrete and the continuous parameters.
	shuffle := func(s []int) {
		for i := len(s) - 1; i > 0; i-- {
			k := rng.IntN(i + 1)
			s[i], s[k] = s[k], s[i]
		}
	}
	shuffle(order[:discrete])
	shuffle(order[discrete:])
	var rest float64
	for _, j := range order {
		rest += t.Parts[j].Hi - t.Parts[j].Lo
	}
	for _, j := range order {
		pt := &t.Parts[j]
		span := pt.Hi - pt.Lo
		rest -= span
		e = max(0, min(span+rest, e))
		lo, hi := max(0, e-rest), min(span, e)
		share := lo + rng.Float64()*(hi-lo)
		a := t.axes[j]
		p[j] = a.theta(invert(pt.Knots, pt.Fit, pt.Lo+share, rng.Float64()))
		// What the (snapped) value really adds.
		e -= interp(pt.Knots, pt.Fit, a.z(p[j])) - pt.Lo
	}
	return p
}

// invert returns z with f(z) = level (clamped to f's range) for the
// piecewise-linear f given by knots (kx, ky); when several z reach the
// level (a valley), w ∈ [0, 1) picks one of them with equal chance.
func invert(kx, ky []float64, level, w float64) float64 {
	level = max(slices.Min(ky), min(slices.Max(ky), level))
	crosses := func(k int) bool {
		y0, y1 := ky[k], ky[k+1]
		return y0 != y1 && min(y0, y1) <= level && level <= max(y0, y1)
	}
	n := 0
	for k := range len(kx) - 1 {
		if crosses(k) {
			n++
		}
	}
	if n == 0 { // f is flat
		return kx[0] + w*(kx[len(kx)-1]-kx[0])
	}
	pick := min(n-1, int(w*float64(n)))
	for k := range len(kx) - 1 {
		if !crosses(k) {
			continue
		}
		if pick > 0 {
			pick--
			continue
		}
		a := (level - ky[k]) / (ky[k+1] - ky[k])
		return kx[k] + a*(kx[k+1]-kx[k])
	}
	panic("testset: no crossing of a level inside the range") // unreachable: f is continuous
}

// Theta returns a driver value θ with f(θ) = target (clamped to
// Achievable), before snapping. When several θ reach the target (a
// trend-free fit), w ∈ [0, 1) picks one of them with equal chance. It panics
// unless the sampler uses the driver method with a driver.
func (t *Targeted) Theta(target, w float64) float64 {
	if t.Driver < 0 || t.Method != MethodDriver {
		panic("testset: Theta on a sampler without a single driver")
	}
	return t.axes[t.Driver].raw(invert(t.zk, t.Fit, target, w))
}

// F returns the fitted Δv at driver value theta (clamped to the target
// range); NaN unless the sampler uses the driver method with a driver.
func (t *Targeted) F(theta float64) float64 {
	if len(t.zk) == 0 || t.Method != MethodDriver {
		return math.NaN()
	}
	return interp(t.zk, t.Fit, t.axes[t.Driver].z(theta))
}

// Predict returns the fitted Δv at parameter vector p (clamped to the
// target ranges); NaN without a driver.
func (t *Targeted) Predict(p []float64) float64 {
	z := make([]float64, len(p))
	for j, v := range p {
		z[j] = t.axes[j].z(v)
	}
	return t.predictZ(z)
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
// the sampler fitted to all of them: draws 0…n/2−1 use Explore (uniform
// over the target ranges, which for most corruptions is Uniform); a first
// NewTargeted fit drives draws n/2…n−1; the final fit uses every draw. A
// uniform pilot alone samples steep parts of θ → Δv sparsely (Gaussian
// noise's Δv rises from 0 to 0.5 over the first tenth of its σ domain),
// and the second stage puts pilot draws there. 200 draws is a good default.
// It returns the first error of draw or NewTargeted, and the pilot points.
func LearnTargeted(c *corrupt.Corruption, n int, draw PilotDraw) (*Targeted, []PilotPoint, error) {
	pilot := make([]PilotPoint, 0, n)
	var s ParamSampler = Explore{c}
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
