package contrast

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/plot"
)

// FileName is the name of the JSON file WriteDir writes (and 'vcr report'
// looks for).
const FileName = "contrast.json"

// Version is the version of the contrast.json layout.
const Version = 1

// File is the content of contrast.json: the inputs and the Result.
type File struct {
	Version int `json:"version"`
	// Labels is the labels file; LabelsEstimated is true when its colours
	// were estimated (Estimate), not judged.
	Labels          string `json:"labels"`
	LabelsEstimated bool   `json:"labels_estimated"`
	// GroupTable is "built-in" or the user table's file.
	GroupTable string   `json:"group_table"`
	Results    []string `json:"results"`
	*Result
}

func cellf(v *float64) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf("%.6g", *v)
}

func ciCells(c *[2]float64) []string {
	if c == nil {
		return []string{"", ""}
	}
	return []string{fmt.Sprintf("%.6g", c[0]), fmt.Sprintf("%.6g", c[1])}
}

// WriteGroupsCSV writes every group accuracy: one row per model, scope
// (clean or corrupted), corruption (empty: all pooled), level (empty: all
// levels) and group.
func (f *File) WriteGroupsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "scope", "corruption", "level", "group", "index", "images", "rows", "correct", "accuracy"})
	put := func(model, scope, corr, level string, m *Measure) {
		for _, g := range m.Groups {
			cw.Write([]string{model, scope, corr, level, g.Group, fmt.Sprint(g.Index), fmt.Sprint(g.Images), fmt.Sprint(g.Rows), fmt.Sprint(g.Correct), cellf(g.Accuracy)})
		}
	}
	f.each(func(model, scope, corr, level string, m *Measure, _ *float64) { put(model, scope, corr, level, m) })
	cw.Flush()
	return cw.Error()
}

// each calls fn for every Measure of f: clean, then per scope the
// corrupted measure (with the scope's severity std) and its levels.
func (f *File) each(fn func(model, scope, corr, level string, m *Measure, sevStd *float64)) {
	for i := range f.Models {
		mr := &f.Models[i]
		fn(mr.Model, "clean", "", "", &mr.Clean, nil)
		for _, s := range append([]Scope{mr.Pooled}, mr.Corruptions...) {
			fn(mr.Model, "corrupted", s.Corruption, "", &s.Corrupted, s.SeverityStd)
			for k := range s.Levels {
				fn(mr.Model, "corrupted", s.Corruption, s.Levels[k].Level, &s.Levels[k].Measure, nil)
			}
		}
	}
}

// WriteMeasuresCSV writes one row per measure: accuracy, slope with its
// interval, intercept, weighted standard deviation across groups, and for
// corrupted scopes over all levels the weighted standard deviation across
// levels (severity_std).
func (f *File) WriteMeasuresCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "scope", "corruption", "level", "accuracy", "slope", "slope_lo95", "slope_hi95", "intercept", "weighted_std", "severity_std"})
	f.each(func(model, scope, corr, level string, m *Measure, sev *float64) {
		rec := []string{model, scope, corr, level, cellf(m.Accuracy), cellf(m.Slope)}
		rec = append(rec, ciCells(m.SlopeCI)...)
		rec = append(rec, cellf(m.Intercept), cellf(m.WeightedStd), cellf(sev))
		cw.Write(rec)
	})
	cw.Flush()
	return cw.Error()
}

// WriteComparisonsCSV writes the comparisons: per pair of models and
// measure (a group's accuracy, slope, weighted_std) the change clean and
// corrupted.
func (f *File) WriteComparisonsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"base", "model", "measure", "clean_delta", "corrupted_delta"})
	for _, c := range f.Comparisons {
		for i, g := range AllGroups {
			cw.Write([]string{c.Base, c.Model, "accuracy_" + g, cellf(c.Clean[i]), cellf(c.Corrupted[i])})
		}
		cw.Write([]string{c.Base, c.Model, "slope", cellf(c.SlopeDelta[0]), cellf(c.SlopeDelta[1])})
		cw.Write([]string{c.Base, c.Model, "weighted_std", cellf(c.StdDelta[0]), cellf(c.StdDelta[1])})
	}
	cw.Flush()
	return cw.Error()
}

func tcell(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *v)
}

