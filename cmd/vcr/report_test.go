package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/testset"
)

// reportRun runs the whole chain on a small synthetic data set: synth →
// generate → eval (a predictions file of a simulated model whose accuracy
// falls with Δv) → analyze against the built-in ImageNet human data, and
// adds a verdicts file. It returns the folder holding all of it.
func reportRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	mustRun(t, "synth", "--out", p("data"), "--n", "30", "--size", "48", "--classes", "3", "--seed", "4")
	mustRun(t, "generate", "--images", p("data"), "--corruptions", "gaussian_noise,brightness", "--n", "150", "--seed", "5",
		"--out", p("ts"), "--progress", "never")
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString("id,source,kind,pred\n")
	seen := map[string]bool{}
	err := testset.ReadManifest(p("ts/manifest.csv"), func(rec *testset.Record) error {
		pred := rec.LabelName
		if r.Float64() > 0.95-0.7*rec.DV {
			pred = fmt.Sprintf("class_%02d", r.IntN(3))
		}
		fmt.Fprintf(&sb, "%d,,,%s\n", rec.ID, pred)
		if !seen[rec.Source] {
			seen[rec.Source] = true
			fmt.Fprintf(&sb, ",%s,clean,%s\n", rec.Source, rec.LabelName)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("preds.csv"), []byte(sb.String()), 0o644)
	os.MkdirAll(p("eval"), 0o755)
	mustRun(t, "eval", "--testset", p("ts"), "--predictions", p("preds.csv"), "--out", p("eval/results.csv"), "--progress", "never")
	mustRun(t, "analyze", "--results", p("eval/results.csv"), "--model-name", "simnet", "--out", p("analysis"),
		"--bins", "20", "--min-per-bin", "5", "--bootstrap", "50", "--human", "icse2022-imagenet", "--allow-vif-mismatch")
	os.WriteFile(p("analysis/"+report.CheckFile), []byte(`{"checks": [{"model": "simnet", "transformation": "brightness", "satisfied": true}]}`), 0o644)
	return dir
}

// reportSections parses page strictly as XML (well-formed: every element
// closed, attributes quoted) and returns its section ids, the sections
// holding a "missing data" note and the number of images.
func reportSections(t *testing.T, page []byte) (ids []string, missing []string, imgs int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(page, []byte("<!DOCTYPE html>"))))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("report is not well-formed: %v", err)
		}
		if e, ok := tok.(xml.StartElement); ok {
			for _, a := range e.Attr {
				switch {
				case e.Name.Local == "section" && a.Name.Local == "id":
					ids = append(ids, a.Value)
				case a.Name.Local == "class" && a.Value == "missing":
					missing = append(missing, ids[len(ids)-1])
				case e.Name.Local == "img" && a.Name.Local == "src":
					imgs++
					if !strings.HasPrefix(a.Value, "data:image/") {
						t.Errorf("image %.40q is not inline", a.Value)
					}
				}
			}
			if e.Name.Local == "link" {
				t.Errorf("report has a <%s>", e.Name.Local)
			}
			if e.Name.Local == "script" {
				for _, a := range e.Attr {
					if a.Name.Local == "src" {
						t.Errorf("report loads a script from %q", a.Value)
					}
				}
			}
		}
	}
}

// TestReport is the contract: 'vcr report' works on a folder of
// 'vcr analyze' and adds sections for what else it finds; the page is
// well-formed, self-contained, not too big, and opens in a browser.
func TestReport(t *testing.T) {
	dir := reportRun(t)
	out := filepath.Join(t.TempDir(), "report.html")
	mustRun(t, "report", dir, "--out", out)
	page := readFile(t, out)
	ids, missing, imgs := reportSections(t, page)
	if !slices.Equal(ids, report.HTMLSections) {
		t.Errorf("sections %q, want %q", ids, report.HTMLSections)
	}
	if keep := os.Getenv("VCR_REPORT_KEEP"); keep != "" { // a folder to look at the page in
		os.MkdirAll(keep, 0o755)
		os.WriteFile(filepath.Join(keep, "report.html"), page, 0o644)
	}
	if len(missing) > 0 {
		t.Errorf("sections %q say data is missing", missing)
	}
	// 2 coverage histograms, 2×2 curve plots, 4 grouped HMRI/MRSI charts,
	// and per corruption a strip of the source and at least 3 images.
	if imgs < 2+4+4+2*4 {
		t.Errorf("%d images", imgs)
	}
	if len(page) > 5<<20 {
		t.Errorf("report is %d bytes", len(page))
	}
	for _, want := range []string{"simnet", "icse2022-imagenet", "predictions", `<td class="pass">true</td>`, "<td>0 (source: ", "simnet: accuracy</th>"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}

	// Only the analysis folder: the contract's minimum.
	out2 := filepath.Join(t.TempDir(), "r2.html")
	os.Remove(filepath.Join(dir, "analysis", report.CheckFile))
	mustRun(t, "report", filepath.Join(dir, "analysis"), "--out", out2)
	ids2, missing, _ := reportSections(t, readFile(t, out2))
	if len(missing) > 0 || slices.Contains(ids2, "requirements") || slices.Contains(ids2, "examples") {
		t.Errorf("analysis only: sections %q (%q say data is missing), want neither requirements nor examples", ids2, missing)
	}

	t.Run("chromium", func(t *testing.T) { chromiumCheck(t, out, ids) })
}

