package iqa

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// Gray is a grey image on the 0…255 scale, row-major, Width*Height samples.
type Gray struct {
	Width, Height int
	Pix           []float64
}

// NewGray returns a black w×h grey image.
func NewGray(w, h int) *Gray { return &Gray{Width: w, Height: h, Pix: make([]float64, w*h)} }

// GrayFrom converts m to grey exactly as the VCR reference does before VIF:
// 8-bit channels, OpenCV's fixed-point (9798·R + 19235·G + 3735·B + 16384) >> 15.
func GrayFrom(m *imageio.Image) *Gray {
	g := NewGray(m.Width, m.Height)
	m.Luma(g.Pix)
	return g
}

// Method names a VIF flavour.
type Method string

const (
	// VCRPy is the steerable-pyramid VIF as the VCR toolbox's Python port
	// computes it (σn² = 0.1, means over blocks, +1e-4 terms). The default.
	VCRPy Method = "vcr-py"
	// VIFVec is Sheikh's MATLAB vifvec release, which labelled the ICSE 2022
	// human data (σn² = 0.4, sums over blocks, no 1e-4 terms).
	VIFVec Method = "vifvec"
	// VIFVec2Layers is the vifvec flavour on a pyramid of at most two
	// levels: the ICSE 2022 study labelled its CIFAR-10 (32×32) human data
	// with an unpublished MATLAB function vifvec2_layers, presumably this
	// (a 4-level pyramid is impossible at 32 pixels). It cannot be checked
	// against the unpublished code; see docs/vif.md.
	VIFVec2Layers Method = "vifvec2-layers"
	// Pixel is the single-scale pixel-domain VIF (11×11 box windows).
	Pixel Method = "pixel"
	// PixelMS is the multi-scale pixel-domain VIF (up to 5 scales).
	PixelMS Method = "pixel-multiscale"
)

// Methods lists every method, the default first.
var Methods = []Method{VCRPy, VIFVec, VIFVec2Layers, Pixel, PixelMS}

// ParseMethod returns the method with the given name.
func ParseMethod(s string) (Method, error) {
	for _, m := range Methods {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown VIF method %q; choose one of %s", s, strings.Join(names, ", "))
}

// Result is one VIF measurement.
type Result struct {
	VIF    float64 `json:"vif"`
	DV     float64 `json:"dv"`
	Method Method  `json:"method"`
	// Levels is the steerable-pyramid height used (wavelet methods only).
	// The reference uses 4; smaller images get fewer levels (see Scorer).
	Levels int `json:"levels,omitempty"`
}

// DV returns the visual change max(0, 1 − vif), clamped to [0, 1].
func DV(vif float64) float64 {
	return max(0, min(1, 1-vif))
}

// ErrSize is returned (wrapped) when the two images differ in size.
var ErrSize = errors.New("image sizes differ")

// Scorer computes VIF with one method and owns all scratch memory, so that
// scoring a stream of equally sized images does not allocate in steady
// state. A Scorer is not safe for concurrent use; use one per goroutine.
type Scorer struct {
	method Method
	wave   *waveWorkspace
	pix    *pixelWorkspace
}

// NewScorer returns a Scorer for method m. It panics on an unknown method
// (use ParseMethod for user input).
func NewScorer(m Method) *Scorer {
	if _, err := ParseMethod(string(m)); err != nil {
		panic("iqa: " + err.Error())
	}
	return &Scorer{method: m}
}

// Method returns the scorer's method.
func (s *Scorer) Method() Method { return s.method }

// Score returns the VIF of dist with respect to ref and the visual change Δv.
// Δv is exactly 0 when the two images are identical. It returns an error
// wrapping ErrSize if the sizes differ, and an error for images too small for
// the method (wavelet methods need a shorter side of at least 9 pixels and
// use a lower pyramid below 72; see docs/vif.md and Result.Levels).
func (s *Scorer) Score(ref, dist *Gray) (Result, error) {
	if ref.Width != dist.Width || ref.Height != dist.Height {
		return Result{}, fmt.Errorf("reference is %d×%d but distorted is %d×%d: %w", ref.Width, ref.Height, dist.Width, dist.Height, ErrSize)
	}
	if len(ref.Pix) != ref.Width*ref.Height || len(dist.Pix) != len(ref.Pix) {
		panic("iqa: Gray with wrong Pix length")
	}
	var r Result
	var err error
	switch s.method {
	case VCRPy, VIFVec, VIFVec2Layers:
		r, err = s.scoreWavelet(ref, dist)
	case Pixel, PixelMS:
		r, err = s.scorePixel(ref, dist)
	}
	if err != nil {
		return Result{}, err
	}
	r.Method = s.method
	r.DV = DV(r.VIF)
	if slices.Equal(ref.Pix, dist.Pix) {
		// No change at all: Δv is 0 by definition. The computed VIF of an
		// identical pair is 1 only up to the published formulas' tolerance
		// terms (0.9999999999999981 in the VCR toolbox); it is reported as
		// computed, but it must not put an unchanged image above Δv = 0.
		r.DV = 0
	}
	return r, nil
}

// DVColumn is the name of the manifest and results column that holds Δv
// computed with method m: "dv_" followed by the method's name with '-' as
// '_' (dv_vcr_py, dv_vifvec, …), so that pandas users can write
// df.dv_vifvec. The column "dv" holds Δv of the run's primary method.
func DVColumn(m Method) string { return "dv_" + strings.ReplaceAll(string(m), "-", "_") }
