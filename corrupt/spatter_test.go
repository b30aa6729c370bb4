package corrupt

import (
	"fmt"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
)

// spatterFormulaImage is the 224×224 input of the spatter reference
// statistics (spatterRef): R = round(127.5 + 100·sin(r/6 + c/9)),
// G = round(127.5 + 90·cos(r/11)·sin(c/4)), B = round(127.5 + 110·sin((r − c)/8)),
// round = ⌊v + 0.5⌋ clipped to 0…255. It returns the image and its byte sum.
func spatterFormulaImage() (*imageio.Image, [3][]uint8, int) {
	const n = 224
	img := imageio.New(n, n)
	var b8 [3][]uint8
	sum := 0
	for c := range 3 {
		b8[c] = make([]uint8, n*n)
	}
	for r := range n {
		for c := range n {
			fr, fc := float64(r), float64(c)
			v := [3]float64{
				127.5 + 100*math.Sin(fr/6+fc/9),
				127.5 + 90*math.Cos(fr/11)*math.Sin(fc/4),
				127.5 + 110*math.Sin((fr-fc)/8),
			}
			for k, x := range v {
				q := min(max(math.Floor(x+0.5), 0), 255)
				b8[k][r*n+c] = uint8(q)
				img.Ch[k][r*n+c] = imageio.From8(uint8(q))
				sum += int(q)
			}
		}
	}
	return img, b8, sum
}

// spatterRef holds per-severity statistics of bethgelab/imagecorruptions'
// spatter (the published code unchanged; Python 3.11, NumPy 1.24, SciPy 1.10,
// scikit-image 0.19, OpenCV 4.6) over 60 draws with numpy seeds
// 1000·severity + draw on the formula image, outputs cast to uint8: mean over
// draws of mean |out − in| (0…255) and its s.d. across draws, mean signed
// change per channel, and the fraction of pixels whose largest channel change
// exceeds 8 levels (mean, s.d.). Copied from the project's reference note
// spatter-stats.md, which ran that code.
var spatterRef = []struct {
	draws              int
	meanAbs, sdAbs     float64
	signed             [3]float64
	fracGT8, sdFracGT8 float64
}{
	{60, 0.8004, 0.2479, [3]float64{0.6483, 0.9092, 0.8437}, 0.02601, 0.00655},
	{60, 4.3845, 0.6240, [3]float64{3.5912, 5.0298, 4.5325}, 0.11685, 0.01210},
	{60, 7.4382, 0.4683, [3]float64{6.0840, 8.5368, 7.6937}, 0.19502, 0.00922},
	{60, 9.6295, 0.5759, [3]float64{-6.9832, -9.1855, -11.3665}, 0.12223, 0.00681},
	{60, 15.8348, 0.8064, [3]float64{-11.2654, -15.0941, -18.8770}, 0.19868, 0.00934},
}

// meanSD returns the mean and sample standard deviation of x.
func meanSD(x []float64) (float64, float64) {
	var s, ss float64
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(x)-1))
}

// TestSpatterMatchesReferenceDistribution draws spatter at each ImageNet-C
// severity on the formula image and compares the per-severity statistics
// with those of the published code: each mean must lie within 4 standard
// errors of the reference mean (the standard error combines the reference's
// spread over its 60 draws and ours over ours; for the per-channel signed
// means, whose spread the reference does not give, our spread stands for
// both). Outputs are cast to 8 bit as the reference's are: truncation of
// v·255, in float32 for water mode and float64 for mud mode, as numpy does.
func TestSpatterMatchesReferenceDistribution(t *testing.T) {
	img, in8, sum := spatterFormulaImage()
	// The byte sum the reference note states for its input.
	if sum != 19193416 {
		t.Fatalf("formula image byte sum %d, want 19193416", sum)
	}
	c, err := Lookup("spatter")
	if err != nil {
		t.Fatal(err)
	}
	draws := 120
	if testing.Short() {
		draws = 40
	}
	n := img.Width * img.Height
	dst := imageio.New(img.Width, img.Height)
	for s, ref := range spatterRef {
		p := c.Severities[s]
		mud := p[5] == 1
		abs := make([]float64, draws)
		frac := make([]float64, draws)
		var signed [3][]float64
		for k := range signed {
			signed[k] = make([]float64, draws)
		}
		for d := range draws {
			c.Apply(dst, img, p, NewRand(uint64(17+s), uint64(d)))
			var sa float64
			var cnt int
			var sc [3]float64
			for i := range n {
				big := 0
				for k := range 3 {
					v := dst.Ch[k][i]
					var q uint8
					if mud {
						q = uint8(math.Min(float64(v)*255, 255))
					} else {
						q = uint8(min(v*float32(255), 255))
					}
					df := int(q) - int(in8[k][i])
					sc[k] += float64(df)
					if df < 0 {
						df = -df
					}
					sa += float64(df)
					big = max(big, df)
				}
				if big > 8 {
					cnt++
				}
			}
			abs[d] = sa / float64(3*n)
			frac[d] = float64(cnt) / float64(n)
			for k := range 3 {
				signed[k][d] = sc[k] / float64(n)
			}
		}
		check := func(name string, x []float64, refMean, refSD float64) {
			m, sd := meanSD(x)
			if refSD == 0 {
				refSD = sd
			}
			se := math.Sqrt(refSD*refSD/float64(ref.draws) + sd*sd/float64(draws))
			z := (m - refMean) / se
			t.Logf("severity %d %-14s vcr %9.4f (sd %.4f)  reference %9.4f  z %+.2f", s+1, name, m, sd, refMean, z)
			if math.Abs(z) > 4 {
				t.Errorf("severity %d %s: mean %.4f over %d draws, reference %.4f: z = %.2f", s+1, name, m, draws, refMean, z)
			}
		}
		check("mean_abs", abs, ref.meanAbs, ref.sdAbs)
		for k, ch := range []string{"R", "G", "B"} {
			check(fmt.Sprintf("mean_signed_%s", ch), signed[k], ref.signed[k], 0)
		}
		check("frac_gt8", frac, ref.fracGT8, ref.sdFracGT8)
	}
}

