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
// The zero Reference is not prepared; PrepareTo and PrepareScore prepare
// one in place, reusing its memory, and must not run while another
// goroutine scores against it.
type Reference struct {
	ready   bool
	methods []Method
	gray    Gray
	wave    *waveRef // nil without wavelet methods
}

// Methods returns the methods r was prepared for.
func (r *Reference) Methods() []Method { return slices.Clone(r.methods) }

// Size returns the width and height of the reference image.
func (r *Reference) Size() (w, h int) { return r.gray.Width, r.gray.Height }

// setup readies r to hold ref prepared for methods without computing
// anything: it copies the pixels, checks ref's size against every method
// (returning the error Score would return for any pair of that size) and
// sizes the wavelet part, reusing r's memory where the size, the pyramid
// height and the GSM kinds agree. It returns the workspace to compute with:
// ws, or a new one if ws does not fit.
func (r *Reference) setup(ref *Gray, methods []Method, ws *waveWorkspace) (*waveWorkspace, error) {
	if len(ref.Pix) != ref.Width*ref.Height {
		panic("iqa: Gray with wrong Pix length")
	}
	r.ready = false
	w, h := ref.Width, ref.Height
	height := 0
	var kinds [2]bool
	for _, m := range methods {
		if IsWavelet(m) {
			if PyramidHeight(w, h) == 0 {
				return ws, fmt.Errorf("image is %d×%d; the steerable-pyramid VIF needs both sides ≥ %d pixels", w, h, minSide)
			}
			f := newWaveFlavour(m, w, h)
			height = max(height, f.height)
			kinds[gsmKind(f.p)] = true
		} else if err := pixelSizeError(m, w, h); err != nil {
			return ws, err
		}
	}
	r.methods = append(r.methods[:0], methods...)
	r.gray.Width, r.gray.Height = w, h
	r.gray.Pix = append(r.gray.Pix[:0], ref.Pix...)
	if height == 0 {
		r.wave = nil
		return ws, nil
	}
	if ws == nil || ws.w != w || ws.h != h || ws.height != height {
		ws = newWaveWorkspace(w, h, height)
	}
	if wr := r.wave; wr != nil && wr.w == w && wr.h == h && wr.height == height && wr.kinds == kinds {
		return ws, nil // every band, model and s is overwritten
	}
	wr := newWaveRef(w, h, height, false)
	wr.kinds = kinds
	for lw, lh, lev := w, h, 0; lev < height; lev++ {
		nb := (lw / blockM) * (lh / blockM)
		for b := range 2 {
			for k, ok := range kinds {
				if ok {
					wr.s[lev][b][k] = make([]float64, nb)
				}
			}
		}
		lw, lh = (lw+1)/2, (lh+1)/2
	}
	r.wave = wr
	return ws, nil
}

