package corrupt

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

// The noise family: per-element random perturbations of u = x/255
// (corruptions.md §2.1–2.5). Every element (pixel × channel) gets its own
// independent draw, as in the references; the noise is not shared across
// channels. Draws come from noiseRand, a wyrand generator seeded from the
// caller's rng, so Apply stays a pure function of (src, p, rng state).

func init() {
	register(&Corruption{
		Name:   "gaussian_noise",
		Family: Noise,
		Params: []Param{{
			Name: "sigma", Min: 0.0001, Max: 1, Trend: +1,
			Doc: "standard deviation of the additive normal noise on the [0, 1] scale; " +
				"domain from the VCR toolbox, linspace(0.0001, 1) (corruptions.md §2.1)",
		}},
		Severities: [][]float64{{0.08}, {0.12}, {0.18}, {0.26}, {0.38}},
		Identity:   []float64{0},
		Doc: "Gaussian noise (ImageNet-C, Hendrycks & Dietterich 2019): every element of u = x/255 " +
			"gets an independent N(0, sigma) draw added, then the result is clipped to [0, 1] " +
			"(corruptions.md §2.1). Normal draws use a 256-layer ziggurat (Marsaglia & Tsang 2000) " +
			"on a wyrand stream instead of numpy's generator, so values are statistically, not " +
			"bitwise, equal to the reference.",
		Papers: []string{"vcr", "icse", "imagenet-c"},
		apply:  applyGaussianNoise,
	})
	register(&Corruption{
		Name:   "shot_noise",
		Family: Noise,
		Params: []Param{{
			Name: "lambda", Min: 1, Max: 5, Trend: -1, TargetMax: 1e6, TargetLog: true,
			Doc: "photon count scale λ: each element becomes Poisson(u·λ)/λ, so smaller λ is " +
				"noisier; domain from the VCR toolbox, linspace(1, 5) (corruptions.md §2.2). " +
				"Targeted sampling widens it to [1, 10⁶] (log scale): λ ≤ 5 gives Δv ≥ 0.7 on every " +
				"image, and Δv falls about log-linearly to 0.45, 0.20, 0.05, 0.01 at λ = 10², 10³, " +
				"10⁴, 10⁵ and to 0 at 10⁶ (224×224 generated images); the ImageNet-C severities reach 60",
		}},
		Severities: [][]float64{{60}, {25}, {12}, {5}, {3}},
		Doc: "Shot (Poisson) noise (ImageNet-C): every element of u = x/255 is replaced by " +
			"Poisson(u·λ)/λ with an independent draw, then clipped to [0, 1] (corruptions.md §2.2). " +
			"Poisson draws are exact inversion of the Poisson CDF (tabulated per 8-bit input level, " +
			"with a guide table; computed directly for inputs that are not k/255); for λ > 100, " +
			"means u·λ ≥ 10 use Hörmann's exact transformed rejection (PTRS, 1993) instead. There is no " +
			"identity: the noise vanishes only as λ → ∞. The ImageNet-C severities 60, 25 and 12 " +
			"lie outside the VCR domain.",
		Papers: []string{"vcr", "imagenet-c"},
		apply:  applyShotNoise,
	})
	register(&Corruption{
		Name:   "impulse_noise",
		Family: Noise,
		Params: []Param{{
			Name: "amount", Min: 0, Max: 0.5, Trend: +1,
			Doc: "probability that an element is replaced by salt (1) or pepper (0); domain from " +
				"the VCR toolbox, linspace(0, 0.5) (corruptions.md §2.3)",
		}},
		Severities: [][]float64{{0.03}, {0.06}, {0.09}, {0.17}, {0.27}},
		Identity:   []float64{0},
		Doc: "Impulse (salt-and-pepper) noise as scikit-image's random_noise(mode='s&p', " +
			"salt_vs_pepper=0.5) used by ImageNet-C: each element independently is flipped with " +
			"probability amount, and a flipped element becomes 1 or 0 with equal probability " +
			"(corruptions.md §2.3). Per element, so a pixel may get salt in one channel and pepper " +
			"in another. Unlike scikit-image's unseeded generator, draws come from the seeded rng, " +
			"so results are reproducible.",
		Papers: []string{"vcr", "imagenet-c"},
		apply:  applyImpulseNoise,
	})
	register(&Corruption{
		Name:   "speckle_noise",
		Family: Noise,
		Params: []Param{{
			Name: "c", Min: 0, Max: 0.6, Trend: +1,
			Doc: "standard deviation of the multiplicative normal noise; the continuous range " +
				"[0, 0.6] spans the ImageNet-C values .15….6 down to no noise (the VCR toolbox " +
				"only indexes the five values, which fails for most indices; corruptions.md §2.4)",
		}},
		Severities: [][]float64{{0.15}, {0.2}, {0.35}, {0.45}, {0.6}},
		Identity:   []float64{0},
		Doc: "Speckle noise (ImageNet-C validation corruption): u + u·n with n ~ N(0, c) per " +
			"element, clipped to [0, 1] (corruptions.md §2.4). The reference only has the five " +
			"ImageNet-C values; here c is continuous on [0, 0.6]. Not in either paper.",
		Papers: []string{"imagenet-c"},
		apply:  applySpeckleNoise,
	})
	register(&Corruption{
		Name:   "uniform_noise",
		Family: Noise,
		Params: []Param{{
			Name: "width", Min: 0, Max: 1, Trend: +1,
			Doc: "half-width w of the symmetric uniform noise U[−w, w] on the [0, 1] scale; " +
				"[0, 1] is the continuous range corruptions.md §2.5 recommends, and it contains " +
				"Geirhos et al.'s published widths 0…0.9",
		}},
		Identity: []float64{0},
		Doc: "Uniform noise after Geirhos et al. (2018), as the VCR paper lists it: every element " +
			"of u = x/255 gets an independent U[−w, w] draw added, then clipped to [0, 1], in colour " +
			"(corruptions.md §2.5, \"sensible behaviour\"). Departures, on purpose: Geirhos's " +
			"protocol first converts to greyscale and reduces contrast to 30 % (c·g + (1 − c)/2, " +
			"c = 0.3), which would change the image even at w = 0 and discard colour, which none " +
			"of the other corruptions do; the VCR toolbox's apply_uniform_noise adds one-sided " +
			"noise U[low, high) with 0.01 ≤ low < high ≤ 1 (always brightening) and cannot run as " +
			"shipped. Symmetric noise keeps the mean, has an identity at w = 0, and grows " +
			"monotonically with w.",
		Papers: []string{"vcr"},
		apply:  applyUniformNoise,
	})
}

