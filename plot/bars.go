package plot

import (
	"bufio"
	"cmp"
	"fmt"
	"image/png"
	"io"
	"slices"
)

// Interval is a confidence interval [Lo, Hi].
type Interval struct{ Lo, Hi float64 }

// Bar is one value of a bar chart with optional confidence intervals.
type Bar struct {
	Name  string
	Value float64
	// CI83 and CI95 are optional intervals, drawn as a thick and a thin
	// error bar.
	CI83, CI95 *Interval
	// Human and Group choose the colour as for Curve, so that a bar chart
	// and a curve chart of the same models colour them alike.
	Human bool
	Group string
}

// BarChart is a horizontal bar chart, one bar per row sorted by value
// (largest on top), such as the VCR study's HMRI and MRSI per model
// (Figs. 6–7 a, b, d, e).
type BarChart struct {
	// Title is drawn on top; XLabel under the value axis.
	Title, XLabel string
	Bars          []Bar
	// Min and Max are the value axis range; both zero means [0, 1].
	// Values and intervals outside are clipped.
	Min, Max float64
}

func (c BarChart) vrange() (lo, hi float64) {
	if c.Min == 0 && c.Max == 0 {
		return 0, 1
	}
	return c.Min, c.Max
}

// Validate reports whether c can be drawn: a finite increasing range, at
// least one bar, finite values and intervals with Lo ≤ Hi.
func (c BarChart) Validate() error {
	lo, hi := c.vrange()
	if !allFinite(lo, hi) || !(hi > lo) {
		return fmt.Errorf("%w: value range [%v, %v] must be finite and increasing", ErrChart, lo, hi)
	}
	if len(c.Bars) == 0 {
		return fmt.Errorf("%w: no bars", ErrChart)
	}
	for _, b := range c.Bars {
		if !allFinite(b.Value) {
			return fmt.Errorf("%w: bar %q has value %v", ErrChart, b.Name, b.Value)
		}
		for _, ci := range []*Interval{b.CI83, b.CI95} {
			if ci != nil && (!allFinite(ci.Lo, ci.Hi) || ci.Lo > ci.Hi) {
				return fmt.Errorf("%w: bar %q has interval [%v, %v]", ErrChart, b.Name, ci.Lo, ci.Hi)
			}
		}
	}
	return nil
}

// sorted returns the bars by decreasing value, ties by name.
func (c BarChart) sorted() []Bar {
	b := slices.Clone(c.Bars)
	slices.SortStableFunc(b, func(p, q Bar) int {
		if r := cmp.Compare(q.Value, p.Value); r != 0 {
			return r
		}
		return cmp.Compare(p.Name, q.Name)
	})
	return b
}

const barRow = 24 // SVG row height per bar

type barLayout struct {
	bars                  []Bar
	c                     BarChart
	w, h                  float64
	left, right, top, bot float64
	lo, hi                float64
	ticks                 []float64
	styles                []style
}

func newBarLayout(c BarChart, w, h int) barLayout {
	l := barLayout{c: c, bars: c.sorted(), w: float64(w), h: float64(h)}
	l.lo, l.hi = c.vrange()
	l.ticks = ticksWithin(l.lo, l.hi, 5)
	names := 0.0
	human, nm, gr := make([]bool, len(l.bars)), make([]string, len(l.bars)), make([]string, len(l.bars))
	for i, b := range l.bars {
		names = max(names, textWidth(b.Name, false))
		human[i], nm[i], gr[i] = b.Human, b.Name, b.Group
	}
	l.styles = styles(human, nm, gr)
	l.left = names + 16
	l.right = l.w - 56 // room for the value labels
	l.top = 36
	l.bot = l.h - 44
	return l
}

func (l barLayout) x(v float64) float64 {
	v = min(max(v, l.lo), l.hi)
	return l.left + (v-l.lo)/(l.hi-l.lo)*(l.right-l.left)
}

// row returns the vertical extent of bar i.
func (l barLayout) row(i int) (y0, y1 float64) {
	rh := (l.bot - l.top) / float64(len(l.bars))
	y0 = l.top + float64(i)*rh
	pad := min(rh*0.18, 6)
	return y0 + pad, y0 + rh - pad
}

