package spline

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// binned simulates VCR-style data: m bins on [0, 1] (bin centres), n trials
// per bin spread at random, Bernoulli outcomes with success probability f.
func binned(f func(float64) float64, m, trials int, seed uint64) (x, y, w []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	for j := 0; j < m; j++ {
		c := (float64(j) + 0.5) / float64(m)
		k := trials/2 + rng.IntN(trials+1)
		if k == 0 {
			continue
		}
		hit := 0
		for range k {
			if rng.Float64() < f(c) {
				hit++
			}
		}
		x = append(x, c)
		y = append(y, float64(hit)/float64(k))
		w = append(w, float64(k))
	}
	return x, y, w
}

func logistic(v float64) float64 { return 0.95 - 0.85/(1+math.Exp(-(v-0.55)*12)) }

func checkNonIncreasing(t *testing.T, s *Monotone) {
	t.Helper()
	for j := 1; j < len(s.Coef); j++ {
		if s.Coef[j] > s.Coef[j-1] {
			t.Fatalf("coefficient %d increases: %v > %v", j, s.Coef[j], s.Coef[j-1])
		}
	}
	prev := math.Inf(1)
	for i := 0; i <= 4000; i++ {
		v := s.Eval(s.Lo - 0.1 + (s.Hi-s.Lo+0.2)*float64(i)/4000)
		if v > prev+1e-13 {
			t.Fatalf("Eval increases at grid point %d: %v > %v", i, v, prev)
		}
		prev = v
	}
}

func rmse(s *Monotone, f func(float64) float64) float64 {
	e := 0.0
	for i := 0; i <= 200; i++ {
		v := float64(i) / 200
		d := s.Eval(v) - f(v)
		e += d * d
	}
	return math.Sqrt(e / 201)
}

func TestMonotoneErrorShrinksWithN(t *testing.T) {
	for _, f := range []struct {
		name string
		f    func(float64) float64
	}{{"1-x²", func(v float64) float64 { return 1 - v*v }}, {"logistic", logistic}} {
		var errs []float64
		for _, trials := range []int{20, 200, 2000} {
			e := 0.0
			const reps = 5
			for r := range reps {
				x, y, w := binned(f.f, 40, trials, uint64(100*trials+r))
				s, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}})
				if err != nil {
					t.Fatal(err)
				}
				checkNonIncreasing(t, s)
				e += rmse(s, f.f) / reps
			}
			errs = append(errs, e)
		}
		t.Logf("%s: RMSE at 20/200/2000 trials per bin: %.4f %.4f %.4f", f.name, errs[0], errs[1], errs[2])
		if !(errs[1] < errs[0] && errs[2] < errs[1]) || errs[2] > 0.02 {
			t.Fatalf("%s: error does not shrink: %v", f.name, errs)
		}
	}
}

func TestMonotoneAnchorExact(t *testing.T) {
	x, y, w := binned(logistic, 40, 50, 9)
	a := 0.987
	s, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &a})
	if err != nil {
		t.Fatal(err)
	}
	if s.Eval(0) != a {
		t.Fatalf("anchor: f(0) = %v, want %v", s.Eval(0), a)
	}
	checkNonIncreasing(t, s)
	// An anchor below the data forces a flat start but stays exact.
	low := 0.5
	s, err = FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &low})
	if err != nil {
		t.Fatal(err)
	}
	if s.Eval(0) != low {
		t.Fatalf("low anchor: f(0) = %v", s.Eval(0))
	}
	checkNonIncreasing(t, s)
}

