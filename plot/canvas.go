package plot

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"
	"strings"

	"golang.org/x/image/vector"
)

// rgb is an opaque colour.
type rgb [3]uint8

var (
	black = rgb{0, 0, 0}
	grey  = rgb{153, 153, 153}
	light = rgb{221, 221, 221}
	white = rgb{255, 255, 255}
)

// pt is a point in canvas coordinates (pixels, y down).
type pt struct{ x, y float64 }

// painter is what the curve and bar charts draw on: an SVG document or a
// PNG canvas, so that both formats show the same chart. class names the
// element in SVG (tests count elements by class); tip is an SVG tooltip.
type painter interface {
	begin(class string)
	end()
	// line strokes the polyline pts; dash lists on/off lengths, an even
	// number of them (nil: solid).
	line(class string, pts []pt, c rgb, width float64, dash []float64)
	// fill fills the polygon pts with c at the given opacity.
	fill(class string, pts []pt, c rgb, opacity float64)
	rect(class string, x0, y0, x1, y1 float64, c rgb, opacity float64, tip string)
	// patterns defines the hatched fills that fillRect will use (SVG
	// <pattern> defs; nothing in PNG). Call it before drawing them.
	patterns(fills []fillStyle)
	// fillRect is rect with f's colour and hatch (rect itself when f has
	// none).
	fillRect(class string, x0, y0, x1, y1 float64, f fillStyle, opacity float64, tip string)
	circle(class string, x, y, r float64, c rgb, opacity float64, tip string)
	// text draws s with its baseline at y; bold text is the title.
	text(class, s string, x, y float64, a align, c rgb, bold bool)
	// vtext draws s reading upwards, its left edge at x, centred on y.
	vtext(class, s string, x, y float64, c rgb)
}

// svgPainter writes SVG elements.
type svgPainter struct{ b *bufio.Writer }

func (p svgPainter) printf(format string, a ...any) { fmt.Fprintf(p.b, format, a...) }

func svgColour(c rgb) string { return fmt.Sprintf("rgb(%d,%d,%d)", c[0], c[1], c[2]) }

func svgPoints(pts []pt) string {
	var b strings.Builder
	for i, q := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", q.x, q.y)
	}
	return b.String()
}

// svgTolerance is how far (in pixels) an SVG polyline may pass from the
// points it leaves out: a tenth of the 0.1-px precision the coordinates
// are written with would change nothing; 0.15 px is invisible at any zoom
// a reader uses and keeps a 101-point curve to a few dozen points.
const svgTolerance = 0.15

// simplify returns pts without the points that lie within tol of the line
// between their neighbours kept (Ramer–Douglas–Peucker), the ends kept.
func simplify(pts []pt, tol float64) []pt {
	if len(pts) < 3 {
		return pts
	}
	keep := make([]bool, len(pts))
	keep[0], keep[len(pts)-1] = true, true
	var rdp func(i, j int)
	rdp = func(i, j int) {
		a, b := pts[i], pts[j]
		dx, dy := b.x-a.x, b.y-a.y
		n := math.Hypot(dx, dy)
		far, at := 0.0, -1
		for k := i + 1; k < j; k++ {
			var d float64
			if n == 0 {
				d = math.Hypot(pts[k].x-a.x, pts[k].y-a.y)
			} else {
				d = math.Abs(dy*(pts[k].x-a.x)-dx*(pts[k].y-a.y)) / n
			}
			if d > far {
				far, at = d, k
			}
		}
		if at >= 0 && far > tol {
			keep[at] = true
			rdp(i, at)
			rdp(at, j)
		}
	}
	rdp(0, len(pts)-1)
	out := make([]pt, 0, len(pts))
	for k, q := range pts {
		if keep[k] {
			out = append(out, q)
		}
	}
	return out
}

func svgTip(tip string) string {
	if tip == "" {
		return ""
	}
	return "<title>" + esc(tip) + "</title>"
}

func (p svgPainter) begin(class string) { p.printf(`<g class="%s">`+"\n", class) }
func (p svgPainter) end()               { p.printf("</g>\n") }

func (p svgPainter) line(class string, pts []pt, c rgb, width float64, dash []float64) {
	d := ""
	if len(dash) > 0 {
		s := make([]string, len(dash))
		for i, v := range dash {
			s[i] = formatTick(v)
		}
		d = fmt.Sprintf(` stroke-dasharray="%s"`, strings.Join(s, " "))
	}
	p.printf(`<polyline class="%s" points="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"%s/>`+"\n",
		class, svgPoints(simplify(pts, svgTolerance)), svgColour(c), formatTick(width), d)
}

