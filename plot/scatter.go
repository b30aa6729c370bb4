package plot

import (
	"bufio"
	"fmt"
	"image/png"
	"io"
	"math"
	"slices"
)

// ScatterPoint is one point of a scatter chart.
type ScatterPoint struct {
	X, Y float64
	// Label is written beside the point (empty: none).
	Label string
	// Series names the point's colour and legend entry.
	Series string
	// Large points are drawn bigger (e.g. a pooled value among
	// per-corruption values).
	Large bool
}

// ScatterChart is a 2-D scatter of labelled points, such as the CIFAR-CoCo
// study's sensitivity to contrast against sensitivity to severity per model.
type ScatterChart struct {
	Title, XLabel, YLabel string
	Points                []ScatterPoint
	// XMin, XMax and YMin, YMax are the axis ranges; both zero means from
	// the data's range (starting at 0 when the data are non-negative),
	// widened by 5 %. Points outside are clipped.
	XMin, XMax, YMin, YMax float64
}

// Validate reports whether c can be drawn: at least one point, finite
// coordinates and finite increasing ranges.
func (c ScatterChart) Validate() error {
	if len(c.Points) == 0 {
		return fmt.Errorf("%w: no points", ErrChart)
	}
	for _, p := range c.Points {
		if !allFinite(p.X, p.Y) {
			return fmt.Errorf("%w: point %q at (%v, %v)", ErrChart, p.Label, p.X, p.Y)
		}
	}
	xl, xh, yl, yh := c.ranges()
	if !allFinite(xl, xh, yl, yh) || !(xh > xl) || !(yh > yl) {
		return fmt.Errorf("%w: ranges [%v, %v] × [%v, %v] must be finite and increasing", ErrChart, xl, xh, yl, yh)
	}
	return nil
}

// autoRange returns [lo, hi] covering v: from 0 when all v ≥ 0, widened
// by 5 % (and to a unit width when all are equal).
func autoRange(v []float64) (lo, hi float64) {
	lo, hi = slices.Min(v), slices.Max(v)
	if lo >= 0 {
		lo = 0
	}
	if hi == lo {
		return lo - 0.5, hi + 0.5
	}
	pad := 0.05 * (hi - lo)
	if lo != 0 {
		lo -= pad
	}
	return lo, hi + pad
}

func (c ScatterChart) ranges() (xl, xh, yl, yh float64) {
	xs, ys := make([]float64, len(c.Points)), make([]float64, len(c.Points))
	for i, p := range c.Points {
		xs[i], ys[i] = p.X, p.Y
	}
	xl, xh, yl, yh = c.XMin, c.XMax, c.YMin, c.YMax
	if xl == 0 && xh == 0 && len(xs) > 0 {
		xl, xh = autoRange(xs)
	}
	if yl == 0 && yh == 0 && len(ys) > 0 {
		yl, yh = autoRange(ys)
	}
	return xl, xh, yl, yh
}

// series returns the distinct series names in order of first appearance.
func (c ScatterChart) series() []string {
	var s []string
	for _, p := range c.Points {
		if !slices.Contains(s, p.Series) {
			s = append(s, p.Series)
		}
	}
	return s
}

// scatterLayout places a scatter chart; it reuses the curve layout's axes.
type scatterLayout struct {
	curveLayout
	sc     ScatterChart
	series []string
}

func newScatterLayout(c ScatterChart, w, h int) scatterLayout {
	xl, xh, yl, yh := c.ranges()
	series := c.series()
	// The curve layout sizes the margins and the legend from the curves'
	// names: one empty curve per series.
	curves := make([]Curve, len(series))
	for i, s := range series {
		curves[i] = Curve{Name: s}
	}
	cl := newCurveLayout(Chart{Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, Curves: curves, XMin: xl, XMax: xh, YMin: yl, YMax: yh}, w, h)
	return scatterLayout{curveLayout: cl, sc: c, series: series}
}