func (l barLayout) draw(p painter) {
	if l.c.Title != "" {
		p.text("title", l.c.Title, l.w/2, 22, alignCentre, black, true)
	}
	p.begin("grid")
	for _, v := range l.ticks {
		p.line("grid", []pt{{l.x(v), l.top}, {l.x(v), l.bot}}, light, 1, nil)
	}
	p.end()
	base := l.x(min(max(0, l.lo), l.hi))
	p.begin("bars")
	for i, b := range l.bars {
		y0, y1 := l.row(i)
		tip := fmt.Sprintf("%s: %.4g", b.Name, b.Value)
		if b.CI95 != nil {
			tip += fmt.Sprintf(" (95%% CI %.4g–%.4g)", b.CI95.Lo, b.CI95.Hi)
		}
		col := l.styles[i].colour
		opacity := 0.85
		if b.Human {
			opacity = 0.6
		}
		p.rect("bar", base, y0, l.x(b.Value), y1, col, opacity, tip)
	}
	p.end()
	p.begin("errors")
	for i, b := range l.bars {
		y0, y1 := l.row(i)
		ym := (y0 + y1) / 2
		if b.CI95 != nil {
			p.line("ci95", []pt{{l.x(b.CI95.Lo), ym}, {l.x(b.CI95.Hi), ym}}, black, 1, nil)
			for _, v := range []float64{b.CI95.Lo, b.CI95.Hi} {
				p.line("ci95-cap", []pt{{l.x(v), ym - (y1-y0)/4}, {l.x(v), ym + (y1-y0)/4}}, black, 1, nil)
			}
		}
		if b.CI83 != nil {
			p.line("ci83", []pt{{l.x(b.CI83.Lo), ym}, {l.x(b.CI83.Hi), ym}}, black, 3, nil)
		}
	}
	p.end()
	p.begin("labels")
	for i, b := range l.bars {
		y0, y1 := l.row(i)
		p.text("bar-label", b.Name, l.left-6, (y0+y1)/2+4, alignRight, black, false)
		p.text("value-label", fmt.Sprintf("%.3f", b.Value), l.right+6, (y0+y1)/2+4, alignLeft, black, false)
	}
	p.end()
	p.begin("axes")
	p.line("axis", []pt{{l.left, l.bot}, {l.right, l.bot}}, black, 1, nil)
	p.line("axis", []pt{{base, l.top}, {base, l.bot}}, black, 1, nil)
	for _, v := range l.ticks {
		p.line("tick", []pt{{l.x(v), l.bot}, {l.x(v), l.bot + 5}}, black, 1, nil)
		p.text("tick-label", formatTick(v), l.x(v), l.bot+18, alignCentre, black, false)
	}
	p.end()
	if l.c.XLabel != "" {
		p.text("x-label", l.c.XLabel, (l.left+l.right)/2, l.h-8, alignCentre, black, false)
	}
}

// BarsSVG writes c as a standalone SVG document: one horizontal bar per
// row (class "bar", with a tooltip), sorted by value, largest on top, with
// thick 83% and thin capped 95% error bars and the value printed at the
// right. The canvas is SVGWidth wide plus room for the names and
// barRow = 24 px high per bar plus 80 px. It returns an error wrapping
// ErrChart if c is invalid, or the first write error.
func BarsSVG(w io.Writer, c BarChart) error {
	if err := c.Validate(); err != nil {
		return err
	}
	wd, ht := BarsSize(c)
	return svgDocument(bufio.NewWriter(w), wd, ht, newBarLayout(c, wd, ht).draw)
}

// BarsSize returns the size in pixels BarsSVG draws c at: SVGWidth wide,
// more for long names, and barRow = 24 px high per bar plus 80 px (at
// least MinPNGHeight). BarsPNG
// at this size draws the same picture.
func BarsSize(c BarChart) (width, height int) {
	names := 0.0
	for _, b := range c.Bars {
		names = max(names, textWidth(b.Name, false))
	}
	return SVGWidth + max(0, int(names)-140), max(MinPNGHeight, 80+barRow*len(c.Bars))
}

// BarsPNG draws c into a width×height PNG: the same chart as BarsSVG. It
// returns an error wrapping ErrChart if c is invalid, the size is outside
// the PNG limits or too small for the names and bars, or the encoder's
// error.
func BarsPNG(w io.Writer, c BarChart, width, height int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := checkPNGSize(ErrChart, width, height); err != nil {
		return err
	}
	l := newBarLayout(c, width, height)
	if l.right-l.left < 100 || (l.bot-l.top)/float64(len(l.bars)) < 4 {
		return fmt.Errorf("%w: a %d×%d PNG is too small for %d bars and their names", ErrChart, width, height, len(l.bars))
	}
	p := newPNGPainter(width, height)
	l.draw(p)
	return png.Encode(w, p.img)
}
