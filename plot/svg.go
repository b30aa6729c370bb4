package plot

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// SVGWidth and SVGHeight are the size of the charts HistogramSVG writes, in
// CSS pixels, and the plot area the other charts start from. The SVG has a
// viewBox, so browsers scale it freely; shown at about this width (a
// column of a page, half a slide) its FontSize text is 11–13 px.
const (
	SVGWidth  = 640
	SVGHeight = 380
)

// svgRoot is the <svg> element of every chart: its size and viewBox (one
// user unit = one CSS pixel), the fonts (the Go font the PNGs use first)
// and FontSize.
const svgRoot = `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="'Go', Helvetica, Arial, sans-serif" font-size="%d">` + "\n"

// HistogramSVG writes h as a standalone SVG document (with XML declaration,
// axes, ticks, labels, title, a dashed threshold line and a legend when
// there are several or named series). Each bar is a <rect class="bar"> with a
// <title> tooltip giving its bin and count. It returns an error wrapping
// ErrHistogram if h is invalid, or the first write error.
func HistogramSVG(w io.Writer, h Histogram) error {
	if err := h.Validate(); err != nil {
		return err
	}
	l := newLayout(h, SVGWidth, SVGHeight)
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p(svgRoot, SVGWidth, SVGHeight, SVGWidth, SVGHeight, FontSize)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	fills := histogramFills(h)
	svgPainter{b}.patterns(fills) // the hatches of series 7 on, if any
	if h.Title != "" {
		p(`<text class="title" x="%.1f" y="22" text-anchor="middle" font-size="%d" font-weight="bold">%s</text>`+"\n", l.w/2, TitleSize, esc(h.Title))
	}
	// Horizontal grid and y ticks.
	p(`<g class="y-axis" stroke="#ddd">` + "\n")
	for _, v := range l.yticks {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", l.left, l.y(v), l.right, l.y(v))
	}
	p(`</g>` + "\n")
	p(`<g class="y-ticks" text-anchor="end">` + "\n")
	for _, v := range l.yticks {
		p(`<text x="%.1f" y="%.1f">%s</text>`+"\n", l.left-6, l.y(v)+4, formatTick(v))
	}
	p(`</g>` + "\n")
	// Bars.
	for s, ser := range h.Series {
		p(`<g class="series" fill="%s">`+"\n", svgFill(fills[s]))
		for k, n := range ser.Counts {
			x0, y0, x1, y1 := l.bar(s, k)
			tip := fmt.Sprintf("[%s, %s): %d", formatTick(h.Edges[k]), formatTick(h.Edges[k+1]), n)
			if ser.Name != "" {
				tip = ser.Name + " " + tip
			}
			p(`<rect class="bar" x="%.2f" y="%.2f" width="%.2f" height="%.2f"><title>%s</title></rect>`+"\n", x0, y0, x1-x0, y1-y0, esc(tip))
		}
		p(`</g>` + "\n")
	}
	// Axes and x ticks.
	p(`<g class="axes" stroke="black" fill="none">` + "\n")
	p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", l.left, l.bot, l.right, l.bot)
	p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", l.left, l.top, l.left, l.bot)
	for _, v := range l.xticks {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", l.x(v), l.bot, l.x(v), l.bot+5)
	}
	p(`</g>` + "\n")
	p(`<g class="x-ticks" text-anchor="middle">` + "\n")
	for _, v := range l.xticks {
		p(`<text x="%.1f" y="%.1f">%s</text>`+"\n", l.x(v), l.bot+18, formatTick(v))
	}
	p(`</g>` + "\n")
	if h.Threshold > 0 {
		y := l.y(float64(h.Threshold))
		p(`<line class="threshold" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c00" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", l.left, y, l.right, y)
		p(`<text class="threshold-label" x="%.1f" y="%.1f" text-anchor="end" fill="#c00">%d</text>`+"\n", l.right-2, y-4, h.Threshold)
	}
	if h.XLabel != "" {
		p(`<text class="x-label" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (l.left+l.right)/2, l.ht-8, esc(h.XLabel))
	}
	if h.YLabel != "" {
		p(`<text class="y-label" transform="translate(14 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (l.top+l.bot)/2, esc(h.YLabel))
	}
	if l.legend {
		wide := 0.0
		for _, s := range h.Series {
			wide = max(wide, textWidth(s.Name, false))
		}
		bw := wide + 34
		x0, y0 := l.right-bw-6, l.top+6
		p(`<g class="legend">` + "\n")
		p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="white" fill-opacity="0.85" stroke="#999"/>`+"\n", x0, y0, bw, 18*len(h.Series)+6)
		for s, ser := range h.Series {
			y := y0 + 6 + 18*float64(s)
			p(`<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/>`+"\n", x0+6, y, svgFill(fills[s]))
			p(`<text x="%.1f" y="%.1f">%s</text>`+"\n", x0+24, y+10, esc(ser.Name))
		}
		p(`</g>` + "\n")
	}
	p(`</svg>` + "\n")
	return b.Flush()
}

// svgFill is an SVG fill attribute's value for f: its colour, or the
// <pattern> of its hatch (svgPainter.patterns defines it).
func svgFill(f fillStyle) string {
	if f.hatch == hatchNone {
		return svgColour(f.colour)
	}
	return "url(#" + patternID(f) + ")"
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // writes to a strings.Builder never fail
	return b.String()
}