func TestChamfer5(t *testing.T) {
	const w, h = 11, 9
	edge := make([]int32, w*h)
	edge[4*w+5] = 1
	d := make([]float32, w*h)
	chamfer5(d, edge, w, h)
	for _, tc := range []struct {
		x, y int
		want float32
	}{
		// Borgefors' 5×5 chamfer weights as OpenCV's DIST_L2 mask 5 uses them:
		// a = 1 (axial), b = 1.4 (diagonal), c = 2.1969 (knight's move).
		{5, 4, 0}, {6, 4, 1}, {6, 5, 1.4}, {7, 5, 2.1969}, {5, 6, 2}, {7, 6, 2.8}, {8, 4, 3}, {9, 6, 2 * 2.1969}, {9, 5, 2.1969 + 2},
	} {
		if got := d[tc.y*w+tc.x]; math.Abs(float64(got-tc.want)) > 1e-5 {
			t.Errorf("distance at (%d,%d) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
	clear(edge)
	chamfer5(d, edge, w, h)
	for i, v := range d {
		if v < w+h {
			t.Fatalf("no edges: distance %v at %d, want ≥ %d", v, i, w+h)
		}
	}
}

func TestEqualizeHist(t *testing.T) {
	// Hand-computed with OpenCV's rule: i₀ = 0 (2 pixels), scale = 255/(6 − 2)
	// = 63.75; lut(1) = round(2·63.75) = 128 (127.5, half to even),
	// lut(2) = round(3·63.75) = 191, lut(3) = 255.
	p := []int32{0, 0, 1, 1, 2, 3}
	equalizeHist(p)
	if want := []int32{0, 0, 128, 128, 191, 255}; fmt.Sprint(p) != fmt.Sprint(want) {
		t.Errorf("equalizeHist = %v, want %v", p, want)
	}
	c := []int32{7, 7, 7}
	equalizeHist(c)
	if fmt.Sprint(c) != "[7 7 7]" {
		t.Errorf("constant plane changed: %v", c)
	}
}

func TestCannyStep(t *testing.T) {
	// A vertical step 0 | 200 between columns 4 and 5: the Sobel magnitude is
	// 800 on both columns; OpenCV's suppression (m > left, m ≥ right) keeps
	// column 4 only.
	const w, h = 10, 6
	src := make([]int32, w*h)
	for y := range h {
		for x := 5; x < w; x++ {
			src[y*w+x] = 200
		}
	}
	edge := make([]int32, w*h)
	canny(edge, src, w, h, 50, 150, make([]int32, 3*w*h))
	for y := range h {
		for x := range w {
			want := int32(0)
			if x == 4 {
				want = 1
			}
			if edge[y*w+x] != want {
				t.Fatalf("edge at (%d,%d) = %d, want %d", x, y, edge[y*w+x], want)
			}
		}
	}
	// Below the low threshold: no edges (a step of 10 gives magnitude 40).
	for i := range src {
		src[i] /= 20
	}
	canny(edge, src, w, h, 50, 150, make([]int32, 3*w*h))
	for i, v := range edge {
		if v != 0 {
			t.Fatalf("weak step: edge at %d", i)
		}
	}
}

func TestEmbossConstant(t *testing.T) {
	// The kernel's weights sum to 1, so a constant plane is unchanged.
	src := []int32{90, 90, 90, 90, 90, 90, 90, 90, 90}
	dst := make([]int32, 9)
	emboss8(dst, src, 3, 3)
	for _, v := range dst {
		if v != 90 {
			t.Fatalf("emboss of constant 90 = %v", dst)
		}
	}
}

// TestSpatterModes checks the colour each mode adds on a mid-grey image:
// water brightens (R by 175/238 of G and B), mud darkens towards brown.
func TestSpatterModes(t *testing.T) {
	c, _ := Lookup("spatter")
	src := imageio.New(64, 64)
	for k := range 3 {
		for i := range src.Ch[k] {
			src.Ch[k][i] = 0.5
		}
	}
	water := apply(c, src, c.Severities[2], 3, 0)
	mud := apply(c, src, c.Severities[4], 3, 0)
	var wd, md [3]float64
	for k := range 3 {
		for i := range src.Ch[k] {
			wd[k] += float64(water.Ch[k][i] - 0.5)
			md[k] += float64(mud.Ch[k][i] - 0.5)
		}
	}
	if !(wd[0] > 0) || math.Abs(wd[0]/wd[1]-175.0/238) > 1e-3 || math.Abs(wd[1]-wd[2]) > 1e-3 {
		t.Errorf("water changes %v: want positive, R/G = 175/238, G = B", wd)
	}
	if !(md[2] < md[1] && md[1] < md[0] && md[0] < 0) {
		t.Errorf("mud changes %v: want B < G < R < 0 (brown 63, 42, 20 on grey 127.5)", md)
	}
}
