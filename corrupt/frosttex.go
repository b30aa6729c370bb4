package corrupt

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
)

// The procedural frost textures (NewProceduralFrost, '--frost-textures
// procedural'; vcr's default before the ImageNet-C files were embedded,
// frostimg.go) are generated so as to need no third-party image files.
// They imitate the five
// ImageNet-C textures (frost1.png … frost5.jpeg, corruptions.md §2.19) in
// kind and in simple statistics, not pixel for pixel: ice crystals drawn as
// branching dendrites (straight stems with side branches at about ±60°, as
// hexagonal ice grows) over a soft, low-frequency sheet, plus fine grain,
// tinted bluish white. The per-channel means and standard deviations and the
// amount of fine detail (mean absolute difference of horizontally adjacent
// pixels of the channel mean) are set to those measured on the ImageNet-C
// files (0…255 scale):
//
//	frost1  ( 78, 149, 166) ± (27, 17, 15), detail  7.4  teal ice sheet, fine wrinkles
//	frost2  (201, 205, 215) ± (21, 22, 23), detail  7.9  bright, long crystals
//	frost3  (same as frost2; the ImageNet-C file has identical statistics)
//	frost4  (138, 153, 165) ± (29, 29, 30), detail 13.2  grey-blue, many small crystals
//	frost5  (112, 123, 135) ± (45, 43, 42), detail 17.4  dark, large fern-like dendrites
//
// frost3 is given a different seed and crystal density so that the five
// textures are distinct. They are not the ImageNet-C files: Δv of frost
// with them is lower than with the originals (frost_test.go).

// frostTexSpec describes one generated texture.
type frostTexSpec struct {
	w, h       int
	seed       uint64
	mean, sd   [3]float64 // target per-channel statistics on the 0…255 scale
	detail     float64    // target mean |horizontal difference| (test only)
	crystals   int        // number of dendrites
	stemLen    [2]float64 // stem length range in pixels
	branchy    float64    // side-branch length as a fraction of the remaining stem
	sheet      float64    // weight of the low-frequency sheet
	crystalW   float64    // weight of the crystal layer
	grain      float64    // weight of the per-pixel grain
	wrinkles   int        // short curved streaks (ice-sheet texture)
	brightTips float64    // brightness of the crystal strokes
	soft       float64    // blur of the crystal layer: 3-tap kernel [soft/2, 1−soft, soft/2]
}

var frostTexSpecs = [5]frostTexSpec{
	{w: 600, h: 400, seed: 1, mean: [3]float64{78, 149, 166}, sd: [3]float64{27, 17, 15}, detail: 7.35,
		crystals: 40, stemLen: [2]float64{15, 40}, branchy: 0.3, sheet: 1.2, crystalW: 1.1, grain: 1.05, wrinkles: 6000, brightTips: 0.8, soft: 0.3},
	{w: 600, h: 400, seed: 2, mean: [3]float64{201, 205, 215}, sd: [3]float64{21, 22, 23}, detail: 7.91,
		crystals: 400, stemLen: [2]float64{30, 110}, branchy: 0.3, sheet: 0.5, crystalW: 1.2, grain: 0.55, brightTips: 1, soft: 0.3},
	{w: 600, h: 400, seed: 3, mean: [3]float64{201, 205, 215}, sd: [3]float64{21, 22, 23}, detail: 7.91,
		crystals: 600, stemLen: [2]float64{20, 70}, branchy: 0.35, sheet: 0.6, crystalW: 1.2, grain: 0.6, brightTips: 1, soft: 0.3},
	{w: 600, h: 400, seed: 4, mean: [3]float64{138, 153, 165}, sd: [3]float64{29, 29, 30}, detail: 13.16,
		crystals: 2800, stemLen: [2]float64{8, 30}, branchy: 0.4, sheet: 0.7, crystalW: 1.3, grain: 0.87, brightTips: 1, soft: 0.0},
	{w: 600, h: 400, seed: 5, mean: [3]float64{112, 123, 135}, sd: [3]float64{45, 43, 42}, detail: 17.39,
		crystals: 500, stemLen: [2]float64{30, 90}, branchy: 0.4, sheet: 0.8, crystalW: 1.5, grain: 1.0, brightTips: 1, soft: 0.0},
}

