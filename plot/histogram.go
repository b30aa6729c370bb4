package plot

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Series is one set of bin counts drawn in a histogram.
type Series struct {
	// Name labels the series in the legend; a histogram with a single
	// unnamed series has no legend.
	Name   string
	Counts []int
}

// Histogram is a binned count chart. Several series share the bins and are
// drawn side by side within each bin (e.g. uniform and targeted sampling, or
// uniform sampling and ImageNet-C severities), with a legend.
type Histogram struct {
	Title, XLabel, YLabel string
	// Edges are the bin edges, increasing; bin k is [Edges[k], Edges[k+1]).
	Edges []float64
	// Series hold len(Edges)−1 counts each.
	Series []Series
	// Threshold, when positive, draws a dashed horizontal line at that
	// count (e.g. the 20 images a bin needs to count as covered).
	Threshold int
}

// Bins returns the number of bins.
func (h Histogram) Bins() int { return len(h.Edges) - 1 }

// ErrHistogram is wrapped by the errors Validate returns.
var ErrHistogram = errors.New("plot: invalid histogram")

// Validate reports whether h can be drawn: at least one bin, finite
// increasing edges, at least one series, each with one non-negative count
// per bin, and a non-negative threshold.
func (h Histogram) Validate() error {
	if len(h.Edges) < 2 {
		return fmt.Errorf("%w: %d edges, need at least 2", ErrHistogram, len(h.Edges))
	}
	for i, e := range h.Edges {
		if math.IsNaN(e) || math.IsInf(e, 0) || (i > 0 && !(e > h.Edges[i-1])) {
			return fmt.Errorf("%w: edges must be finite and increasing (edge %d = %v)", ErrHistogram, i, e)
		}
	}
	if len(h.Series) == 0 {
		return fmt.Errorf("%w: no series", ErrHistogram)
	}
	for _, s := range h.Series {
		if len(s.Counts) != h.Bins() {
			return fmt.Errorf("%w: series %q has %d counts for %d bins", ErrHistogram, s.Name, len(s.Counts), h.Bins())
		}
		for k, n := range s.Counts {
			if n < 0 {
				return fmt.Errorf("%w: series %q: count %d of bin %d is negative", ErrHistogram, s.Name, n, k)
			}
		}
	}
	if h.Threshold < 0 {
		return fmt.Errorf("%w: negative threshold %d", ErrHistogram, h.Threshold)
	}
	return nil
}

// palette holds the series colours: the Okabe–Ito colours, safe for the
// common colour-vision deficiencies (Wong 2011, Nature Methods 8:441),
// without yellow (too light on white) and black (the humans' colour).
var palette = [][3]uint8{
	{0, 114, 178},   // blue
	{230, 159, 0},   // orange
	{0, 158, 115},   // green
	{204, 121, 167}, // purple
	{86, 180, 233},  // sky
	{213, 94, 0},    // vermillion
}

func seriesColour(i int) [3]uint8 { return palette[i%len(palette)] }

// seriesFill is series i's bar fill: its palette colour, solid for the
// first len(palette) series and then hatched as the grouped charts' bars are
// (hatchFor), so that a histogram of more than six series (one per model)
// tells every series apart.
func seriesFill(i int) fillStyle {
	return fillStyle{rgb(seriesColour(i)), hatchFor(i / len(palette))}
}

// histogramFills returns the fill of every series of h.
func histogramFills(h Histogram) []fillStyle {
	f := make([]fillStyle, len(h.Series))
	for i := range f {
		f[i] = seriesFill(i)
	}
	return f
}

// layout places a histogram in a w×h canvas; both renderers use it, so SVG
// and PNG show the same chart.
type layout struct {
	h                     Histogram
	w, ht                 float64
	left, right, top, bot float64 // plot area in canvas coordinates
	ymax                  float64
	xticks, yticks        []float64
	legend                bool
}

func newLayout(h Histogram, w, ht int) layout {
	l := layout{h: h, w: float64(w), ht: float64(ht)}
	l.yticks = niceTicks(0, float64(max(maxCount(h), h.Threshold, 1)), 5)
	l.ymax = l.yticks[len(l.yticks)-1]
	// Left margin: room for the widest y tick label and the rotated y label.
	wide := 0.0
	for _, v := range l.yticks {
		wide = max(wide, textWidth(formatTick(v), false))
	}
	l.left = wide + 34
	l.right = l.w - 16
	l.top = 36
	l.bot = l.ht - 44
	l.xticks = niceTicks(h.Edges[0], h.Edges[len(h.Edges)-1], 6)
	l.legend = len(h.Series) > 1 || h.Series[0].Name != ""
	return l
}

func maxCount(h Histogram) int {
	m := 0
	for _, s := range h.Series {
		for _, n := range s.Counts {
			m = max(m, n)
		}
	}
	return m
}

// x maps a data value to a canvas x coordinate.
func (l layout) x(v float64) float64 {
	e := l.h.Edges
	return l.left + (v-e[0])/(e[len(e)-1]-e[0])*(l.right-l.left)
}

// y maps a count to a canvas y coordinate.
func (l layout) y(n float64) float64 { return l.bot - n/l.ymax*(l.bot-l.top) }

// bar returns the canvas rectangle [x0, x1] × [y0, y1] of series s in bin k.
func (l layout) bar(s, k int) (x0, y0, x1, y1 float64) {
	a, b := l.x(l.h.Edges[k]), l.x(l.h.Edges[k+1])
	gap := min(1, (b-a)/8)
	a, b = a+gap, b-gap
	ns := float64(len(l.h.Series))
	wd := (b - a) / ns
	x0 = a + float64(s)*wd
	return x0, l.y(float64(l.h.Series[s].Counts[k])), x0 + wd, l.bot
}

// niceTicks returns about n round tick values (steps of 1, 2 or 5 × 10^k)
// covering [lo, hi]: the first ≤ lo, the last ≥ hi.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	e := math.Floor(math.Log10(raw))
	mag := math.Pow(10, e)
	m := 10.0
	for _, c := range []float64{1, 2, 5} {
		if c*mag >= raw*(1-1e-9) {
			m = c
			break
		}
	}
	// Tick i is (k0+i)·m·10^e, computed as an integer scaled once by a power
	// of ten so that 0.6 prints as 0.6, not 0.6000000000000001.
	scale := func(k float64) float64 {
		if e < 0 {
			return k * m / math.Pow(10, -e)
		}
		return k * m * mag
	}
	k0 := math.Floor(lo/(m*mag) + 1e-9)
	var t []float64
	for i := 0.0; ; i++ {
		v := scale(k0 + i)
		t = append(t, v)
		if v >= hi-1e-9*m*mag {
			return t
		}
	}
}

// formatTick prints a tick value with as few digits as it needs.
func formatTick(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
