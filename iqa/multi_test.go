package iqa

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// sameResult reports whether a MultiScorer result equals a Scorer's bit for bit.
func sameResult(got, want Result) bool {
	return math.Float64bits(got.VIF) == math.Float64bits(want.VIF) &&
		math.Float64bits(got.DV) == math.Float64bits(want.DV) &&
		got.Method == want.Method && got.Levels == want.Levels
}

// TestMultiScorerBitIdentical scores pairs of every pyramid height (9×9 has
// one level, 32×32 two — where vifvec2-layers equals vifvec —, 37×50 three,
// 73×71 and 224×224 four) with one MultiScorer for several method lists and
// orders, reused across sizes, and requires exactly the VIF, Δv and levels
// of a separate Scorer per method. The flavours share the pyramid and
// statistics, so a shared buffer overwritten between flavours, or a level's
// window taken from the wrong height, shows up here.
func TestMultiScorerBitIdentical(t *testing.T) {
	lists := [][]Method{
		{VCRPy, VIFVec},
		{VIFVec, VCRPy},
		{VCRPy, VIFVec, VIFVec2Layers},
		{VIFVec2Layers, VIFVec, VCRPy},
		{VIFVec2Layers},
		{Pixel, VCRPy, VIFVec, PixelMS},
	}
	sizes := [][2]int{{9, 9}, {32, 32}, {37, 50}, {73, 71}, {224, 224}, {32, 32}}
	for _, methods := range lists {
		ms := NewMultiScorer(methods...)
		var got []Result
		for _, sz := range sizes {
			w, h := sz[0], sz[1]
			m := testimg.Natural(w, h, uint64(w*7+h))
			ref, dist := GrayFrom(m), noisy(m, 0.07, uint64(w+h))
			pixelOK := min(w, h) > pixelK
			var err error
			got, err = ms.Score(got[:0], ref, dist)
			if !pixelOK && err != nil {
				continue // the pixel-domain methods refuse such small images
			}
			if err != nil {
				t.Fatalf("%v %d×%d: %v", methods, w, h, err)
			}
			if len(got) != len(methods) {
				t.Fatalf("%v %d×%d: %d results", methods, w, h, len(got))
			}
			for i, meth := range methods {
				want, err := NewScorer(meth).Score(ref, dist)
				if err != nil {
					t.Fatal(err)
				}
				if !sameResult(got[i], want) {
					t.Errorf("%v %d×%d: %s %+v, Scorer %+v", methods, w, h, meth, got[i], want)
				}
			}
		}
	}
}

// A flat reference makes vifvec undefined (Σden = 0; MATLAB gives NaN) while
// vcr-py's 1e-4 terms give exactly 1: the MultiScorer reports NaN for the
// one and the Scorer's value for the other, and an identical pair has Δv 0
// for every method.
func TestMultiScorerUndefinedAndIdentical(t *testing.T) {
	flat := NewGray(40, 40)
	for i := range flat.Pix {
		flat.Pix[i] = 128
	}
	dist := NewGray(40, 40)
	for i := range dist.Pix {
		dist.Pix[i] = float64(i % 7 * 30)
	}
	ms := NewMultiScorer(VCRPy, VIFVec)
	got, err := ms.Score(nil, flat, dist)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewScorer(VCRPy).Score(flat, dist)
	if err != nil || !sameResult(got[0], want) {
		t.Errorf("vcr-py: %+v, Scorer %+v, %v", got[0], want, err)
	}
	if _, err := NewScorer(VIFVec).Score(flat, dist); !errors.Is(err, ErrNoDetail) {
		t.Fatalf("Scorer(vifvec) on a flat reference: %v, want ErrNoDetail", err)
	}
	if !math.IsNaN(got[1].VIF) || !math.IsNaN(got[1].DV) || got[1].Method != VIFVec {
		t.Errorf("vifvec on a flat reference: %+v, want NaN", got[1])
	}

	m := testimg.Natural(64, 48, 3)
	ref := GrayFrom(m)
	got, err = ms.Score(got[:0], ref, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if r.DV != 0 {
			t.Errorf("%s: identical pair has Δv %v, want 0", r.Method, r.DV)
		}
	}
	if _, err := ms.Score(nil, ref, NewGray(48, 64)); !errors.Is(err, ErrSize) {
		t.Errorf("sizes 64×48 and 48×64: %v, want ErrSize", err)
	}
}

func TestMultiScorerAllocs(t *testing.T) {
	m := testimg.Natural(96, 80, 1)
	ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
	ms := NewMultiScorer(VCRPy, VIFVec, VIFVec2Layers)
	buf, err := ms.Score(nil, ref, dist)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(5, func() { buf, _ = ms.Score(buf[:0], ref, dist) }); a != 0 {
		t.Errorf("%v allocations per Score, want 0", a)
	}
}

func TestNewMultiScorerPanics(t *testing.T) {
	for _, methods := range [][]Method{nil, {"vif"}, {VCRPy, VCRPy}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewMultiScorer(%v) did not panic", methods)
				}
			}()
			NewMultiScorer(methods...)
		}()
	}
}

// BenchmarkMulti times the wavelet VIF of one 224×224 (ImageNet-sized) and
// one 32×32 (CIFAR-sized) pair for one flavour (a Scorer) and for several
// flavours from one decomposition (a MultiScorer); docs/performance.md
// reports the numbers.
func BenchmarkMulti(b *testing.B) {
	for _, n := range []int{32, 224} {
		m := testimg.Natural(n, n, 1)
		ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
		for _, methods := range [][]Method{{VCRPy}, {VIFVec}, {VCRPy, VIFVec}, {VCRPy, VIFVec, VIFVec2Layers}} {
			var names []string
			for _, m := range methods {
				names = append(names, string(m))
			}
			name := fmt.Sprintf("size=%d/flavours=%s", n, strings.Join(names, "+"))
			b.Run(name, func(b *testing.B) {
				ms := NewMultiScorer(methods...)
				buf, err := ms.Score(nil, ref, dist)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					buf, _ = ms.Score(buf[:0], ref, dist)
				}
			})
		}
	}
}
