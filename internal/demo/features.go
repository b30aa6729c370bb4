package demo

import (
	"math"
	"slices"
)

// Feature extraction: the image is reduced to a featSide×featSide grey
// image by area averaging; its central-difference gradients are binned by
// unsigned orientation (featBins bins over [0, π), linear interpolation
// between bins, weighted by squared magnitude, which favours the object's edges over the background texture), as in a single-cell HOG (Dalal &
// Triggs, 2005). The features are the L1-normalised histogram, the same
// values sorted in decreasing order (a rotation-invariant description of how
// peaked it is), its circular autocorrelation, the mean gradient magnitude and the fraction of strong
// edges.
const (
	featSide = 48
	featBins = 12
	featLags = featBins/2 + 1
	// NumFeatures is the length of a feature vector.
	NumFeatures = 2*featBins + featLags + 2
)

// Features computes the feature vector of a planar RGB image (c, h, w
// float32 planes, channel-major as in an NCHW tensor, values in [0, 1])
// into dst, which must be NumFeatures long. grey and tmp are scratch
// buffers of featSide² values each.
func Features(dst []float64, rgb []float32, w, h int, grey []float64) {
	if len(dst) != NumFeatures || len(rgb) != 3*w*h || len(grey) != featSide*featSide || w < 1 || h < 1 {
		panic("demo: Features: wrong buffer sizes")
	}
	// Area-average luma into featSide×featSide cells (nearest cell per pixel).
	clear(grey)
	var count [featSide * featSide]float64
	n := w * h
	r, g, b := rgb[:n], rgb[n:2*n], rgb[2*n:3*n]
	for y := range h {
		cy := y * featSide / h
		for x := range w {
			k := y*w + x
			cell := cy*featSide + x*featSide/w
			grey[cell] += 0.299*float64(r[k]) + 0.587*float64(g[k]) + 0.114*float64(b[k])
			count[cell]++
		}
	}
	for i := range grey {
		if count[i] > 0 {
			grey[i] /= count[i]
		}
	}
	var hist [featBins]float64
	sum, hsum, strong := 0.0, 0.0, 0
	const s = featSide
	for y := 1; y < s-1; y++ {
		for x := 1; x < s-1; x++ {
			gx := grey[y*s+x+1] - grey[y*s+x-1]
			gy := grey[(y+1)*s+x] - grey[(y-1)*s+x]
			mag := math.Hypot(gx, gy)
			if mag == 0 {
				continue
			}
			sum += mag
			wgt := mag * mag
			if mag > 0.1 {
				strong++
			}
			th := math.Atan2(gy, gx)
			if th < 0 {
				th += math.Pi
			}
			pos := th / math.Pi * featBins
			lo := int(math.Floor(pos - 0.5))
			f := pos - 0.5 - float64(lo)
			hist[(lo+featBins)%featBins] += wgt * (1 - f)
			hist[(lo+1)%featBins] += wgt * f
			hsum += wgt
		}
	}
	if hsum > 0 {
		for i := range hist {
			hist[i] /= hsum
		}
	}
	copy(dst, hist[:])
	sorted := slices.Clone(hist[:])
	slices.Sort(sorted)
	slices.Reverse(sorted)
	copy(dst[featBins:], sorted)
	// Circular autocorrelation of the histogram at lags 0…featBins/2:
	// rotation-invariant; a square peaks at 90° (lag featBins/2), a
	// triangle at 60°, a disc is flat, stripes peak at lag 0 only.
	for lag := range featLags {
		a := 0.0
		for i := range featBins {
			a += hist[i] * hist[(i+lag)%featBins]
		}
		dst[2*featBins+lag] = a * featBins
	}
	inner := float64((s - 2) * (s - 2))
	dst[2*featBins+featLags] = sum / inner
	dst[2*featBins+featLags+1] = float64(strong) / inner
}
