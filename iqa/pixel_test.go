package iqa

import (
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// slowVIFSpatial is vif_spatial (vif.md §4) written straight from the
// formula: for every pixel, the 11×11 window of the image extended by mirror
// reflection without edge repetition (numpy "reflect"), population moments
// (centred two-pass), the §2.3 rules in their order with tol = 1e-10 and
// σv² = σx² where g < 0, and one math.Log per term. It returns the two sums.
func slowVIFSpatial(x, y []float64, w, h int) (num, den float64) {
	const k, r, tol, sn = pixelK, pixelR, 1e-10, 0.1
	wx := make([]float64, 0, k*k)
	wy := make([]float64, 0, k*k)
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			wx, wy = wx[:0], wy[:0]
			for di := -r; di <= r; di++ {
				for dj := -r; dj <= r; dj++ {
					p := reflectIndex(i+di, h)*w + reflectIndex(j+dj, w)
					wx = append(wx, x[p])
					wy = append(wy, y[p])
				}
			}
			var mx, my float64
			for q := range wx {
				mx += wx[q]
				my += wy[q]
			}
			mx /= k * k
			my /= k * k
			var vx, vy, cov float64
			for q := range wx {
				vx += (wx[q] - mx) * (wx[q] - mx)
				vy += (wy[q] - my) * (wy[q] - my)
				cov += (wx[q] - mx) * (wy[q] - my)
			}
			vx /= k * k
			vy /= k * k
			cov /= k * k
			if vx < 0 || vy < 0 { // cannot happen with centred sums; kept from the reference
				vx, vy, cov = max(vx, 0), max(vy, 0), 0
			}
			g := cov / (vx + tol)
			sv := vy - g*cov
			if vx < tol {
				g, sv, vx = 0, vy, 0
			}
			if vy < tol {
				g, sv = 0, 0
			}
			if g < 0 {
				sv, g = vx, 0
			}
			if sv < tol {
				sv = tol
			}
			num += math.Log(1+g*g*vx/(sv+sn)) + 1e-4
			den += math.Log(1+vx/sn) + 1e-4
		}
	}
	return num, den
}

// slowMSVIFSpatial is msvif_spatial (vif.md §4) written straight from the
// description, on top of slowVIFSpatial.
func slowMSVIFSpatial(x, y []float64, w, h int) float64 {
	nums := []float64{1, 1, 1, 1, 1}
	dens := []float64{1, 1, 1, 1, 1}
	down := func(p []float64, w, h int) []float64 {
		out := make([]float64, 0, (w/2)*(h/2))
		for i := 0; i < h/2; i++ {
			for j := 0; j < w/2; j++ {
				out = append(out, (p[2*i*w+2*j]+p[(2*i+1)*w+2*j]+p[(2*i+1)*w+2*j+1]+p[2*i*w+2*j+1])/4)
			}
		}
		return out
	}
	for i := 0; i < 4; i++ {
		if min(w, h) <= pixelK {
			break
		}
		nums[i], dens[i] = slowVIFSpatial(x, y, w, h)
		x, y = down(x, w, h), down(y, w, h)
		w, h = w/2, h/2
	}
	if min(w, h) > pixelK {
		nums[4], dens[4] = slowVIFSpatial(x, y, w, h)
	}
	var sn, sd float64
	for i := range nums {
		sn += nums[i]
		sd += dens[i]
	}
	return sn / sd
}

func slowPixel(m Method, ref, dist *Gray) float64 {
	if m == PixelMS {
		return slowMSVIFSpatial(ref.Pix, dist.Pix, ref.Width, ref.Height)
	}
	num, den := slowVIFSpatial(ref.Pix, dist.Pix, ref.Width, ref.Height)
	return num / den
}

type vifCase struct {
	name, ref, dist    string
	spatial, msSpatial float64 // float64 variants
}

// readVIFCases reads testdata/vif-cases/cases.csv (copied from the reference
// material, see testdata/vif-cases/README.md).
func readVIFCases(t testing.TB) []vifCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "vif-cases", "cases.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var cases []vifCase
	for _, row := range rows[1:] {
		c := vifCase{name: row[col["case"]], ref: row[col["ref"]], dist: row[col["dist"]]}
		if c.spatial, err = strconv.ParseFloat(row[col["vif_spatial_float64_variant"]], 64); err != nil {
			t.Fatal(err)
		}
		if c.msSpatial, err = strconv.ParseFloat(row[col["msvif_spatial_float64_variant"]], 64); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in cases.csv")
	}
	return cases
}

