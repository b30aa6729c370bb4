package plot

import (
	"bufio"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"slices"
)

// Point is a raw observation drawn behind a curve, e.g. one Δv bin's mean
// accuracy; its marker area is proportional to N.
type Point struct {
	X, Y float64
	N    int
}

// Curve is one performance curve: a fitted y(x) with optional pointwise
// confidence bands and the raw points it was fitted to.
type Curve struct {
	// Name labels the curve in the legend.
	Name string
	// X (increasing) and Y are the curve's values.
	X, Y []float64
	// Lo83, Hi83 and Lo95, Hi95 are optional pointwise bands, nil or one
	// value per X each; they are drawn as shaded areas (the 83% band darker).
	Lo83, Hi83, Lo95, Hi95 []float64
	// Points are optional raw observations, drawn as markers.
	Points []Point
	// Human curves are drawn in black (then dark grey), dashed.
	Human bool
	// Group is the colour family (e.g. a model family): curves of one
	// group share a colour and differ by dash pattern. Empty: the curve is
	// its own group. Beyond the palette's 6 colours, groups reuse them and
	// continue their dash patterns, so that no two curves look alike (up
	// to 6 curves per colour).
	Group string
	// Covered, when not nil, is the x range [lo, hi] where the curve rests
	// on data; outside it the curve is an extrapolation and is drawn faded
	// and finely dashed (class "curve-extrapolated"). Nil: all of it is
	// covered.
	Covered *[2]float64
	// Gaps are open x intervals (lo, hi) the curve does not cross: a
	// segment between two consecutive points whose midpoint lies in a gap
	// is left out (e.g. a line over ordered groups, across an empty group).
	Gaps [][2]float64
}

// extrapolatedDash is the dash pattern of a curve's extrapolated parts.
var extrapolatedDash = []float64{3, 4}

// fade mixes c 40% of the way towards white.
func fade(c rgb) rgb {
	f := func(v uint8) uint8 { return uint8(int(v) + (255-int(v))*2/5) }
	return rgb{f(c[0]), f(c[1]), f(c[2])}
}

// splitCovered splits the polyline (x, y) at lo and hi (interpolating the
// cut points) into the part below lo, the part within [lo, hi] and the part
// above hi; parts may be empty or a single point.
func splitCovered(x, y []float64, lo, hi float64) (below, within, above [][2]float64) {
	at := func(i int, v float64) [2]float64 { // on segment i-1 … i, at x = v
		t := (v - x[i-1]) / (x[i] - x[i-1])
		return [2]float64{v, y[i-1] + t*(y[i]-y[i-1])}
	}
	for i := range x {
		p := [2]float64{x[i], y[i]}
		if i > 0 {
			// Cut points crossing into or out of [lo, hi].
			if x[i-1] < lo && x[i] > lo {
				c := at(i, lo)
				below, within = append(below, c), append(within, c)
			}
			if x[i-1] < hi && x[i] > hi {
				c := at(i, hi)
				within, above = append(within, c), append(above, c)
			}
		}
		switch {
		case x[i] < lo:
			below = append(below, p)
		case x[i] > hi:
			above = append(above, p)
		default:
			within = append(within, p)
			if x[i] == lo {
				below = append(below, p)
			}
			if x[i] == hi {
				above = append(above, p)
			}
		}
	}
	return below, within, above
}

// Chart is a chart of curves on one axis, such as the VCR study's
// performance curves of models and humans over Δv (Figs. 6–7 c, f).
type Chart struct {
	Title, XLabel, YLabel string
	Curves                []Curve
	// XMin, XMax and YMin, YMax are the axis ranges; both zero means
	// [0, 1]. Values outside are clipped.
	XMin, XMax, YMin, YMax float64
}

// ErrChart is wrapped by the errors CurvesSVG, CurvesPNG, BarsSVG and
// BarsPNG return for charts they cannot draw.
var ErrChart = errors.New("plot: invalid chart")

func (c Chart) xrange() (lo, hi float64) {
	if c.XMin == 0 && c.XMax == 0 {
		return 0, 1
	}
	return c.XMin, c.XMax
}

func (c Chart) yrange() (lo, hi float64) {
	if c.YMin == 0 && c.YMax == 0 {
		return 0, 1
	}
	return c.YMin, c.YMax
}

