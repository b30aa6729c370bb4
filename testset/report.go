package testset

import (
	"os"
	"path/filepath"
	"slices"

	"encoding/json"
	"fmt"
	"github.com/vcr-bench/vcr/plot"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/iqa"
)

// CoverageCounter bins Δv values one at a time, so that the coverage of
// any number of rows is computed in constant memory. Its Coverage equals
// ComputeCoverage over the same values.
type CoverageCounter struct {
	bins, minPerBin int
	counts          []int
	n               int
}

// NewCoverageCounter returns an empty counter. It panics if bins or
// minPerBin is not positive.
func NewCoverageCounter(bins, minPerBin int) *CoverageCounter {
	if bins <= 0 || minPerBin <= 0 {
		panic("testset: bins and minPerBin must be positive")
	}
	return &CoverageCounter{bins: bins, minPerBin: minPerBin, counts: make([]int, bins)}
}

// Add counts dv. It panics if dv is outside [0, 1] (see BinIndex).
func (c *CoverageCounter) Add(dv float64) {
	c.counts[BinIndex(dv, c.bins)]++
	c.n++
}

// Coverage returns the coverage of the values added so far.
func (c *CoverageCounter) Coverage() Coverage {
	cv := Coverage{Bins: c.bins, MinPerBin: c.minPerBin, Counts: append([]int(nil), c.counts...), N: c.n}
	for _, n := range c.counts {
		if n >= c.minPerBin {
			cv.Covered++
		}
	}
	cv.Fraction = float64(cv.Covered) / float64(c.bins)
	return cv
}

// CorruptionCoverage is the coverage of one corruption's rows.
type CorruptionCoverage struct {
	Corruption string `json:"corruption"`
	Coverage
}

// CoverageReport is coverage.json: the Δv coverage of every corruption of a
// run and of all rows together.
type CoverageReport struct {
	Bins        int                  `json:"bins"`
	MinPerBin   int                  `json:"min_per_bin"`
	VIFMethod   string               `json:"vif_method"`
	Sampling    string               `json:"sampling"`
	Corruptions []CorruptionCoverage `json:"corruptions"`
	Overall     Coverage             `json:"overall"`
}

// reportBuilder accumulates a CoverageReport from manifest rows.
type reportBuilder struct {
	names   []string
	bins    int
	minPer  int
	byName  map[string]*CoverageCounter
	overall *CoverageCounter
}

// newReportBuilder counts the rows of the corruptions names into bins
// bins, a bin covered with ≥ minPerBin rows (0: the defaults).
func newReportBuilder(names []string, bins, minPerBin int) *reportBuilder {
	bins, minPerBin = coverageSettings(bins, minPerBin)
	b := &reportBuilder{names: names, bins: bins, minPer: minPerBin, byName: map[string]*CoverageCounter{}, overall: NewCoverageCounter(bins, minPerBin)}
	for _, n := range names {
		b.byName[n] = NewCoverageCounter(bins, minPerBin)
	}
	return b
}

// addRecord counts one manifest record; file names the manifest in errors.
func (b *reportBuilder) addRecord(rec []string, file string) error {
	c, ok := b.byName[rec[colCorruption]]
	if !ok {
		return fmt.Errorf("%s: row %s has corruption %q, which the run does not list", file, rec[colID], rec[colCorruption])
	}
	dv, err := strconv.ParseFloat(rec[colDV], 64)
	if err != nil || !(dv >= 0 && dv <= 1) || math.IsNaN(dv) {
		return fmt.Errorf("%s: row %s has dv %q, not a number in [0, 1]", file, rec[colID], rec[colDV])
	}
	c.Add(dv)
	b.overall.Add(dv)
	return nil
}

func (b *reportBuilder) report(method, sampling string) *CoverageReport {
	r := &CoverageReport{Bins: b.bins, MinPerBin: b.minPer, VIFMethod: method, Sampling: sampling, Overall: b.overall.Coverage()}
	for _, n := range b.names {
		r.Corruptions = append(r.Corruptions, CorruptionCoverage{Corruption: n, Coverage: b.byName[n].Coverage()})
	}
	return r
}

// coverageSettings returns bins and minPerBin with 0 replaced by
// DefaultBins and DefaultMinPerBin.
func coverageSettings(bins, minPerBin int) (int, int) {
	if bins == 0 {
		bins = DefaultBins
	}
	if minPerBin == 0 {
		minPerBin = DefaultMinPerBin
	}
	return bins, minPerBin
}

