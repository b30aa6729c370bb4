package spline

import (
	"fmt"
	"math"
	"sort"
)

// MonotoneOptions configures FitMonotone. The zero value fits a
// non-increasing spline over [min x, max x] with GCV-chosen smoothness.
type MonotoneOptions struct {
	// Domain is the interval the spline lives on; the zero value means
	// [min x, max x]. Every x must lie inside it. VCR curves use {0, 1}.
	Domain [2]float64
	// Anchor, if not nil, pins the spline's value at Domain[0] exactly
	// (for VCR: the clean accuracy at Δv = 0).
	Anchor *float64
	// Clamp limits Eval and Integral to [0, 1] (the fit itself is
	// unchanged; integrals are split exactly at the crossing points).
	Clamp bool
	// Lambda, if not nil, fixes the penalty weight instead of choosing it by
	// GCV. It multiplies ∫f″² on the domain mapped to [0, 1], with the
	// weights normalised to mean 1. It must be ≥ 0 (0 is unpenalised).
	Lambda *float64
	// Segments is the number of equal knot intervals; 0 means
	// max(1, min(⌈K/4⌉, 35)) for K distinct x (Ruppert, 2002).
	Segments int
	// Increasing fits a non-decreasing spline instead (the mirror image:
	// the fit of −y negated).
	Increasing bool
}

// Monotone is a fitted monotone cubic spline (non-increasing unless
// MonotoneOptions.Increasing).
type Monotone struct {
	Lo, Hi float64   // domain
	Knots  []float64 // knot vector on the scaled axis [0, 1]
	Coef   []float64 // B-spline coefficients, non-increasing
	Lambda float64   // penalty weight used
	DF     float64   // effective degrees of freedom of the constrained fit
	GCV    float64   // generalised cross-validation score at Lambda
	Clamp  bool
	// Increasing is true for a non-decreasing fit.
	Increasing bool
}

// monoWork holds one monotone problem on the scaled axis.
type monoWork struct {
	nb, n  int
	hasA   bool
	anchor float64
	xwx    *band
	om     *band
	xwy    []float64
	y, w   []float64
	left   []int
	basis  [][order]float64
	yy     float64 // Σ w y²

	// dense work (nb×nb), reused across λ
	q, g    []float64 // Q = G + λ·P, G = MᵀXᵀWXM (row-major nb×nb)
	pm      []float64 // P = MᵀΩM
	c       []float64 // Mᵀ XᵀW y
	z, s    []float64
	grad    []float64
	passive []bool
	idx     []int
	chol    []float64
	rhs     []float64
	tmp     []float64
	hm      []float64
}

// cumT computes Mᵀ v for β = M z (β_j = z_0 − Σ_{k=1..j} z_k):
// (Mᵀv)_0 = Σ_j v_j, (Mᵀv)_k = −Σ_{j≥k} v_j.
func cumT(dst, v []float64) {
	s := 0.0
	for k := len(v) - 1; k >= 1; k-- {
		s += v[k]
		dst[k] = -s
	}
	dst[0] = s + v[0]
}

// congruence writes Mᵀ A M (A banded) into dst (dense nb×nb) using hm as
// scratch.
func congruence(dst []float64, a *band, nb int, hm []float64) {
	// hm = A·M, column by column: A·M_{:,0} = A·1; A·M_{:,k} = −Σ_{j≥k} A_{:,j}.
	for i := 0; i < nb; i++ {
		s := 0.0
		for j := nb - 1; j >= 1; j-- {
			s += a.at(i, j)
			hm[i*nb+j] = -s
		}
		hm[i*nb] = s + a.at(i, 0)
	}
	// dst = Mᵀ·hm: apply cumT to each column.
	col := make([]float64, nb)
	out := make([]float64, nb)
	for j := 0; j < nb; j++ {
		for i := 0; i < nb; i++ {
			col[i] = hm[i*nb+j]
		}
		cumT(out, col)
		for i := 0; i < nb; i++ {
			dst[i*nb+j] = out[i]
		}
	}
}