// TestMonotoneIntegralExact compares Integral with a fine composite
// Simpson rule (Simpson is exact on each cubic piece when its nodes
// include the knots).
func TestMonotoneIntegralExact(t *testing.T) {
	x, y, w := binned(logistic, 40, 100, 4)
	s, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	simpson := func(f func(float64) float64, a, b float64, n int) float64 {
		h := (b - a) / float64(n)
		v := f(a) + f(b)
		for i := 1; i < n; i++ {
			c := 2.0
			if i%2 == 1 {
				c = 4
			}
			v += c * f(a+float64(i)*h)
		}
		return v * h / 3
	}
	nseg := len(s.Coef) - 3
	want := simpson(s.Eval, 0, 1, 2*nseg*10)
	if got := s.Integral(0, 1); math.Abs(got-want) > 1e-13 {
		t.Fatalf("∫₀¹ = %.16f, Simpson %.16f", got, want)
	}
	// Partial ranges and reversed bounds.
	if got, want := s.Integral(0.13, 0.71), simpson(s.Eval, 0.13, 0.71, 20000); math.Abs(got-want) > 1e-9 {
		t.Fatalf("∫ 0.13..0.71 = %v, Simpson %v", got, want)
	}
	if got := s.Integral(0.7, 0.2) + s.Integral(0.2, 0.7); math.Abs(got) > 1e-15 {
		t.Fatalf("reversed bounds do not cancel: %v", got)
	}
	// A spline that is a known polynomial: fit exact cubic-free data
	// (a line) with a huge λ; ∫₀¹ (0.9 − 0.6x) = 0.6.
	lx := []float64{0, 0.2, 0.4, 0.6, 0.8, 1}
	ly := make([]float64, len(lx))
	for i, v := range lx {
		ly[i] = 0.9 - 0.6*v
	}
	lam := 1e3
	s, err = FitMonotone(lx, ly, nil, MonotoneOptions{Lambda: &lam})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Integral(0, 1); math.Abs(got-0.6) > 1e-12 {
		t.Fatalf("∫ line = %.16f, want 0.6", got)
	}
}

func TestMonotoneClamp(t *testing.T) {
	// A line from 1.3 to −0.3 clamped to [0, 1]: ∫₀¹ = area of the clamped
	// line = 0.5 (symmetric about 0.5), crossings at 0.1875 and 0.8125.
	x := []float64{0, 0.25, 0.5, 0.75, 1}
	y := []float64{1.3, 0.9, 0.5, 0.1, -0.3}
	lam := 0.0
	s, err := FitMonotone(x, y, nil, MonotoneOptions{Lambda: &lam, Clamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Eval(0) != 1 || s.Eval(1) != 0 || math.Abs(s.Eval(0.5)-0.5) > 1e-12 {
		t.Fatalf("clamped values %v %v %v", s.Eval(0), s.Eval(0.5), s.Eval(1))
	}
	// exact: 0.1875·1 + ∫_{0.1875}^{0.8125}(1.3 − 1.6x) = 0.1875 + 0.3125 = 0.5
	if got := s.Integral(0, 1); math.Abs(got-0.5) > 1e-12 {
		t.Fatalf("clamped integral %.16f, want 0.5", got)
	}
	if got := s.Integral(0, 0.5); math.Abs(got-(0.1875+(1.3*0.3125-0.8*(0.25-0.1875*0.1875)))) > 1e-12 {
		t.Fatalf("clamped partial integral %.16f", got)
	}
}

func TestMonotoneWeights(t *testing.T) {
	// Two clusters disagree; the heavier one wins at its x.
	x := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	y := []float64{1, 1, 0.9, 0.9, 0.8, 0.2, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3}
	lam := 1e-4
	heavy := func(i int) []float64 {
		w := make([]float64, len(x))
		for k := range w {
			w[k] = 1
		}
		w[i] = 1000
		return w
	}
	a, err := FitMonotone(x, y, heavy(5), MonotoneOptions{Lambda: &lam})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitMonotone(x, y, heavy(6), MonotoneOptions{Lambda: &lam})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(a.Eval(0.5)-0.2) < 0.05 && math.Abs(b.Eval(0.5)-0.8) < 0.05) {
		t.Fatalf("weights ignored: f(0.5) = %v (heavy 0.2), %v (heavy 0.8)", a.Eval(0.5), b.Eval(0.5))
	}
	// Zero weight = point absent.
	w0 := heavy(0)
	w0[0] = 1
	w0[5] = 0
	c, err := FitMonotone(x, y, w0, MonotoneOptions{Lambda: &lam})
	if err != nil {
		t.Fatal(err)
	}
	x2 := append(append([]float64(nil), x[:5]...), x[6:]...)
	y2 := append(append([]float64(nil), y[:5]...), y[6:]...)
	d, err := FitMonotone(x2, y2, nil, MonotoneOptions{Lambda: &lam, Segments: len(c.Coef) - 3, Domain: [2]float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Coef {
		if math.Abs(c.Coef[i]-d.Coef[i]) > 1e-9 {
			t.Fatalf("zero weight differs from removal: %v vs %v", c.Coef, d.Coef)
		}
	}
}

func TestMonotoneGCVSensible(t *testing.T) {
	x, y, w := binned(logistic, 40, 100, 21)
	s, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	// Chosen λ beats both extremes and lies strictly between them in df.
	for _, lam := range []float64{s.Lambda * 1e-4, s.Lambda * 1e4} {
		o, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}, Lambda: &lam})
		if err != nil {
			t.Fatal(err)
		}
		if o.GCV < s.GCV {
			t.Fatalf("GCV at λ=%g (%v) below the chosen one (%v)", lam, o.GCV, s.GCV)
		}
	}
	if !(s.DF > 2.5 && s.DF < float64(len(s.Coef))) {
		t.Fatalf("df %v not between the extremes", s.DF)
	}
	t.Logf("GCV: λ=%.4g df=%.2f gcv=%.4g rmse=%.4f", s.Lambda, s.DF, s.GCV, rmse(s, logistic))
}

