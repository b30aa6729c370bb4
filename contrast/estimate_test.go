package contrast

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
)

func TestLab(t *testing.T) {
	for _, tc := range []struct {
		rgb, lab [3]float64
	}{
		// Reference values of the sRGB primaries and white under D65
		// (Bruce Lindbloom's colour calculator, CIE 1976 L*a*b*).
		{[3]float64{1, 1, 1}, [3]float64{100, 0, 0}},
		{[3]float64{1, 0, 0}, [3]float64{53.2408, 80.0925, 67.2032}},
		{[3]float64{0, 1, 0}, [3]float64{87.7347, -86.1827, 83.1793}},
		{[3]float64{0, 0, 1}, [3]float64{32.2970, 79.1875, -107.8602}},
		{[3]float64{0, 0, 0}, [3]float64{0, 0, 0}},
	} {
		got := Lab(tc.rgb[0], tc.rgb[1], tc.rgb[2])
		for i := range got {
			if math.Abs(got[i]-tc.lab[i]) > 0.01 {
				t.Errorf("Lab(%v) = %v, want %v", tc.rgb, got, tc.lab)
				break
			}
		}
	}
	for _, tc := range []struct {
		r, g, b float64
		want    string
	}{
		{0.8, 0.1, 0.1, "red"}, {0.95, 0.95, 0.95, "white"}, {0.02, 0.02, 0.02, "black"},
		{0.5, 0.5, 0.5, "gray"}, {1, 0, 1, Others}, {1, 1, 0, Others},
	} {
		if got := Nearest(tc.r, tc.g, tc.b); got != tc.want {
			t.Errorf("Nearest(%v, %v, %v) = %s, want %s", tc.r, tc.g, tc.b, got, tc.want)
		}
	}
}

// paint holds the drawing colours of the test images (sRGB 0–255),
// deliberately not the estimator's prototypes.
var paint = map[string][3]float64{
	"red": {190, 35, 40}, "green": {60, 140, 60}, "blue": {50, 90, 200}, "brown": {140, 90, 50},
	"gray": {135, 135, 135}, "white": {240, 240, 240}, "black": {20, 20, 20},
}

// synthImage draws a w×h image: a textured background of colour bg and an
// ellipse or rectangle of colour fg covering most of the centre. Others
// is drawn as diagonal stripes of three palette colours (a third each).
func synthImage(rng *rand.Rand, w, h int, bg, fg string) *imageio.Image {
	m := imageio.New(w, h)
	colour := func(name string) func(x, y int) [3]float64 {
		jit := [3]float64{rng.Float64()*24 - 12, rng.Float64()*24 - 12, rng.Float64()*24 - 12}
		if name == Others {
			stripes := [][3]float64{paint["red"], paint["blue"], paint["white"]}
			return func(x, y int) [3]float64 { return stripes[((x+y)/3)%3] }
		}
		c := paint[name]
		return func(x, y int) [3]float64 { return [3]float64{c[0] + jit[0], c[1] + jit[1], c[2] + jit[2]} }
	}
	bgc, fgc := colour(bg), colour(fg)
	cx, cy := float64(w)*(0.45+0.1*rng.Float64()), float64(h)*(0.45+0.1*rng.Float64())
	rx, ry := float64(w)*(0.3+0.1*rng.Float64()), float64(h)*(0.3+0.1*rng.Float64())
	ellipse := rng.IntN(2) == 0
	ph := rng.Float64() * 6
	for y := range h {
		for x := range w {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			in := math.Abs(dx) < 0.8 && math.Abs(dy) < 0.8
			if ellipse {
				in = dx*dx+dy*dy < 1
			}
			c := bgc(x, y)
			if in {
				c = fgc(x, y)
			}
			// Texture: a smooth wave and pixel noise, ±0.03 each.
			tex := 0.03*math.Sin(float64(x)/3+ph)*math.Cos(float64(y)/4) + 0.06*(rng.Float64()-0.5)
			for k := range 3 {
				m.Ch[k][y*w+x] = float32(min(1, max(0, c[k]/255+tex)))
			}
		}
	}
	return m
}

func TestEstimateAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ref strings.Builder
	ref.WriteString("id,background,foreground\n")
	var est []Estimated
	names := Colours // all 8, others included
	for i := range 240 {
		bg, fg := names[rng.IntN(len(names))], names[rng.IntN(len(names))]
		id := "img" + itoa(i)
		ref.WriteString(id + "," + bg + "," + fg + "\n")
		e := Estimate(synthImage(rng, 48, 40, bg, fg), nil)
		e.ID = id
		est = append(est, e)
	}
	labels, err := ReadLabels(strings.NewReader(ref.String()), "truth.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Agree(labels, est)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("agreement: background %.3f, foreground %.3f, both %.3f, group %.3f", a.Background, a.Foreground, a.Both, a.Group)
	if a.N != 240 || a.Both < 0.9 || a.Group < 0.9 {
		t.Errorf("agreement %+v, want ≥ 0.9 on both colours and groups", a)
	}
	n := 0
	for _, row := range a.GroupConfusion {
		for _, v := range row {
			n += v
		}
	}
	if n != a.N {
		t.Errorf("group confusion sums to %d, want %d", n, a.N)
	}
	// A labels file written from estimates reads back, marked estimated.
	var b strings.Builder
	if err := WriteLabels(&b, est); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLabels(strings.NewReader(b.String()), "est.csv", nil)
	if err != nil || !back.Estimated || len(back.ByID) != 240 || back.ByID["img7"].Group != est[7].Group {
		t.Errorf("estimated labels read back: %v", err)
	}
	if _, err := Agree(&Labels{ByID: map[string]Label{}, Name: "x.csv"}, est); err == nil {
		t.Errorf("Agree without shared ids did not fail")
	}
}
