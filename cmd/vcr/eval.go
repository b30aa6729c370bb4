package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/oip"
	"github.com/vcr-bench/vcr/testset"
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

--preset (imagenet, cifar, none) or --config model.json sets the
preprocessing; --labels maps the model's outputs to the task's classes:
identity (the model's own classes), imagenet16 (Geirhos et al.'s 16
categories), imagenet-car or cifar10-car (car / not car), or a mapping file.
Rows whose label is outside the task keep pred_* and consistent but have an
empty target and correct_*.

RESULTS.csv columns: id, source, corruption, severity, params, dv,
vif_method, label, target, pred_clean, pred_corrupted, correct_clean,
correct_corrupted, consistent (1 or 0), conf_clean, conf_corrupted, error.
It is written as RESULTS.csv.partial and renamed when complete; an
interrupted run continues with --resume and ends with the bytes of an
uninterrupted one. An existing RESULTS.csv is refused unless --resume or
--force is given.

Examples:
  vcr eval --testset vcr-val --model resnet50.onnx --preset imagenet --out results.csv
  vcr eval --testset vcr-val --model resnet50.onnx --preset imagenet --labels imagenet16 --out r16.csv
  vcr eval --testset vcr-val --server http://triton:8000 --model-name resnet50 --preset imagenet --out results.csv
  vcr eval --testset vcr-val --predictions preds.csv --out results.csv