// FitMonotone fits a non-increasing cubic B-spline s minimising
// Σ w_k (y_k − s(x_k))² + λ ∫ s″² over the domain, subject to non-increasing
// B-spline coefficients (which makes s non-increasing everywhere) and, if
// opt.Anchor is set, s(Domain[0]) = *opt.Anchor exactly. λ is chosen by
// minimising GCV = n·RSS_w/(n − df)² over a grid and a Brent refinement,
// with df the trace of the hat matrix of the fit with its active
// constraints held as equalities. Weights nil means all 1.
// It returns an error for length mismatches, non-finite values, negative or
// all-zero weights, x outside the domain, or too few distinct x (two, or one
// away from the anchored end).
func FitMonotone(x, y, w []float64, opt MonotoneOptions) (*Monotone, error) {
	n := len(x)
	if len(y) != n || (w != nil && len(w) != n) {
		return nil, ErrLength
	}
	lo, hi := opt.Domain[0], opt.Domain[1]
	if lo == 0 && hi == 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range x {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if !finite(x[i]) || !finite(y[i]) || !finite(wi) {
			return nil, ErrNaN
		}
		if wi < 0 {
			return nil, ErrWeight
		}
	}
	if opt.Anchor != nil && !finite(*opt.Anchor) {
		return nil, ErrNaN
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no data", ErrTooFew)
	}
	if !(hi > lo) {
		return nil, fmt.Errorf("%w: the domain [%g, %g] is empty", ErrTooFew, lo, hi)
	}
	// Distinct x with positive weight, and the weight normalisation.
	var xs []float64
	sw := 0.0
	npos := 0
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if x[i] < lo || x[i] > hi {
			return nil, fmt.Errorf("spline: x = %g outside the domain [%g, %g]", x[i], lo, hi)
		}
		if wi > 0 {
			npos++
			sw += wi
			xs = append(xs, x[i])
		}
	}
	if npos == 0 {
		return nil, ErrWeight
	}
	sort.Float64s(xs)
	distinct, awayFromLo := 0, 0
	for i, v := range xs {
		if i == 0 || v != xs[i-1] {
			distinct++
			if v != lo {
				awayFromLo++
			}
		}
	}
	if distinct < 2 && !(opt.Anchor != nil && awayFromLo >= 1) {
		return nil, fmt.Errorf("%w: need two distinct x (or one away from the anchor), got %d", ErrTooFew, distinct)
	}
	nseg := opt.Segments
	if nseg <= 0 {
		nseg = max(1, min((distinct+3)/4, 35))
	}
	t := make([]float64, 0, nseg+7)
	t = append(t, 0, 0, 0)
	for j := 0; j <= nseg; j++ {
		t = append(t, float64(j)/float64(nseg))
	}
	t = append(t, 1, 1, 1)
	nb := nseg + 3

	// A non-decreasing fit is the non-increasing fit of −y, negated.
	sgn := 1.0
	if opt.Increasing {
		sgn = -1
	}
	mw := newMonoWork(nb, n)
	mw.n = npos
	if opt.Anchor != nil {
		mw.hasA, mw.anchor = true, sgn**opt.Anchor
	}
	penalty(mw.om, t, 1.0/3)
	scale := float64(npos) / sw
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		wi *= scale
		u := (x[i] - lo) / (hi - lo)
		left := findInterval(t, u)
		mw.left[i] = left
		basisAt(t, left, u, &mw.basis[i], nil)
		b := &mw.basis[i]
		yi := sgn * y[i]
		mw.y[i], mw.w[i] = yi, wi
		mw.yy += wi * yi * yi
		for p := 0; p < order; p++ {
			mw.xwy[left-3+p] += wi * yi * b[p]
			for q := p; q < order; q++ {
				mw.xwx.d[q-p][left-3+p] += wi * b[p] * b[q]
			}
		}
	}
	congruence(mw.g, mw.xwx, nb, mw.hm)
	congruence(mw.pm, mw.om, nb, mw.hm)
	cumT(mw.c, mw.xwy)

	res := &Monotone{Lo: lo, Hi: hi, Knots: t, Clamp: opt.Clamp, Increasing: opt.Increasing}
	if opt.Lambda != nil {
		if !(*opt.Lambda >= 0) || math.IsInf(*opt.Lambda, 0) {
			return nil, fmt.Errorf("spline: lambda must be finite and ≥ 0 (got %g)", *opt.Lambda)
		}
		res.Lambda = *opt.Lambda
		gcv, df, err := mw.solve(res.Lambda)
		if err != nil {
			return nil, err
		}
		res.GCV, res.DF = gcv, df
	} else {
		// λ = r·10^ρ with R's trace ratio r; grid over ρ, then Brent.
		t1, t2 := 0.0, 0.0
		for j := 0; j < nb; j++ {
			t1 += mw.xwx.d[0][j]
			t2 += mw.om.d[0][j]
		}
		r := t1 / t2
		crit := func(rho float64) float64 {
			g, _, err := mw.solve(r * math.Pow(10, rho))
			if err != nil || math.IsNaN(g) {
				return math.Inf(1)
			}
			return g
		}
		const rlo, rhi, step = -6.0, 6.0, 1.0
		best, bestV := rlo, math.Inf(1)
		for rho := rlo; rho <= rhi+1e-9; rho += step {
			if v := crit(rho); v < bestV {
				best, bestV = rho, v
			}
		}
		a, b := math.Max(rlo, best-step), math.Min(rhi, best+step)
		rho, v, _ := fmin(a, b, 0.01, 2e-8, 50, crit)
		if bestV < v {
			rho = best
		}
		res.Lambda = r * math.Pow(10, rho)
		gcv, df, err := mw.solve(res.Lambda)
		if err != nil {
			return nil, err
		}
		res.GCV, res.DF = gcv, df
	}
	res.Coef = make([]float64, nb)
	beta := mw.z[0]
	for j := 0; j < nb; j++ {
		if j > 0 {
			beta -= mw.z[j]
		}
		res.Coef[j] = sgn * beta
	}
	return res, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func newMonoWork(nb, n int) *monoWork {
	return &monoWork{
		xwx: newBand(nb), om: newBand(nb), xwy: make([]float64, nb),
		y: make([]float64, n), w: make([]float64, n),
		left: make([]int, n), basis: make([][order]float64, n), nb: nb,
		q: make([]float64, nb*nb), g: make([]float64, nb*nb), pm: make([]float64, nb*nb), c: make([]float64, nb),
		z: make([]float64, nb), s: make([]float64, nb), grad: make([]float64, nb),
		passive: make([]bool, nb), idx: make([]int, 0, nb),
		chol: make([]float64, nb*nb), rhs: make([]float64, nb*nb), tmp: make([]float64, nb),
		hm: make([]float64, nb*nb),
	}
}

