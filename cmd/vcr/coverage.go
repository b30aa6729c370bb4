package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/testset"
)

func init() {
	addCommand(&command{name: "coverage", summary: "compare the Δv coverage of test sets side by side (e.g. uniform vs ImageNet-C)", run: runCoverage})
}

const coverageUsage = `
Usage: vcr coverage [--out DIR] [--name NAME]... [--bins M] [--min-per-bin L] RUN RUN...

Compares the Δv coverage of two or more test sets made by 'vcr generate'
(each RUN is an output folder, or its coverage.json): a table with one
coverage column per run, and for every corruption they share an overlay
histogram (DIR/<corruption>.svg and .png). Coverage is the VCR study's: Δv
split into M = 40 equal bins (--bins), a bin covered when it holds ≥ L = 20
images (--min-per-bin). With few rows per corruption, fewer bins or a lower
threshold show where the rows lie instead of 0 %. For an output folder the
coverage is computed from its manifest with these settings; a coverage.json
file must have been written with them.

The typical use is to see how much of the Δv range the five fixed ImageNet-C
severities miss compared with sampling the whole domain, on the same images:

  vcr generate --images val/ --corruptions gaussian_noise,frost --n 2000 --seed 1 --out uniform
  vcr generate --images val/ --corruptions gaussian_noise,frost --n 400 --seed 1 --imagenet-c --out inc
  vcr coverage --out compare uniform inc

(With the same --seed, draw k of both runs uses the same source image; N = 400
ImageNet-C draws make 2,000 rows, as many as N = 2000 uniform draws.)
Runs whose Δv was measured with different VIF methods are refused.
`

func runCoverage(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("coverage", coverageUsage, stderr)
	out := fs.String("out", "coverage-compare", "`folder` for the overlay histograms")
	bins := fs.Int("bins", testset.DefaultBins, "split Δv into `M` equal bins")
	minPerBin := fs.Int("min-per-bin", testset.DefaultMinPerBin, "a bin is covered with at least `L` rows")
	var names stringList
	fs.Var(&names, "name", "legend `name` for the runs, in order (repeatable; default: folder name and sampling)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("need at least two runs to compare (got %d)", len(pos))
	}
	if len(names) > 0 && len(names) != len(pos) {
		return usagef("%d --name values for %d runs", len(names), len(pos))
	}
	if *bins < 1 || *minPerBin < 1 {
		return usagef("--bins and --min-per-bin must be at least 1 (got %d, %d), e.g. --bins %d --min-per-bin %d", *bins, *minPerBin, testset.DefaultBins, testset.DefaultMinPerBin)
	}
	if err := checkOutDir("--out", *out); err != nil {
		return err
	}
	var runs []testset.Named
	for i, p := range pos {
		var rep *testset.CoverageReport
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(p, testset.StatusFile)); err != nil {
				return fmt.Errorf("%s has no %s; is it a finished 'vcr generate' output folder (with coverage.json)?", p, testset.StatusFile)
			}
			rep, err = testset.CoverageOfTestSet(p, *bins, *minPerBin)
			if err != nil {
				return err
			}
		} else {
			rep, err = testset.ReadCoverageReport(p)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("%s does not exist; name a finished 'vcr generate' output folder or its %s", p, testset.CoverageFile)
				}
				return err
			}
			if rep.Bins != *bins || rep.MinPerBin != *minPerBin {
				return usagef("%s was computed with %d bins and ≥ %d rows per bin, not --bins %d --min-per-bin %d; name its test-set folder to recompute, or pass those values", p, rep.Bins, rep.MinPerBin, *bins, *minPerBin)
			}
		}
		name := fmt.Sprintf("%s (%s)", filepath.Base(strings.TrimSuffix(filepath.Clean(p), string(filepath.Separator)+testset.CoverageFile)), rep.Sampling)
		if len(names) > 0 {
			name = names[i]
		}
		runs = append(runs, testset.Named{Name: name, Report: rep})
	}
	if err := report.CompareCoverage(stdout, *out, runs); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vcr coverage: overlay histograms in %s\n", *out)
	return nil
}
