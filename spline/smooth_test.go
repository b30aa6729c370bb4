package spline

import (
	"bufio"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// coxDeBoor is the textbook recursion B_{i,k}(x) (slow reference).
func coxDeBoor(t []float64, i, k int, x float64) float64 {
	if k == 1 {
		nb := len(t) - order
		// half-open intervals, except that the last non-empty interval is closed.
		if t[i] <= x && x < t[i+1] {
			return 1
		}
		if x == t[len(t)-1] && t[i] < t[i+1] && t[i+1] == t[len(t)-1] && i < nb+order-1 {
			return 1
		}
		return 0
	}
	v := 0.0
	if d := t[i+k-1] - t[i]; d != 0 {
		v += (x - t[i]) / d * coxDeBoor(t, i, k-1, x)
	}
	if d := t[i+k] - t[i+1]; d != 0 {
		v += (t[i+k] - x) / d * coxDeBoor(t, i+1, k-1, x)
	}
	return v
}

// coxDeBoorD2 is B″_{i,4}(x) from the derivative recursion applied twice.
func coxDeBoorD2(t []float64, i int, x float64) float64 {
	d1 := func(i, k int) float64 { // B'_{i,k}
		v := 0.0
		if d := t[i+k-1] - t[i]; d != 0 {
			v += float64(k-1) / d * coxDeBoor(t, i, k-1, x)
		}
		if d := t[i+k] - t[i+1]; d != 0 {
			v -= float64(k-1) / d * coxDeBoor(t, i+1, k-1, x)
		}
		return v
	}
	v := 0.0
	if d := t[i+3] - t[i]; d != 0 {
		v += 3 / d * d1(i, 3)
	}
	if d := t[i+4] - t[i+1]; d != 0 {
		v -= 3 / d * d1(i+1, 3)
	}
	return v
}

func testKnots() []float64 {
	return []float64{0, 0, 0, 0, 0.1, 0.15, 0.4, 0.41, 0.7, 1, 1, 1, 1}
}

func TestNKnots(t *testing.T) {
	for _, c := range []struct{ n, q int }{{4, 4}, {49, 49}, {50, 49}, {51, 50}, {74, 55}, {89, 59}, {200, 99}, {800, 140}, {3200, 200}} {
		if got := nKnots(c.n); got != c.q {
			t.Errorf("nKnots(%d) = %d, want %d", c.n, got, c.q)
		}
	}
}

func TestSeqPositions(t *testing.T) {
	// R truncates the double positions 1 + i·(n−1)/(q−1). Where that falls
	// below the exact rational position, R (and we) use the lower bin; list
	// such n in the range of the published files and check the rest exactly.
	var quirks []int
	for n := 4; n < 400; n++ {
		q := nKnots(n)
		for i, p := range seqPositions(n, q) {
			want := 1 + (i*(n-1))/(q-1)
			if int(p) != want {
				if want-int(p) != 1 {
					t.Fatalf("n=%d i=%d: %v vs exact %d", n, i, p, want)
				}
				if len(quirks) == 0 || quirks[len(quirks)-1] != n {
					quirks = append(quirks, n)
				}
			}
		}
	}
	t.Logf("n with a truncated knot position below the exact one: %v", quirks)
	// Within the published files' range (50…89) this affects K = 76 and 78.
	if len(quirks) < 2 || quirks[0] != 76 || quirks[1] != 78 {
		t.Fatalf("quirk list %v, want it to start 76, 78", quirks)
	}
}

func TestBasisPartitionAndCoxDeBoor(t *testing.T) {
	kn := testKnots()
	nb := len(kn) - order
	var b, d2 [order]float64
	for x := 0.0; x <= 1.0000001; x += 0.003 {
		x := math.Min(x, 1)
		left := findInterval(kn, x)
		basisAt(kn, left, x, &b, &d2)
		sum := 0.0
		for p := range b {
			sum += b[p]
			i := left - 3 + p
			if w := coxDeBoor(kn, i, 4, x); math.Abs(w-b[p]) > 1e-13 {
				t.Fatalf("x=%v B_%d = %v, Cox-de Boor %v", x, i, b[p], w)
			}
			if w := coxDeBoorD2(kn, i, x); math.Abs(w-d2[p]) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Fatalf("x=%v B''_%d = %v, recursion %v", x, i, d2[p], w)
			}
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Fatalf("partition of unity at %v: %v", x, sum)
		}
		for i := 0; i < nb; i++ {
			if i < left-3 || i > left {
				if w := coxDeBoor(kn, i, 4, x); w != 0 {
					t.Fatalf("x=%v: B_%d = %v outside the four", x, i, w)
				}
			}
		}
	}
}

