package iqa

import (
	"errors"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestScoreRefBitIdentical checks that scoring against a prepared reference
// gives exactly what Score gives, for every method, at sizes around every
// pyramid-height threshold (heights 1–4, odd, even, non-square), for
// several distorted images per reference (one of them the reference
// itself), with the scorer reused across sizes and between references.
func TestScoreRefBitIdentical(t *testing.T) {
	sizes := [][2]int{{9, 9}, {9, 14}, {12, 10}, {17, 23}, {18, 18}, {20, 13}, {32, 32}, {35, 40}, {36, 37}, {50, 71}, {72, 72}, {73, 100}, {101, 75}}
	scorers := map[Method]*Scorer{}
	for _, m := range Methods {
		scorers[m] = NewScorer(m)
	}
	heights := map[int]bool{}
	for i, sz := range sizes {
		w, h := sz[0], sz[1]
		heights[PyramidHeight(w, h)] = true
		img := testimg.Natural(w, h, uint64(100+i))
		ref := GrayFrom(img)
		dists := []*Gray{noisy(img, 0.02, uint64(i)), noisy(img, 0.1, uint64(i+50)), ref, noisy(img, 0.3, uint64(i+90))}
		// Another pair of another size, scored in between to disturb the
		// scorers' workspaces.
		o := sizes[(i+5)%len(sizes)]
		oimg := testimg.Natural(o[0], o[1], 7)
		oref, odist := GrayFrom(oimg), noisy(oimg, 0.05, 8)
		for _, m := range Methods {
			s := scorers[m]
			if m == PixelMS && min(w, h) <= pixelK {
				if _, err := s.Prepare(ref); err == nil {
					t.Errorf("%s %d×%d: Prepare gave no error; Score refuses this size", m, w, h)
				}
				continue
			}
			r, err := s.Prepare(ref)
			if err != nil {
				t.Fatalf("%s %d×%d: Prepare: %v", m, w, h, err)
			}
			for k, dist := range dists {
				got, err := s.ScoreRef(r, dist)
				if err != nil {
					t.Fatalf("%s %d×%d dist %d: ScoreRef: %v", m, w, h, k, err)
				}
				want, err := NewScorer(m).Score(ref, dist)
				if err != nil {
					t.Fatal(err)
				}
				if !sameResult(got, want) {
					t.Errorf("%s %d×%d dist %d: ScoreRef = %+v, Score = %+v", m, w, h, k, got, want)
				}
				if _, err := s.Score(oref, odist); err != nil && !(m == PixelMS && min(o[0], o[1]) <= pixelK) {
					t.Fatal(err)
				}
			}
		}
	}
	for hgt := 1; hgt <= 4; hgt++ {
		if !heights[hgt] {
			t.Errorf("no size with pyramid height %d", hgt)
		}
	}
}

// TestMultiScoreRefBitIdentical checks MultiScorer.ScoreRef against
// MultiScorer.Score for all methods at once, and that single-method
// Scorers may score against a Reference a MultiScorer prepared.
func TestMultiScoreRefBitIdentical(t *testing.T) {
	for i, sz := range [][2]int{{12, 12}, {13, 30}, {32, 32}, {40, 37}, {75, 72}, {120, 90}} {
		w, h := sz[0], sz[1]
		methods := []Method{VCRPy, VIFVec, VIFVec2Layers, Pixel}
		if min(w, h) > pixelK {
			methods = append(methods, PixelMS)
		}
		img := testimg.Natural(w, h, uint64(i))
		ref := GrayFrom(img)
		ms := NewMultiScorer(methods...)
		r, err := ms.Prepare(ref)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []Result
		for k, dist := range []*Gray{noisy(img, 0.04, 1), ref, noisy(img, 0.2, 2)} {
			if got, err = ms.ScoreRef(got[:0], r, dist); err != nil {
				t.Fatal(err)
			}
			if want, err = NewMultiScorer(methods...).Score(want[:0], ref, dist); err != nil {
				t.Fatal(err)
			}
			for j := range want {
				if !sameResult(got[j], want[j]) {
					t.Errorf("%d×%d dist %d %s: ScoreRef = %+v, Score = %+v", w, h, k, methods[j], got[j], want[j])
				}
				one, err := NewScorer(methods[j]).ScoreRef(r, dist)
				if err != nil {
					t.Fatal(err)
				}
				if !sameResult(one, want[j]) {
					t.Errorf("%d×%d dist %d %s: Scorer.ScoreRef on the multi Reference = %+v, Score = %+v", w, h, k, methods[j], one, want[j])
				}
			}
		}
	}
}

// TestReferenceOwnsPixels checks that changing the caller's image after
// Prepare does not change the prepared reference.
func TestReferenceOwnsPixels(t *testing.T) {
	img := testimg.Natural(64, 48, 3)
	ref, dist := GrayFrom(img), noisy(img, 0.05, 4)
	want, _ := NewScorer(VCRPy).Score(ref, dist)
	s := NewScorer(VCRPy)
	r, err := s.Prepare(ref)
	if err != nil {
		t.Fatal(err)
	}
	orig := slices.Clone(ref.Pix)
	for i := range ref.Pix {
		ref.Pix[i] = 0
	}
	got, err := s.ScoreRef(r, dist)
	if err != nil || !sameResult(got, want) {
		t.Errorf("after overwriting the caller's reference: ScoreRef = %+v, %v; want %+v", got, err, want)
	}
	if got, _ := s.ScoreRef(r, &Gray{Width: 64, Height: 48, Pix: orig}); got.DV != 0 {
		t.Errorf("the reference itself: Δv = %v, want 0", got.DV)
	}
}

func TestScoreRefErrors(t *testing.T) {
	img := testimg.Natural(40, 40, 1)
	ref := GrayFrom(img)
	s := NewScorer(VIFVec)
	if _, err := s.Prepare(NewGray(8, 40)); err == nil {
		t.Error("Prepare of an 8×40 image: no error (Score refuses it)")
	}
	r, err := s.Prepare(ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ScoreRef(r, NewGray(40, 41)); !errors.Is(err, ErrSize) {
		t.Errorf("40×41 against 40×40: error %v, want ErrSize", err)
	}
	// A flat reference: vifvec's VIF is undefined, as with Score.
	flat := NewGray(40, 40)
	for i := range flat.Pix {
		flat.Pix[i] = 128
	}
	rf, err := s.Prepare(flat)
	if err != nil {
		t.Fatal(err)
	}
	_, errScore := NewScorer(VIFVec).Score(flat, ref)
	if _, err := s.ScoreRef(rf, ref); !errors.Is(err, ErrNoDetail) || !errors.Is(errScore, ErrNoDetail) {
		t.Errorf("flat reference: ScoreRef error %v, Score error %v; want ErrNoDetail from both", err, errScore)
	}
	defer func() {
		if recover() == nil {
			t.Error("ScoreRef with a Reference prepared for another method did not panic")
		}
	}()
	NewScorer(VCRPy).ScoreRef(r, ref)
}

func TestScoreRefAllocs(t *testing.T) {
	img := testimg.Natural(224, 224, 1)
	ref, dist := GrayFrom(img), noisy(img, 0.05, 2)
	for _, m := range []Method{VCRPy, VIFVec} {
		s := NewScorer(m)
		r, err := s.Prepare(ref)
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { s.ScoreRef(r, dist) }); a != 0 {
			t.Errorf("%s: %v allocations per ScoreRef, want 0", m, a)
		}
	}
	ms := NewMultiScorer(VCRPy, VIFVec, VIFVec2Layers)
	r, err := ms.Prepare(ref)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]Result, 0, 3)
	if a := testing.AllocsPerRun(5, func() { dst, _ = ms.ScoreRef(dst[:0], r, dist) }); a != 0 {
		t.Errorf("MultiScorer: %v allocations per ScoreRef, want 0", a)
	}
}

