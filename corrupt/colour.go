package corrupt

import (
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

// The colour family (corruptions.md §2.13–2.18). Brightness, contrast and
// saturate are ImageNet-C's float functions on u = x/255 with scikit-image's
// HSV; hue_saturation_value, color_jitter and rgb_shift are albumentations'
// 8-bit functions with OpenCV semantics: their input is first rounded to
// 8 bit and their output consists of 8-bit values k/255.

func init() {
	register(&Corruption{
		Name:   "brightness",
		Family: Colour,
		Params: []Param{{
			Name: "c", Min: 0, Max: 1, Trend: +1,
			Doc: "amount added to the HSV value channel (scale [0, 1]); domain from the VCR " +
				"toolbox and the ICSE checker, linspace(0, 1) (corruptions.md §2.13)",
		}},
		Severities: [][]float64{{0.1}, {0.2}, {0.3}, {0.4}, {0.5}},
		Identity:   []float64{0},
		Doc: "Brightness (ImageNet-C): u = x/255 is converted to HSV with scikit-image's " +
			"formulas (ties for the maximum channel resolved blue over green over red), " +
			"V := clip(V + c, 0, 1), converted back and clipped (corruptions.md §2.13). " +
			"Computed in float64 per pixel, as the reference does.",
		Papers: []string{"vcr", "icse", "imagenet-c"},
		apply:  applyBrightness,
	})
	register(&Corruption{
		Name:   "contrast",
		Family: Colour,
		Params: []Param{{
			Name: "c", Min: 0.01, Max: 0.9, Trend: -1, TargetMax: 1,
			Doc: "contrast factor; smaller is stronger. Domain of the ICSE checker, " +
				"linspace(0.01, 0.9), since ICSE is the paper that uses contrast; the VCR " +
				"toolbox samples linspace(0.0001, 0.3) (corruptions.md §1, §2.14). Targeted sampling " +
				"widens it to [0.01, 1], up to the identity: c = 0.9 still gives Δv ≈ 0.04",
		}},
		Severities: [][]float64{{0.4}, {0.3}, {0.2}, {0.1}, {0.05}},
		Identity:   []float64{1},
		Doc: "Contrast (ImageNet-C): with m the mean of each channel of u = x/255 over the whole " +
			"image, each element becomes (u − m)·c + m, clipped to [0, 1] (corruptions.md §2.14). " +
			"Not the Geirhos greyscale contrast of early ICSE experiments.",
		Papers: []string{"icse", "imagenet-c"},
		apply:  applyContrast,
	})
	register(&Corruption{
		Name:   "saturate",
		Family: Colour,
		Params: []Param{
			{
				Name: "factor", Min: 0, Max: 20, Trend: 0,
				Doc: "multiplier of the HSV saturation: below 1 desaturates, above 1 saturates, " +
					"so not monotone; [0, 20] spans the ImageNet-C values .3, .1, 2, 5, 20 " +
					"(corruptions.md §2.15)",
			},
			{
				Name: "add", Min: 0, Max: 0.2, Trend: +1,
				Doc: "amount added to the saturation after the multiplication; [0, 0.2] spans " +
					"the ImageNet-C values 0, .1, .2 (corruptions.md §2.15)",
			},
		},
		Severities: [][]float64{{0.3, 0}, {0.1, 0}, {2, 0}, {5, 0.1}, {20, 0.2}},
		Identity:   []float64{1, 0},
		Doc: "Saturate (ImageNet-C validation corruption): scikit-image HSV as for brightness, " +
			"S := clip(S·factor + add, 0, 1) (corruptions.md §2.15). The reference only has the " +
			"five ImageNet-C pairs; here both are continuous and independent. Not in either paper.",
		Papers: []string{"imagenet-c"},
		apply:  applySaturate,
	})
	hsvDoc := func(what, ch string) string {
		return what + " added to OpenCV's 8-bit " + ch + "; [−100, 100] is albumentations' " +
			"HueSaturationValue(100, 100, 100) used by the VCR toolbox (corruptions.md §2.16)"
	}
	register(&Corruption{
		Name:   "hue_saturation_value",
		Family: Colour,
		Params: []Param{
			{Name: "hue_shift", Min: -100, Max: 100, Trend: 0,
				Doc: hsvDoc("shift", "hue H ∈ 0…179 (degrees/2, taken mod 180, so ±100 is more than a full turn)")},
			{Name: "sat_shift", Min: -100, Max: 100, Trend: 0, Doc: hsvDoc("shift", "saturation S ∈ 0…255")},
			{Name: "val_shift", Min: -100, Max: 100, Trend: 0, Doc: hsvDoc("shift", "value V ∈ 0…255")},
		},
		Identity: []float64{0, 0, 0},
		Doc: "Hue/saturation/value shift (albumentations HueSaturationValue): the image rounded " +
			"to 8 bit is converted to HSV with OpenCV's 8-bit RGB→HSV (fixed point, H in 0…179); " +
			"H := (H + hue_shift) mod 180, S := clip(S + sat_shift, 0, 255), V := clip(V + val_shift, " +
			"0, 255), each through a lookup table with fractional results truncated; then back with " +
			"OpenCV's 8-bit HSV→RGB (float32, rounded) (corruptions.md §2.16). All-zero shifts " +
			"return the 8-bit input unchanged, as albumentations does.",
		Papers: []string{"vcr"},
		apply:  applyHueSaturationValue,
	})
	register(&Corruption{
		Name:   "color_jitter",
		Family: Colour,
		Params: []Param{
			{Name: "brightness", Min: 0, Max: 2, Trend: 0,
				Doc: "brightness factor b (0 black, 1 unchanged); [0, 2] is albumentations' " +
					"ColorJitter(brightness=1) of the VCR toolbox (corruptions.md §2.17)"},
			{Name: "contrast", Min: 0, Max: 2, Trend: 0,
				Doc: "contrast factor c (0 uniform grey, 1 unchanged); [0, 2] from ColorJitter(contrast=1) " +
					"(corruptions.md §2.17)"},
			{Name: "saturation", Min: 0, Max: 2, Trend: 0,
				Doc: "saturation factor s (0 grey, 1 unchanged); [0, 2] from ColorJitter(saturation=1) " +
					"(corruptions.md §2.17)"},
			{Name: "hue", Min: -1, Max: 1, Trend: 0,
				Doc: "hue shift h in turns (H += 180·h mod 180); [−1, 1] because the VCR toolbox's " +
					"scalar hue=1 is not range-checked (corruptions.md §2.17)"},
		},
		Identity: []float64{1, 1, 1, 0},
		Doc: "Colour jitter (albumentations ColorJitter on 8-bit RGB): brightness, contrast, " +
			"saturation and hue adjustments applied in a random order drawn from rng " +
			"(corruptions.md §2.17). Brightness: v·b clipped and truncated; contrast: " +
			"v·c + μ(1 − c) with μ the mean OpenCV fixed-point grey level, clipped and truncated " +
			"(c = 0 gives the uniform grey int(μ + 0.5)); saturation: OpenCV addWeighted of the " +
			"image (weight s) and its grey (weight 1 − s) in float32 with fused multiply-add as " +
			"OpenCV's SIMD path computes it, rounded half to even and saturated; hue: OpenCV " +
			"8-bit HSV with H := (H + 180·h) mod 180 truncated. A factor at its neutral value " +
			"skips that operation, as albumentations does. The input is rounded to 8 bit first.",
		Papers: []string{"vcr", "icse"},
		apply:  applyColorJitter,
	})
	rgbDoc := func(ch string) string {
		return "shift added to the 8-bit " + ch + " channel; [−200, 200] is the VCR toolbox's " +
			"RGBShift(200) (the ICSE checker uses [150, 400]; corruptions.md §2.18)"
	}
	register(&Corruption{
		Name:   "rgb_shift",
		Family: Colour,
		Params: []Param{
			{Name: "r_shift", Min: -200, Max: 200, Trend: 0, Doc: rgbDoc("red")},
			{Name: "g_shift", Min: -200, Max: 200, Trend: 0, Doc: rgbDoc("green")},
			{Name: "b_shift", Min: -200, Max: 200, Trend: 0, Doc: rgbDoc("blue")},
		},
		Identity: []float64{0, 0, 0},
		Doc: "RGB shift (albumentations RGBShift on 8-bit RGB): each channel value v becomes " +
			"clip(v + shift, 0, 255) computed in float32 and truncated to an integer, through a " +
			"lookup table per channel (corruptions.md §2.18). The input is rounded to 8 bit first.",
		Papers: []string{"icse"},
		apply:  applyRGBShift,
	})
}

// skimage HSV (scikit-image 0.19 rgb2hsv/hsv2rgb, corruptions.md §2.13), in
// float64 on [0, 1]. Products are wrapped in float64() so that no compiler
// fuses them into FMAs: numpy rounds every operation.

// skRGBToHSV converts one pixel. Ties for the maximum go to blue, then green,
// then red (scikit-image assigns the three cases in that order, later ones
// overwriting). H = (that/6) mod 1 with numpy's remainder, so a tiny negative
// hue becomes 1 − ε, or exactly 1.
func skRGBToHSV(r, g, b float64) (h, s, v float64) {
	v = max(r, g, b)
	delta := v - min(r, g, b)
	if delta == 0 {
		return 0, 0, v
	}
	s = delta / v
	switch v {
	case b:
		h = 4 + (r-g)/delta
	case g:
		h = 2 + (b-r)/delta
	default:
		h = (g - b) / delta
	}
	h /= 6
	if h < 0 {
		h++
	}
	return h, s, v
}

// skHSVToRGB converts one pixel: sector ⌊6H⌋ mod 6, f = 6H − ⌊6H⌋,
// p = V(1 − S), q = V(1 − fS), t = V(1 − (1 − f)S).
func skHSVToRGB(h, s, v float64) (r, g, b float64) {
	h6 := float64(h * 6)
	hi := math.Floor(h6)
	f := h6 - hi
	p := float64(v * (1 - s))
	q := float64(v * (1 - float64(f*s)))
	t := float64(v * (1 - float64((1-f)*s)))
	switch int(hi) % 6 {
	case 0:
		return v, t, p
	case 1:
		return q, v, p
	case 2:
		return p, v, t
	case 3:
		return p, q, v
	case 4:
		return t, p, v
	}
	return v, p, q
}

// hsvOp names the HSV changes that have vector kernels (hsvVec).
type hsvOp int

const (
	hsvBrightness hsvOp = iota // V := colourClip(V + c[0])
	hsvSaturate                // S := colourClip(float64(S·c[0]) + c[1])
)

// colourHSVMap applies fn, which is op with constants c, to the skimage HSV
// of every pixel of src and writes the clipped RGB result to dst. Where the
// build has vector kernels, hsvVec does the pixels in groups of four and
// leaves the groups with samples outside [+0, 1] to the Go loop.
func colourHSVMap(dst, src *imageio.Image, op hsvOp, c [2]float64, fn func(h, s, v float64) (float64, float64, float64)) {
	R, G, B := src.Ch[0], src.Ch[1], src.Ch[2]
	n := len(R)
	G, B = G[:n], B[:n]
	dR, dG, dB := dst.Ch[0][:n], dst.Ch[1][:n], dst.Ch[2][:n]
	for i := 0; i < n; i++ {
		if i+4 <= n {
			if i += hsvVec(op, c, dR[i:], dG[i:], dB[i:], R[i:], G[i:], B[i:]); i >= n {
				break
			}
		}
		h, s, v := skRGBToHSV(float64(R[i]), float64(G[i]), float64(B[i]))
		r, g, b := skHSVToRGB(fn(h, s, v))
		dR[i] = float32(colourClip(r))
		dG[i] = float32(colourClip(g))
		dB[i] = float32(colourClip(b))
	}
}

func colourClip(v float64) float64 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

func applyBrightness(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	c := p[0]
	colourHSVMap(dst, src, hsvBrightness, [2]float64{c, 0}, func(h, s, v float64) (float64, float64, float64) {
		return h, s, colourClip(v + c)
	})
}

func applySaturate(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	a, b := p[0], p[1]
	colourHSVMap(dst, src, hsvSaturate, [2]float64{a, b}, func(h, s, v float64) (float64, float64, float64) {
		return h, colourClip(float64(s*a) + b), v
	})
}

func applyContrast(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	c := float32(p[0])
	for ch := range 3 {
		s := src.Ch[ch]
		d := dst.Ch[ch][:len(s)]
		// (u − m)·c + m = u·c + m(1 − c), with the constant in float64.
		m := colourMean(s)
		k := float32(m - m*float64(c))
		// Clipping is rare here (only rounding can leave [0, 1] for c ≤ 1),
		// so predictable branches beat noiseClamp's branch-free bit tricks.
		for i, v := range s {
			v = v*c + k
			if v < 0 {
				v = 0
			}
			if v > 1 {
				v = 1
			}
			d[i] = v
		}
	}
}

// colourMean returns the mean of s: blocks of 64 samples are summed in
// float32 with four accumulators (block sums ≤ 64, error below 2^−17), and
// the block sums in float64.
func colourMean(s []float32) float64 {
	if len(s) == 0 {
		return 0
	}
	var total float64
	i := 0
	for ; i+64 <= len(s); i += 64 {
		q := s[i : i+64 : i+64]
		var a0, a1, a2, a3 float32
		for j := 0; j < 64; j += 4 {
			a0 += q[j]
			a1 += q[j+1]
			a2 += q[j+2]
			a3 += q[j+3]
		}
		total += float64((a0 + a1) + (a2 + a3))
	}
	for ; i < len(s); i++ {
		total += float64(s[i])
	}
	return total / float64(len(s))
}

// 8-bit helpers for the albumentations corruptions.

// colourPlanes8 returns src rounded to 8 bit, as three planes.
func colourPlanes8(src *imageio.Image) [3][]uint8 {
	n := src.Pixels()
	buf := make([]uint8, 3*n)
	var out [3][]uint8
	for c := range 3 {
		out[c] = buf[c*n : (c+1)*n : (c+1)*n]
		o := out[c][:len(src.Ch[c])]
		for i, v := range src.Ch[c] {
			o[i] = colourTo8(v)
		}
	}
	return out
}

// colourTo8 equals imageio.To8(v, imageio.Round) with predictable branches
// only: round half up in float64, saturate in integers (NaN gives 0).
func colourTo8(v float32) uint8 {
	f := float64(v)*255 + 0.5
	if f >= 256 {
		f = 256
	}
	k := int64(f) // truncation; NaN and large negatives give a negative k
	k = min(max(k, 0), 255)
	return uint8(k)
}

// colourStore8 writes the 8-bit planes into dst as k/255.
func colourStore8(dst *imageio.Image, pl [3][]uint8) {
	for c := range 3 {
		d := dst.Ch[c][:len(pl[c])]
		for i, k := range pl[c] {
			d[i] = imageio.From8(k)
		}
	}
}

// colourLUT applies lut to every sample of p in place.
func colourLUT(p []uint8, lut *[256]uint8) {
	for i, k := range p {
		p[i] = lut[k]
	}
}

// OpenCV 4.x 8-bit RGB↔HSV (COLOR_RGB2HSV / COLOR_HSV2RGB, hue range 180).

// cvHSVShift is OpenCV's fixed-point precision for RGB2HSV_b.
const cvHSVShift = 12

// cvSdiv[i] = round((255 << 12)/i) and cvHdiv[i] = round((180 << 12)/(6i)),
// OpenCV's saturate_cast<int> of a double (round half to even; no ties occur).
var cvSdiv, cvHdiv [256]int32

func init() {
	for i := 1; i < 256; i++ {
		cvSdiv[i] = int32(math.RoundToEven(float64(255<<cvHSVShift) / float64(i)))
		cvHdiv[i] = int32(math.RoundToEven(float64(180<<cvHSVShift) / (6 * float64(i))))
	}
}

// cvRGBToHSV8 is OpenCV's RGB2HSV_b for one pixel: V = max, S and H in fixed
// point with table reciprocals; ties for the maximum go to red, then green.
func cvRGBToHSV8(r, g, b uint8) (h, s, v uint8) {
	R, G, B := int32(r), int32(g), int32(b)
	V := max(R, G, B)
	diff := V - min(R, G, B)
	S := (diff*cvSdiv[V] + 1<<(cvHSVShift-1)) >> cvHSVShift
	var H int32
	switch V {
	case R:
		H = G - B
	case G:
		H = B - R + 2*diff
	default:
		H = R - G + 4*diff
	}
	H = (H*cvHdiv[diff] + 1<<(cvHSVShift-1)) >> cvHSVShift
	if H < 0 {
		H += 180
	}
	return uint8(min(max(H, 0), 255)), uint8(S), uint8(V)
}

// cvHScale is OpenCV's hscale = 6.f/180 for the 8-bit hue range.
const cvHScale = float32(6.0 / 180)

// cvHSVToRGB8 is OpenCV's HSV2RGB_b for one pixel: S and V scaled by 1/255
// in float32, HSV2RGB_f's sector formulas in float32, then each channel ×255
// rounded half to even and saturated.
func cvHSVToRGB8(h, s, v uint8) (r, g, b uint8) {
	const inv255 = float32(1.0 / 255)
	sf := float32(float32(s) * inv255)
	vf := float32(float32(v) * inv255)
	var rf, gf, bf float32
	if sf == 0 {
		rf, gf, bf = vf, vf, vf
	} else {
		hf := float32(float32(h) * cvHScale)
		for hf < 0 {
			hf += 6
		}
		for hf >= 6 {
			hf -= 6
		}
		sector := int(math.Floor(float64(hf)))
		hf -= float32(sector)
		if sector < 0 || sector >= 6 {
			sector, hf = 0, 0
		}
		t0 := vf
		t1 := float32(vf * float32(1-sf))
		t2 := float32(vf * float32(1-float32(sf*hf)))
		t3 := float32(vf * float32(1-float32(sf*float32(1-hf))))
		switch sector {
		case 0:
			rf, gf, bf = t0, t3, t1
		case 1:
			rf, gf, bf = t2, t0, t1
		case 2:
			rf, gf, bf = t1, t0, t3
		case 3:
			rf, gf, bf = t1, t2, t0
		case 4:
			rf, gf, bf = t3, t1, t0
		default:
			rf, gf, bf = t0, t1, t2
		}
	}
	return cvRound8(float32(rf * 255)), cvRound8(float32(gf * 255)), cvRound8(float32(bf * 255))
}

// cvRound8 is saturate_cast<uchar>(float): round half to even, then clamp.
func cvRound8(x float32) uint8 {
	r := math.RoundToEven(float64(x))
	if !(r > 0) {
		return 0
	}
	if r > 255 {
		return 255
	}
	return uint8(r)
}

// cvGray8 is OpenCV 4.x's fixed-point COLOR_RGB2GRAY for 8-bit input.
func cvGray8(r, g, b uint8) uint8 {
	return uint8((9798*uint32(r) + 19235*uint32(g) + 3735*uint32(b) + 16384) >> 15)
}

// npMod is numpy's remainder for a positive divisor: fmod, then shifted into
// [0, m) when negative (which can round up to exactly m).
func npMod(x, m float64) float64 {
	r := math.Mod(x, m)
	if r != 0 && r < 0 {
		r += m
	}
	return r
}

// npToUint8 is numpy's astype(uint8) of a float already in [0, 255]:
// truncation toward zero.
func npToUint8(x float64) uint8 { return uint8(x) }

// colourHueLUT is albumentations' hue table: np.mod(k + shift, 180) truncated.
func colourHueLUT(shift float64) *[256]uint8 {
	var lut [256]uint8
	for k := range lut {
		lut[k] = npToUint8(npMod(float64(k)+shift, 180))
	}
	return &lut
}

// colourClipLUT is albumentations' saturation/value table: clip(k + shift, 0, 255) truncated.
func colourClipLUT(shift float64) *[256]uint8 {
	var lut [256]uint8
	for k := range lut {
		lut[k] = npToUint8(math.Min(math.Max(float64(k)+shift, 0), 255))
	}
	return &lut
}

// colourHSVApply converts the 8-bit planes to OpenCV HSV, maps H, S and V
// through the tables (nil = unchanged) and converts back, in place.
func colourHSVApply(pl [3][]uint8, hl, sl, vl *[256]uint8) {
	R, G, B := pl[0], pl[1][:len(pl[0])], pl[2][:len(pl[0])]
	for i := range R {
		h, s, v := cvRGBToHSV8(R[i], G[i], B[i])
		if hl != nil {
			h = hl[h]
		}
		if sl != nil {
			s = sl[s]
		}
		if vl != nil {
			v = vl[v]
		}
		R[i], G[i], B[i] = cvHSVToRGB8(h, s, v)
	}
}

func applyHueSaturationValue(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	pl := colourPlanes8(src)
	hs, ss, vs := p[0], p[1], p[2]
	if hs != 0 || ss != 0 || vs != 0 {
		var hl, sl, vl *[256]uint8
		if hs != 0 {
			hl = colourHueLUT(hs)
		}
		if ss != 0 {
			sl = colourClipLUT(ss)
		}
		if vs != 0 {
			vl = colourClipLUT(vs)
		}
		colourHSVApply(pl, hl, sl, vl)
	}
	colourStore8(dst, pl)
}

func applyRGBShift(dst, src *imageio.Image, p []float64, _ *rand.Rand) {
	pl := colourPlanes8(src)
	for c := range 3 {
		// numpy: float32 table += shift (computed in float32), clip, astype(uint8).
		var lut [256]uint8
		sh := float32(p[c])
		for k := range lut {
			v := float32(k) + sh
			lut[k] = uint8(min(max(v, 0), 255))
		}
		colourLUT(pl[c], &lut)
	}
	colourStore8(dst, pl)
}

func applyColorJitter(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	pl := colourPlanes8(src)
	order := [4]int{0, 1, 2, 3}
	rng.Shuffle(4, func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, op := range order {
		switch op {
		case 0:
			jitterBrightness(pl, p[0])
		case 1:
			jitterContrast(pl, p[1])
		case 2:
			jitterSaturation(pl, p[2])
		case 3:
			jitterHue(pl, p[3])
		}
	}
	colourStore8(dst, pl)
}

// jitterBrightness: table clip(k·b, 0, 255) truncated; b = 1 skips.
func jitterBrightness(pl [3][]uint8, b float64) {
	if b == 1 {
		return
	}
	var lut [256]uint8
	for k := range lut {
		lut[k] = npToUint8(math.Min(math.Max(float64(k)*b, 0), 255))
	}
	for c := range 3 {
		colourLUT(pl[c], &lut)
	}
}

// jitterGrayMean is the mean of the OpenCV grey image (exact: an integer sum).
func jitterGrayMean(pl [3][]uint8) float64 {
	R, G, B := pl[0], pl[1][:len(pl[0])], pl[2][:len(pl[0])]
	if len(R) == 0 {
		return 0
	}
	var sum uint64
	for i := range R {
		sum += uint64(cvGray8(R[i], G[i], B[i]))
	}
	return float64(sum) / float64(len(R))
}

// jitterContrast: table clip(k·c + μ(1 − c), 0, 255) truncated with μ the
// grey mean; c = 0 gives the uniform grey int(μ + 0.5); c = 1 skips.
func jitterContrast(pl [3][]uint8, c float64) {
	if c == 1 {
		return
	}
	mu := jitterGrayMean(pl)
	var lut [256]uint8
	if c == 0 {
		g := uint8(int(mu + 0.5))
		for k := range lut {
			lut[k] = g
		}
	} else {
		off := float64(mu * (1 - c))
		for k := range lut {
			lut[k] = npToUint8(math.Min(math.Max(float64(float64(k)*c)+off, 0), 255))
		}
	}
	for ch := range 3 {
		colourLUT(pl[ch], &lut)
	}
}

// jitterSaturation: OpenCV addWeighted(img, s, grey, 1 − s, 0) per channel,
// in float32: fma(v, s, round32(g·(1 − s))) rounded half to even and
// saturated; s = 0 gives the grey image, s = 1 skips.
func jitterSaturation(pl [3][]uint8, s float64) {
	if s == 1 {
		return
	}
	R, G, B := pl[0], pl[1][:len(pl[0])], pl[2][:len(pl[0])]
	alpha, beta := float32(s), float32(1-s)
	// v·alpha is exact in float64 (8 × 24 significant bits) and adding the
	// float32 g·beta is exact for any alpha ≥ 2^−20, so rounding the float64
	// sum to float32 rounds once, as the fused multiply-add does.
	var prod [256]float64
	for k := range prod {
		prod[k] = float64(k) * float64(alpha)
	}
	for i := range R {
		g := cvGray8(R[i], G[i], B[i])
		if s == 0 {
			R[i], G[i], B[i] = g, g, g
			continue
		}
		gb := float64(float32(float32(g) * beta))
		R[i] = cvRound8(float32(prod[R[i]] + gb))
		G[i] = cvRound8(float32(prod[G[i]] + gb))
		B[i] = cvRound8(float32(prod[B[i]] + gb))
	}
}

// jitterHue: OpenCV HSV with H := np.mod(H + 180·h, 180) truncated; h = 0 skips.
func jitterHue(pl [3][]uint8, h float64) {
	if h == 0 {
		return
	}
	colourHSVApply(pl, colourHueLUT(180*h), nil, nil)
}
