package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/analysis"
	"github.com/vcr-bench/vcr/human"
)

func init() {
	addCommand(&command{name: "error-consistency", summary: "accuracy and error consistency per condition on model-vs-human data", run: runErrorConsistency})
}

const errorConsistencyUsage = `
Usage: vcr error-consistency --human DATA --out DIR [--predictions FILE[,FILE…]] [flags]

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
--predictions are models' answers to the same stimuli in that format, as
model-vs-human writes them for models (subj: the model's name).

For error consistency on vcr's own test sets and experiments, give
'vcr analyze' an experiment export as --human (docs/analyze.md).

DIR is created and receives:
  accuracy.csv           observer, human, condition, n, correct, accuracy
  error_consistency.csv  per pair and condition: n, accuracies, c_obs,
                         c_exp, kappa, kappa_lo, kappa_hi
  summary.json           ("tool": "vcr error-consistency") the accuracies,
                         human_ceiling and model_human per condition
and a table of the ceiling and the models' means is printed.

Example:
  vcr error-consistency --human builtin:mvh-contrast --predictions resnet50.csv --out ec
`

func runErrorConsistency(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("error-consistency", strings.Replace(errorConsistencyUsage, "BUILTINS", strings.Join(human.MVHBuiltinNames(), ", "), 1), stderr)
	humanSpec := fs.String("human", "", "model-vs-human data: builtin:`NAME`, a built-in NAME, a raw-data folder or CSV")
	var preds stringList
	fs.Var(&preds, "predictions", "models' answers `FILE`s in model-vs-human's raw-data format, comma-separated or repeated")
	out := fs.String("out", "", "output `folder` (created)")
	boot := fs.Int("bootstrap", 1000, "bootstrap replicates `B` of the kappa intervals (0: none)")
	seed := fs.Uint64("seed", 1, "bootstrap seed")
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
	res, err := analysis.ModelVsHuman(ctx, analysis.MVHOptions{Human: *humanSpec, Predictions: splitList(preds),
		Bootstrap: *boot, Seed: *seed, Out: *out})
	switch {
	case errors.Is(err, analysis.ErrOut):
		return usagef("--out: %v", err)
	case errors.Is(err, analysis.ErrOptions), errors.Is(err, human.ErrNotFound):
		return usageError{err}
	case err != nil:
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tobservers\tpairs\tmean kappa\t")
	ec := res.Consistency
	for _, c := range ec.Ceiling {
		fmt.Fprintf(tw, "%s\thumans (ceiling)\t%d\t%.3f\t\n", c.Corruption, c.Pairs, c.Kappa)
	}
	for _, m := range ec.ModelHuman {
		fmt.Fprintf(tw, "%s\t%s vs humans\t%d\t%.3f\t\n", m.Corruption, m.Model, m.Pairs, m.Kappa)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "vcr error-consistency: warning: %s\n", w)
	}
	fmt.Fprintf(stderr, "vcr error-consistency: %d humans, %d models, %d pair rows; results in %s (accuracy.csv, error_consistency.csv, summary.json)\n",
		ec.Humans, ec.Models, len(ec.Rows), *out)
	return nil
}
