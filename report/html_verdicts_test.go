package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/reliability"
)

// TestWriteHTMLCheckReport: a requirements check report shows one row per
// requirement and kind, a count that agrees with the table and says what it
// counts, and the check's warnings beside the table.
func TestWriteHTMLCheckReport(t *testing.T) {
	dir := t.TempDir()
	rep := reliability.NewCheckReport("req.json", "model m.onnx", "val")
	for _, c := range []struct {
		tr       string
		okC, okP bool
		warnings []string
	}{
		{"frost", false, false, []string{"seeds 1 and 2 give Δm 0.2500 vs 0.3100 (tolerance 0.02): n = 200 batches may be too few"}},
		{"contrast", true, false, nil},
		{"brightness", true, true, nil},
	} {
		rep.Add(&reliability.Verdict{
			Requirement: reliability.Requirement{Transformation: c.tr, VIFMethod: "vifvec", TC: 0.8, TP: 0.85},
			Batches:     200, BatchSize: 50, Satisfied: c.okC && c.okP, Warnings: c.warnings,
			Correctness:  reliability.Distance{Kind: "correctness", Threshold: 0.8, Satisfied: c.okC},
			Preservation: reliability.Distance{Kind: "preservation", Threshold: 0.85, Satisfied: c.okP},
		})
	}
	if err := atomicfile.Write(filepath.Join(dir, CheckFile), rep.Write); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if err := WriteHTML(out, dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	page := string(b)
	parseHTML(t, b)
	// 3 requirements, 6 rows; frost violates both rows, contrast one.
	if rows := strings.Count(page, `<td class="num">t<sub>`); rows != 6 {
		t.Errorf("%d verdict rows, want 6", rows)
	}
	if v := strings.Count(page, `<td class="fail">violated</td>`); v != 3 {
		t.Errorf("%d violated rows, want 3", v)
	}
	for _, want := range []string{
		`<span class="fail">2 of 3 requirements violated</span>; the table has 6 rows, a correctness (t<sub>c</sub>) and a preservation (t<sub>p</sub>) row per requirement, 3 of them violated.`,
		`<li>frost: seeds 1 and 2 give Δm 0.2500 vs 0.3100 (tolerance 0.02): n = 200 batches may be too few</li>`,
		`Model: model m.onnx.`,
		`Requirements: <code>req.json</code>.`,
		`<td>contrast</td><td>preservation</td><td class="num">t<sub>p</sub> = 0.850</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "6 of 6") {
		t.Errorf("report counts rows as requirements")
	}
}
