package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/plot"
)

// The files of 'vcr analyze' the report redraws its charts from, so that
// one chart holds every model of every analysis folder it was given.
const (
	CurvesFile = "curves.csv"
	BinsFile   = "bins.csv"
)

// curveKey names one fitted curve of an analysis.
type curveKey struct {
	subject    string
	human      bool
	corruption string
	property   string
}

// curveData is one curve of curves.csv with the bins of bins.csv that
// entered its fit.
type curveData struct {
	grid, value            []float64
	lo83, hi83, lo95, hi95 []float64
	covered                [2]float64 // NaN when no grid point is covered
	points                 []plot.Point
	binN                   []int // images per bin (all bins)
}

// readCurves reads dir's curves.csv and bins.csv; it returns nil without
// error when curves.csv is absent (an analysis before these files, whose
// SVG plots the report then shows as they are).
func readCurves(dir string) (map[curveKey]*curveData, error) {
	p := filepath.Join(dir, CurvesFile)
	if !exists(p) {
		return nil, nil
	}
	out := map[curveKey]*curveData{}
	err := readCSV(p, CurveColumns, func(r map[string]string, line int) error {
		k := curveKey{r["subject"], r["human"] == "true", r["corruption"], r["property"]}
		c := out[k]
		if c == nil {
			c = &curveData{covered: [2]float64{math.NaN(), math.NaN()}}
			out[k] = c
		}
		x, err := strconv.ParseFloat(r["dv"], 64)
		if err != nil {
			return fmt.Errorf("line %d: dv %q: %w", line, r["dv"], err)
		}
		y, err := strconv.ParseFloat(r["value"], 64)
		if err != nil {
			return fmt.Errorf("line %d: value %q: %w", line, r["value"], err)
		}
		c.grid, c.value = append(c.grid, x), append(c.value, y)
		for _, b := range []struct {
			col string
			dst *[]float64
		}{{"lo83", &c.lo83}, {"hi83", &c.hi83}, {"lo95", &c.lo95}, {"hi95", &c.hi95}} {
			if v, err := strconv.ParseFloat(r[b.col], 64); err == nil {
				*b.dst = append(*b.dst, v)
			}
		}
		if r["covered"] == "1" {
			if math.IsNaN(c.covered[0]) {
				c.covered[0] = x
			}
			c.covered[1] = x
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		for _, b := range []*[]float64{&c.lo83, &c.hi83, &c.lo95, &c.hi95} {
			if len(*b) != len(c.grid) {
				*b = nil // no bootstrap, or a partial band: no band
			}
		}
	}
	bp := filepath.Join(dir, BinsFile)
	if !exists(bp) {
		return out, nil
	}
	err = readCSV(bp, BinColumns, func(r map[string]string, line int) error {
		c := out[curveKey{r["subject"], r["human"] == "true", r["corruption"], r["property"]}]
		if c == nil {
			return nil
		}
		x, err1 := strconv.ParseFloat(r["dv"], 64)
		n, err2 := strconv.Atoi(r["n"])
		k, err3 := strconv.Atoi(r["k"])
		if err := errors.Join(err1, err2, err3); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		c.binN = append(c.binN, n)
		if r["used"] == "1" && n > 0 {
			c.points = append(c.points, plot.Point{X: x, Y: float64(k) / float64(n), N: n})
		}
		return nil
	})
	return out, err
}

// readCSV calls row for each row of the CSV file p, whose header must hold
// the columns want.
func readCSV(p string, want []string, row func(r map[string]string, line int) error) error {
	fh, err := os.Open(p)
	if err != nil {
		return err
	}
	defer fh.Close()
	cr := csv.NewReader(fh)
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	for _, w := range want {
		if !slices.Contains(head, w) {
			return fmt.Errorf("%s: no column %q; rerun vcr analyze to rewrite it", p, w)
		}
	}
	r := map[string]string{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for i, h := range head {
			if i < len(rec) {
				r[h] = rec[i]
			}
		}
		if err := row(r, line); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
}

// modelRow is one model on one corruption, from the first analysis that
// has it.
type modelRow struct {
	ModelSummary
	a *foundAnalysis
}

// board is every model of every analysis, for the leaderboard, the
// grouped charts and the per-model sections.
type board struct {
	models      []string // in order of first appearance
	corruptions []string // sorted
	rows        map[[2]string]*modelRow
	// humans maps a human corruption to its summary and analysis.
	humans   map[string]*modelRow
	families map[string]string
	// mce maps models to their mCE (ImageNet-C), when present.
	mce map[string]*float64
	// withHuman is true when some model has HMRI/MRSI.
	withHuman bool
	// curves is true when every analysis has curves.csv.
	curves bool
}

func (f *found) board() *board {
	b := &board{rows: map[[2]string]*modelRow{}, humans: map[string]*modelRow{}, families: map[string]string{}, mce: map[string]*float64{}, curves: len(f.analyses) > 0}
	for _, a := range f.analyses {
		if a.curves == nil {
			b.curves = false
		}
		for _, m := range a.summary.Models {
			k := [2]string{m.Model, m.Corruption}
			if b.rows[k] != nil {
				continue
			}
			b.rows[k] = &modelRow{m, a}
			if !slices.Contains(b.models, m.Model) {
				b.models = append(b.models, m.Model)
			}
			if !slices.Contains(b.corruptions, m.Corruption) {
				b.corruptions = append(b.corruptions, m.Corruption)
			}
			b.withHuman = b.withHuman || m.HMRIa != nil || m.HMRIp != nil
		}
		for _, h := range a.summary.Humans {
			if b.humans[h.Corruption] == nil {
				b.humans[h.Corruption] = &modelRow{ModelSummary{Model: "humans", SubjectSummary: h}, a}
			}
		}
		for m, fam := range a.summary.Families {
			if _, ok := b.families[m]; !ok {
				b.families[m] = fam
			}
		}
		if r := a.summary.ImageNetC; r != nil {
			for _, m := range r.Models {
				if _, ok := b.mce[m.Model]; !ok {
					b.mce[m.Model] = m.MCE
				}
			}
		}
	}
	slices.Sort(b.corruptions)
	return b
}

// metric is a number of a model on a corruption in the leaderboard.
type metric struct {
	id, head, words string
	short           string // the leaderboard's column header
	get             func(*ModelSummary) *float64
	ci95            func(*ModelSummary) *[2]float64
	human           bool // a comparison with humans
}

func ptrOf(v float64) *float64 { return &v }

var metrics = []metric{
	{"ra", "R̂a", "R̂a, the area under the accuracy curve over Δv ∈ [0, 1]", "R̂a", func(r *ModelSummary) *float64 { return ptrOf(r.Ra) }, func(r *ModelSummary) *[2]float64 { return r.RaCI95 }, false},
	{"rp", "R̂p", "R̂p, the area under the prediction-consistency curve", "R̂p", func(r *ModelSummary) *float64 { return ptrOf(r.Rp) }, func(r *ModelSummary) *[2]float64 { return r.RpCI95 }, false},
	{"hmri-a", "HMRI (accuracy)", "HMRI of accuracy: the share of the humans' accuracy area the model reaches (1 = at least human everywhere)", "HMRI acc.", func(r *ModelSummary) *float64 { return r.HMRIa }, func(r *ModelSummary) *[2]float64 { return r.HMRIaCI95 }, true},
	{"mrsi-a", "MRSI (accuracy)", "MRSI of accuracy: the share of the model's accuracy area above the humans' (0 = never better than humans)", "MRSI acc.", func(r *ModelSummary) *float64 { return r.MRSIa }, func(r *ModelSummary) *[2]float64 { return r.MRSIaCI95 }, true},
	{"hmri-p", "HMRI (consistency)", "HMRI of prediction consistency: the share of the humans' consistency area the model reaches", "HMRI cons.", func(r *ModelSummary) *float64 { return r.HMRIp }, func(r *ModelSummary) *[2]float64 { return r.HMRIpCI95 }, true},
	{"mrsi-p", "MRSI (consistency)", "MRSI of prediction consistency: the share of the model's consistency area above the humans'", "MRSI cons.", func(r *ModelSummary) *float64 { return r.MRSIp }, func(r *ModelSummary) *[2]float64 { return r.MRSIpCI95 }, true},
}

// mean returns the mean of m over the model's corruptions and how many
// entered it.
func (b *board) mean(model string, m metric) (*float64, int) {
	s, n := 0.0, 0
	for _, c := range b.corruptions {
		if r := b.rows[[2]string{model, c}]; r != nil {
			if v := m.get(&r.ModelSummary); v != nil && !math.IsNaN(*v) {
				s += *v
				n++
			}
		}
	}
	if n == 0 {
		return nil, 0
	}
	return ptrOf(s / float64(n)), n
}

// numCell is a sortable number cell: data-v holds the value ("" for
// none), the text three decimals.
func numCell(v *float64) string {
	if v == nil || math.IsNaN(*v) {
		return `<td class="num" data-v="">—</td>`
	}
	return fmt.Sprintf(`<td class="num" data-v="%g">%.3f</td>`, *v, *v)
}

// sortScript sorts a table.sortable by the column whose header is clicked
// (or activated with Enter), by data-v numbers or else text, cells
// without a value last; clicking again reverses. It is written without
// '<' and '&' so that the page stays well-formed XML.
const sortScript = `(function(){
function key(td){var v=td.getAttribute("data-v");if(v===null){return td.textContent.trim().toLowerCase();}return v===""?NaN:parseFloat(v);}
function cmp(a,b){var na=typeof a==="number"?isNaN(a):a==="",nb=typeof b==="number"?isNaN(b):b==="";if(na){return nb?0:1;}if(nb){return -1;}if(typeof a==="number"){return a-b;}return a.localeCompare(b);}
Array.prototype.forEach.call(document.querySelectorAll("table.sortable"),function(t){
var hs=t.tHead.rows[0].cells;
Array.prototype.forEach.call(hs,function(th,i){
th.tabIndex=0;th.classList.add("sort");
function go(){var dir=th.getAttribute("aria-sort")==="descending"?1:-1;
Array.prototype.forEach.call(hs,function(h){h.removeAttribute("aria-sort");});
th.setAttribute("aria-sort",dir===1?"ascending":"descending");
var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);
rows.sort(function(x,y){var a=key(x.cells[i]),b=key(y.cells[i]),na=typeof a==="number"?isNaN(a):a==="",nb=typeof b==="number"?isNaN(b):b==="";if(na||nb){return cmp(a,b);}return dir*cmp(a,b);});
rows.forEach(function(r){body.appendChild(r);});}
th.addEventListener("click",go);
th.addEventListener("keydown",function(e){if(e.key==="Enter"){go();}});
});});})();`

// renderLeaderboard writes one row per model: its mean R̂a, R̂p, HMRI and
// MRSI over its corruptions and its mCE, sortable in the page; then the
// same numbers per corruption (models × corruptions), one table per
// measure.
func (b *board) renderLeaderboard(p *page) bool {
	if len(b.models) == 0 {
		return false
	}
	p.section("leaderboard", sectionTitles["leaderboard"])
	ms := b.metricsPresent()
	withMCE := false
	for _, m := range b.models {
		if b.mce[m] != nil {
			withMCE = true
		}
	}
	// Default order: by mean R̂a, best first.
	order := slices.Clone(b.models)
	slices.SortStableFunc(order, func(x, y string) int {
		vx, _ := b.mean(x, metrics[0])
		vy, _ := b.mean(y, metrics[0])
		switch {
		case vx == nil || vy == nil:
			return 0
		case *vx > *vy:
			return -1
		case *vx < *vy:
			return 1
		}
		return 0
	})
	p.f("<p>%s on %s. Each number is the mean over the model's corruptions (the count says how many); higher is more robust for R̂a, R̂p and HMRI (acc.: of accuracy, cons.: of prediction consistency), lower for mCE. Click a column's header to sort by it (again to reverse); the rows start sorted by mean R̂a.</p>\n", plural(len(b.models), "model"), plural(len(b.corruptions), "corruption"))
	p.s(`<div class="scroll"><table class="sortable leaderboard"><thead><tr><th>model</th><th>family</th><th>corruptions</th>`)
	for _, m := range ms {
		p.f("<th title=\"mean %s\">%s</th>", esc(m.words), esc(m.short))
	}
	if withMCE {
		p.s("<th>mCE</th>")
	}
	p.s("</tr></thead><tbody>\n")
	for _, model := range order {
		n := 0
		for _, c := range b.corruptions {
			if b.rows[[2]string{model, c}] != nil {
				n++
			}
		}
		p.f(`<tr><td><a href="#model-%s">%s</a></td><td>%s</td><td class="num" data-v="%d">%d</td>`, esc(FileName(model)), esc(model), esc(orDash(b.families[model])), n, n)
		for _, m := range ms {
			v, _ := b.mean(model, m)
			p.s(numCell(v))
		}
		if withMCE {
			v := b.mce[model]
			if v == nil {
				p.s(`<td class="num" data-v="">—</td>`)
			} else {
				p.f(`<td class="num" data-v="%g">%.1f</td>`, *v, *v)
			}
		}
		p.s("</tr>\n")
	}
	p.s("</tbody></table></div>\n")
	// Models × corruptions, one table per measure.
	for i, m := range ms {
		open := ""
		if i == 0 {
			open = ` open=""`
		}
		p.f("<details%s><summary>%s per corruption</summary>\n<p class=\"note\">%s; the last column is the mean.</p>\n", open, esc(m.head), esc(m.words))
		p.s(`<div class="scroll"><table class="sortable matrix"><thead><tr><th>model</th>`)
		for _, c := range b.corruptions {
			p.f("<th>%s</th>", esc(c))
		}
		p.s("<th>mean</th></tr></thead><tbody>\n")
		for _, model := range order {
			p.f("<tr><td>%s</td>", esc(model))
			for _, c := range b.corruptions {
				var v *float64
				if r := b.rows[[2]string{model, c}]; r != nil {
					v = m.get(&r.ModelSummary)
				}
				p.s(numCell(v))
			}
			v, _ := b.mean(model, m)
			p.s(numCell(v))
			p.s("</tr>\n")
		}
		p.s("</tbody>")
		if !m.human && len(b.humans) > 0 {
			// The humans' own R̂a/R̂p for reference, under the models.
			p.s("<tfoot><tr><td>humans</td>")
			for _, c := range b.corruptions {
				var v *float64
				if h := b.humans[b.humanCorruption(c)]; h != nil {
					v = m.get(&h.ModelSummary)
				}
				p.s(numCell(v))
			}
			p.s("<td></td></tr></tfoot>")
		}
		p.s("</table></div>\n</details>\n")
	}
	p.end()
	return true
}

// metricsPresent returns the measures some model has.
func (b *board) metricsPresent() []metric {
	var ms []metric
	for _, m := range metrics {
		if !m.human || b.withHuman {
			ms = append(ms, m)
		}
	}
	return ms
}

// humanCorruption returns the human corruption the models of c were
// compared with (c itself when none).
func (b *board) humanCorruption(c string) string {
	for _, m := range b.models {
		if r := b.rows[[2]string{m, c}]; r != nil && r.HumanCorruption != "" {
			return r.HumanCorruption
		}
	}
	return c
}

// chartTitle is the words on top of each chart of a measure.
var chartTitles = map[string]string{
	"hmri-a": "HMRI, accuracy: share of human robustness reached",
	"mrsi-a": "MRSI, accuracy: share of model robustness beyond humans",
	"hmri-p": "HMRI, consistency: share of human robustness reached",
	"mrsi-p": "MRSI, consistency: share of model robustness beyond humans",
}

// groupedChart returns the grouped bar chart of measure m: the
// corruptions where some model has it as rows, a bar per model (row gives
// a model's summary on a corruption, nil for none), 95% intervals with up
// to maxPointModels models, and a value axis to the scale of small
// measures (up to the largest value or interval rounded up to 0.05, when
// under 0.5). ok is false when no model has m.
func groupedChart(m metric, models, corruptions []string, row func(model, c string) *ModelSummary, families map[string]string) (ch plot.GroupedChart, ok bool) {
	var cats []string
	for _, c := range corruptions {
		for _, model := range models {
			if r := row(model, c); r != nil && m.get(r) != nil && !slices.Contains(cats, c) {
				cats = append(cats, c)
			}
		}
	}
	if len(cats) == 0 {
		return ch, false
	}
	ch = plot.GroupedChart{Title: chartTitles[m.id], XLabel: m.short + " (ratio of areas under the curves, 0–1)", Categories: cats}
	for _, model := range models {
		s := plot.GroupedSeries{Name: model, Group: families[model], CI95: make([]*plot.Interval, len(cats))}
		any := false
		for k, c := range cats {
			v := math.NaN()
			if r := row(model, c); r != nil {
				if x := m.get(r); x != nil {
					v, any = *x, true
				}
				if ci := m.ci95(r); ci != nil {
					s.CI95[k] = &plot.Interval{Lo: ci[0], Hi: ci[1]}
				}
			}
			s.Values = append(s.Values, v)
		}
		if len(models) > maxPointModels {
			s.CI95 = nil // many models' whiskers hide the bars; the tables have them
		}
		if any {
			ch.Series = append(ch.Series, s)
		}
	}
	top := 0.0
	for _, s := range ch.Series {
		for k, v := range s.Values {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
			if s.CI95 != nil && s.CI95[k] != nil {
				top = max(top, s.CI95[k].Hi)
			}
		}
	}
	if top < 0.5 {
		ch.Max = max(0.05, math.Ceil(top*1.1/0.05)*0.05)
	}
	return ch, len(ch.Series) > 0
}

// groupedCharts writes one grouped bar chart per HMRI/MRSI measure:
// corruptions as rows, a bar per model, 95% intervals.
func (b *board) groupedCharts(p *page) error {
	var figs []string
	whiskers := "Whiskers: 95% bootstrap intervals."
	if len(b.models) > maxPointModels {
		whiskers = fmt.Sprintf("With more than %d models the intervals are in the tables only.", maxPointModels)
	}
	for _, m := range metrics {
		if !m.human {
			continue
		}
		ch, ok := groupedChart(m, b.models, b.corruptions, func(model, c string) *ModelSummary {
			if r := b.rows[[2]string{model, c}]; r != nil {
				return &r.ModelSummary
			}
			return nil
		}, b.families)
		if !ok {
			continue
		}
		var buf bytes.Buffer
		if err := plot.GroupedSVG(&buf, ch); err != nil {
			return fmt.Errorf("%s chart: %w", m.head, err)
		}
		figs = append(figs, fmt.Sprintf("<figure class=\"grouped\">%s<figcaption>%s. %s A 2-px stub is 0, no bar: no value; mind the axis' range.</figcaption></figure>\n",
			svgImg(buf.Bytes(), m.words), esc(m.words), whiskers))
	}
	if len(figs) > 0 {
		p.s("<div class=\"grid\">\n" + strings.Join(figs, "") + "</div>\n")
	}
	return nil
}

// maxPointModels is the most models whose bins (as points) and bands a
// curve chart shows; with more, only the humans' are drawn (the models'
// intervals are in the tables).
const maxPointModels = 4

// curveCharts writes, per corruption, the accuracy and the consistency
// chart of every model and the humans they were compared with, from the
// analyses' curves.csv and bins.csv.
func (b *board) curveCharts(p *page) error {
	for _, c := range b.corruptions {
		hc := b.humanCorruption(c)
		var figs []string
		for _, prop := range properties {
			title := fmt.Sprintf("%s: %s", c, prop.name)
			if hc != c && b.humans[hc] != nil {
				title += " (humans: " + hc + ")"
			}
			ch := plot.Chart{Title: title, XLabel: curveXLabel, YLabel: curveYLabels[prop.name]}
			add := func(name string, human bool, a *foundAnalysis, subject, corr string) {
				cd := a.curves[curveKey{subject, human, corr, prop.name}]
				if cd == nil || len(cd.grid) == 0 {
					return
				}
				cv := plot.Curve{Name: name, X: cd.grid, Y: cd.value, Human: human, Group: b.families[subject],
					Lo83: cd.lo83, Hi83: cd.hi83, Lo95: cd.lo95, Hi95: cd.hi95, Points: cd.points}
				if !human && len(b.models) > maxPointModels {
					// Many models' bins and bands hide the curves.
					cv.Points, cv.Lo83, cv.Hi83, cv.Lo95, cv.Hi95 = nil, nil, nil, nil, nil
				}
				if !math.IsNaN(cd.covered[0]) {
					cov := cd.covered
					cv.Covered = &cov
				} else { // no data anywhere: all of it is extrapolated
					none := [2]float64{cd.grid[0] - 1, cd.grid[0] - 1}
					cv.Covered = &none
				}
				ch.Curves = append(ch.Curves, cv)
			}
			for _, model := range b.models {
				if r := b.rows[[2]string{model, c}]; r != nil {
					add(model, false, r.a, model, c)
				}
			}
			if h := b.humans[hc]; h != nil {
				add("humans", true, h.a, h.Subject, hc)
			}
			if len(ch.Curves) == 0 {
				continue
			}
			var buf bytes.Buffer
			if err := plot.CurvesSVG(&buf, ch); err != nil {
				return fmt.Errorf("%s curves of %s: %w", prop.name, c, err)
			}
			figs = append(figs, "<figure>"+svgImg(buf.Bytes(), title)+"</figure>\n")
		}
		if len(figs) > 0 {
			p.f("<h3>%s</h3>\n<div class=\"grid\">\n%s</div>\n", esc(c), strings.Join(figs, ""))
		}
	}
	return nil
}

// renderModels writes a section per model: its numbers on each corruption
// with their intervals.
func (b *board) renderModels(p *page) bool {
	if len(b.models) == 0 {
		return false
	}
	p.section("models", sectionTitles["models"])
	p.s("<p>Every model's numbers per corruption, with 83% and 95% percentile bootstrap intervals (R̂a, R̂p: areas under the accuracy and consistency curves; Δv covered: where the curves rest on data, beyond it they are extrapolated).</p>\n")
	for _, model := range b.models {
		open := ""
		if len(b.models) <= 3 {
			open = ` open=""`
		}
		p.f("<details id=\"model-%s\"%s><summary><strong>%s</strong>", esc(FileName(model)), open, esc(model))
		if v, n := b.mean(model, metrics[0]); v != nil {
			p.f(" — mean R̂a %.3f over %d corruptions", *v, n)
		}
		p.s("</summary>\n<div class=\"scroll\"><table><thead><tr><th>corruption</th><th>images</th><th>clean accuracy</th><th>mean accuracy</th><th>R̂a</th><th>R̂p</th><th>Δv covered by data</th>")
		if b.withHuman {
			p.s("<th>HMRI (accuracy)</th><th>MRSI (accuracy)</th><th>HMRI (consistency)</th><th>MRSI (consistency)</th><th>Δv covered by both</th>")
		}
		p.s("</tr></thead><tbody>\n")
		for _, c := range b.corruptions {
			r := b.rows[[2]string{model, c}]
			if r == nil {
				continue
			}
			cov := summaryCovered(r.SubjectSummary)
			p.f("<tr><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td class=\"num\">%s</td>%s%s<td class=\"num\">%s</td>",
				esc(c), r.N, fnum(r.CleanAccuracy), fnum(r.MeanAccuracy), cell(&r.Ra, r.RaCI83, r.RaCI95), cell(&r.Rp, r.RpCI83, r.RpCI95), rangeText(&cov))
			if b.withHuman {
				p.f("%s%s%s%s<td class=\"num\">%s</td>", cell(r.HMRIa, r.HMRIaCI83, r.HMRIaCI95), cell(r.MRSIa, r.MRSIaCI83, r.MRSIaCI95),
					cell(r.HMRIp, r.HMRIpCI83, r.HMRIpCI95), cell(r.MRSIp, r.MRSIpCI83, r.MRSIpCI95), rangeText(r.HumanDVCovered))
			}
			p.s("</tr>\n")
		}
		p.s("</tbody></table></div>\n</details>\n")
	}
	p.end()
	return true
}

// humanTable writes the humans' own R̂a and R̂p per corruption.
func (b *board) humanTable(p *page) {
	if len(b.humans) == 0 {
		return
	}
	var cs []string
	for c := range b.humans {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	p.s("<h3>Humans</h3>\n<table><thead><tr><th>subject</th><th>corruption</th><th>trials</th><th>clean accuracy</th><th>mean accuracy</th><th>R̂a</th><th>R̂p</th><th>Δv covered by data</th></tr></thead><tbody>\n")
	for _, c := range cs {
		h := b.humans[c]
		cov := summaryCovered(h.SubjectSummary)
		p.f("<tr><td>humans</td><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td class=\"num\">%s</td>%s%s<td class=\"num\">%s</td></tr>\n",
			esc(c), h.N, fnum(h.CleanAccuracy), fnum(h.MeanAccuracy), cell(&h.Ra, h.RaCI83, h.RaCI95), cell(&h.Rp, h.RpCI83, h.RpCI95), rangeText(&cov))
	}
	p.s("</tbody></table>\n")
}

// coverageCharts returns, per corruption, the Δv histogram of the images
// behind the models' accuracy curves (bins.csv), one series per distinct
// histogram: models evaluated on the same images share one.
func (b *board) coverageCharts(f *found) ([]string, error) {
	var figs []string
	for _, c := range b.corruptions {
		var series []plot.Series
		var owners [][]string
		bins, minPer := 0, 0
		for _, m := range b.models {
			r := b.rows[[2]string{m, c}]
			if r == nil {
				continue
			}
			cd := r.a.curves[curveKey{m, false, c, "accuracy"}]
			if cd == nil || len(cd.binN) == 0 || (bins != 0 && len(cd.binN) != bins) {
				continue
			}
			bins, minPer = len(cd.binN), r.a.summary.MinPerBin
			i := slices.IndexFunc(series, func(s plot.Series) bool { return slices.Equal(s.Counts, cd.binN) })
			if i < 0 {
				series = append(series, plot.Series{Counts: cd.binN})
				owners = append(owners, nil)
				i = len(series) - 1
			}
			owners[i] = append(owners[i], m)
		}
		if len(series) == 0 {
			continue
		}
		if len(series) > maxPointModels {
			// Many different histograms: the fewest images of any model per
			// bin, which says where every model's curve rests on data.
			fewest := slices.Clone(series[0].Counts)
			for _, s := range series[1:] {
				for k, n := range s.Counts {
					fewest[k] = min(fewest[k], n)
				}
			}
			series = []plot.Series{{Name: fmt.Sprintf("fewest of %d models", len(b.models)), Counts: fewest}}
		} else if len(series) > 1 {
			for i := range series {
				series[i].Name = owners[i][0]
				if len(owners[i]) > 1 {
					series[i].Name += fmt.Sprintf(" and %d more", len(owners[i])-1)
				}
			}
		}
		h := plot.Histogram{Title: c + ": Δv coverage", XLabel: "visual change Δv", YLabel: "images per bin", Threshold: minPer}
		for k := 0; k <= bins; k++ {
			h.Edges = append(h.Edges, float64(k)/float64(bins))
		}
		h.Series = series
		var buf bytes.Buffer
		if err := plot.HistogramSVG(&buf, h); err != nil {
			return nil, fmt.Errorf("coverage of %s: %w", c, err)
		}
		figs = append(figs, "<figure>"+svgImg(buf.Bytes(), "Δv histogram of "+c)+"</figure>\n")
	}
	return figs, nil
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
