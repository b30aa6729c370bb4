package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"testing"
)

// ink renders s in the chart font on white and returns the image and the
// number of pixels that are not white.
func ink(s string) (*image.RGBA, int) {
	img := image.NewRGBA(image.Rect(0, 0, 80, 24))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	newFontFaces().drawText(img, s, 4, 18, alignLeft, color.RGBA{0, 0, 0, 255}, false)
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 255 {
			n++
		}
	}
	return img, n
}

// TestPNGFontSymbols: the PNG font draws Δ, ≥ and − as glyphs of their own
// (the bitmap font before wrote "Dv" for "Δv" and "?" for others): "Δv"
// differs from "Dv" and from the font's missing-glyph box ("\uFFFF" has no
// glyph in the Go fonts), and the proportional font makes "iiii" narrower
// than "MMMM".
func TestPNGFontSymbols(t *testing.T) {
	delta, nd := ink("Δv")
	dee, _ := ink("Dv")
	missing, _ := ink("\uFFFFv")
	if nd < 20 {
		t.Fatalf("Δv drew %d pixels", nd)
	}
	if bytes.Equal(delta.Pix, dee.Pix) || bytes.Equal(delta.Pix, missing.Pix) {
		t.Error("Δ is drawn as D or as the missing-glyph box")
	}
	for _, r := range []string{"≥", "−", "Δ", "λ", "σ", "R̂"} {
		if _, n := ink(r); n < 5 {
			t.Errorf("%q draws %d pixels", r, n)
		}
		if a, _ := ink(r); bytes.Equal(a.Pix, missing.Pix) {
			t.Errorf("%q is the missing glyph", r)
		}
	}
	if wi, wm := textWidth("iiii", false), textWidth("MMMM", false); !(wi < wm/2) {
		t.Errorf("width of iiii %.1f, MMMM %.1f: not proportional", wi, wm)
	}
}

var svgSize = regexp.MustCompile(`<svg [^>]*width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)"[^>]*font-size="(\d+)"`)

// TestSizesAgree: every chart's SVG (its size and viewBox) and its PNG at
// the size the package gives have the same size in pixels, and the SVG's
// text is FontSize (≥ 11) px at that size.
func TestSizesAgree(t *testing.T) {
	cc := sampleChart()
	bc := BarChart{Title: "Δv bars", Bars: []Bar{{Name: "a", Value: 0.5}, {Name: "b", Value: 0.25}}}
	sc := ScatterChart{Title: "Δ scatter", Points: []ScatterPoint{{X: 0.1, Y: 0.2, Label: "a", Series: "m"}, {X: 0.3, Y: 0.1, Series: "n"}}}
	hm := HeatMap{Title: "heat", Rows: []string{"low", "high"}, Cols: []string{"clean", "1"}, Values: [][]float64{{0.5, 0.25}, {1, math.NaN()}}}
	gc := GroupedChart{Title: "grouped", Categories: []string{"blur", "fog"}, Series: []GroupedSeries{
		{Name: "m1", Values: []float64{0.5, math.NaN()}}, {Name: "m2", Values: []float64{0.25, 0.75}}}}
	for _, tc := range []struct {
		name string
		w, h int
		svg  func(*bytes.Buffer) error
		png  func(*bytes.Buffer, int, int) error
	}{
		{"curves", 0, 0, func(b *bytes.Buffer) error { return CurvesSVG(b, cc) }, func(b *bytes.Buffer, w, h int) error { return CurvesPNG(b, cc, w, h) }},
		{"bars", 0, 0, func(b *bytes.Buffer) error { return BarsSVG(b, bc) }, func(b *bytes.Buffer, w, h int) error { return BarsPNG(b, bc, w, h) }},
		{"grouped", 0, 0, func(b *bytes.Buffer) error { return GroupedSVG(b, gc) }, func(b *bytes.Buffer, w, h int) error { return GroupedPNG(b, gc, w, h) }},
		{"scatter", 0, 0, func(b *bytes.Buffer) error { return ScatterSVG(b, sc) }, func(b *bytes.Buffer, w, h int) error { return ScatterPNG(b, sc, w, h) }},
		{"heatmap", 0, 0, func(b *bytes.Buffer) error { return HeatMapSVG(b, hm) }, func(b *bytes.Buffer, w, h int) error { return HeatMapPNG(b, hm, w, h) }},
	} {
		switch tc.name {
		case "curves":
			tc.w, tc.h = CurvesSize(cc)
		case "bars":
			tc.w, tc.h = BarsSize(bc)
		case "grouped":
			tc.w, tc.h = GroupedSize(gc)
		case "scatter":
			tc.w, tc.h = ScatterSize(sc)
		case "heatmap":
			tc.w, tc.h = HeatMapSize(hm)
		}
		var s, p bytes.Buffer
		if err := tc.svg(&s); err != nil {
			t.Fatal(err)
		}
		m := svgSize.FindSubmatch(s.Bytes())
		if m == nil {
			t.Fatalf("%s: no <svg> size in %.200s", tc.name, s.String())
		}
		want := fmt.Sprint(tc.w, tc.h, tc.w, tc.h, FontSize)
		if got := fmt.Sprint(atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5])); got != want {
			t.Errorf("%s: SVG width, height, viewBox and font size %s, want %s", tc.name, got, want)
		}
		if err := tc.png(&p, tc.w, tc.h); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&p)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
			t.Errorf("%s: PNG %v, SVG %d×%d", tc.name, b, tc.w, tc.h)
		}
	}
	if FontSize < 11 {
		t.Errorf("FontSize %d < 11", FontSize)
	}
}

func atoi(b []byte) int { n, _ := strconv.Atoi(string(b)); return n }

// TestSimplify: points on a straight line go, a corner stays, and no
// point left out lies farther than the tolerance from the kept polyline
// (checked on a sampled quarter circle against the exact distances).
func TestSimplify(t *testing.T) {
	line := []pt{{0, 0}, {1, 1}, {2, 2}, {3, 3.05}, {4, 4}}
	if got := simplify(line, 0.15); len(got) != 2 {
		t.Errorf("straight line kept %v", got)
	}
	corner := []pt{{0, 0}, {5, 0}, {5, 5}}
	if got := simplify(corner, 0.15); len(got) != 3 {
		t.Errorf("corner lost: %v", got)
	}
	var arc []pt
	for i := 0; i <= 100; i++ {
		a := math.Pi / 2 * float64(i) / 100
		arc = append(arc, pt{300 * math.Cos(a), 300 * math.Sin(a)})
	}
	kept := simplify(arc, 0.15)
	if len(kept) >= len(arc) || len(kept) < 5 {
		t.Errorf("arc of %d points kept %d", len(arc), len(kept))
	}
	for _, q := range arc {
		best := math.Inf(1)
		for k := 1; k < len(kept); k++ {
			a, b := kept[k-1], kept[k]
			dx, dy := b.x-a.x, b.y-a.y
			u := max(0, min(1, ((q.x-a.x)*dx+(q.y-a.y)*dy)/(dx*dx+dy*dy)))
			best = min(best, math.Hypot(q.x-a.x-u*dx, q.y-a.y-u*dy))
		}
		if best > 0.15+1e-9 {
			t.Errorf("point %v is %.3f px from the simplified arc", q, best)
		}
	}
}
