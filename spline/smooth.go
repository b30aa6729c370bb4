package spline

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Criterion selects how FitSmooth chooses the smoothing parameter.
type Criterion int

const (
	// CV is ordinary leave-one-out cross-validation (R: cv = TRUE).
	CV Criterion = iota
	// GCV is generalised cross-validation (R's default, cv = FALSE).
	GCV
)

// SmoothOptions configures FitSmooth. The zero value reproduces
// R's smooth.spline(x, y, w, cv = TRUE).
type SmoothOptions struct {
	// Criterion used to choose spar when neither Spar nor Lambda is set.
	Criterion Criterion
	// Spar, if not nil, fixes spar (λ = r·256^(3·spar − 1)).
	Spar *float64
	// Lambda, if not nil, fixes λ directly (R's lambda argument); it takes
	// precedence over Spar. It must be ≥ 0.
	Lambda *float64
	// Exact3 uses the exact constant 1/3 in the penalty matrix instead of
	// R's 0.3330. Leave it false to match R.
	Exact3 bool
}

// Smooth is a fitted cubic smoothing spline. All per-point slices refer to
// the distinct x values in ascending order (X), after R's grouping of ties.
type Smooth struct {
	X      []float64 // distinct x, ascending
	Y      []float64 // weighted mean response per distinct x
	W      []float64 // weights per distinct x, normalised as R does
	Fitted []float64 // ŷ at X
	Lev    []float64 // leverages (diagonal of the hat matrix)
	DF     float64   // equivalent degrees of freedom, Σ Lev
	Lambda float64   // λ of the reported fit
	Spar   float64   // spar (NaN when Lambda was given)
	Ratio  float64   // r = tr(XᵀWX)/tr(Ω) over the inner band (R's ratio)
	Crit   float64   // criterion value (CV or GCV) of the reported fit
	RSS    float64   // Σ W·(Y − Fitted)², R's "penalized criterion" pen.crit
	Iter   int       // Brent iterations (0 for a fixed smoothing parameter)
	Knots  []float64 // full knot vector on the scaled axis [0, 1]
	Coef   []float64 // B-spline coefficients

	min, rng float64
}

// Errors returned for unusable data.
var (
	ErrLength   = errors.New("spline: x, y and w lengths differ")
	ErrNaN      = errors.New("spline: NaN or infinite value in the data")
	ErrWeight   = errors.New("spline: weights must be non-negative and not all zero")
	ErrTooFew   = errors.New("spline: too few distinct x values")
	ErrSingular = errors.New("spline: system is not positive definite")
)

// nKnots returns R's number of inner knots .nknots.smspl(n), evaluated
// in double precision exactly as R writes it (so n = 50 gives 49).
func nKnots(n int) int {
	if n < 50 {
		return n
	}
	a1, a2, a3, a4 := math.Log2(50), math.Log2(100), math.Log2(140), math.Log2(200)
	fn := float64(n)
	var v float64
	switch {
	case n < 200:
		v = math.Pow(2, a1+(a2-a1)*(fn-50)/150)
	case n < 800:
		v = math.Pow(2, a2+(a3-a2)*(fn-200)/600)
	case n < 3200:
		v = math.Pow(2, a3+(a4-a3)*(fn-800)/2400)
	default:
		v = 200 + math.Pow(fn-3200, 0.2)
	}
	return int(math.Trunc(v))
}

// seqPositions returns R's seq.int(1, n, length.out = q) (1-based reals)
// as R's C code (do_seq) computes it: 1 + i·by with by = (n − 1)/(q − 1),
// the last element set to n exactly. Truncating these reals can fall one
// below the exact rational position (n = 76 and 78 among the published
// files' sizes; see TestSeqPositions); that is what R does and is kept.
func seqPositions(n, q int) []float64 {
	s := make([]float64, q)
	from, to := 1.0, float64(n)
	s[0] = from
	if q > 1 {
		s[q-1] = to
	}
	if q > 2 {
		by := (to - from) / float64(q-1)
		for i := 1; i < q-1; i++ {
			s[i] = from + float64(i)*by
		}
	}
	return s
}

// smoothKnots returns the knot vector R uses for the scaled distinct x.
func smoothKnots(xs []float64) []float64 {
	n := len(xs)
	q := nKnots(n)
	t := make([]float64, 0, q+6)
	t = append(t, xs[0], xs[0], xs[0])
	for _, p := range seqPositions(n, q) {
		t = append(t, xs[int(p)-1])
	}
	return append(t, xs[n-1], xs[n-1], xs[n-1])
}

// quantile7 is R's default (type 7) quantile of sorted s.
func quantile7(s []float64, p float64) float64 {
	idx := float64(len(s)-1) * p
	lo := int(math.Floor(idx))
	hi := int(math.Ceil(idx))
	h := idx - float64(lo)
	if h == 0 || s[hi] == s[lo] {
		return s[lo]
	}
	return (1-h)*s[lo] + h*s[hi]
}

