package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/analysis"
	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/results"
)

func init() {
	addCommand(&command{name: "analyze", summary: "estimate VCR (R̂a, R̂p) with bands, and HMRI/MRSI against human data", run: runAnalyze})
}

const analyzeUsage = `
Usage: vcr analyze --results FILE[,FILE…] --out REPORT [--human DATA] [flags]

Estimates visually-continuous corruption robustness from the results tables
of 'vcr eval' (the VCR study's Algorithm 1): per model and corruption, the
rows are binned by Δv (--bins equal bins; bins with fewer than --min-per-bin
rows are left out of the fit), monotone non-increasing smoothing splines
are fitted to the per-bin accuracy and prediction consistency, anchored at
Δv = 0 to the clean accuracy and to 1, and their areas are R̂a and R̂p. A
bootstrap over the rows (--bootstrap replicates) gives pointwise 83% and 95%
bands and percentile intervals; each series' bootstrap seed is derived from
--seed and its model and corruption names (recorded in summary.json), so a
model and the humans are resampled independently and a rerun writes the
same numbers. With --human, human curves are fitted the same
way and every model is compared with the humans on its corruption:
HMRI = 1 − A(h>m)/A(h) (1: at least human everywhere) and
MRSI = A(m>h)/A(m) (how much the model exceeds humans).

The model of a results file is its --model-name (in file order), else the
file's model column, else the file's name (for DIR/results.csv, DIR's name).
The task a model was evaluated on is read from FILE.json beside the results
(as 'vcr eval' writes it); with --human, a task other than the human data's
(car / not car for the published data) is warned about once and recorded
in summary.json (task, human_task).
Rows with an error are skipped, and so are rows whose label is outside the
task (empty correct_*). The clean accuracy anchoring a model's accuracy
curve is the mean of correct_clean over the distinct source images.

--human is a built-in dataset, the published data of Hu et al. (ICSE 2022),
as builtin:NAME or NAME:
  BUILTINS
or a folder of the study's per-bin files, or a human trial CSV as the
experiment app exports it (docs/human-data.md), or an ICSE 2022 per-trial
CSV (with --human-vif-method). Model corruptions without human data are
analysed without HMRI/MRSI (one warning lists them). Human curves are
fitted for the models' corruptions only, or with --all-human for every
corruption of the human data; with two or more, the corruptions visually
similar for humans (83% bands overlapping wherever both curves rest on
data) are reported.

Models and humans must share one Δv axis. When the human data's VIF
flavour differs from the results' (vif_method), the models' Δv is taken
from the results' per-flavour column (dv_vifvec, dv_vifvec2_layers, …, as
'vcr generate --dv-methods' adds them); this is said once and recorded as
dv_method in summary.json. Without that column the comparison is refused
unless --allow-vif-mismatch (then a loud warning is recorded in
summary.json as vif_mismatch_warning). Without --human, all rows must share
one VIF flavour.

Curves are fitted on [0, 1] but rest on data only over the Δv range of the
bins that enter the fit: summary.json states it per model and corruption
(dv_covered, and human_dv_covered for the comparison), and the plots draw
the extrapolated parts dashed and faded.

When --human is a trial CSV of identified participants (as 'vcr
experiment export' writes it), the models and participants are also
compared trial by trial: error consistency (Geirhos, Meding & Wichmann,
NeurIPS 2020; Cohen's kappa of right/wrong beyond what the accuracies
explain) for every pair of observers on the corrupted stimuli they share,
matched on (source_id, corruption, params, dv) with the results' (source,
corruption, params, dv), per corruption and per Δv bin (5 bins), with
--bootstrap percentile 95% intervals. The mean over pairs of participants
is the human ceiling (docs/analyze.md).

Plots draw humans black and dashed and give each model a colour from a
colour-blind-safe palette; --model-family resnet50=cnn,resnet18=cnn gives the
models of one family one colour (told apart by dash patterns).

REPORT is created (with its parents) and checked to be writable before
anything is read. It receives:
  summary.json   ("tool": "vcr analyze") per model and corruption: ra, rp
                 and their intervals (ra_ci83, ra_ci95, …), dv_covered,
                 the plain mean accuracy, and with --human hmri_a, mrsi_a,
                 hmri_p, mrsi_p (+ _ci83, _ci95); human estimates; similar
                 corruptions; settings, tasks, warnings (grouped)
  summary.csv    the same, one row per model/corruption and per human curve
  curves.csv     every fitted curve on a Δv grid with its bands
  bins.csv       the per-bin counts behind every curve
  error_consistency.csv  kappa per pair of observers, corruption and
                 Δv bin (with participant trials as --human)
  curves_C_accuracy.svg/.png, curves_C_consistency.svg/.png
                 models and humans on one axis, per corruption C
  hmri_C_P.svg/.png, mrsi_C_P.svg/.png   bar charts (with --human)
  hmri_P_all.svg/.png, mrsi_P_all.svg/.png
                 one grouped chart per measure: every corruption and model
                 (with --human; P = accuracy, consistency)
  coverage_C.svg/.png                    the models' Δv histograms
and a table is printed. When results have a severity column with values
(a test set of 'vcr generate --imagenet-c', or imported results), the
ImageNet-C metrics (docs/analyze.md) are added: per model and corruption
the top-1 error per severity, CE = mean error ÷ AlexNet's (in %), mCE over
the 15 benchmark corruptions (none when one lacks a severity; a warning
names it) and relative CE/mCE with the clean error from correct_clean, in
  imagenet_c.json  (also "imagenet_c" in summary.json); with --bootstrap,
                   95% intervals of CE, relative CE, mCE and relative mCE
                   (images resampled within each corruption × severity)
  imagenet_c.csv   model, corruption, kind, severity, n, errors, error, ce,
                   relative_ce
and a second table is printed.

Example:
  vcr analyze --results resnet50/results.csv,vit/results.csv --human builtin:icse2022-imagenet --out report
`

