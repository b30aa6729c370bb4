package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/analysis"
	"github.com/vcr-bench/vcr/human"
)

func init() {
	addCommand(&command{name: "error-consistency", summary: "accuracy and error consistency per condition on model-vs-human data", run: runErrorConsistency})
}

const errorConsistencyUsage = `
Usage: vcr error-consistency --human DATA --out DIR [--predictions FILE[,FILE…]]
                             [--plot FIG.svg|FIG.png] [flags]

Compares observers trial by trial on model-vs-human's data (Geirhos et al.,
NeurIPS 2018 and 2021): per condition, every observer's 16-class accuracy
and, for every pair of observers, the error consistency (Geirhos, Meding &
Wichmann, NeurIPS 2020: c_obs, c_exp and Cohen's kappa), computed as
model-vs-human's analysis code does; trials are matched by condition and
image id (the last two parts of the image name after an n0… synset, else the
last part). The mean kappa over pairs of human subjects is the ceiling; each
model gets its mean kappa over the subjects. --bootstrap percentile 95%
intervals resample each pair's shared trials (seeded by --seed).

--human is an embedded dataset, builtin:NAME or NAME:
  BUILTINS
or a folder of model-vs-human raw-data CSVs, or one such CSV (columns subj,
Session, trial, rt, object_response, category, condition, imagename).
--predictions are models' answers to the same stimuli, either in that
format, as model-vs-human writes them for models (subj: the model's name),
or as a predictions CSV keyed by image name: columns imagename (or path,
as 'vcr eval --predictions' reads) and prediction (or pred, class): one of
the 16 categories, an ImageNet WordNet ID or an ImageNet-1k index (0…999),
mapped to the 16 categories by the imagenet16 task; a class in none of
them is wrong. A file with the 1000 ImageNet-1k scores logit_0 …
logit_999 (as 'vcr eval --logits' writes them) is decided as
model-vs-human decides: softmax, the mean probability of each category's
classes, arg-max over the 16 (--probabilities: the scores are
probabilities already). Optional: model (several models in one file; else the file
name is the model) and condition. An image is matched to the humans'
stimuli by its condition and image id (its base name as above, extension
ignored); without a condition column the condition is the fourth
"_"-part of the name (model-vs-human's stimulus names such as
0001_cop_dnn_c30_knife_10_n03041632_7380.png), else the one condition
showing that image id. Images no human saw, ambiguous names, unknown
classes and a stimulus answered twice are errors.

For error consistency on vcr's own test sets and experiments, give
'vcr analyze' an experiment export as --human (docs/analyze.md).

DIR is created and receives:
  accuracy.csv           observer, human, condition, n, correct, accuracy
  error_consistency.csv  per pair and condition: n, accuracies, c_obs,
                         c_exp, kappa, kappa_lo, kappa_hi
  summary.json           ("tool": "vcr error-consistency") the accuracies,
                         human_ceiling, model_human and conditions
--plot writes model-vs-human's two figures of the dataset side by side:
16-class accuracy and error consistency (kappa) against the condition, the
humans as a red line of their mean with the subjects' range as a band and
each subject as a point, each model as a coloured line (PNG: 1200×560).

And a table is printed: per condition, the humans' mean accuracy, mean
kappa (the ceiling) and the range of the subjects' mean kappas, and each
model's accuracy and mean kappa over the subjects.

Examples:
  vcr error-consistency --human builtin:mvh-contrast --predictions resnet50.csv --out ec
  vcr error-consistency --human mvh-uniform-noise --predictions preds.csv --out ec --plot ec/figure.svg
  vcr error-consistency --human mvh-contrast --predictions logits.csv --out ec
`

func runErrorConsistency(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("error-consistency", strings.Replace(errorConsistencyUsage, "BUILTINS", strings.Join(human.MVHBuiltinNames(), ", "), 1), stderr)
	humanSpec := fs.String("human", "", "model-vs-human data: builtin:`NAME`, a built-in NAME, a raw-data folder or CSV")
	var preds stringList
	fs.Var(&preds, "predictions", "models' answers `FILE`s (imagename,prediction CSV or model-vs-human raw data), comma-separated or repeated")
	out := fs.String("out", "", "output `folder` (created)")
	plotPath := fs.String("plot", "", "figure `file` (.svg or .png): accuracy and error consistency per condition")
	boot := fs.Int("bootstrap", 1000, "bootstrap replicates `B` of the kappa intervals (0: none)")
	seed := fs.Uint64("seed", 1, "bootstrap seed")
	probabilities := fs.Bool("probabilities", false, "the predictions' logit_ columns are probabilities (default: logits)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *humanSpec == "":
		return usagef("--human is required, e.g. --human builtin:mvh-contrast")
	case *out == "":
		return usagef("--out is required, e.g. --out ec")
	}
	if err := checkOutDir("--out", *out); err != nil {
		return err
	}
	if *plotPath != "" {
		if ext := strings.ToLower(filepath.Ext(*plotPath)); ext != ".svg" && ext != ".png" {
			return usagef("--plot %s: want a file name ending in .svg or .png", *plotPath)
		}
		if err := checkOutFile("--plot", *plotPath); err != nil {
			return err
		}
	}
	res, err := analysis.ModelVsHuman(ctx, analysis.MVHOptions{Human: *humanSpec, Predictions: splitList(preds), Probabilities: *probabilities,
		Bootstrap: *boot, Seed: *seed, Out: *out, Plot: *plotPath})
	switch {
	case errors.Is(err, analysis.ErrOut):
		return usagef("--out: %v", err)
	case errors.Is(err, analysis.ErrOptions), errors.Is(err, human.ErrNotFound):
		return usageError{err}
	case err != nil:
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tobservers\taccuracy\tmean kappa\thumans' range\tpairs\t")
	for _, c := range res.Conditions {
		band := "-"
		if c.HumanKappaPairs > 0 {
			band = fmt.Sprintf("%.3f–%.3f", c.HumanKappaMin, c.HumanKappaMax)
		}
		if len(c.Subjects) > 0 {
			fmt.Fprintf(tw, "%s\thumans (ceiling)\t%.3f\t%s\t%s\t%d\t\n", c.Condition, c.HumanAccuracy, kappaCell(c.HumanKappa, c.HumanKappaPairs), band, c.HumanKappaPairs)
		}
		for _, m := range c.Models {
			fmt.Fprintf(tw, "%s\t%s vs humans\t%.3f\t%s\t\t%d\t\n", c.Condition, m.Name, m.Accuracy, kappaCell(m.Kappa, m.Pairs), m.Pairs)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ec := res.Consistency
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "vcr error-consistency: warning: %s\n", w)
	}
	fmt.Fprintf(stderr, "vcr error-consistency: %d humans, %d models, %d pair rows; results in %s (accuracy.csv, error_consistency.csv, summary.json)\n",
		ec.Humans, ec.Models, len(ec.Rows), *out)
	if *plotPath != "" {
		fmt.Fprintf(stderr, "vcr error-consistency: figure in %s\n", *plotPath)
	}
	return nil
}

// kappaCell formats a mean kappa, or "-" when it averages no pair.
func kappaCell(k float64, pairs int) string {
	if pairs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", k)
}
