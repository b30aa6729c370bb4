package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/vcr-bench/vcr/report"
)

func init() {
	addCommand(&command{name: "report", summary: "write a self-contained HTML report of generate/eval/analyze/requirements outputs", run: runReport})
}

const reportUsage = `
Usage: vcr report DIR… --out report.html

Writes one self-contained HTML file (inline CSS, plots and images as
data: URIs, one small inline script that sorts tables, nothing fetched
from the network) from whatever the other commands wrote in the folders
DIR and below them (up to four levels; folders named images are skipped).
Their JSON files are recognised by their "tool" field, whatever they are
called:

  vcr analyze        summary.json, curves.csv and bins.csv: a sortable
                     leaderboard (models × corruptions), one curve chart
                     per corruption with every model and the humans
                     (extrapolated parts dashed), one grouped chart per
                     HMRI/MRSI measure, per-model tables with intervals
  vcr generate       run.json, its coverage report, manifest.csv and
                     images: settings, Δv coverage histograms, per
                     corruption a strip of one source image at Δv ≈ 0,
                     0.2, …, 1 with the accuracies at those Δv
  vcr eval           RESULTS.csv.json: the evaluation settings
  vcr requirements   requirements files (estimate) and verdicts (check)
  vcr contrast       contrast.json and its plots

Files written before the "tool" field existed are recognised by their
names (summary.json, run.json, coverage.json, *.csv.json,
requirements-check.json, *verdict*.json). Several analysis folders (one
per model, or several models each) make one report; its number of charts
depends on the corruptions, not on the models. The report explains each
measure for readers new to them; sections without data are left out and
named at the top. It is an error when the folders hold nothing of the
above.

Examples:
  vcr report run/analysis run/testset --out report.html
  vcr report analyses/resnet50 analyses/vit-b16 run/testset --out report.html
`

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", reportUsage, stderr)
	out := fs.String("out", "", "HTML `FILE` to write")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(dirs) == 0:
		return usagef("name the folders to read, e.g. vcr report analysis testset --out report.html")
	case *out == "":
		return usagef("--out is required, e.g. --out report.html")
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return usagef("%s is not a folder; name the folders the other commands wrote", d)
		}
	}
	if err := checkOutFile("--out", *out); err != nil {
		return err
	}
	if err := checkNotForeign("--out", *out, "an HTML page", isHTML); err != nil {
		return err
	}
	if err := report.WriteHTML(*out, dirs...); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vcr report: wrote %s\n", *out)
	return nil
}

// isHTML reports whether head begins an HTML page (an earlier report).
func isHTML(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(head, " \t\r\n\ufeff"))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}