`

// evalFlags are the command's settings that eval_backends.go reads.
type evalFlags struct {
	testSet                       string
	modelPath, predictions        string
	server, modelName, version    string
	preset, config, labels        string
	probabilities                 bool
	ortLib                        string
	cuda                          bool
	threads                       int
	batch, concurrency            int
	timeout                       time.Duration
	retries                       int
	headers                       stringList
	inputName, outputName, layout string
}

// evalModel is a classifier or predictions, with the preprocessing and the
// label mapping to use them.
type evalModel struct {
	classifier  model.Classifier     // nil with predictions
	predictions evaluate.Predictions // nil with a classifier
	preprocess  evaluate.Preprocessor
	mapper      evaluate.Mapper // nil: arg-max over the outputs
	classes     []string        // the task's class names (nil: indices)
	truth       func(*testset.Record) (int, error)
	describe    string // one line for the log: model, preprocessing, mapping
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", evalUsage, stderr)
	var f evalFlags
	fs.StringVar(&f.testSet, "testset", "", "test set `folder` written by vcr generate (required)")
	fs.StringVar(&f.predictions, "predictions", "", "predictions CSV `file` instead of a model")
	addModelFlags(fs, &f, "labels")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "images decoded and preprocessed in parallel")
	images := fs.String("images", "", "dataset `path` of the source images (default: the one in the test set's run.json)")
	maxPixels := fs.Int("max-pixels", 0, "decoder pixel `limit` (0: default, negative: none)")
	out := fs.String("out", "", "results CSV `file` (required)")
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
		return usagef("--model-name needs --server URL")
	case f.batch < 1 || *workers < 1 || f.concurrency < 1:
		return usagef("--batch, --workers and --concurrency must be at least 1")
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

	// The test set first: its errors are the cheapest to find.
	if _, err := os.Stat(filepath.Join(f.testSet, testset.ManifestFile)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--testset: %s has no %s; give the folder vcr generate (or vcr merge) wrote", f.testSet, testset.ManifestFile)
		}
		return fmt.Errorf("--testset: %w", err)
	}
	if st, err := testset.ReadStatus(f.testSet); err == nil && !st.Complete {
		fmt.Fprintf(stderr, "vcr eval: warning: %s is not complete (no complete %s); evaluating the rows it has\n", f.testSet, testset.StatusFile)
	}
	opt := imageio.Options{MaxPixels: *maxPixels}
	var sources evaluate.Sources
	if f.predictions == "" {
		ri, err := testset.ReadRunInfo(f.testSet)
		if err != nil {
			return fmt.Errorf("--testset: %w", err)
		}
		ds, err := evaluate.NewDatasetSources(ri, *images, opt)
		if err != nil {
			return fmt.Errorf("%w\nPass --images to say where the dataset is now", err)
		}
		sources = ds
	}
	// Refuse an existing output before loading a model.
	if !*resume && !*force {
		for _, p := range []string{*out, evaluate.Partial(*out)} {
			if _, err := os.Stat(p); err == nil {
				return usagef("%s exists; pass --resume to continue that evaluation, or --force to replace it", p)
			}
		}
	}

	em, err := openEvalModel(ctx, &f, stderr)
	if err != nil {
		return err
	}
	if em.classifier != nil {
		defer em.classifier.Close()
	}
	concurrency := 1
	if f.server != "" {
		concurrency = f.concurrency
	}
	var mu sync.Mutex
	warn := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "vcr eval: %s\n", msg)
	}
	fmt.Fprintf(stderr, "vcr eval: %s on %s\n", em.describe, f.testSet)
	rep := newReporter(stderr, "evaluating", showBar, showLog)
	sum, err := evaluate.Run(ctx, evaluate.Config{
		TestSet: f.testSet, Out: *out, Resume: *resume, Force: *force, Settings: f.settings(),
		Classifier: em.classifier, Preprocess: em.preprocess, Mapper: em.mapper, Predictions: em.predictions,
		Classes: em.classes, Truth: em.truth, Sources: sources, Opt: opt,
		Batch: f.batch, Workers: *workers, Concurrency: concurrency,
		Progress: rep.update, Warn: warn,
	})
	rep.finish()
	if err != nil {
		switch {
		case errors.Is(err, evaluate.ErrExists):
			return usagef("%v; pass --resume to continue, or --force to replace it", err)
		case errors.As(err, new(*evaluate.SettingsError)):
			return usagef("%v\nRerun with the original settings and --resume, or pass --force to start over", err)
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			fmt.Fprintf(stderr, "vcr eval: stopped; every complete row is saved in %s. Run the same command with --resume to continue.\n", evaluate.Partial(*out))
		}
		return err
	}
	if sum.WasComplete {
		fmt.Fprintf(stderr, "vcr eval: %s was complete already\n", *out)
	} else if sum.Resumed > 0 {
		fmt.Fprintf(stderr, "vcr eval: resumed after %d rows\n", sum.Resumed)
	}
	writeEvalSummary(stdout, sum)
	return nil
}

// settings are the flags that decide the predictions, recorded beside the
// results so that --resume continues only the same evaluation.
func (f *evalFlags) settings() map[string]string {
	m := map[string]string{}
	add := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	add("model", f.modelPath)
	add("server", f.server)
	add("model_name", f.modelName)
	add("model_version", f.version)
	add("predictions", f.predictions)
	add("preset", f.preset)
	add("config", f.config)
	add("labels", f.labels)
	add("input_name", f.inputName)
	add("output_name", f.outputName)
	add("layout", f.layout)
	if f.probabilities {
		m["probabilities"] = "true"
	}
	return m
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
		fmt.Fprintf(w, "%d rows have a label outside the task (no accuracy)\n", s.Excluded)
	}
	if s.Errors > 0 {
		fmt.Fprintf(w, "%d rows have an unreadable image (see their error column)\n", s.Errors)
	}
}

// dialServer connects to the Open Inference Protocol server of f.
func dialServer(ctx context.Context, f *evalFlags) (*oip.Client, error) {
	opt := oip.Options{
		Version: f.version, InputName: f.inputName, OutputName: f.outputName, Layout: model.Layout(f.layout),
		MaxBatch: f.batch, Concurrency: f.concurrency, Timeout: f.timeout, Retries: f.retries,
	}
	if f.retries == 0 {
		opt.Retries = -1
	}
	if len(f.headers) > 0 {
		opt.Header = http.Header{}
		for _, h := range f.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, usagef("--header %q: want 'Name: value'", h)
			}
			opt.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	c, err := oip.Dial(ctx, f.server, f.modelName, opt)
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	return c, nil
}