// noiseRand is the wyrand generator (Wang Yi's wyhash PRNG): a 64-bit
// Weyl sequence mixed by a 128-bit multiply. It passes BigCrush and PractRand
// and costs one multiply per 64 bits, which the noise loops need.
type noiseRand struct{ s uint64 }

const (
	noiseWyInc = 0xa0761d6478bd642f
	noiseWyMix = 0xe7037ed1a0b428db
)

func newNoiseRand(rng *rand.Rand) noiseRand { return noiseRand{rng.Uint64()} }

func (r *noiseRand) next() uint64 {
	r.s += noiseWyInc
	hi, lo := bits.Mul64(r.s, r.s^noiseWyMix)
	return hi ^ lo
}

// float64 returns a uniform value in [0, 1) with 53 random bits.
func (r *noiseRand) float64() float64 { return float64(r.next()>>11) * 0x1p-53 }

// Ziggurat tables for the standard normal (Marsaglia & Tsang 2000, "The
// ziggurat method for generating random variables", 256 layers), for a
// magnitude drawn as a 23-bit integer m: |x| = m·zigW[i], and the fast path
// accepts when m < zigK[i].
const (
	zigLayers = 256
	zigR      = 3.6541528853610088 // start of the tail
	zigV      = 4.92867323399e-3   // area of each layer
	zigScale  = float64(1 << 23)   // magnitude resolution
	zigInvR   = 1 / zigR           // for the tail sampler
	zigMask   = zigLayers - 1      // layer index bits
	zigShift  = 8                  // bits used by the layer index
)

