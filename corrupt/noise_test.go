package corrupt

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// flat returns a w×h image with every sample equal to v.
func flat(w, h int, v float32) *imageio.Image {
	m := imageio.New(w, h)
	for c := range 3 {
		for i := range m.Ch[c] {
			m.Ch[c][i] = v
		}
	}
	return m
}

// binomialOK reports whether k successes in n trials are within 5 standard
// deviations of probability p (plus a small absolute slack for tiny p).
func binomialOK(k, n int, p float64) bool {
	sd := math.Sqrt(float64(n) * p * (1 - p))
	return math.Abs(float64(k)-float64(n)*p) <= 5*sd+3
}

func TestZigguratNormal(t *testing.T) {
	const n = 1 << 21
	r := noiseRand{12345}
	z := make([]float32, noiseChunk)
	var rej [noiseChunk]uint64
	var sum, sum2, sum4 float64
	// Two-sided tail probabilities P(|Z| > a) = erfc(a/√2); 3.7 and 4 lie in the
	// ziggurat's tail region (beyond 3.6542), so the slow path is exercised.
	tails := []float64{0.5, 1, 2, 3, 3.5, 3.7, 4}
	counts := make([]int, len(tails))
	for done := 0; done < n; done += len(z) {
		noiseNormals(z, &rej, &r)
		for _, v := range z {
			x := float64(v)
			sum += x
			sum2 += x * x
			sum4 += x * x * x * x
			for i, a := range tails {
				if math.Abs(x) > a {
					counts[i]++
				}
			}
		}
	}
	mean, variance, kurt := sum/n, sum2/n, sum4/n
	if math.Abs(mean) > 5/math.Sqrt(n) {
		t.Errorf("mean %v, want 0 ± %v", mean, 5/math.Sqrt(n))
	}
	// sd of the sample variance is √(2/n) ≈ 0.001.
	if math.Abs(variance-1) > 0.005 {
		t.Errorf("variance %v, want 1", variance)
	}
	// E[Z⁴] = 3, sd √(96/n) ≈ 0.0068.
	if math.Abs(kurt-3) > 0.035 {
		t.Errorf("fourth moment %v, want 3", kurt)
	}
	for i, a := range tails {
		p := math.Erfc(a / math.Sqrt2)
		if !binomialOK(counts[i], n, p) {
			t.Errorf("P(|Z| > %v) = %v, want %v", a, float64(counts[i])/n, p)
		}
	}
	// The single-draw path agrees in distribution too (sign symmetry and scale).
	var pos, big int
	for range 100000 {
		x := r.normal()
		if x > 0 {
			pos++
		}
		if math.Abs(float64(x)) > 1 {
			big++
		}
	}
	if !binomialOK(pos, 100000, 0.5) || !binomialOK(big, 100000, math.Erfc(1/math.Sqrt2)) {
		t.Errorf("normal(): %d positive, %d beyond ±1 of 100000", pos, big)
	}
}

// noiseStats returns the mean and standard deviation of out − src over all
// samples, and the correlation of the differences between channels 0 and 1.
func noiseStats(out, src *imageio.Image) (mean, sd, corr01 float64) {
	n := float64(3 * src.Pixels())
	var s, s2 float64
	for c := range 3 {
		for i, v := range out.Ch[c] {
			d := float64(v - src.Ch[c][i])
			s += d
			s2 += d * d
		}
	}
	mean = s / n
	sd = math.Sqrt(s2/n - mean*mean)
	var sxy, sx2, sy2 float64
	for i := range out.Ch[0] {
		x := float64(out.Ch[0][i] - src.Ch[0][i])
		y := float64(out.Ch[1][i] - src.Ch[1][i])
		sxy += x * y
		sx2 += x * x
		sy2 += y * y
	}
	return mean, sd, sxy / math.Sqrt(sx2*sy2)
}

