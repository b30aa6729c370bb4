package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"
)

// hatch is the pattern drawn over a filled area (a bar, a legend swatch)
// so that series of one colour stay apart, in greyscale prints too. The
// palette's colours come first, solid; the next len(palette) series get
// them again with hatchDiagonal, then hatchCross, hatchDots and
// hatchVertical: 5 × 6 = 30 distinguishable fills (then they repeat).
type hatch int

const (
	hatchNone     hatch = iota
	hatchDiagonal       // lines rising to the right, 5 px apart
	hatchCross          // both diagonals, 6 px apart
	hatchDots           // dots of radius 1.1 px, 4 px apart
	hatchVertical       // vertical lines, 4 px apart
	numHatches
)

// hatchNames name the patterns in SVG ids.
var hatchNames = [numHatches]string{"none", "diagonal", "cross", "dots", "vertical"}

// Pattern geometry, in canvas pixels, shared by the SVG <pattern> tiles
// and the PNG rasteriser. Tiles are anchored at the canvas origin, so a
// bar and its legend swatch show the same pattern at the same place of
// the grid, and SVG and PNG draw the same picture.
const (
	hatchLine    = 1.4 // width of hatch lines
	diagPeriod   = 5.0 // lines x + y ≡ 0 (mod diagPeriod)
	crossPeriod  = 6.0 // lines x ± y ≡ 0 (mod crossPeriod)
	dotPeriod    = 4.0 // dots centred at (2.5, 2.5) (mod dotPeriod)
	dotRadius    = 1.1
	vertPeriod   = 4.0 // lines x ≡ 2.5 (mod vertPeriod)
	vertOffset   = 2.5 // on pixel centres: crisp lines and dots
	dotOffset    = 2.5
	inkDarkening = 0.45 // ink of a light colour: the colour times this
)

// fillStyle is a colour with an optional hatch.
type fillStyle struct {
	colour rgb
	hatch  hatch
}

// hatchFor returns the hatch of the k-th use of a palette colour (k = 0:
// solid).
func hatchFor(k int) hatch { return hatch(k % int(numHatches)) }

// hatchInk is the colour of the hatch over c: c darkened for light and medium
// colours, mixed towards white for dark ones (the humans' black and grey),
// so that the pattern shows in colour and in greyscale.
func hatchInk(c rgb) rgb {
	if luma(c) < 50 {
		return tint(c, 0.7)
	}
	m := func(v uint8) uint8 { return uint8(math.Round(float64(v) * inkDarkening)) }
	return rgb{m(c[0]), m(c[1]), m(c[2])}
}

// luma is c's Rec. 601 luma, 0–255.
func luma(c rgb) float64 { return 0.299*float64(c[0]) + 0.587*float64(c[1]) + 0.114*float64(c[2]) }

// patternID is the SVG id of f's <pattern>: derived from its content, so
// that it is unique within a document and two charts inlined into one
// page that use the same id define the same pattern.
func patternID(f fillStyle) string {
	return fmt.Sprintf("vcr-hatch-%s-%02x%02x%02x", hatchNames[f.hatch], f.colour[0], f.colour[1], f.colour[2])
}

