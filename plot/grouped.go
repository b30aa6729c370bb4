package plot

import (
	"bufio"
	"fmt"
	"image/png"
	"io"
	"math"
)

// GroupedSeries is one series of a grouped bar chart, such as a model:
// one value per category, NaN where it has none.
type GroupedSeries struct {
	Name string
	// Values holds one value per category of the chart; NaN leaves the
	// category without this series' bar (and says so in its tooltip).
	Values []float64
	// CI95 is nil, or one interval per category (nil entries for none),
	// drawn as a thin capped error bar.
	CI95 []*Interval
	// Human and Group choose the colour as for Curve.
	Human bool
	Group string
}

// GroupedChart is a horizontal grouped bar chart: for each category (e.g.
// a corruption) one row of bars, one bar per series (e.g. a model) in the
// series' order and a fill of its own (series of one Group: shades of
// the group's colour), as the VCR study's HMRI and MRSI figures for many
// models. Its size grows with categories × series; its number does not.
//
// Fills: the first 6 colour keys (series, or Groups, in sorted order as
// for Curve) are the solid Okabe–Ito colours; the next 6 the same colours
// with diagonal hatching, then cross-hatching, dots and vertical lines,
// the hatch drawn in 45% of the colour, so 30 keys stay distinguishable,
// in greyscale prints too (solid against hatched); a bar's legend swatch
// has its fill. A chart with up to 6 keys has no hatching.
type GroupedChart struct {
	// Title is drawn on top, XLabel under the value axis.
	Title, XLabel string
	Categories    []string
	Series        []GroupedSeries
	// Min and Max are the value axis range; both zero means [0, 1].
	Min, Max float64
}

func (c GroupedChart) vrange() (lo, hi float64) {
	if c.Min == 0 && c.Max == 0 {
		return 0, 1
	}
	return c.Min, c.Max
}

// Validate reports whether c can be drawn: a finite increasing range, at
// least one category and one series, one value per category in each
// series (finite or NaN) and intervals with Lo ≤ Hi.
func (c GroupedChart) Validate() error {
	lo, hi := c.vrange()
	if !allFinite(lo, hi) || !(hi > lo) {
		return fmt.Errorf("%w: value range [%v, %v] must be finite and increasing", ErrChart, lo, hi)
	}
	if len(c.Categories) == 0 || len(c.Series) == 0 {
		return fmt.Errorf("%w: %d categories and %d series; want at least one of each", ErrChart, len(c.Categories), len(c.Series))
	}
	for _, s := range c.Series {
		if len(s.Values) != len(c.Categories) || (s.CI95 != nil && len(s.CI95) != len(c.Categories)) {
			return fmt.Errorf("%w: series %q has %d values and %d intervals for %d categories", ErrChart, s.Name, len(s.Values), len(s.CI95), len(c.Categories))
		}
		for i, v := range s.Values {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: series %q: value %v in %q", ErrChart, s.Name, v, c.Categories[i])
			}
		}
		for _, ci := range s.CI95 {
			if ci != nil && (!allFinite(ci.Lo, ci.Hi) || ci.Lo > ci.Hi) {
				return fmt.Errorf("%w: series %q has interval [%v, %v]", ErrChart, s.Name, ci.Lo, ci.Hi)
			}
		}
	}
	return nil
}

// groupedBar is the height of one bar of a grouped chart, groupedGap the
// space between categories.
const groupedBar, groupedGap = 7, 12

type groupedLayout struct {
	c                     GroupedChart
	w, h                  float64
	left, right, top, bot float64
	lo, hi                float64
	ticks                 []float64
	styles                []style
	legend                curveLayout // only its legend geometry
}