func TestGaussianNoiseStd(t *testing.T) {
	c, _ := Lookup("gaussian_noise")
	src := flat(128, 128, 0.5)
	for _, sigma := range []float64{0.01, 0.05, 0.1} {
		out := apply(c, src, []float64{sigma}, 3, 0)
		mean, sd, corr := noiseStats(out, src)
		// 49152 samples: relative sd of the sample sd ≈ 1/√(2n) ≈ 0.3 %.
		if math.Abs(sd/sigma-1) > 0.02 || math.Abs(mean) > 0.02*sigma {
			t.Errorf("sigma %v: noise mean %v sd %v", sigma, mean, sd)
		}
		if math.Abs(corr) > 0.03 {
			t.Errorf("sigma %v: channels 0 and 1 correlate (%v); noise must be per element", sigma, corr)
		}
	}
	// Clipping: σ = 1 on mid-grey clips about 62 % of the samples to 0 or 1.
	out := apply(c, src, []float64{1}, 3, 0)
	clipped := 0
	for ch := range 3 {
		for _, v := range out.Ch[ch] {
			if v == 0 || v == 1 {
				clipped++
			}
		}
	}
	if p := math.Erfc(0.5 / math.Sqrt2); !binomialOK(clipped, 3*src.Pixels(), p) {
		t.Errorf("sigma 1: %d of %d clipped, want fraction %v", clipped, 3*src.Pixels(), p)
	}
}

func TestSpeckleNoiseStd(t *testing.T) {
	c, _ := Lookup("speckle_noise")
	for _, level := range []float32{0.2, 0.5} {
		src := flat(128, 128, level)
		out := apply(c, src, []float64{0.2}, 5, 0)
		mean, sd, _ := noiseStats(out, src)
		// u + u·N(0, c): sd = u·c.
		want := float64(level) * 0.2
		if math.Abs(sd/want-1) > 0.02 || math.Abs(mean) > 0.02*want {
			t.Errorf("level %v: noise mean %v sd %v, want 0 and %v", level, mean, sd, want)
		}
	}
	// Black stays black: the noise is multiplicative.
	out := apply(c, flat(16, 16, 0), []float64{0.6}, 5, 0)
	if d := imageio.MaxAbsDiff(out, flat(16, 16, 0)); d != 0 {
		t.Errorf("speckle changed a black image by %v", d)
	}
}