var zigK [zigLayers]uint32
var zigW [zigLayers]float32

// zigWK holds both tables for the vector fast path: zigW[i]'s bits in the
// low and zigK[i] in the high 32 bits.
var zigWK [zigLayers]uint64

// zigWedge describes the wedge of layer i for the slow path: its x range
// [xl, xr] (xl = xr·zigK[i]/2^23, the fast path's bound), f at both ends and
// the chord's slope (f(xl) − f(xr))/(xr − xl); and the tangent of f at the
// middle tx of the range, f(tx) + (x − tx)·ts.
type zigWedge struct{ xl, xr, fl, fr, slope, tx, ty, ts float64 }

// zigTanMargin is the relative margin by which a point must clear the
// tangent for accept to decide by it: far above the rounding errors of
// the tangent and of math.Exp (about 1e-15 relative), far below the
// tangent's distance from f over most of a wedge.
const zigTanMargin = 1e-9

var zigWedges [zigLayers]zigWedge

// accept reports whether the wedge point (x, y) lies below the density,
// y < exp(−x²/2), deciding by the chord where the curvature allows.
func (w *zigWedge) accept(x, y float64) bool {
	chord := w.fr + (w.xr-x)*w.slope
	switch {
	case w.xr <= 1 && y <= chord:
		return true
	case w.xl >= 1 && y > chord:
		return false
	}
	// The tangent settles most of the rest (Marsaglia & Tsang's and
	// McFarland's bounds on the other side): f lies below it where f is
	// concave and above it where f is convex. The margin keeps the
	// decision that of the exact test below.
	tan := w.ty + (x-w.tx)*w.ts
	switch {
	case w.xr <= 1 && y > tan*(1+zigTanMargin):
		return false
	case w.xl >= 1 && y < tan*(1-zigTanMargin):
		return true
	}
	return y < math.Exp(-0.5*x*x)
}

func init() {
	dn, tn := zigR, zigR
	q := zigV / math.Exp(-0.5*dn*dn)
	zigK[0] = uint32(dn / q * zigScale)
	zigK[1] = 0
	zigW[0] = float32(q / zigScale)
	zigW[zigLayers-1] = float32(dn / zigScale)
	for i := zigLayers - 2; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(zigV/dn+math.Exp(-0.5*dn*dn)))
		zigK[i+1] = uint32(dn / tn * zigScale)
		tn = dn
		zigW[i] = float32(dn / zigScale)
	}
	for i := range zigWK {
		zigWK[i] = uint64(math.Float32bits(zigW[i])) | uint64(zigK[i])<<32
	}
	for i := 1; i < zigLayers; i++ {
		xr := float64(zigW[i]) * zigScale
		xl := xr * float64(zigK[i]) / zigScale
		fl, fr := math.Exp(-0.5*xl*xl), math.Exp(-0.5*xr*xr)
		tx := (xl + xr) / 2
		ty := math.Exp(-0.5 * tx * tx)
		zigWedges[i] = zigWedge{xl, xr, fl, fr, (fl - fr) / (xr - xl), tx, ty, -tx * ty}
	}
}

// The ziggurat draw uses 32 random bits h: the layer index i = h & 255, the
// sign in bit 8 and a 23-bit magnitude m = h >> 9. The fast path returns
// ±m·zigW[i] when m < zigK[i] (99.3 % of draws).
const (
	zigSignBit = 1 << zigShift
	zigMagBits = zigShift + 1 // h >> zigMagBits is the magnitude
)