// TestPrepareScoreBitIdentical prepares one Reference in place again and
// again — for every method, across sizes of every pyramid height, so that
// its memory is both reused and reallocated — with PrepareScore (one pass
// over both pyramids) and PrepareTo, and requires each result, and those
// of ScoreRef against it afterwards, to be bit for bit what Score returns.
func TestPrepareScoreBitIdentical(t *testing.T) {
	sizes := [][2]int{{9, 9}, {32, 32}, {32, 32}, {20, 13}, {73, 100}, {73, 100}, {36, 37}, {12, 10}}
	for _, m := range Methods {
		s := NewScorer(m)
		var r Reference
		for i, sz := range sizes {
			w, h := sz[0], sz[1]
			if m == PixelMS && min(w, h) <= pixelK {
				if _, err := s.PrepareScore(&r, GrayFrom(testimg.Natural(w, h, 1)), NewGray(w, h)); err == nil {
					t.Errorf("%s %d×%d: PrepareScore gave no error; Score refuses this size", m, w, h)
				}
				continue
			}
			img := testimg.Natural(w, h, uint64(200+i))
			ref := GrayFrom(img)
			dists := []*Gray{noisy(img, 0.05, uint64(i)), ref, noisy(img, 0.2, uint64(i+7))}
			var got Result
			var err error
			if i%2 == 0 {
				got, err = s.PrepareScore(&r, ref, dists[0])
			} else {
				if err = s.PrepareTo(&r, ref); err == nil {
					got, err = s.ScoreRef(&r, dists[0])
				}
			}
			if err != nil {
				t.Fatalf("%s %d×%d: %v", m, w, h, err)
			}
			for k, dist := range dists {
				want, err := NewScorer(m).Score(ref, dist)
				if err != nil {
					t.Fatal(err)
				}
				if k > 0 {
					if got, err = s.ScoreRef(&r, dist); err != nil {
						t.Fatal(err)
					}
				}
				if !sameResult(got, want) {
					t.Errorf("%s %d×%d (size %d) dist %d: got %+v, Score = %+v", m, w, h, i, k, got, want)
				}
			}
		}
	}
}

func TestPrepareScoreAllocs(t *testing.T) {
	img := testimg.Natural(224, 224, 1)
	ref, dist := GrayFrom(img), noisy(img, 0.05, 2)
	for _, m := range []Method{VCRPy, VIFVec, Pixel} {
		s := NewScorer(m)
		var r Reference
		if _, err := s.PrepareScore(&r, ref, dist); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(3, func() { s.PrepareScore(&r, ref, dist) }); a != 0 {
			t.Errorf("%s: %v allocations per PrepareScore with a reused Reference, want 0", m, a)
		}
		if a := testing.AllocsPerRun(3, func() { s.PrepareTo(&r, ref) }); a != 0 {
			t.Errorf("%s: %v allocations per PrepareTo with a reused Reference, want 0", m, a)
		}
	}
}

func TestScoreRefUnprepared(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ScoreRef with a zero Reference did not panic")
		}
	}()
	NewScorer(VCRPy).ScoreRef(&Reference{}, NewGray(32, 32))
}
