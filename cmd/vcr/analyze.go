package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/results"
	"github.com/vcr-bench/vcr/robustness"
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
Rows with an error are skipped, and so are rows whose label is outside the
task (empty correct_*). The clean accuracy anchoring a model's accuracy
curve is the mean of correct_clean over the distinct source images.

--human is a built-in dataset, the published data of Hu et al. (ICSE 2022):
  BUILTINS
or a human trial CSV as the experiment app exports it (docs/human-data.md),
or an ICSE 2022 per-trial CSV (with --human-vif-method). Every model
corruption needs a human series of the same corruption. Human curves are
fitted for the models' corruptions only, or with --all-human for every
corruption of the human data; with two or more, the corruptions visually
similar for humans (83% bands overlapping wherever both curves rest on
data) are reported.

All rows must share one VIF flavour; human data of another flavour is
refused unless --allow-vif-mismatch (then a loud warning is recorded in
summary.json as vif_mismatch_warning).

Plots draw humans black and dashed and give each model a colour from a
colour-blind-safe palette; --family resnet50=cnn,resnet18=cnn gives the
models of one family one colour (told apart by dash patterns).

REPORT receives:
  summary.json   per model and corruption: ra, rp and their intervals
                 (ra_ci83, ra_ci95, …), the plain mean accuracy, and with
                 --human hmri_a, mrsi_a, hmri_p, mrsi_p (+ _ci83, _ci95);
                 human estimates; similar corruptions; settings, warnings
  summary.csv    the same, one row per model/corruption and per human curve
  curves.csv     every fitted curve on a Δv grid with its bands
  bins.csv       the per-bin counts behind every curve
  curves_C_accuracy.svg/.png, curves_C_consistency.svg/.png
                 models and humans on one axis, per corruption C
  hmri_C_P.svg/.png, mrsi_C_P.svg/.png   bar charts (with --human)
  coverage_C.svg/.png                    the models' Δv histograms
and a table is printed.

Example:
  vcr analyze --results resnet50/results.csv,vit/results.csv --human icse2022-imagenet --out report
