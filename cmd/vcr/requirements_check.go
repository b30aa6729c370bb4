// This file implements vcr requirements check: a model against reliability
// requirements (package reliability), with a table, JSON and JUnit XML.

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/reliability"
	"github.com/vcr-bench/vcr/task"
)

const requirementsCheckUsage = `
Usage: vcr requirements check --requirements REQ.json --images DIR (--model MODEL.onnx | --server URL --model-name NAME) [flags]
       vcr requirements check --requirements REQ.json --testset DIR (--model MODEL.onnx | --server URL --model-name NAME | --predictions FILE.csv) [flags]

Checks a model against reliability requirements (Hu et al., ICSE 2022; see
docs/requirements-check.md). For each requirement (transformation, t_c,
t_p): draw --bootstrap-batches batches of --images-per-batch images with
replacement from --images, transform each with parameters drawn uniformly
from the corruption's domain, redrawn until Δv ≤ t_c (correctness) or
Δv ≤ t_p (preservation) — at most --max-attempts draws per image, failures
are reported — and run the model on the originals and the transformed
images. Per batch: m0 (accuracy on the originals), m_tc, s0 (prediction
agreement of the pairs with Δv ≤ ε, ε the --quantile of all preservation
Δv) and s_tp. A requirement holds iff Δ + z·σ ≤ 0 for both Δm = m0 − m_tc
and Δs = s0 − s_tp (σ = √(σ²_base + σ²_transformed), the batch spread; z
for one-sided --alpha). --repro-tolerance > 0 reruns with seed+1 and warns
when Δ differs by more; the warnings are printed, and kept in --json and
--junit.

Δv is computed with the requirement's VIF flavour (vif_method: vifvec for
the ImageNet human data, vifvec2-layers for CIFAR-10). --vif-method names
another, which is refused unless --allow-vif-mismatch: thresholds on one
flavour's Δv axis do not carry over to another's.

The model runs through the same backends as 'vcr eval': ONNX Runtime
(--model) or an Open Inference Protocol server (--server).
--task maps the model's outputs to the task (e.g. imagenet-car for the
study's car / not-car task); the images' labels are mapped the same way and
images outside the task are left out.

With --testset DIR (a test set written by 'vcr generate') no image is
generated: each drawn source takes, per threshold, its next row of the
corruption that was drawn uniformly and whose Δv (the dv_<flavour> column of
the requirement's VIF flavour) meets the threshold. Uniform draws filtered by
Δv have the rejection loop's distribution, so the check costs model
inference only, each image classified once; --predictions FILE.csv (the
predictions of 'vcr eval --predictions' for the test set's images) needs no
model at all. --images then says where the test set's source dataset is
now (default: as its run.json records). Before it starts, the check prints
per requirement the usable rows per threshold, the sources left out (no row
under the tighter threshold) and the images it will classify, and warns when
too few rows make it reuse them heavily (docs/requirements-check.md).

Output paths (--json, --junit) are checked, and missing folders created,
before the check starts. The table on stdout has two rows per requirement
(correctness t_c and preservation t_p); a requirement is violated when
either row is.

Exit status: 0 when every requirement holds, 1 when any is violated, 2 on
an error (usage, data, model).

Examples:
  vcr requirements check --requirements frost.json --images val --imagenet-labels LOC_val_solution.csv \
      --model resnet50.onnx --preset imagenet --task imagenet-car --junit out.xml
  vcr requirements check --requirements req.json --images cifar10 --server http://triton:8000 \
      --model-name resnet --preset cifar --task cifar10-car --json out.json
  vcr requirements check --requirements req.json --testset vcr-val --predictions preds.csv --json out.json
  vcr requirements check --requirements req.json --testset vcr-val --model resnet50.onnx --preset imagenet \
      --task imagenet-car --junit out.xml
`

// runRequirementsCheck is "vcr requirements check".
func runRequirementsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := requirementsCheck(ctx, args, stdout, stderr)
	var ue usageError
	var ee exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.As(err, &ue), errors.As(err, &ee):
		return err
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return err
	}
	// Data and model errors exit 2, leaving 1 to "violated".
	return exitError{code: exitUsage, err: err}
}

func requirementsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("requirements check", requirementsCheckUsage, stderr)
	var f evalFlags
	addModelFlags(fs, &f, "task")
	fs.StringVar(&f.testSet, "testset", "", "test set `folder` written by vcr generate: take the transformed images from its rows instead of generating them")
	fs.StringVar(&f.predictions, "predictions", "", "predictions CSV `file` for the --testset images instead of a model (as vcr eval --predictions reads)")
	reqPath := fs.String("requirements", "", "requirements `file` (JSON) written by vcr requirements estimate (required)")
	only := fs.String("transformation", "", "check only these `names` (comma-separated)")
	images := fs.String("images", "", "dataset `path` of the original images: folder, ImageNet validation folder, CIFAR batches or list CSV (required without --testset; with it: where the test set's source dataset is now)")
	kind := fs.String("dataset-kind", "auto", "dataset `kind`: "+strings.Join(dataset.Kinds, ", "))
	labels := fs.String("imagenet-labels", "", "ImageNet validation labels `file` for --images")
	synsets := fs.String("synsets", "", "class list `file` for an ImageNet validation folder or list CSV")
	split := fs.String("split", "", "CIFAR `split`: test (default) or train")
	maxPixels := fs.Int("max-pixels", 0, "decoder pixel `limit` (0: default, negative: none)")
	batches := fs.Int("bootstrap-batches", reliability.DefaultBatches, "bootstrap batches `n` (at least 2)")
	perBatch := fs.Int("images-per-batch", reliability.DefaultBatchSize, "images per bootstrap batch `k`")
	quantile := fs.Float64("quantile", reliability.DefaultQuantile, "ε is this lower `q`uantile of the preservation draws' Δv, in (0, 1]")
	alpha := fs.Float64("alpha", reliability.DefaultAlpha, "one-sided significance `level`, in (0, 0.5)")
	seed := fs.Uint64("seed", 1, "master `seed`")
	attempts := fs.Int("max-attempts", reliability.DefaultMaxAttempts, "parameter draws per image before giving up on it (not with --testset)")
	reproTol := fs.Float64("repro-tolerance", 0.02, "rerun with seed+1 and warn when Δm or Δs differ by more than this (0: no rerun)")
	vif := fs.String("vif-method", "", "VIF `flavour` of Δv (default: the requirement's; another one is refused unless --allow-vif-mismatch): "+vifMethodNames())
	allowVIF := fs.Bool("allow-vif-mismatch", false, "accept a --vif-method other than the requirement's (or one for a requirement whose flavour this vcr does not know)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "images transformed and scored in parallel")
	junit := fs.String("junit", "", "write JUnit XML to `file` (one test case per requirement)")
	jsonOut := fs.String("json", "", "write the verdicts and warnings as JSON to `file`")
	prog := fs.String("progress", "auto", "progress `mode` on stderr: auto or always (every 10 % of a requirement's batches, and its timing), never")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	modelBatch := flagName(fs, &f.batch, "--batch")
	switch {
	case len(pos) > 0:
		return usagef("unexpected argument %q", pos[0])
	case *reqPath == "":
		return usagef("--requirements is required")
	case f.predictions != "" && f.testSet == "":
		return usagef("--predictions needs --testset: the predictions are for a test set's images (a check without --testset generates its images)")
	case *images == "" && f.testSet == "":
		return usagef("--images is required: the folder of original images")
	case f.server != "" && f.modelName == "" && f.modelPath != "":
		f.modelName, f.modelPath = f.modelPath, ""
	}
	given := 0
	for _, s := range []string{f.modelPath, f.server, f.predictions} {
		if s != "" {
			given++
		}
	}
	switch {
	case given == 0 && f.testSet != "":
		return usagef("give the model: --model FILE.onnx, --server URL --model-name NAME, or --predictions FILE.csv")
	case given == 0:
		return usagef("give the model: --model FILE.onnx or --server URL --model-name NAME (or check on a test set's images with --testset DIR, which also takes --predictions FILE.csv)")
	case given > 1:
		return usagef("give one of --model, --server and --predictions")
	case f.server != "" && f.modelName == "":
		return usagef("--server needs --model-name")
	case f.modelName != "" && f.server == "":
		return usagef("%s", modelNameWithoutServer)
	case f.batch < 1:
		return usagef("%s must be at least 1 (got %d)", modelBatch, f.batch)
	case *workers < 1:
		return usagef("--workers must be at least 1 (got %d)", *workers)
	case f.concurrency < 1:
		return usagef("--concurrency must be at least 1 (got %d)", f.concurrency)
	case *batches < 2:
		return usagef("--bootstrap-batches must be at least 2 for a standard deviation (got %d)", *batches)
	case *perBatch < 1:
		return usagef("--images-per-batch must be at least 1 (got %d)", *perBatch)
	case *attempts < 1:
		return usagef("--max-attempts must be at least 1 (got %d)", *attempts)
	case f.layout != "" && f.layout != string(model.NCHW) && f.layout != string(model.NHWC):
		return usagef("--layout must be NCHW or NHWC (got %q)", f.layout)
	case !(*quantile > 0 && *quantile <= 1):
		return usagef("--quantile must be in (0, 1] (got %v)", *quantile)
	case !(*alpha > 0 && *alpha < 0.5):
		return usagef("--alpha must be in (0, 0.5) (got %v)", *alpha)
	case *reproTol < 0:
		return usagef("--repro-tolerance must not be negative (got %v)", *reproTol)
	case *prog != "auto" && *prog != "always" && *prog != "never":
		return usagef("--progress must be auto, always or never (got %q)", *prog)
	}
	var method iqa.Method
	if *vif != "" {
		if method, err = iqa.ParseMethod(*vif); err != nil {
			return usagef("--vif-method: %v", err)
		}
	}
	if f.testSet != "" {
		// Flags of the generated images have no meaning with a test set.
		var bad []string
		fs.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "dataset-kind", "imagenet-labels", "synsets", "split", "max-attempts":
				bad = append(bad, "--"+fl.Name)
			}
		})
		if len(bad) > 0 {
			return usagef("%s: not with --testset (the test set's run.json says how its sources were read, and its rows replace the parameter draws)", strings.Join(bad, ", "))
		}
	}
	if err := checkOutFiles([2]string{"--json", *jsonOut}, [2]string{"--junit", *junit}); err != nil {
		return err
	}
	if err := checkNotForeign("--json", *jsonOut, "a verdicts file of vcr requirements check", isVerdictsFile); err != nil {
		return err
	}
	if err := checkNotForeign("--junit", *junit, "a JUnit XML file", isJUnit); err != nil {
		return err
	}

	file, err := reliability.ReadFile(*reqPath)
	if err != nil {
		return usagef("--requirements: %v", err)
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	reqs, err := file.Select(names)
	if err != nil {
		return usagef("--transformation: %s: %v", *reqPath, err)
	}
	// Refuse a flavour problem before opening the data and the model.
	for _, r := range reqs {
		if err := vifUsable(r, method, *allowVIF); err != nil {
			return err
		}
	}
	out := checkOutputs{json: *jsonOut, junit: *junit}
	if f.testSet != "" {
		return requirementsCheckTestSet(ctx, &f, testSetCheck{
			reqPath: *reqPath, reqs: reqs, images: *images, maxPixels: *maxPixels, workers: *workers, progress: *prog,
			opt: reliability.TestSetOptions{Batches: *batches, BatchSize: *perBatch, Quantile: *quantile, Alpha: *alpha, Seed: *seed,
				VIFMethod: method, OverrideVIF: *allowVIF, ReproTolerance: *reproTol},
		}, out, stdout, stderr)
	}
	ds, err := dataset.Open(dataset.Spec{Kind: *kind, Path: *images, Labels: *labels, Synsets: *synsets, Split: *split, MaxPixels: *maxPixels})
	if err != nil {
		return fmt.Errorf("--images: %w", err)
	}
	em, err := openEvalModel(ctx, &f, stderr)
	if err != nil {
		return err
	}
	defer em.classifier.Close()
	mp, _ := em.mapper.(task.Mapping)
	truth := func(it dataset.Item) (int, error) {
		if it.Label < 0 && it.LabelName == "" {
			return -1, fmt.Errorf("%w: unlabelled (give --imagenet-labels or a labelled folder)", task.ErrOutsideTask)
		}
		if mp == nil {
			// A model with its own classes and no mapping (the built-in
			// demonstration model): labels are matched by class name.
			if i := slices.Index(em.classes, it.LabelName); i >= 0 {
				return i, nil
			}
			return -1, fmt.Errorf("%w: class %q is not one of the model's classes %s", task.ErrOutsideTask, it.LabelName, strings.Join(em.classes, ", "))
		}
		return task.Truth(mp, it.Label, it.LabelName)
	}
	fmt.Fprintf(stderr, "vcr requirements check: %s; %d images from %s\n", em.describe, ds.Len(), *images)

	quiet := *prog == "never"
	rep := reliability.NewCheckReport(*reqPath, em.describe, *images)
	modelTask, modelClasses := task.NameIdentity, em.classes
	if mp != nil {
		modelTask, modelClasses = mp.Name(), mp.Classes()
	}
	for _, w := range reliability.TaskWarnings(reqs, modelTask, len(modelClasses)) {
		rep.Warnings = append(rep.Warnings, w)
	}
	start := time.Now()
	for _, r := range reqs {
		opt := reliability.CheckOptions{
			Images: ds, Classifier: em.classifier, Preprocess: em.preprocess, Mapping: em.mapper, Truth: truth,
			Batches: *batches, BatchSize: *perBatch, Quantile: *quantile, Alpha: *alpha, Seed: *seed,
			MaxAttempts: *attempts, VIFMethod: method, OverrideVIF: *allowVIF, ReproTolerance: *reproTol,
			Workers: *workers, ModelBatch: f.batch,
		}
		if !quiet {
			opt.Progress = checkProgress(stderr, r.Transformation, *batches, start)
		}
		v, err := reliability.Check(ctx, r, opt)
		if err != nil {
			return err
		}
		if !quiet {
			tm := v.Timing
			fmt.Fprintf(stderr, "  %s: %.1fs wall; summed over workers: VIF %.1fs, corruption %.1fs, loading %.1fs, preprocessing %.1fs; model calls %.1fs; %d draws (VIF computations) for %d+%d accepted images\n",
				r.Transformation, tm.Wall, tm.VIF, tm.Corrupt, tm.Load, tm.Preprocess, tm.Model,
				v.Draws, v.Correctness.Images, v.Preservation.Images)
		}
		rep.Add(v)
	}
	rep.Seconds = time.Since(start).Seconds()
	return out.write(rep, stdout, stderr)
}