func (p svgPainter) fill(class string, pts []pt, c rgb, opacity float64) {
	p.printf(`<polygon class="%s" points="%s" fill="%s" fill-opacity="%s" stroke="none"/>`+"\n",
		class, svgPoints(pts), svgColour(c), formatTick(opacity))
}

func (p svgPainter) rect(class string, x0, y0, x1, y1 float64, c rgb, opacity float64, tip string) {
	p.rectFill(class, x0, y0, x1, y1, svgColour(c), opacity, tip)
}

func (p svgPainter) rectFill(class string, x0, y0, x1, y1 float64, fill string, opacity float64, tip string) {
	x0, x1 = min(x0, x1), max(x0, x1)
	y0, y1 = min(y0, y1), max(y0, y1)
	p.printf(`<rect class="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" fill-opacity="%s">%s</rect>`+"\n",
		class, x0, y0, x1-x0, y1-y0, fill, formatTick(opacity), svgTip(tip))
}

// patterns writes one <defs> with a <pattern> per distinct hatched fill,
// or nothing when none is hatched.
func (p svgPainter) patterns(fills []fillStyle) {
	var seen []fillStyle
	for _, f := range fills {
		if f.hatch != hatchNone && !slices.Contains(seen, f) {
			seen = append(seen, f)
		}
	}
	if len(seen) == 0 {
		return
	}
	p.printf("<defs>\n")
	for _, f := range seen {
		p.printf("%s\n", svgPattern(f))
	}
	p.printf("</defs>\n")
}

func (p svgPainter) fillRect(class string, x0, y0, x1, y1 float64, f fillStyle, opacity float64, tip string) {
	if f.hatch == hatchNone {
		p.rect(class, x0, y0, x1, y1, f.colour, opacity, tip)
		return
	}
	p.rectFill(class, x0, y0, x1, y1, "url(#"+patternID(f)+")", opacity, tip)
}

func (p svgPainter) circle(class string, x, y, r float64, c rgb, opacity float64, tip string) {
	p.printf(`<circle class="%s" cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="%s">%s</circle>`+"\n",
		class, x, y, r, svgColour(c), formatTick(opacity), svgTip(tip))
}

func (p svgPainter) text(class, s string, x, y float64, a align, c rgb, bold bool) {
	anchor := [...]string{"start", "middle", "end"}[a]
	extra := ""
	if bold {
		extra = fmt.Sprintf(` font-size="%d" font-weight="bold"`, TitleSize)
	}
	p.printf(`<text class="%s" x="%.1f" y="%.1f" text-anchor="%s" fill="%s"%s>%s</text>`+"\n",
		class, x, y, anchor, svgColour(c), extra, esc(s))
}

func (p svgPainter) vtext(class, s string, x, y float64, c rgb) {
	p.printf(`<text class="%s" transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`+"\n",
		class, x+8, y, svgColour(c), esc(s))
}

// svgDocument writes the XML declaration and the <svg> root of a w×h chart,
// calls draw, and closes the document.
func svgDocument(b *bufio.Writer, w, h int, draw func(painter)) error {
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(b, svgRoot, w, h, w, h, FontSize)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	draw(svgPainter{b})
	fmt.Fprintf(b, "</svg>\n")
	return b.Flush()
}

// pngPainter draws on an RGBA image with an anti-aliasing rasterizer.
// Shapes are collected as closed paths and rasterized together by paint,
// over their bounding box only.
type pngPainter struct {
	img   *image.RGBA
	fonts *fontFaces
	z     *vector.Rasterizer
	paths [][]pt
}

func newPNGPainter(width, height int) *pngPainter {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &pngPainter{img: img, z: vector.NewRasterizer(1, 1), fonts: newFontFaces()}
}

func (p *pngPainter) begin(string) {}
func (p *pngPainter) end()         {}

// paint rasterizes the collected paths in c at opacity, within their
// bounding box, and clears them.
func (p *pngPainter) paint(c rgb, opacity float64) {
	defer func() { p.paths = p.paths[:0] }()
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, path := range p.paths {
		for _, q := range path {
			x0, y0, x1, y1 = min(x0, q.x), min(y0, q.y), max(x1, q.x), max(y1, q.y)
		}
	}
	box := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1))+1, int(math.Ceil(y1))+1).Intersect(p.img.Bounds())
	if box.Empty() {
		return
	}
	p.z.Reset(box.Dx(), box.Dy())
	ox, oy := float64(box.Min.X), float64(box.Min.Y)
	for _, path := range p.paths {
		p.z.MoveTo(float32(path[0].x-ox), float32(path[0].y-oy))
		for _, q := range path[1:] {
			p.z.LineTo(float32(q.x-ox), float32(q.y-oy))
		}
		p.z.ClosePath()
	}
	a := uint8(math.Round(255 * min(1, max(0, opacity))))
	p.z.DrawOp = draw.Over
	p.z.Draw(p.img, box, image.NewUniform(color.NRGBA{c[0], c[1], c[2], a}), image.Point{})
}

