package corrupt

import (
	"math/bits"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "fog",
		Family: Weather,
		Params: []Param{
			{Name: "scale", Min: 1.5, Max: 9, Trend: +1,
				Doc: "fog strength: weight of the plasma fractal added to the image before renormalisation. Domain linspace(1.5, 9) of the VCR toolbox (corruptions.md §1, §2.20)"},
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
	side := 1 << bits.Len(uint(max(W, H)-1))
	plasma := make([]float32, side*side)
	fogPlasma(plasma, side, decay, rng.Uint64())
	var m float32
	for c := range 3 {
		for _, v := range src.Ch[c] {
			m = max(m, v)
		}
	}
	k := m / (m + float32(scale))
	a := float32(scale) * k
	for c := range 3 {
		for y := range H {
			sr := src.Ch[c][y*W : (y+1)*W]
			dr := dst.Ch[c][y*W : (y+1)*W][:len(sr)]
			pr := plasma[y*side:][:len(sr)]
			for x, v := range sr {
				dr[x] = min(max(v*k+a*pr[x], 0), 1)
			}
		}
	}
}

// fogRand is a small xorshift-multiply generator (splitmix64 output on a
// Weyl sequence) for the many uniform draws of the plasma fractal; it is
// seeded from the caller's rng so that results stay a function of its state.
type fogRand struct{ s uint64 }

// uniform returns a float32 uniform in [−1, 1).
func (r *fogRand) uniform() float32 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float32(z>>40)*(2.0/(1<<24)) - 1
}

// fogPlasma fills m (n×n, n a power of two) with the diamond-square plasma
// fractal of ImageNet-C's plasma_fractal (corruptions.md §2.20), rescaled to
// [0, 1].
func fogPlasma(m []float32, n int, decay float64, seed uint64) {
	r := fogRand{seed}
	mask := n - 1
	m[0] = 0
	wibble := float32(100)
	for step := n; step >= 2; step /= 2 {
		h := step / 2
		// Squares: centre of each step×step square = mean of its corners.
		for y := 0; y < n; y += step {
			row0 := m[y*n : (y+1)*n]
			row1 := m[((y+step)&mask)*n:][:n]
			mid := m[(y+h)*n:][:n]
			for x := 0; x < n; x += step {
				x1 := (x + step) & mask
				s := row0[x] + row0[x1] + row1[x] + row1[x1]
				mid[x+h] = s/4 + wibble*wibble*r.uniform()
			}
		}
		// Diamonds on the corner rows: (y, x+h) between corners left/right
		// and centres above/below.
		for y := 0; y < n; y += step {
			row := m[y*n : (y+1)*n]
			up := m[((y-h)&mask)*n:][:n]
			down := m[(y+h)*n:][:n]
			for x := 0; x < n; x += step {
				s := row[x] + row[(x+step)&mask] + up[x+h] + down[x+h]
				row[x+h] = s/4 + wibble*wibble*r.uniform()
			}
		}
		// Diamonds on the centre rows: (y+h, x) between centres left/right
		// and corners above/below.
		for y := 0; y < n; y += step {
			row := m[(y+h)*n:][:n]
			up := m[y*n:][:n]
			down := m[((y+step)&mask)*n:][:n]
			for x := 0; x < n; x += step {
				s := row[x+h] + row[(x-h)&mask] + up[x] + down[x]
				row[x] = s/4 + wibble*wibble*r.uniform()
			}
		}
		wibble /= float32(decay)
	}
	lo, hi := m[0], m[0]
	for _, v := range m {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	inv := float32(0)
	if hi > lo {
		inv = 1 / (hi - lo)
	}
	for i, v := range m {
		m[i] = (v - lo) * inv
	}
}
