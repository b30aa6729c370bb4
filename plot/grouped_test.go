package plot

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// groupedSample returns a grouped chart of n models (m00, m01, …, no
// family unless fam) over three corruptions, with intervals on the
// first model.
func groupedSample(n int, fam bool) GroupedChart {
	c := GroupedChart{Title: "HMRI of accuracy", XLabel: "HMRI (ratio of areas)",
		Categories: []string{"gaussian_blur", "gaussian_noise", "jpeg_compression"}}
	for i := range n {
		s := GroupedSeries{Name: fmt.Sprintf("m%02d", i)}
		if fam && i < 3 {
			s.Group = "cnn"
		}
		for k := range c.Categories {
			s.Values = append(s.Values, 0.35+0.6*float64((i*7+k*3)%n+1)/float64(n+1))
		}
		if i == 0 {
			s.CI95 = []*Interval{{0.3, 0.5}, nil, {0.6, 0.9}}
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// TestGroupedFewSeriesUnchanged: a chart whose series need no more than
// the palette's colours is drawn exactly as before hatching existed
// (goldens written by the code of commit e9292d7), without pattern defs.
func TestGroupedFewSeriesUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    GroupedChart
	}{{"grouped6", groupedSample(6, false)}, {"grouped8fam", groupedSample(8, true)}} {
		var buf bytes.Buffer
		if err := GroupedSVG(&buf, tc.c); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(buf.Bytes(), []byte("<pattern")) || bytes.Contains(buf.Bytes(), []byte("url(#")) {
			t.Errorf("%s: pattern in a chart of few series", tc.name)
		}
		golden(t, tc.name+".svg.golden", buf.Bytes())
		buf.Reset()
		w, h := GroupedSize(tc.c)
		if err := GroupedPNG(&buf, tc.c, w, h); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.name+".png.golden")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if d := pixelsDiffer(got, want); d != 0 {
			t.Errorf("%s: %d pixels differ from %s", tc.name, d, path)
		}
	}
}

// pixelsDiffer counts the pixels where a and b differ (all of them when
// their sizes do).
func pixelsDiffer(a, b image.Image) int {
	if a.Bounds() != b.Bounds() {
		return math.MaxInt
	}
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				n++
			}
		}
	}
	return n
}

// okabeIto are the palette's colours in order (Wong 2011): blue, orange,
// green, purple, sky, vermillion.
var okabeIto = []rgb{{0, 114, 178}, {230, 159, 0}, {0, 158, 115}, {204, 121, 167}, {86, 180, 233}, {213, 94, 0}}

// wantHatch is the design: series i of a chart of ungrouped series takes
// colour i mod 6, solid for the first 6, then diagonal, cross, dots.
var wantHatch = []string{"none", "diagonal", "cross", "dots"}

