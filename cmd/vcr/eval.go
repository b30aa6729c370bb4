package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/model"
)

func init() {
	addCommand(&command{name: "eval", summary: "run a classifier (ONNX, remote v2 server or predictions file) on a test set", run: runEval})
}

const evalUsage = `
Usage: vcr eval --testset OUT (--model MODEL.onnx | --server URL --model-name NAME | --predictions FILE.csv) --out RESULTS.csv [flags]

Runs an image classifier on a test set written by 'vcr generate' and writes
one results row per manifest row. The model sees exactly the image files the
manifest lists, and each clean source image once (read from the dataset
recorded in OUT/run.json, with the --resize/--crop of the generate run), so
every prediction belongs to the image whose Δv was recorded.

The model is one of:
  --model FILE.onnx      run in-process with ONNX Runtime (--onnxruntime-lib,
                         --cuda, --threads; see docs/onnx.md)
  --server URL --model-name NAME
                         a model served over the Open Inference Protocol
                         (KServe v2: Triton, KServe, MLServer), e.g.
                         --server http://localhost:8000 --model-name resnet50
  --model builtin:demo   the built-in demonstration model of 'vcr demo' (a toy
                         shape classifier for the demo images; not a real model)
  --predictions FILE.csv predictions made elsewhere: a CSV with id (or path)
                         and pred columns for the corrupted images and rows
                         with source and pred for the clean ones

--preset or --config model.json sets the preprocessing: imagenet
(torchvision's resize 256, centre crop 224, normalise), imagenet-cropped
(normalise only; images must be 224×224), cifar, none. eval reads from
run.json what generate already did: when a preset would resize and crop
images that generate already brought to the preset's size (imagenet on a
--resize 256 --crop 224 test set), it feeds them unchanged apart from
normalisation and says so once; a preset that would resize them again gets
a warning.

--task maps the model's outputs and the images' labels to the task's
classes: identity (the model's own classes), imagenet1k, imagenet16
(Geirhos et al.'s 16 categories), car (car / not car of the ICSE 2022
study, for ImageNet-1k and CIFAR-10 models), cifar10, cifar100, or a
mapping file (mapping:FILE or a path). Rows whose label is outside the task
keep pred_* and consistent but have an empty target and correct_*.

RESULTS.csv columns: id, source, corruption, severity, params, dv,
vif_method, one dv_<flavour> column per further VIF flavour the manifest
holds, label, target, pred_clean, pred_corrupted, correct_clean,
correct_corrupted, consistent (1 or 0), conf_clean, conf_corrupted, error.
RESULTS.csv.json records what ran: "tool": "vcr eval", the vcr version,
the test set, the model (file and SHA-256, or server and versions, or
predictions file and SHA-256), the runtime, preset and preprocessing,
batch size and the task with its classes. The results are written as
RESULTS.csv.partial and renamed when complete; an interrupted run
continues with --resume and ends with the bytes of an uninterrupted one.
An existing RESULTS.csv is refused unless --resume or --force is given.

--logits FILE.csv also writes the model's raw score vector of every image
it scores (columns id, path, source, kind, logit_0 …; clean images have
kind clean), to compare with another framework's outputs; the file is
itself a predictions file for --predictions. Not with --resume.

Examples:
  vcr eval --testset vcr-val --model resnet50.onnx --preset imagenet --out results.csv
  vcr eval --testset vcr-val --model resnet50.onnx --preset imagenet --task imagenet16 --out r16.csv
  vcr eval --testset vcr-val --server http://triton:8000 --model-name resnet50 --preset imagenet --out results.csv
  vcr eval --testset vcr-val --predictions preds.csv --out results.csv
  vcr eval --testset vcr-val --model resnet50.onnx --preset imagenet --out results.csv --logits logits.csv
`

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", evalUsage, stderr)
	var f evalFlags
	fs.StringVar(&f.testSet, "testset", "", "test set `folder` written by vcr generate (required)")
	fs.StringVar(&f.predictions, "predictions", "", "predictions CSV `file` instead of a model")
	addModelFlags(fs, &f, "task")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "images decoded and preprocessed in parallel")
	images := fs.String("images", "", "dataset `path` of the source images (default: the one in the test set's run.json)")
	maxPixels := fs.Int("max-pixels", 0, "decoder pixel `limit` (0: default, negative: none)")
	out := fs.String("out", "", "results CSV `file` (required)")
	logits := fs.String("logits", "", "CSV `file` for the model's raw scores of every image (id, path, source, kind, logit_0 …); a predictions file --predictions reads")
	resume := fs.Bool("resume", false, "continue an interrupted evaluation of the same test set and model")
	force := fs.Bool("force", false, "replace an existing results file")
	prog := fs.String("progress", "auto", "progress bar: auto (when stderr is a terminal), always or never")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if f.testSet == "" {
		return usagef("--testset is required: the folder vcr generate wrote")
	}
	if *out == "" {
		return usagef("--out is required, e.g. --out results.csv")
	}
	if *resume && *force {
		return usagef("--resume and --force exclude each other")
	}
	if *logits != "" {
		if err := checkOutFiles([2]string{"--out", *out}, [2]string{"--logits", *logits}); err != nil {
			return err
		}
	}
	if f.server != "" && f.modelName == "" && f.modelPath != "" {
		f.modelName, f.modelPath = f.modelPath, "" // --server URL --model NAME
	}
	n := 0
	for _, s := range []string{f.modelPath, f.server, f.predictions} {
		if s != "" {
			n++
		}
	}
	switch {
	case n == 0:
		return usagef("give the model: --model FILE.onnx, --server URL --model-name NAME, or --predictions FILE.csv")
	case n > 1:
		return usagef("give one of --model, --server and --predictions")
	case f.server != "" && f.modelName == "":
		return usagef("--server needs --model-name, the name the server serves the model under")
	case f.modelName != "" && f.server == "":
		return usagef("%s", modelNameWithoutServer)
	case f.batch < 1 || *workers < 1 || f.concurrency < 1:
		return usagef("--batch-size, --workers and --concurrency must be at least 1")
	case f.layout != "" && f.layout != string(model.NCHW) && f.layout != string(model.NHWC):
		return usagef("--layout must be NCHW or NHWC (got %q)", f.layout)
	}
	var showBar, showLog bool
	switch *prog {
	case "auto":
		showBar = progress.IsTerminal(stderr)
		showLog = !showBar
	case "always":
		showBar = true
	case "never":
	default:
		return usagef("--progress must be auto, always or never (got %q)", *prog)
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}

	var mu sync.Mutex
	say := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "vcr eval: %s\n", msg)
	}
	rep := newReporter(stderr, "evaluating", showBar, showLog)
	sum, err := evaluate.Eval(ctx, evaluate.Options{
		TestSet: f.testSet, Out: *out, Resume: *resume, Force: *force, Model: spec, Logits: *logits,
		Images: *images, MaxPixels: *maxPixels, Workers: *workers,
		Log: say, Warn: func(msg string) { say("warning: " + msg) }, Progress: rep.update,
	})
	rep.finish()
	if err != nil {
		switch {
		case errors.Is(err, evaluate.ErrExists) && !errors.As(err, new(*evaluate.SpecError)):
			return usagef("%v; pass --resume to continue, or --force to replace it", err)
		case errors.As(err, new(*evaluate.SettingsError)):
			return usagef("%v\nRerun with the original settings and --resume, or pass --force to start over", err)
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			fmt.Fprintf(stderr, "vcr eval: stopped; every complete row is saved in %s. Run the same command with --resume to continue.\n", evaluate.Partial(*out))
		}
		return specError(err)
	}
	if sum.WasComplete {
		fmt.Fprintf(stderr, "vcr eval: %s was complete already\n", *out)
	} else if sum.Resumed > 0 {
		fmt.Fprintf(stderr, "vcr eval: resumed after %d rows\n", sum.Resumed)
	}
	writeEvalSummary(stdout, sum)
	return nil
}

// writeEvalSummary prints the row count and the overall scores.
func writeEvalSummary(w io.Writer, s *evaluate.Summary) {
	fmt.Fprintf(w, "%d rows in %s\n", s.Rows, s.Out)
	scored := s.Rows - s.Errors
	if scored > 0 {
		fmt.Fprintf(w, "consistency (pred corrupted = pred clean): %.4f over %d rows\n", float64(s.Consistent)/float64(scored), scored)
	}
	if inTask := scored - s.Excluded; inTask > 0 {
		fmt.Fprintf(w, "accuracy: clean %.4f, corrupted %.4f over %d rows\n", float64(s.CorrectClean)/float64(inTask), float64(s.Correct)/float64(inTask), inTask)
	}
	if s.Excluded > 0 {
		fmt.Fprintf(w, "%d rows have a label outside the task (no accuracy; --task maps labels and model outputs to one set of classes)\n", s.Excluded)
	}
	if s.Errors > 0 {
		fmt.Fprintf(w, "%d rows have an unreadable image (see their error column)\n", s.Errors)
	}
}
