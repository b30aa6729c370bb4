package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"image/jpeg"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/consistency"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
)

// htmlDoc is what CheckHTML found in a report.
type htmlDoc struct {
	ids      []string
	imgs     int
	missing  map[string]bool // section id → holds a "missing" note
	sections []string        // section ids in order
	scripts  int
}

func (d htmlDoc) hasSection(id string) bool { return slices.Contains(d.sections, id) }

// parseHTML checks that page is well-formed (a strict XML parse: every
// element closed, attributes quoted, only XML entities), that it loads
// nothing from outside (no links, non-data: images or scripts other than
// one inline script), and
// returns its ids, images and sections.
func parseHTML(t *testing.T, page []byte) htmlDoc {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(string(page), "<!DOCTYPE html>")))
	d.Strict = true
	doc := htmlDoc{missing: map[string]bool{}}
	var stack []string // the section each open element is in
	section := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("report is not well-formed: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, section)
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "script": // one inline script (sortScript) at most
				if attr["src"] != "" || doc.scripts > 0 {
					t.Errorf("report has a <script> with source %q, or a second one", attr["src"])
				}
				doc.scripts++
			case "link", "iframe", "object", "embed":
				t.Errorf("report has a <%s>", e.Name.Local)
			case "img":
				doc.imgs++
				if !strings.HasPrefix(attr["src"], "data:image/") {
					t.Errorf("image source %.40q is not a data: URI", attr["src"])
				}
			case "a":
				if !strings.HasPrefix(attr["href"], "#") {
					t.Errorf("link %q leaves the page", attr["href"])
				}
			case "section":
				section = attr["id"]
				doc.sections = append(doc.sections, section)
			}
			if attr["class"] == "missing" {
				doc.missing[section] = true
			}
			if id := attr["id"]; id != "" {
				if slices.Contains(doc.ids, id) {
					t.Errorf("id %q twice", id)
				}
				doc.ids = append(doc.ids, id)
			}
			if strings.Contains(attr["style"], "url(") {
				t.Errorf("style %q loads a resource", attr["style"])
			}
		case xml.EndElement:
			section = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
	}
	// The sections shown keep HTMLSections' order; the glossary is always there.
	last := -1
	for _, s := range doc.sections {
		i := slices.Index(HTMLSections, s)
		if i < 0 {
			continue
		}
		if i < last {
			t.Errorf("sections %q out of the order of %q", doc.sections, HTMLSections)
		}
		last = i
	}
	if !doc.hasSection("glossary") {
		t.Errorf("sections %q lack the glossary", doc.sections)
	}
	return doc
}

func TestWriteHTMLNothing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"a": 1}`), 0o644)
	out := filepath.Join(t.TempDir(), "r.html")
	if err := WriteHTML(out, dir); !errors.Is(err, errNothing) {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("report written from nothing")
	}
	if err := WriteHTML(out, filepath.Join(dir, "absent")); err == nil {
		t.Error("absent folder accepted")
	}
	if err := WriteHTML(out); err == nil {
		t.Error("no folder accepted")
	}
}

// TestWriteHTMLAnalysisOnly writes a report from the files of WriteJSON
// and WritePlots alone: the analysis sections are filled, the others say
// what is missing.
func TestWriteHTMLAnalysisOnly(t *testing.T) {
	a := analysis(t, 50)
	a.Warnings = []string{"a <warning> & more"}
	a.ErrorConsistency = &consistency.Result{Options: consistency.Options{Level: 0.95},
		Ceiling:    []consistency.Mean{{Corruption: "blur", Bin: "all", Pairs: 3, Kappa: 0.25, Min: 0.125, Max: 0.5}},
		ModelHuman: []consistency.Mean{{Model: "a", Corruption: "blur", Bin: "all", Pairs: 4, Kappa: -0.125, Min: -0.25, Max: 0}}}
	dir := filepath.Join(t.TempDir(), "an")
	os.MkdirAll(dir, 0o755)
	if err := atomicfile.Write(filepath.Join(dir, "summary.json"), a.WriteJSON); err != nil {
		t.Fatal(err)
	}
	if _, err := a.WritePlots(dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if err := WriteHTML(out, filepath.Dir(dir)); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(out)
	doc := parseHTML(t, page)
	for _, s := range []string{"run", "coverage", "curves", "robustness", "human"} {
		if doc.missing[s] {
			t.Errorf("section %s says data is missing", s)
		}
	}
	for _, s := range []string{"requirements", "examples"} {
		if doc.hasSection(s) {
			t.Errorf("section %s shown without data", s)
		}
	}
	if !strings.Contains(string(page), "Not in this report, for want of data: reliability requirements") {
		t.Error("the header does not name the sections left out")
	}
	// 2 curve plots, 4 HMRI/MRSI bar charts, 1 coverage histogram.
	if doc.imgs != 7 {
		t.Errorf("%d images, want 7", doc.imgs)
	}
	for _, want := range []string{"a &lt;warning&gt; &amp; more", "HMRI = 1 − A(h&gt;m)/A(h)", "<td>humans</td><td>blur</td>",
		// The error consistency table: the ceiling, then the model.
		`<td>blur</td><td>humans (ceiling)</td><td class="num">0.250</td><td class="num">3</td><td class="num">0.125 – 0.500</td>`,
		`<td>blur</td><td>a vs humans</td><td class="num">-0.125</td><td class="num">4</td>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// R̂a of model a with its intervals.
	s := a.Summary()
	if want := fnum(&s.Models[0].Ra) + `<span class="ci">83%: ` + fci(s.Models[0].RaCI83); !strings.Contains(string(page), want) {
		t.Errorf("report lacks R̂a of model a: %q", want)
	}
}

