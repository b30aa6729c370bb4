package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/consistency"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/plot"
	"github.com/vcr-bench/vcr/reliability"
	"github.com/vcr-bench/vcr/results"
)

// HTML section ids, in page order. A report has those it has data for (the
// glossary always), and its contents list numbers only those; the header
// names the sections left out and the command that writes their data. The
// ImageNet-C and colour-contrast sections (ImageNetCSection,
// ContrastSection) follow "human" when present.
var HTMLSections = []string{"run", "leaderboard", "coverage", "curves", "human", "requirements", "examples", "models", "glossary", "warnings"}

// WriteHTML writes a self-contained HTML report (inline CSS, images as
// data: URIs, one small inline script that sorts tables, no network) to
// the file out, from what it finds
// in dirs and the folders below them (up to four levels; folders named
// images are skipped). JSON files are recognised by their "tool" field,
// whatever their names: 'vcr analyze' summaries (with the SVG plots beside
// them), 'vcr generate' test sets (run.json, its coverage report,
// manifest.csv and images), 'vcr eval' results settings (RESULTS.csv.json),
// 'vcr requirements estimate' requirements files and 'vcr requirements
// check' verdicts; files without the field are recognised by the names
// those commands gave them before (summary.json, run.json, coverage.json,
// *.csv.json, requirements-check.json or *verdict*). Colour-contrast
// analyses of 'vcr contrast' are found as contrast.json and its SVG plots.
// It returns an error when dirs hold none of these.
func WriteHTML(out string, dirs ...string) error {
	if len(dirs) == 0 {
		return fmt.Errorf("no folder to read")
	}
	f, err := find(dirs)
	if err != nil {
		return err
	}
	if f.empty() {
		return fmt.Errorf("%s: %w (want the output of vcr analyze, generate, eval, requirements or contrast)", strings.Join(dirs, ", "), errNothing)
	}
	return atomicfile.Write(out, func(w io.Writer) error { return f.render(w) })
}

// page accumulates the HTML.
type page struct {
	b strings.Builder
}

func (p *page) f(format string, a ...any) { fmt.Fprintf(&p.b, format, a...) }
func (p *page) s(s string)                { p.b.WriteString(s) }

// esc escapes text for HTML.
func esc(s string) string { return html.EscapeString(s) }

func fnum(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

func fci(c *[2]float64) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("[%.3f, %.3f]", c[0], c[1])
}

// cell is a value with its intervals, for tables.
func cell(v *float64, c83, c95 *[2]float64) string {
	s := "<td class=\"num\">" + fnum(v)
	if c83 != nil || c95 != nil {
		s += "<span class=\"ci\">"
		if c83 != nil {
			s += "83%: " + fci(c83)
		}
		if c95 != nil {
			s += "<br/>95%: " + fci(c95)
		}
		s += "</span>"
	}
	return s + "</td>"
}

func svgImg(data []byte, alt string) string {
	return `<img class="chart" alt="` + esc(alt) + `" src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString(data) + `"/>`
}

func (p *page) missing(what string) { p.f("<p class=\"missing\">%s</p>\n", what) }

func (p *page) section(id, title string) { p.f("<section id=%q>\n<h2>%s</h2>\n", id, esc(title)) }
func (p *page) end()                     { p.s("</section>\n") }

// kv writes a two-column table of the flattened JSON object v.
func (p *page) kv(v any) {
	var rows [][2]string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				n := k
				if prefix != "" {
					n = prefix + "." + k
				}
				walk(n, x[k])
			}
		case []any:
			var parts []string
			simple := true
			for _, e := range x {
				switch e.(type) {
				case map[string]any, []any:
					simple = false
				}
				parts = append(parts, scalar(e))
			}
			if simple {
				rows = append(rows, [2]string{prefix, strings.Join(parts, ", ")})
				return
			}
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		default:
			rows = append(rows, [2]string{prefix, scalar(v)})
		}
	}
	walk("", v)
	slices.SortStableFunc(rows, func(a, b [2]string) int { return strings.Compare(keyLabel(a[0]), keyLabel(b[0])) })
	p.s("<table class=\"kv\">\n")
	for _, r := range rows {
		// Only a value with a long unbroken token (a hash, a path) may
		// break anywhere; lists of names wrap between words, never inside.
		class := ""
		if slices.ContainsFunc(strings.Fields(r[1]), func(w string) bool { return len([]rune(w)) > 24 }) {
			class = ` class="long"`
		}
		// Paths may break after a slash.
		value := strings.ReplaceAll(esc(r[1]), "/", "/<wbr/>")
		p.f("<tr><th title=\"%s\">%s</th><td%s>%s</td></tr>\n", esc(r[0]), esc(keyLabel(r[0])), class, value)
	}
	p.s("</table>\n")
}

