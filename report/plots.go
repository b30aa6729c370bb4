package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/plot"
	"github.com/vcr-bench/vcr/robustness"
)

// properties are the two curves of an estimate, in file-name order.
var properties = []struct {
	name, short string
	curve       func(*robustness.Estimate) *robustness.Curve
	metrics     func(*robustness.Comparison) robustness.Metrics
}{
	{"accuracy", "a", func(e *robustness.Estimate) *robustness.Curve { return &e.Accuracy }, func(c *robustness.Comparison) robustness.Metrics { return c.Accuracy }},
	{"consistency", "p", func(e *robustness.Estimate) *robustness.Curve { return &e.Consistency }, func(c *robustness.Comparison) robustness.Metrics { return c.Consistency }},
}

// FileName returns name with every character other than letters, digits,
// '-', '_' and '.' replaced by '_', for use in file names.
func FileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, name)
}

// curveXLabel and curveYLabels are the axis labels of the curve charts,
// with their units.
var (
	curveXLabel  = "visual change Δv = max(0, 1 − VIF)"
	curveYLabels = map[string]string{"accuracy": "accuracy (fraction of images)", "consistency": "consistency (fraction of predictions kept)"}
)

// CurveChart returns the chart of one property's curves of ests (models and
// humans on one axis): fitted curves, 83% and 95% bands when bootstrapped,
// and the bins that entered each fit as points sized by their trial count.
// Each curve's parts outside its Covered range (no data) are drawn faded and
// dashed.
// property is "accuracy" or "consistency"; families (may be nil) maps
// model names to the families that share a colour.
func CurveChart(title, property string, ests []*robustness.Estimate, families map[string]string) plot.Chart {
	c := plot.Chart{Title: title, XLabel: "Δv = max(0, 1 − VIF)", YLabel: property}
	for _, e := range ests {
		var cv *robustness.Curve
		for _, p := range properties {
			if p.name == property {
				cv = p.curve(e)
			}
		}
		if cv == nil {
			panic("report: unknown property " + property)
		}
		name := e.Subject
		if e.Human {
			name = "humans"
		}
		covered := cv.Covered
		pc := plot.Curve{Name: name, X: cv.Grid, Y: cv.Value, Human: e.Human, Group: families[e.Subject],
			Lo83: cv.Lo83, Hi83: cv.Hi83, Lo95: cv.Lo95, Hi95: cv.Hi95, Covered: &covered}
		for i, x := range cv.Bins.X {
			if i < len(cv.Used) && cv.Used[i] && cv.Bins.N[i] > 0 {
				pc.Points = append(pc.Points, plot.Point{X: x, Y: float64(cv.Bins.K[i]) / float64(cv.Bins.N[i]), N: cv.Bins.N[i]})
			}
		}
		c.Curves = append(c.Curves, pc)
	}
	return c
}

// MetricChart returns the bar chart of one metric ("HMRI" or "MRSI") of
// one property for the comparisons given, sorted by value, coloured by
// family as CurveChart.
func MetricChart(title, metric, property string, comps []*robustness.Comparison, families map[string]string) plot.BarChart {
	b := plot.BarChart{Title: title, XLabel: metric + " (" + property + ")"}
	for _, c := range comps {
		var m robustness.Metrics
		for _, p := range properties {
			if p.name == property {
				m = p.metrics(c)
			}
		}
		iv := m.HMRI
		if metric == "MRSI" {
			iv = m.MRSI
		}
		if math.IsNaN(iv.Value) {
			continue
		}
		bar := plot.Bar{Name: c.Model, Value: iv.Value, Group: families[c.Model]}
		if !math.IsNaN(iv.Lo83) {
			bar.CI83 = &plot.Interval{Lo: iv.Lo83, Hi: iv.Hi83}
			bar.CI95 = &plot.Interval{Lo: iv.Lo95, Hi: iv.Hi95}
		}
		b.Bars = append(b.Bars, bar)
	}
	return b
}

// CoverageHistogram returns the models' Δv histograms on one corruption
// (the bins of their accuracy curves), with the minimum count per bin as
// threshold. It returns false when no model has per-trial bins.
func CoverageHistogram(title string, models []*robustness.Estimate, bins, minPerBin int) (plot.Histogram, bool) {
	h := plot.Histogram{Title: title, XLabel: "visual change Δv", YLabel: "images per bin", Threshold: minPerBin}
	h.Edges = make([]float64, bins+1)
	for k := range h.Edges {
		h.Edges[k] = float64(k) / float64(bins)
	}
	for _, e := range models {
		if len(e.Accuracy.Bins.N) != bins {
			continue
		}
		h.Series = append(h.Series, plot.Series{Name: e.Subject, Counts: e.Accuracy.Bins.N})
	}
	return h, len(h.Series) > 0
}

