package iqa

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// vifSlow is the whole wavelet VIF written from vif.md §2–3 with the slow
// kernels: explicit-padding corrDn for every band, padded window statistics
// at every block, im2col covariance, a sum of logs per eigenvalue, and the
// subband list and windows of a height-H pyramid (coarsest first).
func vifSlow(ref, dist []float64, w, h int, p waveParams) float64 {
	H := PyramidHeight(w, h)
	type lvl struct {
		b    [2][2][]float64 // image, orientation (0 → band 3, 1 → band 0)
		w, h int
	}
	levels := make([]lvl, H)
	lo := [2][]float64{}
	for i, img := range [][]float64{ref, dist} {
		lo[i], _, _ = corrDnSlow(img, w, h, rows5(&sp5Lo0), 1)
	}
	lw, lh := w, h
	for l := range H {
		levels[l].w, levels[l].h = lw, lh
		for i := range 2 {
			levels[l].b[i][0], _, _ = corrDnSlow(lo[i], lw, lh, rows7(&sp5Bands[3]), 1)
			levels[l].b[i][1], _, _ = corrDnSlow(lo[i], lw, lh, rows7(&sp5Bands[0]), 1)
		}
		var nw, nh int
		for i := range 2 {
			lo[i], nw, nh = corrDnSlow(lo[i], lw, lh, rows9(&sp5Lo), 2)
		}
		lw, lh = nw, nh
	}
	crop := func(x []float64, w, h int) []float64 {
		cw, ch := w/3*3, h/3*3
		out := make([]float64, 0, cw*ch)
		for r := range ch {
			out = append(out, x[r*w:r*w+cw]...)
		}
		return out
	}
	var nums, dens []float64
	for i := range 2 * H {
		L := levels[H-1-i/2]
		x := crop(L.b[0][i%2], L.w, L.h)
		y := crop(L.b[1][i%2], L.w, L.h)
		cw, ch := L.w/3*3, L.h/3*3
		win := 1<<(i/2+1) + 1
		off := int(math.Ceil(float64(win-1) / 2 / 3))
		g, sv := channelSlow(x, y, cw, ch, win, p)
		S, m, N := patchMomentsSlow(x, ch, cw)
		var cu [9][9]float64
		div := float64(N - 1)
		if p.vifvec {
			div = float64(N)
		}
		for a := range 9 {
			for b := range 9 {
				cu[a][b] = (S[a][b] - m[a]*m[b]/float64(N)) / div
			}
		}
		var lam [9]float64
		var V, inv [9][9]float64
		eigJacobiSlow(&cu, &lam, &V)
		if !p.vifvec {
			for k := range lam {
				lam[k] = math.Max(lam[k], p.tol)
			}
		}
		inverseFromEig(&inv, &lam, &V, -1)
		var num, den float64
		k := 0
		for r := off; r < ch/3-off; r++ {
			for c := off; c < cw/3-off; c++ {
				var v [9]float64
				for q := range 9 {
					v[q] = x[(3*r+q/3)*cw+3*c+q%3]
				}
				var s float64
				for a := range 9 {
					for b := range 9 {
						s += v[a] * inv[a][b] * v[b]
					}
				}
				s /= 9
				for _, l := range lam {
					num += math.Log(1 + g[k]*g[k]*s*l/(sv[k]+p.sigmaNSq))
					den += math.Log(1 + s*l/p.sigmaNSq)
				}
				k++
			}
		}
		if !p.vifvec {
			num /= float64(k)
			den /= float64(k)
		}
		nums = append(nums, num)
		dens = append(dens, den)
	}
	var sn, sd float64
	for i := range nums {
		if p.vifvec {
			sn += nums[i]
			sd += dens[i]
		} else {
			sn += nums[i] + 1e-4
			sd += dens[i] + 1e-4
		}
	}
	return sn / sd
}

// noisy returns m's grey with Gaussian noise of standard deviation sigma
// (0…1 scale), clipped and rounded like an 8-bit image.
func noisy(m *imageio.Image, sigma float64, seed uint64) *Gray {
	g := GrayFrom(m)
	rng := rand.New(rand.NewPCG(seed, 99))
	for i, v := range g.Pix {
		g.Pix[i] = math.Round(min(255, max(0, v+255*sigma*rng.NormFloat64())))
	}
	return g
}