// loadHuman returns the human dataset named by spec (human.Open), with the
// errors a user fixes by calling differently marked as usage errors.
func loadHuman(spec, icseVIF string) (*human.Dataset, error) {
	d, err := human.Open(spec, icseVIF)
	if errors.Is(err, human.ErrNotFound) || errors.Is(err, human.ErrNeedVIFMethod) {
		return nil, usageError{err}
	}
	return d, err
}

// canonicalCorruption is human.CanonicalCorruption.
func canonicalCorruption(name string) string { return human.CanonicalCorruption(name) }

// splitList splits comma-separated, possibly repeated flag values.
func splitList(l stringList) []string {
	var s []string
	for _, v := range l {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				s = append(s, p)
			}
		}
	}
	return s
}

func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("analyze", strings.Replace(analyzeUsage, "BUILTINS", strings.Join(human.BuiltinNames(), ", "), 1), stderr)
	def := analysis.DefaultOptions()
	var files, names stringList
	fs.Var(&files, "results", "results `FILE`s of 'vcr eval', comma-separated or repeated")
	fs.Var(&names, "model-name", "model `NAME`s of the results files, in order (comma-separated or repeated)")
	out := fs.String("out", "", "report `folder` (created)")
	humanSpec := fs.String("human", "", "human data: builtin:`NAME`, a built-in NAME, a per-bin folder or a trial file")
	bins := fs.Int("bins", def.Bins, "number `M` of equal Δv bins; 0: the VCR study's 40, or fewer (at least 5) when a series of trials (model, or humans given trial by trial) would have fewer than 4 bins of --min-per-bin rows")
	minPer := fs.Int("min-per-bin", def.MinPerBin, "minimum rows `L` for a bin to enter the fit")
	boot := fs.Int("bootstrap", def.Bootstrap, "bootstrap replicates `B` (0: no bands or intervals)")
	seed := fs.Uint64("seed", def.Seed, "bootstrap seed")
	var lambda *float64
	fs.Func("lambda", "fixed smoothing penalty `λ` > 0 (default: chosen by GCV)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || v > 1e300 {
			return fmt.Errorf("must be a positive number (got %q), e.g. --lambda 0.1", s)
		}
		lambda = &v
		return nil
	})
	humanVIF := fs.String("human-vif-method", "", "VIF `flavour` of an ICSE 2022 per-trial --human file (which does not record it)")
	var familyList stringList
	fs.Var(&familyList, "model-family", "model families for the plots' colours: `MODEL=FAMILY`, comma-separated or repeated (e.g. resnet50=cnn,vit-b=vit)")
	allHuman := fs.Bool("all-human", false, "fit every corruption of the human data, not only the models' (for the similar-corruption classes)")
	allowVIF := fs.Bool("allow-vif-mismatch", false, "compare with human data of another VIF flavour when the results lack its dv_<flavour> column (recorded as a warning)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	paths, models := splitList(files), splitList(names)
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q; pass results files with --results", pos)
	case len(paths) == 0:
		return usagef("--results is required, e.g. --results resnet50/results.csv")
	case *out == "":
		return usagef("--out is required, e.g. --out report")
	case len(models) > 0 && len(models) != len(paths):
		return usagef("%d --model-name values for %d results files", len(models), len(paths))
	}
	families := map[string]string{}
	for _, f := range splitList(familyList) {
		m, fam, ok := strings.Cut(f, "=")
		if !ok || m == "" || fam == "" {
			return usagef("--model-family %q: want MODEL=FAMILY, e.g. --model-family resnet50=cnn", f)
		}
		families[m] = fam
	}
	opt := analysis.Options{Human: *humanSpec, HumanVIFMethod: *humanVIF, AllHuman: *allHuman, AllowVIFMismatch: *allowVIF,
		Bins: *bins, MinPerBin: *minPer, Bootstrap: *boot, Seed: *seed, Lambda: lambda, Families: families, Out: *out}
	for i, p := range paths {
		f := results.File{Path: p}
		if len(models) > 0 {
			f.Model = models[i]
		}
		opt.Results = append(opt.Results, f)
	}
	if err := checkOutDir("--out", *out); err != nil {
		return err
	}
	for _, p := range paths {
		if err := checkResultsPath(p); err != nil {
			return err
		}
	}
	var bar *progress.Bar
	if progress.IsTerminal(stderr) {
		opt.Progress = func(done, total int) {
			if bar == nil {
				bar = progress.New(stderr, total, progress.Options{Label: "bootstrap"})
			}
			bar.Add(1)
		}
	}
	res, err := analysis.Run(ctx, opt)
	bar.Finish()
	switch {
	case errors.Is(err, analysis.ErrOut):
		return usagef("--out: %v", err)
	case errors.Is(err, analysis.ErrOptions), errors.Is(err, human.ErrNotFound), errors.Is(err, human.ErrNeedVIFMethod):
		return usageError{err}
	case err != nil:
		return err
	}
	a := res.Analysis
	if err := a.WriteTable(stdout); err != nil {
		return err
	}
	if err := a.WriteImageNetCTable(stdout); err != nil {
		return err
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "vcr analyze: warning: %s\n", w)
	}
	if a.VIFMismatch != "" {
		fmt.Fprintf(stderr, "vcr analyze: WARNING: %s\n", a.VIFMismatch)
	}
	plots, tables := 0, "summary.json, summary.csv, curves.csv, bins.csv"
	for _, f := range res.Files {
		if strings.HasSuffix(f, ".svg") || strings.HasSuffix(f, ".png") {
			plots++
		}
	}
	if a.ImageNetC != nil {
		tables += ", " + analysis.ImageNetCJSON + ", " + analysis.ImageNetCCSV
	}
	if ec := a.ErrorConsistency; ec != nil {
		tables += ", " + report.ErrorConsistencyFile
		fmt.Fprintf(stderr, "vcr analyze: error consistency of %d models and %d participants: %d rows\n", ec.Models, ec.Humans, len(ec.Rows))
	}
	fmt.Fprintf(stderr, "vcr analyze: %d rows of %d models, %d corruptions; report in %s (%s, %d plots)\n",
		res.Rows, res.Models, len(a.Corruptions()), *out, tables, plots)
	return nil
}

// checkResultsPath refuses, before any input is read, a --results path that
// is missing (a failure, exit 1) or a folder (a usage error) (often the test set's or the output folder), and
// names the results files vcr eval wrote there when it finds some.
func checkResultsPath(p string) error {
	st, err := os.Stat(p)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		// Exit 1, as for the other unreadable inputs of analyze.
		return fmt.Errorf("--results %s: no such file; give the RESULTS.csv that vcr eval --out wrote", p)
	case err != nil:
		return usagef("--results %s: %v", p, err)
	case !st.IsDir():
		return nil
	}
	// Results files are the CSVs with vcr eval's settings record beside them.
	sidecars, _ := filepath.Glob(filepath.Join(p, "*.csv.json"))
	var found []string
	for _, j := range sidecars {
		if c := strings.TrimSuffix(j, ".json"); fileExists(c) {
			found = append(found, c)
		}
	}
	if len(found) > 0 {
		return usagef("--results %s is a folder; give the results files in it: --results %s", p, strings.Join(found, ","))
	}
	return usagef("--results %s is a folder; give the RESULTS.csv files that vcr eval --out wrote", p)
}

// fileExists reports whether p is an existing regular file.
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
