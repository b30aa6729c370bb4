package corrupt

import (
	"math/bits"
	"math/rand/v2"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "fog",
		Family: Weather,
		Params: []Param{
			{Name: "scale", Min: 1.5, Max: 9, Trend: +1, TargetMin: 0.005, TargetLog: true,
				Doc: "fog strength: weight of the plasma fractal added to the image before renormalisation. Domain linspace(1.5, 9) of the VCR toolbox (corruptions.md §1, §2.20). " +
					"Targeted sampling widens it to [0.005, 9] (log scale): scale ≥ 1.5 gives Δv ≥ 0.55 on 96×96 generated images, while " +
					"scale 0.5, 0.05, 0.01 give Δv ≈ 0.39, 0.08, 0.03 (thinner fog; scale 0 is the identity)"},
			{Name: "decay", Min: 1.5, Max: 5, Trend: 0,
				Doc: "wibble decay of the plasma fractal: larger values make the fog smoother (less fine detail) and change the image slightly less. " +
					"Domain linspace(1.5, 5) of the VCR toolbox (corruptions.md §1). Trend measured on generated 96×80 images, scale at mid-domain, " +
					"20 seeds: the mean squared change falls weakly, by about 7 % from decay 1.5 to 5 (scale moves it by more than 100 %), and for a single " +
					"realisation the random fractal varies more than that, so the change is not monotone in decay: Trend is 0"},
		},
		Severities: [][]float64{{1.5, 2}, {2, 2}, {2.5, 1.7}, {2.5, 1.5}, {3, 1.4}},
		Doc: "Fog (Hendrycks & Dietterich 2019, ImageNet-C; corruptions.md §2.20): with u = x and m = max(u) over all " +
			"samples, out = clip((u + scale·P)·m/(m + scale), 0, 1), where P is a plasma fractal (diamond-square: " +
			"square map of side 2^k, corner 0, each square and diamond midpoint = mean of its four neighbours with " +
			"wrap-around + wibble·U(−wibble, wibble), wibble starting at 100 and divided by decay after each level; " +
			"rescaled to [0, 1] over the whole map) cropped to H×W from the top-left corner and shared by the three " +
			"channels. Deliberate departure: the side is the smallest power of two ≥ max(H, W) (256 for ImageNet-C's " +
			"224×224, where ImageNet-C also uses 256), so tall images work; the VCR toolbox uses 2^(bit length of W) " +
			"and fails when H exceeds it. Random values come from vcr's generator, not numpy's. Not in either paper.",
		Papers: []string{"imagenet-c"},
		apply:  fogApply,
	})
}

func fogApply(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	scale, decay := p[0], p[1]
	W, H := src.Width, src.Height
	if W == 0 || H == 0 {
		return
	}
	side := fogSide(W, H)
	bp := fogPool.Get().(*[]float32)
	defer fogPool.Put(bp)
	need := side*side + side/2 + 1
	if cap(*bp) < need {
		*bp = make([]float32, need)
	}
	plasma := (*bp)[:side*side]
	lo, inv := fogPlasmaBuf(plasma, side, decay, rng.Uint64(), (*bp)[side*side:need])
	var m float32
	for c := range 3 {
		p := src.Ch[c]
		if hi, done := fogMaxVec(p); done > 0 {
			if done < len(p) {
				hi = max(hi, weatherMax(p[done:]))
			}
			m = max(m, hi)
			continue
		}
		m = max(m, weatherMax(p))
	}
	// out = (u + scale·(P − lo)·inv)·m/(m + scale), P the raw map. Every
	// term is ≥ 0 (P ≥ lo exactly) and u ≤ m, so out ∈ [0, m] ⊂ [0, 1] up to
	// rounding: only the upper bound needs a clip.
	k := m / (m + float32(scale))
	a := float32(scale) * k * inv
	for y := range H {
		s0 := src.Ch[0][y*W : (y+1)*W]
		s1 := src.Ch[1][y*W : (y+1)*W][:len(s0)]
		s2 := src.Ch[2][y*W : (y+1)*W][:len(s0)]
		d0 := dst.Ch[0][y*W : (y+1)*W][:len(s0)]
		d1 := dst.Ch[1][y*W : (y+1)*W][:len(s0)]
		d2 := dst.Ch[2][y*W : (y+1)*W][:len(s0)]
		pr := plasma[y*side:][:len(s0)]
		for x := fogBlendVec(d0, d1, d2, s0, s1, s2, pr, k, a, lo); x < len(pr); x++ {
			p := pr[x]
			f := a * (p - lo) // the fog term, shared by the three channels
			o0, o1, o2 := s0[x]*k+f, s1[x]*k+f, s2[x]*k+f
			if o0 > 1 {
				o0 = 1
			}
			if o1 > 1 {
				o1 = 1
			}
			if o2 > 1 {
				o2 = 1
			}
			d0[x], d1[x], d2[x] = o0, o1, o2
		}
	}
}