// TestPixelReference compares with the values the VCR toolbox's
// vif_spatial / msvif_spatial give when evaluated in float64
// (cases.csv, columns *_float64_variant).
func TestPixelReference(t *testing.T) {
	sp, ms := NewScorer(Pixel), NewScorer(PixelMS)
	var worst float64
	for _, c := range readVIFCases(t) {
		ref, dist := loadGray(t, c.ref), loadGray(t, c.dist)
		for _, tc := range []struct {
			s    *Scorer
			want float64
		}{{sp, c.spatial}, {ms, c.msSpatial}} {
			r, err := tc.s.Score(ref, dist)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, tc.s.Method(), err)
			}
			d := math.Abs(r.VIF - tc.want)
			worst = max(worst, d)
			if d > 1e-9 {
				t.Errorf("%s %s: VIF = %.17g, want %.17g (|diff| %.3g)", c.name, tc.s.Method(), r.VIF, tc.want, d)
			}
			wantDV := DV(r.VIF)
			if c.name == "gray224_identical" {
				wantDV = 0 // identical images: Δv is 0 by definition
			}
			if r.Method != tc.s.Method() || r.DV != wantDV {
				t.Errorf("%s: result %+v has wrong method or Δv", c.name, r)
			}
		}
	}
	t.Logf("max |VIF − reference float64 value| = %.3g", worst)
}

// TestPixelSlowReference checks the slow transcription itself against the
// reference values, so that the fast/slow comparison below is anchored.
func TestPixelSlowReference(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for _, c := range readVIFCases(t) {
		if c.name != "gray72_noise0.10" && c.name != "gray32_noise0.10" && c.name != "gray224_blur_s1.5" {
			continue
		}
		ref, dist := loadGray(t, c.ref), loadGray(t, c.dist)
		if got := slowPixel(Pixel, ref, dist); math.Abs(got-c.spatial) > 1e-9 {
			t.Errorf("%s: slow vif_spatial = %.17g, want %.17g", c.name, got, c.spatial)
		}
		if got := slowPixel(PixelMS, ref, dist); math.Abs(got-c.msSpatial) > 1e-9 {
			t.Errorf("%s: slow msvif_spatial = %.17g, want %.17g", c.name, got, c.msSpatial)
		}
	}
}

func randomPair(w, h int, seed uint64, scale, noise float64, integer bool) (*Gray, *Gray) {
	rng := rand.New(rand.NewPCG(seed, 1))
	ref, dist := NewGray(w, h), NewGray(w, h)
	m := testimg.Natural(w, h, seed)
	m.Luma(ref.Pix)
	for i, v := range ref.Pix {
		v = v / 255 * scale
		d := v + noise*scale*rng.NormFloat64()
		if integer {
			d = math.Round(min(max(d, 0), scale))
		}
		ref.Pix[i], dist.Pix[i] = v, d
	}
	return ref, dist
}

