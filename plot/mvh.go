package plot

import (
	"bufio"
	"fmt"
	"image/png"
	"io"
	"math"
	"slices"
)

// ConditionChart is one panel over discrete conditions, in the style of
// model-vs-human's figures (Geirhos et al., "Partial success in closing
// the gap between human and machine vision", NeurIPS 2021): the
// conditions evenly spaced along x in their given order, humans as red
// diamonds joined by a line over a shaded band (e.g. the range over
// subjects) with each subject's value as a small point, every model as a
// coloured line with round markers, and an optional dotted reference line
// (chance).
type ConditionChart struct {
	Title, XLabel, YLabel string
	// Conditions label the x positions, in order.
	Conditions []string
	// Series are the lines; a panel of ConditionPanelsSVG must list the
	// same series names in the same order as the other panels.
	Series []ConditionSeries
	// YMin and YMax are the y range; both zero means [0, 1]. Values
	// outside are clipped.
	YMin, YMax float64
	// Reference, when not nil, is drawn as a dotted horizontal line
	// labelled ReferenceLabel (e.g. chance accuracy 1/16, or kappa 0).
	Reference      *float64
	ReferenceLabel string
}

// ConditionSeries is one observer's (or a group's) values per condition.
type ConditionSeries struct {
	Name string
	// Y holds one value per condition; NaN leaves a gap in the line.
	Y []float64
	// Lo and Hi are an optional band (both nil, or one value per
	// condition; NaN: none at that condition).
	Lo, Hi []float64
	// Points are optional individual values per condition (nil, or one
	// slice per condition), e.g. each subject's; NaNs are skipped.
	Points [][]float64
	// Human series are drawn in red with diamonds and a dashed line,
	// models in palette colours (in the order of the series) with circles
	// and solid lines; from the seventh model on the colours repeat with
	// the next dash pattern (the curves' dashes), so every model differs.
	Human bool
}

// humanRed is the colour of human observers in model-vs-human's figures.
var humanRed = rgb{165, 30, 55}

func (c ConditionChart) yrange() (lo, hi float64) {
	if c.YMin == 0 && c.YMax == 0 {
		return 0, 1
	}
	return c.YMin, c.YMax
}

// Validate reports whether c can be drawn: a finite increasing y range, at
// least one condition and one series, one value per condition in every Y
// (finite or NaN; a panel of NaNs draws its axes only), bands and points of the right
// length with no infinite values, and a finite reference.
func (c ConditionChart) Validate() error {
	lo, hi := c.yrange()
	if !allFinite(lo, hi) || !(hi > lo) {
		return fmt.Errorf("%w: y range [%v, %v] must be finite and increasing", ErrChart, lo, hi)
	}
	if len(c.Conditions) == 0 || len(c.Series) == 0 {
		return fmt.Errorf("%w: %d conditions and %d series; want at least one of each", ErrChart, len(c.Conditions), len(c.Series))
	}
	if c.Reference != nil && !allFinite(*c.Reference) {
		return fmt.Errorf("%w: reference line %v is not finite", ErrChart, *c.Reference)
	}
	noInf := func(v []float64) bool {
		return !slices.ContainsFunc(v, func(x float64) bool { return math.IsInf(x, 0) })
	}
	for _, s := range c.Series {
		if len(s.Y) != len(c.Conditions) || !noInf(s.Y) {
			return fmt.Errorf("%w: series %q needs one finite or NaN value per condition (%d); got %v", ErrChart, s.Name, len(c.Conditions), s.Y)
		}
		if (s.Lo == nil) != (s.Hi == nil) || (s.Lo != nil && (len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y) || !noInf(s.Lo) || !noInf(s.Hi))) {
			return fmt.Errorf("%w: series %q: a band needs both sides, one finite or NaN value per condition each", ErrChart, s.Name)
		}
		if s.Points != nil && len(s.Points) != len(s.Y) {
			return fmt.Errorf("%w: series %q: %d point lists for %d conditions", ErrChart, s.Name, len(s.Points), len(s.Y))
		}
		for _, p := range s.Points {
			if !noInf(p) {
				return fmt.Errorf("%w: series %q: infinite point", ErrChart, s.Name)
			}
		}
	}
	return nil
}

// conditionLayout places one panel in the canvas column [x0, x0+w).
type conditionLayout struct {
	c                     ConditionChart
	x0                    float64
	left, right, top, bot float64
	h                     float64
	yl, yh                float64
	yticks                []float64
	colours               []rgb
	dashes                [][]float64
}

func newConditionLayout(c ConditionChart, x0, w, h float64) conditionLayout {
	l := conditionLayout{c: c, x0: x0, h: h}
	l.yl, l.yh = c.yrange()
	l.yticks = ticksWithin(l.yl, l.yh, 6)
	wide := 0.0
	for _, v := range l.yticks {
		wide = max(wide, textWidth(formatTick(v), false))
	}
	l.left = x0 + wide + 34
	l.right = x0 + w - 12
	l.top = 36
	l.bot = h - 44
	l.colours, l.dashes = conditionStyles(c.Series)
	return l
}

