package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imagenetc"
)

// TestHTMLImageNetC: the ImageNet-C section appears only for an analysis
// with ImageNet-C metrics, and shows each model's mCE (100.0 for counts at
// AlexNet's errors) and a missing mCE as a dash with its note.
func TestHTMLImageNetC(t *testing.T) {
	var full, noFrost []imagenetc.Count
	for _, c := range imagenetc.Benchmark {
		a, _ := imagenetc.AlexNetError(c)
		for s := 1; s <= 5; s++ {
			x := imagenetc.Count{Corruption: c, Severity: s, N: 1000000, Errors: int(a*1e6 + 0.5)}
			full = append(full, x)
			if c != "frost" {
				noFrost = append(noFrost, x)
			}
		}
	}
	for _, tc := range []struct {
		name string
		rep  *imagenetc.Report
		want []string
	}{
		{"without", nil, nil},
		{"with", imagenetc.NewReport([]imagenetc.Model{{Name: "alexlike", Counts: full}, {Name: "nofrost", Counts: noFrost}}, "test rule"),
			[]string{`id="imagenet-c"`, `href="#imagenet-c"`, "<td>alexlike</td><td class=\"num\">—</td><td class=\"num\">0.789</td><td class=\"num\">100.0</td>",
				"<td>frost</td><td>benchmark</td><td class=\"num\">100.0<span class=\"ci\">0.827</span></td><td class=\"num\">—</td>",
				"nofrost: no mCE: 1 of the 15 benchmark corruptions lack errors at all five severities: frost", "test rule"}},
	} {
		dir := t.TempDir()
		a := &Analysis{Results: []string{"r.csv"}, VIFMethod: "vcr-py", Bins: 40, MinPerBin: 20, ImageNetC: tc.rep}
		var b bytes.Buffer
		if err := a.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "summary.json"), b.Bytes(), 0o644)
		out := filepath.Join(dir, "report.html")
		if err := WriteHTML(out, dir); err != nil {
			t.Fatal(err)
		}
		page, _ := os.ReadFile(out)
		if tc.rep == nil && strings.Contains(string(page), ImageNetCSection) {
			t.Errorf("%s: the page has an ImageNet-C section", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(page), w) {
				t.Errorf("%s: the page lacks %q", tc.name, w)
			}
		}
		var tb bytes.Buffer
		if err := a.WriteImageNetCTable(&tb); err != nil {
			t.Fatal(err)
		}
		if (tc.rep == nil) != (tb.Len() == 0) {
			t.Errorf("%s: terminal table %q", tc.name, tb.String())
		}
	}
}

// TestHTMLImageNetCIntervals: with bootstrap intervals in the analysis,
// the page shows each model's mCE with its interval under it, each CE with
// its interval, and says how the intervals were made.
func TestHTMLImageNetCIntervals(t *testing.T) {
	var counts []imagenetc.Count
	for _, c := range imagenetc.Benchmark {
		a, _ := imagenetc.AlexNetError(c)
		for s := 1; s <= 5; s++ {
			counts = append(counts, imagenetc.Count{Corruption: c, Severity: s, N: 400, Errors: int(a*400/2 + 0.5)})
		}
	}
	m := imagenetc.Model{Name: "half", Counts: counts}
	rep := imagenetc.NewReport([]imagenetc.Model{m}, "test rule")
	if err := imagenetc.Intervals(context.Background(), m, &rep.Models[0], imagenetc.Bootstrap{Replicates: 200, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	r := rep.Models[0]
	if r.MCEInterval == nil || r.CEInterval["frost"].Hi <= r.CEInterval["frost"].Lo {
		t.Fatalf("no intervals: %+v", r)
	}
	dir := t.TempDir()
	a := &Analysis{Results: []string{"r.csv"}, VIFMethod: "vcr-py", Bins: 40, MinPerBin: 20, ImageNetC: rep}
	var b bytes.Buffer
	if err := a.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "summary.json"), b.Bytes(), 0o644)
	out := filepath.Join(dir, "report.html")
	if err := WriteHTML(out, dir); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(out)
	frost := r.CEInterval["frost"]
	for _, w := range []string{
		fmt.Sprintf("%.1f<span class=\"ci\">%.1f–%.1f</span>", *r.MCE, r.MCEInterval.Lo, r.MCEInterval.Hi),
		fmt.Sprintf("<td>frost</td><td>benchmark</td><td class=\"num\">%.1f <small>(%.1f–%.1f)</small>", r.CE["frost"], frost.Lo, frost.Hi),
		"95% percentile bootstrap interval (200 replicates",
	} {
		if !strings.Contains(string(page), w) {
			t.Errorf("the page lacks %q", w)
		}
	}
}
