// Package plot draws simple statistical charts as standalone SVG and as
// PNG, with no dependencies beyond the standard library and
// golang.org/x/image (bitmap font, anti-aliasing rasterizer). It knows
// nothing about images or corruptions: callers turn their data into a
// Histogram, a Chart of curves or a BarChart.
//
// HistogramSVG writes a standalone SVG document (it opens in any browser);
// HistogramPNG draws the same chart into a PNG of a requested size.
// CurvesSVG and CurvesPNG draw performance curves with shaded 83% and 95%
// bands and raw points sized by count (humans black and dashed, model
// families in colour-blind-safe colours); BarsSVG and BarsPNG draw
// horizontal bars sorted by value with 83% and 95% error bars.
package plot
