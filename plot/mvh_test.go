package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// samplePanels are an accuracy and a kappa panel over four conditions:
// humans with a band and subject points, one model with a gap (NaN) at the
// third condition, one with a value only at the first.
func samplePanels() []ConditionChart {
	nan := math.NaN()
	chance, zero := 1.0/16, 0.0
	conds := []string{"c01", "c05", "c30", "c100"}
	acc := ConditionChart{Title: "contrast: accuracy", XLabel: "condition", YLabel: "16-class accuracy", Conditions: conds,
		Reference: &chance, ReferenceLabel: "chance", Series: []ConditionSeries{
			{Name: "humans", Human: true, Y: []float64{0.06, 0.35, 0.8, 0.86}, Lo: []float64{0.05, 0.3, 0.75, 0.82}, Hi: []float64{0.08, 0.47, 0.88, 0.9},
				Points: [][]float64{{0.05, 0.08}, {0.3, 0.47}, {0.75, 0.88}, {0.82, 0.9}}},
			{Name: "resnet50", Y: []float64{0.1, 0.5, nan, 0.95}},
			{Name: "vit", Y: []float64{0.2, nan, nan, nan}},
		}}
	kap := acc
	kap.Title, kap.YLabel, kap.Reference, kap.ReferenceLabel, kap.YMin, kap.YMax = "contrast: error consistency", "error consistency (kappa)", &zero, "independent", -0.2, 1
	kap.Series = []ConditionSeries{
		{Name: "humans", Human: true, Y: []float64{0, 0.44, 0.46, 0.44}, Lo: []float64{-0.06, 0.4, 0.43, 0.35}, Hi: []float64{0.01, 0.47, 0.53, 0.51}},
		{Name: "resnet50", Y: []float64{-0.01, 0.2, nan, 0.3}},
		{Name: "vit", Y: []float64{0.1, nan, nan, nan}},
	}
	return []ConditionChart{acc, kap}
}

// svgElement is the part of an SVG element the tests read.
type svgElement struct {
	XMLName xml.Name
	Class   string       `xml:"class,attr"`
	Text    string       `xml:",chardata"`
	Attrs   []xml.Attr   `xml:",any,attr"`
	Kids    []svgElement `xml:",any"`
}

func walkSVG(e svgElement, f func(e svgElement, parents []svgElement), parents []svgElement) {
	f(e, parents)
	for _, k := range e.Kids {
		walkSVG(k, f, append(parents, e))
	}
}

// TestConditionPanelsSVG checks the document's structure: well-formed XML,
// one series group per series and panel, lines only over runs of two or
// more values, one marker per value, bands, subject points, axis labels,
// condition labels, the legend, and no NaN anywhere.
func TestConditionPanelsSVG(t *testing.T) {
	var b bytes.Buffer
	if err := ConditionPanelsSVG(&b, samplePanels()...); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	if strings.Contains(strings.ToLower(doc), "nan") || strings.Contains(doc, "Inf") {
		t.Fatal("the SVG contains NaN or Inf")
	}
	var root svgElement
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	count := map[string]int{}
	texts := map[string][]string{}
	walkSVG(root, func(e svgElement, parents []svgElement) {
		cls := e.Class
		if len(parents) > 0 && strings.HasPrefix(parents[len(parents)-1].Class, "series ") {
			cls = parents[len(parents)-1].Class + "/" + cls
		}
		count[cls]++
		if e.XMLName.Local == "text" {
			texts[e.Class] = append(texts[e.Class], e.Text)
		}
		for _, a := range e.Attrs {
			if a.Name.Local == "points" || a.Name.Local == "cx" || a.Name.Local == "cy" {
				for _, f := range strings.FieldsFunc(a.Value, func(r rune) bool { return r == ' ' || r == ',' }) {
					if _, err := strconv.ParseFloat(f, 64); err != nil {
						t.Errorf("%s %s=%q: %v", e.Class, a.Name.Local, a.Value, err)
					}
				}
			}
		}
	}, nil)
	for cls, want := range map[string]int{
		"series human": 2, "series model": 4, // 3 series in each of 2 panels
		// Humans: 4 markers per panel, one band per panel, 8 subject points in the first.
		"series human/marker": 8, "series human/band": 2, "series human/individual": 8, "series human/line": 2,
		// resnet50: values at 3 conditions per panel, a line over the first two only; vit: 1 value, no line.
		"series model/marker": 2 * (3 + 1), "series model/line": 2,
		"reference": 2, "legend-label": 3, "legend-marker": 3,
		"title": 2, "x-label": 2, "y-label": 2,
	} {
		if count[cls] != want {
			t.Errorf("%d elements of class %q, want %d", count[cls], cls, want)
		}
	}
	for cls, want := range map[string][]string{
		"y-label":      {"16-class accuracy", "error consistency (kappa)"},
		"x-label":      {"condition", "condition"},
		"legend-label": {"humans", "resnet50", "vit"},
	} {
		if got := texts[cls]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s texts %q, want %q", cls, got, want)
		}
	}
	conds := strings.Join(texts["tick-label"], " ")
	for _, c := range []string{"c01", "c05", "c30", "c100", "-0.2", "0.6"} {
		if !strings.Contains(conds, c) {
			t.Errorf("tick labels %q lack %q", conds, c)
		}
	}
}