// TestPixelFastMatchesSlow compares the optimised kernel with the slow
// transcription on odd sizes (including sizes below the window, where the
// reflection wraps more than once), flat regions and non-integer data on
// several scales.
func TestPixelFastMatchesSlow(t *testing.T) {
	type pair struct {
		name      string
		ref, dist *Gray
	}
	var pairs []pair
	for _, sz := range [][2]int{{1, 1}, {3, 5}, {6, 6}, {12, 13}, {37, 29}, {61, 100}} {
		r, d := randomPair(sz[0], sz[1], uint64(sz[0]*1000+sz[1]), 255, 0.05, true)
		pairs = append(pairs, pair{"int" + strconv.Itoa(sz[0]) + "x" + strconv.Itoa(sz[1]), r, d})
	}
	r, d := randomPair(53, 47, 7, 1, 0.02, false)
	pairs = append(pairs, pair{"unit-scale-float", r, d})
	r, d = randomPair(53, 47, 8, 1e4, 0.1, false)
	pairs = append(pairs, pair{"1e4-scale-float", r, d})
	// Large offset with small variations: the cancellation case.
	r, d = randomPair(40, 40, 9, 2, 0.1, false)
	for i := range r.Pix {
		r.Pix[i] += 1000.37
		d.Pix[i] += 2000.11
	}
	pairs = append(pairs, pair{"offset-float", r, d})
	// Flat reference half: σx² = 0 branches; contrast-inverted distortion: g < 0.
	r, d = randomPair(45, 33, 10, 255, 0.03, true)
	for i := range r.Pix {
		if i%45 < 20 {
			r.Pix[i] = 77
		}
		if i/45 > 20 {
			d.Pix[i] = 255 - r.Pix[i]
		}
		if i/45 < 5 {
			d.Pix[i] = 3
		}
	}
	pairs = append(pairs, pair{"flat-and-inverted", r, d})

	for _, p := range pairs {
		for _, m := range []Method{Pixel, PixelMS} {
			got, err := NewScorer(m).Score(p.ref, p.dist)
			if m == PixelMS && min(p.ref.Width, p.ref.Height) <= pixelK {
				// The reference would return 5/5 = 1 here; we refuse.
				if err == nil {
					t.Errorf("%s %s: no error for a %d×%d image", p.name, m, p.ref.Width, p.ref.Height)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			want := slowPixel(m, p.ref, p.dist)
			if d := math.Abs(got.VIF - want); !(d <= 1e-10*max(1, math.Abs(want))) {
				t.Errorf("%s %s: fast %.17g, slow %.17g (|diff| %.3g)", p.name, m, got.VIF, want, d)
			}
		}
	}
}

func TestPixelProperties(t *testing.T) {
	m := testimg.Natural(64, 48, 3)
	g := GrayFrom(m)
	for _, meth := range []Method{Pixel, PixelMS} {
		s := NewScorer(meth)
		r, err := s.Score(g, g)
		if err != nil {
			t.Fatal(err)
		}
		// Identical images: g = 1, σv² = tol, so each numerator term is
		// ln(1 + σx²/(1e-10 + 0.1)), a hair below the denominator's.
		if math.Abs(r.VIF-1) > 1e-8 || r.DV > 1e-8 {
			t.Errorf("%s: identical pair gives VIF %v, Δv %v", meth, r.VIF, r.DV)
		}
		_, err = s.Score(g, NewGray(64, 47))
		if !errors.Is(err, ErrSize) {
			t.Errorf("%s: size mismatch gives %v, want ErrSize", meth, err)
		}
		if _, err := s.Score(NewGray(0, 0), NewGray(0, 0)); err == nil {
			t.Errorf("%s: no error for empty images", meth)
		}
		// A constant reference carries no information: all terms are 1e-4.
		flat := NewGray(20, 20)
		for i := range flat.Pix {
			flat.Pix[i] = 100
		}
		if r, _ := s.Score(flat, flat); r.VIF != 1 {
			t.Errorf("%s: flat pair gives %v, want 1", meth, r.VIF)
		}
		// More noise, less information.
		_, d1 := randomPair(64, 64, 4, 255, 0.02, true)
		ref, d2 := randomPair(64, 64, 4, 255, 0.2, true)
		r1, _ := s.Score(ref, d1)
		r2, _ := s.Score(ref, d2)
		if !(r1.VIF > r2.VIF && r2.VIF > 0) {
			t.Errorf("%s: VIF(noise 0.02) = %v, VIF(noise 0.2) = %v; want decreasing and positive", meth, r1.VIF, r2.VIF)
		}
	}
}

// TestPixelNoAllocs checks that scoring a stream of equally sized images
// does not allocate once the workspace has grown.
func TestPixelNoAllocs(t *testing.T) {
	ref, dist := randomPair(67, 45, 5, 255, 0.1, true)
	for _, m := range []Method{Pixel, PixelMS} {
		s := NewScorer(m)
		if _, err := s.Score(ref, dist); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(10, func() { s.Score(ref, dist) }); a != 0 {
			t.Errorf("%s: %v allocations per Score, want 0", m, a)
		}
		// A smaller image reuses the grown workspace.
		small, smallDist := randomPair(30, 20, 6, 255, 0.1, true)
		if a := testing.AllocsPerRun(10, func() { s.Score(small, smallDist) }); a != 0 {
			t.Errorf("%s: %v allocations per Score after shrinking, want 0", m, a)
		}
	}
}

// TestReflectIndex checks the mirror extension against numpy's
// np.pad([0, 1, 2], 5, mode="reflect") = [1 0 1 2 1 | 0 1 2 | 1 0 1 2 1]
// (values worked out by hand from numpy's documented iteration).
func TestReflectIndex(t *testing.T) {
	want := []int{1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1}
	for i, w := range want {
		if got := reflectIndex(i-5, 3); got != w {
			t.Errorf("reflectIndex(%d, 3) = %d, want %d", i-5, got, w)
		}
	}
}

func benchPixel(b *testing.B, m Method, size int) {
	ref, dist := randomPair(size, size, 1, 255, 0.1, true)
	s := NewScorer(m)
	if _, err := s.Score(ref, dist); err != nil { // grow the workspace
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Score(ref, dist); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPixel32(b *testing.B)    { benchPixel(b, Pixel, 32) }
func BenchmarkPixel224(b *testing.B)   { benchPixel(b, Pixel, 224) }
func BenchmarkPixel512(b *testing.B)   { benchPixel(b, Pixel, 512) }
func BenchmarkPixelMS32(b *testing.B)  { benchPixel(b, PixelMS, 32) }
func BenchmarkPixelMS224(b *testing.B) { benchPixel(b, PixelMS, 224) }
func BenchmarkPixelMS512(b *testing.B) { benchPixel(b, PixelMS, 512) }