// keyLabels are the words the "What was run" tables show for the keys of
// run.json (vcr generate) and RESULTS.csv.json (vcr eval); the raw key is
// the row's tooltip.
var keyLabels = map[string]string{
	"tool": "written by", "version": "vcr version", "seed": "seed", "n": "images drawn", "corruptions": "corruptions",
	"dataset.kind": "dataset kind", "dataset.root": "dataset folder", "dataset.root_abs": "dataset folder (absolute)",
	"dataset.root_rel": "dataset folder (from the test set)", "dataset.len": "dataset images",
	"dataset.fingerprint": "dataset fingerprint (SHA-256)", "dataset.resize": "resized to (px)", "dataset.crop": "cropped to (px)",
	"vif_method": "VIF flavour", "dv_methods": "further Δv columns (VIF flavours)", "dv_columns": "Δv columns",
	"sampling": "sampling of Δv", "coverage.bins": "coverage: Δv bins", "coverage.min_per_bin": "coverage: images a bin needs",
	"pilot": "pilot images", "imagenet_c": "ImageNet-C severities", "rounding": "rounding to 8 bits", "layout": "image folder layout",
	"format": "image format", "jpeg_quality": "JPEG quality", "rows": "rows written", "shard.index": "shard", "shard.count": "shards",
	"testset": "test set", "model_kind": "model kind", "model": "model", "model_file": "model file", "model_sha256": "model file SHA-256",
	"model_outputs": "model outputs", "batch_size": "batch size", "preset": "preset", "config": "configuration",
	"task.name": "task", "task.classes": "task classes", "preprocessing_notes": "preprocessing notes",
}