// svgFills reads a grouped chart's SVG: each bar's and legend swatch's
// fill by series name (bars from their tooltips), and each pattern's tile
// colour and kind, told from its drawing (a path of lines rising to the
// right 5 px apart: diagonal; 6 px apart followed by one of falling lines:
// cross; a vertical line: vertical; a circle: dots).
func svgFills(t *testing.T, data []byte) (bars map[string][]string, swatches []string, patterns map[string][2]string) {
	t.Helper()
	bars, patterns = map[string][]string{}, map[string][2]string{}
	d := xml.NewDecoder(bytes.NewReader(data))
	var inPattern, inBar string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return bars, swatches, patterns
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		attr := func(e xml.StartElement, name string) string {
			for _, a := range e.Attr {
				if a.Name.Local == name {
					return a.Value
				}
			}
			return ""
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch {
			case e.Name.Local == "pattern":
				inPattern = attr(e, "id")
				if _, dup := patterns[inPattern]; dup {
					t.Errorf("pattern id %q defined twice", inPattern)
				}
				if attr(e, "patternUnits") != "userSpaceOnUse" {
					t.Errorf("pattern %q not in user space", inPattern)
				}
				patterns[inPattern] = [2]string{}
			case inPattern != "" && e.Name.Local == "rect":
				p := patterns[inPattern]
				p[0] = attr(e, "fill")
				patterns[inPattern] = p
			case inPattern != "" && e.Name.Local == "circle":
				patterns[inPattern] = [2]string{patterns[inPattern][0], "dots"}
			case inPattern != "" && e.Name.Local == "path":
				var kind string
				dd, moves := attr(e, "d"), strings.Count(attr(e, "d"), "M")
				switch {
				case strings.HasPrefix(dd, "M0,5 L5,0") && moves == 3:
					kind = "diagonal"
				case strings.HasPrefix(dd, "M0,6 L6,0") && moves == 3:
					kind = "rising lines" // of a cross, if falling ones follow
				case patterns[inPattern][1] == "rising lines" && strings.HasPrefix(dd, "M0,0 L6,6") && moves == 3:
					kind = "cross"
				case strings.HasPrefix(dd, "M2.5,0 L2.5,") && moves == 1:
					kind = "vertical"
				default:
					kind = "unknown path " + dd
				}
				patterns[inPattern] = [2]string{patterns[inPattern][0], kind}
			case attr(e, "class") == "bar":
				inBar = attr(e, "fill")
			case attr(e, "class") == "legend-swatch":
				swatches = append(swatches, attr(e, "fill"))
			}
		case xml.CharData:
			if inBar != "" {
				name, _, _ := strings.Cut(string(e), ",")
				bars[name] = append(bars[name], inBar)
				inBar = ""
			}
		case xml.EndElement:
			if e.Name.Local == "pattern" {
				inPattern = ""
			}
		}
	}
}

// TestGroupedManySeriesSVG: with 20 models, series i has palette colour
// i mod 6 and hatch i div 6 (solid, diagonal, cross, dots) in every bar
// and its legend swatch, no two series share a (colour, hatch), and
// every pattern referenced is defined once.
func TestGroupedManySeriesSVG(t *testing.T) {
	c := groupedSample(20, false)
	var buf bytes.Buffer
	if err := GroupedSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	bars, swatches, patterns := svgFills(t, buf.Bytes())
	if len(swatches) != 20 {
		t.Fatalf("%d legend swatches, want 20", len(swatches))
	}
	resolve := func(fill string) (colour, kind string) {
		if id, ok := strings.CutPrefix(fill, "url(#"); ok {
			p, ok := patterns[strings.TrimSuffix(id, ")")]
			if !ok {
				t.Errorf("fill %s: no such pattern", fill)
			}
			return p[0], p[1]
		}
		return fill, "none"
	}
	seen := map[[2]string]string{}
	for i, s := range c.Series {
		want := [2]string{svgColour(okabeIto[i%6]), wantHatch[i/6]}
		if len(bars[s.Name]) != len(c.Categories) {
			t.Fatalf("series %s: %d bars, want %d", s.Name, len(bars[s.Name]), len(c.Categories))
		}
		for _, f := range append(bars[s.Name], swatches[i]) {
			if col, kind := resolve(f); [2]string{col, kind} != want {
				t.Errorf("series %s: fill %s is (%s, %s), want %v", s.Name, f, col, kind, want)
			}
		}
		if other, dup := seen[want]; dup {
			t.Errorf("series %s and %s share %v", other, s.Name, want)
		}
		seen[want] = s.Name
	}
	if len(patterns) != 14 {
		t.Errorf("%d patterns defined, want 14 (6 diagonal, 6 cross, 2 dots)", len(patterns))
	}
}

// TestGroupedFamiliesHatched: with more families than colours, the
// shades of a family stay (tints of one colour, the same hatch) and the
// seventh colour key is hatched.
func TestGroupedFamiliesHatched(t *testing.T) {
	c := groupedSample(20, true) // family cnn (m00–m02), then m03…m19
	w, h := GroupedSize(c)
	l := newGroupedLayout(c, w, h)
	for i := range 3 {
		if l.styles[i].hatch != hatchNone {
			t.Errorf("family member %d hatched %v", i, l.styles[i].hatch)
		}
	}
	if l.styles[0].colour != okabeIto[0] || l.styles[1].colour == l.styles[0].colour || l.styles[2].colour != tint(okabeIto[0], 0.6) {
		t.Errorf("family shades %v, want blue to 60%% tint", l.styles[:3])
	}
	// Keys: g:cnn, n:m03 … n:m19 (18): m08 is the seventh, blue, diagonal.
	if s := l.styles[8]; s.colour != okabeIto[0] || s.hatch != hatchDiagonal {
		t.Errorf("m08 style %v, want blue diagonal", s)
	}
}