func allFinite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Validate reports whether c can be drawn: finite increasing ranges, at
// least one curve, each with at least one point, increasing finite X,
// finite Y, bands of the curve's length, and points with N ≥ 0.
func (c Chart) Validate() error {
	xl, xh := c.xrange()
	yl, yh := c.yrange()
	if !allFinite(xl, xh, yl, yh) || !(xh > xl) || !(yh > yl) {
		return fmt.Errorf("%w: axis ranges [%v, %v] × [%v, %v] must be finite and increasing", ErrChart, xl, xh, yl, yh)
	}
	if len(c.Curves) == 0 {
		return fmt.Errorf("%w: no curves", ErrChart)
	}
	for _, cv := range c.Curves {
		if len(cv.X) == 0 || len(cv.X) != len(cv.Y) {
			return fmt.Errorf("%w: curve %q has %d x and %d y values", ErrChart, cv.Name, len(cv.X), len(cv.Y))
		}
		for i := range cv.X {
			if !allFinite(cv.X[i], cv.Y[i]) || (i > 0 && !(cv.X[i] > cv.X[i-1])) {
				return fmt.Errorf("%w: curve %q: point %d (%v, %v): x must increase and values be finite", ErrChart, cv.Name, i, cv.X[i], cv.Y[i])
			}
		}
		for _, b := range [][]float64{cv.Lo83, cv.Hi83, cv.Lo95, cv.Hi95} {
			if b == nil {
				continue
			}
			if len(b) != len(cv.X) {
				return fmt.Errorf("%w: curve %q: band of %d values for %d points", ErrChart, cv.Name, len(b), len(cv.X))
			}
			if !allFinite(b...) {
				return fmt.Errorf("%w: curve %q: band values must be finite", ErrChart, cv.Name)
			}
		}
		if cv.Covered != nil && (!allFinite(cv.Covered[0], cv.Covered[1]) || cv.Covered[0] > cv.Covered[1]) {
			return fmt.Errorf("%w: curve %q: covered range %v must be finite with lo ≤ hi", ErrChart, cv.Name, *cv.Covered)
		}
		for _, g := range cv.Gaps {
			if !allFinite(g[0], g[1]) || !(g[0] < g[1]) {
				return fmt.Errorf("%w: curve %q: gap %v must be finite with lo < hi", ErrChart, cv.Name, g)
			}
		}
		if (cv.Lo83 == nil) != (cv.Hi83 == nil) || (cv.Lo95 == nil) != (cv.Hi95 == nil) {
			return fmt.Errorf("%w: curve %q: a band needs both its low and high side", ErrChart, cv.Name)
		}
		for _, p := range cv.Points {
			if !allFinite(p.X, p.Y) || p.N < 0 {
				return fmt.Errorf("%w: curve %q: point (%v, %v, n = %d)", ErrChart, cv.Name, p.X, p.Y, p.N)
			}
		}
	}
	return nil
}

// style is how a curve or bar is drawn: a curve in colour with dash, a
// bar of a grouped chart in colour with hatch.
type style struct {
	colour rgb
	dash   []float64
	hatch  hatch
}

// fill returns the style's bar fill.
func (s style) fill() fillStyle { return fillStyle{s.colour, s.hatch} }

// dashes are the patterns that tell curves of one colour apart.
var dashes = [][]float64{nil, {8, 3, 2, 3}, {2, 3}, {10, 4}, {14, 3, 3, 3, 3, 3}, {4, 4}}

// humanStyles are black dashed, then dark grey with other dashes; bars
// of the third and fourth are hatched.
var humanStyles = []style{
	{black, []float64{7, 4}, hatchNone},
	{rgb{96, 96, 96}, []float64{3, 3}, hatchNone},
	{black, []float64{10, 3, 2, 3}, hatchDiagonal},
	{rgb{96, 96, 96}, []float64{12, 5}, hatchDiagonal},
}