// normal returns one standard normal draw.
func (r *noiseRand) normal() float32 {
	h := uint32(r.next())
	m, i := h>>zigMagBits, h&zigMask
	var z float32
	if m < zigK[i] {
		z = float32(m) * zigW[i]
	} else {
		z = r.zigSlow(m, i)
	}
	return math.Float32frombits(math.Float32bits(z) ^ (h&zigSignBit)<<(31-zigShift))
}

// zigSlow handles the rejected 0.7 % of ziggurat draws: the tail beyond zigR
// for layer 0 and the wedge test for the others, retrying with fresh draws.
// It returns the magnitude |x|; the caller applies the sign bit it drew.
func (r *noiseRand) zigSlow(m, i uint32) float32 {
	for {
		x := float64(m) * float64(zigW[i])
		if i == 0 {
			// Tail: Marsaglia's exponential rejection sampler.
			for {
				x = -math.Log(1-r.float64()) * zigInvR
				y := -math.Log(1 - r.float64())
				if y+y >= x*x {
					break
				}
			}
			return float32(zigR + x)
		}
		// Wedge: (x, y) is uniform over the part of layer i outside the
		// inner box, x in [xl, xr], y in [f(xr), f(xl)]; accept below the
		// density f(x) = exp(−x²/2). The chord through the corners settles
		// most cases without exp (McFarland 2016): f lies above it where f is
		// concave (xr ≤ 1) and below it where f is convex (xl ≥ 1).
		w := &zigWedges[i]
		if w.accept(x, w.fr+r.float64()*(w.fl-w.fr)) {
			return float32(x)
		}
		h := uint32(r.next())
		m, i = h>>zigMagBits, h&zigMask
		if m < zigK[i] {
			return float32(m) * zigW[i]
		}
	}
}

// noiseChunk is how many elements noiseAddNormal handles between redraws of
// rejected ziggurat samples (a power of two).
const noiseChunk = 1024

// noiseAddNormal writes d[k] = clip(s[k] + (a + b·s[k])·z_k, 0, 1) with
// independent standard normal z_k: additive noise (a = σ, b = 0) or
// multiplicative speckle (a = 0, b = c).
func noiseAddNormal(d, s []float32, a, b float32, r *noiseRand) {
	d = d[:len(s)]
	var z [noiseChunk]float32
	var rej [noiseChunk]uint64 // scratch for noiseNormals, zeroed once
	for base := 0; base < len(s); base += noiseChunk {
		ss := s[base:min(base+noiseChunk, len(s))]
		dd := d[base:][:len(ss)]
		zz := z[:len(ss)]
		noiseNormals(zz, &rej, r)
		noiseMix(dd, ss, zz, a, b)
	}
}

// noiseMixGo is the pure-Go noiseMix: d[k] = noiseClamp(s[k] + (a + b·s[k])·z[k]),
// with the terms that vanish for a = 0 or b = 0 left out. d and z must hold
// len(s) samples.
func noiseMixGo(d, s, z []float32, a, b float32) {
	d, z = d[:len(s)], z[:len(s)]
	if b == 0 {
		for k, v := range s {
			d[k] = noiseClamp(v + a*z[k])
		}
	} else if a == 0 {
		for k, v := range s {
			d[k] = noiseClamp(v + v*(b*z[k]))
		}
	} else {
		for k, v := range s {
			d[k] = noiseClamp(v + (a+b*v)*z[k])
		}
	}
}

// noiseNormals fills z (at most noiseChunk long) with independent standard
// normal draws. The generator is inlined so that its state stays in a
// register, and the 0.7 % of ziggurat draws that the fast path rejects are
// queued and redrawn afterwards, so that the hot loop makes no calls.
func noiseNormals(z []float32, rej *[noiseChunk]uint64, r *noiseRand) {
	n := len(z) &^ 1
	nr := zigFast(z[:n], rej, r.s)
	r.s += uint64(n/2) * noiseWyInc
	if n < len(z) {
		z[n] = r.normal()
	}
	for _, e := range rej[:nr] {
		k, h := int(e>>32), uint32(e)
		m := r.zigSlow(h>>zigMagBits, h&zigMask)
		z[k] = math.Float32frombits(math.Float32bits(m) ^ (h&zigSignBit)<<(31-zigShift))
	}
}