func TestReportErrors(t *testing.T) {
	empty := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.html")
	if code, _, errOut := runCmd(t, "report", empty, "--out", out); code != exitFailure || !strings.Contains(errOut, "nothing a report can use") {
		t.Errorf("empty folder: exit %d\n%s", code, errOut)
	}
	blocker := filepath.Join(empty, "a-file")
	os.WriteFile(blocker, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--out", out}, "name the folders to read"},
		{[]string{"report", empty}, "--out is required"},
		{[]string{"report", empty, "--out", out, filepath.Join(empty, "missing")}, "missing is not a folder"},
		{[]string{"report", "--in", empty, "--out", out}, "-in"},
		// The output is checked before the folders are read.
		{[]string{"report", empty, "--out", filepath.Join(blocker, "r.html")}, "--out " + blocker},
		{[]string{"report", empty, "--out", empty}, "is a folder"},
	} {
		if code, _, errOut := runCmd(t, c.args...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, errOut)
		}
	}
	// A missing parent folder of --out is created.
	deep := filepath.Join(t.TempDir(), "new", "dir", "r.html")
	if code, _, errOut := runCmd(t, "report", empty, "--out", deep); code != exitFailure || !strings.Contains(errOut, "nothing a report can use") {
		t.Errorf("missing parent: exit %d\n%s", code, errOut)
	}
	if st, err := os.Stat(filepath.Dir(deep)); err != nil || !st.IsDir() {
		t.Errorf("parent of --out not created: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("report written")
	}
}

// chromiumArgs are the flags of a headless run that touches no network.
func chromiumArgs() []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"}
}

// chromiumCheck opens the report in headless Chromium (Debian's chromium):
// the DOM it builds holds the sections given, the leaderboard's sort
// script ran, and the browser logs no console error; a screenshot (docs/report.md's command) is a real picture. Without
// chromium on PATH it skips, unless VCR_REQUIRE_CHROMIUM=1.
func chromiumCheck(t *testing.T, page string, sections []string) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("VCR_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium not on PATH and VCR_REQUIRE_CHROMIUM=1")
		}
		t.Skip("chromium not on PATH (set VCR_REQUIRE_CHROMIUM=1 to require it)")
	}
	abs, _ := filepath.Abs(page)
	url := "file://" + abs
	run := func(extra ...string) (stdout, stderr []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args := append(chromiumArgs(), "--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0")
		cmd := exec.CommandContext(ctx, bin, append(append(args, extra...), url)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %q: %v\n%s", extra, err, e.Bytes())
		}
		for _, line := range strings.Split(e.String(), "\n") {
			if strings.Contains(line, "Uncaught") || strings.Contains(line, "CONSOLE") {
				t.Errorf("browser console: %s", line)
			}
		}
		return o.Bytes(), e.Bytes()
	}
	dom, _ := run("--dump-dom")
	for _, id := range sections {
		if !bytes.Contains(dom, []byte(`<section id="`+id+`">`)) {
			t.Errorf("the DOM lacks section %s", id)
		}
	}
	// The leaderboard's script ran: its headers are sortable.
	if !bytes.Contains(dom, []byte(`class="sort"`)) {
		t.Error("the sort script did not mark the leaderboard's headers")
	}
	if n := bytes.Count(dom, []byte("<img ")); n < 20 {
		t.Errorf("the DOM has %d images", n)
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	run("--screenshot="+shot, "--window-size=1280,2000")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
		t.Errorf("screenshot is %v", b)
	}
	colours := map[[3]uint32]bool{}
	for y := 0; y < m.Bounds().Dy(); y += 7 {
		for x := 0; x < m.Bounds().Dx(); x += 7 {
			r, g, b, _ := m.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("screenshot has %d colours: blank?", len(colours))
	}
}