func TestVIFMatchesSlowAllHeights(t *testing.T) {
	for _, sz := range [][2]int{{9, 9}, {20, 13}, {32, 32}, {40, 100}, {50, 36}, {75, 72}} {
		w, h := sz[0], sz[1]
		m := testimg.Natural(w, h, 5)
		ref, dist := GrayFrom(m), noisy(m, 0.08, 1)
		ws := newWaveWorkspace(w, h, PyramidHeight(w, h))
		for _, p := range []waveParams{paramsVCRPy, paramsVIFVec} {
			got := ws.vif(ref.Pix, dist.Pix, p)
			want := vifSlow(ref.Pix, dist.Pix, w, h, p)
			if math.Abs(got-want) > 1e-10 {
				t.Errorf("%d×%d (height %d) vifvec=%v: VIF %.15g, slow %.15g", w, h, ws.height, p.vifvec, got, want)
			}
		}
	}
}

func TestScoreErrors(t *testing.T) {
	s := NewScorer(VCRPy)
	if _, err := s.Score(NewGray(30, 30), NewGray(30, 31)); !errors.Is(err, ErrSize) {
		t.Errorf("size mismatch: err = %v, want ErrSize", err)
	}
	for _, m := range []Method{VCRPy, VIFVec} {
		if _, err := NewScorer(m).Score(NewGray(8, 100), NewGray(8, 100)); err == nil {
			t.Errorf("%s: 8×100 accepted, want an error", m)
		}
		x := GrayFrom(testimg.Natural(9, 9, 1))
		r, err := NewScorer(m).Score(x, x)
		if err != nil || r.Levels != 1 {
			t.Errorf("%s: 9×9 gave %+v, %v; want 1 level", m, r, err)
		}
	}
	// A flat reference carries no information: vifvec's Σden is 0 (MATLAB
	// gives NaN), the Python port's 1e-4 terms give exactly 1.
	flat := NewGray(64, 64)
	for i := range flat.Pix {
		flat.Pix[i] = 100
	}
	tex := GrayFrom(testimg.Natural(64, 64, 2))
	if _, err := NewScorer(VIFVec).Score(flat, tex); !errors.Is(err, ErrNoDetail) {
		t.Errorf("vifvec, flat reference: err = %v, want ErrNoDetail", err)
	}
	if r, err := NewScorer(VCRPy).Score(flat, tex); err != nil || r.VIF != 1 {
		t.Errorf("vcr-py, flat reference: %+v, %v; want VIF 1", r, err)
	}
}

// TestProperties checks the behaviour the VIF papers describe, for both
// flavours, on a natural-looking image.
func TestProperties(t *testing.T) {
	m := testimg.Natural(160, 120, 7)
	ref := GrayFrom(m)
	// testimg spans 0…255, and clipping a stretched copy erases the texture
	// of saturated regions (a real loss of information, VIF < 1). Stretch a
	// range-compressed copy, lo, so that nothing clips.
	lo := NewGray(ref.Width, ref.Height)
	var mean float64
	for i, v := range ref.Pix {
		lo.Pix[i] = math.Round(64 + 0.5*v)
		mean += lo.Pix[i]
	}
	mean /= float64(len(lo.Pix))
	contrast := NewGray(ref.Width, ref.Height)
	for i, v := range lo.Pix {
		contrast.Pix[i] = math.Round(min(255, max(0, (v-mean)*1.3+mean)))
	}
	flat := NewGray(ref.Width, ref.Height)
	for i := range flat.Pix {
		flat.Pix[i] = 128
	}
	for _, meth := range []Method{VCRPy, VIFVec} {
		s := NewScorer(meth)
		scoreAgainst := func(x, d *Gray) Result {
			r, err := s.Score(x, d)
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != meth || r.Levels != 4 || r.DV < 0 || r.DV > 1 {
				t.Fatalf("%s: bad result %+v", meth, r)
			}
			return r
		}
		score := func(d *Gray) Result { return scoreAgainst(ref, d) }
		if r := score(ref); math.Abs(r.VIF-1) > 1e-12 {
			t.Errorf("%s: VIF(x, x) = %.16g, want 1", meth, r.VIF)
		}
		if r := scoreAgainst(lo, contrast); r.VIF <= 1 || r.DV != 0 {
			t.Errorf("%s: contrast ×1.3 gave %+v, want VIF > 1 and Δv = 0", meth, r)
		}
		if r := score(flat); r.DV < 0.99 {
			t.Errorf("%s: constant image gave Δv = %g, want ≈ 1", meth, r.DV)
		}
		prev := 0.0
		for _, sigma := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.4} {
			r := score(noisy(m, sigma, 3))
			if r.DV <= prev {
				t.Errorf("%s: Δv(σ=%g) = %g, not above %g", meth, sigma, r.DV, prev)
			}
			prev = r.DV
		}
	}
}

