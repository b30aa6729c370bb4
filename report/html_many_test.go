package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/robustness"
)

// manyAnalysis simulates models × corruptions: each model's accuracy
// falls with Δv at its own rate, the humans' (one curve per corruption)
// more slowly; every model is compared with the humans.
func manyAnalysis(t *testing.T, models, corruptions int) *Analysis {
	t.Helper()
	a := &Analysis{Human: "simulated humans", VIFMethod: "vcr-py", HumanVIFMethod: "vcr-py",
		Bins: robustness.DefaultBins, MinPerBin: robustness.DefaultMinCount, Seed: 1, Families: map[string]string{}}
	for c := range corruptions {
		corr := fmt.Sprintf("corruption_%02d", c)
		h := fit(t, series("human", corr, true, 0.95, 0.5, 800, uint64(1000+c)), 0)
		a.Humans = append(a.Humans, h)
		for m := range models {
			name := fmt.Sprintf("model-%02d", m)
			e := fit(t, series(name, corr, false, 0.8+0.01*float64(m%10), 0.3+0.03*float64(m), 600, uint64(m*100+c)), 0)
			cmp, err := robustness.Compare(e, h, robustness.CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			a.Models = append(a.Models, e)
			a.Comparisons = append(a.Comparisons, cmp)
		}
	}
	for m := range models {
		a.Families[fmt.Sprintf("model-%02d", m)] = []string{"cnn", "vit", "mlp"}[m%3]
	}
	return a
}

// writeAnalysis writes what 'vcr analyze' writes for the report into dir:
// summary.json, curves.csv and bins.csv.
func writeAnalysis(t *testing.T, a *Analysis, dir string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if err := atomicfile.Write(filepath.Join(dir, "summary.json"), a.WriteJSON); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(filepath.Join(dir, CurvesFile), a.WriteCurvesCSV); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(filepath.Join(dir, BinsFile), a.WriteBinsCSV); err != nil {
		t.Fatal(err)
	}
}

// keep, when set, is a folder the many-model test copies its reports to
// (to look at them: go test ./report -run ManyModels -keep /tmp/r).
var keep = flag.String("keep", "", "copy the reports of TestWriteHTMLManyModels into this `folder`")

var (
	chartImg       = regexp.MustCompile(`<img class="chart"`)
	leaderboardRow = regexp.MustCompile(`<tr><td><a href="#model-`)
)

// TestWriteHTMLManyModels is the contract of a many-model report: the
// number of charts depends on the corruptions only (a curve chart per
// corruption and property, a coverage histogram per corruption, a grouped
// chart per HMRI/MRSI measure: 3·corruptions + 4), the leaderboard has
// one row per model, the page stays small, and one analysis of every
// model gives the same charts as one analysis folder per model.
func TestWriteHTMLManyModels(t *testing.T) {
	for _, tc := range []struct{ models, corruptions int }{{3, 6}, {12, 6}, {20, 15}} {
		t.Run(fmt.Sprintf("%dx%d", tc.models, tc.corruptions), func(t *testing.T) {
			if testing.Short() && tc.models > 12 {
				t.Skip("20 × 15 fits take a while")
			}
			a := manyAnalysis(t, tc.models, tc.corruptions)
			dir := t.TempDir()
			writeAnalysis(t, a, filepath.Join(dir, "analysis"))
			out := filepath.Join(t.TempDir(), "r.html")
			if err := WriteHTML(out, dir); err != nil {
				t.Fatal(err)
			}
			page, _ := os.ReadFile(out)
			doc := parseHTML(t, page)
			if got, want := len(chartImg.FindAll(page, -1)), 3*tc.corruptions+4; got != want {
				t.Errorf("%d charts, want %d (3 per corruption + 4 grouped)", got, want)
			}
			if got := len(leaderboardRow.FindAll(page, -1)); got != tc.models {
				t.Errorf("%d leaderboard rows, want %d", got, tc.models)
			}
			if got := strings.Count(string(page), `<details id="model-`); got != tc.models {
				t.Errorf("%d per-model sections, want %d", got, tc.models)
			}
			for _, s := range []string{"leaderboard", "curves", "human", "models", "coverage"} {
				if !doc.hasSection(s) {
					t.Errorf("no section %q", s)
				}
			}
			if len(page) > 3<<20 {
				t.Errorf("report is %d bytes, want under 3 MB", len(page))
			}
			if *keep != "" {
				os.MkdirAll(*keep, 0o755)
				os.WriteFile(filepath.Join(*keep, fmt.Sprintf("many-%dx%d.html", tc.models, tc.corruptions)), page, 0o644)
			}
			if tc.models == 12 {
				t.Run("chromium", func(t *testing.T) { openInChromium(t, out, tc.models) })
			}
			t.Logf("%d models × %d corruptions: %d bytes, %d charts", tc.models, tc.corruptions, len(page), len(chartImg.FindAll(page, -1)))

			// The same models, one analysis folder each.
			split := t.TempDir()
			for m := range tc.models {
				name := fmt.Sprintf("model-%02d", m)
				b := *a
				b.Models, b.Comparisons = nil, nil
				for i, e := range a.Models {
					if e.Subject == name {
						b.Models = append(b.Models, e)
						b.Comparisons = append(b.Comparisons, a.Comparisons[i])
					}
				}
				writeAnalysis(t, &b, filepath.Join(split, name))
			}
			out2 := filepath.Join(t.TempDir(), "r2.html")
			if err := WriteHTML(out2, split); err != nil {
				t.Fatal(err)
			}
			page2, _ := os.ReadFile(out2)
			if got, want := len(chartImg.FindAll(page2, -1)), 3*tc.corruptions+4; got != want {
				t.Errorf("one folder per model: %d charts, want %d", got, want)
			}
			if got := len(leaderboardRow.FindAll(page2, -1)); got != tc.models {
				t.Errorf("one folder per model: %d leaderboard rows, want %d", got, tc.models)
			}
		})
	}
}

// openInChromium loads page in headless Chromium (Debian's chromium, as
// docs/report.md says) and checks that the browser logs no console
// message, that the sort script ran (it marks the headers "sort") and that
// the DOM holds one leaderboard row per model. It skips without chromium
// unless VCR_REQUIRE_CHROMIUM=1.
func openInChromium(t *testing.T, page string, models int) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("VCR_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium not on PATH and VCR_REQUIRE_CHROMIUM=1")
		}
		t.Skip("chromium not on PATH")
	}
	abs, _ := filepath.Abs(page)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+abs)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, e.Bytes())
	}
	t.Logf("chromium loaded the page in %v (browser start included)", time.Since(start).Round(time.Millisecond))
	for _, line := range strings.Split(e.String(), "\n") {
		if strings.Contains(line, "Uncaught") || strings.Contains(line, "CONSOLE") {
			t.Errorf("browser console: %s", line)
		}
	}
	dom := o.String()
	if n := strings.Count(dom, `class="sort"`); n == 0 {
		t.Error("the sort script did not run")
	}
	if n := strings.Count(dom, `<tr><td><a href="#model-`); n != models {
		t.Errorf("the DOM has %d leaderboard rows, want %d", n, models)
	}

	// Clicking the R̂p header (the fifth) sorts the leaderboard by R̂p, the
	// largest first; clicking again, the smallest first.
	for clicks, wantDesc := range map[int]bool{1: true, 2: false} {
		b, _ := os.ReadFile(page)
		click := strings.Repeat(`document.querySelector("table.leaderboard").tHead.rows[0].cells[4].click();`, clicks)
		b = bytes.Replace(b, []byte("</body>"), []byte("<script>"+click+"</script>\n</body>"), 1)
		clicked := filepath.Join(t.TempDir(), "clicked.html")
		os.WriteFile(clicked, b, 0o644)
		out, err := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+clicked).Output()
		if err != nil {
			t.Fatal(err)
		}
		board := string(out)
		if i := strings.Index(board, `class="sortable leaderboard"`); i >= 0 {
			board = board[i:]
		}
		if i := strings.Index(board, "</table>"); i >= 0 {
			board = board[:i]
		}
		// The fifth cell of each row: <td class="num" data-v="…">.
		var rp []float64
		for _, row := range strings.Split(board, "<tr>")[2:] {
			cells := strings.Split(row, `data-v="`)
			if len(cells) < 4 {
				continue
			}
			v, err := strconv.ParseFloat(cells[3][:strings.IndexByte(cells[3], '"')], 64)
			if err != nil {
				t.Fatalf("R̂p cell %q: %v", cells[3], err)
			}
			rp = append(rp, v)
		}
		if len(rp) != models {
			t.Fatalf("%d click(s): %d R̂p values in %q", clicks, len(rp), board)
		}
		for i := 1; i < len(rp); i++ {
			if (wantDesc && rp[i] > rp[i-1]) || (!wantDesc && rp[i] < rp[i-1]) {
				t.Errorf("%d click(s) on R̂p: order %v, want descending %v", clicks, rp, wantDesc)
				break
			}
		}
	}
}
