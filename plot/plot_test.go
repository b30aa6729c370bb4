package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// sample is a 40-bin Δv histogram with two series, as the coverage report draws it.
func sample() Histogram {
	edges := make([]float64, 41)
	for i := range edges {
		edges[i] = float64(i) / 40
	}
	uni, tar := make([]int, 40), make([]int, 40)
	for k := range 40 {
		uni[k] = 80 - 2*k
		tar[k] = 20 + (k*7)%11
	}
	return Histogram{
		Title: "gaussian_noise: Δv coverage", XLabel: "Δv = 1 − VIF", YLabel: "images per bin",
		Edges:     edges,
		Series:    []Series{{Name: "uniform", Counts: uni}, {Name: "targeted <Δv>", Counts: tar}},
		Threshold: 20,
	}
}

func TestHistogramSVG(t *testing.T) {
	for _, h := range []Histogram{
		sample(),
		{Edges: []float64{-3, -1, 2.5}, Series: []Series{{Counts: []int{0, 0}}}}, // all zero, no labels, no legend
		{Edges: []float64{0, 1e-4, 2e-4, 3e-4}, Series: []Series{{Name: "a&b", Counts: []int{5, 1000000, 3}}}, Threshold: 2000000},
	} {
		var buf bytes.Buffer
		if err := HistogramSVG(&buf, h); err != nil {
			t.Fatal(err)
		}
		bars, root, err := parseSVG(buf.Bytes())
		if err != nil {
			t.Fatalf("SVG does not parse: %v\n%s", err, buf.String())
		}
		if root != "svg" {
			t.Errorf("root element %q, want svg", root)
		}
		if want := h.Bins() * len(h.Series); bars != want {
			t.Errorf("%d bars, want %d", bars, want)
		}
		if got := bytes.Contains(buf.Bytes(), []byte(`class="threshold"`)); got != (h.Threshold > 0) {
			t.Errorf("threshold line drawn: %v, want %v", got, h.Threshold > 0)
		}
	}
}

// parseSVG checks that data is well-formed XML and counts <rect class="bar">.
func parseSVG(data []byte) (bars int, root string, err error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return bars, root, nil
		}
		if err != nil {
			return 0, "", err
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
				if se.Name.Space != "http://www.w3.org/2000/svg" {
					return 0, "", fmt.Errorf("root namespace %q", se.Name.Space)
				}
			}
			if se.Name.Local == "rect" && slices.Contains(se.Attr, xml.Attr{Name: xml.Name{Local: "class"}, Value: "bar"}) {
				bars++
			}
		}
	}
}

func TestHistogramSVGGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := HistogramSVG(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "histogram.svg.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plot -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("SVG differs from %s; review with go test ./plot -update && git diff", path)
	}
}