// WritePlots writes the charts of a into dir and returns the files written,
// each as SVG and as a PNG of the same size (plot.CurvesSize,
// plot.BarsSize, plot.SVGWidth × plot.SVGHeight):
// for each corruption C and property P (accuracy, consistency)
// curves_C_P.svg/.png (models and the humans they are compared with), with
// humans hmri_C_P.svg/.png and mrsi_C_P.svg/.png, and coverage_C.svg/.png
// (the models' Δv histograms); with humans also hmri_accuracy_all,
// mrsi_accuracy_all, hmri_consistency_all and mrsi_consistency_all: one
// grouped chart per measure, every corruption and model (GroupedFile).
func (a *Analysis) WritePlots(dir string) ([]string, error) {
	var files []string
	svgPNG := func(base string, svg func(io.Writer) error, png func(io.Writer) error) error {
		for _, f := range []struct {
			ext  string
			fill func(io.Writer) error
		}{{".svg", svg}, {".png", png}} {
			p := filepath.Join(dir, base+f.ext)
			if err := atomicfile.Write(p, f.fill); err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
			files = append(files, p)
		}
		return nil
	}
	for _, corr := range a.Corruptions() {
		var models []*robustness.Estimate
		var comps []*robustness.Comparison
		humanCorr := ""
		for i, e := range a.Models {
			if e.Corruption != corr {
				continue
			}
			models = append(models, e)
			if i < len(a.Comparisons) && a.Comparisons[i] != nil {
				comps = append(comps, a.Comparisons[i])
				humanCorr = a.Comparisons[i].HumanCorruption
			}
		}
		if humanCorr == "" && len(models) == 0 {
			humanCorr = corr // a human-only corruption
		}
		ests := models
		for _, h := range a.Humans {
			if h.Corruption == humanCorr {
				ests = append(ests, h)
			}
		}
		if len(ests) == 0 {
			continue
		}
		fc := FileName(corr)
		for _, p := range properties {
			title := fmt.Sprintf("%s: %s", corr, p.name)
			if humanCorr != "" && humanCorr != corr {
				title += fmt.Sprintf(" (humans: %s)", humanCorr)
			}
			ch := CurveChart(title, p.name, ests, a.Families)
			ch.XLabel, ch.YLabel = curveXLabel, curveYLabels[p.name]
			if err := svgPNG("curves_"+fc+"_"+p.name,
				func(w io.Writer) error { return plot.CurvesSVG(w, ch) },
				func(w io.Writer) error { wd, ht := plot.CurvesSize(ch); return plot.CurvesPNG(w, ch, wd, ht) }); err != nil {
				return files, err
			}
			if len(comps) == 0 {
				continue
			}
			for _, metric := range []string{"HMRI", "MRSI"} {
				bc := MetricChart(fmt.Sprintf("%s: %s (%s)", corr, metric, p.name), metric, p.name, comps, a.Families)
				if len(bc.Bars) == 0 {
					continue
				}
				wd, ht := plot.BarsSize(bc)
				ht = max(plot.MinPNGHeight, ht)
				if err := svgPNG(strings.ToLower(metric)+"_"+fc+"_"+p.name,
					func(w io.Writer) error { return plot.BarsSVG(w, bc) },
					func(w io.Writer) error { return plot.BarsPNG(w, bc, wd, ht) }); err != nil {
					return files, err
				}
			}
		}
		if h, ok := CoverageHistogram(corr+": Δv coverage ("+a.VIFMethod+")", models, a.Bins, a.MinPerBin); ok {
			if err := svgPNG("coverage_"+fc,
				func(w io.Writer) error { return plot.HistogramSVG(w, h) },
				func(w io.Writer) error { return plot.HistogramPNG(w, h, plot.SVGWidth, plot.SVGHeight) }); err != nil {
				return files, err
			}
		}
	}
	// One grouped chart per HMRI/MRSI measure: every corruption and model.
	sum := a.Summary()
	var models, corrs []string
	rows := map[[2]string]*ModelSummary{}
	for i := range sum.Models {
		m := &sum.Models[i]
		if !slices.Contains(models, m.Model) {
			models = append(models, m.Model)
		}
		if !slices.Contains(corrs, m.Corruption) {
			corrs = append(corrs, m.Corruption)
		}
		rows[[2]string{m.Model, m.Corruption}] = m
	}
	slices.Sort(corrs)
	for _, m := range metrics {
		if !m.human {
			continue
		}
		ch, ok := groupedChart(m, models, corrs, func(model, c string) *ModelSummary { return rows[[2]string{model, c}] }, a.Families)
		if !ok {
			continue
		}
		if err := svgPNG(GroupedFile(m.id),
			func(w io.Writer) error { return plot.GroupedSVG(w, ch) },
			func(w io.Writer) error { wd, ht := plot.GroupedSize(ch); return plot.GroupedPNG(w, ch, wd, ht) }); err != nil {
			return files, err
		}
	}
	return files, nil
}

// GroupedFile returns the base name of the grouped chart WritePlots draws
// of a measure ("hmri-a", "mrsi-a", "hmri-p", "mrsi-p"): e.g.
// hmri_accuracy_all for HMRI of accuracy over all corruptions.
func GroupedFile(measure string) string {
	name, prop, _ := strings.Cut(measure, "-")
	if prop == "a" {
		return name + "_accuracy_all"
	}
	return name + "_consistency_all"
}