// fogSide returns the side of the plasma map for a W×H image: the smallest
// power of two ≥ max(W, H).
func fogSide(W, H int) int { return 1 << bits.Len(uint(max(W, H)-1)) }

// fogPool recycles plasma maps between calls.
var fogPool = sync.Pool{New: func() any { return new([]float32) }}

// fogRand is a small xorshift-multiply generator (splitmix64 output on a
// Weyl sequence) for the many uniform draws of the plasma fractal; it is
// seeded from the caller's rng so that results stay a function of its state.
// Each 64-bit output gives two 24-bit uniforms.
type fogRand struct {
	s, spare uint64
	have     bool
}

// uniform returns a float32 uniform in [−1, 1) (24 random bits).
func (r *fogRand) uniform() float32 {
	if r.have {
		r.have = false
		return float32(int32(r.spare&(1<<24-1)))*(2.0/(1<<24)) - 1
	}
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	r.spare, r.have = z, true
	return float32(int32(z>>40))*(2.0/(1<<24)) - 1
}

// fill sets u to the next len(u) values of uniform, in order, two per
// generator step without the per-call branch.
func (r *fogRand) fill(u []float32) {
	if len(u) == 0 {
		return
	}
	if r.have {
		r.have = false
		u[0] = float32(int32(r.spare&(1<<24-1)))*(2.0/(1<<24)) - 1
		u = u[1:]
	}
	s := r.s
	i := 0
	for ; i+2 <= len(u); i += 2 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		q := u[i : i+2 : i+2]
		q[0] = float32(int32(z>>40))*(2.0/(1<<24)) - 1
		q[1] = float32(int32(z&(1<<24-1)))*(2.0/(1<<24)) - 1
	}
	r.s = s
	if i < len(u) {
		u[i] = r.uniform()
	}
}

// fogPlasma fills m (n×n, n a power of two) with the diamond-square plasma
// fractal of ImageNet-C's plasma_fractal (corruptions.md §2.20) before its
// rescaling to [0, 1], which is (v − lo)·inv with the returned lo and inv.
func fogPlasma(m []float32, n int, decay float64, seed uint64) (lo, inv float32) {
	return fogPlasmaBuf(m, n, decay, seed, make([]float32, n/2+1))
}