// keyLabel returns the words for a flattened key: keyLabels, else the key
// with '_' as spaces and '.' as " › ".
func keyLabel(k string) string {
	if l, ok := keyLabels[k]; ok {
		return l
	}
	return strings.NewReplacer("_", " ", ".", " › ").Replace(k)
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', 6, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const css = `
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d5dae0;--bg:#fff;--accent:#0b5cad;--pass:#1a7f37;--fail:#b42318}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg);margin:0}
main{max-width:1280px;margin:0 auto;padding:1.5rem 2rem 4rem}
header{border-bottom:2px solid var(--fg);margin-bottom:1rem}
h1{font-size:1.7rem;margin:.2rem 0}
h2{font-size:1.3rem;border-bottom:1px solid var(--line);padding-bottom:.2rem;margin-top:2.2rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
nav ol{columns:3;padding-left:1.2rem;margin:.4rem 0 1rem}
a{color:var(--accent)}
.muted,.missing,figcaption,.note{color:var(--muted)}
.missing{font-style:italic;border-left:3px solid var(--line);padding-left:.6rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}
th,td{border-bottom:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}
thead th{border-bottom:2px solid var(--fg);white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{display:block;font-size:.75rem;color:var(--muted)}
table.kv{font-size:.82rem}table.kv th,table.kv td{padding:.1rem .5rem}table.kv th{font-weight:600;white-space:nowrap;color:var(--muted)}
.glance{display:flex;flex-wrap:wrap;gap:.2rem 1.6rem;margin:.4rem 0 .8rem;padding:0;list-style:none}.glance b{color:var(--muted);font-weight:600}
table.kv td.long{overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
th.sort{cursor:pointer;user-select:none}th.sort:hover{color:var(--accent)}th[aria-sort=descending]::after{content:" ▼"}th[aria-sort=ascending]::after{content:" ▲"}
table.leaderboard td:first-child,table.matrix td:first-child{white-space:nowrap}
tfoot td{color:var(--muted);border-top:2px solid var(--line)}
details{margin:.4rem 0}details>summary{cursor:pointer;padding:.2rem 0}
table.strip th,table.strip td{text-align:center;vertical-align:middle}table.strip tbody th{text-align:right;white-space:nowrap;font-weight:600}
table.strip img{width:144px;height:auto;border:1px solid var(--line);display:block}
td.extrapolated{color:var(--muted)}
.kvgrid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:0 1.5rem}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:1rem 1.5rem;align-items:start}
figure{margin:0;break-inside:avoid}
img.chart{display:block;max-width:100%;height:auto;border:1px solid var(--line)}
.examples{display:flex;flex-wrap:wrap;gap:.6rem;margin-bottom:.6rem}
.examples figure{width:148px;font-size:.75rem;overflow-wrap:anywhere}
.examples img{width:144px;height:auto;image-rendering:auto;border:1px solid var(--line)}
.pass{color:var(--pass);font-weight:600}.fail{color:var(--fail);font-weight:600}
dl dt{font-weight:600;margin-top:.6rem}dl dd{margin-left:1.2rem}
code{font-size:.88em;background:#f3f4f6;padding:0 .2em;border-radius:3px}
@media (max-width:700px){main{padding:1rem}.grid{grid-template-columns:1fr}nav ol{columns:1}}
@media print{body{font-size:10.5pt}main{max-width:none;padding:0}nav{display:none}details{display:block}
h2{break-after:avoid;margin-top:1.2rem}section{break-inside:auto}tr,figure,.examples figure{break-inside:avoid}
.grid{grid-template-columns:1fr 1fr}a{color:inherit;text-decoration:none}@page{margin:14mm}}
`

var sectionTitles = map[string]string{
	"run": "What was run", "leaderboard": "Leaderboard", "coverage": "Δv coverage", "curves": "Performance curves",
	"human": "Against humans: HMRI and MRSI", "requirements": "Reliability requirements",
	"examples": "Image strips: one image as Δv grows", "models": "Per model",
	"glossary": "How to read this report", "warnings": "Warnings",
	ImageNetCSection: "ImageNet-C", ContrastSection: "Colour contrast",
}

// absentNotes say what fills a section the report left out.
var absentNotes = map[string]string{
	"run":          "settings (the files of vcr generate, eval or analyze)",
	"leaderboard":  "leaderboard and per-model numbers (summary.json of vcr analyze)",
	"coverage":     "Δv coverage (coverage.json of vcr generate)",
	"curves":       "performance curves (vcr analyze)",
	"human":        "comparison with humans (vcr analyze --human)",
	"requirements": "reliability requirements (vcr requirements estimate or check)",
	"examples":     "image strips (the manifest.csv and images of a vcr generate test set)",
}

func (f *found) render(w io.Writer) error {
	b := f.board()
	type part struct {
		id string
		fn func(*page) (bool, error)
	}
	ok := func(fn func(*page) bool) func(*page) (bool, error) {
		return func(p *page) (bool, error) { return fn(p), nil }
	}
	parts := []part{
		{"run", ok(f.renderRun)},
		{"leaderboard", ok(b.renderLeaderboard)},
		{"coverage", func(p *page) (bool, error) { return f.renderCoverage(p, b) }},
		{"curves", func(p *page) (bool, error) { return f.renderCurves(p, b) }},
		{"human", func(p *page) (bool, error) { return f.renderHuman(p, b) }},
		{ImageNetCSection, ok(func(p *page) bool { f.renderImageNetC(p); return f.hasImageNetC() })},
		{ContrastSection, ok(func(p *page) bool { f.renderContrast(p); return len(f.contrasts) > 0 })},
		{"requirements", ok(f.renderRequirements)},
		{"examples", ok(func(p *page) bool { return f.renderExamples(p, b) })},
		{"models", ok(b.renderModels)},
		{"glossary", ok(func(p *page) bool { renderGlossary(p); return true })},
		{"warnings", ok(f.renderWarnings)},
	}
	var shown []string
	var body strings.Builder
	var absent []string
	for _, pt := range parts {
		sp := &page{}
		has, err := pt.fn(sp)
		if err != nil {
			return err
		}
		if !has {
			if n := absentNotes[pt.id]; n != "" {
				absent = append(absent, n)
			}
			continue
		}
		shown = append(shown, pt.id)
		body.WriteString(sp.b.String())
	}
	p := &page{}
	p.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	p.s("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	p.s("<title>VCR report</title>\n<style>" + css + "</style>\n</head>\n<body>\n<main>\n")
	p.s("<header><h1>Visually-continuous corruption robustness (VCR) report</h1>\n")
	p.s(f.glance())
	if len(absent) > 0 {
		p.f("<p class=\"note absent\">Not in this report, for want of data: %s.</p>\n", esc(strings.Join(absent, "; ")))
	}
	p.s("</header>\n")
	p.s("<nav><strong>Contents</strong><ol>\n")
	for _, id := range shown {
		p.f("<li><a href=\"#%s\">%s</a></li>\n", id, esc(sectionTitles[id]))
	}
	p.s("</ol></nav>\n")
	p.s(body.String())
	p.s("</main>\n")
	if slices.Contains(shown, "leaderboard") {
		p.s("<script>" + sortScript + "</script>\n")
	}
	p.s("</body>\n</html>\n")
	_, err := io.WriteString(w, p.b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "none found"
	}
	return s
}

func (f *found) renderRun(p *page) bool {
	if len(f.testsets) == 0 && len(f.evals) == 0 && len(f.analyses) == 0 {
		return false
	}
	p.section("run", sectionTitles["run"])
	p.s("<div class=\"kvgrid\">\n")
	for _, t := range f.testsets {
		p.f("<div><h3>Test set <code>%s</code> (vcr generate)</h3>\n", esc(t.dir))
		p.kv(t.run)
		p.s("</div>\n")
	}
	for _, e := range f.evals {
		p.f("<div><h3>Evaluation <code>%s</code> (vcr eval)</h3>\n", esc(e.path))
		p.kv(e.settings)
		p.s("</div>\n")
	}
	for _, a := range f.analyses {
		s := a.summary
		p.f("<div><h3>Analysis <code>%s</code> (vcr analyze)</h3>\n", esc(a.dir))
		lambda := "chosen by GCV"
		if s.Lambda != nil {
			lambda = strconv.FormatFloat(*s.Lambda, 'g', 6, 64)
		}
		var fams []string
		for m, fam := range s.Families {
			fams = append(fams, m+"="+fam)
		}
		slices.Sort(fams)
		p.kv(map[string]any{
			"results": strings.Join(s.Results, ", "), "human data": orDash(s.Human), "VIF flavour (models)": s.VIFMethod,
			"VIF flavour (humans)": orDash(s.HumanVIFMethod), "bins": float64(s.Bins), "min per bin": float64(s.MinPerBin),
			"bootstrap replicates": float64(s.Bootstrap), "seed": strconv.FormatUint(s.Seed, 10), "smoothing λ": lambda,
			"families": orDash(strings.Join(fams, ", ")), "Δv column (models)": orDash(s.DVMethod),
			"task (models)": taskText(s.Task), "task (humans)": orDash(s.HumanTask), "vcr version": orDash(string(s.Version)),
		})
		p.s("</div>\n")
	}
	p.s("</div>\n")
	for _, a := range f.analyses {
		if a.summary.VIFMismatch != "" {
			p.f("<p class=\"fail\">%s</p>\n", esc(a.summary.VIFMismatch))
		}
	}
	p.end()
	return true
}

// summaryCovered returns the Δv range where both curves of x rest on data
// (dv_covered; computed from covered_a and covered_p for files before it).
func summaryCovered(x SubjectSummary) [2]float64 {
	return [2]float64{max(x.CoveredA[0], x.CoveredP[0]), min(x.CoveredA[1], x.CoveredP[1])}
}

// rangeText writes a Δv range as "0.00–0.45", or "—" for none.
func rangeText(r *[2]float64) string {
	if r == nil {
		return "—"
	}
	if r[0] > r[1] {
		return "none"
	}
	return fmt.Sprintf("%.2f–%.2f", r[0], r[1])
}

func taskText(t *results.Task) string {
	if t == nil {
		return "—"
	}
	if len(t.Classes) > 0 {
		return fmt.Sprintf("%s (%d classes)", t.Name, len(t.Classes))
	}
	return t.Name
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (f *found) renderCoverage(p *page, b *board) (bool, error) {
	p.section("coverage", sectionTitles["coverage"])
	n := 0
	for _, t := range f.testsets {
		if t.coverage == nil {
			continue
		}
		c := t.coverage
		p.f("<p>Test set <code>%s</code>: %d equal Δv bins, a bin is covered with at least %d images; sampling %s, VIF flavour %s.</p>\n",
			esc(t.dir), c.Bins, c.MinPerBin, esc(c.Sampling), esc(c.VIFMethod))
		p.s("<table><thead><tr><th>corruption</th><th>images</th><th>covered bins</th><th>coverage</th></tr></thead><tbody>\n")
		for _, cc := range c.Corruptions {
			p.f("<tr><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%d / %d</td><td class=\"num\">%.1f%%</td></tr>\n", esc(cc.Corruption), cc.N, cc.Covered, cc.Bins, 100*cc.Fraction)
		}
		p.f("<tr><th>all</th><td class=\"num\">%d</td><td class=\"num\">%d / %d</td><td class=\"num\">%.1f%%</td></tr>\n</tbody></table>\n", c.Overall.N, c.Overall.Covered, c.Overall.Bins, 100*c.Overall.Fraction)
		p.s("<div class=\"grid\">\n")
		for _, cc := range c.Corruptions {
			if cc.Bins < 1 || len(cc.Counts) != cc.Bins {
				continue
			}
			var b bytes.Buffer
			if err := plot.HistogramSVG(&b, CoverageChart(cc.Coverage, "Δv coverage: "+cc.Corruption)); err != nil {
				return false, fmt.Errorf("coverage of %s: %w", cc.Corruption, err)
			}
			p.f("<figure>%s</figure>\n", svgImg(b.Bytes(), "Δv histogram of "+cc.Corruption))
			n++
		}
		p.s("</div>\n")
	}
	if n == 0 && b.curves {
		// Without a test set, the models' Δv histograms from bins.csv: one
		// chart per corruption, one series per distinct histogram (models
		// evaluated on one test set share theirs).
		figs, err := b.coverageCharts(f)
		if err != nil {
			return false, err
		}
		if len(figs) > 0 {
			p.s("<p>Δv histograms of the evaluated images (the bins of the accuracy curves; models evaluated on the same images share one series).</p>\n")
			p.s("<div class=\"grid\">\n" + strings.Join(figs, "") + "</div>\n")
			n++
		}
	}
	if n == 0 {
		// Without a test set, the models' histograms drawn by vcr analyze.
		for _, a := range f.analyses {
			figs := a.figures("coverage_", "")
			if len(figs) > 0 {
				p.f("<p>Δv histograms of the evaluated images (from <code>%s</code>).</p>\n", esc(a.dir))
				p.s("<div class=\"grid\">\n" + strings.Join(figs, "") + "</div>\n")
				n++
			}
		}
	}
	p.end()
	return n > 0, nil
}

// figures returns the analysis' SVG plots for each corruption of its
// summary whose file name is prefix + corruption + suffix[.svg], or with
// suffix "" every one starting with prefix, as <figure> elements.
func (a *foundAnalysis) figures(prefix, suffix string) []string {
	var names []string
	for n := range a.svgs {
		if strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix+".svg") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		out = append(out, "<figure>"+svgImg(a.svgs[n], strings.TrimSuffix(n, ".svg"))+"</figure>\n")
	}
	return out
}

func (f *found) renderCurves(p *page, b *board) (bool, error) {
	p.section("curves", sectionTitles["curves"])
	n := 0
	if b.curves {
		if err := b.curveCharts(p); err != nil {
			return false, err
		}
		n = len(b.corruptions)
	} else {
		for _, a := range f.analyses {
			for _, c := range a.corruptions() {
				figs := append(a.figures("curves_"+FileName(c)+"_accuracy", ""), a.figures("curves_"+FileName(c)+"_consistency", "")...)
				if len(figs) == 0 {
					continue
				}
				p.f("<h3>%s</h3>\n<div class=\"grid\">\n%s</div>\n", esc(c), strings.Join(figs, ""))
				n++
			}
		}
	}
	if n > 0 {
		note := ""
		if b.curves && len(b.models) > maxPointModels {
			note = fmt.Sprintf(" With more than %d models, bands and points are drawn for the humans only.", maxPointModels)
		}
		p.f("<p class=\"note\">Per corruption, every model and the humans on one axis. Lines: fitted curves; darker band: 83%%, lighter band: 95%% pointwise bootstrap intervals; points: the Δv bins that entered the fit, sized by their number of images; humans black and dashed; faded dotted parts: no data there (extrapolated).%s</p>\n", note)
	}
	p.end()
	return n > 0, nil
}

func (a *foundAnalysis) corruptions() []string {
	var cs []string
	for _, m := range a.summary.Models {
		if !slices.Contains(cs, m.Corruption) {
			cs = append(cs, m.Corruption)
		}
	}
	slices.Sort(cs)
	return cs
}

func (f *found) renderHuman(p *page, b *board) (bool, error) {
	if !b.withHuman && len(b.humans) == 0 {
		return false, nil
	}
	p.section("human", sectionTitles["human"])
	var humans []string
	for _, a := range f.analyses {
		if s := a.summary; s.Human != "" && !slices.Contains(humans, s.Human) {
			humans = append(humans, s.Human)
			p.f("<p>Human data %s (VIF flavour %s), from <code>%s</code>.</p>\n", esc(s.Human), esc(orDash(s.HumanVIFMethod)), esc(a.dir))
		}
	}
	if b.withHuman {
		p.s("<p>HMRI: how much of the humans' robustness a model reaches (1 = at least human everywhere); MRSI: how much of the model's robustness lies beyond the humans' (0 = never better). Each chart holds every model on every corruption; the numbers with their intervals are in the leaderboard and under each model.</p>\n")
		if err := b.groupedCharts(p); err != nil {
			return false, err
		}
	}
	b.humanTable(p)
	for _, a := range f.analyses {
		s := a.summary
		for _, sim := range []struct {
			name string
			t    *SimilaritySummary
		}{{"accuracy", s.SimilarAccuracy}, {"consistency", s.SimilarConsistency}} {
			if sim.t == nil || len(sim.t.Classes) == 0 {
				continue
			}
			var cl []string
			for _, c := range sim.t.Classes {
				cl = append(cl, "{"+strings.Join(c, ", ")+"}")
			}
			p.f("<p>Corruptions visually similar for humans (%s): %s.</p>\n", sim.name, esc(strings.Join(cl, " ")))
		}
		renderErrorConsistency(p, s.ErrorConsistency)
	}
	p.end()
	return true, nil
}

// renderErrorConsistency writes a small table of the error consistency
// over all Δv per corruption: the human ceiling (mean kappa over pairs of
// participants) and each model's mean kappa over the participants.
func renderErrorConsistency(p *page, ec *ErrorConsistencySummary) {
	if ec == nil {
		return
	}
	p.f("<p>Error consistency (Cohen's kappa of right and wrong answers on the same stimuli; Geirhos et al., 2020) over all Δv, from <code>%s</code> (per pair and Δv bin, with %g%% bootstrap intervals): a model that errs like humans reaches the human ceiling.</p>\n",
		esc(ec.File), 100*ec.Level)
	p.s("<table><thead><tr><th>corruption</th><th>observers</th><th>mean kappa</th><th>pairs</th><th>range</th></tr></thead><tbody>\n")
	row := func(c, who string, m consistency.Mean) {
		p.f("<tr><td>%s</td><td>%s</td><td class=\"num\">%.3f</td><td class=\"num\">%d</td><td class=\"num\">%.3f – %.3f</td></tr>\n",
			esc(c), esc(who), m.Kappa, m.Pairs, m.Min, m.Max)
	}
	for _, c := range ec.Ceiling {
		if c.Bin == consistency.AllDV {
			row(c.Corruption, "humans (ceiling)", c)
		}
		for _, m := range ec.ModelHuman {
			if m.Bin == consistency.AllDV && m.Corruption == c.Corruption && c.Bin == consistency.AllDV {
				row(m.Corruption, m.Model+" vs humans", m)
			}
		}
	}
	for _, m := range ec.ModelHuman { // corruptions without a pair of participants
		if m.Bin == consistency.AllDV && !slices.ContainsFunc(ec.Ceiling, func(c consistency.Mean) bool { return c.Corruption == m.Corruption }) {
			row(m.Corruption, m.Model+" vs humans", m)
		}
	}
	p.s("</tbody></table>\n")
}

func (f *found) renderRequirements(p *page) bool {
	if len(f.reqs) == 0 && len(f.checks) == 0 {
		return false
	}
	p.section("requirements", sectionTitles["requirements"])
	for _, r := range f.reqs {
		p.f("<h3>Requirements <code>%s</code></h3>\n", esc(r.path))
		p.s("<table><thead><tr><th>transformation</th><th>task</th><th>dataset</th><th>VIF flavour</th><th>t<sub>c</sub></th><th>t<sub>p</sub></th><th>human accuracy</th><th>human preservation</th><th>rule</th></tr></thead><tbody>\n")
		for _, q := range r.file.Requirements {
			p.f("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td><td>%s</td></tr>\n",
				esc(q.Transformation), esc(q.Task), esc(q.Dataset), esc(q.VIFMethod), q.TC, q.TP, q.HumanAccuracy, q.HumanPreservation, esc(q.Rule))
		}
		p.s("</tbody></table>\n")
	}
	for _, c := range f.checks {
		p.f("<h3>Verdicts <code>%s</code></h3>\n", esc(c.path))
		if !p.checkVerdicts(c.v) {
			p.verdicts(c.v)
		}
	}
	p.end()
	return true
}

// checkVerdicts shows a requirements check report (reliability.CheckReport,
// the file 'vcr requirements check --json' writes) as one row per
// requirement and kind, with a count that names what it counts and the
// check's warnings beside the table; it reports false for any other shape.
func (p *page) checkVerdicts(v any) bool {
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	rep, err := reliability.ReadCheckReport(bytes.NewReader(raw))
	if err != nil {
		return false
	}
	var about []string
	if rep.Model != "" {
		about = append(about, "Model: "+esc(rep.Model)+".")
	}
	if rep.Requirements != "" {
		about = append(about, "Requirements: <code>"+esc(rep.Requirements)+"</code>.")
	}
	if rep.Version != "" {
		about = append(about, "Checked by "+esc(rep.Tool)+" "+esc(rep.Version)+".")
	}
	about = append(about, "A requirement holds when mean Δ + z·σ ≤ 0 (one-sided) in both of its rows, Δ being the model's loss from its baseline on images with Δv ≤ t.")
	p.f("<p>%s</p>\n", strings.Join(about, " "))
	c := rep.Count()
	class := "pass"
	if c.ViolatedRequirements > 0 {
		class = "fail"
	}
	p.f("<p class=\"verdict-count\"><span class=\"%s\">%d of %d requirements violated</span>; the table has %d rows, a correctness (t<sub>c</sub>) and a preservation (t<sub>p</sub>) row per requirement, %d of them violated.</p>\n",
		class, c.ViolatedRequirements, c.Requirements, c.Rows, c.ViolatedRows)
	p.s("<table><thead><tr><th>transformation</th><th>requirement</th><th>threshold</th><th>baseline</th><th>transformed</th><th>mean Δ</th><th>σ</th><th>bound</th><th>batches × images</th><th>verdict</th></tr></thead><tbody>\n")
	for _, vd := range rep.Verdicts {
		for _, d := range vd.Distances() {
			verdict, class := "violated", "fail"
			if d.Satisfied {
				verdict, class = "holds", "pass"
			}
			p.f("<tr><td>%s</td><td>%s</td><td class=\"num\">t<sub>%s</sub> = %.3f</td><td class=\"num\">%.4f</td><td class=\"num\">%.4f</td><td class=\"num\">%+.4f</td><td class=\"num\">%.4f</td><td class=\"num\">%+.4f</td><td class=\"num\">%d × %d</td><td class=\"%s\">%s</td></tr>\n",
				esc(vd.Requirement.Transformation), esc(d.Kind), strings.TrimPrefix(d.Symbol(), "t_"), d.Threshold, d.Baseline, d.Transformed, d.Delta, d.Sigma, d.Bound, vd.Batches, vd.BatchSize, class, verdict)
		}
	}
	p.s("</tbody></table>\n")
	if len(rep.Warnings) > 0 {
		p.f("<p>Warnings of this check (%d):</p>\n<ul class=\"check-warnings\">\n", len(rep.Warnings))
		for _, w := range rep.Warnings {
			p.f("<li>%s</li>\n", esc(w))
		}
		p.s("</ul>\n")
	}
	return true
}

// verdicts shows a verdicts file generically: every array of objects in it
// becomes a table of their scalar fields; other values a key/value table.
// Boolean fields and the words pass/fail/satisfied are coloured.
func (p *page) verdicts(v any) {
	var tables [][]any
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			objs := true
			for _, e := range x {
				if _, ok := e.(map[string]any); !ok {
					objs = false
				}
			}
			if objs && len(x) > 0 {
				tables = append(tables, x)
				return
			}
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				walk(x[k])
			}
		}
	}
	walk(v)
	if len(tables) == 0 {
		p.kv(v)
		return
	}
	for _, t := range tables {
		var cols []string
		for _, e := range t {
			for _, k := range sortedKeys(e.(map[string]any)) {
				switch e.(map[string]any)[k].(type) {
				case map[string]any, []any:
					continue
				}
				if !slices.Contains(cols, k) {
					cols = append(cols, k)
				}
			}
		}
		slices.SortStableFunc(cols, func(a, b string) int { return columnRank(a) - columnRank(b) })
		p.s("<table><thead><tr>")
		for _, c := range cols {
			p.f("<th>%s</th>", esc(c))
		}
		p.s("</tr></thead><tbody>\n")
		for _, e := range t {
			p.s("<tr>")
			for _, c := range cols {
				val, ok := e.(map[string]any)[c]
				s := ""
				if ok {
					s = scalar(val)
				}
				class := ""
				switch strings.ToLower(s) {
				case "true", "pass", "passed", "satisfied", "met", "ok":
					class = " class=\"pass\""
				case "false", "fail", "failed", "violated", "not met":
					class = " class=\"fail\""
				}
				if _, isNum := val.(float64); isNum {
					class = " class=\"num\""
				}
				p.f("<td%s>%s</td>", class, esc(s))
			}
			p.s("</tr>\n")
		}
		p.s("</tbody></table>\n")
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (f *found) renderExamples(p *page, b *board) bool {
	var body page
	n := 0
	for _, t := range f.testsets {
		if !t.manifest {
			continue
		}
		root, kind := "", ""
		if d, ok := t.run["dataset"].(map[string]any); ok {
			root, _ = d["root"].(string)
			kind, _ = d["kind"].(string)
		}
		ex, err := examples(t.dir, kind, root)
		if err != nil {
			body.missing("Image strips of " + esc(t.dir) + " unavailable: " + esc(err.Error()))
			n++
			continue
		}
		cs := make([]string, 0, len(ex))
		for c := range ex {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		for _, c := range cs {
			b.strip(&body, c, ex[c])
			n++
		}
	}
	if n == 0 {
		return false
	}
	p.section("examples", sectionTitles["examples"])
	p.f("<p class=\"note\">Per corruption, one source image of the test set (the one whose corrupted versions come nearest to Δv = %s, within 0.1) as Δv grows, with its corruption parameters; under it the accuracy of the humans and of each model at that Δv, read off their fitted accuracy curves (in italics where a curve is extrapolated).</p>\n", dvList(ExampleDV))
	p.s(body.b.String())
	p.end()
	return true
}

// strip writes one corruption's image strip with, under each image, the
// accuracy of the humans and the models at its Δv from their curves.
func (b *board) strip(p *page, c string, ex []example) {
	if len(ex) == 0 {
		return
	}
	p.f("<h3>%s</h3>\n<div class=\"scroll\"><table class=\"strip\"><thead><tr><th></th>", esc(c))
	dvs := []float64{}
	if ex[0].clean != "" {
		p.f("<th><img alt=\"source image %s\" src=\"%s\"/></th>", esc(ex[0].source), ex[0].clean)
		dvs = append(dvs, 0)
	}
	for _, e := range ex {
		p.f("<th><img alt=\"%s at Δv %.2f\" src=\"%s\"/></th>", esc(c), e.dv, e.src)
		dvs = append(dvs, e.dv)
	}
	p.s("</tr></thead><tbody>\n<tr><th>Δv</th>")
	if ex[0].clean != "" {
		p.f("<td>0 (source: %s)</td>", esc(ex[0].label))
	}
	for _, e := range ex {
		p.f("<td>Δv = %.2f<span class=\"ci\">%s</span></td>", e.dv, esc(shortParams(e.params)))
	}
	p.s("</tr>\n")
	row := func(name string, cd *curveData) {
		if cd == nil || len(cd.grid) == 0 {
			return
		}
		p.f("<tr><th>%s</th>", esc(name))
		for _, v := range dvs {
			y := interpolate(cd.grid, cd.value, v)
			if math.IsNaN(cd.covered[0]) || v < cd.covered[0]-1e-9 || v > cd.covered[1]+1e-9 {
				p.f("<td class=\"num extrapolated\"><i>%.2f</i></td>", y)
			} else {
				p.f("<td class=\"num\">%.2f</td>", y)
			}
		}
		p.s("</tr>\n")
	}
	if b.curves {
		hc := b.humanCorruption(c)
		if h := b.humans[hc]; h != nil {
			row("humans: accuracy", h.a.curves[curveKey{h.Subject, true, hc, "accuracy"}])
		}
		for _, m := range b.models {
			if r := b.rows[[2]string{m, c}]; r != nil {
				row(m+": accuracy", r.a.curves[curveKey{m, false, c, "accuracy"}])
			}
		}
	}
	p.s("</tbody></table></div>\n")
}

// dvList writes levels as "0.2, 0.4, 0.6, 0.8 and 1".
func dvList(levels []float64) string {
	var s []string
	for _, v := range levels {
		s = append(s, strconv.FormatFloat(v, 'g', -1, 64))
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// interpolate returns y at x on the polyline (xs, ys), xs increasing,
// clamped to its ends.
func interpolate(xs, ys []float64, x float64) float64 {
	if x <= xs[0] {
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] {
			t := (x - xs[i-1]) / (xs[i] - xs[i-1])
			return ys[i-1] + t*(ys[i]-ys[i-1])
		}
	}
	return ys[len(ys)-1]
}

func renderGlossary(p *page) {
	p.section("glossary", sectionTitles["glossary"])
	p.s(`<dl>
<dt>Δv (visual change)</dt><dd>How much a corruption changed an image, as a person would see it: Δv = max(0, 1 − VIF), where VIF (visual information fidelity) compares the corrupted image with its original. 0 means no visible change; values near 1 mean the image content is nearly gone. Unlike a corruption's own parameter or an ImageNet-C severity, Δv puts all corruptions on one axis.</dd>
<dt>VIF flavours</dt><dd>Several implementations of VIF exist and give different Δv for the same image pair: <code>vcr-py</code> (steerable-pyramid VIF of the VCR toolbox, the default), <code>vifvec</code> (Sheikh's MATLAB release, which labelled the published human data), <code>vifvec2-layers</code> (vifvec on at most two pyramid levels, which labelled the CIFAR-10 human data), <code>pixel</code> and <code>pixel-multiscale</code> (pixel-domain VIF). Curves are only comparable on the same flavour; the report states which one was used, and when the models' Δv was taken from a per-flavour column to match the human data's.</dd>
<dt>Coverage</dt><dd>[0, 1] is split into equal Δv bins; a bin is covered when it holds at least the minimum number of images. Coverage is the fraction of covered bins. Low coverage means parts of the Δv range were never tested (ImageNet-C's five fixed severities typically leave gaps); the curves are not supported by data there.</dd>
<dt>Performance curves</dt><dd>Accuracy (share of corrupted images classified correctly) and prediction consistency (share of corrupted images whose prediction equals the prediction on the original) as functions of Δv, fitted as smooth non-increasing curves through the per-bin rates, starting at Δv = 0 from the clean accuracy and from 1. A curve rests on data only over the Δv range of the bins that entered its fit (“Δv covered by data” in the tables); beyond it the curve is an extrapolation, drawn faded and dotted, and the areas below include that extrapolated part.</dd>
<dt>R̂a and R̂p</dt><dd>The areas under the accuracy and consistency curves over Δv ∈ [0, 1]: robustness over the corruption's whole visual range, not only at a few severities. Higher is more robust. The plain mean accuracy over all images is shown beside R̂a: it depends on how the test images happen to be spread over Δv.</dd>
<dt>HMRI and MRSI</dt><dd>Comparisons of a model's curve m with the human curve h. HMRI = 1 − A(h&gt;m)/A(h), the human-relative model robustness index: 1 when the model is at least as good as humans everywhere, lower the more area humans have above the model. MRSI = A(m&gt;h)/A(m), the model robustness superiority index: how much of the model's area lies above humans (0 when it never beats them).</dd>
<dt>Bands and intervals</dt><dd>A bootstrap over the images refits every curve many times. The darker band is the pointwise 83% interval, the lighter one 95%. Two curves whose 83% bands do not overlap differ at about the 5% level. Numbers in tables carry 83% and 95% percentile intervals.</dd>
<dt>Reliability requirements</dt><dd>"If a human can see it, so should your system": from human data, each transformation gets Δv thresholds t<sub>c</sub> (correctness preservation) and t<sub>p</sub> (prediction preservation), the ranges in which humans are not significantly affected. A model meets a requirement when, on images changed by less than the threshold (Δv &lt; t), it preserves correct classifications (t<sub>c</sub>) or its predictions (t<sub>p</sub>) at least as well as humans do; a check samples such images and gives a verdict per requirement.</dd>
</dl>
`)
	p.end()
}

func (f *found) renderWarnings(p *page) bool {
	var ws []string
	for _, a := range f.analyses {
		for _, w := range a.summary.Warnings {
			ws = append(ws, filepath.Base(a.dir)+": "+w)
		}
	}
	if len(ws) == 0 {
		return false
	}
	p.section("warnings", sectionTitles["warnings"])
	p.s("<ul>\n")
	for _, w := range ws {
		p.f("<li>%s</li>\n", esc(w))
	}
	p.s("</ul>\n")
	p.end()
	return true
}

// columnRank orders a verdict table's columns: what was checked first, the
// verdict last, the rest alphabetically between.
func columnRank(c string) int {
	first := []string{"model", "subject", "transformation", "corruption", "requirement", "kind", "type", "property"}
	if i := slices.Index(first, c); i >= 0 {
		return i - len(first)
	}
	switch c {
	case "verdict", "satisfied", "pass", "passed", "ok":
		return 1
	}
	return 0
}

// shortParams writes a params JSON object as "name=value, …" with values
// to 3 significant digits; other text is returned as it is.
func shortParams(s string) string {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return s
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		v := scalar(m[k])
		if x, ok := m[k].(float64); ok {
			v = strconv.FormatFloat(x, 'g', 3, 64)
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

// glance returns the header's key facts: models, corruptions, images,
// human data and VIF flavours.
func (f *found) glance() string {
	var models, humans, vifs, versions []string
	add := func(l *[]string, v string) {
		if v != "" && !slices.Contains(*l, v) {
			*l = append(*l, v)
		}
	}
	for _, a := range f.analyses {
		for _, m := range a.summary.Models {
			add(&models, m.Model)
		}
		add(&humans, a.summary.Human)
		add(&vifs, a.summary.VIFMethod)
		if h := a.summary.HumanVIFMethod; h != "" && h != a.summary.VIFMethod {
			add(&vifs, "humans: "+h)
		}
	}
	images := 0
	for _, t := range f.testsets {
		if t.coverage != nil {
			images += t.coverage.Overall.N
			add(&vifs, t.coverage.VIFMethod)
		}
		if v, ok := t.run["version"].(string); ok {
			add(&versions, v)
		}
	}
	var b strings.Builder
	b.WriteString("<ul class=\"glance\">\n")
	item := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "<li><b>%s</b> %s</li>\n", esc(k), esc(v))
		}
	}
	item("models", strings.Join(models, ", "))
	item("corruptions", strings.Join(f.corruptions(), ", "))
	if images > 0 {
		item("test images", strconv.Itoa(images))
	}
	item("human data", strings.Join(humans, ", "))
	item("VIF flavour", strings.Join(vifs, ", "))
	item("vcr version", strings.Join(versions, ", "))
	b.WriteString("</ul>\n")
	return b.String()
}
