package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/pairs"
)

func init() {
	addCommand(&command{name: "vif", summary: "measure the visual change Δv of image pairs (VIF)", run: runVIF})
}

const vifUsage = `
Usage: vcr vif [--vif-method M] [--json] REF DIST
       vcr vif --pairs PAIRS.csv [--out SCORED.csv] [--workers N] [--vif-method M]
               [--ref-col NAME] [--dist-col NAME] [--progress auto|always|never]

Measures how much DIST changed visually from REF: Sheikh & Bovik's Visual
Information Fidelity (VIF) and the visual change Δv = max(0, 1 − VIF), which
is 0 for no perceived change and 1 when all visual information is gone.
Both images are converted to grey as the VCR toolbox does (8-bit channels,
OpenCV's RGB→GRAY) and must have the same size.

Methods (--vif-method); record the method with every Δv, values of different
methods are not comparable:
  vcr-py            steerable-pyramid VIF as the VCR toolbox computes it (default)
  vifvec            Sheikh's MATLAB vifvec release (labelled the ICSE 2022
                    ImageNet human data)
  vifvec2-layers    vifvec on at most two pyramid levels (labelled the ICSE 2022
                    CIFAR-10 human data; reconstructed, see docs/vif.md)
  pixel             single-scale pixel-domain VIF, 11×11 windows (fast)
  pixel-multiscale  pixel-domain VIF over up to 5 scales

Pairs mode (--pairs) reads a CSV whose header names the reference and
distorted image columns ("reference" and "distorted", or "ref" and "dist";
see --ref-col and --dist-col). Relative paths are relative to the CSV's
directory. It writes the same CSV, every column kept in order, with the
columns vif, dv, vif_method and error appended, rows in input order, to --out
(atomically; its folder is checked before scoring) or to standard output. A
missing or broken image, or a size mismatch, does not stop the run: its row
gets empty vif and dv and the reason in error, and the command exits with
status 1 at the end. Pairs are scored in parallel (--workers).

Examples:
  vcr vif ref.png dist.png
  vcr vif --vif-method vifvec --json ref.png dist.png
  vcr vif --pairs pairs.csv --out scored.csv --workers 8
`

func runVIF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	names := make([]string, len(iqa.Methods))
	for i, m := range iqa.Methods {
		names[i] = string(m)
	}
	fs := newFlagSet("vif", vifUsage, stderr)
	methodName := fs.String("vif-method", string(iqa.Methods[0]), "VIF `method`: "+strings.Join(names, ", "))
	asJSON := fs.Bool("json", false, `print {"vif": …, "dv": …, "method": …} as JSON`)
	maxPixels := fs.Int("max-pixels", imageio.DefaultMaxPixels, "refuse images with more `pixels` than this (decompression-bomb guard)")
	pairsCSV := fs.String("pairs", "", "score every pair listed in this CSV `file`")
	out := fs.String("out", "", "pairs: write the scored CSV to this `file` (default: standard output)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "pairs: score this many `pairs` in parallel")
	refCol := fs.String("ref-col", "reference", "pairs: `name` of the reference path column (\"ref\" is also accepted)")
	distCol := fs.String("dist-col", "distorted", "pairs: `name` of the distorted path column (\"dist\" is also accepted)")
	prog := fs.String("progress", "auto", "pairs: progress bar on stderr: auto (when stderr is a terminal), always or never")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	method, err := iqa.ParseMethod(*methodName)
	if err != nil {
		return usageError{fmt.Errorf("--vif-method: %w", err)}
	}
	opt := imageio.Options{MaxPixels: *maxPixels}

	if *pairsCSV == "" {
		var batchOnly []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "out", "workers", "ref-col", "dist-col", "progress":
				batchOnly = append(batchOnly, "--"+f.Name)
			}
		})
		if len(batchOnly) > 0 {
			verb := "applies"
			if len(batchOnly) > 1 {
				verb = "apply"
			}
			return usagef("%s %s only with --pairs", strings.Join(batchOnly, ", "), verb)
		}
		if len(pos) != 2 {
			return usagef("need exactly two arguments, REF and DIST (got %d), or --pairs PAIRS.csv%s", len(pos), jsonTakesNoFile(*asJSON, pos, 2))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := pairs.ScoreFiles(iqa.NewScorer(method), pos[0], pos[1], pos[0], pos[1], opt)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(r)
		}
		levels := ""
		if r.Levels > 0 {
			levels = fmt.Sprintf(", %d levels", r.Levels)
		}
		_, err = fmt.Fprintf(stdout, "VIF %.6f  Δv %.6f  (%s%s)\n", r.VIF, r.DV, r.Method, levels)
		return err
	}

	if len(pos) != 0 {
		return usagef("--pairs takes no positional arguments (got %s)", strings.Join(pos, " "))
	}
	if *asJSON {
		return usagef("--json applies to a single pair; --pairs writes CSV")
	}
	if *workers < 1 {
		return usagef("--workers must be at least 1 (got %d), e.g. --workers %d", *workers, runtime.GOMAXPROCS(0))
	}
	var showBar bool
	switch *prog {
	case "auto":
		showBar = progress.IsTerminal(stderr)
	case "always":
		showBar = true
	case "never":
	default:
		return usagef("--progress must be auto, always or never (got %q)", *prog)
	}
	if *out != "" {
		if err := checkOutFile("--out", *out); err != nil {
			return err
		}
	}
	refSet, distSet := false, false
	fs.Visit(func(f *flag.Flag) {
		refSet = refSet || f.Name == "ref-col"
		distSet = distSet || f.Name == "dist-col"
	})
	po := pairs.Options{In: *pairsCSV, Method: method, Workers: *workers, Image: opt,
		RefCol: *refCol, DistCol: *distCol, RefAlias: !refSet, DistAlias: !distSet}
	var bar *progress.Bar
	if showBar {
		n, err := pairs.CountRows(*pairsCSV)
		if err != nil {
			return err
		}
		bar = progress.New(stderr, n, progress.Options{Label: "scoring"})
		po.Progress = func() { bar.Add(1) }
	}
	var sum pairs.Summary
	score := func(w io.Writer) error {
		var err error
		sum, err = pairs.Score(ctx, po, w)
		bar.Finish()
		return err
	}
	if *out == "" {
		err = score(stdout)
	} else {
		err = atomicfile.Write(*out, score)
	}
	var ce *pairs.ColumnError
	if errors.As(err, &ce) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d pairs scored, %d failed\n", sum.Scored, sum.Failed)
	if sum.Failed > 0 {
		where := "standard output"
		if *out != "" {
			where = *out
		}
		return fmt.Errorf("%d of %d pairs failed; the error column of %s says why", sum.Failed, sum.Scored+sum.Failed, where)
	}
	return nil
}