func TestPenaltyQuadrature(t *testing.T) {
	kn := testKnots()
	nb := len(kn) - order
	// Gauss–Legendre 3-point per interval is exact for the quadratic B″B″.
	g := []float64{-math.Sqrt(0.6), 0, math.Sqrt(0.6)}
	gw := []float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
	want := make([][]float64, nb)
	for i := range want {
		want[i] = make([]float64, nb)
	}
	for k := 0; k+1 < len(kn); k++ {
		a, b := kn[k], kn[k+1]
		if b <= a {
			continue
		}
		for q := range g {
			x := (a+b)/2 + (b-a)/2*g[q]
			for i := 0; i < nb; i++ {
				for j := 0; j < nb; j++ {
					want[i][j] += (b - a) / 2 * gw[q] * coxDeBoorD2(kn, i, x) * coxDeBoorD2(kn, j, x)
				}
			}
		}
	}
	exact, r := newBand(nb), newBand(nb)
	penalty(exact, kn, 1.0/3)
	penalty(r, kn, 0.3330)
	maxDiffR := 0.0
	for i := 0; i < nb; i++ {
		for j := 0; j < nb; j++ {
			if d := math.Abs(exact.at(i, j) - want[i][j]); d > 1e-9*math.Max(1, math.Abs(want[i][j])) {
				t.Fatalf("Ω(%d,%d) = %v, quadrature %v", i, j, exact.at(i, j), want[i][j])
			}
			maxDiffR = math.Max(maxDiffR, math.Abs(r.at(i, j)-want[i][j])/math.Max(1, math.Abs(want[i][j])))
		}
	}
	// R's 0.3330 differs from 1/3 by 3.3e-4 in the δδ term: visible, and
	// small relative to the largest entries.
	if maxDiffR < 1e-6 || maxDiffR > 0.05 {
		t.Fatalf("0.3330 variant differs from exact by %v, want between 1e-6 and 1e-3", maxDiffR)
	}
}

// randomData returns K distinct sorted x in [0, 2] and noisy y.
func randomData(k int, seed uint64) (x, y, w []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x = make([]float64, k)
	y = make([]float64, k)
	w = make([]float64, k)
	for i := range x {
		x[i] = 2 * (float64(i) + 0.8*rng.Float64()) / float64(k)
		y[i] = math.Sin(3*x[i]) + 0.2*rng.NormFloat64()
		w[i] = 0.5 + rng.Float64()*3
	}
	return x, y, w
}

