package testset

import (
	"fmt"

	"github.com/vcr-bench/vcr/plot"
)

// Histogram returns c as a chart for plot.HistogramSVG and plot.HistogramPNG:
// the Δv bins [k/Bins, (k+1)/Bins), one unnamed series of counts, and a
// dashed line at MinPerBin, the count a bin needs to be covered.
func (c Coverage) Histogram(title string) plot.Histogram {
	edges := make([]float64, c.Bins+1)
	for k := range edges {
		edges[k] = float64(k) / float64(c.Bins)
	}
	return plot.Histogram{
		Title:     title,
		XLabel:    "Δv = 1 − VIF",
		YLabel:    "images per bin",
		Edges:     edges,
		Series:    []plot.Series{{Counts: c.Counts}},
		Threshold: c.MinPerBin,
	}
}

// OverlayHistogram returns one chart of several coverages drawn side by side
// per bin, e.g. uniform sampling against the ImageNet-C severities; each
// series is named names[i] followed by its coverage ("uniform (62.5%)").
// It returns an error if the lengths differ, no coverage is given, or the
// coverages differ in bins or per-bin minimum.
func OverlayHistogram(title string, names []string, covs ...Coverage) (plot.Histogram, error) {
	if len(covs) == 0 || len(names) != len(covs) {
		return plot.Histogram{}, fmt.Errorf("testset: %d names for %d coverages", len(names), len(covs))
	}
	h := covs[0].Histogram(title)
	h.Series = h.Series[:0]
	for i, c := range covs {
		if c.Bins != covs[0].Bins || c.MinPerBin != covs[0].MinPerBin {
			return plot.Histogram{}, fmt.Errorf("testset: coverage %q has %d bins (≥ %d), %q has %d (≥ %d)", names[i], c.Bins, c.MinPerBin, names[0], covs[0].Bins, covs[0].MinPerBin)
		}
		h.Series = append(h.Series, plot.Series{Name: fmt.Sprintf("%s (%.1f%%)", names[i], 100*c.Fraction), Counts: c.Counts})
	}
	return h, nil
}
