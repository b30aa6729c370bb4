package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// sampleChart has a human curve with bands and points and three model
// curves, two in one family.
func sampleChart() Chart {
	n := 41
	mk := func(name string, a, b float64, human bool, group string, bands bool) Curve {
		c := Curve{Name: name, Human: human, Group: group}
		for i := range n {
			x := float64(i) / float64(n-1)
			y := a / (1 + math.Exp((x-b)*12))
			c.X = append(c.X, x)
			c.Y = append(c.Y, y)
			if bands {
				c.Lo83 = append(c.Lo83, y-0.04)
				c.Hi83 = append(c.Hi83, y+0.04)
				c.Lo95 = append(c.Lo95, y-0.07)
				c.Hi95 = append(c.Hi95, min(1.2, y+0.07)) // clipped at the top
			}
			if bands && i%4 == 0 {
				c.Points = append(c.Points, Point{X: x, Y: y + 0.03*math.Sin(float64(i)), N: 10 + 7*i})
			}
		}
		return c
	}
	return Chart{
		Title: "gaussian_noise: accuracy", XLabel: "Δv", YLabel: "accuracy",
		Curves: []Curve{
			mk("humans", 0.97, 0.7, true, "", true),
			mk("resnet50", 0.9, 0.45, false, "cnn", true),
			mk("resnet18 <a&b>", 0.8, 0.4, false, "cnn", false),
			mk("vit-b", 0.92, 0.6, false, "vit", true),
		},
	}
}

// countSVG checks that data is well-formed SVG and counts elements by
// their class attribute.
func countSVG(t *testing.T, data []byte) map[string]int {
	t.Helper()
	n := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v\n%s", err, data)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					n[a.Value]++
				}
			}
			n["<"+se.Name.Local+">"]++
		}
	}
}

func TestCurvesSVG(t *testing.T) {
	c := sampleChart()
	var buf bytes.Buffer
	if err := CurvesSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	n := countSVG(t, buf.Bytes())
	points := 0
	for _, cv := range c.Curves {
		points += len(cv.Points)
	}
	for class, want := range map[string]int{
		"curve": 4, "band83": 3, "band95": 3, "point": points, "legend-line": 4, "legend-label": 4,
		"title": 1, "x-label": 1, "y-label": 1, "<svg>": 1,
	} {
		if n[class] != want {
			t.Errorf("%d elements of class %q, want %d", n[class], class, want)
		}
	}
	if !bytes.Contains(buf.Bytes(), []byte("resnet18 &lt;a&amp;b&gt;")) {
		t.Error("curve name not escaped")
	}
}

func TestCurveStyles(t *testing.T) {
	l := newCurveLayout(sampleChart(), 800, 500)
	s := l.styles
	// Humans: black, dashed.
	if s[0].colour != black || s[0].dash == nil {
		t.Errorf("human style %v, want black dashed", s[0])
	}
	// One family, one colour, different dashes; another family, another colour.
	if s[1].colour != s[2].colour || fmt.Sprint(s[1].dash) == fmt.Sprint(s[2].dash) {
		t.Errorf("same-family styles %v, %v: want same colour, different dashes", s[1], s[2])
	}
	if s[3].colour == s[1].colour || s[3].colour == black {
		t.Errorf("family vit got colour %v", s[3].colour)
	}
	// Colours do not depend on the order of the curves.
	c := sampleChart()
	c.Curves[1], c.Curves[3] = c.Curves[3], c.Curves[1]
	s2 := newCurveLayout(c, 800, 500).styles
	if s2[3].colour != s[1].colour || s2[1].colour != s[3].colour {
		t.Errorf("colours changed with curve order: %v vs %v", s2, s)
	}
}

func TestCurvesSVGGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := CurvesSVG(&buf, sampleChart()); err != nil {
		t.Fatal(err)
	}
	golden(t, "curves.svg.golden", buf.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plot -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; review with go test ./plot -update && git diff", path)
	}
}