// group collapses x values closer than R's tolerance 1e-6·IQR(x) as R does
// (sum of weights, weighted mean of y), after normalising the weights to
// w·(number of positive weights)/Σw. ssw is the within-group weighted sum
// of squares that R adds to the residual sum of squares in GCV.
func group(x, y, w []float64) (ux, uy, uw []float64, ssw float64, err error) {
	n := len(x)
	if len(y) != n || (w != nil && len(w) != n) {
		return nil, nil, nil, 0, ErrLength
	}
	ww := make([]float64, n)
	npos, sw := 0, 0.0
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) || math.IsNaN(wi) || math.IsInf(wi, 0) {
			return nil, nil, nil, 0, ErrNaN
		}
		if wi < 0 {
			return nil, nil, nil, 0, ErrWeight
		}
		if wi > 0 {
			npos++
		}
		sw += wi
		ww[i] = wi
	}
	if npos == 0 {
		return nil, nil, nil, 0, ErrWeight
	}
	for i := range ww {
		ww[i] = ww[i] * float64(npos) / sw
	}
	sorted := append([]float64(nil), x...)
	sort.Float64s(sorted)
	tol := 1e-6 * (quantile7(sorted, 0.75) - quantile7(sorted, 0.25))
	if !(tol > 0) {
		return nil, nil, nil, 0, fmt.Errorf("%w: the interquartile range of x is zero", ErrTooFew)
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	key := make([]float64, n)
	idx := make([]int, n)
	for i, v := range x {
		key[i] = math.RoundToEven((v - mean) / tol)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return key[idx[a]] < key[idx[b]] })
	for s := 0; s < n; {
		e := s
		for e < n && key[idx[e]] == key[idx[s]] {
			e++
		}
		// R takes the x of the first occurrence (in data order) of the group.
		first := idx[s]
		for _, i := range idx[s:e] {
			first = min(first, i)
		}
		sw, swy, swyy := 0.0, 0.0, 0.0
		for _, i := range idx[s:e] {
			sw += ww[i]
			swy += ww[i] * y[i]
			swyy += ww[i] * y[i] * y[i]
		}
		yb := swy
		if sw > 0 {
			yb = swy / sw
		}
		ssw += swyy - sw*yb*yb
		ux = append(ux, x[first])
		uy = append(uy, yb)
		uw = append(uw, sw)
		s = e
	}
	return ux, uy, uw, ssw, nil
}

// smoothWork holds the matrices of one smoothing problem.
type smoothWork struct {
	t       []float64
	xs      []float64 // scaled x
	y, w    []float64
	left    []int
	basis   [][order]float64
	xwx, om *band
	xwy     []float64
	ssw     float64 // within-tie sum of squares (GCV only)
	a, l, s *band
	coef    []float64
	fit     []float64
	lev     []float64
}

func newSmoothWork(xs, y, w []float64, c3 float64) *smoothWork {
	t := smoothKnots(xs)
	nb := len(t) - order
	k := len(xs)
	sw := &smoothWork{t: t, xs: xs, y: y, w: w,
		left: make([]int, k), basis: make([][order]float64, k),
		xwx: newBand(nb), om: newBand(nb), xwy: make([]float64, nb),
		a: newBand(nb), l: newBand(nb), s: newBand(nb),
		coef: make([]float64, nb), fit: make([]float64, k), lev: make([]float64, k)}
	penalty(sw.om, t, c3)
	for i, x := range xs {
		left := findInterval(t, x)
		sw.left[i] = left
		basisAt(t, left, x, &sw.basis[i], nil)
		b := &sw.basis[i]
		for p := 0; p < order; p++ {
			sw.xwy[left-3+p] += w[i] * y[i] * b[p]
			for q := p; q < order; q++ {
				sw.xwx.d[q-p][left-3+p] += w[i] * b[p] * b[q]
			}
		}
	}
	return sw
}

// ratio is R's tr(XᵀWX)/tr(Ω) over 1-based indices 3…nb−3.
func (sw *smoothWork) ratio() float64 {
	t1, t2 := 0.0, 0.0
	for i := 2; i < sw.xwx.n-3; i++ {
		t1 += sw.xwx.d[0][i]
		t2 += sw.om.d[0][i]
	}
	return t1 / t2
}