// checkOutputs are the outputs of a check besides the table.
type checkOutputs struct{ json, junit string }

// write prints the report's table and warnings, writes the --json and
// --junit files and returns the exit status of the verdicts.
func (o checkOutputs) write(rep *reliability.CheckReport, stdout, stderr io.Writer) error {
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "vcr requirements check: warning: %s\n", w)
	}
	if o.json != "" {
		if err := atomicfile.Write(o.json, rep.Write); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	if o.junit != "" {
		if err := atomicfile.Write(o.junit, rep.WriteJUnit); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	if c := rep.Count(); c.ViolatedRequirements > 0 {
		return exitError{code: exitFailure, err: errors.New(c.String())}
	}
	return nil
}

// vifUsable refuses a requirement whose VIF flavour cannot be used with
// --vif-method and --allow-vif-mismatch as given, naming the flags that fix it.
func vifUsable(r reliability.Requirement, method iqa.Method, allow bool) error {
	err := reliability.CheckVIF(r, method, allow)
	var ve *reliability.VIFMethodError
	if !errors.As(err, &ve) {
		return err
	}
	switch {
	case ve.Requirement == "":
		return usagef("%v, e.g. --vif-method %s", err, iqa.Methods[0])
	case ve.Unknown:
		s := ve.Suggest
		if s == "" {
			s = "NAME"
		}
		return usagef("%v; to compute Δv with a known flavour anyway, give --vif-method %s --allow-vif-mismatch", err, s)
	}
	own := ve.Requirement
	if m, ok := reliability.CanonicalVIF(own); ok {
		own = string(m)
	}
	return usagef("%v; give --vif-method %s (the requirement's), or add --allow-vif-mismatch to check on the %s axis anyway", err, own, ve.Asked)
}

// vifMethodNames lists the VIF flavours.
func vifMethodNames() string {
	s := make([]string, len(iqa.Methods))
	for i, m := range iqa.Methods {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// checkProgress returns a check's progress callback: a line per tenth of
// the batches. With the reproducibility rerun (--repro-tolerance > 0) the
// total counts the batches of both runs, so the line says which run it is
// in, lest "20/40" read as half of the --bootstrap-batches 20 asked for.
func checkProgress(stderr io.Writer, name string, batches int, start time.Time) func(done, total int) {
	step := 0
	return func(done, total int) {
		if p := done * 10 / total; p > step || done == total {
			step = p
			run := ""
			if batches > 0 && total == 2*batches {
				run = "run 1 of 2; "
				if done > batches {
					run = "run 2 of 2, the reproducibility rerun; "
				}
			}
			fmt.Fprintf(stderr, "  %s: %d/%d batches (%s%s)\n", name, done, total, run, time.Since(start).Round(time.Second))
		}
	}
}

// isJUnit reports whether head begins a JUnit XML report.
func isJUnit(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte("<?xml")) && bytes.Contains(head, []byte("<testsuite"))
}

// isVerdictsFile reports whether head begins the JSON of a requirements
// check: its "tool" field, or an older file's "verdicts".
func isVerdictsFile(head []byte) bool {
	return jsonOfTool("vcr requirements check")(head) || bytes.Contains(head, []byte(`"verdicts"`))
}