// solve fits at λ (warm-starting from the previous passive set) and
// returns the GCV score and df.
func (m *monoWork) solve(lambda float64) (gcv, df float64, err error) {
	nb := m.nb
	// Q = G + λ·MᵀΩM.
	q, g, pm := m.q, m.g[:len(m.q)], m.pm[:len(m.q)]
	for i := range q {
		q[i] = g[i] + lambda*pm[i]
	}
	if err := m.activeSet(); err != nil {
		return 0, 0, err
	}
	// Weighted RSS = yᵀWy − 2 βᵀXᵀWy + βᵀXᵀWXβ = yy − 2 zᵀc + zᵀGz.
	zc, zgz := 0.0, 0.0
	for i := 0; i < nb; i++ {
		zc += m.z[i] * m.c[i]
		s := 0.0
		for j := 0; j < nb; j++ {
			s += m.g[i*nb+j] * m.z[j]
		}
		zgz += m.z[i] * s
	}
	rss := math.Max(0, m.yy-2*zc+zgz)
	// df = tr(Q_PP⁻¹ G_PP) over the free variables (the anchor is fixed).
	df = m.traceFree()
	n := float64(m.n)
	if df >= n {
		return math.Inf(1), df, nil
	}
	d := 1 - df/n
	return rss / n / (d * d), df, nil
}

// freeIdx lists the variables currently solved for.
func (m *monoWork) freeIdx() []int {
	m.idx = m.idx[:0]
	for i := 0; i < m.nb; i++ {
		if m.passive[i] {
			m.idx = append(m.idx, i)
		}
	}
	return m.idx
}

// cholSub factors Q restricted to idx into m.chol (row-major p×p).
func (m *monoWork) cholSub(idx []int) bool {
	p := len(idx)
	nb := m.nb
	l := m.chol[:p*p]
	for j := 0; j < p; j++ {
		s := m.q[idx[j]*nb+idx[j]]
		for k := 0; k < j; k++ {
			s -= l[j*p+k] * l[j*p+k]
		}
		if !(s > 0) {
			return false
		}
		d := math.Sqrt(s)
		l[j*p+j] = d
		for i := j + 1; i < p; i++ {
			s := m.q[idx[i]*nb+idx[j]]
			for k := 0; k < j; k++ {
				s -= l[i*p+k] * l[j*p+k]
			}
			l[i*p+j] = s / d
		}
	}
	return true
}