// fogPlasmaBuf is fogPlasma with a scratch buffer u of at least n/2+1
// samples for the random draws, which are generated a row at a time in the
// order the loops use them.
func fogPlasmaBuf(m []float32, n int, decay float64, seed uint64, u []float32) (lo, inv float32) {
	r := fogRand{s: seed}
	u = u[:n/2+1] // the draws of one row, made just before it is filled
	mask := n - 1
	m[0] = 0
	wibble := float32(100)
	for step := n; step >= 2; step /= 2 {
		h := step / 2
		ww := wibble * wibble
		// Squares: centre of each step×step square = mean of its corners.
		for y := 0; y < n; y += step {
			row0 := m[y*n : (y+1)*n]
			row1 := m[((y+step)&mask)*n:][:n]
			mid := m[(y+h)*n:][:n]
			ur := u[:n/step]
			r.fill(ur)
			for j, v := range ur {
				x := j * step
				x1 := (x + step) & mask
				s := row0[x] + row0[x1] + row1[x] + row1[x1]
				mid[x+h] = s/4 + ww*v
			}
		}
		// Diamonds on the corner rows: (y, x+h) between corners left/right
		// and centres above/below.
		for y := 0; y < n; y += step {
			row := m[y*n : (y+1)*n]
			up := m[((y-h)&mask)*n:][:n]
			down := m[(y+h)*n:][:n]
			ur := u[:n/step]
			r.fill(ur)
			for j, v := range ur {
				x := j * step
				s := row[x] + row[(x+step)&mask] + up[x+h] + down[x+h]
				row[x+h] = s/4 + ww*v
			}
		}
		// Diamonds on the centre rows: (y+h, x) between centres left/right
		// and corners above/below.
		for y := 0; y < n; y += step {
			row := m[(y+h)*n:][:n]
			up := m[y*n:][:n]
			down := m[((y+step)&mask)*n:][:n]
			ur := u[:n/step]
			r.fill(ur)
			for j, v := range ur {
				x := j * step
				s := row[x+h] + row[(x-h)&mask] + up[x] + down[x]
				row[x] = s/4 + ww*v
			}
		}
		wibble /= float32(decay)
	}
	lo, hi := weatherMinMax(m)
	inv = 0
	if hi > lo {
		inv = 1 / (hi - lo)
	}
	return lo, inv
}

// weatherClamp01 clips v to [0, 1] (NaN is passed through; inputs are finite).
// Plain comparisons: the built-in min/max on floats also order NaN and
// signed zeros, which costs several times more in hot loops.
func weatherClamp01(v float32) float32 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// weatherMax returns the largest of the non-empty p, with eight independent
// accumulators for instruction-level parallelism.
func weatherMax(p []float32) float32 {
	h0 := p[0]
	h1, h2, h3, h4, h5, h6, h7 := h0, h0, h0, h0, h0, h0, h0
	i := 0
	for ; i+8 <= len(p); i += 8 {
		q := p[i : i+8 : i+8]
		if q[0] > h0 {
			h0 = q[0]
		}
		if q[1] > h1 {
			h1 = q[1]
		}
		if q[2] > h2 {
			h2 = q[2]
		}
		if q[3] > h3 {
			h3 = q[3]
		}
		if q[4] > h4 {
			h4 = q[4]
		}
		if q[5] > h5 {
			h5 = q[5]
		}
		if q[6] > h6 {
			h6 = q[6]
		}
		if q[7] > h7 {
			h7 = q[7]
		}
	}
	for _, v := range p[i:] {
		if v > h0 {
			h0 = v
		}
	}
	for _, v := range [...]float32{h1, h2, h3, h4, h5, h6, h7} {
		if v > h0 {
			h0 = v
		}
	}
	return h0
}

// weatherMinMax returns the smallest and largest of the non-empty p, with
// four independent accumulators for instruction-level parallelism.
func weatherMinMax(p []float32) (lo, hi float32) {
	lo, hi = p[0], p[0]
	l1, l2, l3, h1, h2, h3 := lo, lo, lo, hi, hi, hi
	i := 0
	for ; i+4 <= len(p); i += 4 {
		q := p[i : i+4 : i+4]
		if q[0] < lo {
			lo = q[0]
		}
		if q[0] > hi {
			hi = q[0]
		}
		if q[1] < l1 {
			l1 = q[1]
		}
		if q[1] > h1 {
			h1 = q[1]
		}
		if q[2] < l2 {
			l2 = q[2]
		}
		if q[2] > h2 {
			h2 = q[2]
		}
		if q[3] < l3 {
			l3 = q[3]
		}
		if q[3] > h3 {
			h3 = q[3]
		}
	}
	for _, v := range p[i:] {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	for _, v := range [...]float32{l1, l2, l3} {
		if v < lo {
			lo = v
		}
	}
	for _, v := range [...]float32{h1, h2, h3} {
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}
