package corrupt

import (
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	register(&Corruption{
		Name:   "snow",
		Family: Weather,
		Params: []Param{
			{Name: "loc", Min: 0, Max: 0.6, Trend: +1,
				Doc: "mean of the Gaussian snow field; VCR toolbox linspace(0, 0.6) (corruptions.md §2.22)"},
			{Name: "scale", Min: 0, Max: 0.5, Trend: +1,
				Doc: "standard deviation of the Gaussian snow field; VCR toolbox linspace(0, 0.5) (corruptions.md §2.22)"},
			{Name: "zoom", Min: 0, Max: 5, Trend: 0,
				Doc: "centre zoom of the snow field (flake size); VCR toolbox linspace(0, 5) (corruptions.md §2.22). Values below 0.5 act as 0.5 (see Doc)"},
			{Name: "threshold", Min: 0.5, Max: 1, Trend: -1,
				Doc: "field values below it are set to 0 (fewer flakes when larger); VCR toolbox linspace(0.5, 1) (corruptions.md §2.22)"},
			{Name: "blur_radius", Min: 10, Max: 15, Trend: 0,
				Doc: "ImageMagick motion-blur radius of the flakes; VCR toolbox linspace(10, 15) (corruptions.md §2.22)"},
			{Name: "blur_sigma", Min: 5, Max: 15, Trend: 0,
				Doc: "ImageMagick motion-blur σ of the flakes; VCR toolbox linspace(5, 15) (corruptions.md §2.22)"},
			{Name: "mix", Min: 0.5, Max: 1, Trend: -1,
				Doc: "weight of the original image against its whitened version max(u, 1.5·grey + 0.5); VCR toolbox linspace(0.5, 1) (corruptions.md §2.22)"},
		},
		Severities: [][]float64{
			{0.1, 0.3, 3, 0.5, 10, 4, 0.8},
			{0.2, 0.3, 2, 0.5, 12, 4, 0.7},
			{0.55, 0.3, 4, 0.9, 12, 8, 0.7},
			{0.55, 0.3, 4.5, 0.85, 12, 8, 0.65},
			{0.55, 0.3, 2.5, 0.85, 12, 12, 0.55},
		},
		Doc: "Snow (ImageNet-C, corruptions.md §2.22): a single-channel field N(loc, scale²) is centre-zoomed by `zoom` " +
			"(as zoom_blur, order-1), values below `threshold` are zeroed, the field is clipped, truncated to 8 bit, " +
			"motion-blurred with the ImageMagick kernel (as motion_blur) at an angle drawn uniformly from " +
			"(−135°, −45°) and rounded to 8 bit; the image becomes mix·u + (1 − mix)·max(u, 1.5·grey(u) + 0.5) " +
			"(grey = 0.299R + 0.587G + 0.114B), then the layer and its 180° rotation are added and the result " +
			"clipped. Departures: the field is drawn only over the crop that the zoom keeps (same distribution as " +
			"drawing the whole image and cropping); non-square images are zoomed per axis; zoom < 1 (which makes " +
			"the reference fail with a broadcast error) draws a larger field of ⌈H/z⌉×⌈W/z⌉ samples and shrinks it " +
			"with the same interpolation, and zoom below 0.5 acts as 0.5 — there the layer is already independent " +
			"per-pixel noise and smaller values only cost more draws.",
		Papers: []string{"imagenet-c"},
		apply:  applySnow,
	})
}

func applySnow(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	loc, scale, zoom, thresh := p[0], p[1], math.Max(p[2], 0.5), p[3]
	radius, sigma, mix := p[4], p[5], float32(p[6])
	w, h := src.Width, src.Height
	var ax, ay zoomAxis
	cw := ax.plan(w, zoom, true)
	ch := ay.plan(h, zoom, true)
	bufp := getF32(cw*ch + 2*w*h + 2*w)
	defer putF32(bufp)
	buf := *bufp
	field, layer, blurred, tmp := buf[:cw*ch], buf[cw*ch:cw*ch+w*h], buf[cw*ch+w*h:cw*ch+2*w*h], buf[cw*ch+2*w*h:]
	for i := range field {
		field[i] = float32(loc + scale*rng.NormFloat64())
	}
	zoomPlane(layer, field, cw, &ax, &ay, tmp, false)
	th := float32(thresh)
	for i, v := range layer {
		if v < th {
			v = 0
		}
		// clip to [0,1], ×255, truncate to 8 bit
		layer[i] = imageio.From8(imageio.To8(v, imageio.Truncate))
	}
	angle := -135 + 90*rng.Float64()
	var tb [64]tap
	taps := magickMotionTaps(tb[:0], radius, sigma, angle)
	padp := getF32(sparsePadSize(w, h, taps) + len(taps))
	defer putF32(padp)
	var rowsBuf [64][]float32
	rows := rowsBuf[:0]
	if len(taps) > len(rowsBuf) {
		rows = make([][]float32, len(taps))
	}
	rows = rows[:len(taps)]
	pad := *padp
	sparseCorr(blurred, layer, w, h, taps, Replicate, false, pad[:len(pad)-len(taps)], rows, pad[len(pad)-len(taps):])
	for i, v := range blurred {
		blurred[i] = imageio.From8(imageio.To8(v, imageio.Round))
	}
	R := src.Ch[0]
	G, B := src.Ch[1][:len(R)], src.Ch[2][:len(R)]
	dR, dG, dB := dst.Ch[0][:len(R)], dst.Ch[1][:len(R)], dst.Ch[2][:len(R)]
	blurred = blurred[:len(R)]
	n := len(R)
	for i := range R {
		r, g, b := R[i], G[i], B[i]
		white := 1.5*(0.299*r+0.587*g+0.114*b) + 0.5
		s := blurred[i] + blurred[n-1-i] // layer + its 180° rotation
		dR[i] = clamp01(mix*r + (1-mix)*max(r, white) + s)
		dG[i] = clamp01(mix*g + (1-mix)*max(g, white) + s)
		dB[i] = clamp01(mix*b + (1-mix)*max(b, white) + s)
	}
}

func clamp01(v float32) float32 {
	if !(v > 0) {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}