// TestWriteHTMLVerdicts: a verdicts file alone makes a report whose
// verdict table colours the booleans.
func TestWriteHTMLVerdicts(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, CheckFile), []byte(`{"version": 1, "results": [
		{"satisfied": true, "model": "m1", "transformation": "frost", "threshold": 0.25},
		{"satisfied": false, "model": "m2", "transformation": "frost", "threshold": 0.25, "detail": {"x": 1}}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "req.json"), []byte(`{"version": 1, "requirements": [
		{"transformation": "frost", "task": "t", "dataset": "d", "vif_method": "vifvec", "t_c": 0.31, "t_p": 0.22, "rule": "script"}]}`), 0o644)
	out := filepath.Join(t.TempDir(), "r.html")
	if err := WriteHTML(out, dir); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(out)
	doc := parseHTML(t, page)
	if doc.missing["requirements"] || !doc.hasSection("requirements") || doc.hasSection("curves") {
		t.Errorf("sections %q, missing notes: %v; want requirements and no curves", doc.sections, doc.missing)
	}
	for _, want := range []string{
		"<tr><th>model</th><th>transformation</th><th>threshold</th><th>satisfied</th></tr>",
		`<td>m1</td><td>frost</td><td class="num">0.25</td><td class="pass">true</td>`,
		`<td class="fail">false</td>`,
		`<td>frost</td><td>t</td><td>d</td><td>vifvec</td><td class="num">0.310</td><td class="num">0.220</td>`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestShortParams(t *testing.T) {
	for in, want := range map[string]string{
		`{"sigma":0.0145678,"k":3}`: "k=3, sigma=0.0146",
		`{}`:                        "",
		`not json`:                  "not json",
	} {
		if got := shortParams(in); got != want {
			t.Errorf("shortParams(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestThumbnail checks shrink against the mean of each s×s block computed
// directly, and that thumbnail writes a JPEG data: URI of the shrunk size.
func TestThumbnail(t *testing.T) {
	const w, h = 300, 200 // s = ⌈300/144⌉ = 3 → 100×66
	m := imageio.New(w, h)
	for c := range 3 {
		for i := range m.Ch[c] {
			m.Ch[c][i] = float32((i%w/5+i/w/4+c)%4) / 3 // 5×4 patches, straddling blocks
		}
	}
	got := shrink(m, ThumbSize)
	if b := got.Bounds(); b.Dx() != 100 || b.Dy() != 66 {
		t.Fatalf("shrunk to %v, want 100×66", b)
	}
	for y := range 66 {
		for x := range 100 {
			for c := range 3 {
				var want float64
				for dy := range 3 {
					for dx := range 3 {
						want += float64(m.Ch[c][(3*y+dy)*w+3*x+dx])
					}
				}
				if g := float64(got.Pix[got.PixOffset(x, y)+c]); math.Abs(g-255*want/9) > 0.51 {
					t.Fatalf("pixel (%d, %d) channel %d: %v, want %.2f", x, y, c, g, 255*want/9)
				}
			}
		}
	}
	thin := imageio.New(1000, 2)
	for i := range thin.Ch[1] {
		thin.Ch[1][i] = float32(i % 2) // green: 0, 1, 0, 1, … in each row
	}
	if g := shrink(thin, ThumbSize); g.Bounds().Dx() != 142 || g.Bounds().Dy() != 1 || g.Pix[1] != 109 { // round(255·3/7)
		t.Errorf("1000×2 shrunk to %v, green %d; want 142×1, 109", g.Bounds(), g.Pix[1])
	}
	p := filepath.Join(t.TempDir(), "m.png")
	if err := imageio.Save(p, m, imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	uri, err := thumbnail(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:image/jpeg;base64,"))
	if err != nil || !strings.HasPrefix(uri, "data:image/jpeg;base64,") {
		t.Fatalf("not a JPEG data URI: %v", err)
	}
	j, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := j.Bounds(); b.Dx() != 100 || b.Dy() != 66 {
		t.Errorf("thumbnail %v, want 100×66", b)
	}
}

// TestWriteHTMLFindsByTool: artefacts are recognised by their "tool" field
// whatever their names; files of other tools and foreign JSON are ignored.
func TestWriteHTMLFindsByTool(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("frost-check.json", `{"tool": "vcr requirements check", "version": "v0", "model": "m", "verdicts": [], "warnings": ["seed not recorded"]}`)
	write("my-thresholds.json", `{"tool": "vcr requirements estimate", "version": "v0", "requirements": [
		{"transformation": "frost", "task": "car", "dataset": "d", "vif_method": "vifvec", "t_c": 0.31, "t_p": 0.22, "rule": "script"}]}`)
	write("eval-settings.json", `{"tool": "vcr eval", "version": "v0", "model": "resnet50.onnx", "task": {"name": "car"}}`)
	write("package.json", `{"name": "not ours", "requirements": ["t_c"]}`)
	write("other.json", `{"tool": "something else", "requirements": [{"t_c": 1}]}`)
	f, err := find([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.checks) != 1 || filepath.Base(f.checks[0].path) != "frost-check.json" {
		t.Errorf("checks: %d", len(f.checks))
	}
	if len(f.reqs) != 1 || filepath.Base(f.reqs[0].path) != "my-thresholds.json" || f.reqs[0].file.Requirements[0].TC != 0.31 {
		t.Errorf("requirements: %d", len(f.reqs))
	}
	if len(f.evals) != 1 || f.evals[0].settings["model"] != "resnet50.onnx" {
		t.Errorf("evals: %d", len(f.evals))
	}
	if len(f.analyses) != 0 || len(f.testsets) != 0 {
		t.Errorf("analyses %d, test sets %d; want none", len(f.analyses), len(f.testsets))
	}

	// A summary.json of 'vcr analyze' under another name, beside a run.json
	// and a coverage report carrying the tool field.
	dir2 := t.TempDir()
	var buf bytes.Buffer
	if err := handMade().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir2, "analysis-2024.json"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir2, "run-info.json"), []byte(`{"tool": "vcr generate", "version": "v0", "seed": 1, "n": 10, "corruptions": ["frost"]}`), 0o644)
	os.WriteFile(filepath.Join(dir2, "cov.json"), []byte(`{"tool": "vcr generate", "bins": 40, "min_per_bin": 20, "corruptions": [], "overall": {}}`), 0o644)
	os.WriteFile(filepath.Join(dir2, "state.json"), []byte(`{"tool": "vcr generate", "complete": true, "rows": 10}`), 0o644)
	f, err = find([]string{dir2})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.analyses) != 1 || len(f.analyses[0].summary.Models) != 2 {
		t.Errorf("analyses: %d", len(f.analyses))
	}
	if len(f.testsets) != 1 || f.testsets[0].run["seed"] != 1.0 || f.testsets[0].coverage == nil || f.testsets[0].coverage.Bins != 40 {
		t.Errorf("test sets: %+v", f.testsets)
	}
	// The per-model and human tables state each subject's covered Δv range
	// (handMade: models [0, 0.8625], humans [0.0125, 0.7375]).
	out := filepath.Join(t.TempDir(), "r.html")
	if err := WriteHTML(out, dir2); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(out)
	for _, want := range []string{"<th>Δv covered by data</th>", `<td class="num">0.00–0.86</td>`, `<td class="num">0.01–0.74</td></tr>`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
}