// WriteTable prints a terminal table per model: group accuracies clean and
// corrupted (all corruptions pooled), slope (with its interval) and
// weighted standard deviation, and the sensitivity to severity.
func (f *File) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if f.LabelsEstimated {
		fmt.Fprintln(tw, "colour labels are ESTIMATED (vcr contrast --estimate-colors), not judged\t")
	}
	for _, m := range f.Models {
		fmt.Fprintf(tw, "%s (%d images, %d corrupted rows)\tclean\tcorrupted\t\n", m.Model, m.Images, m.Rows)
		for i, g := range AllGroups {
			fmt.Fprintf(tw, "%s (n=%d)\t%s\t%s\t\n", g, m.Clean.Groups[i].Images, tcell(m.Clean.Groups[i].Accuracy), tcell(m.Pooled.Corrupted.Groups[i].Accuracy))
		}
		ci := func(c *[2]float64) string {
			if c == nil {
				return ""
			}
			return fmt.Sprintf(" [%.3f, %.3f]", c[0], c[1])
		}
		fmt.Fprintf(tw, "slope\t%s%s\t%s%s\t\n", tcell(m.Clean.Slope), ci(m.Clean.SlopeCI), tcell(m.Pooled.Corrupted.Slope), ci(m.Pooled.Corrupted.SlopeCI))
		fmt.Fprintf(tw, "weighted std (contrast)\t%s\t%s\t\n", tcell(m.Clean.WeightedStd), tcell(m.Pooled.Corrupted.WeightedStd))
		fmt.Fprintf(tw, "weighted std (%s)\t\t%s\t\n", f.LevelKind, tcell(m.Pooled.SeverityStd))
		fmt.Fprintln(tw, "\t\t\t")
	}
	for _, c := range f.Comparisons {
		fmt.Fprintf(tw, "%s − %s\tclean\tcorrupted\t\n", c.Model, c.Base)
		fmt.Fprintf(tw, "Δ slope\t%s\t%s\t\n", tcell(c.SlopeDelta[0]), tcell(c.SlopeDelta[1]))
		fmt.Fprintf(tw, "Δ weighted std\t%s\t%s\t\n", tcell(c.StdDelta[0]), tcell(c.StdDelta[1]))
		fmt.Fprintln(tw, "\t\t\t")
	}
	return tw.Flush()
}

// fileName returns name with every character other than ASCII letters,
// digits, '-', '_' and '.' replaced by '_'.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, name)
}

// GroupChart returns the per-group accuracy chart of scope "clean" or
// "corrupted" (all corruptions pooled): per model, its group accuracies as
// points (area ∝ rows) and its regression line over the ordered groups,
// drawn between the first and the last group with images and broken at
// an empty group between them.
// ok is false when no model has a slope.
func (f *File) GroupChart(scope string) (c plot.Chart, ok bool) {
	est := ""
	if f.LabelsEstimated {
		est = ", estimated colours"
	}
	c = plot.Chart{
		Title:  fmt.Sprintf("Accuracy by contrast group (%s%s)", scope, est),
		XLabel: "contrast group: 0 low, 1 low-mid, 2 high-mid, 3 high",
		YLabel: "accuracy", XMin: -0.25, XMax: 3.25, YMin: 0, YMax: 1,
	}
	for _, m := range f.Models {
		ms := m.Clean
		if scope != "clean" {
			ms = m.Pooled.Corrupted
		}
		if ms.Slope == nil {
			continue
		}
		cv := plot.Curve{Name: fmt.Sprintf("%s (slope %.3f)", m.Model, *ms.Slope)}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, g := range ms.Groups[:len(Groups)] {
			if g.Accuracy != nil {
				cv.Points = append(cv.Points, plot.Point{X: float64(g.Index), Y: *g.Accuracy, N: g.Rows})
				lo, hi = min(lo, float64(g.Index)), max(hi, float64(g.Index))
			}
		}
		// The regression line spans the groups with images only: not
		// empty groups at either end, and it breaks at an empty group
		// between them (a lone group between empty ones has its point
		// only).
		if !(hi > lo) {
			continue
		}
		for x := lo; x <= hi; x++ {
			cv.X = append(cv.X, x)
			cv.Y = append(cv.Y, *ms.Intercept+x**ms.Slope)
			if ms.Groups[int(x)].Accuracy == nil {
				cv.Gaps = append(cv.Gaps, [2]float64{x - 1, x + 1})
			}
		}
		c.Curves = append(c.Curves, cv)
	}
	return c, len(c.Curves) > 0
}