// TestMonotoneGCVNearGlobal compares the grid + Brent choice with a fine
// scan of log λ (step 0.05 decades) on several simulated data sets.
func TestMonotoneGCVNearGlobal(t *testing.T) {
	worst := 0.0
	for seed := range uint64(12) {
		f := logistic
		if seed%2 == 1 {
			f = func(v float64) float64 { return 1 - v*v }
		}
		x, y, w := binned(f, 40, 20+int(seed)*30, 50+seed)
		a := f(0)
		opt := MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &a}
		s, err := FitMonotone(x, y, w, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := s.Lambda
		best := math.Inf(1)
		for rho := -8.0; rho <= 8; rho += 0.05 {
			lam := r * math.Pow(10, rho)
			o := opt
			o.Lambda = &lam
			g, err := FitMonotone(x, y, w, o)
			if err != nil {
				t.Fatal(err)
			}
			best = math.Min(best, g.GCV)
		}
		rel := (s.GCV - best) / best
		worst = math.Max(worst, rel)
		if rel > 0.01 {
			t.Errorf("seed %d: GCV %v, fine-scan minimum %v", seed, s.GCV, best)
		}
	}
	t.Logf("worst relative GCV excess over a fine scan: %.2e", worst)
}

// TestMonotoneDFDense checks the df of an unconstrained-active fit against
// the trace of the dense hat matrix of the same linear smoother.
func TestMonotoneMatchesUnconstrainedWhenInactive(t *testing.T) {
	// Strongly decreasing data: no constraint binds, so the fit equals the
	// ordinary penalised fit on the same basis.
	x := make([]float64, 30)
	y := make([]float64, 30)
	for i := range x {
		x[i] = float64(i) / 29
		y[i] = 1 - 0.8*x[i] + 0.01*math.Sin(7*float64(i))
	}
	lam := 1e-3
	s, err := FitMonotone(x, y, nil, MonotoneOptions{Lambda: &lam})
	if err != nil {
		t.Fatal(err)
	}
	nb := len(s.Coef)
	xwx, om := newBand(nb), newBand(nb)
	penalty(om, s.Knots, 1.0/3)
	xwy := make([]float64, nb)
	var b [order]float64
	for i := range x {
		left := findInterval(s.Knots, x[i])
		basisAt(s.Knots, left, x[i], &b, nil)
		for p := 0; p < order; p++ {
			xwy[left-3+p] += y[i] * b[p]
			for q := p; q < order; q++ {
				xwx.d[q-p][left-3+p] += b[p] * b[q]
			}
		}
	}
	a, l := newBand(nb), newBand(nb)
	for k := range a.d {
		for j := range a.d[k] {
			a.d[k][j] = xwx.d[k][j] + lam*om.d[k][j]
		}
	}
	if !cholesky(l, a) {
		t.Fatal("not PD")
	}
	l.solve(xwy)
	for i := range xwy {
		if math.Abs(xwy[i]-s.Coef[i]) > 1e-9 {
			t.Fatalf("coef %d: %v vs unconstrained %v", i, s.Coef[i], xwy[i])
		}
	}
	// df = Σ lev of the unconstrained smoother.
	inv := newBand(nb)
	l.inverseBand(inv)
	df := 0.0
	for i := range x {
		left := findInterval(s.Knots, x[i])
		basisAt(s.Knots, left, x[i], &b, nil)
		for p := 0; p < order; p++ {
			for q := 0; q < order; q++ {
				df += b[p] * b[q] * inv.at(left-3+p, left-3+q)
			}
		}
	}
	if math.Abs(df-s.DF) > 1e-9 {
		t.Fatalf("df %v, unconstrained trace %v", s.DF, df)
	}
}

