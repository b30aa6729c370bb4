package plot

import (
	"bufio"
	"fmt"
	"image/png"
	"io"
	"math"
)

// HeatMap is a grid of values coloured on a sequential scale, such as the
// CIFAR-CoCo study's accuracy by contrast group × severity.
type HeatMap struct {
	Title, XLabel, YLabel string
	// Cols and Rows name the columns (left to right) and rows (top to
	// bottom).
	Cols, Rows []string
	// Values[r][c] is the value of row r and column c; NaN marks an empty
	// cell, drawn light grey with "–".
	Values [][]float64
	// Min and Max are the colour scale's range; both zero means [0, 1].
	// Values outside take the end colours.
	Min, Max float64
}

func (h HeatMap) vrange() (lo, hi float64) {
	if h.Min == 0 && h.Max == 0 {
		return 0, 1
	}
	return h.Min, h.Max
}

// Validate reports whether h can be drawn: at least one row and column,
// Values of exactly len(Rows) rows of len(Cols) values, finite or NaN, and
// a finite increasing range.
func (h HeatMap) Validate() error {
	lo, hi := h.vrange()
	if !allFinite(lo, hi) || !(hi > lo) {
		return fmt.Errorf("%w: value range [%v, %v] must be finite and increasing", ErrChart, lo, hi)
	}
	if len(h.Rows) == 0 || len(h.Cols) == 0 {
		return fmt.Errorf("%w: heat map without rows or columns", ErrChart)
	}
	if len(h.Values) != len(h.Rows) {
		return fmt.Errorf("%w: %d rows of values for %d row names", ErrChart, len(h.Values), len(h.Rows))
	}
	for r, row := range h.Values {
		if len(row) != len(h.Cols) {
			return fmt.Errorf("%w: row %q has %d values for %d columns", ErrChart, h.Rows[r], len(row), len(h.Cols))
		}
		for _, v := range row {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: row %q has an infinite value", ErrChart, h.Rows[r])
			}
		}
	}
	return nil
}

// viridis holds stops of the viridis colour map (perceptually uniform,
// colour-blind safe; van der Walt & Smith, matplotlib 2015) at 0, 0.25,
// 0.5, 0.75 and 1.
var viridis = []rgb{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}

// scaleColour returns the colour of t ∈ [0, 1] (clamped), linear between
// the viridis stops.
func scaleColour(t float64) rgb {
	t = min(1, max(0, t)) * float64(len(viridis)-1)
	i := min(int(t), len(viridis)-2)
	f := t - float64(i)
	var c rgb
	for k := range c {
		c[k] = uint8(math.Round(float64(viridis[i][k]) + f*(float64(viridis[i+1][k])-float64(viridis[i][k]))))
	}
	return c
}

type heatLayout struct {
	h                     HeatMap
	w, ht                 float64
	left, right, top, bot float64
	barX                  float64 // the colour bar's left edge
}

func newHeatLayout(h HeatMap, w, ht int) heatLayout {
	l := heatLayout{h: h, w: float64(w), ht: float64(ht)}
	l.left = maxTextWidth(h.Rows...) + 30
	l.barX = l.w - 70
	l.right = l.barX - 20
	l.top = 36
	l.bot = l.ht - 44
	return l
}

func (l heatLayout) cell(r, c int) (x0, y0, x1, y1 float64) {
	cw := (l.right - l.left) / float64(len(l.h.Cols))
	rh := (l.bot - l.top) / float64(len(l.h.Rows))
	return l.left + float64(c)*cw, l.top + float64(r)*rh, l.left + float64(c+1)*cw, l.top + float64(r+1)*rh
}