var (
	frostTexOnce sync.Once
	frostTex     []*imageio.Image
)

// builtinFrostTextures returns the five procedural textures, building them on
// first use. The result is shared and must not be modified.
func builtinFrostTextures() []*imageio.Image {
	frostTexOnce.Do(func() {
		frostTex = make([]*imageio.Image, len(frostTexSpecs))
		var wg sync.WaitGroup
		for i := range frostTexSpecs {
			wg.Go(func() { frostTex[i] = genFrostTexture(frostTexSpecs[i]) })
		}
		wg.Wait()
	})
	return frostTex
}

// genFrostTexture builds one texture from its spec; deterministic in spec.seed.
func genFrostTexture(s frostTexSpec) *imageio.Image {
	rng := rand.New(rand.NewPCG(s.seed, 0xf7057))
	w, h := s.w, s.h
	n := w * h
	sheet := make([]float32, n)
	frostValueNoise(sheet, w, h, rng, 160, 4)
	cryst := make([]float32, n)
	var cx, cy float64
	for i := range s.crystals {
		// Crystals grow in clusters radiating from nucleation points.
		if i%4 == 0 {
			cx, cy = rng.Float64()*float64(w), rng.Float64()*float64(h)
		}
		x, y := cx+8*(rng.Float64()*2-1), cy+8*(rng.Float64()*2-1)
		theta := rng.Float64() * 2 * math.Pi
		l := s.stemLen[0] + rng.Float64()*(s.stemLen[1]-s.stemLen[0])
		amp := float32(s.brightTips * (0.4 + 0.6*rng.Float64()))
		frostDendrite(cryst, w, h, rng, x, y, theta, l, s.branchy, amp, 2)
	}
	for range s.wrinkles {
		x, y := rng.Float64()*float64(w), rng.Float64()*float64(h)
		frostWrinkle(cryst, w, h, rng, x, y, 6+14*rng.Float64(), float32(0.3+0.5*rng.Float64()))
	}
	// Soft saturation of overlapping strokes, then an optional light 3-tap
	// blur that widens the strokes.
	for i, v := range cryst {
		cryst[i] = 1 - float32(math.Exp(-float64(v)))
	}
	tmp := make([]float32, n)
	line := make([]float32, max(w, h)+3)
	if s.soft > 0 {
		k := []float32{float32(s.soft / 2), float32(1 - s.soft), float32(s.soft / 2)}
		separable(cryst, cryst, w, h, k, k, Symmetric, tmp, line)
	}
	// z = weighted sum, standardised.
	z := tmp
	grain := float32(s.grain)
	sw, cw := float32(s.sheet), float32(s.crystalW)
	for i := range z {
		g := float32(rng.Float64()*2 - 1)
		z[i] = sw*sheet[i] + cw*cryst[i] + grain*g*0.3
	}
	var sum, sum2 float64
	for _, v := range z {
		sum += float64(v)
		sum2 += float64(v) * float64(v)
	}
	mu := sum / float64(n)
	sd := math.Sqrt(max(sum2/float64(n)-mu*mu, 1e-12))
	m := imageio.New(w, h)
	for c := range 3 {
		a := float32(s.sd[c] / 255 / sd)
		b := float32(s.mean[c]/255) - a*float32(mu)
		p := m.Ch[c]
		for i, v := range z {
			p[i] = min(max(a*v+b, 0), 1)
		}
	}
	return m
}