// solve fits at λ and returns the criterion.
func (sw *smoothWork) solve(lambda float64, crit Criterion) (float64, error) {
	for k := range sw.a.d {
		for j := range sw.a.d[k] {
			sw.a.d[k][j] = sw.xwx.d[k][j] + lambda*sw.om.d[k][j]
		}
	}
	if !cholesky(sw.l, sw.a) {
		return math.Inf(1), ErrSingular
	}
	copy(sw.coef, sw.xwy)
	sw.l.solve(sw.coef)
	sw.l.inverseBand(sw.s)
	for i := range sw.xs {
		left, b := sw.left[i], &sw.basis[i]
		f, lv := 0.0, 0.0
		for p := 0; p < order; p++ {
			f += b[p] * sw.coef[left-3+p]
			for q := 0; q < order; q++ {
				lv += b[p] * b[q] * sw.s.at(left-3+p, left-3+q)
			}
		}
		sw.fit[i] = f
		sw.lev[i] = lv * sw.w[i]
	}
	n := float64(len(sw.xs))
	c := 0.0
	switch crit {
	case GCV:
		rss, df, sumw := sw.ssw, 0.0, 0.0
		for i := range sw.xs {
			r := sw.y[i] - sw.fit[i]
			rss += r * r * sw.w[i]
			df += sw.lev[i]
			sumw += sw.w[i]
		}
		d := 1 - df/sumw
		c = (rss / sumw) / (d * d)
	default:
		for i := range sw.xs {
			r := (sw.y[i] - sw.fit[i]) / (1 - sw.lev[i])
			c += r * r * sw.w[i]
		}
		c /= n
	}
	return c, nil
}

// FitSmooth fits a cubic smoothing spline to (x, y) with weights w (nil:
// all 1), reproducing R's smooth.spline (R ≥ 4.x): ties grouped, x scaled to
// [0, 1], R's knot rule, penalty with R's constant 0.3330, λ = r·256^(3·spar−1)
// and spar chosen by Brent's fmin on [−1.5, 1.5] (tol 1e-4) minimising the
// criterion. As in R, the returned fit (Fitted, Lev, DF, Lambda, Crit) is the
// one of the last criterion evaluation, while Spar is Brent's best point.
// It returns an error for length mismatches, NaN or infinite values,
// negative or all-zero weights, fewer than four distinct x, or a singular system.
func FitSmooth(x, y, w []float64, opt SmoothOptions) (*Smooth, error) {
	ux, uy, uw, ssw, err := group(x, y, w)
	if err != nil {
		return nil, err
	}
	if len(ux) < 4 {
		return nil, fmt.Errorf("%w: need at least four distinct x, got %d", ErrTooFew, len(ux))
	}
	lo, rng := ux[0], ux[len(ux)-1]-ux[0]
	xs := make([]float64, len(ux))
	for i, v := range ux {
		xs[i] = (v - lo) / rng
	}
	c3 := 0.3330
	if opt.Exact3 {
		c3 = 1.0 / 3
	}
	sw := newSmoothWork(xs, uy, uw, c3)
	sw.ssw = ssw
	ratio := sw.ratio()
	lambdaOf := func(spar float64) float64 { return ratio * math.Pow(16, spar*6-2) }
	res := &Smooth{X: ux, Y: uy, W: uw, Ratio: ratio, Knots: sw.t, min: lo, rng: rng}
	var crit, lambda float64
	switch {
	case opt.Lambda != nil:
		if !(*opt.Lambda >= 0) || math.IsInf(*opt.Lambda, 0) {
			return nil, fmt.Errorf("spline: lambda must be finite and ≥ 0 (got %g)", *opt.Lambda)
		}
		lambda = *opt.Lambda
		res.Spar = math.NaN()
		crit, err = sw.solve(lambda, opt.Criterion)
	case opt.Spar != nil:
		res.Spar = *opt.Spar
		lambda = lambdaOf(res.Spar)
		crit, err = sw.solve(lambda, opt.Criterion)
	default:
		var lastErr error
		eval := func(spar float64) float64 {
			lambda = lambdaOf(spar)
			crit, lastErr = sw.solve(lambda, opt.Criterion)
			return crit
		}
		res.Spar, _, res.Iter = fmin(-1.5, 1.5, 1e-4, 2e-8, 500, eval)
		// As in R, sw (and lambda, crit) now hold the last evaluation,
		// not necessarily Brent's best point res.Spar.
		err = lastErr
	}
	if err != nil {
		return nil, err
	}
	res.Lambda, res.Crit = lambda, crit
	res.Fitted = append([]float64(nil), sw.fit...)
	res.Lev = append([]float64(nil), sw.lev...)
	res.Coef = append([]float64(nil), sw.coef...)
	for i, v := range res.Lev {
		res.DF += v
		r := res.Y[i] - res.Fitted[i]
		res.RSS += res.W[i] * r * r
	}
	return res, nil
}

