package corrupt

import (
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "motion_blur",
		Family: Blur,
		Params: []Param{
			{Name: "radius", Min: 10, Max: 40, Trend: +1,
				Doc: "ImageMagick blur radius; the kernel has 2⌈radius⌉+1 taps; VCR toolbox motion_blur_v2 linspace(10, 40) (corruptions.md §2.9a)"},
			{Name: "sigma", Min: 10, Max: 30, Trend: +1, TargetMin: 0.25, TargetLog: true,
				Doc: "σ of the one-sided Gaussian tap weights, in pixels; VCR toolbox motion_blur_v2 linspace(10, 30) (corruptions.md §2.9a). " +
					"Targeted sampling widens it to [0.25, 30] (log scale): σ ≥ 10 gives Δv ≥ 0.83 on 224×224 generated images and the " +
					"ImageNet-C severities use σ = 3…15; σ = 3, 1, 0.5, 0.25 give Δv ≈ 0.62, 0.31, 0.07, 0 (the same kernel, shorter)"},
			{Name: "angle", Min: -45, Max: 45, Trend: 0,
				Doc: "motion direction in degrees (x right, y down); ImageNet-C and the VCR toolbox draw it uniformly from (−45°, 45°) per image (corruptions.md §2.9a)"},
		},
		Severities: [][]float64{{10, 3, 0}, {15, 5, 0}, {15, 8, 0}, {15, 12, 0}, {20, 15, 0}},
		Doc: "Motion blur as ImageMagick MotionBlurImage(radius, sigma, angle), the ImageNet-C motion blur the VCR " +
			"paper names (corruptions.md §2.9a): n = 2⌈radius⌉+1 taps with weights exp(−i²/(2σ²)), i = 0…n−1, " +
			"normalised to sum 1, at offsets (⌈i·cos θ − 0.5⌉, ⌈i·sin θ − 0.5⌉), out-of-image samples replicated " +
			"from the edge; each channel independently. The blur smears in one direction only. Departures: the " +
			"angle, drawn at random inside the reference, is an explicit parameter (sampled from the same range; " +
			"the ImageNet-C severities list it as 0); results stay float instead of being rounded to ImageMagick's " +
			"16-bit quantum.",
		Papers: []string{"vcr", "imagenet-c"},
		apply:  applyMotionBlur,
	})
	register(&Corruption{
		Name:   "motion_blur_line",
		Family: Blur,
		Params: []Param{{
			Name: "k", Min: 3, Max: 49, Kind: Odd, Trend: +1,
			Doc: "kernel side in pixels; albumentations MotionBlur(blur_limit=50) draws k from the odd values 3…49 (the VCR sampler's call, corruptions.md §2.9b)",
		}},
		Doc: "Motion blur as albumentations MotionBlur, which the VCR toolbox's sampler calls (corruptions.md §2.9b): " +
			"a k×k kernel holding one 8-connected line (rasterised like OpenCV line) between random end points — " +
			"x1, x2 uniform in 0…k−1; if x1 = x2 then y1, y2 two distinct values from 0…k−1, else both uniform — " +
			"normalised to sum 1 and applied with filter2D semantics (correlation, anchor at the centre, " +
			"reflect-101). Departure: the result stays float; OpenCV filters the 8-bit image and rounds to 8 bit. " +
			"Only the line's taps are visited.",
		Papers: []string{"vcr"},
		apply:  applyMotionBlurLine,
	})
}

// magickMotionTaps appends to buf the taps of ImageMagick's MotionBlurImage
// kernel (corruptions.md §2.9a).
func magickMotionTaps(buf []tap, radius, sigma, angleDeg float64) []tap {
	n := 2*int(math.Ceil(radius)) + 1
	if radius <= 0 {
		n = 1
	}
	th := angleDeg * math.Pi / 180
	c, s := math.Cos(th), math.Sin(th)
	var sum float64
	for i := range n {
		sum += math.Exp(-float64(i*i) / (2 * sigma * sigma))
	}
	for i := range n {
		fi := float64(i)
		buf = append(buf, tap{
			dx: int(math.Ceil(fi*c - 0.5)),
			dy: int(math.Ceil(fi*s - 0.5)),
			w:  float32(math.Exp(-fi*fi/(2*sigma*sigma)) / sum),
		})
	}
	return buf
}

// applySparse correlates every channel of src with taps (border b) into dst
// and clips the result to [0, 1] (clampPlane).
func applySparse(dst, src *imageio.Image, taps []tap, b Border) {
	w, h := src.Width, src.Height
	bufp := getF32(sparsePadSize(w, h, taps) + len(taps))
	defer putF32(bufp)
	var rowsBuf [128][]float32
	rows := rowsBuf[:0]
	if len(taps) > len(rowsBuf) {
		rows = make([][]float32, len(taps))
	}
	rows = rows[:len(taps)]
	buf := *bufp
	wts := buf[len(buf)-len(taps):]
	pad := buf[:len(buf)-len(taps)]
	for c := range 3 {
		sparseCorr(dst.Ch[c], src.Ch[c], w, h, taps, b, true, pad, rows, wts)
	}
}

func applyMotionBlur(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	var tb [128]tap
	taps := magickMotionTaps(tb[:0], p[0], p[1], p[2])
	applySparse(dst, src, taps, Replicate)
}

// lineKernel marks in k (side n, row-major) the pixels OpenCV's line draws
// from (x1, y1) to (x2, y2) with 8-connectivity (LineIterator, left to right).
func lineKernel(k []bool, n, x1, y1, x2, y2 int) {
	dx, dy := x2-x1, y2-y1
	if dx < 0 { // leftToRight: start from the left end point
		dx, dy = -dx, -dy
		x1, y1 = x2, y2
	}
	sx, sy := 1, 1
	if dy < 0 {
		dy = -dy
		sy = -1
	}
	vert := dy > dx
	if vert {
		dx, dy = dy, dx
	}
	// dx is now the major, dy the minor extent.
	err := dx - 2*dy
	plus, minus := 2*dx, -2*dy
	x, y := x1, y1
	for range dx + 1 {
		k[y*n+x] = true
		diag := err < 0
		err += minus
		if diag {
			err += plus
		}
		// The major axis always steps; the minor axis only on a diagonal step.
		if vert {
			y += sy
			if diag {
				x += sx
			}
		} else {
			x += sx
			if diag {
				y += sy
			}
		}
	}
}

// motionLineTaps draws the albumentations MotionBlur end points from rng and
// appends the normalised line taps (offsets from the kernel centre).
func motionLineTaps(buf []tap, k int, rng *rand.Rand) []tap {
	x1, x2 := rng.IntN(k), rng.IntN(k)
	var y1, y2 int
	if x1 == x2 {
		y1 = rng.IntN(k)
		y2 = rng.IntN(k - 1)
		if y2 >= y1 {
			y2++
		}
	} else {
		y1, y2 = rng.IntN(k), rng.IntN(k)
	}
	var kb [49 * 49]bool
	kern := kb[:0]
	if k*k <= len(kb) {
		kern = kb[:k*k]
	} else {
		kern = make([]bool, k*k)
	}
	lineKernel(kern, k, x1, y1, x2, y2)
	n := 0
	for _, on := range kern {
		if on {
			n++
		}
	}
	c := k / 2
	for i, on := range kern {
		if on {
			buf = append(buf, tap{dx: i%k - c, dy: i/k - c, w: float32(1 / float64(n))})
		}
	}
	return buf
}

func applyMotionBlurLine(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	var tb [128]tap
	taps := motionLineTaps(tb[:0], int(p[0]), rng)
	applySparse(dst, src, taps, Reflect101)
}