func (m *monoWork) cholSolve(p int, v []float64) {
	l := m.chol[:p*p]
	for i := 0; i < p; i++ {
		s := v[i]
		for k := 0; k < i; k++ {
			s -= l[i*p+k] * v[k]
		}
		v[i] = s / l[i*p+i]
	}
	for i := p - 1; i >= 0; i-- {
		s := v[i]
		for k := i + 1; k < p; k++ {
			s -= l[k*p+i] * v[k]
		}
		v[i] = s / l[i*p+i]
	}
}

// subSolve sets m.s to the minimiser over the passive variables with the
// others at their bound (0, or the anchor for z_0).
func (m *monoWork) subSolve() error {
	nb := m.nb
	idx := m.freeIdx()
	clear(m.s)
	if m.hasA {
		m.s[0] = m.anchor
	}
	if len(idx) == 0 {
		return nil
	}
	if !m.cholSub(idx) {
		return ErrSingular
	}
	v := m.tmp[:len(idx)]
	for a, i := range idx {
		r := m.c[i]
		if m.hasA {
			r -= m.q[i*nb] * m.anchor
		}
		v[a] = r
	}
	m.cholSolve(len(idx), v)
	for a, i := range idx {
		m.s[i] = v[a]
	}
	return nil
}

// activeSet minimises ½zᵀQz − cᵀz subject to z_k ≥ 0 (k ≥ 1), z_0 free or
// fixed at the anchor, by Lawson & Hanson's (1974) active-set method
// generalised to a quadratic objective, warm-started from the last
// passive set.
func (m *monoWork) activeSet() error {
	nb := m.nb
	// Start from a feasible point: the anchor (or 0) and all z_k = 0,
	// then enter the warm passive set through the inner loop.
	clear(m.z)
	if m.hasA {
		m.z[0] = m.anchor
		m.passive[0] = false
	} else {
		m.passive[0] = true
	}
	scale := 0.0
	for _, v := range m.c {
		scale = math.Max(scale, math.Abs(v))
	}
	tol := 1e-11 * math.Max(scale, 1e-300)
	for iter := 0; iter < 5*nb+10; iter++ {
		// Inner loop: make the passive solution feasible.
		for inner := 0; inner < nb+1; inner++ {
			if err := m.subSolve(); err != nil {
				return err
			}
			alpha, feasible := 1.0, true
			for k := 1; k < nb; k++ {
				if m.passive[k] && m.s[k] <= 0 {
					feasible = false
					if a := m.z[k] / (m.z[k] - m.s[k]); a < alpha {
						alpha = a
					}
				}
			}
			if feasible {
				copy(m.z, m.s)
				break
			}
			for k := 0; k < nb; k++ {
				m.z[k] += alpha * (m.s[k] - m.z[k])
			}
			for k := 1; k < nb; k++ {
				if m.passive[k] && m.z[k] <= 1e-14*math.Max(1, math.Abs(m.z[0])) {
					m.passive[k] = false
					m.z[k] = 0
				}
			}
		}
		// Optimality: the negative gradient on active variables must be ≤ 0.
		best, bestK := tol, -1
		for k := 1; k < nb; k++ {
			if m.passive[k] {
				continue
			}
			g := m.c[k]
			for j := 0; j < nb; j++ {
				g -= m.q[k*nb+j] * m.z[j]
			}
			if g > best {
				best, bestK = g, k
			}
		}
		if bestK < 0 {
			return nil
		}
		m.passive[bestK] = true
	}
	return nil
}