func TestUniformNoise(t *testing.T) {
	c, _ := Lookup("uniform_noise")
	src := flat(128, 128, 0.5)
	w := 0.3
	out := apply(c, src, []float64{w}, 9, 0)
	mean, sd, _ := noiseStats(out, src)
	// U[−w, w]: mean 0, sd w/√3.
	if math.Abs(sd/(w/math.Sqrt(3))-1) > 0.02 || math.Abs(mean) > 0.01*w {
		t.Errorf("noise mean %v sd %v, want 0 and %v", mean, sd, w/math.Sqrt(3))
	}
	lo, hi := 1.0, -1.0
	for ch := range 3 {
		for i, v := range out.Ch[ch] {
			d := float64(v - src.Ch[ch][i])
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
	}
	if lo < -w-1e-6 || hi > w+1e-6 || lo > -0.99*w || hi < 0.99*w {
		t.Errorf("noise range [%v, %v], want to fill [−%v, %v]", lo, hi, w, w)
	}
}

func TestImpulseFraction(t *testing.T) {
	c, _ := Lookup("impulse_noise")
	src := flat(128, 128, 0.5)
	n := 3 * src.Pixels()
	for _, amount := range []float64{0.03, 0.27, 0.5} {
		out := apply(c, src, []float64{amount}, 11, 0)
		salt, pepper := 0, 0
		for ch := range 3 {
			for _, v := range out.Ch[ch] {
				switch v {
				case 1:
					salt++
				case 0:
					pepper++
				case 0.5:
				default:
					t.Fatalf("amount %v: value %v is neither salt, pepper nor the input", amount, v)
				}
			}
		}
		if !binomialOK(salt+pepper, n, amount) {
			t.Errorf("amount %v: %d of %d flipped", amount, salt+pepper, n)
		}
		if !binomialOK(salt, salt+pepper, 0.5) {
			t.Errorf("amount %v: %d salt of %d flipped, want half", amount, salt, salt+pepper)
		}
	}
}

// poissonPMF returns P(N = k) for N ~ Poisson(mu).
func poissonPMF(k int, mu float64) float64 {
	lg, _ := math.Lgamma(float64(k + 1))
	return math.Exp(float64(k)*math.Log(mu) - mu - lg)
}

// TestShotNoisePoisson checks that λ·output is Poisson(u·λ)-distributed, with
// a χ² test over the counts below the clipping point λ and one bin for the
// clipped draws, on 8-bit levels (tabulated path) and off-grid levels
// (direct path).
func TestShotNoisePoisson(t *testing.T) {
	c, _ := Lookup("shot_noise")
	for _, tc := range []struct {
		lambda float64
		level  float32
	}{
		{3, 60.0 / 255},   // mid-domain λ, μ ≈ 0.71
		{5, 1},            // μ = 5: half the draws clip
		{60, 51.0 / 255},  // ImageNet-C severity 1, μ = 12, no clipping
		{1, 200.0 / 255},  // μ ≈ 0.78
		{4, 0.3001},       // not k/255: direct inversion
		{25, 0.123456789}, // not k/255, μ ≈ 3.09
	} {
		src := flat(128, 96, tc.level)
		out := apply(c, src, []float64{tc.lambda}, 13, 0)
		mu := float64(tc.level) * tc.lambda
		kmax := int(math.Ceil(tc.lambda)) // draws ≥ λ clip to 1
		counts := make([]int, kmax+1)
		var s, s2 float64
		n := 0
		for ch := range 3 {
			for _, v := range out.Ch[ch] {
				k := int(math.Round(float64(v) * tc.lambda))
				if math.Abs(float64(v)*tc.lambda-float64(k)) > 1e-3 && v != 1 {
					t.Fatalf("λ %v: output %v is not k/λ", tc.lambda, v)
				}
				s += float64(k)
				s2 += float64(k * k)
				n++
				counts[min(k, kmax)]++
			}
		}
		var chi2 float64
		bins := 0
		tail := 1.0
		for k := range kmax + 1 {
			p := poissonPMF(k, mu)
			if k == kmax {
				p = tail
			}
			tail -= p
			e := p * float64(n)
			if e < 5 {
				continue
			}
			d := float64(counts[k]) - e
			chi2 += d * d / e
			bins++
		}
		// χ² with < 60 degrees of freedom exceeds 3·dof + 20 with negligible probability.
		if chi2 > 3*float64(bins)+20 {
			t.Errorf("λ %v level %v: χ² = %.1f over %d bins; counts %v", tc.lambda, tc.level, chi2, bins, counts)
		}
		if float64(kmax) > mu+8*math.Sqrt(mu) { // practically unclipped: compare moments
			mean := s / float64(n)
			variance := s2/float64(n) - mean*mean
			if math.Abs(mean-mu) > 5*math.Sqrt(mu/float64(n)) || math.Abs(variance/mu-1) > 0.03 {
				t.Errorf("λ %v: mean %v variance %v, want both %v", tc.lambda, mean, variance, mu)
			}
		}
	}
}

// TestShotTablesMatchDirect checks the tabulated inversion against the
// straightforward sequential inversion for every 8-bit level.
func TestShotTablesMatchDirect(t *testing.T) {
	r := noiseRand{7}
	for _, lambda := range []float64{1, 3, 5, 60} {
		tab := newShotTables(lambda)
		for level := range 256 {
			mu := float64(imageio.From8(uint8(level))) * lambda
			th := tab.thr[level*tab.stride : (level+1)*tab.stride]
			for range 200 {
				u := r.next() >> 11
				k := int(tab.guide[level*shotGuide+int(u>>(53-shotGuideBits))])
				for th[k] <= u {
					k++
				}
				if want := shotDirect(mu, u); k != want {
					t.Fatalf("λ %v level %d u %d: table gives %d, direct %d", lambda, level, u, k, want)
				}
			}
		}
	}
}

// TestZigguratHistogram is a χ² test of 2^22 draws in 80 bins of width 0.1
// over [−4, 4] (plus two tail bins): it would see a wedge or tail test that
// is off by a fraction of a percent in any one layer.
func TestZigguratHistogram(t *testing.T) {
	const n = 1 << 22
	const bins, width = 80, 0.1
	r := noiseRand{99}
	z := make([]float32, noiseChunk)
	var rej [noiseChunk]uint64
	var counts [bins + 2]int
	for done := 0; done < n; done += len(z) {
		noiseNormals(z, &rej, &r)
		for _, v := range z {
			b := int(math.Floor(float64(v)/width)) + bins/2 + 1
			counts[min(max(b, 0), bins+1)]++
		}
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	var chi2 float64
	for b := range counts {
		lo, hi := float64(b-1-bins/2)*width, float64(b-bins/2)*width
		p := phi(hi) - phi(lo)
		switch b {
		case 0:
			p = phi(-bins / 2 * width)
		case bins + 1:
			p = phi(-bins / 2 * width)
		}
		e := p * n
		d := float64(counts[b]) - e
		chi2 += d * d / e
	}
	// 81 degrees of freedom: mean 81, sd 12.7; 150 is beyond 5 sd.
	if chi2 > 150 {
		t.Errorf("χ² = %.1f over %d bins", chi2, len(counts))
	}
	t.Logf("χ² = %.1f over %d bins", chi2, len(counts))
}

// TestZigguratWedgeChord checks the chord and tangent shortcuts of the
// wedge test against the plain test y < exp(−x²/2) on random points of
// every layer's wedge, on points within a few ulps of the curve, and on
// points at and around the chord and the tangent.
func TestZigguratWedgeChord(t *testing.T) {
	r := noiseRand{5}
	nearby := func(v float64, k int) float64 { // v moved by k ulps
		for ; k > 0; k-- {
			v = math.Nextafter(v, math.Inf(1))
		}
		for ; k < 0; k++ {
			v = math.Nextafter(v, math.Inf(-1))
		}
		return v
	}
	exps := 0
	for i := 1; i < zigLayers; i++ {
		w := &zigWedges[i]
		check := func(x, y float64) {
			if got, want := w.accept(x, y), y < math.Exp(-0.5*x*x); got != want {
				t.Fatalf("layer %d (x in [%v, %v]): accept(%v, %v) = %v, want %v", i, w.xl, w.xr, x, y, got, want)
			}
		}
		for range 2000 {
			x := w.xl + r.float64()*(w.xr-w.xl)
			y := w.fr + r.float64()*(w.fl-w.fr)
			check(x, y)
			chord := w.fr + (w.xr-x)*w.slope
			tan := w.ty + (x-w.tx)*w.ts
			f := math.Exp(-0.5 * x * x)
			if y >= min(chord, tan) && y <= max(chord, tan) && (w.xr <= 1 || w.xl >= 1) {
				exps++ // between chord and tangent: the shortcuts may leave it to exp
			}
			for _, v := range []float64{f, chord, tan, tan * (1 + zigTanMargin), tan * (1 - zigTanMargin)} {
				for k := -3; k <= 3; k++ {
					check(x, nearby(v, k))
				}
			}
		}
	}
	t.Logf("%d of %d random wedge points lie between chord and tangent", exps, 2000*(zigLayers-1))
}

// poissonCDFBins returns P(lo ≤ N < hi) for N ~ Poisson(mu), summed term by
// term in log space (no underflow for large mu).
func poissonRange(lo, hi int, mu float64) float64 {
	var p float64
	for k := max(lo, 0); k < hi; k++ {
		p += poissonPMF(k, mu)
	}
	return p
}

// TestShotNoiseLargeLambda checks the large-λ path (PTRS, and short tables
// for μ < 10) against Poisson(u·λ): mean, variance and a χ² test over bins
// a quarter of a standard deviation wide, for 8-bit levels and an off-grid
// input.
func TestShotNoiseLargeLambda(t *testing.T) {
	c, _ := Lookup("shot_noise")
	for _, lambda := range []float64{1e3, 1e4, 1e5} {
		// Level 3/255 at λ = 1000 is μ ≈ 11.8, just inside PTRS, where a bias
		// of a fraction of a count is many standard errors.
		for _, level := range []float32{128.0 / 255, 2.0 / 255, 3.0 / 255, 0.3001, 1} {
			src := flat(128, 96, level)
			out := apply(c, src, []float64{lambda}, 17, 0)
			mu := float64(level) * lambda
			var ks []int
			var s, s2 float64
			for ch := range 3 {
				for _, v := range out.Ch[ch] {
					k := int(math.Round(float64(v) * lambda))
					if math.Abs(float64(v)*lambda-float64(k)) > 1e-2 && v != 1 {
						t.Fatalf("λ %v: output %v is not k/λ", lambda, v)
					}
					ks = append(ks, k)
					s += float64(k)
					s2 += float64(k) * float64(k)
				}
			}
			n := float64(len(ks))
			sd := math.Sqrt(mu)
			if level < 1 { // unclipped: moments
				mean := s / n
				variance := s2/n - mean*mean
				if math.Abs(mean-mu) > 5*math.Sqrt(mu/n) || math.Abs(variance/mu-1) > 0.05 {
					t.Errorf("λ %v level %v: mean %.2f variance %.2f, want both %.2f", lambda, level, mean, variance, mu)
				}
			}
			// χ²: bins of width w counts from μ − 6σ to μ + 6σ, plus two tails;
			// with level 1 the upper half clips at λ.
			w := max(1, int(sd/4))
			lo := max(0, int(mu-6*sd))
			nb := int(12*sd)/w + 1
			counts := make([]int, nb+2)
			for _, k := range ks {
				b := (k - lo) / w
				switch {
				case k < lo:
					b = 0
				case b >= nb:
					b = nb + 1
				default:
					b++
				}
				counts[b]++
			}
			var chi2 float64
			dof := 0
			for b := range counts {
				var p float64
				switch {
				case b == 0:
					p = poissonRange(0, lo, mu)
				case b == nb+1:
					p = 1 - poissonRange(0, lo+nb*w, mu)
				default:
					p = poissonRange(lo+(b-1)*w, lo+b*w, mu)
				}
				if level == 1 && lo+(b-1)*w > int(lambda) {
					continue // clipped: all in the bin holding λ
				}
				e := p * n
				if e < 5 {
					continue
				}
				d := float64(counts[b]) - e
				chi2 += d * d / e
				dof++
			}
			if level == 1 {
				// Half the draws clip to exactly λ; check only that share.
				clipped := 0
				for _, k := range ks {
					if k >= int(lambda) {
						clipped++
					}
				}
				if !binomialOK(clipped, len(ks), 1-poissonRange(0, int(lambda), mu)) {
					t.Errorf("λ %v level 1: %d of %d clipped", lambda, clipped, len(ks))
				}
				continue
			}
			t.Logf("λ %v level %v: χ² %.1f dof %d", lambda, level, chi2, dof)
			if chi2 > 2*float64(dof)+30 {
				t.Errorf("λ %v level %v: χ² = %.1f over %d bins", lambda, level, chi2, dof)
			}
		}
	}
}

// TestShotNoiseMSEFalls checks that the noise keeps falling as λ grows
// beyond the published domain, up to 10^6 (it rose again above λ ≈ 1000
// when the inversion tables underflowed).
func TestShotNoiseMSEFalls(t *testing.T) {
	c, _ := Lookup("shot_noise")
	src := testimg.Natural(64, 64, 3)
	prev := math.Inf(1)
	for _, lambda := range []float64{5, 60, 100, 101, 300, 1e3, 2e3, 5e3, 1e4, 1e5, 1e6} {
		mse := imageio.MeanSquaredDiff(apply(c, src, []float64{lambda}, 5, 0), src) * 255 * 255
		// Poisson noise on u = x/255: E(MSE) = mean(u)/λ (ignoring clipping).
		if mse >= prev {
			t.Errorf("λ %v: MSE·255² = %.4g, not below %.4g at the previous λ", lambda, mse, prev)
		}
		prev = mse
	}
}

// TestShotLogFactorial checks the Stirling series against math.Lgamma.
func TestShotLogFactorial(t *testing.T) {
	for k := 0.0; k < 2e6; k = math.Floor(k*1.1) + 1 {
		lg, _ := math.Lgamma(k + 1)
		if got := shotLogFactorial(k); math.Abs(got-lg) > 1e-12*max(1, math.Abs(lg)) {
			t.Errorf("log %v! = %v, Lgamma %v", k, got, lg)
		}
	}
}

// BenchmarkShotNoiseLambda times shot noise on 224×224 across λ: tables
// (5, 60) and PTRS (1e3, 1e5, 1e6).
func BenchmarkShotNoiseLambda(b *testing.B) {
	c, _ := Lookup("shot_noise")
	src := testimg.Natural(224, 224, 1)
	dst := imageio.New(224, 224)
	for _, l := range []float64{5, 60, 1e3, 1e5, 1e6} {
		b.Run(fmtNum(l), func(b *testing.B) {
			rng := NewRand(1, 0)
			b.ReportAllocs()
			for b.Loop() {
				c.Apply(dst, src, []float64{l}, rng)
			}
		})
	}
}
