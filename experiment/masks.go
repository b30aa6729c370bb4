package experiment

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/dsp/fourier"
)

// MaxMaskPixels bounds the size of a noise mask.
const MaxMaskPixels = 4096 * 4096

// MaskPNG returns noise mask i of the design, w×h pixels, as a greyscale
// PNG: full-contrast pink noise, whose amplitude spectrum falls as 1/f
// like that of natural images, the backward mask of Geirhos et al. (2018,
// "Generalisation in humans and deep neural networks": "a full-contrast
// pink noise mask (1/f spectral shape)"). Mask i is a pure function of
// (d.MaskSeed, i, w, h); see PinkNoise. It panics if w or h is below 1 or
// w·h exceeds MaxMaskPixels.
func MaskPNG(d *Design, i int, w, h int) []byte {
	g := PinkNoise(d.MaskSeed, uint64(i), w, h)
	m := image.NewGray(image.Rect(0, 0, w, h))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range g {
		lo, hi = min(lo, v), max(hi, v)
	}
	scale := 0.0
	if hi > lo {
		scale = 255 / (hi - lo)
	}
	for k, v := range g {
		m.Pix[k] = uint8(math.Round((v - lo) * scale))
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, m); err != nil {
		panic("experiment: encoding a mask: " + err.Error()) // cannot fail on a bytes.Buffer
	}
	return buf.Bytes()
}

// PinkNoise returns w×h samples (row-major) of zero-mean pink noise: white
// Gaussian noise from a PCG generator seeded with (seed, stream), filtered
// in the 2-D Fourier domain by 1/f, where f = √(fx² + fy²) is the spatial
// frequency in cycles per pixel (the DC term is set to 0). The amplitude
// spectrum therefore falls with slope −1 on log-log axes. It panics if w or
// h is below 1 or w·h exceeds MaxMaskPixels.
func PinkNoise(seed, stream uint64, w, h int) []float64 {
	if w < 1 || h < 1 || w*h > MaxMaskPixels {
		panic(fmt.Sprintf("experiment: mask size %d×%d out of range [1, %d pixels]", w, h, MaxMaskPixels))
	}
	rng := rand.New(rand.NewPCG(seed, stream))
	c := make([]complex128, w*h)
	for k := range c {
		c[k] = complex(rng.NormFloat64(), 0)
	}
	fft2(c, w, h, false)
	for y := range h {
		fy := float64(min(y, h-y)) / float64(h)
		row := c[y*w : (y+1)*w]
		for x := range row {
			fx := float64(min(x, w-x)) / float64(w)
			f := math.Hypot(fx, fy)
			if f == 0 {
				row[x] = 0
				continue
			}
			row[x] *= complex(1/f, 0)
		}
	}
	fft2(c, w, h, true)
	out := make([]float64, w*h)
	for k, v := range c {
		out[k] = real(v)
	}
	return out
}

// fft2 transforms c (h rows of w) in place: forward, or inverse without
// the 1/(w·h) normalisation.
func fft2(c []complex128, w, h int, inverse bool) {
	fw := fourier.NewCmplxFFT(w)
	tmp := make([]complex128, max(w, h))
	for y := range h {
		row := c[y*w : (y+1)*w]
		if inverse {
			fw.Sequence(tmp[:w], row)
		} else {
			fw.Coefficients(tmp[:w], row)
		}
		copy(row, tmp[:w])
	}
	fh := fourier.NewCmplxFFT(h)
	col := make([]complex128, h)
	for x := range w {
		for y := range h {
			col[y] = c[y*w+x]
		}
		if inverse {
			fh.Sequence(tmp[:h], col)
		} else {
			fh.Coefficients(tmp[:h], col)
		}
		for y := range h {
			c[y*w+x] = tmp[y]
		}
	}
}