// hatchPrediction says, from the design's geometry alone (pixel centres
// (x+½, y+½); diagonal lines x+y ≡ 0 mod 5 and cross lines x±y ≡ 0 mod 6,
// 1.4 px wide; dots of radius 1.1 centred at 2.5 mod 4; vertical lines at
// x ≡ 2.5 mod 4), whether pixel (x, y) of a fill of kind is all ink (+1),
// without ink (−1) or partly covered (0, not checked).
func hatchPrediction(kind string, x, y int) int {
	near := func(v, p float64) float64 { u := math.Mod(math.Mod(v, p)+p, p); return min(u, p-u) }
	cx, cy := float64(x)+0.5, float64(y)+0.5
	lines := func(ds ...float64) int {
		m := math.Inf(1)
		for _, d := range ds {
			m = min(m, d)
		}
		switch {
		case m <= 0.2:
			return 1
		case m >= 1.3:
			return -1
		}
		return 0
	}
	switch kind {
	case "none":
		return -1
	case "diagonal":
		return lines(near(cx+cy, 5) / math.Sqrt2)
	case "cross":
		return lines(near(cx+cy, 6)/math.Sqrt2, near(cx-cy, 6)/math.Sqrt2)
	case "vertical":
		return lines(near(cx-2.5, 4))
	case "dots":
		d := math.Hypot(near(cx-2.5, 4), near(cy-2.5, 4))
		switch {
		case d <= 0.2:
			return 1
		case d >= 1.7:
			return -1
		}
		return 0
	}
	panic(kind)
}

// TestGroupedManySeriesPNG: in the PNG of 20 models, every bar (of a
// category without error bars) and every legend swatch shows its series'
// colour, at 90% opacity on white, where the design puts no ink, and the
// ink (45% of the colour) where it puts ink; and each hatched fill
// contradicts every other kind's prediction somewhere, so series i and
// i+6 (one colour) look different.
func TestGroupedManySeriesPNG(t *testing.T) {
	c := groupedSample(20, false)
	w, h := GroupedSize(c)
	var buf bytes.Buffer
	if err := GroupedPNG(&buf, c, w, h); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l := newGroupedLayout(c, w, h)
	over := func(c rgb) [3]float64 { // c at 90% on white
		return [3]float64{0.9*float64(c[0]) + 25.5, 0.9*float64(c[1]) + 25.5, 0.9*float64(c[2]) + 25.5}
	}
	near := func(x, y int, want [3]float64, tol float64) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		got := [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
		for k := range got {
			if math.Abs(got[k]-want[k]) > tol {
				return false
			}
		}
		return true
	}
	// check tests the pixels of [x0, x1) × [y0, y1) against series i's
	// fill; it returns how many pixels contradict each kind's prediction.
	check := func(what string, i, x0, y0, x1, y1 int) map[string]int {
		col := okabeIto[i%6]
		plain, ink := over(col), over(rgb{uint8(math.Round(0.45 * float64(col[0]))), uint8(math.Round(0.45 * float64(col[1]))), uint8(math.Round(0.45 * float64(col[2])))})
		kind := wantHatch[i/6]
		contra := map[string]int{}
		var nInk, nPlain int
		for y := y0; y < y1; y++ {
		pixel:
			for x := x0; x < x1; x++ {
				for _, v := range l.ticks { // grid lines under the bars
					if math.Abs(float64(x)+0.5-l.x(v)) < 2 {
						continue pixel
					}
				}
				isInk, isPlain := near(x, y, ink, 3), near(x, y, plain, 2)
				switch hatchPrediction(kind, x, y) {
				case 1:
					nInk++
					if !isInk {
						t.Errorf("%s of series %d (%s): pixel (%d, %d) = %v, want ink %v", what, i, kind, x, y, img.At(x, y), ink)
					}
				case -1:
					nPlain++
					if !isPlain {
						t.Errorf("%s of series %d (%s): pixel (%d, %d) = %v, want %v", what, i, kind, x, y, img.At(x, y), plain)
					}
				}
				for _, k := range []string{"none", "diagonal", "cross", "dots", "vertical"} {
					if p := hatchPrediction(k, x, y); (p == 1 && isPlain) || (p == -1 && isInk) {
						contra[k]++
					}
				}
			}
		}
		if nPlain == 0 || (kind != "none" && nInk == 0) {
			t.Errorf("%s of series %d: %d ink and %d plain pixels checked", what, i, nInk, nPlain)
		}
		for k, n := range contra {
			if k == kind && n > 0 {
				t.Errorf("%s of series %d: %d pixels contradict its own pattern %s", what, i, n, k)
			}
		}
		for _, k := range wantHatch {
			if k != kind && contra[k] == 0 {
				t.Errorf("%s of series %d (%s) could be %s", what, i, kind, k)
			}
		}
		return contra
	}
	base := l.x(0)
	for i := range c.Series {
		y0, y1 := l.bar(1, i) // category 1: no error bars
		check("bar", i, int(base)+2, int(math.Ceil(y0+0.5)), int(l.x(c.Series[i].Values[1]))-2, int(math.Floor(y1-0.5)))
		x, y := l.legend.legendAt(i)
		check("legend swatch", i, int(math.Ceil(x+8)), int(math.Ceil(y-6)), int(math.Floor(x+26)), int(math.Floor(y+6)))
	}
}