// TestConditionPanelsPNG checks the PNG's size, that it decodes, and that
// it has the human red in it.
func TestConditionPanelsPNG(t *testing.T) {
	var b bytes.Buffer
	if err := ConditionPanelsPNG(&b, 1200, 560, samplePanels()...); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 1200 || r.Dy() != 560 {
		t.Errorf("size %v, want 1200×560", r)
	}
	red := false
	for y := 0; y < 560 && !red; y++ {
		for x := 0; x < 1200 && !red; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			red = uint8(r>>8) == humanRed[0] && uint8(g>>8) == humanRed[1] && uint8(bl>>8) == humanRed[2]
		}
	}
	if !red {
		t.Error("no pixel in the human red")
	}
	if err := ConditionPanelsPNG(io.Discard, 400, 560, samplePanels()...); !errors.Is(err, ErrChart) {
		t.Errorf("a 400 px PNG for two panels: %v, want ErrChart", err)
	}
}

// TestConditionChartValidate checks that malformed panels are refused.
func TestConditionChartValidate(t *testing.T) {
	for name, change := range map[string]func(p []ConditionChart){
		"short Y":        func(p []ConditionChart) { p[0].Series[1].Y = p[0].Series[1].Y[:2] },
		"infinite":       func(p []ConditionChart) { p[0].Series[1].Y[0] = math.Inf(1) },
		"one-sided band": func(p []ConditionChart) { p[0].Series[0].Lo = nil },
		"other series":   func(p []ConditionChart) { p[1].Series[2].Name = "other" },
		"y range":        func(p []ConditionChart) { p[1].YMin, p[1].YMax = 1, 1 },
		"no conditions": func(p []ConditionChart) {
			p[0].Conditions = nil
		},
	} {
		p := samplePanels()
		change(p)
		if err := ConditionPanelsSVG(io.Discard, p...); !errors.Is(err, ErrChart) {
			t.Errorf("%s: %v, want ErrChart", name, err)
		}
	}
}

// TestConditionPanelsManyModels draws humans and 14 models: the palette
// has 6 colours, so models 1 and 7 (and 13) share a colour; they must
// differ by their dash, in the lines and in the legend, and no two series
// may share both colour and dash. The first 6 models are solid.
func TestConditionPanelsManyModels(t *testing.T) {
	c := ConditionChart{Title: "accuracy", XLabel: "condition", YLabel: "accuracy", Conditions: []string{"a", "b"},
		Series: []ConditionSeries{{Name: "humans", Human: true, Y: []float64{0.5, 0.6}}}}
	for i := range 14 {
		c.Series = append(c.Series, ConditionSeries{Name: fmt.Sprintf("m%02d", i+1), Y: []float64{0.1 + 0.05*float64(i), 0.2}})
	}
	var b bytes.Buffer
	if err := ConditionPanelsSVG(&b, c); err != nil {
		t.Fatal(err)
	}
	var root svgElement
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	style := func(e svgElement) string {
		var stroke, dash string
		for _, a := range e.Attrs {
			switch a.Name.Local {
			case "stroke":
				stroke = a.Value
			case "stroke-dasharray":
				dash = a.Value
			}
		}
		return stroke + "|" + dash
	}
	var legend, lines []string
	walkSVG(root, func(e svgElement, parents []svgElement) {
		switch {
		case e.Class == "legend-line":
			legend = append(legend, style(e))
		case e.Class == "line" && len(parents) > 0 && strings.HasPrefix(parents[len(parents)-1].Class, "series "):
			lines = append(lines, style(e))
		}
	}, nil)
	if len(legend) != 15 || len(lines) != 15 {
		t.Fatalf("%d legend lines and %d series lines, want 15 each", len(legend), len(lines))
	}
	seen := map[string]int{}
	for i, s := range legend {
		if j, dup := seen[s]; dup {
			t.Errorf("legend entries %d and %d share colour and dash %q", j, i, s)
		}
		seen[s] = i
		if lines[i] != s {
			t.Errorf("series %d: line %q, legend %q", i, lines[i], s)
		}
	}
	col := func(s string) string { return strings.Split(s, "|")[0] }
	dash := func(s string) string { return strings.Split(s, "|")[1] }
	if col(legend[1]) != col(legend[7]) || dash(legend[1]) != "" || dash(legend[7]) == "" {
		t.Errorf("models 1 and 7: %q and %q, want one colour, solid then dashed", legend[1], legend[7])
	}
	if dash(legend[0]) == "" {
		t.Errorf("humans %q: want dashed", legend[0])
	}
}