// TestMonotoneKKT checks optimality of a binding fit against a brute-force
// comparison: no feasible perturbation of the coefficients lowers the
// objective.
func TestMonotoneKKT(t *testing.T) {
	x, y, w := binned(func(v float64) float64 { return 0.8 }, 40, 30, 5) // flat truth: constraints bind
	lam := 1e-3
	s, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}, Lambda: &lam})
	if err != nil {
		t.Fatal(err)
	}
	nb := len(s.Coef)
	om := newBand(nb)
	penalty(om, s.Knots, 1.0/3)
	sw := 0.0
	for _, v := range w {
		sw += v
	}
	obj := func(c []float64) float64 {
		v := 0.0
		var b [order]float64
		for i := range x {
			left := findInterval(s.Knots, x[i])
			basisAt(s.Knots, left, x[i], &b, nil)
			f := 0.0
			for p := range b {
				f += b[p] * c[left-3+p]
			}
			v += w[i] * float64(len(x)) / sw * (y[i] - f) * (y[i] - f)
		}
		for i := 0; i < nb; i++ {
			for j := 0; j < nb; j++ {
				v += lam * c[i] * om.at(i, j) * c[j]
			}
		}
		return v
	}
	f0 := obj(s.Coef)
	rng := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		c := append([]float64(nil), s.Coef...)
		for i := range c {
			c[i] += 1e-3 * rng.NormFloat64()
		}
		// project to non-increasing by a running minimum (keeps feasibility)
		for i := 1; i < nb; i++ {
			c[i] = math.Min(c[i], c[i-1])
		}
		if f := obj(c); f < f0-1e-12 {
			t.Fatalf("feasible perturbation lowers the objective: %v < %v", f, f0)
		}
	}
}