// traceFree returns tr(Q_PP⁻¹ G_PP) for the final passive set as
// Σ_i (L⁻¹ G L⁻ᵀ)_ii with Q_PP = L·Lᵀ (about p³/3 flops).
func (m *monoWork) traceFree() float64 {
	idx := m.freeIdx()
	p := len(idx)
	if p == 0 || !m.cholSub(idx) {
		return 0
	}
	nb := m.nb
	l, li := m.chol[:p*p], m.rhs[:p*p]
	// li = L⁻¹ (lower triangular), row by row.
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			s := 0.0
			for k := j; k < i; k++ {
				s -= l[i*p+k] * li[k*p+j]
			}
			li[i*p+j] = s / l[i*p+i]
		}
		li[i*p+i] = 1 / l[i*p+i]
	}
	tr := 0.0
	v := m.tmp[:p]
	for i := 0; i < p; i++ {
		row := li[i*p : i*p+i+1]
		// v = G_PP · rowᵀ restricted to the first i+1 entries.
		for a := 0; a <= i; a++ {
			ga := m.g[idx[a]*nb:]
			s := 0.0
			for b, r := range row {
				s += ga[idx[b]] * r
			}
			v[a] = s
		}
		for a, r := range row {
			tr += r * v[a]
		}
	}
	return tr
}

// raw evaluates the unclamped spline at x (constant beyond the domain).
func (s *Monotone) raw(x float64) float64 {
	u := (x - s.Lo) / (s.Hi - s.Lo)
	u = math.Min(1, math.Max(0, u))
	var b [order]float64
	left := findInterval(s.Knots, u)
	basisAt(s.Knots, left, u, &b, nil)
	f := 0.0
	for p := range b {
		f += b[p] * s.Coef[left-3+p]
	}
	return f
}

// Eval returns the fitted value at x; beyond the domain the spline is
// extended by its end values (so it stays non-increasing and bounded), and
// with Clamp the value is limited to [0, 1].
func (s *Monotone) Eval(x float64) float64 {
	f := s.raw(x)
	if s.Clamp {
		f = math.Min(1, math.Max(0, f))
	}
	return f
}

// Integral returns ∫_a^b Eval(x) dx exactly (up to rounding): each knot
// interval is a cubic, integrated by two-point Gauss–Legendre quadrature
// (exact for cubics), and with Clamp the pieces are split at the points
// where the spline crosses 1 and 0. a > b gives the negated integral.
func (s *Monotone) Integral(a, b float64) float64 {
	if a > b {
		return -s.Integral(b, a)
	}
	total := 0.0
	// Constant extensions.
	if a < s.Lo {
		e := math.Min(b, s.Lo)
		total += (e - a) * s.Eval(s.Lo)
		a = e
	}
	if b > s.Hi {
		e := math.Max(a, s.Hi)
		total += (b - e) * s.Eval(s.Hi)
		b = e
	}
	if a >= b {
		return total
	}
	w := s.Hi - s.Lo
	nb := len(s.Coef)
	for left := order - 1; left < nb; left++ {
		l := math.Max(a, s.Lo+s.Knots[left]*w)
		r := math.Min(b, s.Lo+s.Knots[left+1]*w)
		if r <= l {
			continue
		}
		if !s.Clamp {
			total += gauss2(s.raw, l, r)
			continue
		}
		// Monotone on the piece: split where it crosses 1 and 0.
		cuts := []float64{l}
		for _, level := range []float64{1, 0} {
			if (s.raw(l)-level)*(s.raw(r)-level) < 0 {
				cuts = append(cuts, s.crossing(l, r, level))
			}
		}
		cuts = append(cuts, r)
		sort.Float64s(cuts)
		for i := 0; i+1 < len(cuts); i++ {
			p, q := cuts[i], cuts[i+1]
			if q <= p {
				continue
			}
			mid := s.raw((p + q) / 2)
			switch {
			case mid >= 1:
				total += q - p
			case mid <= 0:
			default:
				total += gauss2(s.raw, p, q)
			}
		}
	}
	return total
}

// crossing finds x in (l, r) with raw(x) = level for the monotone spline
// by bisection to machine precision.
func (s *Monotone) crossing(l, r, level float64) float64 {
	for range 200 {
		m := (l + r) / 2
		if m <= l || m >= r {
			break
		}
		if (s.raw(m) > level) != s.Increasing {
			l = m
		} else {
			r = m
		}
	}
	return (l + r) / 2
}

// gauss2 integrates a cubic exactly over [a, b].
func gauss2(f func(float64) float64, a, b float64) float64 {
	h := (b - a) / 2
	c := (a + b) / 2
	d := h / math.Sqrt(3)
	return h * (f(c-d) + f(c+d))
}