// zigFastGo is the pure-Go zigFast from draw k = from on, with nr draws
// already queued: for k = from, from+2, … < len(z) (len(z) − from even),
// one wyrand draw u of state st + ((k−from)/2 + 1)·inc gives the 32-bit
// draws h = low(u) of z[k] and high(u) of z[k+1], each the ziggurat's
// fast-path value ±m·zigW[i] (m = h >> 9, i = h & 255, sign bit 8), and
// those with m ≥ zigK[i] are queued as k<<32 | h (in order of k) for
// zigSlow. It returns the number queued.
func zigFastGo(z []float32, from int, rej *[noiseChunk]uint64, nr int, st uint64) int {
	for k := from; k+1 < len(z); k += 2 {
		st += noiseWyInc
		hi, lo := bits.Mul64(st, st^noiseWyMix)
		u := hi ^ lo
		h0, h1 := uint32(u), uint32(u>>32)
		m0, i0 := h0>>zigMagBits, h0&zigMask
		m1, i1 := h1>>zigMagBits, h1&zigMask
		z[k] = math.Float32frombits(math.Float32bits(float32(m0)*zigW[i0]) ^ (h0&zigSignBit)<<(31-zigShift))
		z[k+1] = math.Float32frombits(math.Float32bits(float32(m1)*zigW[i1]) ^ (h1&zigSignBit)<<(31-zigShift))
		if m0 >= zigK[i0] {
			rej[nr&(noiseChunk-1)] = uint64(k)<<32 | uint64(h0)
			nr++
		}
		if m1 >= zigK[i1] {
			rej[nr&(noiseChunk-1)] = uint64(k+1)<<32 | uint64(h1)
			nr++
		}
	}
	return nr
}

func applyGaussianNoise(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	r := newNoiseRand(rng)
	for c := range 3 {
		noiseAddNormal(dst.Ch[c], src.Ch[c], float32(p[0]), 0, &r)
	}
}

func applySpeckleNoise(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	r := newNoiseRand(rng)
	for c := range 3 {
		noiseAddNormal(dst.Ch[c], src.Ch[c], 0, float32(p[0]), &r)
	}
}

func applyUniformNoise(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	// float32(int32(h)) is uniform on [−2^31, 2^31) in steps of 1, so
	// scaling by w/2^31 gives U[−w, w) with 32-bit resolution.
	scale := float32(p[0] * 0x1p-31)
	r := newNoiseRand(rng)
	for c := range 3 {
		s, d := src.Ch[c], dst.Ch[c]
		d = d[:len(s)]
		st := r.s
		n := len(s) &^ 1
		for k := 0; k < n; k += 2 {
			st += noiseWyInc
			hi, lo := bits.Mul64(st, st^noiseWyMix)
			u := hi ^ lo
			v0 := s[k] + scale*float32(int32(uint32(u)))
			v1 := s[k+1] + scale*float32(int32(uint32(u>>32)))
			d[k], d[k+1] = noiseClamp(v0), noiseClamp(v1)
		}
		r.s = st
		if n < len(s) {
			d[n] = noiseClamp(s[n] + scale*float32(int32(uint32(r.next()))))
		}
	}
}

// noiseClamp clips v to [0, 1] (NaN to 1) without branches, which matters
// where clipping is frequent and unpredictable. It works on the bit pattern:
// non-negative floats order like their bits as integers, and negative ones
// (sign bit set, also −0) become +0.
func noiseClamp(v float32) float32 {
	const one = 0x3f800000 // math.Float32bits(1)
	b := int32(math.Float32bits(v))
	b &^= b >> 31
	if b > one {
		b = one
	}
	return math.Float32frombits(uint32(b))
}