// humanDash is the dash of human observers' lines.
var humanDash = []float64{7, 4}

// conditionStyles gives humans the human red and a dashed line, and model
// k (counting models only) palette colour k mod len(palette) with dash
// pattern k div len(palette) (solid first) of the curves' dashes, so that
// models up to len(palette)·len(dashes) never share both.
func conditionStyles(s []ConditionSeries) ([]rgb, [][]float64) {
	cols, ds := make([]rgb, len(s)), make([][]float64, len(s))
	k := 0
	for i, x := range s {
		if x.Human {
			cols[i], ds[i] = humanRed, humanDash
			continue
		}
		cols[i], ds[i] = seriesColour(k), dashes[(k/len(palette))%len(dashes)]
		k++
	}
	return cols, ds
}

func (l conditionLayout) x(i int) float64 {
	return l.left + (float64(i)+0.5)/float64(len(l.c.Conditions))*(l.right-l.left)
}

func (l conditionLayout) y(v float64) float64 {
	v = min(max(v, l.yl), l.yh)
	return l.bot - (v-l.yl)/(l.yh-l.yl)*(l.bot-l.top)
}

// runs returns the maximal runs [i, j) of conditions where ok holds.
func runs(n int, ok func(i int) bool) [][2]int {
	var out [][2]int
	for i := 0; i < n; {
		if !ok(i) {
			i++
			continue
		}
		j := i
		for j < n && ok(j) {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// diamond returns the diamond marker of half-diagonal r at (x, y).
func diamond(x, y, r float64) []pt {
	return []pt{{x, y - r}, {x + r, y}, {x, y + r}, {x - r, y}}
}

func (l conditionLayout) draw(p painter) {
	c := l.c
	if c.Title != "" {
		p.text("title", c.Title, (l.left+l.right)/2, 22, alignCentre, black, true)
	}
	p.begin("grid")
	for _, v := range l.yticks {
		p.line("grid", []pt{{l.left, l.y(v)}, {l.right, l.y(v)}}, light, 1, nil)
	}
	p.end()
	if c.Reference != nil {
		y := l.y(*c.Reference)
		p.line("reference", []pt{{l.left, y}, {l.right, y}}, grey, 1, []float64{2, 3})
		if c.ReferenceLabel != "" {
			p.text("reference-label", c.ReferenceLabel, l.right-4, y-4, alignRight, grey, false)
		}
	}
	n := len(c.Conditions)
	for si, s := range c.Series {
		col := l.colours[si]
		kind := "model"
		if s.Human {
			kind = "human"
		}
		p.begin("series " + kind)
		if s.Lo != nil {
			for _, r := range runs(n, func(i int) bool { return !math.IsNaN(s.Lo[i]) && !math.IsNaN(s.Hi[i]) }) {
				var pts []pt
				for i := r[0]; i < r[1]; i++ {
					pts = append(pts, pt{l.x(i), l.y(s.Hi[i])})
				}
				for i := r[1] - 1; i >= r[0]; i-- {
					pts = append(pts, pt{l.x(i), l.y(s.Lo[i])})
				}
				if r[1]-r[0] == 1 { // one condition: a short bar
					x := l.x(r[0])
					pts = []pt{{x - 4, l.y(s.Hi[r[0]])}, {x + 4, l.y(s.Hi[r[0]])}, {x + 4, l.y(s.Lo[r[0]])}, {x - 4, l.y(s.Lo[r[0]])}}
				}
				p.fill("band", pts, col, 0.18)
			}
		}
		for i, vs := range s.Points {
			for _, v := range vs {
				if !math.IsNaN(v) {
					p.circle("individual", l.x(i), l.y(v), 2.2, col, 0.45, fmt.Sprintf("%s, %s: %s", s.Name, c.Conditions[i], formatTick(v)))
				}
			}
		}
		dash := l.dashes[si]
		for _, r := range runs(n, func(i int) bool { return !math.IsNaN(s.Y[i]) }) {
			if r[1]-r[0] < 2 {
				continue
			}
			var pts []pt
			for i := r[0]; i < r[1]; i++ {
				pts = append(pts, pt{l.x(i), l.y(s.Y[i])})
			}
			p.line("line", pts, col, 2, dash)
		}
		for i, v := range s.Y {
			if math.IsNaN(v) {
				continue
			}
			tip := fmt.Sprintf("%s, %s: %.3f", s.Name, c.Conditions[i], v)
			if s.Human {
				p.fill("marker", diamond(l.x(i), l.y(v), 5), col, 1)
			} else {
				p.circle("marker", l.x(i), l.y(v), 3.5, col, 1, tip)
			}
		}
		p.end()
	}
	p.begin("axes")
	p.line("axis", []pt{{l.left, l.bot}, {l.right, l.bot}}, black, 1, nil)
	p.line("axis", []pt{{l.left, l.top}, {l.left, l.bot}}, black, 1, nil)
	// Condition labels: every one when they fit, else every k-th.
	longest := maxTextWidth(c.Conditions...)
	step := 1
	for (longest+6)*float64(step) > (l.right-l.left)/float64(n) && step < n {
		step++
	}
	for i, s := range c.Conditions {
		p.line("tick", []pt{{l.x(i), l.bot}, {l.x(i), l.bot + 5}}, black, 1, nil)
		if i%step == 0 {
			p.text("tick-label", s, l.x(i), l.bot+18, alignCentre, black, false)
		}
	}
	for _, v := range l.yticks {
		p.line("tick", []pt{{l.left - 5, l.y(v)}, {l.left, l.y(v)}}, black, 1, nil)
		p.text("tick-label", formatTick(v), l.left-8, l.y(v)+4, alignRight, black, false)
	}
	if c.XLabel != "" {
		p.text("x-label", c.XLabel, (l.left+l.right)/2, l.h-8, alignCentre, black, false)
	}
	if c.YLabel != "" {
		p.vtext("y-label", c.YLabel, l.x0+4, (l.top+l.bot)/2, black)
	}
	p.end()
}

// conditionPanelWidth is the width of one panel of ConditionPanelsSVG.
const conditionPanelWidth = 460

// drawPanels draws the panels side by side in [0, pw·len) and the legend
// of the first panel's series to their right.
func drawPanels(p painter, charts []ConditionChart, pw, h float64) {
	for k, c := range charts {
		newConditionLayout(c, float64(k)*pw, pw, h).draw(p)
	}
	s := charts[0].Series
	cols, ds := conditionStyles(s)
	x := pw*float64(len(charts)) + 8
	p.begin("legend")
	for i, sr := range s {
		y := 44 + 20*float64(i)
		p.line("legend-line", []pt{{x, y}, {x + 30, y}}, cols[i], 2, ds[i])
		if sr.Human {
			p.fill("legend-marker", diamond(x+15, y, 5), cols[i], 1)
		} else {
			p.circle("legend-marker", x+15, y, 3.5, cols[i], 1, "")
		}
		p.text("legend-label", sr.Name, x+36, y+4, alignLeft, black, false)
	}
	p.end()
}

func validatePanels(charts []ConditionChart) error {
	if len(charts) == 0 {
		return fmt.Errorf("%w: no panels", ErrChart)
	}
	for k, c := range charts {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("panel %d: %w", k+1, err)
		}
		if len(c.Series) != len(charts[0].Series) {
			return fmt.Errorf("%w: panel %d has %d series, panel 1 %d; panels share one legend", ErrChart, k+1, len(c.Series), len(charts[0].Series))
		}
		for i, s := range c.Series {
			if s.Name != charts[0].Series[i].Name || s.Human != charts[0].Series[i].Human {
				return fmt.Errorf("%w: panel %d series %d is %q, panel 1's %q; panels share one legend", ErrChart, k+1, i+1, s.Name, charts[0].Series[i].Name)
			}
		}
	}
	return nil
}

// conditionLegendWidth is the width the shared legend needs.
func conditionLegendWidth(charts []ConditionChart) int {
	names := 0.0
	for _, s := range charts[0].Series {
		names = max(names, textWidth(s.Name, false))
	}
	return int(math.Ceil(names)) + 58
}

// ConditionPanelsSVG writes charts as one standalone SVG document: the
// panels side by side (conditionPanelWidth = 460 px each, SVGHeight + 40
// high or more for a long legend) and one legend, of the first panel's
// series, to their right. Each series is a group of class "series human"
// or "series model" holding its band ("band"), individual points
// ("individual"), line ("line") and markers ("marker"). It returns an
// error wrapping ErrChart if a panel is invalid or the panels' series
// differ, or the first write error.
func ConditionPanelsSVG(w io.Writer, charts ...ConditionChart) error {
	if err := validatePanels(charts); err != nil {
		return err
	}
	ht := max(SVGHeight+40, 60+20*len(charts[0].Series))
	wd := conditionPanelWidth*len(charts) + conditionLegendWidth(charts)
	return svgDocument(bufio.NewWriter(w), wd, ht, func(p painter) {
		drawPanels(p, charts, conditionPanelWidth, float64(ht))
	})
}

// ConditionPanelsPNG draws charts into a width×height PNG: the same figure
// as ConditionPanelsSVG, the panels sharing the width left of the legend,
// with a bitmap font. It returns an error wrapping ErrChart if a panel is
// invalid, the size is outside the PNG limits or leaves a panel narrower
// than 200 px, or the encoder's error.
func ConditionPanelsPNG(w io.Writer, width, height int, charts ...ConditionChart) error {
	if err := validatePanels(charts); err != nil {
		return err
	}
	if err := checkPNGSize(ErrChart, width, height); err != nil {
		return err
	}
	pw := float64(width-conditionLegendWidth(charts)) / float64(len(charts))
	if pw < 200 {
		return fmt.Errorf("%w: a %d px wide PNG leaves %.0f px per panel beside the legend; want at least 200", ErrChart, width, pw)
	}
	p := newPNGPainter(width, height)
	drawPanels(p, charts, pw, float64(height))
	return png.Encode(w, p.img)
}