`

// loadHuman returns the human dataset named by spec: a built-in dataset
// (human.BuiltinNames), or a file: the project's trial CSV, or the ICSE
// 2022 per-trial CSV (recognised by its image_link and IQA columns), whose
// VIF flavour icseVIF must name since the file does not record it.
func loadHuman(spec, icseVIF string) (*human.Dataset, error) {
	if slices.Contains(human.BuiltinNames(), spec) {
		return human.Builtin(spec)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no such file, and not a built-in dataset (built-in: %s)", strings.Join(human.BuiltinNames(), ", "))
		}
		return nil, err
	}
	head, _, _ := bytes.Cut(data, []byte("\n"))
	if bytes.Contains(head, []byte("image_link")) && bytes.Contains(head, []byte("IQA")) {
		if icseVIF == "" {
			return nil, usagef("%s is an ICSE 2022 per-trial file, which does not record its VIF flavour; name it with --human-vif-method (%q for the published ImageNet data, %q for CIFAR-10)",
				spec, human.VIFVec, human.VIFVec2Layers)
		}
		return human.ReadICSETrials(bytes.NewReader(data), spec, icseVIF)
	}
	return human.ReadTrials(bytes.NewReader(data), spec)
}

// seriesSeed derives the bootstrap seed of one series from the master seed,
// so that different series (a model and the humans it is compared with)
// are resampled independently, yet every run with the same --seed writes
// the same numbers.
func seriesSeed(master uint64, subject, corruption string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", master, subject, corruption)
	return h.Sum64()
}

// canonicalCorruption maps a corruption name to its catalogue name when the
// catalogue knows it (so that the ICSE data's "RGB" meets "rgb_shift"),
// else to its lower-case form.
func canonicalCorruption(name string) string {
	if c, err := corrupt.Lookup(name); err == nil {
		return c.Name
	}
	return strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(name))
}

func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("analyze", strings.Replace(analyzeUsage, "BUILTINS", strings.Join(human.BuiltinNames(), ", "), 1), stderr)
	var files, names stringList
	fs.Var(&files, "results", "results `FILE`s of 'vcr eval', comma-separated or repeated")
	fs.Var(&names, "model-name", "model `NAME`s of the results files, in order (comma-separated or repeated)")
	out := fs.String("out", "", "report `folder` (created)")
	humanSpec := fs.String("human", "", "human data: a `FILE` or a built-in dataset")
	bins := fs.Int("bins", robustness.DefaultBins, "number `M` of equal Δv bins")
	minPer := fs.Int("min-per-bin", robustness.DefaultMinCount, "minimum rows `L` for a bin to enter the fit")
	boot := fs.Int("bootstrap", robustness.DefaultReplicates, "bootstrap replicates `B` (0: no bands or intervals)")
	seed := fs.Uint64("seed", 1, "bootstrap seed")
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
	fs.Var(&familyList, "family", "model families for the plots' colours: `MODEL=FAMILY`, comma-separated or repeated (e.g. resnet50=cnn,vit-b=vit)")
	allHuman := fs.Bool("all-human", false, "fit every corruption of the human data, not only the models' (for the similar-corruption classes)")
	allowVIF := fs.Bool("allow-vif-mismatch", false, "compare with human data of another VIF flavour (recorded as a warning)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	split := func(l stringList) []string {
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
	paths, models := split(files), split(names)
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q; pass results files with --results", pos)
	case len(paths) == 0:
		return usagef("--results is required, e.g. --results resnet50/results.csv")
	case *out == "":
		return usagef("--out is required, e.g. --out report")
	case len(models) > 0 && len(models) != len(paths):
		return usagef("%d --model-name values for %d results files", len(models), len(paths))
	case *bins < 1 || *bins > 100000:
		return usagef("--bins must be in 1…100000 (got %d), e.g. --bins 40", *bins)
	case *minPer < 1:
		return usagef("--min-per-bin must be at least 1 (got %d), e.g. --min-per-bin 20", *minPer)
	case *boot < 0:
		return usagef("--bootstrap must be 0 (none) or positive (got %d), e.g. --bootstrap 1000", *boot)
	}

	families := map[string]string{}
	for _, f := range split(familyList) {
		m, fam, ok := strings.Cut(f, "=")
		if !ok || m == "" || fam == "" {
			return usagef("--family %q: want MODEL=FAMILY, e.g. --family resnet50=cnn", f)
		}
		families[m] = fam
	}

	rf := make([]results.File, len(paths))
	for i, p := range paths {
		rf[i].Path = p
		if len(models) > 0 {
			rf[i].Model = models[i]
		}
	}
	tab, err := results.Read(rf)
	if err != nil {
		return err
	}
	a := &report.Analysis{Results: paths, Human: *humanSpec, VIFMethod: tab.VIFMethod,
		Bins: *bins, MinPerBin: *minPer, Bootstrap: *boot, Seed: *seed, Lambda: lambda, Families: families}
	for _, w := range tab.Warnings {
		a.Warnings = append(a.Warnings, w.Error())
	}

	// Human data: load, check flavour and corruptions before any fitting.
	var humans []robustness.Series
	humanFor := map[string]int{} // model corruption → index in humans
	if *humanSpec != "" {
		ds, err := loadHuman(*humanSpec, *humanVIF)
		if err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				return err
			}
			return fmt.Errorf("--human %s: %w", *humanSpec, err)
		}
		humans = ds.Series
		if len(humans) == 0 {
			return fmt.Errorf("--human %s: no human series", *humanSpec)
		}
		for i := range humans {
			humans[i].Human = true
			if humans[i].Subject == "" {
				humans[i].Subject = "human"
			}
		}
		slices.SortFunc(humans, func(x, y robustness.Series) int { return strings.Compare(x.Corruption, y.Corruption) })
		a.HumanVIFMethod = humans[0].VIFMethod
		for _, h := range humans[1:] {
			if h.VIFMethod != a.HumanVIFMethod {
				return fmt.Errorf("--human %s mixes VIF flavours (%s: %q, %s: %q)", *humanSpec, humans[0].Corruption, a.HumanVIFMethod, h.Corruption, h.VIFMethod)
			}
		}
		if a.HumanVIFMethod != tab.VIFMethod {
			msg := fmt.Sprintf("the model results' Δv was computed with VIF flavour %q but the human data %s with %q; their Δv axes are not comparable",
				tab.VIFMethod, *humanSpec, a.HumanVIFMethod)
			if !*allowVIF {
				return fmt.Errorf("%w: %s (re-run 'vcr generate --vif-method %s', or pass --allow-vif-mismatch to compare anyway)", robustness.ErrVIFMismatch, msg, a.HumanVIFMethod)
			}
			a.VIFMismatch = "VIF flavours differ, compared anyway (--allow-vif-mismatch): " + msg
			fmt.Fprintf(stderr, "vcr analyze: WARNING: %s\n", a.VIFMismatch)
		}
		var have []string
		byName := map[string]int{}
		for i, h := range humans {
			have = append(have, h.Corruption)
			byName[canonicalCorruption(h.Corruption)] = i
		}
		need := make([]bool, len(humans))
		for _, s := range tab.Series {
			i, ok := byName[canonicalCorruption(s.Corruption)]
			if !ok {
				return fmt.Errorf("%w: the human data %s has no series for corruption %q (model %s); it has %s",
					robustness.ErrCorruptionMismatch, *humanSpec, s.Corruption, s.Subject, strings.Join(have, ", "))
			}
			need[i] = true
		}
		var keep []robustness.Series
		for i, h := range humans {
			if need[i] || *allHuman {
				humanFor[canonicalCorruption(h.Corruption)] = len(keep)
				keep = append(keep, h)
			}
		}
		humans = keep
	}

	// Fit every series.
	opt := robustness.Options{Bins: *bins, MinCount: *minPer, Replicates: *boot, Lambda: lambda}
	if *boot == 0 {
		opt.Replicates = -1
	}
	all := slices.Concat(tab.Series, humans)
	var bar *progress.Bar
	if *boot > 0 && progress.IsTerminal(stderr) {
		bar = progress.New(stderr, *boot*len(all), progress.Options{Label: "bootstrap"})
		opt.Progress = func(int, int) { bar.Add(1) }
	}
	ests := make([]*robustness.Estimate, len(all))
	for i, s := range all {
		o := opt
		o.Seed = seriesSeed(*seed, s.Subject, s.Corruption)
		e, err := robustness.Fit(ctx, s, o)
		if err != nil {
			bar.Finish()
			if errors.Is(err, context.Canceled) {
				return err
			}
			who := "model " + s.Subject
			if s.Human {
				who = "human data " + *humanSpec
			}
			return fmt.Errorf("%s, corruption %s: %w", who, s.Corruption, err)
		}
		ests[i] = e
	}
	bar.Finish()
	a.Models, a.Humans = ests[:len(tab.Series)], ests[len(tab.Series):]
	for _, e := range ests {
		for _, w := range e.Warnings {
			a.Warnings = append(a.Warnings, w.Error())
		}
	}
	if len(humans) > 0 {
		a.Comparisons = make([]*robustness.Comparison, len(a.Models))
		for i, m := range a.Models {
			h := a.Humans[humanFor[canonicalCorruption(m.Corruption)]]
			// The names may differ in spelling only (canonicalCorruption).
			c, err := robustness.Compare(m, h, robustness.CompareOptions{AllowVIFMismatch: *allowVIF, AllowCorruptionMismatch: true})
			if err != nil {
				return err
			}
			a.Comparisons[i] = c
		}
		if len(a.Humans) >= 2 && *boot > 0 {
			co := robustness.CompareOptions{AllowVIFMismatch: *allowVIF}
			if a.SimilarAccuracy, err = robustness.Similarity(a.Humans, robustness.AccuracyCurve, co); err != nil {
				a.Warnings = append(a.Warnings, "similar corruptions (accuracy): "+err.Error())
			}
			if a.SimilarConsistency, err = robustness.Similarity(a.Humans, robustness.ConsistencyCurve, co); err != nil {
				a.Warnings = append(a.Warnings, "similar corruptions (consistency): "+err.Error())
			}
		}
	}

	// Outputs.
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		fill func(io.Writer) error
	}{
		{"summary.json", a.WriteJSON},
		{"summary.csv", a.WriteSummaryCSV},
		{"curves.csv", a.WriteCurvesCSV},
		{"bins.csv", a.WriteBinsCSV},
	} {
		p := filepath.Join(*out, f.name)
		if err := atomicfile.Write(p, f.fill); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	plots, err := a.WritePlots(*out)
	if err != nil {
		return err
	}
	if err := a.WriteTable(stdout); err != nil {
		return err
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "vcr analyze: warning: %s\n", w)
	}
	fmt.Fprintf(stderr, "vcr analyze: %d rows of %d models, %d corruptions; report in %s (summary.json, summary.csv, curves.csv, bins.csv, %d plots)\n",
		tab.Rows, countModels(tab.Series), len(a.Corruptions()), *out, len(plots))
	return nil
}

func countModels(s []robustness.Series) int {
	var m []string
	for _, x := range s {
		if !slices.Contains(m, x.Subject) {
			m = append(m, x.Subject)
		}
	}
	return len(m)
}