// polygon adds a closed path, oriented so that the signed area is positive:
// overlapping pieces then add up instead of cancelling.
func (p *pngPainter) polygon(pts []pt) {
	if len(pts) < 3 {
		return
	}
	area := 0.0
	for i, q := range pts {
		r := pts[(i+1)%len(pts)]
		area += q.x*r.y - r.x*q.y
	}
	path := make([]pt, len(pts))
	for i := range pts {
		if area < 0 {
			path[i] = pts[len(pts)-1-i]
		} else {
			path[i] = pts[i]
		}
	}
	p.paths = append(p.paths, path)
}

// segment adds a stroke of the given width from a to b, extended by half
// the width at both ends when capped (so that joints have no gaps).
func (p *pngPainter) segment(a, b pt, width float64, capped bool) {
	dx, dy := b.x-a.x, b.y-a.y
	n := math.Hypot(dx, dy)
	if n == 0 {
		return
	}
	hx, hy := -dy/n*width/2, dx/n*width/2
	ex, ey := 0.0, 0.0
	if capped {
		ex, ey = dx/n*width/2, dy/n*width/2
	}
	p.polygon([]pt{
		{a.x - ex + hx, a.y - ey + hy}, {b.x + ex + hx, b.y + ey + hy},
		{b.x + ex - hx, b.y + ey - hy}, {a.x - ex - hx, a.y - ey - hy},
	})
}

func (p *pngPainter) line(_ string, pts []pt, c rgb, width float64, dash []float64) {
	if len(dash) == 0 {
		for i := 1; i < len(pts); i++ {
			p.segment(pts[i-1], pts[i], width, true)
		}
		p.paint(c, 1)
		return
	}
	// Walk the polyline, emitting the "on" parts of the dash pattern.
	k, left, on := 0, dash[0], true
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		seg := math.Hypot(b.x-a.x, b.y-a.y)
		pos := 0.0
		for pos < seg {
			step := min(left, seg-pos)
			if on {
				t0, t1 := pos/seg, (pos+step)/seg
				p.segment(pt{a.x + t0*(b.x-a.x), a.y + t0*(b.y-a.y)}, pt{a.x + t1*(b.x-a.x), a.y + t1*(b.y-a.y)}, width, false)
			}
			pos += step
			left -= step
			if left <= 1e-9 {
				k = (k + 1) % len(dash)
				left, on = dash[k], k%2 == 0
			}
		}
	}
	p.paint(c, 1)
}

func (p *pngPainter) fill(_ string, pts []pt, c rgb, opacity float64) {
	p.polygon(pts)
	p.paint(c, opacity)
}

func (p *pngPainter) rect(_ string, x0, y0, x1, y1 float64, c rgb, opacity float64, _ string) {
	p.polygon([]pt{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}})
	p.paint(c, opacity)
}

func (p *pngPainter) patterns([]fillStyle) {}

func (p *pngPainter) fillRect(class string, x0, y0, x1, y1 float64, f fillStyle, opacity float64, tip string) {
	if f.hatch == hatchNone {
		p.rect(class, x0, y0, x1, y1, f.colour, opacity, tip)
		return
	}
	p.hatchRect(x0, y0, x1, y1, f, opacity)
}

func (p *pngPainter) circle(_ string, x, y, r float64, c rgb, opacity float64, _ string) {
	const n = 20
	pts := make([]pt, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / n
		pts[i] = pt{x + r*math.Cos(a), y + r*math.Sin(a)}
	}
	p.polygon(pts)
	p.paint(c, opacity)
}

func (p *pngPainter) text(_, s string, x, y float64, a align, c rgb, bold bool) {
	p.fonts.drawText(p.img, s, x, y, a, color.RGBA{c[0], c[1], c[2], 255}, bold)
}

func (p *pngPainter) vtext(_, s string, x, y float64, c rgb) {
	p.fonts.drawVerticalText(p.img, s, x, y, color.RGBA{c[0], c[1], c[2], 255})
}

// checkPNGSize reports whether width×height is within the PNG limits.
func checkPNGSize(err error, width, height int) error {
	if width < MinPNGWidth || height < MinPNGHeight || width > MaxPNGSide || height > MaxPNGSide {
		return fmt.Errorf("%w: PNG size %d×%d outside %d×%d … %d×%d", err, width, height, MinPNGWidth, MinPNGHeight, MaxPNGSide, MaxPNGSide)
	}
	return nil
}