// checkReference panics unless r is prepared for every method in methods,
// and returns an error wrapping ErrSize if dist's size differs from r's.
func checkReference(r *Reference, dist *Gray, methods ...Method) error {
	if !r.ready {
		panic("iqa: Reference not prepared")
	}
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
// too small for the method). Prepare allocates the Reference; PrepareTo
// reuses one.
func (s *Scorer) Prepare(ref *Gray) (*Reference, error) {
	r := new(Reference)
	if err := s.PrepareTo(r, ref); err != nil {
		return nil, err
	}
	return r, nil
}

// PrepareTo prepares dst from ref for scoring with s's method, as Prepare
// does, reusing dst's memory: once dst and s have held an image of that
// size, it allocates nothing. On error dst is left unprepared.
func (s *Scorer) PrepareTo(dst *Reference, ref *Gray) error {
	return dst.prepare(ref, []Method{s.method}, &s.wave)
}

// PrepareScore prepares dst from ref (PrepareTo) and returns
// ScoreRef(dst, dist), in one pass over the two pyramids: it costs about
// what Score(ref, dist) costs and returns the same bits, and further
// distorted images of ref are then scored with ScoreRef at less than half
// that cost. It returns the errors Score returns; dst is prepared unless
// the error is about the size of the images.
func (s *Scorer) PrepareScore(dst *Reference, ref, dist *Gray) (Result, error) {
	if ref.Width != dist.Width || ref.Height != dist.Height {
		return Result{}, fmt.Errorf("reference is %d×%d but distorted is %d×%d: %w", ref.Width, ref.Height, dist.Width, dist.Height, ErrSize)
	}
	if len(dist.Pix) != dist.Width*dist.Height {
		panic("iqa: Gray with wrong Pix length")
	}
	if !IsWavelet(s.method) {
		if err := s.PrepareTo(dst, ref); err != nil {
			return Result{}, err
		}
		return s.Score(&dst.gray, dist)
	}
	ws, err := dst.setup(ref, []Method{s.method}, s.wave)
	if err != nil {
		return Result{}, err
	}
	s.wave = ws
	f := [1]waveFlavour{newWaveFlavour(s.method, ref.Width, ref.Height)}
	ws.levels(dst.wave, dst.gray.Pix, dist.Pix, f[:])
	dst.ready = true
	return s.waveResult(&f[0], dst, dist)
}

// ScoreRef returns what Score(ref, dist) returns for the reference ref that
// r was prepared from, bit for bit, computing only dist's share of the work.
// It panics if r is not prepared for s's method. It returns an error
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
	return s.waveResult(&f[0], r, dist)
}

// waveResult returns the Result of the wavelet flavour f, computed for dist
// against r, as Score reports it.
func (s *Scorer) waveResult(f *waveFlavour, r *Reference, dist *Gray) (Result, error) {
	v := f.vif()
	if math.IsNaN(v) {
		return Result{}, fmt.Errorf("%s VIF of a %d×%d pair: %w", s.method, dist.Width, dist.Height, ErrNoDetail)
	}
	res := Result{VIF: v, Levels: f.height, Method: s.method, DV: DV(v)}
	if slices.Equal(r.gray.Pix, dist.Pix) {
		res.DV = 0 // as Score: no change at all is Δv = 0
	}
	return res, nil
}

// Prepare returns ref prepared for scoring with all of s's methods
// (ScoreRef), or the error Score would return for any pair of ref's size.
// Prepare allocates the Reference; PrepareTo reuses one.
func (s *MultiScorer) Prepare(ref *Gray) (*Reference, error) {
	r := new(Reference)
	if err := s.PrepareTo(r, ref); err != nil {
		return nil, err
	}
	return r, nil
}

// PrepareTo prepares dst from ref for scoring with all of s's methods, as
// Prepare does, reusing dst's memory: once dst and s have held an image of
// that size, it allocates nothing. On error dst is left unprepared.
func (s *MultiScorer) PrepareTo(dst *Reference, ref *Gray) error {
	return dst.prepare(ref, s.methods, &s.wave)
}

// prepare is PrepareTo for the methods of a Scorer or MultiScorer whose
// wavelet workspace is *ws (replaced by one of ref's size when needed): it
// sets r up and computes the reference's wavelet share.
func (r *Reference) prepare(ref *Gray, methods []Method, ws **waveWorkspace) error {
	w, err := r.setup(ref, methods, *ws)
	if err != nil {
		return err
	}
	if r.wave != nil {
		*ws = w
		w.levels(r.wave, r.gray.Pix, nil, nil)
	}
	r.ready = true
	return nil
}

// ScoreRef appends to dst what Score(dst, ref, dist) appends for the
// reference ref that r was prepared from, bit for bit, computing only
// dist's share of the wavelet methods' work, and returns the extended slice.
// It panics if r is not prepared for all of s's methods, and returns the
// errors Score returns.
func (s *MultiScorer) ScoreRef(dst []Result, r *Reference, dist *Gray) ([]Result, error) {
	if err := checkReference(r, dist, s.methods...); err != nil {
		return dst, err
	}
	return s.score(dst, &r.gray, r.wave, dist)
}