// SensitivityChart returns the scatter of sensitivity to contrast
// (weighted std across groups, corrupted) against sensitivity to severity
// (weighted std across levels): per model a large point for all corruptions
// pooled and a small one per corruption. ok is false without points.
func (f *File) SensitivityChart() (c plot.ScatterChart, ok bool) {
	c = plot.ScatterChart{
		Title:  "Sensitivity to contrast vs to " + f.LevelKind,
		XLabel: "weighted std of group accuracies (contrast)",
		YLabel: "weighted std of " + f.LevelKind + " accuracies",
	}
	for _, m := range f.Models {
		for i, s := range append([]Scope{m.Pooled}, m.Corruptions...) {
			if s.Corrupted.WeightedStd == nil || s.SeverityStd == nil {
				continue
			}
			label := s.Corruption
			if i == 0 {
				label = "all"
			}
			c.Points = append(c.Points, plot.ScatterPoint{X: *s.Corrupted.WeightedStd, Y: *s.SeverityStd, Label: label, Series: m.Model, Large: i == 0})
		}
	}
	return c, len(c.Points) > 0
}

// HeatMap returns model m's contrast × level grid (all corruptions
// pooled), with the clean accuracies as the first column.
func (f *File) HeatMap(m *ModelResult) plot.HeatMap {
	h := plot.HeatMap{
		Title:  fmt.Sprintf("%s: accuracy by contrast group and %s", m.Model, f.LevelKind),
		XLabel: f.LevelKind, YLabel: "contrast group",
		Cols: append([]string{"clean"}, f.Levels...),
	}
	acc := func(v *float64) float64 {
		if v == nil {
			return math.NaN()
		}
		return *v
	}
	order := []int{3, 2, 1, 0, 4} // high … low, then others
	for _, gi := range order {
		h.Rows = append(h.Rows, AllGroups[gi])
		row := []float64{acc(m.Clean.Groups[gi].Accuracy)}
		for _, l := range m.Pooled.Levels {
			row = append(row, acc(l.Groups[gi].Accuracy))
		}
		h.Values = append(h.Values, row)
	}
	return h
}

// WriteDir writes into dir: contrast.json, groups.csv, measures.csv,
// comparisons.csv (two or more models), and the plots as SVG and as PNG of
// the same size:
// groups_clean, groups_corrupted, sensitivity and heatmap_MODEL. It returns
// the files written.
func (f *File) WriteDir(dir string) ([]string, error) {
	var files []string
	write := func(name string, fill func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		if err := atomicfile.Write(p, fill); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		files = append(files, p)
		return nil
	}
	steps := []struct {
		name string
		fill func(io.Writer) error
	}{
		{FileName, func(w io.Writer) error {
			e := json.NewEncoder(w)
			e.SetIndent("", "  ")
			return e.Encode(f)
		}},
		{"groups.csv", f.WriteGroupsCSV},
		{"measures.csv", f.WriteMeasuresCSV},
	}
	if len(f.Comparisons) > 0 {
		steps = append(steps, struct {
			name string
			fill func(io.Writer) error
		}{"comparisons.csv", f.WriteComparisonsCSV})
	}
	for _, s := range steps {
		if err := write(s.name, s.fill); err != nil {
			return files, err
		}
	}
	both := func(base string, svg, png func(io.Writer) error) error {
		if err := write(base+".svg", svg); err != nil {
			return err
		}
		return write(base+".png", png)
	}
	for _, scope := range []string{"clean", "corrupted"} {
		if c, ok := f.GroupChart(scope); ok {
			if err := both("groups_"+scope, func(w io.Writer) error { return plot.CurvesSVG(w, c) },
				func(w io.Writer) error { wd, ht := plot.CurvesSize(c); return plot.CurvesPNG(w, c, wd, ht) }); err != nil {
				return files, err
			}
		}
	}
	if c, ok := f.SensitivityChart(); ok {
		if err := both("sensitivity", func(w io.Writer) error { return plot.ScatterSVG(w, c) },
			func(w io.Writer) error { wd, ht := plot.ScatterSize(c); return plot.ScatterPNG(w, c, wd, ht) }); err != nil {
			return files, err
		}
	}
	for i := range f.Models {
		h := f.HeatMap(&f.Models[i])
		if err := both("heatmap_"+fileName(f.Models[i].Model), func(w io.Writer) error { return plot.HeatMapSVG(w, h) },
			func(w io.Writer) error { wd, ht := plot.HeatMapSize(h); return plot.HeatMapPNG(w, h, wd, ht) }); err != nil {
			return files, err
		}
	}
	return files, nil
}