func TestCurvesPNG(t *testing.T) {
	c := sampleChart()
	for _, sz := range [][2]int{{800, 500}, {MinPNGWidth + 160, 320}, {1601, 999}} {
		var buf bytes.Buffer
		if err := CurvesPNG(&buf, c, sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != sz[0] || b.Dy() != sz[1] {
			t.Fatalf("PNG is %v, want %dx%d", b, sz[0], sz[1])
		}
		// The 95% band of vit-b, just outside its 83% band and away from the
		// other curves, is tinted with its colour on white.
		l := newCurveLayout(c, sz[0], sz[1])
		if l.bot-l.top < 150 {
			continue
		}
		v := c.Curves[3]
		k := 22 // x = 0.55, where the other curves and bands are far away
		px := color.RGBAModel.Convert(img.At(round(l.x(v.X[k])), round(l.y(v.Y[k]-0.055)))).(color.RGBA)
		want := l.styles[3].colour
		tint := func(ch, w uint8) bool { return ch != 255 && math.Abs(float64(ch)-(255-0.12*(255-float64(w)))) < 6 }
		if !tint(px.R, want[0]) || !tint(px.G, want[1]) || !tint(px.B, want[2]) {
			t.Errorf("%v: band pixel %v, want a 12%% tint of %v", sz, px, want)
		}
	}
}

func TestDashedPNGLine(t *testing.T) {
	p := newPNGPainter(300, 200)
	p.line("", []pt{{10, 100.5}, {290, 100.5}}, black, 1, []float64{6, 4})
	dark := 0
	for x := 10; x < 290; x++ {
		if c := p.img.RGBAAt(x, 100); c.R < 128 {
			dark++
		}
	}
	// Dash 6 on, 4 off: 60% of the 280 px.
	if dark < 150 || dark > 185 {
		t.Errorf("dashed line covers %d of 280 px, want about 168", dark)
	}
}

func TestChartInvalid(t *testing.T) {
	good := sampleChart()
	bad := func(f func(*Chart)) Chart {
		c := sampleChart()
		c.Curves = append([]Curve(nil), c.Curves...)
		f(&c)
		return c
	}
	for name, c := range map[string]Chart{
		"no curves":      {},
		"empty axis":     bad(func(c *Chart) { c.YMin, c.YMax = 1, 1 }),
		"nan y":          bad(func(c *Chart) { c.Curves[0].Y = append([]float64{math.NaN()}, c.Curves[0].Y[1:]...) }),
		"x not sorted":   bad(func(c *Chart) { c.Curves[1].X = append([]float64{0.5}, c.Curves[1].X[1:]...) }),
		"short band":     bad(func(c *Chart) { c.Curves[0].Lo83 = c.Curves[0].Lo83[1:] }),
		"one-sided band": bad(func(c *Chart) { c.Curves[0].Hi95 = nil }),
		"length":         bad(func(c *Chart) { c.Curves[0].Y = c.Curves[0].Y[1:] }),
		"negative n":     bad(func(c *Chart) { c.Curves[0].Points = []Point{{0.1, 0.1, -1}} }),
	} {
		if err := CurvesSVG(io.Discard, c); !errors.Is(err, ErrChart) {
			t.Errorf("%s: SVG error %v, want ErrChart", name, err)
		}
		if err := CurvesPNG(io.Discard, c, 600, 400); !errors.Is(err, ErrChart) {
			t.Errorf("%s: PNG error %v, want ErrChart", name, err)
		}
	}
	if err := CurvesPNG(io.Discard, good, 100, 300); !errors.Is(err, ErrChart) {
		t.Errorf("tiny PNG: error %v, want ErrChart", err)
	}
}

func ExampleCurvesSVG() {
	c := Chart{
		Title: "accuracy", XLabel: "Δv", YLabel: "accuracy",
		Curves: []Curve{
			{Name: "humans", Human: true, X: []float64{0, 0.5, 1}, Y: []float64{0.97, 0.9, 0.3}},
			{Name: "model", X: []float64{0, 0.5, 1}, Y: []float64{0.9, 0.5, 0.1},
				Lo83: []float64{0.85, 0.45, 0.05}, Hi83: []float64{0.95, 0.55, 0.15}},
		},
	}
	var buf bytes.Buffer
	if err := CurvesSVG(&buf, c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.Count(buf.Bytes(), []byte(`class="curve"`)), "curves,",
		bytes.Count(buf.Bytes(), []byte(`class="band83"`)), "band")
	// Output: 2 curves, 1 band
}

func BenchmarkCurvesPNG(b *testing.B) {
	c := sampleChart()
	b.ReportAllocs()
	for b.Loop() {
		if err := CurvesPNG(io.Discard, c, 900, 500); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCurvesSVG(b *testing.B) {
	c := sampleChart()
	b.ReportAllocs()
	for b.Loop() {
		if err := CurvesSVG(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSplitCovered(t *testing.T) {
	x := []float64{0, 0.25, 0.5, 0.75, 1}
	y := []float64{1, 0.75, 0.5, 0.25, 0}
	below, within, above := splitCovered(x, y, 0.1, 0.5)
	// y = 1 − x: the cut at 0.1 is (0.1, 0.9); 0.5 is a grid point.
	want := [3][][2]float64{
		{{0, 1}, {0.1, 0.9}},
		{{0.1, 0.9}, {0.25, 0.75}, {0.5, 0.5}},
		{{0.5, 0.5}, {0.75, 0.25}, {1, 0}},
	}
	for i, got := range [3][][2]float64{below, within, above} {
		if len(got) != len(want[i]) {
			t.Errorf("part %d = %v, want %v", i, got, want[i])
			continue
		}
		for k := range got {
			if math.Abs(got[k][0]-want[i][k][0]) > 1e-12 || math.Abs(got[k][1]-want[i][k][1]) > 1e-12 {
				t.Errorf("part %d = %v, want %v", i, got, want[i])
				break
			}
		}
	}
}

// TestCurvesSVGExtrapolated: a curve covered on [0, 0.5] is drawn solid
// there and faded and dashed beyond, with a legend entry saying so.
func TestCurvesSVGExtrapolated(t *testing.T) {
	c := Chart{Curves: []Curve{
		{Name: "m", X: []float64{0, 0.25, 0.5, 0.75, 1}, Y: []float64{1, 0.8, 0.6, 0.4, 0.2}, Covered: &[2]float64{0, 0.5}},
		{Name: "humans", Human: true, X: []float64{0, 1}, Y: []float64{1, 0.9}},
	}}
	var buf bytes.Buffer
	if err := CurvesSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	n := countSVG(t, buf.Bytes())
	for class, want := range map[string]int{"curve": 2, "curve-extrapolated": 1, "legend-line": 3} {
		if n[class] != want {
			t.Errorf("%d elements of class %q, want %d", n[class], class, want)
		}
	}
	if !bytes.Contains(buf.Bytes(), []byte(`class="curve-extrapolated" points="`)) || !bytes.Contains(buf.Bytes(), []byte(`stroke-dasharray="3 4"`)) {
		t.Errorf("extrapolated part not dashed:\n%s", buf.Bytes())
	}
	if !bytes.Contains(buf.Bytes(), []byte(extrapolatedLabel)) {
		t.Error("no legend entry for extrapolated parts")
	}
	var png bytes.Buffer
	if err := CurvesPNG(&png, c, 800, 400); err != nil {
		t.Fatal(err)
	}
	bad := c
	bad.Curves = []Curve{{Name: "m", X: []float64{0, 1}, Y: []float64{1, 0}, Covered: &[2]float64{0.6, 0.2}}}
	if err := bad.Validate(); err == nil {
		t.Error("covered range with lo > hi accepted")
	}
}

// TestCurvesSVGGaps: a curve over 0…4 with a gap around 2 is drawn as two
// polylines, 0–1 and 3–4, with no segment touching x = 2; a bad gap is
// refused.
func TestCurvesSVGGaps(t *testing.T) {
	c := Chart{XMin: 0, XMax: 4, YMin: 0, YMax: 1, Curves: []Curve{
		{Name: "m", X: []float64{0, 1, 2, 3, 4}, Y: []float64{0.1, 0.2, 0.3, 0.4, 0.5}, Gaps: [][2]float64{{1, 3}}},
	}}
	var buf bytes.Buffer
	if err := CurvesSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	if n := countSVG(t, buf.Bytes())["curve"]; n != 2 {
		t.Errorf("%d curve polylines, want 2", n)
	}
	parts := splitGaps([][2]float64{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}, [][2]float64{{1, 3}})
	if len(parts) != 2 || len(parts[0]) != 2 || parts[0][1][0] != 1 || parts[1][0][0] != 3 {
		t.Errorf("parts %v, want [[0 1] [3 4]]", parts)
	}
	if parts := splitGaps([][2]float64{{0, 0}, {1, 0}, {2, 0}}, [][2]float64{{0, 2}}); len(parts) != 0 {
		t.Errorf("a gap over the whole curve left %v", parts)
	}
	c.Curves[0].Gaps = [][2]float64{{3, 1}}
	if err := c.Validate(); err == nil {
		t.Error("gap with lo > hi accepted")
	}
}

// TestCurvesManyModels: with 20 models (no families) the colours repeat
// every 6 models and the repeats are dashed: model i is colour i mod 6
// with dash pattern i div 6 (solid, dash-dot, dotted, dashed), so no two
// legend lines share a (stroke, dash array) in the SVG; a family that
// shares its colour with an earlier one continues that colour's dashes.
func TestCurvesManyModels(t *testing.T) {
	var c Chart
	for i := range 20 {
		c.Curves = append(c.Curves, Curve{Name: fmt.Sprintf("m%02d", i), X: []float64{0, 1}, Y: []float64{0.9, 0.1 + 0.01*float64(i)}})
	}
	var buf bytes.Buffer
	if err := CurvesSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	wantDash := []string{"", "8 3 2 3", "2 3", "10 4"}
	seen := map[[2]string]int{}
	d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	i := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := map[string]string{}
		for _, at := range e.Attr {
			a[at.Name.Local] = at.Value
		}
		if a["class"] != "legend-line" {
			continue
		}
		k := [2]string{a["stroke"], a["stroke-dasharray"]}
		if want := [2]string{svgColour(okabeIto[i%6]), wantDash[i/6]}; k != want {
			t.Errorf("legend line %d: %v, want %v", i, k, want)
		}
		if j, dup := seen[k]; dup {
			t.Errorf("curves %d and %d both %v", j, i, k)
		}
		seen[k] = i
		i++
	}
	if i != 20 {
		t.Errorf("%d legend lines, want 20", i)
	}
	// Families a (2 curves) … f, then g: g has a's colour and its first
	// curve takes a's third dash.
	var human []bool
	var names, groups []string
	for _, g := range []string{"a", "a", "b", "c", "d", "e", "f", "g", "g"} {
		human, names, groups = append(human, false), append(names, g+fmt.Sprint(len(names))), append(groups, g)
	}
	s := styles(human, names, groups)
	for k, want := range map[int]int{0: 0, 1: 1, 7: 2, 8: 3} {
		if s[k].colour != okabeIto[0] || fmt.Sprint(s[k].dash) != fmt.Sprint(dashes[want]) {
			t.Errorf("curve %d: %v, want blue with dash %v", k, s[k], dashes[want])
		}
	}
}