func newGroupedLayout(c GroupedChart, w, h int) groupedLayout {
	l := groupedLayout{c: c, w: float64(w), h: float64(h)}
	l.lo, l.hi = c.vrange()
	l.ticks = ticksWithin(l.lo, l.hi, 5)
	human, nm, gr := make([]bool, len(c.Series)), make([]string, len(c.Series)), make([]string, len(c.Series))
	var labels []string
	for i, s := range c.Series {
		human[i], nm[i], gr[i] = s.Human, s.Name, s.Group
		labels = append(labels, s.Name)
	}
	l.styles = styles(human, nm, gr)
	// Bars cannot be dashed: the members of a family get shades of its
	// colour, from the full colour to 60% of the way to white.
	count, idx := map[string]int{}, make([]int, len(c.Series))
	for i, s := range c.Series {
		if s.Group != "" && !s.Human {
			idx[i] = count[s.Group]
			count[s.Group]++
		}
	}
	for i, s := range c.Series {
		if n := count[s.Group]; s.Group != "" && !s.Human && n > 1 {
			l.styles[i].colour = tint(l.styles[i].colour, 0.6*float64(idx[i])/float64(n-1))
		}
	}
	var legendH float64
	l.legend.legendColW, l.legend.legendCols, legendH = legendGeometry(l.w, labels)
	l.legend.legendTop = l.h - legendH
	l.left = maxTextWidth(c.Categories...) + 18
	l.right = l.w - 24
	l.top = 36
	l.bot = l.legend.legendTop - 48
	return l
}

// tint mixes c the fraction f of the way towards white.
func tint(c rgb, f float64) rgb {
	m := func(v uint8) uint8 { return uint8(math.Round(float64(v) + (255-float64(v))*f)) }
	return rgb{m(c[0]), m(c[1]), m(c[2])}
}

func (l groupedLayout) x(v float64) float64 {
	v = min(max(v, l.lo), l.hi)
	return l.left + (v-l.lo)/(l.hi-l.lo)*(l.right-l.left)
}

// bar returns the vertical extent of series s's bar in category k.
func (l groupedLayout) bar(k, s int) (y0, y1 float64) {
	ns := float64(len(l.c.Series))
	gh := (l.bot - l.top) / float64(len(l.c.Categories))
	bh := (gh - groupedGap) / ns
	y0 = l.top + float64(k)*gh + groupedGap/2 + float64(s)*bh
	return y0, y0 + bh
}

func (l groupedLayout) draw(p painter) {
	c := l.c
	if c.Title != "" {
		p.text("title", c.Title, (l.left+l.right)/2, 22, alignCentre, black, true)
	}
	fills := make([]fillStyle, len(l.styles))
	for i, s := range l.styles {
		fills[i] = s.fill()
	}
	p.patterns(fills)
	p.begin("grid")
	for _, v := range l.ticks {
		p.line("grid", []pt{{l.x(v), l.top}, {l.x(v), l.bot}}, light, 1, nil)
	}
	gh := (l.bot - l.top) / float64(len(c.Categories))
	for k := 1; k < len(c.Categories); k++ {
		y := l.top + float64(k)*gh
		p.line("separator", []pt{{l.left, y}, {l.right, y}}, light, 1, nil)
	}
	p.end()
	base := l.x(min(max(0, l.lo), l.hi))
	p.begin("bars")
	for k, cat := range c.Categories {
		for s, ser := range c.Series {
			v := ser.Values[k]
			if math.IsNaN(v) {
				continue
			}
			y0, y1 := l.bar(k, s)
			tip := fmt.Sprintf("%s, %s: %.3f", ser.Name, cat, v)
			if ser.CI95 != nil && ser.CI95[k] != nil {
				tip += fmt.Sprintf(" (95%% interval %.3f–%.3f)", ser.CI95[k].Lo, ser.CI95[k].Hi)
			}
			x1 := l.x(v)
			if math.Abs(x1-base) < 2 { // a zero stays visible, unlike a missing value
				x1 = base + 2
			}
			p.fillRect("bar", base, y0+0.5, x1, y1-0.5, fills[s], 0.9, tip)
		}
	}
	p.end()
	p.begin("errors")
	for k := range c.Categories {
		for s, ser := range c.Series {
			if ser.CI95 == nil || ser.CI95[k] == nil || math.IsNaN(ser.Values[k]) {
				continue
			}
			y0, y1 := l.bar(k, s)
			ym, ci := (y0+y1)/2, ser.CI95[k]
			p.line("ci95", []pt{{l.x(ci.Lo), ym}, {l.x(ci.Hi), ym}}, black, 1, nil)
		}
	}
	p.end()
	p.begin("labels")
	for k, cat := range c.Categories {
		y := l.top + (float64(k)+0.5)*gh
		p.text("category-label", cat, l.left-8, y+4.5, alignRight, black, false)
	}
	p.end()
	p.begin("axes")
	p.line("axis", []pt{{l.left, l.bot}, {l.right, l.bot}}, black, 1, nil)
	p.line("axis", []pt{{base, l.top}, {base, l.bot}}, black, 1, nil)
	for _, v := range l.ticks {
		p.line("tick", []pt{{l.x(v), l.bot}, {l.x(v), l.bot + 5}}, black, 1, nil)
		p.text("tick-label", formatTick(v), l.x(v), l.bot+19, alignCentre, black, false)
	}
	p.end()
	if c.XLabel != "" {
		p.text("x-label", c.XLabel, (l.left+l.right)/2, l.bot+38, alignCentre, black, false)
	}
	p.begin("legend")
	for s, ser := range c.Series {
		x, y := l.legend.legendAt(s)
		p.fillRect("legend-swatch", x+8, y-6, x+26, y+6, fills[s], 0.9, "")
		p.text("legend-label", ser.Name, x+38, y+4.5, alignLeft, black, false)
	}
	p.end()
}

