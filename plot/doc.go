// Package plot draws simple statistical charts (histograms, performance
// curves with confidence bands, sorted bar charts with error bars) as
// standalone SVG and as PNG,
// with no dependencies beyond the standard library and golang.org/x/image's
// bitmap font. It knows nothing about images or corruptions: callers turn
// their data into a Histogram.
//
// HistogramSVG writes a standalone SVG document (it opens in any browser);
// HistogramPNG draws the same chart into a PNG of a requested size.
package plot
