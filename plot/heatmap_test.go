package plot

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"math"
	"testing"
)

func sampleHeat() HeatMap {
	return HeatMap{
		Title: "accuracy by contrast × severity", XLabel: "severity", YLabel: "contrast group",
		Cols: []string{"clean", "1", "2"},
		Rows: []string{"high", "high-mid", "low-mid", "low"},
		Values: [][]float64{
			{0.9, 0.8, 0.7},
			{0.85, 0.7, math.NaN()},
			{0.8, 0.6, 0.5},
			{0.7, 0.5, 0},
		},
	}
}

func TestHeatMapSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := HeatMapSVG(&buf, sampleHeat()); err != nil {
		t.Fatal(err)
	}
	n := countSVG(t, buf.Bytes())
	for class, want := range map[string]int{"cell": 11, "cell-empty": 1, "cell-label": 12, "row-label": 4, "col-label": 3, "scale-step": 20} {
		if n[class] != want {
			t.Errorf("%d elements of class %q, want %d", n[class], class, want)
		}
	}
}

func TestScaleColour(t *testing.T) {
	for _, tc := range []struct {
		t    float64
		want rgb
	}{
		{0, viridis[0]}, {1, viridis[4]}, {-3, viridis[0]}, {7, viridis[4]}, {0.5, viridis[2]},
		// Halfway between the stops at 0 and 0.25.
		{0.125, rgb{64, 42, 112}},
	} {
		if got := scaleColour(tc.t); got != tc.want {
			t.Errorf("scaleColour(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

func TestHeatMapPNG(t *testing.T) {
	h := sampleHeat()
	var buf bytes.Buffer
	if err := HeatMapPNG(&buf, h, 600, 300); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l := newHeatLayout(h, 600, 300)
	// A point in cell (low, 2) away from its label has the colour of 0.
	x0, y0, x1, _ := l.cell(3, 2)
	px := color.RGBAModel.Convert(img.At(round(x0+(x1-x0)*0.1), round(y0+3))).(color.RGBA)
	if w := scaleColour(0); px.R != w[0] || px.G != w[1] || px.B != w[2] {
		t.Errorf("cell pixel %v, want %v", px, w)
	}
	if err := HeatMapPNG(&buf, h, 100, 50); !errors.Is(err, ErrChart) {
		t.Errorf("tiny PNG: %v", err)
	}
}

func TestHeatMapInvalid(t *testing.T) {
	for name, h := range map[string]HeatMap{
		"empty":  {},
		"ragged": {Rows: []string{"a"}, Cols: []string{"x", "y"}, Values: [][]float64{{1}}},
		"rows":   {Rows: []string{"a", "b"}, Cols: []string{"x"}, Values: [][]float64{{1}}},
		"inf":    {Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{math.Inf(1)}}},
		"range":  {Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{1}}, Min: 1, Max: 1},
	} {
		if err := HeatMapSVG(&bytes.Buffer{}, h); !errors.Is(err, ErrChart) {
			t.Errorf("%s: err = %v, want ErrChart", name, err)
		}
	}
}
