package plot

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
)

// PNG size limits for HistogramPNG.
const (
	MinPNGWidth, MinPNGHeight = 240, 160
	MaxPNGSide                = 8192
)

// HistogramPNG draws h into a width×height PNG: the same chart as
// HistogramSVG, with text in the embedded Go font (FontSize). It returns an error wrapping
// ErrHistogram if h is invalid or the size is outside [MinPNGWidth,
// MaxPNGSide] × [MinPNGHeight, MaxPNGSide], or the encoder's error.
func HistogramPNG(w io.Writer, h Histogram, width, height int) error {
	if err := h.Validate(); err != nil {
		return err
	}
	if width < MinPNGWidth || height < MinPNGHeight || width > MaxPNGSide || height > MaxPNGSide {
		return fmt.Errorf("%w: PNG size %d×%d outside %d×%d … %d×%d", ErrHistogram, width, height, MinPNGWidth, MinPNGHeight, MaxPNGSide, MaxPNGSide)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	l := newLayout(h, width, height)
	ff := newFontFaces()
	text := func(img *image.RGBA, s string, x, y float64, a align, c color.RGBA) {
		ff.drawText(img, s, x, y, a, c, false)
	}
	black := color.RGBA{0, 0, 0, 255}
	grid := color.RGBA{221, 221, 221, 255}
	red := color.RGBA{204, 0, 0, 255}

	for _, v := range l.yticks {
		hline(img, l.left, l.right, l.y(v), grid, 1, 0)
		text(img, formatTick(v), l.left-6, l.y(v)+4, alignRight, black)
	}
	fills := histogramFills(h)
	hp := &pngPainter{img: img} // hatched bars and swatches
	// fillRect fills r with f: solid, or hatched with pngPainter's
	// rasteriser (the geometry the SVG's <pattern> has).
	fillRect := func(r image.Rectangle, f fillStyle) {
		if f.hatch == hatchNone {
			draw.Draw(img, r, image.NewUniform(color.RGBA{f.colour[0], f.colour[1], f.colour[2], 255}), image.Point{}, draw.Src)
			return
		}
		hp.hatchRect(float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y), f, 1)
	}
	for s, ser := range h.Series {
		for k := range ser.Counts {
			x0, y0, x1, y1 := l.bar(s, k)
			r := image.Rect(round(x0), round(y0), max(round(x1), round(x0)+1), round(y1))
			fillRect(r, fills[s])
		}
	}
	hline(img, l.left, l.right, l.bot, black, 1, 0)
	vline(img, l.left, l.top, l.bot, black)
	for _, v := range l.xticks {
		vline(img, l.x(v), l.bot, l.bot+5, black)
		text(img, formatTick(v), l.x(v), l.bot+18, alignCentre, black)
	}
	if h.Threshold > 0 {
		y := l.y(float64(h.Threshold))
		hline(img, l.left, l.right, y, red, 2, 6)
		text(img, fmt.Sprint(h.Threshold), l.right-2, y-4, alignRight, red)
	}
	if h.Title != "" {
		ff.drawText(img, h.Title, l.w/2, 22, alignCentre, black, true)
	}
	if h.XLabel != "" {
		text(img, h.XLabel, (l.left+l.right)/2, l.ht-8, alignCentre, black)
	}
	if h.YLabel != "" {
		ff.drawVerticalText(img, h.YLabel, 6, (l.top+l.bot)/2, black)
	}
	if l.legend {
		wide := 0.0
		for _, s := range h.Series {
			wide = max(wide, textWidth(s.Name, false))
		}
		bw := wide + 34
		x0, y0 := l.right-bw-6, l.top+6
		box := image.Rect(round(x0), round(y0), round(x0+bw), round(y0+float64(18*len(h.Series)+6)))
		draw.Draw(img, box, image.White, image.Point{}, draw.Src)
		outline(img, box, color.RGBA{153, 153, 153, 255})
		for s, ser := range h.Series {
			y := y0 + 6 + 18*float64(s)
			sw := image.Rect(round(x0+6), round(y), round(x0+18), round(y+12))
			fillRect(sw, fills[s])
			text(img, ser.Name, x0+24, y+10, alignLeft, black)
		}
	}
	return png.Encode(w, img)
}

func round(v float64) int { return int(math.Round(v)) }

// hline draws a horizontal line of the given thickness from x0 to x1 at y,
// dashed (dash on, dash·2/3 off) when dash > 0.
func hline(img *image.RGBA, x0, x1, y float64, c color.RGBA, thick, dash int) {
	yi := round(y)
	for x := round(x0); x <= round(x1); x++ {
		if dash > 0 && (x-round(x0))%(dash+dash*2/3) >= dash {
			continue
		}
		for t := range thick {
			img.SetRGBA(x, yi+t-thick/2, c)
		}
	}
}

func vline(img *image.RGBA, x, y0, y1 float64, c color.RGBA) {
	xi := round(x)
	for y := round(y0); y <= round(y1); y++ {
		img.SetRGBA(xi, y, c)
	}
}

func outline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for x := r.Min.X; x < r.Max.X; x++ {
		img.SetRGBA(x, r.Min.Y, c)
		img.SetRGBA(x, r.Max.Y-1, c)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		img.SetRGBA(r.Min.X, y, c)
		img.SetRGBA(r.Max.X-1, y, c)
	}
}

type align int

const (
	alignLeft align = iota
	alignCentre
	alignRight
)