// CoverageOfTestSet computes the Δv coverage of the finished test set in
// dir from its manifest and run.json, with bins equal bins and a bin
// covered with ≥ minPerBin rows (0: DefaultBins, DefaultMinPerBin), as
// Generate writes it to coverage.json.
func CoverageOfTestSet(dir string, bins, minPerBin int) (*CoverageReport, error) {
	if bins < 0 || minPerBin < 0 {
		return nil, fmt.Errorf("bins and rows per bin must be positive (got %d, %d)", bins, minPerBin)
	}
	ri, err := ReadRunInfo(dir)
	if err != nil {
		return nil, err
	}
	return coverageFromManifest(filepath.Join(dir, ManifestFile), ri.Corruptions, ri.VIFMethod, ri.Sampling, bins, minPerBin)
}

// coverageFromManifest streams the manifest at path into a report.
func coverageFromManifest(path string, names []string, method, sampling string, bins, minPerBin int) (*CoverageReport, error) {
	b := newReportBuilder(names, bins, minPerBin)
	err := readManifestRecords(path, func(_ []iqa.Method, rec []string) error { return b.addRecord(rec, path) })
	if err != nil {
		return nil, err
	}
	return b.report(method, sampling), nil
}

// writeJSON writes v as indented JSON to path, atomically.
func writeJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(v)
	})
}

// WriteTable prints the report as a table: one line per corruption with the
// number of rows, covered bins and coverage, then the overall line.
func (r *CoverageReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "corruption\trows\tcovered bins\tcoverage\n")
	line := func(name string, c Coverage) {
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%.1f%%\n", name, c.N, c.Covered, c.Bins, 100*c.Fraction)
	}
	for _, c := range r.Corruptions {
		line(c.Corruption, c.Coverage)
	}
	if len(r.Corruptions) > 1 {
		line("all", r.Overall)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(Δv in %d equal bins (--bins); a bin is covered with ≥ %d rows (--min-per-bin); Δv by %s)\n", r.Bins, r.MinPerBin, r.VIFMethod)
	return err
}

// WritePlots writes, into dir, a Δv histogram of every corruption as
// <corruption>.svg and <corruption>.png, with the per-bin minimum of the
// coverage definition drawn as a threshold line. Files appear atomically.
func (r *CoverageReport) WritePlots(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range r.Corruptions {
		title := fmt.Sprintf("%s: Δv coverage %.0f%% (%d of %d bins with ≥ %d images; %s, %s)",
			c.Corruption, 100*c.Fraction, c.Covered, c.Bins, c.MinPerBin, r.Sampling, r.VIFMethod)
		h := c.Histogram(title)
		base := filepath.Join(dir, c.Corruption)
		if err := atomicfile.Write(base+".svg", func(w io.Writer) error { return plot.HistogramSVG(w, h) }); err != nil {
			return err
		}
		if err := atomicfile.Write(base+".png", func(w io.Writer) error { return plot.HistogramPNG(w, h, 800, 400) }); err != nil {
			return err
		}
	}
	return nil
}

// ReadCoverageReport reads a run's coverage.json.
func ReadCoverageReport(path string) (*CoverageReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r CoverageReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Bins <= 0 || len(r.Corruptions) == 0 {
		return nil, fmt.Errorf("%s: not a vcr coverage report (no bins or corruptions)", path)
	}
	return &r, nil
}

// Named is a coverage report with the name it is shown under.
type Named struct {
	Name   string
	Report *CoverageReport
}

// CompareCoverage writes, for every corruption present in all reports, an
// overlay histogram of the runs side by side (<corruption>.svg and .png in
// dir) and prints a table with one coverage column per run. Reports whose
// Δv comes from different VIF methods are refused: their axes differ.
func CompareCoverage(w io.Writer, dir string, runs []Named) error {
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
			ok = ok && slices.ContainsFunc(r.Report.Corruptions, func(x CorruptionCoverage) bool { return x.Corruption == c.Corruption })
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
		covs := make([]Coverage, len(runs))
		fmt.Fprint(tw, n)
		for i, r := range runs {
			j := slices.IndexFunc(r.Report.Corruptions, func(x CorruptionCoverage) bool { return x.Corruption == n })
			covs[i] = r.Report.Corruptions[j].Coverage
			fmt.Fprintf(tw, "\t%.1f%% (%d rows)", 100*covs[i].Fraction, covs[i].N)
		}
		fmt.Fprintln(tw)
		h, err := OverlayHistogram(fmt.Sprintf("%s: Δv coverage (%s)", n, runs[0].Report.VIFMethod), labels, covs...)
		if err != nil {
			return err
		}
		base := filepath.Join(dir, n)
		if err := atomicfile.Write(base+".svg", func(w io.Writer) error { return plot.HistogramSVG(w, h) }); err != nil {
			return err
		}
		if err := atomicfile.Write(base+".png", func(w io.Writer) error { return plot.HistogramPNG(w, h, 900, 420) }); err != nil {
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(Δv in %d equal bins (--bins); a bin is covered with ≥ %d rows (--min-per-bin); Δv by %s)\n",
		runs[0].Report.Bins, runs[0].Report.MinPerBin, runs[0].Report.VIFMethod)
	return err
}