// svgPattern returns the <pattern> element of f (hatched): a tile of the
// colour with the ink's lines or dots, in user space.
func svgPattern(f fillStyle) string {
	var b strings.Builder
	s := map[hatch]float64{hatchDiagonal: diagPeriod, hatchCross: crossPeriod, hatchDots: dotPeriod, hatchVertical: vertPeriod}[f.hatch]
	fmt.Fprintf(&b, `<pattern id="%s" patternUnits="userSpaceOnUse" x="0" y="0" width="%s" height="%s">`,
		patternID(f), formatTick(s), formatTick(s))
	fmt.Fprintf(&b, `<rect width="%s" height="%s" fill="%s"/>`, formatTick(s), formatTick(s), svgColour(f.colour))
	n := formatTick
	ic := svgColour(hatchInk(f.colour))
	// rising draws the line x + y = s across the tile and the two corner
	// pieces of x + y = 0 and x + y = 2s; falling likewise x − y = 0.
	rising := fmt.Sprintf("M0,%s L%s,0 M-1,1 L1,-1 M%s,%s L%s,%s", n(s), n(s), n(s-1), n(s+1), n(s+1), n(s-1))
	falling := fmt.Sprintf("M0,0 L%s,%s M%s,-1 L%s,1 M-1,%s L1,%s", n(s), n(s), n(s-1), n(s+1), n(s-1), n(s+1))
	switch f.hatch {
	case hatchDiagonal:
		fmt.Fprintf(&b, `<path d="%s" stroke="%s" stroke-width="%s"/>`, rising, ic, n(hatchLine))
	case hatchCross:
		// Two paths: crossing strokes of one path may leave a hole where
		// they cross (Chromium does).
		fmt.Fprintf(&b, `<path d="%s" stroke="%s" stroke-width="%s"/><path d="%s" stroke="%s" stroke-width="%s"/>`,
			rising, ic, n(hatchLine), falling, ic, n(hatchLine))
	case hatchDots:
		fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%s" fill="%s"/>`, n(dotOffset), n(dotOffset), n(dotRadius), ic)
	case hatchVertical:
		fmt.Fprintf(&b, `<path d="M%s,0 L%s,%s" stroke="%s" stroke-width="%s"/>`, n(vertOffset), n(vertOffset), n(s), ic, n(hatchLine))
	}
	b.WriteString("</pattern>")
	return b.String()
}

// hatchCoverage returns how much of the pixel centred at (x, y) the ink
// of h covers, 0–1: an area estimate from the distance to the nearest
// line (or dot centre), the same geometry as svgPattern's tiles.
func hatchCoverage(h hatch, x, y float64) float64 {
	// line covers a pixel at distance d from a line of width w.
	line := func(d, w float64) float64 { return min(1, max(0, w/2+0.5-d)) }
	// dist returns the distance of v to the nearest multiple of p.
	dist := func(v, p float64) float64 {
		u := math.Mod(v, p)
		if u < 0 {
			u += p
		}
		return min(u, p-u)
	}
	switch h {
	case hatchDiagonal:
		return line(dist(x+y, diagPeriod)/math.Sqrt2, hatchLine)
	case hatchCross:
		return max(line(dist(x+y, crossPeriod)/math.Sqrt2, hatchLine), line(dist(x-y, crossPeriod)/math.Sqrt2, hatchLine))
	case hatchDots:
		return min(1, max(0, dotRadius+0.5-math.Hypot(dist(x-dotOffset, dotPeriod), dist(y-dotOffset, dotPeriod))))
	case hatchVertical:
		return line(dist(x-vertOffset, vertPeriod), hatchLine)
	}
	return 0
}

// hatchRect fills [x0, x1] × [y0, y1] with f at opacity: pixels partly
// inside get the part they cover (exact for this axis-aligned rectangle),
// each pixel the colour mixed with the ink by hatchCoverage, as an SVG
// renderer draws the pattern fill.
func (p *pngPainter) hatchRect(x0, y0, x1, y1 float64, f fillStyle, opacity float64) {
	x0, x1 = min(x0, x1), max(x0, x1)
	y0, y1 = min(y0, y1), max(y0, y1)
	b := p.img.Bounds()
	ic := hatchInk(f.colour)
	for y := max(b.Min.Y, int(math.Floor(y0))); y < min(b.Max.Y, int(math.Ceil(y1))); y++ {
		cy := min(y1, float64(y+1)) - max(y0, float64(y))
		for x := max(b.Min.X, int(math.Floor(x0))); x < min(b.Max.X, int(math.Ceil(x1))); x++ {
			cx := min(x1, float64(x+1)) - max(x0, float64(x))
			a := cx * cy * opacity
			if a <= 0 {
				continue
			}
			h := hatchCoverage(f.hatch, float64(x)+0.5, float64(y)+0.5)
			o := p.img.RGBAAt(x, y)
			mix := func(c, i, bg uint8) uint8 {
				v := float64(c)*(1-h) + float64(i)*h
				return uint8(math.Round(v*a + float64(bg)*(1-a)))
			}
			p.img.SetRGBA(x, y, color.RGBA{mix(f.colour[0], ic[0], o.R), mix(f.colour[1], ic[1], o.G), mix(f.colour[2], ic[2], o.B), 255})
		}
	}
}
