package iqa

import (
	"fmt"
	"math"
	"slices"
)

// Reference is a reference image prepared for scoring many distorted images
// against it (Scorer.Prepare, MultiScorer.Prepare). For the wavelet methods
// it holds what VIF computes from the reference alone — its steerable
// pyramid's bands and, per subband, the patch covariance's eigenvalues and
// inverse and each block's s = yᵀ·Cu⁻¹·y/9 — so that scoring a distorted
// image decomposes only that image: less than half the work of Score. For
// the pixel-domain methods nothing of the reference can be computed ahead
// (their window sums mix both images), and scoring against a Reference
// costs what Score costs.
//
// A Reference holds a copy of the reference's pixels, so the caller may
// reuse its Gray. It is read-only once prepared: Scorers and MultiScorers
// in several goroutines may score against one Reference at the same time.
type Reference struct {
	methods []Method
	gray    Gray
	wave    *waveRef // nil without wavelet methods
}

// Methods returns the methods r was prepared for.
func (r *Reference) Methods() []Method { return slices.Clone(r.methods) }

// Size returns the width and height of the reference image.
func (r *Reference) Size() (w, h int) { return r.gray.Width, r.gray.Height }

// prepareReference returns the Reference of ref for methods, using ws's
// scratch (ws is replaced if it does not fit; the new one is returned).
func prepareReference(ref *Gray, methods []Method, ws *waveWorkspace) (*Reference, *waveWorkspace, error) {
	if len(ref.Pix) != ref.Width*ref.Height {
		panic("iqa: Gray with wrong Pix length")
	}
	w, h := ref.Width, ref.Height
	r := &Reference{methods: slices.Clone(methods), gray: Gray{Width: w, Height: h, Pix: slices.Clone(ref.Pix)}}
	var fl []waveFlavour
	for _, m := range methods {
		if IsWavelet(m) {
			if PyramidHeight(w, h) == 0 {
				return nil, ws, fmt.Errorf("image is %d×%d; the steerable-pyramid VIF needs both sides ≥ %d pixels", w, h, minSide)
			}
			fl = append(fl, newWaveFlavour(m, w, h))
		} else if err := pixelSizeError(m, w, h); err != nil {
			return nil, ws, err
		}
	}
	if len(fl) > 0 {
		height := 0
		for _, f := range fl {
			height = max(height, f.height)
		}
		if ws == nil || ws.w != w || ws.h != h || ws.height != height {
			ws = newWaveWorkspace(w, h, height)
		}
		r.wave = newWaveRef(w, h, height, false)
		r.wave.kinds = flavourKinds(fl)
		for lw, lh, lev := w, h, 0; lev < height; lev++ {
			nb := (lw / blockM) * (lh / blockM)
			for b := range 2 {
				for k, ok := range r.wave.kinds {
					if ok {
						r.wave.s[lev][b][k] = make([]float64, nb)
					}
				}
			}
			lw, lh = (lw+1)/2, (lh+1)/2
		}
		ws.levels(r.wave, r.gray.Pix, nil, nil)
	}
	return r, ws, nil
}

// checkReference panics unless r was prepared for every method in methods,
// and returns an error wrapping ErrSize if dist's size differs from r's.
func checkReference(r *Reference, dist *Gray, methods ...Method) error {
	for _, m := range methods {
		if !slices.Contains(r.methods, m) {
			panic("iqa: Reference prepared without method " + string(m))
		}
	}
	if r.gray.Width != dist.Width || r.gray.Height != dist.Height {
		return fmt.Errorf("reference is %d×%d but distorted is %d×%d: %w", r.gray.Width, r.gray.Height, dist.Width, dist.Height, ErrSize)
	}
	if len(dist.Pix) != dist.Width*dist.Height {
		panic("iqa: Gray with wrong Pix length")
	}
	return nil
}

// Prepare returns ref prepared for scoring with s's method (ScoreRef). It
// returns the error Score would return for any pair of ref's size (an image
// too small for the method). Prepare allocates the Reference; scoring
// against it allocates nothing once s has scored an image of that size.
func (s *Scorer) Prepare(ref *Gray) (*Reference, error) {
	r, ws, err := prepareReference(ref, []Method{s.method}, s.wave)
	if err != nil {
		return nil, err
	}
	s.wave = ws
	return r, nil
}

// ScoreRef returns what Score(ref, dist) returns for the reference ref that
// r was prepared from, bit for bit, computing only dist's share of the work.
// It panics if r was not prepared for s's method. It returns an error
// wrapping ErrSize if dist's size differs from the reference's, and the
// errors Score returns (ErrNoDetail for a reference without detail).
func (s *Scorer) ScoreRef(r *Reference, dist *Gray) (Result, error) {
	if err := checkReference(r, dist, s.method); err != nil {
		return Result{}, err
	}
	if !IsWavelet(s.method) {
		return s.Score(&r.gray, dist)
	}
	w, h := dist.Width, dist.Height
	f := [1]waveFlavour{newWaveFlavour(s.method, w, h)}
	if s.wave == nil || s.wave.w != w || s.wave.h != h || s.wave.height != f[0].height {
		s.wave = newWaveWorkspace(w, h, f[0].height)
	}
	s.wave.levels(r.wave, nil, dist.Pix, f[:])
	v := f[0].vif()
	if math.IsNaN(v) {
		return Result{}, fmt.Errorf("%s VIF of a %d×%d pair: %w", s.method, w, h, ErrNoDetail)
	}
	res := Result{VIF: v, Levels: f[0].height, Method: s.method, DV: DV(v)}
	if slices.Equal(r.gray.Pix, dist.Pix) {
		res.DV = 0 // as Score: no change at all is Δv = 0
	}
	return res, nil
}

// Prepare returns ref prepared for scoring with all of s's methods
// (ScoreRef), or the error Score would return for any pair of ref's size.
// Prepare allocates the Reference; scoring against it allocates nothing
// once s has scored an image of that size.
func (s *MultiScorer) Prepare(ref *Gray) (*Reference, error) {
	r, ws, err := prepareReference(ref, s.methods, s.wave)
	if err != nil {
		return nil, err
	}
	s.wave = ws
	return r, nil
}

// ScoreRef appends to dst what Score(dst, ref, dist) appends for the
// reference ref that r was prepared from, bit for bit, computing only
// dist's share of the wavelet methods' work, and returns the extended slice.
// It panics if r was not prepared for all of s's methods, and returns the
// errors Score returns.
func (s *MultiScorer) ScoreRef(dst []Result, r *Reference, dist *Gray) ([]Result, error) {
	if err := checkReference(r, dist, s.methods...); err != nil {
		return dst, err
	}
	return s.score(dst, &r.gray, r.wave, dist)
}
