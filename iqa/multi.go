package iqa

import (
	"fmt"
	"math"
	"slices"
)

// MultiScorer computes VIF with several methods per pair. The wavelet
// methods (VCRPy, VIFVec, VIFVec2Layers) share one steerable-pyramid
// decomposition per pair, and the per-subband statistics they have in common
// (the reference's patch moments, the per-block quadratic forms yᵀ·Cu⁻¹·y
// where the GSM models agree, the channel's window sums where the windows
// agree); only the rest of the per-block statistics is computed per method.
// Every Result is bit-identical to the one a Scorer of that method returns.
// Pixel-domain methods are scored with their own Scorer.
//
// Like Scorer, a MultiScorer owns its scratch memory (scoring a stream of
// equally sized images allocates nothing) and is not safe for concurrent
// use.
type MultiScorer struct {
	methods []Method
	wavelet []int // indices into methods of the wavelet methods
	wave    *waveWorkspace
	fl      []waveFlavour
	single  map[int]*Scorer // the non-wavelet methods, by index
}

// NewMultiScorer returns a MultiScorer for the given methods, in that order.
// It panics on an unknown or repeated method or an empty list (use
// ParseMethod for user input).
func NewMultiScorer(methods ...Method) *MultiScorer {
	if len(methods) == 0 {
		panic("iqa: NewMultiScorer needs at least one method")
	}
	s := &MultiScorer{methods: slices.Clone(methods), single: map[int]*Scorer{}}
	for i, m := range methods {
		if _, err := ParseMethod(string(m)); err != nil {
			panic("iqa: " + err.Error())
		}
		if slices.Index(methods, m) != i {
			panic("iqa: NewMultiScorer: method " + string(m) + " given twice")
		}
		if IsWavelet(m) {
			s.wavelet = append(s.wavelet, i)
		} else {
			s.single[i] = NewScorer(m)
		}
	}
	s.fl = make([]waveFlavour, len(s.wavelet))
	return s
}

// IsWavelet reports whether m is a steerable-pyramid (wavelet-domain) method.
func IsWavelet(m Method) bool { return m == VCRPy || m == VIFVec || m == VIFVec2Layers }

// Methods returns the scorer's methods, in the order Score reports them.
func (s *MultiScorer) Methods() []Method { return slices.Clone(s.methods) }

// Score appends to dst one Result per method, in the order of Methods, for
// the pair (ref, dist), and returns the extended slice (pass dst[:0] to
// reuse it). It returns an error wrapping ErrSize if the sizes differ, and
// an error if the images are too small for a method. Where a Scorer would
// return an error wrapping ErrNoDetail (VIF undefined for this pair), that
// method's Result has VIF and DV NaN and Score returns no error: the other
// methods' values stand.
func (s *MultiScorer) Score(dst []Result, ref, dist *Gray) ([]Result, error) {
	if ref.Width != dist.Width || ref.Height != dist.Height {
		return dst, fmt.Errorf("reference is %d×%d but distorted is %d×%d: %w", ref.Width, ref.Height, dist.Width, dist.Height, ErrSize)
	}
	if len(ref.Pix) != ref.Width*ref.Height || len(dist.Pix) != len(ref.Pix) {
		panic("iqa: Gray with wrong Pix length")
	}
	return s.score(dst, ref, nil, dist)
}

// score is Score, with the reference's wavelet share taken from wr where
// it is not nil (wr prepared from ref for s's wavelet methods).
func (s *MultiScorer) score(dst []Result, ref *Gray, wr *waveRef, dist *Gray) ([]Result, error) {
	w, h := ref.Width, ref.Height
	if len(s.wavelet) > 0 {
		if PyramidHeight(w, h) == 0 {
			return dst, fmt.Errorf("image is %d×%d; the steerable-pyramid VIF needs both sides ≥ %d pixels", w, h, minSide)
		}
		height := 0
		for j, i := range s.wavelet {
			s.fl[j] = newWaveFlavour(s.methods[i], w, h)
			height = max(height, s.fl[j].height)
		}
		if s.wave == nil || s.wave.w != w || s.wave.h != h || s.wave.height != height {
			s.wave = newWaveWorkspace(w, h, height)
		}
		if wr != nil {
			s.wave.levels(wr, nil, dist.Pix, s.fl)
		} else {
			s.wave.vifs(ref.Pix, dist.Pix, s.fl)
		}
	}
	same := slices.Equal(ref.Pix, dist.Pix)
	n := len(dst)
	for i, m := range s.methods {
		r := Result{Method: m}
		if sc := s.single[i]; sc != nil {
			var err error
			if r, err = sc.Score(ref, dist); err != nil {
				return dst[:n], err
			}
		} else {
			f := &s.fl[slices.Index(s.wavelet, i)]
			r.VIF, r.Levels = f.vif(), f.height
			r.DV = DV(r.VIF)
			if math.IsNaN(r.VIF) {
				r.DV = math.NaN()
			} else if same {
				r.DV = 0 // as Scorer.Score: no change at all is Δv = 0
			}
		}
		dst = append(dst, r)
	}
	return dst, nil
}