// frostValueNoise fills dst (w×h) with fractal value noise: octaves of random
// lattice values, smoothly interpolated, starting at cell size cell and
// halving it (amplitude halved) for each of the octaves.
func frostValueNoise(dst []float32, w, h int, rng *rand.Rand, cell float64, octaves int) {
	amp := float32(1)
	for range octaves {
		gw, gh := int(float64(w)/cell)+2, int(float64(h)/cell)+2
		grid := make([]float32, gw*gh)
		for i := range grid {
			grid[i] = float32(rng.Float64()*2 - 1)
		}
		for y := range h {
			fy := float64(y) / cell
			iy := int(fy)
			ty := float32(frostSmooth(fy - float64(iy)))
			row := dst[y*w : (y+1)*w]
			g0, g1 := grid[iy*gw:(iy+1)*gw], grid[(iy+1)*gw:(iy+2)*gw]
			for x := range row {
				fx := float64(x) / cell
				ix := int(fx)
				tx := float32(frostSmooth(fx - float64(ix)))
				a := g0[ix] + tx*(g0[ix+1]-g0[ix])
				b := g1[ix] + tx*(g1[ix+1]-g1[ix])
				row[x] += amp * (a + ty*(b-a))
			}
		}
		cell /= 2
		amp /= 2
	}
}

func frostSmooth(t float64) float64 { return t * t * (3 - 2*t) }

// frostSplat adds v to dst at the real position (x, y), spread bilinearly
// over the four nearest pixels; positions outside the texture wrap around so
// that crystals crossing an edge continue on the other side.
func frostSplat(dst []float32, w, h int, x, y float64, v float32) {
	fx, fy := math.Floor(x), math.Floor(y)
	tx, ty := float32(x-fx), float32(y-fy)
	x0, y0 := borderIndex(int(fx), w, Wrap), borderIndex(int(fy), h, Wrap)
	x1, y1 := borderIndex(x0+1, w, Wrap), borderIndex(y0+1, h, Wrap)
	dst[y0*w+x0] += v * (1 - tx) * (1 - ty)
	dst[y0*w+x1] += v * tx * (1 - ty)
	dst[y1*w+x0] += v * (1 - tx) * ty
	dst[y1*w+x1] += v * tx * ty
}

// frostDendrite draws a crystal: a straight stem of length l from (x, y) in
// direction theta whose brightness fades towards the tip, with side branches
// at ±(50°…70°) every few pixels, each a smaller dendrite (depth levels).
func frostDendrite(dst []float32, w, h int, rng *rand.Rand, x, y, theta, l, branchy float64, amp float32, depth int) {
	dx, dy := math.Cos(theta), math.Sin(theta)
	const step = 0.7
	next := 1 + 3*rng.Float64()
	for t := 0.0; t < l; t += step {
		frac := t / l
		frostSplat(dst, w, h, x+t*dx, y+t*dy, amp*float32(1-0.6*frac))
		if depth > 0 && t >= next {
			next = t + 1.5 + 3*rng.Float64()
			bl := branchy * (l - t) * (0.6 + 0.8*rng.Float64())
			if bl < 2 {
				continue
			}
			// Fern-like: usually a pair of branches, sometimes one.
			sides := []float64{1, -1}
			if rng.Float64() < 0.35 {
				sides = sides[rng.IntN(2):][:1]
			}
			for _, side := range sides {
				a := theta + side*(50+20*rng.Float64())*math.Pi/180
				frostDendrite(dst, w, h, rng, x+t*dx, y+t*dy, a, bl, branchy, amp*0.6, depth-1)
			}
		}
	}
}

// frostWrinkle draws a short, gently curving streak (the crumpled look of an
// ice sheet).
func frostWrinkle(dst []float32, w, h int, rng *rand.Rand, x, y, l float64, amp float32) {
	theta := rng.Float64() * 2 * math.Pi
	curv := (rng.Float64()*2 - 1) * 0.15
	for t := 0.0; t < l; t += 0.7 {
		frostSplat(dst, w, h, x, y, amp)
		theta += curv * 0.7
		x += 0.7 * math.Cos(theta)
		y += 0.7 * math.Sin(theta)
	}
}
