package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/contrast"
)

func TestHTMLContrast(t *testing.T) {
	labels, err := contrast.ReadLabels(strings.NewReader("id,background,foreground,estimate\na,red,red,1\nb,red,green,1\nc,gray,white,1\n"), "colors.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := []contrast.Row{
		{Image: "a", ID: "1", Corruption: "fog", Severity: 1, CorrectClean: false, CorrectCorrupted: false},
		{Image: "b", ID: "2", Corruption: "fog", Severity: 2, CorrectClean: true, CorrectCorrupted: true},
		{Image: "c", ID: "3", Corruption: "fog", Severity: 1, CorrectClean: true, CorrectCorrupted: false},
	}
	res, err := contrast.Analyse([]contrast.Model{{Name: "net<1>", Rows: rows}}, labels, contrast.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cdir := filepath.Join(dir, "contrast")
	os.MkdirAll(cdir, 0o755)
	f := &contrast.File{Version: contrast.Version, Labels: "colors.csv", LabelsEstimated: labels.Estimated, GroupTable: "built-in", Result: res}
	if _, err := f.WriteDir(cdir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.html")
	if err := WriteHTML(out, dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if *keep != "" {
		os.MkdirAll(*keep, 0o755)
		os.WriteFile(filepath.Join(*keep, "contrast.html"), b, 0o644)
	}
	doc := parseHTML(t, b)
	// A contrast-only report: the contrast section and the glossary, in
	// order, and no empty sections.
	if want := []string{"contrast", "glossary"}; strings.Join(doc.sections, ",") != strings.Join(want, ",") {
		t.Errorf("sections %q, want %q", doc.sections, want)
	}
	html := string(b)
	for _, want := range []string{`<section id="contrast">`, `href="#contrast"`, "net&lt;1&gt;", "are estimates", `alt="groups_clean"`, `alt="heatmap_net_1_"`, `alt="sensitivity"`, "high-mid has no clean images"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Clean slope through (0, 0), (1, 1), (3, 1) is 2/7 (contrast tests).
	if !strings.Contains(html, "<td>0.286") {
		t.Errorf("report lacks the clean slope 0.286")
	}
}
