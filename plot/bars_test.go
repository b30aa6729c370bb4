package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"regexp"
	"testing"
)

func sampleBars() BarChart {
	return BarChart{
		Title: "gaussian_noise: HMRI (accuracy)", XLabel: "HMRI",
		Bars: []Bar{
			{Name: "resnet50", Value: 0.62, CI83: &Interval{0.58, 0.66}, CI95: &Interval{0.55, 0.69}, Group: "cnn"},
			{Name: "vit-b", Value: 0.81, CI83: &Interval{0.78, 0.84}, CI95: &Interval{0.75, 0.86}, Group: "vit"},
			{Name: "resnet18", Value: 0.55, Group: "cnn"},
			{Name: "alexnet", Value: 0.2, CI95: &Interval{-0.1, 0.3}, Group: "cnn"}, // clipped at 0
		},
	}
}

func TestBarsSVG(t *testing.T) {
	c := sampleBars()
	var buf bytes.Buffer
	if err := BarsSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	n := countSVG(t, buf.Bytes())
	for class, want := range map[string]int{"bar": 4, "ci83": 2, "ci95": 3, "ci95-cap": 6, "bar-label": 4, "value-label": 4, "title": 1} {
		if n[class] != want {
			t.Errorf("%d elements of class %q, want %d", n[class], class, want)
		}
	}
	// Sorted by value, largest on top.
	var order []string
	for _, m := range regexp.MustCompile(`class="bar-label"[^>]*>([^<]*)<`).FindAllSubmatch(buf.Bytes(), -1) {
		order = append(order, string(m[1]))
	}
	if fmt.Sprint(order) != "[vit-b resnet50 resnet18 alexnet]" {
		t.Errorf("bar order %v, want by decreasing value", order)
	}
	golden(t, "bars.svg.golden", buf.Bytes())
}

func TestBarsPNG(t *testing.T) {
	c := sampleBars()
	for _, sz := range [][2]int{{700, 300}, {MinPNGWidth, MinPNGHeight}, {1203, 777}} {
		var buf bytes.Buffer
		if err := BarsPNG(&buf, c, sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != sz[0] || b.Dy() != sz[1] {
			t.Fatalf("PNG is %v, want %dx%d", b, sz[0], sz[1])
		}
		// A pixel inside the top bar (vit-b), between the axis and the
		// start of its error bar, has its colour at 85% opacity on white.
		l := newBarLayout(c, sz[0], sz[1])
		y0, y1 := l.row(0)
		px := color.RGBAModel.Convert(img.At(round(l.x(0.3)), round(y0+(y1-y0)/4))).(color.RGBA)
		want := l.styles[0].colour
		near := func(ch, w uint8) bool { return math.Abs(float64(ch)-(255-0.85*(255-float64(w)))) < 3 }
		if !near(px.R, want[0]) || !near(px.G, want[1]) || !near(px.B, want[2]) {
			t.Errorf("%v: bar pixel %v, want %v at 85%%", sz, px, want)
		}
	}
}

func TestBarsInvalid(t *testing.T) {
	for name, c := range map[string]BarChart{
		"no bars":     {},
		"nan":         {Bars: []Bar{{Name: "a", Value: math.NaN()}}},
		"reversed ci": {Bars: []Bar{{Name: "a", Value: 0.5, CI95: &Interval{0.6, 0.4}}}},
		"range":       {Min: 1, Max: 0, Bars: []Bar{{Name: "a", Value: 0.5}}},
	} {
		if err := BarsSVG(io.Discard, c); !errors.Is(err, ErrChart) {
			t.Errorf("%s: SVG error %v, want ErrChart", name, err)
		}
		if err := BarsPNG(io.Discard, c, 600, 400); !errors.Is(err, ErrChart) {
			t.Errorf("%s: PNG error %v, want ErrChart", name, err)
		}
	}
	many := BarChart{}
	for i := range 100 {
		many.Bars = append(many.Bars, Bar{Name: fmt.Sprint("model", i), Value: 0.5})
	}
	if err := BarsPNG(io.Discard, many, 600, 200); !errors.Is(err, ErrChart) {
		t.Errorf("100 bars in 200 px: error %v, want ErrChart", err)
	}
}

func BenchmarkBarsPNG(b *testing.B) {
	c := sampleBars()
	b.ReportAllocs()
	for b.Loop() {
		if err := BarsPNG(io.Discard, c, 900, 300); err != nil {
			b.Fatal(err)
		}
	}
}