func (l scatterLayout) draw(p painter) {
	c := l.sc
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
	p.begin("points")
	type box struct{ x0, y0, x1, y1 float64 }
	var taken []box // labels placed so far, and the points
	overlaps := func(b box) bool {
		if b.x0 < l.left || b.x1 > l.right+30 || b.y0 < l.top-4 || b.y1 > l.bot {
			return true
		}
		for _, t := range taken {
			if b.x0 < t.x1 && t.x0 < b.x1 && b.y0 < t.y1 && t.y0 < b.y1 {
				return true
			}
		}
		return false
	}
	radius := func(q ScatterPoint) float64 {
		if q.Large {
			return 6
		}
		return 3.5
	}
	for _, q := range c.Points {
		r := radius(q)
		taken = append(taken, box{l.x(q.X) - r, l.y(q.Y) - r, l.x(q.X) + r, l.y(q.Y) + r})
	}
	for _, q := range c.Points {
		col := l.styles[slices.Index(l.series, q.Series)].colour
		r := radius(q)
		tip := fmt.Sprintf("%s (%s, %s)", q.Label, formatTick(q.X), formatTick(q.Y))
		if q.Series != "" {
			tip = q.Series + ": " + tip
		}
		scatterMarker(p, "point", l.x(q.X), l.y(q.Y), r, col, tip, slices.Index(l.series, q.Series))
	}
	// Labels go right, left, above or below their point, wherever they
	// overlap no other label or point; a label with no free place is left
	// out (the point's tooltip in the SVG still names it).
	for _, q := range c.Points {
		if q.Label == "" {
			continue
		}
		r, x, y := radius(q), l.x(q.X), l.y(q.Y)
		w, h := textWidth(q.Label, false), float64(FontSize)
		for _, at := range []struct {
			x, y float64
			a    align
		}{{x + r + 3, y + 4.5, alignLeft}, {x - r - 3, y + 4.5, alignRight}, {x, y - r - 4, alignCentre}, {x, y + r + h, alignCentre}} {
			x0 := at.x
			switch at.a {
			case alignRight:
				x0 -= w
			case alignCentre:
				x0 -= w / 2
			}
			b := box{x0, at.y - h + 2, x0 + w, at.y + 3}
			if overlaps(b) {
				continue
			}
			taken = append(taken, b)
			p.text("point-label", q.Label, at.x, at.y, at.a, rgb{90, 90, 90}, false)
			break
		}
	}
	p.end()
	l.drawAxes(p, c.XLabel, c.YLabel)
	p.begin("legend")
	for i, s := range l.series {
		x, y := l.legendAt(i)
		scatterMarker(p, "legend-marker", x+15, y, 5, l.styles[i].colour, "", i)
		p.text("legend-label", s, x+38, y+4.5, alignLeft, black, false)
	}
	p.end()
}

// ScatterSize returns the size in pixels ScatterSVG draws c at: SVGWidth
// wide, SVGHeight high plus the legend's rows. ScatterPNG at this size
// draws the same picture.
func ScatterSize(c ScatterChart) (width, height int) {
	_, _, legendH := legendGeometry(SVGWidth, c.series())
	return SVGWidth, SVGHeight + int(math.Ceil(legendH))
}

// ScatterSVG writes c as a standalone SVG document: one circle per point
// (class "point", with a tooltip; labels of class "point-label", beside
// their point where they overlap no other label or point, else left out), a colour
// per series with a legend to the right. It returns an error wrapping
// ErrChart if c is invalid, or the first write error.
func ScatterSVG(w io.Writer, c ScatterChart) error {
	if err := c.Validate(); err != nil {
		return err
	}
	wd, ht := ScatterSize(c)
	return svgDocument(bufio.NewWriter(w), wd, ht, newScatterLayout(c, wd, ht).draw)
}

// ScatterPNG draws c into a width×height PNG: the same chart as ScatterSVG.
// It returns an error wrapping ErrChart if c is invalid, the size is
// outside the PNG limits or leaves no room beside the legend, or the
// encoder's error.
func ScatterPNG(w io.Writer, c ScatterChart, width, height int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := checkPNGSize(ErrChart, width, height); err != nil {
		return err
	}
	l := newScatterLayout(c, width, height)
	if l.right-l.left < 100 {
		return fmt.Errorf("%w: a %d px wide PNG leaves no room for the plot beside the legend", ErrChart, width)
	}
	p := newPNGPainter(width, height)
	l.draw(p)
	return png.Encode(w, p.img)
}

// scatterMarker draws the marker of series i at (x, y): a disc of the
// series' colour for the palette's first len(palette) series; the next
// ones, whose colours repeat, a ring (a white centre), then a disc with a
// dark centre, then a ring with a dark centre, so that no two of the first
// 4·len(palette) series look alike.
func scatterMarker(p painter, class string, x, y, r float64, col rgb, tip string, i int) {
	p.circle(class, x, y, r, col, 0.8, tip)
	switch (i / len(palette)) % 4 {
	case 1:
		p.circle(class+"-centre", x, y, r*0.5, white, 1, tip)
	case 2:
		p.circle(class+"-centre", x, y, r*0.4, black, 1, tip)
	case 3:
		p.circle(class+"-centre", x, y, r*0.6, white, 1, tip)
		p.circle(class+"-centre", x, y, r*0.3, black, 1, tip)
	}
}