// denseFit builds the dense design X, W, Ω of a fitted Smooth.
func denseHat(s *Smooth, lambda float64, c3 float64) *mat.Dense {
	k, nb := len(s.X), len(s.Coef)
	X := mat.NewDense(k, nb, nil)
	var b [order]float64
	for i := range s.X {
		xs := (s.X[i] - s.min) / s.rng
		left := findInterval(s.Knots, xs)
		for p := 0; p < nb; p++ {
			X.Set(i, p, coxDeBoor(s.Knots, p, 4, xs))
		}
		basisAt(s.Knots, left, xs, &b, nil)
	}
	om := newBand(nb)
	penalty(om, s.Knots, c3)
	A := mat.NewDense(nb, nb, nil)
	W := mat.NewDiagDense(k, s.W)
	var xtw mat.Dense
	xtw.Mul(X.T(), W)
	A.Mul(&xtw, X)
	for i := 0; i < nb; i++ {
		for j := 0; j < nb; j++ {
			A.Set(i, j, A.At(i, j)+lambda*om.at(i, j))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(A); err != nil {
		panic(err)
	}
	var t1, H mat.Dense
	t1.Mul(X, &inv)
	H.Mul(&t1, &xtw)
	return &H
}

func TestLeveragesMatchDenseHat(t *testing.T) {
	for _, k := range []int{12, 60} {
		x, y, w := randomData(k, uint64(k))
		s, err := FitSmooth(x, y, w, SmoothOptions{})
		if err != nil {
			t.Fatal(err)
		}
		H := denseHat(s, s.Lambda, 0.3330)
		for i := 0; i < len(s.X); i++ {
			if d := math.Abs(H.At(i, i) - s.Lev[i]); d > 1e-9 {
				t.Fatalf("K=%d lev[%d] = %v, dense hat %v", k, i, s.Lev[i], H.At(i, i))
			}
			f := 0.0
			for j := range s.Y {
				f += H.At(i, j) * s.Y[j]
			}
			if d := math.Abs(f - s.Fitted[i]); d > 1e-9 {
				t.Fatalf("K=%d fitted[%d] = %v, dense %v", k, i, s.Fitted[i], f)
			}
		}
		t.Logf("K=%d: spar %.6f λ %.4g df %.3f cv %.6g iter %d", k, s.Spar, s.Lambda, s.DF, s.Crit, s.Iter)
	}
}

func TestCVShortcutEqualsLeaveOneOut(t *testing.T) {
	for _, k := range []int{15, 70} {
		x, y, w := randomData(k, 7+uint64(k))
		s, err := FitSmooth(x, y, w, SmoothOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Leave one out = give the point weight 0, keeping knots and the
		// other weights; the shortcut (y−ŷ)/(1−lev) must equal y − ŷ₋ₖ.
		xs := make([]float64, len(s.X))
		for i := range xs {
			xs[i] = (s.X[i] - s.min) / s.rng
		}
		cv := 0.0
		maxd := 0.0
		for i := range xs {
			w2 := append([]float64(nil), s.W...)
			w2[i] = 0
			sw := newSmoothWork(xs, s.Y, w2, 0.3330)
			if _, err := sw.solve(s.Lambda, CV); err != nil {
				t.Fatal(err)
			}
			loo := s.Y[i] - sw.fit[i]
			short := (s.Y[i] - s.Fitted[i]) / (1 - s.Lev[i])
			maxd = math.Max(maxd, math.Abs(loo-short))
			cv += s.W[i] * loo * loo
		}
		cv /= float64(len(xs))
		if maxd > 1e-9 || math.Abs(cv-s.Crit) > 1e-9*s.Crit {
			t.Fatalf("K=%d: LOO residual differs by %v; brute-force CV %v vs %v", k, maxd, cv, s.Crit)
		}
		t.Logf("K=%d: brute-force LOO CV %.10g, shortcut %.10g", k, cv, s.Crit)
	}
}

func TestStraightLineAnyLambda(t *testing.T) {
	x, _, w := randomData(64, 3)
	y := make([]float64, len(x))
	for i := range x {
		y[i] = 0.3 - 1.7*x[i]
	}
	for _, spar := range []float64{-1.5, 0, 0.7, 1.5} {
		s, err := FitSmooth(x, y, w, SmoothOptions{Spar: &spar})
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.X {
			if d := math.Abs(s.Fitted[i] - y[i]); d > 1e-7 {
				t.Fatalf("spar %v: fitted[%d] off the line by %v", spar, i, d)
			}
		}
		if v := s.Predict(3); math.Abs(v-(0.3-1.7*3)) > 1e-6 {
			t.Fatalf("extrapolation %v, want %v", v, 0.3-1.7*3)
		}
	}
}

func TestLambdaLimits(t *testing.T) {
	x, y, w := randomData(30, 11) // K < 50: every x is a knot
	tiny := 1e-12
	s, err := FitSmooth(x, y, w, SmoothOptions{Lambda: &tiny})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.X {
		if d := math.Abs(s.Fitted[i] - s.Y[i]); d > 1e-6 {
			t.Fatalf("λ→0 should interpolate: residual %v at %d", d, i)
		}
	}
	// λ large relative to R's trace ratio (λ·Ω ≫ XᵀWX) but not so large
	// that the 2-dimensional null space of Ω is lost to rounding.
	huge := 1e9 * s.Ratio
	s, err = FitSmooth(x, y, w, SmoothOptions{Lambda: &huge})
	if err != nil {
		t.Fatal(err)
	}
	// Weighted least-squares line.
	sw, swx, swy, swxx, swxy := 0.0, 0.0, 0.0, 0.0, 0.0
	for i := range s.X {
		sw += s.W[i]
		swx += s.W[i] * s.X[i]
		swy += s.W[i] * s.Y[i]
		swxx += s.W[i] * s.X[i] * s.X[i]
		swxy += s.W[i] * s.X[i] * s.Y[i]
	}
	b := (sw*swxy - swx*swy) / (sw*swxx - swx*swx)
	a := (swy - b*swx) / sw
	for i := range s.X {
		if d := math.Abs(s.Fitted[i] - (a + b*s.X[i])); d > 1e-5 {
			t.Fatalf("λ→∞ should give the WLS line: off by %v at %d", d, i)
		}
	}
	if math.Abs(s.DF-2) > 1e-4 {
		t.Fatalf("λ→∞ df = %v, want 2", s.DF)
	}
}

func TestSmoothErrors(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4}
	y := []float64{1, 2, 1, 2, 1}
	cases := []struct {
		x, y, w []float64
		want    error
	}{
		{x, y[:4], nil, ErrLength},
		{x, []float64{1, math.NaN(), 1, 1, 1}, nil, ErrNaN},
		{x, y, []float64{1, 1, -1, 1, 1}, ErrWeight},
		{x, y, []float64{0, 0, 0, 0, 0}, ErrWeight},
		{[]float64{0, 1, 1, 2, 2}, y, nil, ErrTooFew},
	}
	for i, c := range cases {
		if _, err := FitSmooth(c.x, c.y, c.w, SmoothOptions{}); !errors.Is(err, c.want) {
			t.Errorf("case %d: err %v, want %v", i, err, c.want)
		}
	}
}

func TestTiesGroupedAsR(t *testing.T) {
	x, y, w := randomData(20, 5)
	// Duplicate point 4 with a different y: grouped fit = fit on the
	// weighted mean with the summed weight.
	x2 := append(append([]float64(nil), x...), x[4])
	y2 := append(append([]float64(nil), y...), y[4]+1)
	w2 := append(append([]float64(nil), w...), w[4])
	spar := 0.5
	a, err := FitSmooth(x2, y2, w2, SmoothOptions{Spar: &spar})
	if err != nil {
		t.Fatal(err)
	}
	y3 := append([]float64(nil), y...)
	w3 := append([]float64(nil), w...)
	y3[4] += 0.5
	w3[4] *= 2
	b, err := FitSmooth(x, y3, w3, SmoothOptions{Spar: &spar})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.X) != 20 {
		t.Fatalf("ties not grouped: %d distinct", len(a.X))
	}
	// Weights are normalised by the number of positive weights (21 vs 20),
	// a common factor that λ = r·256^(3·spar−1) absorbs (r scales with it),
	// so the fits agree.
	for i := range a.X {
		if math.Abs(a.Y[i]-b.Y[i]) > 1e-12 || math.Abs(a.Fitted[i]-b.Fitted[i]) > 1e-9 {
			t.Fatalf("grouped point %d: y %v fit %v, want y %v fit %v", i, a.Y[i], a.Fitted[i], b.Y[i], b.Fitted[i])
		}
	}
}

type binFile struct {
	x, y, n []float64
}

func readBins(t testing.TB, path string) binFile {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b binFile
	sc := bufio.NewScanner(f)
	sc.Scan()
	for sc.Scan() {
		fs := strings.Split(strings.TrimSpace(sc.Text()), ",")
		v := make([]float64, 3)
		for i := range v {
			if v[i], err = strconv.ParseFloat(fs[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		b.x, b.y, b.n = append(b.x, v[0]), append(b.y, v[1]), append(b.n, v[2])
	}
	return b
}

// TestHumanData fits every published per-bin file as estimate_range.R does
// (CIFAR-10 weighted by n/min n, ImageNet and subsets unweighted) and checks
// R's knot count, that Brent's spar is a local minimum of the CV criterion,
// and the last-evaluation quirk.
func TestHumanData(t *testing.T) {
	files, _ := filepath.Glob("testdata/icse2022/*/*.csv")
	more, _ := filepath.Glob("testdata/icse2022/sixty_percent/*/*.csv")
	files = append(files, more...)
	if len(files) != 56 {
		t.Fatalf("found %d per-bin files, want 56", len(files))
	}
	for _, p := range files {
		b := readBins(t, p)
		var w []float64
		if strings.Contains(p, "cifar10") {
			mn := math.Inf(1)
			for _, v := range b.n {
				mn = math.Min(mn, v)
			}
			w = make([]float64, len(b.n))
			for i, v := range b.n {
				w[i] = v / mn
			}
		}
		s, err := FitSmooth(b.x, b.y, w, SmoothOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got, want := len(s.Knots)-6, nKnots(len(b.x)); got != want {
			t.Fatalf("%s: %d inner knots, want %d", p, got, want)
		}
		if s.Iter >= 500 || s.DF < 2-1e-9 || s.DF > float64(len(s.Coef)) {
			t.Fatalf("%s: iter %d df %v", p, s.Iter, s.DF)
		}
		// The reported fit is the last evaluation: its spar is within ~tol1 of Spar.
		lastSpar := (math.Log(s.Lambda/s.Ratio)/math.Log(16) + 2) / 6
		if d := math.Abs(lastSpar - s.Spar); d > 2*(2e-8*math.Abs(s.Spar)+1e-4/3) {
			t.Fatalf("%s: last spar %v vs best %v", p, lastSpar, s.Spar)
		}
		crit := func(spar float64) float64 {
			r, err := FitSmooth(b.x, b.y, w, SmoothOptions{Spar: &spar})
			if err != nil {
				t.Fatal(err)
			}
			return r.Crit
		}
		c0 := crit(s.Spar)
		if s.Spar > -1.49 && s.Spar < 1.49 {
			if crit(s.Spar-0.01) < c0 || crit(s.Spar+0.01) < c0 {
				t.Fatalf("%s: spar %v is not a local minimum of CV", p, s.Spar)
			}
		}
		lo, hi := s.Band(Z83)
		for i := range lo {
			if !(lo[i] <= s.Fitted[i] && s.Fitted[i] <= hi[i]) {
				t.Fatalf("%s: band does not contain the fit", p)
			}
		}
		t.Logf("%-60s K=%2d q=%2d spar=%.6f λ=%.6g df=%.4f cv=%.6g iter=%d", strings.TrimPrefix(p, "testdata/icse2022/"), len(b.x), len(s.Knots)-6, s.Spar, s.Lambda, s.DF, s.Crit, s.Iter)
	}
}

func BenchmarkFitSmooth80(b *testing.B) {
	x, y, w := randomData(80, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitSmooth(x, y, w, SmoothOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSmoothEdgeSizes(t *testing.T) {
	for _, k := range []int{4, 5, 7, 49, 50, 51, 300, 3300} {
		x, y, w := randomData(k, uint64(k))
		s, err := FitSmooth(x, y, w, SmoothOptions{})
		if err != nil {
			t.Fatalf("K=%d: %v", k, err)
		}
		if len(s.Coef) != nKnots(k)+2 || math.IsNaN(s.Crit) || s.DF < 2-1e-6 || s.DF > float64(len(s.Coef))+1e-6 {
			t.Fatalf("K=%d: nb %d crit %v df %v", k, len(s.Coef), s.Crit, s.DF)
		}
		for _, v := range s.Fitted {
			if math.IsNaN(v) {
				t.Fatalf("K=%d: NaN fit", k)
			}
		}
	}
	// Constant y: CV is 0 at every spar; the fit is the constant.
	x, _, _ := randomData(20, 1)
	y := make([]float64, len(x))
	for i := range y {
		y[i] = 0.7
	}
	s, err := FitSmooth(x, y, nil, SmoothOptions{Criterion: GCV})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range s.Fitted {
		if math.Abs(v-0.7) > 1e-9 {
			t.Fatalf("constant data fitted %v", v)
		}
	}
}

// TestCarsMatchesR reproduces the output R prints for the example of
// ?smooth.spline, with(cars, smooth.spline(speed, dist)) (GCV; 50 points with
// ties, 19 distinct speeds): "spar= 0.7801305 lambda= 0.1112206 (11
// iterations)", "Equivalent Degrees of Freedom (Df): 2.635278",
// "Penalized Criterion (RSS): 4187.776", "GCV: 244.1044". The data are R's
// datasets::cars (Ezekiel, 1930). The printed values are R's well-known
// help-page output, written down from the R documentation example, not
// re-run here (no R on this machine).
func TestCarsMatchesR(t *testing.T) {
	speed := []float64{4, 4, 7, 7, 8, 9, 10, 10, 10, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 16, 16, 17, 17, 17, 18, 18, 18, 18, 19, 19, 19, 20, 20, 20, 20, 20, 22, 23, 24, 24, 24, 24, 25}
	dist := []float64{2, 10, 4, 22, 16, 10, 18, 26, 34, 17, 28, 14, 20, 24, 28, 26, 34, 34, 46, 26, 36, 60, 80, 20, 26, 54, 32, 40, 32, 40, 50, 42, 56, 76, 84, 36, 46, 68, 32, 48, 52, 56, 64, 66, 54, 70, 92, 93, 120, 85}
	s, err := FitSmooth(speed, dist, nil, SmoothOptions{Criterion: GCV})
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want, ulp float64) {
		if math.Abs(got-want) > ulp/2*1.0000001 {
			t.Errorf("%s = %.10g, R prints %v", name, got, want)
		}
	}
	near("spar", s.Spar, 0.7801305, 1e-7)
	near("lambda", s.Lambda, 0.1112206, 1e-7)
	near("df", s.DF, 2.635278, 1e-6)
	near("RSS", s.RSS, 4187.776, 1e-3)
	near("GCV", s.Crit, 244.1044, 1e-4)
	if s.Iter != 11 || len(s.X) != 19 {
		t.Errorf("iterations %d (R: 11), distinct x %d (19)", s.Iter, len(s.X))
	}
	t.Logf("spar %.7f λ %.7f df %.6f RSS %.3f GCV %.4f iter %d", s.Spar, s.Lambda, s.DF, s.RSS, s.Crit, s.Iter)
}
