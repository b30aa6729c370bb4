// Package testimg generates natural-looking test images procedurally, so that
// tests and benchmarks need no image files: a 1/f ("pink") colour texture,
// soft illumination, and a few hard-edged objects, the mix of smooth regions,
// edges and texture that real photographs have.
package testimg

import (
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

// Natural returns a w×h image, deterministic in seed. Values lie in [0, 1]
// and are quantised to 8 bit, like a decoded photo.
func Natural(w, h int, seed uint64) *imageio.Image {
	rng := rand.New(rand.NewPCG(seed, 0x7e57))
	m := imageio.New(w, h)
	// 1/f texture: a shared luminance texture plus weaker per-channel chroma
	// textures, each a sum of oriented cosines with amplitude ∝ 1/f.
	lum := make([]float64, w*h)
	texture(lum, w, h, rng, 0.16)
	chroma := make([]float64, w*h)
	for c := range 3 {
		for i := range chroma {
			chroma[i] = 0
		}
		texture(chroma, w, h, rng, 0.05)
		base := 0.35 + 0.3*rng.Float64()
		p := m.Ch[c]
		for y := range h {
			light := 0.8 + 0.2*float64(y)/float64(max(h-1, 1)) // soft vertical illumination
			for x := range w {
				i := y*w + x
				p[i] = float32(light * (base + lum[i] + chroma[i]))
			}
		}
	}
	// Hard-edged objects: discs and rectangles with their own colour.
	for range 6 {
		cx, cy := rng.Float64()*float64(w), rng.Float64()*float64(h)
		r := (0.05 + 0.15*rng.Float64()) * float64(min(w, h))
		col := [3]float32{float32(rng.Float64()), float32(rng.Float64()), float32(rng.Float64())}
		disc := rng.IntN(2) == 0
		for y := range h {
			for x := range w {
				dx, dy := float64(x)-cx, float64(y)-cy
				in := dx*dx+dy*dy <= r*r
				if !disc {
					in = math.Abs(dx) <= r && math.Abs(dy) <= 0.6*r
				}
				if in {
					for c := range 3 {
						i := y*w + x
						m.Ch[c][i] = 0.7*col[c] + 0.3*m.Ch[c][i]
					}
				}
			}
		}
	}
	m.Clamp()
	m.Quantize(imageio.Round)
	return m
}

// texture adds to acc (w×h) a sum of 48 oriented cosines with random
// frequency f (1…64 cycles per image, log-uniform) and amplitude amp/f.
func texture(acc []float64, w, h int, rng *rand.Rand, amp float64) {
	Texture(acc, w, h, rng, amp, 48, 64)
}

// Texture adds to acc (w×h, row-major) a 1/f texture: a sum of n oriented
// cosines with random frequency f (1…maxCycles cycles per image,
// log-uniform), random orientation and phase, and amplitude amp/f, all drawn
// from rng.
func Texture(acc []float64, w, h int, rng *rand.Rand, amp float64, n int, maxCycles float64) {
	colc := make([]float64, w)
	cols := make([]float64, w)
	for range n {
		f := math.Exp(rng.Float64() * math.Log(maxCycles))
		theta := rng.Float64() * math.Pi
		fx, fy := f*math.Cos(theta)*2*math.Pi/float64(w), f*math.Sin(theta)*2*math.Pi/float64(h)
		ph := rng.Float64() * 2 * math.Pi
		a := amp / f
		for x := range colc {
			colc[x] = math.Cos(fx * float64(x))
			cols[x] = math.Sin(fx * float64(x))
		}
		// cos(fx·x + fy·y + ph) = cos(fx x)cos(fy y + ph) − sin(fx x)sin(fy y + ph)
		for y := range h {
			cy := a * math.Cos(fy*float64(y)+ph)
			sy := a * math.Sin(fy*float64(y)+ph)
			row := acc[y*w : (y+1)*w]
			for x := range row {
				row[x] += cy*colc[x] - sy*cols[x]
			}
		}
	}
}