// fmin is Brent's minimiser as coded in R's sbart.c (Forsythe, Malcolm &
// Moler, 1977): golden section plus parabolic interpolation on [a, b].
// It returns the best point, its value and the number of iterations.
func fmin(a, b, tol, eps float64, maxit int, f func(float64) float64) (x, fx float64, iter int) {
	const gold = 0.381966011250105151795413165634
	v := a + gold*(b-a)
	w := v
	x = v
	d, e := 0.0, 0.0
	fx = f(x)
	if math.IsNaN(fx) || math.IsInf(fx, 0) {
		fx = 2e100
	}
	fv, fw := fx, fx
	for {
		xm := (a + b) * 0.5
		tol1 := eps*math.Abs(x) + tol/3
		tol2 := tol1 * 2
		iter++
		if math.Abs(x-xm) <= tol2-(b-a)*0.5 || iter > maxit {
			return x, fx, iter
		}
		golden := true
		if math.Abs(e) > tol1 {
			r := (x - w) * (fx - fv)
			q := (x - v) * (fx - fw)
			p := (x-v)*q - (x-w)*r
			q = (q - r) * 2
			if q > 0 {
				p = -p
			}
			q = math.Abs(q)
			r = e
			e = d
			if !(math.Abs(p) >= math.Abs(0.5*q*r) || q == 0) && !(p <= q*(a-x) || p >= q*(b-x)) {
				d = p / q
				u := x + d
				if u-a < tol2 || b-u < tol2 {
					d = fsign(tol1, xm-x)
				}
				golden = false
			}
		}
		if golden {
			if x >= xm {
				e = a - x
			} else {
				e = b - x
			}
			d = gold * e
		}
		var u float64
		if math.Abs(d) >= tol1 {
			u = x + d
		} else {
			u = x + fsign(tol1, d)
		}
		fu := f(u)
		if math.IsNaN(fu) || math.IsInf(fu, 0) {
			fu = 2e100
		}
		if fu <= fx {
			if u >= x {
				a = x
			} else {
				b = x
			}
			v, fv = w, fw
			w, fw = x, fx
			x, fx = u, fu
		} else {
			if u < x {
				a = u
			} else {
				b = u
			}
			if fu <= fw || w == x {
				v, fv = w, fw
				w, fw = u, fu
			} else if fu <= fv || v == x || v == w {
				v, fv = u, fu
			}
		}
	}
}

// fsign is Fortran's SIGN(a, b): |a| with the sign of b (b = 0 counts as positive).
func fsign(a, b float64) float64 {
	if b >= 0 {
		return math.Abs(a)
	}
	return -math.Abs(a)
}

// Predict returns the fitted spline at x (in the original units), with linear
// extrapolation outside the data range as R's predict.smooth.spline does.
func (s *Smooth) Predict(x float64) float64 {
	xs := (x - s.min) / s.rng
	if xs < 0 || xs > 1 {
		e := 0.0
		if xs > 1 {
			e = 1
		}
		return s.evalScaled(e) + s.slopeScaled(e)*(xs-e)
	}
	return s.evalScaled(xs)
}

func (s *Smooth) evalScaled(xs float64) float64 {
	var b [order]float64
	left := findInterval(s.Knots, xs)
	basisAt(s.Knots, left, xs, &b, nil)
	f := 0.0
	for p := range b {
		f += b[p] * s.Coef[left-3+p]
	}
	return f
}

// slopeScaled is the first derivative on the scaled axis at an end (0 or 1),
// from the end coefficients of the clamped knot vector.
func (s *Smooth) slopeScaled(e float64) float64 {
	t, c := s.Knots, s.Coef
	n := len(c)
	if e == 0 {
		return 3 * (c[1] - c[0]) / (t[4] - t[1])
	}
	return 3 * (c[n-1] - c[n-2]) / (t[n+2] - t[n-1])
}

// Z83 is the multiplier of the "83 %" band of the reliability-requirements
// study (requirements-method.md §A.3); the 95 % variant uses 2.0.
const Z83 = 1.39

// Band returns the jackknife band Fitted ± z·σ·√Lev at X, where σ is the
// sample standard deviation (divisor K − 1) of the jackknife residuals
// (Y − Fitted)/(1 − Lev) (Hu et al., ICSE 2022, artifact estimate_range.R).
func (s *Smooth) Band(z float64) (lo, hi []float64) {
	k := len(s.X)
	e := make([]float64, k)
	mean := 0.0
	for i := range e {
		e[i] = (s.Y[i] - s.Fitted[i]) / (1 - s.Lev[i])
		mean += e[i]
	}
	mean /= float64(k)
	ss := 0.0
	for _, v := range e {
		ss += (v - mean) * (v - mean)
	}
	sigma := math.Sqrt(ss / float64(k-1))
	lo, hi = make([]float64, k), make([]float64, k)
	for i := range lo {
		h := z * sigma * math.Sqrt(s.Lev[i])
		lo[i], hi[i] = s.Fitted[i]-h, s.Fitted[i]+h
	}
	return lo, hi
}