func (l heatLayout) draw(p painter) {
	h := l.h
	lo, hi := h.vrange()
	if h.Title != "" {
		p.text("title", h.Title, l.w/2, 22, alignCentre, black, true)
	}
	p.begin("cells")
	for r, row := range h.Values {
		for c, v := range row {
			x0, y0, x1, y1 := l.cell(r, c)
			tip := fmt.Sprintf("%s, %s: %.3f", h.Rows[r], h.Cols[c], v)
			if math.IsNaN(v) {
				p.rect("cell-empty", x0, y0, x1, y1, light, 1, h.Rows[r]+", "+h.Cols[c]+": no data")
				p.text("cell-label", "–", (x0+x1)/2, (y0+y1)/2+4, alignCentre, grey, false)
				continue
			}
			col := scaleColour((v - lo) / (hi - lo))
			p.rect("cell", x0, y0, x1, y1, col, 1, tip)
			// Dark text on light cells, white on dark (relative luminance).
			txt := rgb{255, 255, 255}
			if 0.2126*float64(col[0])+0.7152*float64(col[1])+0.0722*float64(col[2]) > 140 {
				txt = black
			}
			p.text("cell-label", fmt.Sprintf("%.2f", v), (x0+x1)/2, (y0+y1)/2+4, alignCentre, txt, false)
		}
	}
	p.end()
	p.begin("axes")
	for r, name := range h.Rows {
		_, y0, _, y1 := l.cell(r, 0)
		p.text("row-label", name, l.left-6, (y0+y1)/2+4, alignRight, black, false)
	}
	for c, name := range h.Cols {
		x0, _, x1, _ := l.cell(0, c)
		p.text("col-label", name, (x0+x1)/2, l.bot+18, alignCentre, black, false)
	}
	p.end()
	if h.XLabel != "" {
		p.text("x-label", h.XLabel, (l.left+l.right)/2, l.ht-8, alignCentre, black, false)
	}
	if h.YLabel != "" {
		p.vtext("y-label", h.YLabel, 4, (l.top+l.bot)/2, black)
	}
	p.begin("scale")
	const steps = 20
	for i := range steps {
		y0 := l.bot - float64(i+1)*(l.bot-l.top)/steps
		y1 := l.bot - float64(i)*(l.bot-l.top)/steps
		p.rect("scale-step", l.barX, y0, l.barX+14, y1+0.5, scaleColour((float64(i)+0.5)/steps), 1, "")
	}
	for _, v := range ticksWithin(lo, hi, 5) {
		y := l.bot - (v-lo)/(hi-lo)*(l.bot-l.top)
		p.line("tick", []pt{{l.barX + 14, y}, {l.barX + 18, y}}, black, 1, nil)
		p.text("tick-label", formatTick(v), l.barX+20, y+4, alignLeft, black, false)
	}
	p.end()
}

// HeatMapSVG writes h as a standalone SVG document: one rectangle per cell
// (class "cell", or "cell-empty" for NaN) with its value printed, row and
// column names, and a colour bar at the right. The canvas is SVGWidth wide
// plus room for the row names, and 80 + 36 px per row high. It returns an
// error wrapping ErrChart if h is invalid, or the first write error.
func HeatMapSVG(w io.Writer, h HeatMap) error {
	if err := h.Validate(); err != nil {
		return err
	}
	wd, ht := HeatMapSize(h)
	return svgDocument(bufio.NewWriter(w), wd, ht, newHeatLayout(h, wd, ht).draw)
}

// HeatMapSize returns the size in pixels HeatMapSVG draws h at: SVGWidth
// wide plus room for the row names, 80 + 36 px per row high (at least
// MinPNGHeight). HeatMapPNG at this size draws the same picture.
func HeatMapSize(h HeatMap) (width, height int) {
	return SVGWidth + int(maxTextWidth(h.Rows...)), max(MinPNGHeight, 80+36*len(h.Rows))
}

// HeatMapPNG draws h into a width×height PNG: the same chart as
// HeatMapSVG. It returns an error wrapping ErrChart if h is invalid, the
// size is outside the PNG limits or too small for the cells, or the
// encoder's error.
func HeatMapPNG(w io.Writer, h HeatMap, width, height int) error {
	if err := h.Validate(); err != nil {
		return err
	}
	if err := checkPNGSize(ErrChart, width, height); err != nil {
		return err
	}
	l := newHeatLayout(h, width, height)
	if (l.right-l.left)/float64(len(h.Cols)) < 4 || (l.bot-l.top)/float64(len(h.Rows)) < 4 {
		return fmt.Errorf("%w: a %d×%d PNG is too small for %d×%d cells", ErrChart, width, height, len(h.Rows), len(h.Cols))
	}
	p := newPNGPainter(width, height)
	l.draw(p)
	return png.Encode(w, p.img)
}