func applyImpulseNoise(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	// Each element uses 32 random bits: the top 31 decide the flip
	// (probability thr/2^31 = amount, to 2^−31), the lowest one salt or pepper.
	thr := uint32(math.Round(p[0] * 0x1p31))
	r := newNoiseRand(rng)
	const one = 0x3f800000 // math.Float32bits(1)
	for c := range 3 {
		s, d := src.Ch[c], dst.Ch[c]
		d = d[:len(s)]
		st := r.s
		n := len(s) &^ 1
		for k := 0; k < n; k += 2 {
			st += noiseWyInc
			hi, lo := bits.Mul64(st, st^noiseWyMix)
			u := hi ^ lo
			h0, h1 := uint32(u), uint32(u>>32)
			// Branch-free select (flips are unpredictable): the mask is all
			// ones when h>>1 < thr, since both are below 2^31.
			f0 := uint32(int32(h0>>1-thr) >> 31)
			f1 := uint32(int32(h1>>1-thr) >> 31)
			b0 := math.Float32bits(s[k])&^f0 | (h0&1)*one&f0
			b1 := math.Float32bits(s[k+1])&^f1 | (h1&1)*one&f1
			d[k], d[k+1] = math.Float32frombits(b0), math.Float32frombits(b1)
		}
		r.s = st
		if n < len(s) {
			h := uint32(r.next())
			v := s[n]
			if h>>1 < thr {
				v = float32(h & 1)
			}
			d[n] = v
		}
	}
}

// Shot noise: Poisson sampling by inversion.
//
// For a mean μ, the draw is the smallest k with U < F(k), where F is the
// Poisson CDF and U a 53-bit uniform integer compared against
// T[k] = round(F(k)·2^53). Since u = x/255 takes at most 256 values on 8-bit
// images, the thresholds are tabulated once per call for every level, with a
// 64-entry guide table per level (guide[g] = the smallest k with
// T[k] > g·2^47) so that the search starts next to its answer.

// shotLevels[k] = k/255, the float32 values the tables are built for.
var shotLevels = func() (t [256]float32) {
	for k := range t {
		t[k] = imageio.From8(uint8(k))
	}
	return t
}()

const (
	shotGuideBits = 6
	shotGuide     = 1 << shotGuideBits
	shotOne       = uint64(1) << 53
)

// shotTables holds, for levels 0…255, thresholds T[level*stride+k] and guides.
type shotTables struct {
	stride int
	thr    []uint64
	guide  []uint16
}

// shotLength returns how many CDF entries a Poisson(mu) table needs: beyond
// it the remaining tail mass is below 2^−60.
func shotLength(mu float64) int {
	if mu <= 0 {
		return 1
	}
	p := math.Exp(-mu)
	k := 0
	for {
		k++
		p *= mu / float64(k)
		// After the mode the terms fall at least geometrically with ratio
		// mu/(k+1); bound the tail by p·(1/(1 − ratio)).
		if float64(k) > mu {
			ratio := mu / float64(k+1)
			if p/(1-ratio) < 0x1p-60 {
				return k + 1
			}
		}
		if k > 100000 {
			return k + 1
		}
	}
}

func newShotTables(lambda float64) *shotTables {
	stride := shotLength(lambda) + 1
	t := &shotTables{
		stride: stride,
		thr:    make([]uint64, 256*stride),
		guide:  make([]uint16, 256*shotGuide),
	}
	for level := range 256 {
		mu := float64(imageio.From8(uint8(level))) * lambda
		shotFill(t.thr[level*stride:(level+1)*stride], mu)
		th := t.thr[level*stride : (level+1)*stride]
		g := t.guide[level*shotGuide : (level+1)*shotGuide]
		k := 0
		for gi := range g {
			for th[k] <= uint64(gi)<<(53-shotGuideBits) {
				k++
			}
			g[gi] = uint16(k)
		}
	}
	return t
}

