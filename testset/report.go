package testset

import (
	"os"
	"path/filepath"

	"encoding/json"
	"fmt"
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
