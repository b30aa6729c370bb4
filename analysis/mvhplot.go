package analysis

import (
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/plot"
)

// MVHPlotPNGWidth and MVHPlotPNGHeight are the size of the PNG figure
// ModelVsHuman writes for a --plot name ending in .png.
const MVHPlotPNGWidth, MVHPlotPNGHeight = 1200, 560

// MVHCharts returns the two panels of model-vs-human's figures for one
// dataset (Geirhos et al., NeurIPS 2021, Figs. 2–3): 16-class accuracy and
// error consistency (kappa) against the condition, in res.Conditions'
// order. The humans are one series: the mean over subjects as the line,
// the subjects' range as the band and each subject as a point (a
// subject's kappa being its mean kappa with the other subjects); each
// model is one line (its kappa the mean over the subjects), NaN where it
// has no value. The accuracy panel marks chance (1/16), the kappa panel
// kappa 0; kappa's range is [−0.2, 1] as in model-vs-human, widened
// downwards to fit lower values. dataset names the panels.
func MVHCharts(res *MVHResult, dataset string) []plot.ConditionChart {
	conds := make([]string, len(res.Conditions))
	var models []string
	for i, c := range res.Conditions {
		conds[i] = c.Condition
		for _, m := range c.Models {
			if !slices.Contains(models, m.Name) {
				models = append(models, m.Name)
			}
		}
	}
	nan := func() []float64 {
		v := make([]float64, len(conds))
		for i := range v {
			v[i] = math.NaN()
		}
		return v
	}
	hasHumans := false
	for _, c := range res.Conditions {
		hasHumans = hasHumans || len(c.Subjects) > 0
	}
	panel := func(kappa bool) plot.ConditionChart {
		var series []plot.ConditionSeries
		lowest := -0.2
		see := func(v float64) {
			if !math.IsNaN(v) {
				lowest = min(lowest, math.Floor(v*10)/10)
			}
		}
		if hasHumans {
			h := plot.ConditionSeries{Name: "humans", Human: true, Y: nan(), Lo: nan(), Hi: nan(), Points: make([][]float64, len(conds))}
			for i, c := range res.Conditions {
				switch {
				case len(c.Subjects) == 0:
				case !kappa:
					h.Y[i], h.Lo[i], h.Hi[i] = c.HumanAccuracy, c.HumanAccuracyMin, c.HumanAccuracyMax
				case c.HumanKappaPairs > 0:
					h.Y[i], h.Lo[i], h.Hi[i] = c.HumanKappa, c.HumanKappaMin, c.HumanKappaMax
				}
				for _, s := range c.Subjects {
					switch {
					case !kappa:
						h.Points[i] = append(h.Points[i], s.Accuracy)
					case s.Pairs > 0:
						h.Points[i] = append(h.Points[i], s.Kappa)
						see(s.Kappa)
					}
				}
			}
			series = append(series, h)
		}
		for _, name := range models {
			m := plot.ConditionSeries{Name: name, Y: nan()}
			for i, c := range res.Conditions {
				for _, v := range c.Models {
					switch {
					case v.Name != name:
					case !kappa:
						m.Y[i] = v.Accuracy
					case v.Pairs > 0:
						m.Y[i] = v.Kappa
						see(v.Kappa)
					}
				}
			}
			series = append(series, m)
		}
		ch := plot.ConditionChart{XLabel: "condition", Conditions: conds, Series: series}
		if kappa {
			zero := 0.0
			ch.Title, ch.YLabel, ch.Reference, ch.ReferenceLabel = dataset+": error consistency", "error consistency (kappa)", &zero, "independent"
			ch.YMin, ch.YMax = lowest, 1
		} else {
			chance := 1.0 / 16
			ch.Title, ch.YLabel, ch.Reference, ch.ReferenceLabel = dataset+": accuracy", "16-class accuracy", &chance, "chance"
		}
		return ch
	}
	return []plot.ConditionChart{panel(false), panel(true)}
}

// mvhDatasetName names the dataset of a --human spec in plot titles:
// builtin:mvh-contrast → contrast; a folder or file → its base name
// without extension.
func mvhDatasetName(spec string) string {
	name, builtin := strings.CutPrefix(spec, "builtin:")
	if builtin || (strings.HasPrefix(spec, human.MVHPrefix) && !strings.ContainsAny(spec, `/\.`)) {
		return strings.TrimPrefix(name, human.MVHPrefix)
	}
	b := filepath.Base(filepath.Clean(spec))
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// writeMVHPlot writes the two panels of MVHCharts as SVG, or as PNG when
// the file name ends in .png.
func writeMVHPlot(w io.Writer, path string, charts []plot.ConditionChart) error {
	if strings.EqualFold(filepath.Ext(path), ".png") {
		return plot.ConditionPanelsPNG(w, MVHPlotPNGWidth, MVHPlotPNGHeight, charts...)
	}
	return plot.ConditionPanelsSVG(w, charts...)
}
