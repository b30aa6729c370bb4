package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
)

func sampleScatter() ScatterChart {
	return ScatterChart{
		Title: "sensitivity", XLabel: "sensitivity to contrast", YLabel: "sensitivity to severity",
		Points: []ScatterPoint{
			{X: 0.05, Y: 0.12, Label: "all", Series: "resnet50", Large: true},
			{X: 0.08, Y: 0.2, Label: "gaussian_noise", Series: "resnet50"},
			{X: 0.02, Y: 0.1, Label: "all", Series: "vit", Large: true},
		},
	}
}

func TestScatterSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := ScatterSVG(&buf, sampleScatter()); err != nil {
		t.Fatal(err)
	}
	n := countSVG(t, buf.Bytes())
	for class, want := range map[string]int{"point": 3, "point-label": 3, "legend-marker": 2, "legend-label": 2, "title": 1, "x-label": 1, "y-label": 1} {
		if n[class] != want {
			t.Errorf("%d elements of class %q, want %d", n[class], class, want)
		}
	}
	if !strings.Contains(buf.String(), "resnet50: gaussian_noise (0.08, 0.2)") {
		t.Errorf("no tooltip for the gaussian_noise point")
	}
}

func TestScatterRanges(t *testing.T) {
	// Non-negative data start at 0 and end 5 % above the maximum.
	xl, xh, yl, yh := sampleScatter().ranges()
	if xl != 0 || math.Abs(xh-0.084) > 1e-12 || yl != 0 || math.Abs(yh-0.21) > 1e-12 {
		t.Errorf("ranges %v %v %v %v, want [0, 0.084] × [0, 0.21]", xl, xh, yl, yh)
	}
	// Negative data are padded at both ends; equal values get a unit width.
	c := ScatterChart{Points: []ScatterPoint{{X: -1, Y: -2}, {X: 1, Y: -2}}}
	xl, xh, yl, yh = c.ranges()
	if math.Abs(xl+1.1) > 1e-12 || math.Abs(xh-1.1) > 1e-12 || yl != -2.5 || yh != -1.5 {
		t.Errorf("ranges %v %v %v %v, want [-1.1, 1.1] × [-2.5, -1.5]", xl, xh, yl, yh)
	}
}

func TestScatterPNG(t *testing.T) {
	c := sampleScatter()
	var buf bytes.Buffer
	if err := ScatterPNG(&buf, c, 640, 400); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Inside the large vit point, off the grid lines through its centre,
	// vit's colour at 80 % on white.
	l := newScatterLayout(c, 640, 400)
	px := color.RGBAModel.Convert(img.At(round(l.x(0.02))+3, round(l.y(0.1))+2)).(color.RGBA)
	want := l.styles[1].colour
	for k, ch := range []uint8{px.R, px.G, px.B} {
		if math.Abs(float64(ch)-(255-0.8*(255-float64(want[k])))) > 3 {
			t.Errorf("point pixel %v, want %v at 80%%", px, want)
			break
		}
	}
}

func TestScatterInvalid(t *testing.T) {
	for name, c := range map[string]ScatterChart{
		"empty":  {},
		"nan":    {Points: []ScatterPoint{{X: math.NaN(), Y: 1}}},
		"ranges": {Points: []ScatterPoint{{X: 1, Y: 1}}, XMin: 2, XMax: 1},
	} {
		if err := ScatterSVG(&bytes.Buffer{}, c); !errors.Is(err, ErrChart) {
			t.Errorf("%s: err = %v, want ErrChart", name, err)
		}
	}
}

// TestScatterManySeries draws one point for each of 20 models: the palette
// has 6 colours, so series i and i+6 share one; in the PNG, the centre of
// model 7's point (a ring) must be white and model 13's (a dark centre)
// dark, where model 1's is its colour; the SVG has one centre per point and
// legend marker of the models after the sixth and two for those after the
// eighteenth.
func TestScatterManySeries(t *testing.T) {
	var c ScatterChart
	c.XLabel, c.YLabel = "x", "y"
	for i := range 20 {
		c.Points = append(c.Points, ScatterPoint{X: float64(i), Y: float64(i % 5), Series: fmt.Sprintf("m%02d", i+1)})
	}
	c.XMin, c.XMax, c.YMin, c.YMax = -1, 20, -1, 5
	var svg bytes.Buffer
	if err := ScatterSVG(&svg, c); err != nil {
		t.Fatal(err)
	}
	n := countSVG(t, svg.Bytes())
	// models 7–12 and 13–18: one centre; 19–20: two; points and legend.
	if want := 2 * (6 + 6 + 2*2); n["point-centre"]+n["legend-marker-centre"] != want || n["point"] != 20 {
		t.Errorf("%d point and %d legend centres for %d points, want %d centres in all", n["point-centre"], n["legend-marker-centre"], n["point"], want)
	}
	w, h := 640, 480
	var buf bytes.Buffer
	if err := ScatterPNG(&buf, c, w, h); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l := newScatterLayout(c, w, h)
	at := func(i int) [3]uint8 {
		q := c.Points[i]
		r, g, b, _ := img.At(int(math.Round(l.x(q.X))), int(math.Round(l.y(q.Y)))).RGBA()
		return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
	}
	if got := at(6); got != [3]uint8{255, 255, 255} {
		t.Errorf("centre of model 7's ring: %v, want white", got)
	}
	if got := at(12); got[0] > 60 || got[1] > 60 || got[2] > 60 {
		t.Errorf("centre of model 13's point: %v, want dark", got)
	}
	if got := at(0); got == [3]uint8{255, 255, 255} || (got[0] < 60 && got[1] < 60 && got[2] < 60) {
		t.Errorf("centre of model 1's disc: %v, want its colour", got)
	}
}