// GroupedSize returns the size in pixels GroupedSVG draws c at: SVGWidth
// wide (more for long category names), and high enough for a bar of
// groupedBar px per series and category, the gaps between categories and
// the legend's rows. GroupedPNG at this size draws the same picture.
func GroupedSize(c GroupedChart) (width, height int) {
	var labels []string
	for _, s := range c.Series {
		labels = append(labels, s.Name)
	}
	width = SVGWidth + max(0, int(maxTextWidth(c.Categories...))-160)
	_, _, legendH := legendGeometry(float64(width), labels)
	// At least 16 px per category: one or two series get thicker bars.
	plotH := len(c.Categories) * (max(len(c.Series)*groupedBar, 16) + groupedGap)
	return width, max(MinPNGHeight, 36+plotH+48+int(math.Ceil(legendH)))
}

// GroupedSVG writes c as a standalone SVG document: per category a row of
// horizontal bars (class "bar", with a tooltip), one per series (hatched
// fills are <pattern>s in a <defs>, with ids such as
// "vcr-hatch-diagonal-0072b2" made from their content: unique in the
// document, and harmless if two charts are inlined in one page), with thin
// 95% error bars (a value of 0 is a 2-px stub; NaN draws no bar), category names at the left and a legend under the
// value axis. The canvas is GroupedSize(c). It returns an error wrapping
// ErrChart if c is invalid, or the first write error.
func GroupedSVG(w io.Writer, c GroupedChart) error {
	if err := c.Validate(); err != nil {
		return err
	}
	wd, ht := GroupedSize(c)
	return svgDocument(bufio.NewWriter(w), wd, ht, newGroupedLayout(c, wd, ht).draw)
}

// GroupedPNG draws c into a width×height PNG: the same chart as GroupedSVG
// (at GroupedSize, the same picture). It returns an error wrapping
// ErrChart if c is invalid, the size is outside the PNG limits or too
// small for its bars, or the encoder's error.
func GroupedPNG(w io.Writer, c GroupedChart, width, height int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := checkPNGSize(ErrChart, width, height); err != nil {
		return err
	}
	l := newGroupedLayout(c, width, height)
	if l.right-l.left < 100 || (l.bot-l.top)/float64(len(c.Categories)) < groupedGap+float64(len(c.Series)) {
		return fmt.Errorf("%w: a %d×%d PNG is too small for %d×%d bars", ErrChart, width, height, len(c.Categories), len(c.Series))
	}
	p := newPNGPainter(width, height)
	l.draw(p)
	return png.Encode(w, p.img)
}