func TestMonotoneRobustness(t *testing.T) {
	// Constant data.
	x := []float64{0.1, 0.3, 0.5, 0.7, 0.9}
	y := []float64{0.6, 0.6, 0.6, 0.6, 0.6}
	s, err := FitMonotone(x, y, nil, MonotoneOptions{Domain: [2]float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{0, 0.5, 1} {
		if math.Abs(s.Eval(v)-0.6) > 1e-9 {
			t.Fatalf("constant data: f(%v) = %v", v, s.Eval(v))
		}
	}
	// Increasing data: best non-increasing fit is the (weighted) mean.
	yi := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
	s, err = FitMonotone(x, yi, nil, MonotoneOptions{Domain: [2]float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	checkNonIncreasing(t, s)
	if math.Abs(s.Eval(0.5)-0.3) > 1e-6 || math.Abs(s.Eval(0)-s.Eval(1)) > 1e-6 {
		t.Fatalf("increasing data: f = %v..%v, want flat 0.3", s.Eval(0), s.Eval(1))
	}
	// Two distinct x.
	s, err = FitMonotone([]float64{0, 0, 1, 1}, []float64{0.9, 0.8, 0.2, 0.3}, nil, MonotoneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Eval(0)-0.85) > 1e-6 || math.Abs(s.Eval(1)-0.25) > 1e-6 {
		t.Fatalf("two x: %v %v", s.Eval(0), s.Eval(1))
	}
	// One x plus anchor.
	a := 1.0
	s, err = FitMonotone([]float64{0.5}, []float64{0.4}, nil, MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &a})
	if err != nil {
		t.Fatal(err)
	}
	if s.Eval(0) != 1 || math.Abs(s.Eval(0.5)-0.4) > 1e-6 {
		t.Fatalf("anchor + one point: %v %v", s.Eval(0), s.Eval(0.5))
	}
	// Heavy noise.
	rng := rand.New(rand.NewPCG(3, 3))
	xn := make([]float64, 40)
	yn := make([]float64, 40)
	for i := range xn {
		xn[i] = (float64(i) + 0.5) / 40
		yn[i] = 1 - xn[i] + 2*rng.NormFloat64()
	}
	s, err = FitMonotone(xn, yn, nil, MonotoneOptions{Domain: [2]float64{0, 1}, Clamp: true})
	if err != nil {
		t.Fatal(err)
	}
	checkNonIncreasing(t, s)
	if v := s.Integral(0, 1); !(v >= 0 && v <= 1) {
		t.Fatalf("clamped integral %v outside [0, 1]", v)
	}
	// Errors.
	nan := math.NaN()
	for i, c := range []struct {
		x, y, w []float64
		opt     MonotoneOptions
		want    error
	}{
		{[]float64{0, 1}, []float64{1}, nil, MonotoneOptions{}, ErrLength},
		{[]float64{0, 1}, []float64{1, nan}, nil, MonotoneOptions{}, ErrNaN},
		{[]float64{0, 1}, []float64{1, 0}, []float64{1, -1}, MonotoneOptions{}, ErrWeight},
		{[]float64{0.5, 0.5}, []float64{1, 0}, nil, MonotoneOptions{Domain: [2]float64{0, 1}}, ErrTooFew},
		{nil, nil, nil, MonotoneOptions{}, ErrTooFew},
	} {
		if _, err := FitMonotone(c.x, c.y, c.w, c.opt); !errors.Is(err, c.want) {
			t.Errorf("error case %d: %v, want %v", i, err, c.want)
		}
	}
	if _, err := FitMonotone([]float64{0, 2}, []float64{1, 0}, nil, MonotoneOptions{Domain: [2]float64{0, 1}}); err == nil {
		t.Error("x outside the domain accepted")
	}
}

func BenchmarkFitMonotone40(b *testing.B) {
	x, y, w := binned(logistic, 40, 100, 1)
	a := 0.97
	opt := MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &a, Clamp: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitMonotone(x, y, w, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMonotoneIncreasingMirror(t *testing.T) {
	x, y, w := binned(logistic, 40, 80, 77)
	a := 0.97
	dec, err := FitMonotone(x, y, w, MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &a})
	if err != nil {
		t.Fatal(err)
	}
	ny := make([]float64, len(y))
	for i := range y {
		ny[i] = 1 - y[i] // increasing, in [0, 1]
	}
	na := 1 - a
	inc, err := FitMonotone(x, ny, w, MonotoneOptions{Domain: [2]float64{0, 1}, Anchor: &na, Increasing: true, Clamp: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 100; i++ {
		v := float64(i) / 100
		if d := math.Abs(inc.Eval(v) - (1 - dec.Eval(v))); d > 1e-9 {
			t.Fatalf("mirror differs at %v by %v", v, d)
		}
		if i > 0 && inc.Eval(v) < inc.Eval(v-0.01)-1e-13 {
			t.Fatalf("increasing fit decreases at %v", v)
		}
	}
	if d := math.Abs(inc.Integral(0, 1) - (1 - dec.Integral(0, 1))); d > 1e-9 {
		t.Fatalf("mirror integrals differ by %v", d)
	}
	// Clamped crossing for an increasing line from −0.3 to 1.3: ∫₀¹ = 0.5.
	lx := []float64{0, 0.25, 0.5, 0.75, 1}
	ly := []float64{-0.3, 0.1, 0.5, 0.9, 1.3}
	lam := 0.0
	s, err := FitMonotone(lx, ly, nil, MonotoneOptions{Lambda: &lam, Clamp: true, Increasing: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Integral(0, 1); math.Abs(got-0.5) > 1e-12 {
		t.Fatalf("clamped increasing integral %v, want 0.5", got)
	}
	if got := s.Integral(0, 0.5); math.Abs(got-0.078125) > 1e-12 {
		t.Fatalf("clamped increasing partial integral %v, want 0.078125", got)
	}
}