// TestGroupedPNGMatchesChromium: an independent renderer, headless
// Chromium, draws GroupedSVG's patterns as GroupedPNG draws its hatches:
// over the bars' area and the legend swatches of a 20-model chart the two
// differ by at most 1.5 levels on average and by more than 40 levels in at
// most 0.5% of the pixels (Chromium 0.44 and 0%; a PNG without hatches
// gave 10.2 and 20%, diagonal lines mirrored 4.2 and 7.8%). It skips
// without chromium unless VCR_REQUIRE_CHROMIUM=1.
func TestGroupedPNGMatchesChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("VCR_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium not on PATH and VCR_REQUIRE_CHROMIUM=1")
		}
		t.Skip("chromium not on PATH")
	}
	c := groupedSample(20, false)
	w, h := GroupedSize(c)
	dir := t.TempDir()
	svg, shot := filepath.Join(dir, "g.svg"), filepath.Join(dir, "shot.png")
	var buf bytes.Buffer
	if err := GroupedSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(svg, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--hide-scrollbars", "--force-device-scale-factor=1",
		"--user-data-dir="+filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,%d", w, h),
		"--screenshot="+shot, "file://"+svg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	want, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := GroupedPNG(&buf, c, w, h); err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("screenshot %v, PNG %v", want.Bounds(), got.Bounds())
	}
	l := newGroupedLayout(c, w, h)
	var sum float64
	var n, far int
	area := func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				r1, g1, b1, _ := got.At(x, y).RGBA()
				r2, g2, b2, _ := want.At(x, y).RGBA()
				d := 0.0
				for _, v := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}} {
					dv := math.Abs(float64(v[0]>>8) - float64(v[1]>>8))
					sum += dv / 3
					d = max(d, dv)
				}
				n++
				if d > 40 {
					far++
				}
			}
		}
	}
	area(int(l.left)+2, int(l.top), int(l.right), int(l.bot))
	for i := range c.Series {
		x, y := l.legend.legendAt(i)
		area(int(x+8), int(y-6), int(x+26), int(y+6))
	}
	mean, frac := sum/float64(n), float64(far)/float64(n)
	t.Logf("%d pixels: mean difference %.2f levels, %.2f%% differ by more than 40", n, mean, 100*frac)
	if mean > 1.5 || frac > 0.005 {
		t.Errorf("PNG differs from Chromium's rendering of the SVG: mean %.2f levels, %.2f%% of pixels by more than 40", mean, 100*frac)
	}
}