// styles assigns colours: humans get humanStyles in order; model groups
// get palette colours in the sorted order of their names (so that a chart
// of the same models always colours them alike), and the k-th curve of a
// group gets the k-th dash pattern. With more groups than colours, the
// groups that reuse a colour continue its dash patterns (a colour's
// curves all differ by dash, as far as there are dashes) and get the
// next hatch for bars (hatchFor: solid, then diagonal, cross, dots,
// vertical).
func styles(human []bool, names, groups []string) []style {
	var keys []string
	key := func(i int) string {
		if groups[i] != "" {
			return "g:" + groups[i]
		}
		return "n:" + names[i]
	}
	for i := range names {
		if !human[i] && !slices.Contains(keys, key(i)) {
			keys = append(keys, key(i))
		}
	}
	slices.Sort(keys)
	// first[g] is the first dash of group g: the number of curves of the
	// earlier groups that share its colour.
	size := make([]int, len(keys))
	for i := range names {
		if !human[i] {
			size[slices.Index(keys, key(i))]++
		}
	}
	first := make([]int, len(keys))
	for g := len(palette); g < len(keys); g++ {
		first[g] = first[g-len(palette)] + size[g-len(palette)]
	}
	out := make([]style, len(names))
	seen := map[string]int{}
	nh := 0
	for i := range names {
		if human[i] {
			out[i] = humanStyles[nh%len(humanStyles)]
			nh++
			continue
		}
		k := key(i)
		g := slices.Index(keys, k)
		out[i] = style{seriesColour(g), dashes[(first[g]+seen[k])%len(dashes)], hatchFor(g / len(palette))}
		seen[k]++
	}
	return out
}

// curveLayout places a chart in a w×h canvas, with the legend in columns
// under the plot area (so that the plot keeps its width however many
// curves there are).
type curveLayout struct {
	c                     Chart
	w, h                  float64
	left, right, top, bot float64
	xl, xh, yl, yh        float64
	xticks, yticks        []float64
	styles                []style
	maxN                  int
	// legendTop is the top of the legend; legendCols its number of
	// columns, legendColW their width.
	legendTop, legendColW float64
	legendCols            int
}

// legendRow is the height of a legend row.
const legendRow = 20

// legendGeometry returns the column width, number of columns and height of
// a legend of entries with the given labels in a canvas w wide.
func legendGeometry(w float64, labels []string) (colW float64, cols int, height float64) {
	if len(labels) == 0 {
		return 0, 1, 0
	}
	colW = maxTextWidth(labels...) + 52
	cols = max(1, min(len(labels), int((w-24)/colW)))
	rows := (len(labels) + cols - 1) / cols
	return colW, cols, float64(rows*legendRow + 10)
}

// legendLabels returns the legend's entries: the curves' names, and the
// extrapolation's when some curve has one.
func (c Chart) legendLabels() []string {
	var ls []string
	for _, cv := range c.Curves {
		ls = append(ls, cv.Name)
	}
	if c.extrapolates() {
		ls = append(ls, extrapolatedLabel)
	}
	return ls
}

func newCurveLayout(c Chart, w, h int) curveLayout {
	l := curveLayout{c: c, w: float64(w), h: float64(h)}
	l.xl, l.xh = c.xrange()
	l.yl, l.yh = c.yrange()
	l.xticks = ticksWithin(l.xl, l.xh, 6)
	l.yticks = ticksWithin(l.yl, l.yh, 5)
	wide := 0.0
	for _, v := range l.yticks {
		wide = max(wide, textWidth(formatTick(v), false))
	}
	human, nm, gr := make([]bool, len(c.Curves)), make([]string, len(c.Curves)), make([]string, len(c.Curves))
	for i, cv := range c.Curves {
		human[i], nm[i], gr[i] = cv.Human, cv.Name, cv.Group
		for _, p := range cv.Points {
			l.maxN = max(l.maxN, p.N)
		}
	}
	l.styles = styles(human, nm, gr)
	var legendH float64
	l.legendColW, l.legendCols, legendH = legendGeometry(l.w, c.legendLabels())
	l.left = wide + 40
	l.right = l.w - 20
	l.top = 36
	l.legendTop = l.h - legendH
	l.bot = l.legendTop - 48
	return l
}

// legendAt returns where legend entry i starts: the left end of its line
// or marker and the middle of its row.
func (l curveLayout) legendAt(i int) (x, y float64) {
	col, row := i%l.legendCols, i/l.legendCols
	return 16 + float64(col)*l.legendColW, l.legendTop + 4 + legendRow*float64(row) + legendRow/2
}

// ticksWithin returns round ticks inside [lo, hi], including both ends
// when they are ticks.
func ticksWithin(lo, hi float64, n int) []float64 {
	var t []float64
	eps := 1e-9 * (hi - lo)
	for _, v := range niceTicks(lo, hi, n) {
		if v >= lo-eps && v <= hi+eps {
			t = append(t, v)
		}
	}
	return t
}

