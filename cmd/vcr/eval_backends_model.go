// This file holds the model flags vcr eval and vcr requirements check
// share, and turns them into an evaluate.ModelSpec; evaluate.OpenModel
// opens the classifier (ONNX Runtime, Open Inference Protocol server,
// predictions file or the built-in demonstration model).

package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/task"
)

// evalFlags are the model settings of vcr eval and vcr requirements check.
type evalFlags struct {
	testSet                       string
	modelPath, predictions        string
	server, modelName, version    string
	preset, config, task          string
	probabilities                 bool
	ortLib                        string
	cuda                          bool
	threads                       int
	batch, concurrency            int
	timeout                       time.Duration
	retries                       int
	maxResponse                   int64
	headers                       stringList
	inputName, outputName, layout string
}

// evalModel is a classifier or predictions, with the preprocessing and the
// task to use them.
type evalModel struct {
	classifier  model.Classifier     // nil with predictions
	predictions evaluate.Predictions // nil with a classifier
	preprocess  evaluate.Preprocessor
	mapper      evaluate.Mapper // nil: arg-max over the outputs
	classes     []string        // the task's class names (nil: indices)
	describe    string          // one line for the log: model, preprocessing, task
}

// addModelFlags registers the flags that choose, run and map a classifier
// into f (vcr eval and vcr requirements check share them); taskFlag is the
// name of the task flag.
func addModelFlags(fs *flag.FlagSet, f *evalFlags, taskFlag string) {
	fs.StringVar(&f.modelPath, "model", "", "ONNX model `file`, or builtin:demo (with --server: use --model-name)")
	fs.StringVar(&f.server, "server", "", "Open Inference Protocol server `URL`, e.g. http://localhost:8000")
	fs.StringVar(&f.modelName, "model-name", "", "the served model's `name` (with --server)")
	fs.StringVar(&f.version, "model-version", "", "the served model's `version` (with --server; default: the server's choice)")
	fs.StringVar(&f.preset, "preset", "", "preprocessing `preset`: "+strings.Join(model.Presets, ", ")+" (default imagenet, or the --config file's)")
	fs.StringVar(&f.config, "config", "", "model config `file` (JSON): preprocessing, task, probabilities")
	fs.StringVar(&f.task, taskFlag, "", "`task` the model's outputs map to: "+strings.Join(task.Names, ", ")+", or a mapping file (default identity)")
	fs.BoolVar(&f.probabilities, "probabilities", false, "the model outputs probabilities (default: logits)")
	fs.StringVar(&f.ortLib, "onnxruntime-lib", "", "ONNX Runtime shared library `path` (default: $VCR_ONNXRUNTIME_LIB, then common install locations)")
	fs.BoolVar(&f.cuda, "cuda", false, "run the ONNX model on the CUDA execution provider")
	fs.IntVar(&f.threads, "threads", 0, "ONNX Runtime intra-op `threads` (0: one per core)")
	fs.IntVar(&f.batch, "batch-size", 32, "images per model call (`N`)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "--server: requests in flight")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "--server: time limit per request")
	fs.IntVar(&f.retries, "retries", 4, "--server: retries of a request after a transient error (connection, 429, 502, 503, 504)")
	fs.Int64Var(&f.maxResponse, "max-response", 0, "--server: largest inference response in `bytes` (0: 1 MiB + 40 bytes per score of a --batch-size batch, from the model's output shape)")
	fs.Var(&f.headers, "header", "--server: HTTP `header` 'Name: value' sent with every request (repeatable)")
	fs.StringVar(&f.inputName, "input-name", "", "the model's input tensor `name` (default: its first input)")
	fs.StringVar(&f.outputName, "output-name", "", "the model's output tensor `name` (default: its first output)")
	fs.StringVar(&f.layout, "layout", "", "input `layout` NCHW or NHWC (default: from the model's input shape)")
}

// spec returns the model settings of f as an evaluate.ModelSpec.
func (f *evalFlags) spec() (evaluate.ModelSpec, error) {
	s := evaluate.ModelSpec{
		Model: f.modelPath, Server: f.server, ModelName: f.modelName, ModelVersion: f.version, Predictions: f.predictions,
		Preset: f.preset, Config: f.config, Task: f.task, Probabilities: f.probabilities,
		ONNXRuntimeLib: f.ortLib, CUDA: f.cuda, Threads: f.threads, BatchSize: f.batch,
		Concurrency: f.concurrency, Timeout: f.timeout, Retries: f.retries, MaxResponse: f.maxResponse,
		InputName: f.inputName, OutputName: f.outputName, Layout: model.Layout(f.layout),
	}
	if f.maxResponse < 0 {
		return s, usagef("--max-response must be 0 (derived from the model) or a number of bytes (got %d), e.g. --max-response 67108864", f.maxResponse)
	}
	if len(f.headers) > 0 {
		s.Header = http.Header{}
		for _, h := range f.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return s, usagef("--header %q: want 'Name: value'", h)
			}
			s.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return s, nil
}

// openEvalModel opens the model, preprocessing and task of f (see
// evaluate.OpenModel): --config first, then --preset, the task flag and
// --probabilities override its fields. Without --config and --preset the
// preprocessing is "imagenet".
func openEvalModel(ctx context.Context, f *evalFlags, stderr io.Writer) (*evalModel, error) {
	s, err := f.spec()
	if err != nil {
		return nil, err
	}
	s.TestSet = f.testSet
	m, err := evaluate.OpenModel(ctx, s)
	if err != nil {
		return nil, specError(err)
	}
	return &evalModel{
		classifier: m.Classifier, predictions: m.Predictions, preprocess: m.Preprocess, mapper: m.Mapper,
		classes: m.Classes, describe: m.Describe,
	}, nil
}

// specError turns an evaluate.SpecError for a wrong value into a usage
// error (exit status 2).
func specError(err error) error {
	var se *evaluate.SpecError
	if errors.As(err, &se) && se.Usage {
		return usageError{err}
	}
	return err
}

// builtinDemoModel is the --model value of the built-in demonstration model.
const builtinDemoModel = evaluate.BuiltinDemoModel
