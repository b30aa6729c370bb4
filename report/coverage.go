package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/plot"
	"github.com/vcr-bench/vcr/testset"
)

// The plots of a test set's Δv coverage (testset computes the coverage,
// report draws it).

// CoverageChart returns the Δv coverage c of a test set as a chart for plot.HistogramSVG and plot.HistogramPNG:
// the Δv bins [k/Bins, (k+1)/Bins), one unnamed series of counts, and a
// dashed line at MinPerBin, the count a bin needs to be covered.
func CoverageChart(c testset.Coverage, title string) plot.Histogram {
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

// CoverageOverlay returns one chart of several coverages drawn side by side
// per bin, e.g. uniform sampling against the ImageNet-C severities; each
// series is named names[i] followed by its coverage ("uniform (62.5%)").
// It returns an error if the lengths differ, no coverage is given, or the
// coverages differ in bins or per-bin minimum.
func CoverageOverlay(title string, names []string, covs ...testset.Coverage) (plot.Histogram, error) {
	if len(covs) == 0 || len(names) != len(covs) {
		return plot.Histogram{}, fmt.Errorf("report: %d names for %d coverages", len(names), len(covs))
	}
	h := CoverageChart(covs[0], title)
	h.Series = h.Series[:0]
	for i, c := range covs {
		if c.Bins != covs[0].Bins || c.MinPerBin != covs[0].MinPerBin {
			return plot.Histogram{}, fmt.Errorf("report: coverage %q has %d bins (≥ %d), %q has %d (≥ %d)", names[i], c.Bins, c.MinPerBin, names[0], covs[0].Bins, covs[0].MinPerBin)
		}
		h.Series = append(h.Series, plot.Series{Name: fmt.Sprintf("%s (%.1f%%)", names[i], 100*c.Fraction), Counts: c.Counts})
	}
	return h, nil
}

// WriteCoveragePlots writes, into dir, a Δv histogram of every corruption as
// <corruption>.svg and <corruption>.png, with the per-bin minimum of the
// coverage definition drawn as a threshold line. Files appear atomically. It is the
// testset.PlotWriter of vcr generate and vcr merge.
func WriteCoveragePlots(r *testset.CoverageReport, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range r.Corruptions {
		title := fmt.Sprintf("%s: Δv coverage %.0f%% (%d of %d bins with ≥ %d images; %s, %s)",
			c.Corruption, 100*c.Fraction, c.Covered, c.Bins, c.MinPerBin, r.Sampling, r.VIFMethod)
		h := CoverageChart(c.Coverage, title)
		base := filepath.Join(dir, c.Corruption)
		if err := atomicfile.Write(base+".svg", func(w io.Writer) error { return plot.HistogramSVG(w, h) }); err != nil {
			return err
		}
		if err := atomicfile.Write(base+".png", func(w io.Writer) error { return plot.HistogramPNG(w, h, plot.SVGWidth, plot.SVGHeight) }); err != nil {
			return err
		}
	}
	return nil
}

// CompareCoverage writes, for every corruption present in all reports, an
// overlay histogram of the runs side by side (<corruption>.svg and .png in
// dir) and prints a table with one coverage column per run. Reports whose
// Δv comes from different VIF methods are refused: their axes differ.
func CompareCoverage(w io.Writer, dir string, runs []testset.Named) error {
	if len(runs) < 2 {
		return fmt.Errorf("need at least two runs to compare (got %d)", len(runs))
	}
	for _, r := range runs[1:] {
		if r.Report.Bins != runs[0].Report.Bins || r.Report.MinPerBin != runs[0].Report.MinPerBin {
			return fmt.Errorf("%s counts coverage in %d bins of ≥ %d rows but %s in %d bins of ≥ %d; compare them with the same settings",
				runs[0].Name, runs[0].Report.Bins, runs[0].Report.MinPerBin, r.Name, r.Report.Bins, r.Report.MinPerBin)
		}
		if r.Report.VIFMethod != runs[0].Report.VIFMethod {
			return fmt.Errorf("%s measures Δv with %s but %s with %s; coverage on different Δv axes cannot be compared",
				runs[0].Name, runs[0].Report.VIFMethod, r.Name, r.Report.VIFMethod)
		}
	}
	var names []string
	for _, c := range runs[0].Report.Corruptions {
		ok := true
		for _, r := range runs[1:] {
			ok = ok && slices.ContainsFunc(r.Report.Corruptions, func(x testset.CorruptionCoverage) bool { return x.Corruption == c.Corruption })
		}
		if ok {
			names = append(names, c.Corruption)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("the runs have no corruption in common")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "corruption")
	for _, r := range runs {
		fmt.Fprintf(tw, "\t%s", r.Name)
	}
	fmt.Fprintln(tw)
	labels := make([]string, len(runs))
	for i, r := range runs {
		labels[i] = r.Name
	}
	for _, n := range names {
		covs := make([]testset.Coverage, len(runs))
		fmt.Fprint(tw, n)
		for i, r := range runs {
			j := slices.IndexFunc(r.Report.Corruptions, func(x testset.CorruptionCoverage) bool { return x.Corruption == n })
			covs[i] = r.Report.Corruptions[j].Coverage
			fmt.Fprintf(tw, "\t%.1f%% (%d rows)", 100*covs[i].Fraction, covs[i].N)
		}
		fmt.Fprintln(tw)
		h, err := CoverageOverlay(fmt.Sprintf("%s: Δv coverage (%s)", n, runs[0].Report.VIFMethod), labels, covs...)
		if err != nil {
			return err
		}
		base := filepath.Join(dir, n)
		if err := atomicfile.Write(base+".svg", func(w io.Writer) error { return plot.HistogramSVG(w, h) }); err != nil {
			return err
		}
		if err := atomicfile.Write(base+".png", func(w io.Writer) error { return plot.HistogramPNG(w, h, plot.SVGWidth, plot.SVGHeight) }); err != nil {
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "(Δv in %d equal bins (--bins); a bin is covered with ≥ %d rows (--min-per-bin); Δv by %s)\n",
		runs[0].Report.Bins, runs[0].Report.MinPerBin, runs[0].Report.VIFMethod); err != nil {
		return err
	}
	// Say which corruptions were left out, lest a run's others seem lost.
	var missing []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, c := range r.Report.Corruptions {
			if slices.Contains(names, c.Corruption) || seen[c.Corruption] {
				continue
			}
			seen[c.Corruption] = true
			var in []string
			for _, o := range runs {
				if slices.ContainsFunc(o.Report.Corruptions, func(x testset.CorruptionCoverage) bool { return x.Corruption == c.Corruption }) {
					in = append(in, o.Name)
				}
			}
			missing = append(missing, fmt.Sprintf("%s (only in %s)", c.Corruption, strings.Join(in, ", ")))
		}
	}
	if len(missing) > 0 {
		if _, err := fmt.Fprintf(w, "not compared, as not in every run: %s\n", strings.Join(missing, "; ")); err != nil {
			return err
		}
	}
	return nil
}
