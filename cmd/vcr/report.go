package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/vcr-bench/vcr/report"
)

func init() {
	addCommand(&command{name: "report", summary: "write a self-contained HTML report of generate/eval/analyze/requirements outputs", run: runReport})
}

const reportUsage = `
Usage: vcr report --in DIR[,DIR…] --out report.html

Writes one self-contained HTML file (inline CSS, plots and example images
as data: URIs, no scripts, nothing fetched from the network) from whatever
the other commands wrote in the folders DIR and below them (up to four
levels; folders named images are skipped):

  vcr analyze        summary.json and its SVG plots: performance curves
                     with bands, R̂a/R̂p and HMRI/MRSI tables with intervals
  vcr generate       run.json, coverage.json, manifest.csv and images:
                     settings, Δv coverage histograms, example images at
                     Δv ≈ 0.1, 0.3, 0.5, 0.7, 0.9 per corruption
  vcr eval           results.csv.json: the evaluation settings
  requirements       requirements files and verdicts (requirements-check.json)

and explains each measure for readers new to them. A section without data
says so. It is an error when the folders hold nothing of the above.

Example:
  vcr report --in run/analysis,run/testset --out report.html
`

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", reportUsage, stderr)
	var in stringList
	fs.Var(&in, "in", "`DIR`s to read, comma-separated or repeated")
	out := fs.String("out", "", "HTML `FILE` to write")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	var dirs []string
	for _, v := range in {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q; pass folders with --in", pos)
	case len(dirs) == 0:
		return usagef("--in is required, e.g. --in analysis")
	case *out == "":
		return usagef("--out is required, e.g. --out report.html")
	}
	if err := report.WriteHTML(*out, dirs...); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vcr report: wrote %s\n", *out)
	return nil
}