// TestFlavourDifferences confirms vif.md §3's account of how vifvec differs
// from the Python port, using the flavours' own code paths: run vifvec's
// formulas with the port's σn² = 0.1, and its per-subband denominators are
// the port's per-subband means times the number of blocks (Cu/N versus
// Cu/(N−1) cancels in s·λ; sums versus means), while its numerators are at
// most the port's (σv² = ss_y, not σy², where g < 0 or σx² ≈ 0). The
// final ratios differ: Σnum/Σden weights the large fine subbands more.
func TestFlavourDifferences(t *testing.T) {
	m := testimg.Natural(128, 96, 11)
	ref, dist := GrayFrom(m), noisy(m, 0.1, 4)
	ws := newWaveWorkspace(128, 96, PyramidHeight(128, 96))
	fl := []waveFlavour{
		{p: paramsVCRPy, height: ws.height},
		{p: waveParams{sigmaNSq: 0.1, tol: 1e-15, vifvec: true}, height: ws.height},
	}
	ws.vifs(ref.Pix, dist.Pix, fl)
	py, vv := fl[0].vif(), fl[1].vif()
	pyNum, pyDen := fl[0].num, fl[0].den
	vvNum, vvDen := fl[1].num, fl[1].den
	var sn, sd float64
	for i := range 2 * ws.height {
		// Blocks kept in subband i (vif.md §2.2 window and offset).
		lev := ws.height - 1 - i/2
		lw, lh := 128, 96
		for range lev {
			lw, lh = (lw+1)/2, (lh+1)/2
		}
		win := 1<<(i/2+1) + 1
		off := (win/2 + 2) / 3
		blocks := float64((lw/3 - 2*off) * (lh/3 - 2*off))
		if d := math.Abs(vvDen[i] - pyDen[i]*blocks); d > 1e-9*vvDen[i] {
			t.Errorf("subband %d: vifvec den %.12g, port den × %v blocks %.12g", i, vvDen[i], blocks, pyDen[i]*blocks)
		}
		if vvNum[i] > pyNum[i]*blocks*(1+1e-9) {
			t.Errorf("subband %d: vifvec num %.12g above port num × blocks %.12g", i, vvNum[i], pyNum[i]*blocks)
		}
		sn += pyNum[i]
		sd += pyDen[i]
	}
	if math.Abs(vv-py) < 1e-3 {
		t.Errorf("flavours agree (%g, %g); expected different weighting", vv, py)
	}
	if want := (sn + 8e-4) / (sd + 8e-4); math.Abs(py-want) > 1e-14 {
		t.Errorf("port VIF %.16g, want (Σnum+8e-4)/(Σden+8e-4) = %.16g", py, want)
	}
}

func TestScoreAllocs(t *testing.T) {
	for _, meth := range []Method{VCRPy, VIFVec} {
		for _, n := range []int{32, 224} {
			m := testimg.Natural(n, n, 1)
			ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
			s := NewScorer(meth)
			if _, err := s.Score(ref, dist); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(5, func() { s.Score(ref, dist) }); a != 0 {
				t.Errorf("%s %d×%d: %v allocations per Score, want 0", meth, n, n, a)
			}
		}
	}
}