func (l curveLayout) x(v float64) float64 {
	v = min(max(v, l.xl), l.xh)
	return l.left + (v-l.xl)/(l.xh-l.xl)*(l.right-l.left)
}

func (l curveLayout) y(v float64) float64 {
	v = min(max(v, l.yl), l.yh)
	return l.bot - (v-l.yl)/(l.yh-l.yl)*(l.bot-l.top)
}

// bandPolygon returns the polygon between lo and hi over x.
func (l curveLayout) bandPolygon(x, lo, hi []float64) []pt {
	pts := make([]pt, 0, 2*len(x))
	for i := range x {
		pts = append(pts, pt{l.x(x[i]), l.y(hi[i])})
	}
	for i := len(x) - 1; i >= 0; i-- {
		pts = append(pts, pt{l.x(x[i]), l.y(lo[i])})
	}
	return pts
}

// draw paints the chart: grid, bands (95% then 83%), points, curves, axes,
// labels and the legend.
func (l curveLayout) draw(p painter) {
	c := l.c
	if c.Title != "" {
		p.text("title", c.Title, (l.left+l.right)/2, 22, alignCentre, black, true)
	}
	p.begin("grid")
	for _, v := range l.yticks {
		p.line("grid", []pt{{l.left, l.y(v)}, {l.right, l.y(v)}}, light, 1, nil)
	}
	for _, v := range l.xticks {
		p.line("grid", []pt{{l.x(v), l.top}, {l.x(v), l.bot}}, light, 1, nil)
	}
	p.end()
	p.begin("bands")
	for i, cv := range c.Curves {
		col := l.styles[i].colour
		if cv.Lo95 != nil {
			p.fill("band95", l.bandPolygon(cv.X, cv.Lo95, cv.Hi95), col, 0.12)
		}
		if cv.Lo83 != nil {
			p.fill("band83", l.bandPolygon(cv.X, cv.Lo83, cv.Hi83), col, 0.22)
		}
	}
	p.end()
	p.begin("points")
	for i, cv := range c.Curves {
		for _, q := range cv.Points {
			r := 1.5
			if l.maxN > 0 {
				r += 4.5 * math.Sqrt(float64(q.N)/float64(l.maxN))
			}
			p.circle("point", l.x(q.X), l.y(q.Y), r, l.styles[i].colour, 0.55,
				fmt.Sprintf("%s: (%s, %s), n = %d", cv.Name, formatTick(q.X), formatTick(q.Y), q.N))
		}
	}
	p.end()
	p.begin("curves")
	for i, cv := range c.Curves {
		toPts := func(q [][2]float64) []pt {
			pts := make([]pt, len(q))
			for k, v := range q {
				pts[k] = pt{l.x(v[0]), l.y(v[1])}
			}
			return pts
		}
		if cv.Covered == nil {
			q := make([][2]float64, len(cv.X))
			for k := range cv.X {
				q[k] = [2]float64{cv.X[k], cv.Y[k]}
			}
			for _, part := range splitGaps(q, cv.Gaps) {
				p.line("curve", toPts(part), l.styles[i].colour, 2, l.styles[i].dash)
			}
			continue
		}
		below, within, above := splitCovered(cv.X, cv.Y, cv.Covered[0], cv.Covered[1])
		for _, part := range [][][2]float64{below, above} {
			for _, part := range splitGaps(part, cv.Gaps) {
				p.line("curve-extrapolated", toPts(part), fade(l.styles[i].colour), 1.5, extrapolatedDash)
			}
		}
		for _, part := range splitGaps(within, cv.Gaps) {
			p.line("curve", toPts(part), l.styles[i].colour, 2, l.styles[i].dash)
		}
	}
	p.end()
	l.drawAxes(p, c.XLabel, c.YLabel)
	p.begin("legend")
	for i, cv := range c.Curves {
		x, y := l.legendAt(i)
		p.line("legend-line", []pt{{x, y}, {x + 30, y}}, l.styles[i].colour, 2.5, l.styles[i].dash)
		p.text("legend-label", cv.Name, x+38, y+4.5, alignLeft, black, false)
	}
	if c.extrapolates() {
		x, y := l.legendAt(len(c.Curves))
		p.line("legend-line", []pt{{x, y}, {x + 30, y}}, fade(rgb{90, 90, 90}), 1.5, extrapolatedDash)
		p.text("legend-label", extrapolatedLabel, x+38, y+4.5, alignLeft, black, false)
	}
	p.end()
}

