package demo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// Classes are the demo task's classes, by index: the shape of the image's
// dominant object. They are also the folder names Dataset writes.
var Classes = []string{"disc", "square", "triangle", "stripes"}

// Image returns the demo image of class (an index into Classes) drawn with
// seed, size×size pixels, deterministic in (class, size, seed). Values are
// quantised to 8 bit. The background is a 1/f colour texture under soft
// light (the power spectrum of natural images, Field 1987); the object has
// a random colour with a luminance contrast of at least 0.2 to the
// background, a random size (35–60 % of the side), position and small
// rotation, antialiased edges and its own texture. It panics if class is
// out of range or size < 8.
func Image(class, size int, seed uint64) *imageio.Image {
	if class < 0 || class >= len(Classes) {
		panic(fmt.Sprintf("demo: class %d out of range [0, %d)", class, len(Classes)))
	}
	if size < 8 {
		panic("demo: size must be at least 8")
	}
	rng := rand.New(rand.NewPCG(seed, 0xde70+uint64(class)))
	w, h := size, size
	m := imageio.New(w, h)
	lum := make([]float64, w*h)
	texture(lum, w, h, rng, 0.14)
	chroma := make([]float64, w*h)
	var bg [3]float64
	for c := range 3 {
		clear(chroma)
		texture(chroma, w, h, rng, 0.04)
		bg[c] = 0.25 + 0.5*rng.Float64()
		p := m.Ch[c]
		for y := range h {
			light := 0.85 + 0.15*float64(y)/float64(h-1)
			row := p[y*w : (y+1)*w]
			for x := range row {
				i := y*w + x
				row[x] = float32(light * (bg[c] + lum[i] + chroma[i]))
			}
		}
	}
	// The object's colour: random, with enough luminance contrast.
	var col [3]float64
	bgY := 0.299*bg[0] + 0.587*bg[1] + 0.114*bg[2]
	for {
		for c := range col {
			col[c] = rng.Float64()
		}
		if math.Abs(0.299*col[0]+0.587*col[1]+0.114*col[2]-bgY) >= 0.2 {
			break
		}
	}
	s := float64(size)
	r := (0.175 + 0.125*rng.Float64()) * s // half extent
	cx := s/2 + (rng.Float64()-0.5)*(s-2*r)*0.8
	cy := s/2 + (rng.Float64()-0.5)*(s-2*r)*0.8
	rot := (rng.Float64() - 0.5) * 0.4 // ±0.2 rad
	if class == 3 {
		rot = rng.Float64() * math.Pi // stripes: any orientation
	}
	period := (0.2 + 0.1*rng.Float64()) * s * 0.5
	sn, cs := math.Sin(rot), math.Cos(rot)
	objTex := make([]float64, w*h)
	texture(objTex, w, h, rng, 0.06)
	// inside reports whether (x, y), in object coordinates (rotated, centred,
	// divided by r), belongs to the object.
	inside := func(u, v float64) bool {
		switch class {
		case 0:
			return u*u+v*v <= 1
		case 1:
			return math.Abs(u) <= 0.85 && math.Abs(v) <= 0.85
		case 2: // upright equilateral-ish triangle
			return v <= 0.75 && v >= -1+1.75*math.Abs(u)
		default: // a round patch of stripes
			if u*u+v*v > 1 {
				return false
			}
			return math.Mod(math.Abs(u*r)/period, 1) < 0.5
		}
	}
	const sub = 3 // 3×3 supersampling for antialiased edges
	for y := range h {
		for x := range w {
			n := 0
			for j := range sub {
				for i := range sub {
					dx := float64(x) + (float64(i)+0.5)/sub - cx
					dy := float64(y) + (float64(j)+0.5)/sub - cy
					u := (cs*dx + sn*dy) / r
					v := (-sn*dx + cs*dy) / r
					if inside(u, v) {
						n++
					}
				}
			}
			if n == 0 {
				continue
			}
			a := float32(n) / (sub * sub)
			k := y*w + x
			for c := range 3 {
				obj := float32(col[c] * (1 + 1.5*objTex[k]))
				m.Ch[c][k] = a*obj + (1-a)*m.Ch[c][k]
			}
		}
	}
	m.Clamp()
	m.Quantize(imageio.Round)
	return m
}

// texture adds to acc (w×h) a 1/f texture of 32 oriented cosines with
// frequencies of 1…48 cycles per image (testimg.Texture).
func texture(acc []float64, w, h int, rng *rand.Rand, amp float64) {
	testimg.Texture(acc, w, h, rng, amp, 32, 48)
}

// ItemSeed is the seed of image i of a set drawn with seed, and ItemClass
// its class: sets with different seeds share no image.
func ItemSeed(seed uint64, i int) uint64 { return seed<<32 ^ uint64(i)*0x9e3779b97f4a7c15 }

// ItemClass is the class of image i: the classes take turns.
func ItemClass(i int) int { return i % len(Classes) }

// Dataset writes n demo images of size×size pixels into dir as an image
// folder, dir/<class>/img_XXXXXX.png (image i has class ItemClass(i) and
// seed ItemSeed(seed, i)), using GOMAXPROCS goroutines. The same arguments
// write the same bytes. dir is created; existing files of the same names
// are replaced.
func Dataset(ctx context.Context, dir string, n, size int, seed uint64) error {
	if n < 1 || size < 8 {
		return fmt.Errorf("demo: need n ≥ 1 and size ≥ 8 (got %d, %d)", n, size)
	}
	for _, c := range Classes {
		if err := os.MkdirAll(filepath.Join(dir, c), 0o755); err != nil {
			return err
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c := ItemClass(i)
				m := Image(c, size, ItemSeed(seed, i))
				p := filepath.Join(dir, Classes[c], fmt.Sprintf("img_%06d.png", i))
				if err := imageio.Save(p, m, imageio.EncodeOptions{}); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return fmt.Errorf("demo: %w", first)
	}
	return ctx.Err()
}