// shotFill writes the thresholds round(F(k)·2^53) of Poisson(mu) into th; the
// last entry is 2^53, so every U < 2^53 stops there at the latest.
func shotFill(th []uint64, mu float64) {
	p := math.Exp(-mu)
	f := p
	for k := range th {
		if k > 0 {
			p *= mu / float64(k)
			f += p
		}
		v := uint64(math.Round(math.Min(f, 1) * 0x1p53))
		th[k] = v
	}
	th[len(th)-1] = shotOne
}

// shotDirect draws Poisson(mu) by sequential inversion, for inputs that are
// not on the 8-bit grid. It uses the same convention as the tables.
func shotDirect(mu float64, u uint64) int {
	if mu <= 0 {
		return 0
	}
	p := math.Exp(-mu)
	f := p
	k := 0
	for uint64(math.Round(math.Min(f, 1)*0x1p53)) <= u {
		k++
		p *= mu / float64(k)
		if p == 0 && float64(k) > mu {
			break
		}
		f += p
	}
	return k
}

func applyShotNoise(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	lambda := p[0]
	if lambda > shotTableMaxLambda {
		applyShotNoiseLarge(dst, src, lambda, rng)
		return
	}
	t := newShotTables(lambda)
	// vals[k] = min(k/λ, 1): the output for a draw k from the tables.
	vals := make([]float32, t.stride)
	for k := range vals {
		vals[k] = float32(math.Min(float64(k)/lambda, 1))
	}
	r := newNoiseRand(rng)
	stride := t.stride
	for c := range 3 {
		s, d := src.Ch[c], dst.Ch[c]
		d = d[:len(s)]
		st := r.s
		for k, v := range s {
			st += noiseWyInc
			hi, lo := bits.Mul64(st, st^noiseWyMix)
			u := (hi ^ lo) >> 11
			// The 8-bit level k with v = k/255, if there is one.
			level := uint32(int32(v*255 + 0.5))
			if level < 256 && shotLevels[level] == v {
				base := int(level) * stride
				th := t.thr[base : base+stride]
				n := int(t.guide[int(level)*shotGuide+int(u>>(53-shotGuideBits))])
				for th[n] <= u {
					n++
				}
				d[k] = vals[n]
			} else {
				d[k] = float32(math.Min(float64(shotDirect(float64(v)*lambda, u))/lambda, 1))
			}
		}
		r.s = st
	}
}

// Large λ. The inversion tables start from F(0) = e^−μ, which underflows to
// 0 for μ > 745 (every threshold but the last became 0, so bright elements
// all drew the table's last count and clipped to 1: the MSE rose again with
// λ), and their size grows with λ (200 MB at λ = 10^5). Above
// shotTableMaxLambda, elements with μ < shotPTRSMin still use tables (short
// ones), and the others draw by Hörmann's transformed rejection with squeeze
// (PTRS), which is exact and costs O(1) per draw for any μ ≥ 10.
const (
	// shotTableMaxLambda is the largest λ drawn with tables alone; outputs
	// up to it (the ImageNet-C severities reach 60) are unchanged.
	shotTableMaxLambda = 100
	// shotPTRSMin is the smallest mean PTRS is used for (Hörmann 1993 states
	// it for μ ≥ 10).
	shotPTRSMin = 10
)

// shotPTRS holds the constants of PTRS for one mean μ (W. Hörmann, "The
// transformed rejection method for generating Poisson random variables",
// Insurance: Mathematics and Economics 12, 1993; the constants as in
// numpy's random_poisson_ptrs).
type shotPTRS struct {
	mu, logMu, a, b, vr, twoA, invAlpha float64
}

func newShotPTRS(mu float64) shotPTRS {
	slam := math.Sqrt(mu)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	return shotPTRS{mu: mu, logMu: math.Log(mu), a: a, b: b, vr: vr, twoA: 2 * a, invAlpha: invAlpha}
}

// draw returns a Poisson(μ) count using uniforms from r.
func (q *shotPTRS) draw(r *noiseRand) float64 {
	for {
		u := r.float64() - 0.5
		v := r.float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((q.twoA/us+q.b)*u + q.mu + 0.43)
		if us >= 0.07 && v <= q.vr {
			return k
		}
		if q.accept(v, us, k) {
			return k
		}
	}
}