// CurvesSVG writes c as a standalone SVG document: shaded bands, raw points,
// curves (class "curve"), axes and a legend in columns under the plot. The
// canvas is CurvesSize(c). It returns an error wrapping ErrChart if c is
// invalid, or the first write error.
func CurvesSVG(w io.Writer, c Chart) error {
	if err := c.Validate(); err != nil {
		return err
	}
	wd, ht := CurvesSize(c)
	return svgDocument(bufio.NewWriter(w), wd, ht, newCurveLayout(c, wd, ht).draw)
}

// CurvesSize returns the size in pixels CurvesSVG draws c at: SVGWidth
// wide, SVGHeight high plus the legend's rows. CurvesPNG at this size
// draws the same picture.
func CurvesSize(c Chart) (width, height int) {
	_, _, legendH := legendGeometry(SVGWidth, c.legendLabels())
	return SVGWidth, SVGHeight + int(math.Ceil(legendH))
}

// extrapolatedLabel is the legend entry of extrapolated curve parts.
const extrapolatedLabel = "no data (extrapolated)"

// extrapolates reports whether some curve has a part outside its Covered range.
func (c Chart) extrapolates() bool {
	for _, cv := range c.Curves {
		if cv.Covered != nil && len(cv.X) > 0 && (cv.X[0] < cv.Covered[0] || cv.X[len(cv.X)-1] > cv.Covered[1]) {
			return true
		}
	}
	return false
}

// CurvesPNG draws c into a width×height PNG: the same chart as CurvesSVG
// (at CurvesSize, the same picture), with text in the embedded Go font. It
// returns an error wrapping
// ErrChart if c is invalid, the size is outside the PNG limits or leaves
// no room for the plot beside the legend, or the encoder's error.
func CurvesPNG(w io.Writer, c Chart, width, height int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := checkPNGSize(ErrChart, width, height); err != nil {
		return err
	}
	l := newCurveLayout(c, width, height)
	if l.right-l.left < 100 || l.bot-l.top < 60 {
		return fmt.Errorf("%w: a %d×%d PNG leaves no room for the plot beside the legend", ErrChart, width, height)
	}
	p := newPNGPainter(width, height)
	l.draw(p)
	return png.Encode(w, p.img)
}

// drawAxes draws both axes with their ticks, tick labels and axis labels
// (shared by curve and scatter charts).
func (l curveLayout) drawAxes(p painter, xLabel, yLabel string) {
	p.begin("axes")
	p.line("axis", []pt{{l.left, l.bot}, {l.right, l.bot}}, black, 1, nil)
	p.line("axis", []pt{{l.left, l.top}, {l.left, l.bot}}, black, 1, nil)
	for _, v := range l.xticks {
		p.line("tick", []pt{{l.x(v), l.bot}, {l.x(v), l.bot + 5}}, black, 1, nil)
		p.text("tick-label", formatTick(v), l.x(v), l.bot+18, alignCentre, black, false)
	}
	for _, v := range l.yticks {
		p.line("tick", []pt{{l.left - 5, l.y(v)}, {l.left, l.y(v)}}, black, 1, nil)
		p.text("tick-label", formatTick(v), l.left-8, l.y(v)+4, alignRight, black, false)
	}
	p.end()
	if xLabel != "" {
		p.text("x-label", xLabel, (l.left+l.right)/2, l.bot+38, alignCentre, black, false)
	}
	if yLabel != "" {
		p.vtext("y-label", yLabel, 4, (l.top+l.bot)/2, black)
	}
}

// splitGaps cuts the polyline q into the runs of segments whose midpoints
// lie in none of gaps, and returns the runs of at least two points.
func splitGaps(q [][2]float64, gaps [][2]float64) [][][2]float64 {
	var parts [][][2]float64
	var run [][2]float64
	flush := func() {
		if len(run) >= 2 {
			parts = append(parts, run)
		}
		run = nil
	}
	for k := range q {
		if k > 0 {
			mid := (q[k-1][0] + q[k][0]) / 2
			if slices.ContainsFunc(gaps, func(g [2]float64) bool { return g[0] < mid && mid < g[1] }) {
				flush()
			}
		}
		run = append(run, q[k])
	}
	flush()
	return parts
}