func benchScore(b *testing.B, meth Method, n int) {
	m := testimg.Natural(n, n, 1)
	ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
	s := NewScorer(meth)
	if _, err := s.Score(ref, dist); err != nil { // size the workspace
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Score(ref, dist); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScoreVCRPy32(b *testing.B)   { benchScore(b, VCRPy, 32) }
func BenchmarkScoreVCRPy224(b *testing.B)  { benchScore(b, VCRPy, 224) }
func BenchmarkScoreVCRPy512(b *testing.B)  { benchScore(b, VCRPy, 512) }
func BenchmarkScoreVIFVec32(b *testing.B)  { benchScore(b, VIFVec, 32) }
func BenchmarkScoreVIFVec224(b *testing.B) { benchScore(b, VIFVec, 224) }
func BenchmarkScoreVIFVec512(b *testing.B) { benchScore(b, VIFVec, 512) }

// TestManySizes runs both flavours on every combination of sizes around
// the height thresholds (odd, even, non-square), reusing one Scorer across
// size changes, and compares a sample with the slow version.
func TestManySizes(t *testing.T) {
	sizes := []int{9, 10, 11, 17, 18, 19, 35, 36, 37, 71, 72, 73, 101}
	scorers := map[Method]*Scorer{VCRPy: NewScorer(VCRPy), VIFVec: NewScorer(VIFVec)}
	n := 0
	for _, w := range sizes {
		for _, h := range sizes {
			m := testimg.Natural(w, h, uint64(w*1000+h))
			ref, dist := GrayFrom(m), noisy(m, 0.05, uint64(w+h))
			for meth, s := range scorers {
				r, err := s.Score(ref, dist)
				if err != nil || math.IsNaN(r.VIF) || r.VIF <= 0 || r.VIF >= 1 || r.Levels != PyramidHeight(w, h) {
					t.Errorf("%s %d×%d: %+v, %v", meth, w, h, r, err)
				}
				if n%7 == 0 {
					p := paramsVCRPy
					if meth == VIFVec {
						p = paramsVIFVec
					}
					if want := vifSlow(ref.Pix, dist.Pix, w, h, p); math.Abs(r.VIF-want) > 1e-10 {
						t.Errorf("%s %d×%d: VIF %.15g, slow %.15g", meth, w, h, r.VIF, want)
					}
				}
				n++
			}
		}
	}
}

// vifvec2-layers is vifvec on at most two pyramid levels: identical to
// vifvec on CIFAR's 32×32 images (two levels is all they allow), and the
// two-level computation (checked against the slow reference at every
// height by TestVIFMatchesSlowAllHeights) on larger ones.
func TestVIFVec2Layers(t *testing.T) {
	for _, size := range [][2]int{{32, 32}, {128, 96}} {
		w, h := size[0], size[1]
		m := testimg.Natural(w, h, 5)
		ref, dist := GrayFrom(m), noisy(m, 0.1, 9)
		two, err := NewScorer(VIFVec2Layers).Score(ref, dist)
		if err != nil {
			t.Fatal(err)
		}
		full, err := NewScorer(VIFVec).Score(ref, dist)
		if err != nil {
			t.Fatal(err)
		}
		want := newWaveWorkspace(w, h, 2).vif(ref.Pix, dist.Pix, paramsVIFVec)
		if two.VIF != want || two.Levels != 2 || two.Method != VIFVec2Layers {
			t.Errorf("%d×%d: vifvec2-layers %+v, want VIF %.17g on 2 levels", w, h, two, want)
		}
		if PyramidHeight(w, h) == 2 && two.VIF != full.VIF {
			t.Errorf("%d×%d: vifvec2-layers %.17g, vifvec %.17g; same pyramid, must agree", w, h, two.VIF, full.VIF)
		}
		if PyramidHeight(w, h) > 2 && math.Abs(two.VIF-full.VIF) < 1e-6 {
			t.Errorf("%d×%d: vifvec2-layers %.17g equals %d-level vifvec %.17g", w, h, two.VIF, full.Levels, full.VIF)
		}
	}
	if m, err := ParseMethod("vifvec2-layers"); err != nil || m != VIFVec2Layers {
		t.Errorf("ParseMethod(vifvec2-layers) = %q, %v", m, err)
	}
}

// BenchmarkScorePreparedVCRPy224 times one distorted 224×224 image against
// a prepared reference (Scorer.ScoreRef): the per-image cost when one
// reference is scored against many distorted versions.
func BenchmarkScorePreparedVCRPy224(b *testing.B) {
	m := testimg.Natural(224, 224, 1)
	ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
	s := NewScorer(VCRPy)
	r, err := s.Prepare(ref)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.ScoreRef(r, dist); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareVCRPy224 times Scorer.Prepare of a 224×224 reference:
// the one-off cost that BenchmarkScorePreparedVCRPy224 saves per image.
func BenchmarkPrepareVCRPy224(b *testing.B) {
	ref := GrayFrom(testimg.Natural(224, 224, 1))
	s := NewScorer(VCRPy)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Prepare(ref); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareScoreVCRPy224 times Scorer.PrepareScore of a 224×224 pair
// into a reused Reference: a first distorted image scored while its
// reference is prepared, which BenchmarkScoreVCRPy224 costs without.
func BenchmarkPrepareScoreVCRPy224(b *testing.B) {
	m := testimg.Natural(224, 224, 1)
	ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
	s := NewScorer(VCRPy)
	var r Reference
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.PrepareScore(&r, ref, dist); err != nil {
			b.Fatal(err)
		}
	}
}
