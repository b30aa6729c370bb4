// Package plot draws simple statistical charts as standalone SVG and as
// PNG, with no dependencies beyond the standard library and
// golang.org/x/image (the embedded Go fonts, anti-aliasing rasterizer). It
// knows nothing about images or corruptions: callers turn their data into
// a Histogram, a Chart of curves, a BarChart or a GroupedChart.
//
// Charts are drawn at the size they are meant to be shown (SVGWidth, about
// a page column or half a slide), with FontSize text, so that pasted at
// that width their text is at least 11 px; the PNG of a chart at the size
// CurvesSize, BarsSize or GroupedSize gives is the same picture as its SVG,
// its text drawn with the Go fonts (Δ, −, ≥ and Greek letters included).
// Colours are the Okabe–Ito palette (Wong 2011), 6 of them; charts of
// more series tell the repeats apart: curves and model-vs-human panels by
// dash pattern, scatter markers by their centre (ring, dark dot), the bars and
// legend swatches of a GroupedChart by hatching (diagonal, cross, dots,
// vertical lines; SVG <pattern>s and the same geometry rasterised in
// PNG). BarChart bars carry their name on their row and need neither.
//
// HistogramSVG writes a standalone SVG document (it opens in any browser);
// HistogramPNG draws the same chart into a PNG of a requested size.
// CurvesSVG and CurvesPNG draw performance curves with shaded 83% and 95%
// bands and raw points sized by count (humans black and dashed, model
// families in colour-blind-safe colours); BarsSVG and BarsPNG draw
// horizontal bars sorted by value with 83% and 95% error bars;
// GroupedSVG and GroupedPNG draw one row of bars per category (e.g. a
// corruption), one bar per series (e.g. a model).
package plot