// accept is PTRS's test for a candidate k outside the squeeze: reject when k
// < 0 or in the thin region us < 0.013 above the hat, else accept when
// log(v·(1/α)/(a/us² + b)) ≤ log P(N = k).
func (q *shotPTRS) accept(v, us, k float64) bool {
	if k < 0 || (us < 0.013 && v > us) {
		return false
	}
	return math.Log(v*q.invAlpha/(q.a/(us*us)+q.b)) <= -q.mu+k*q.logMu-shotLogFactorial(k)
}

// shotLogFactorial returns log k! for integral k ≥ 0: math.Lgamma below 10,
// above it Stirling's series for log Γ(k+1) to the x⁻⁷ term, whose error is
// below 1/(1188·11⁹) < 4·10⁻¹³ (Abramowitz & Stegun 6.1.41-42).
func shotLogFactorial(k float64) float64 {
	if k < 10 {
		lg, _ := math.Lgamma(k + 1)
		return lg
	}
	x := k + 1
	r := 1 / x
	r2 := r * r
	const halfLog2Pi = 0.91893853320467274178
	return (x-0.5)*math.Log(x) - x + halfLog2Pi + r*(1.0/12-r2*(1.0/360-r2*(1.0/1260-r2*(1.0/1680))))
}

func applyShotNoiseLarge(dst, src *imageio.Image, lambda float64, rng *rand.Rand) {
	// Levels below nlow (μ < shotPTRSMin) use tables, the others PTRS.
	nlow := 0
	for nlow < 256 && float64(shotLevels[nlow])*lambda < shotPTRSMin {
		nlow++
	}
	stride := shotLength(shotPTRSMin) + 1
	thr := make([]uint64, nlow*stride)
	for level := range nlow {
		shotFill(thr[level*stride:(level+1)*stride], float64(shotLevels[level])*lambda)
	}
	var ptrs [256]shotPTRS
	for level := nlow; level < 256; level++ {
		ptrs[level] = newShotPTRS(float64(shotLevels[level]) * lambda)
	}
	inv := 1 / lambda
	out := func(k float64) float32 {
		if k >= lambda {
			return 1
		}
		return float32(k * inv)
	}
	r := newNoiseRand(rng)
	for c := range 3 {
		s, d := src.Ch[c], dst.Ch[c]
		d = d[:len(s)]
		for i, v := range s {
			level := uint32(int32(v*255 + 0.5))
			onGrid := level < 256 && shotLevels[level] == v
			switch {
			case onGrid && int(level) >= nlow:
				// PTRS's first candidate inline; most draws end here.
				q := &ptrs[level]
				st := r.s + noiseWyInc
				hi, lo := bits.Mul64(st, st^noiseWyMix)
				u := float64((hi^lo)>>11)*0x1p-53 - 0.5
				st += noiseWyInc
				hi, lo = bits.Mul64(st, st^noiseWyMix)
				w := float64((hi^lo)>>11) * 0x1p-53
				r.s = st
				us := 0.5 - math.Abs(u)
				k := math.Floor((q.twoA/us+q.b)*u + q.mu + 0.43)
				if !(us >= 0.07 && w <= q.vr) && !q.accept(w, us, k) {
					k = q.draw(&r)
				}
				d[i] = out(k)
			case onGrid:
				u := r.next() >> 11
				th := thr[int(level)*stride : (int(level)+1)*stride]
				n := 0
				for th[n] <= u {
					n++
				}
				d[i] = out(float64(n))
			default:
				mu := float64(v) * lambda
				if mu < shotPTRSMin {
					d[i] = out(float64(shotDirect(mu, r.next()>>11)))
				} else {
					q := newShotPTRS(mu)
					d[i] = out(q.draw(&r))
				}
			}
		}
	}
}