func TestHistogramPNG(t *testing.T) {
	h := sample()
	for _, sz := range [][2]int{{640, 400}, {MinPNGWidth, MinPNGHeight}, {1201, 803}} {
		var buf bytes.Buffer
		if err := HistogramPNG(&buf, h, sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != sz[0] || b.Dy() != sz[1] {
			t.Fatalf("PNG is %v, want %dx%d", b, sz[0], sz[1])
		}
		// The middle of the first bin's first bar has the first series colour,
		// and the threshold line is red somewhere along its row.
		l := newLayout(h, sz[0], sz[1])
		x0, y0, x1, y1 := l.bar(0, 0)
		c := color.RGBAModel.Convert(img.At(round((x0+x1)/2), round((y0+y1)/2))).(color.RGBA)
		if p := seriesColour(0); c != (color.RGBA{p[0], p[1], p[2], 255}) {
			t.Errorf("%v: bar pixel %v, want series colour %v", sz, c, p)
		}
		red := 0
		for x := round(l.left); x <= round(l.right); x++ {
			if color.RGBAModel.Convert(img.At(x, round(l.y(20)))).(color.RGBA) == (color.RGBA{204, 0, 0, 255}) {
				red++
			}
		}
		// Dashed: about 6 of every 10 pixels.
		if span := l.right - l.left; float64(red) < 0.4*span || float64(red) > 0.8*span {
			t.Errorf("%v: threshold row has %d red pixels over %.0f, want a dashed line", sz, red, span)
		}
	}
}

func TestHistogramInvalid(t *testing.T) {
	good := sample()
	for name, h := range map[string]Histogram{
		"no edges":       {Series: []Series{{Counts: nil}}},
		"decreasing":     {Edges: []float64{0, 2, 1}, Series: []Series{{Counts: []int{1, 1}}}},
		"no series":      {Edges: []float64{0, 1}},
		"wrong count":    {Edges: []float64{0, 1}, Series: []Series{{Counts: []int{1, 2}}}},
		"negative count": {Edges: []float64{0, 1}, Series: []Series{{Counts: []int{-1}}}},
		"negative line":  {Edges: []float64{0, 1}, Series: []Series{{Counts: []int{1}}}, Threshold: -1},
	} {
		if err := HistogramSVG(io.Discard, h); !errors.Is(err, ErrHistogram) {
			t.Errorf("%s: SVG error %v, want ErrHistogram", name, err)
		}
		if err := HistogramPNG(io.Discard, h, 400, 300); !errors.Is(err, ErrHistogram) {
			t.Errorf("%s: PNG error %v, want ErrHistogram", name, err)
		}
	}
	if err := HistogramPNG(io.Discard, good, 100, 300); !errors.Is(err, ErrHistogram) {
		t.Errorf("tiny PNG: error %v, want ErrHistogram", err)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		// Worked by hand: raw step (hi−lo)/n rounded up to 1, 2 or 5 × 10^k.
		{0, 1, 6, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 83, 5, []float64{0, 20, 40, 60, 80, 100}},
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-3, 2.5, 6, []float64{-3, -2, -1, 0, 1, 2, 3}},
		{0, 0, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
	} {
		if got := niceTicks(tc.lo, tc.hi, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks(%v, %v, %d) = %v, want %v", tc.lo, tc.hi, tc.n, got, tc.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 0.2: "0.2", 1e-4: "0.0001", 100: "100", -2.5: "-2.5"} {
		if got := formatTick(v); got != want {
			t.Errorf("formatTick(%v) = %q, want %q", v, got, want)
		}
	}
}

func ExampleHistogramSVG() {
	h := Histogram{
		Title:     "Δv coverage",
		XLabel:    "Δv",
		YLabel:    "images",
		Edges:     []float64{0, 0.25, 0.5, 0.75, 1},
		Series:    []Series{{Name: "uniform", Counts: []int{40, 25, 12, 3}}},
		Threshold: 20,
	}
	var buf bytes.Buffer
	if err := HistogramSVG(&buf, h); err != nil {
		fmt.Println(err)
		return
	}
	bars, _, _ := parseSVG(buf.Bytes())
	fmt.Println(bars, "bars")
	// Output: 4 bars
}

func BenchmarkHistogramSVG(b *testing.B) {
	h := sample()
	b.ReportAllocs()
	for b.Loop() {
		if err := HistogramSVG(io.Discard, h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistogramPNG(b *testing.B) {
	h := sample()
	b.ReportAllocs()
	for b.Loop() {
		if err := HistogramPNG(io.Discard, h, 720, 420); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHistogramManySeries: a histogram of 13 series (one per model) gives
// series 7–12 their palette colour again, hatched diagonally, and series 13
// cross-hatched, in the bars and the legend swatches of both formats; the
// first six stay solid. The PNG's pixels follow the hatch geometry
// (hatchPrediction): ink where the pattern puts lines, the plain colour
// where it puts none.
func TestHistogramManySeries(t *testing.T) {
	const n = 13
	h := Histogram{Title: "coverage", Edges: []float64{0, 0.25, 0.5, 0.75, 1}}
	for i := range n {
		h.Series = append(h.Series, Series{Name: fmt.Sprintf("model %d", i+1), Counts: []int{40 + i, 30, 20 + i, 10}})
	}
	var svg bytes.Buffer
	if err := HistogramSVG(&svg, h); err != nil {
		t.Fatal(err)
	}
	s := svg.String()
	for i := range n {
		f := seriesFill(i)
		want := map[int]hatch{0: hatchNone, 1: hatchDiagonal, 2: hatchCross}[i/6]
		if f.hatch != want || f.colour != rgb(palette[i%6]) {
			t.Fatalf("series %d fill %v, want colour %v hatch %v", i+1, f, palette[i%6], want)
		}
		fill := fmt.Sprintf("rgb(%d,%d,%d)", f.colour[0], f.colour[1], f.colour[2])
		if f.hatch != hatchNone {
			fill = "url(#" + patternID(f) + ")"
			if c := strings.Count(s, `<pattern id="`+patternID(f)+`"`); c != 1 {
				t.Errorf("series %d: %d <pattern> definitions of %s, want 1", i+1, c, patternID(f))
			}
		}
		// One group of bars and one legend swatch use the fill.
		if c := strings.Count(s, `<g class="series" fill="`+fill+`">`); c != 1 {
			t.Errorf("series %d: %d bar groups filled %s, want 1", i+1, c, fill)
		}
		if c := strings.Count(s, `width="12" height="12" fill="`+fill+`"`); c != 1 {
			t.Errorf("series %d: %d legend swatches filled %s, want 1", i+1, c, fill)
		}
	}
	if err := xml.Unmarshal(svg.Bytes(), new(any)); err != nil {
		t.Errorf("SVG is not well-formed XML: %v", err)
	}

	const W, H = 1200, 700
	var buf bytes.Buffer
	if err := HistogramPNG(&buf, h, W, H); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l := newLayout(h, W, H)
	for _, i := range []int{0, 6, 12} {
		f := seriesFill(i)
		base := color.RGBA{f.colour[0], f.colour[1], f.colour[2], 255}
		ic := hatchInk(f.colour)
		ink := color.RGBA{ic[0], ic[1], ic[2], 255}
		kind := hatchNames[f.hatch]
		x0, y0, x1, y1 := l.bar(i, 0)
		inked, plain := 0, 0
		for y := round(y0) + 1; y < round(y1)-1; y++ {
			for x := round(x0) + 1; x < round(x1)-1; x++ {
				c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
				switch hatchPrediction(kind, x, y) {
				case 1:
					if c != ink {
						t.Fatalf("series %d (%s): pixel (%d,%d) %v, want ink %v", i+1, kind, x, y, c, ink)
					}
					inked++
				case -1:
					if c != base {
						t.Fatalf("series %d (%s): pixel (%d,%d) %v, want %v", i+1, kind, x, y, c, base)
					}
					plain++
				}
			}
		}
		if plain == 0 || (f.hatch != hatchNone && inked == 0) {
			t.Errorf("series %d (%s): %d ink and %d plain pixels checked", i+1, kind, inked, plain)
		}
	}
}
