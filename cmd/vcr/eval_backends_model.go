// This file connects vcr eval to its backends: ONNX Runtime (model/onnx),
// Open Inference Protocol servers (model/oip), predictions files, and
// package model's preprocessing and label mappings.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/internal/demo"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/testset"
)

// addModelFlags registers the flags that choose, run and map a classifier
// into f (vcr eval and vcr requirements check share them); labels is the
// name of the label-mapping flag.
func addModelFlags(fs *flag.FlagSet, f *evalFlags, labels string) {
	fs.StringVar(&f.modelPath, "model", "", "ONNX model `file` (with --server: use --model-name)")
	fs.StringVar(&f.server, "server", "", "Open Inference Protocol server `URL`, e.g. http://localhost:8000")
	fs.StringVar(&f.modelName, "model-name", "", "the served model's `name` (with --server)")
	fs.StringVar(&f.version, "model-version", "", "the served model's `version` (with --server; default: the server's choice)")
	fs.StringVar(&f.preset, "preset", "", "preprocessing `preset`: imagenet, cifar or none (default imagenet, or the --config file's)")
	fs.StringVar(&f.config, "config", "", "model config `file` (JSON): preprocessing, labels, probabilities")
	fs.StringVar(&f.labels, labels, "", "label `mapping`: identity, imagenet16, imagenet-car, cifar10-car or a mapping file (default identity)")
	fs.BoolVar(&f.probabilities, "probabilities", false, "the model outputs probabilities (default: logits)")
	fs.StringVar(&f.ortLib, "onnxruntime-lib", "", "ONNX Runtime shared library `path` (default: $VCR_ONNXRUNTIME_LIB, then common install locations)")
	fs.BoolVar(&f.cuda, "cuda", false, "run the ONNX model on the CUDA execution provider")
	fs.IntVar(&f.threads, "threads", 0, "ONNX Runtime intra-op `threads` (0: one per core)")
	fs.IntVar(&f.batch, "batch", 32, "images per model call (`N`)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "--server: requests in flight")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "--server: time limit per request")
	fs.IntVar(&f.retries, "retries", 4, "--server: retries of a request after a transient error (connection, 429, 502, 503, 504)")
	fs.Var(&f.headers, "header", "--server: HTTP `header` 'Name: value' sent with every request (repeatable)")
	fs.StringVar(&f.inputName, "input-name", "", "the model's input tensor `name` (default: its first input)")
	fs.StringVar(&f.outputName, "output-name", "", "the model's output tensor `name` (default: its first output)")
	fs.StringVar(&f.layout, "layout", "", "input `layout` NCHW or NHWC (default: from the model's input shape)")
}

// openEvalModel opens the model, preprocessing and label mapping of f:
// --config first, then --preset, --labels and --probabilities override its
// fields. Without --config and --preset the preprocessing is "imagenet".
func openEvalModel(ctx context.Context, f *evalFlags, stderr io.Writer) (*evalModel, error) {
	if f.modelPath == builtinDemoModel {
		return openDemoModel(f)
	}
	cfg := &model.Config{}
	if f.config != "" {
		c, err := model.LoadConfig(f.config)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		cfg = c
	}
	switch {
	case f.preset != "":
		p, err := model.Preset(f.preset)
		if err != nil {
			return nil, usageError{fmt.Errorf("--preset: %w", err)}
		}
		cfg.Preprocess, cfg.Preset = p, f.preset
	case f.config == "":
		p, _ := model.Preset("imagenet")
		cfg.Preprocess, cfg.Preset = p, "imagenet"
	}
	if f.labels != "" {
		cfg.Labels = f.labels
	}
	if f.probabilities {
		cfg.Probabilities = true
	}
	if f.predictions != "" {
		return openPredictions(f, cfg)
	}

	var c model.Classifier
	var where string
	if f.server != "" {
		cl, err := dialServer(ctx, f)
		if err != nil {
			return nil, err
		}
		c, where = cl, "on "+f.server
	} else {
		m, err := onnx.Open(f.modelPath, onnx.Options{
			Library: f.ortLib, CUDA: f.cuda, Threads: f.threads, MaxBatch: f.batch,
			Output: f.outputName, Layout: model.Layout(f.layout),
		})
		if err != nil {
			return nil, fmt.Errorf("--model: %w", err)
		}
		c, where = m, fmt.Sprintf("with ONNX Runtime %s (%s)", m.Library(), m.Providers())
	}
	info := c.Info()
	if err := cfg.Preprocess.Validate(info); err != nil {
		c.Close()
		return nil, fmt.Errorf("--preset/--config: %w", err)
	}
	mp, err := cfg.Mapping(info.Classes)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("--labels: %w", err)
	}
	preset := cfg.Preset
	if preset == "" {
		preset = "custom"
	}
	return &evalModel{
		classifier: c, preprocess: cfg.Preprocess, mapper: mp, classes: mp.Classes(), truth: mappingTruth(mp),
		describe: fmt.Sprintf("model %s %s (%d outputs), preprocessing %s, labels %s", info.Name, where, info.Classes, preset, mp.Name()),
	}, nil
}

// mappingTruth is the ground truth of rows under mapping m; unlabelled rows
// and labels of no task class are outside the task.
func mappingTruth(m model.Mapping) func(*testset.Record) (int, error) {
	return func(r *testset.Record) (int, error) {
		if r.LabelIndex < 0 && r.LabelName == "" {
			return -1, evaluate.ErrOutsideTask
		}
		c, err := model.LabelToTask(m, r.LabelIndex, r.LabelName)
		if errors.Is(err, model.ErrOutsideTask) {
			return -1, fmt.Errorf("%w: %v", evaluate.ErrOutsideTask, err)
		}
		return c, err
	}
}

// openPredictions loads --predictions. Predicted classes are names or
// indices of the model's classes: the config's class_names, or else (for
// the identity mapping) the test set's own classes as its manifest names
// them.
func openPredictions(f *evalFlags, cfg *model.Config) (*evalModel, error) {
	var names []string
	if cfg.ClassNames != "" {
		s, err := dataset.ReadSynsets(cfg.ClassNames)
		if err != nil {
			return nil, fmt.Errorf("--config: class_names: %w", err)
		}
		names = s.Names()
	} else if cfg.Labels == "" || cfg.Labels == "identity" {
		var err error
		if names, err = manifestClasses(f.testSet); err != nil {
			return nil, err
		}
	}
	p, err := model.LoadPredictions(f.predictions, names)
	if err != nil {
		return nil, fmt.Errorf("--predictions: %w", err)
	}
	p.SetRoot(f.testSet)
	outputs := p.NumScores
	if outputs == 0 {
		outputs = len(names)
	}
	mp, err := model.NewMapping(cfg.Labels, outputs, names, cfg.Probabilities)
	if err != nil {
		return nil, fmt.Errorf("--labels: %w", err)
	}
	return &evalModel{
		predictions: predictionsFile{p: p, m: mp}, classes: mp.Classes(), truth: mappingTruth(mp),
		describe: fmt.Sprintf("predictions %s (%d rows, %d clean), labels %s", filepath.Base(f.predictions), p.Len(), p.CleanLen(), mp.Name()),
	}, nil
}

// manifestClasses lists the test set's classes by label index, named as
// the manifest names them (the index itself where it has no name).
func manifestClasses(dir string) ([]string, error) {
	var names []string
	err := testset.ReadManifest(filepath.Join(dir, testset.ManifestFile), func(r *testset.Record) error {
		if r.LabelIndex < 0 || r.LabelIndex > 1<<20 {
			return nil
		}
		for len(names) <= r.LabelIndex {
			names = append(names, strconv.Itoa(len(names)))
		}
		if r.LabelName != "" {
			names[r.LabelIndex] = r.LabelName
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--testset: %w", err)
	}
	return names, nil
}

// predictionsFile serves a predictions file's rows, mapped to the task.
type predictionsFile struct {
	p *model.Predictions
	m model.Mapping
}

func (a predictionsFile) Corrupted(r *testset.Record) (evaluate.Prediction, error) {
	pr, ok := a.p.Lookup(r.ID)
	if !ok {
		pr, ok = a.p.LookupPath(r.Path)
	}
	if !ok {
		return evaluate.Prediction{}, fmt.Errorf("%s has no row with id %d or path %s", a.p.Files[0], r.ID, r.Path)
	}
	return a.task(pr), nil
}

func (a predictionsFile) Clean(source string) (evaluate.Prediction, error) {
	pr, ok := a.p.Clean(source)
	if !ok {
		return evaluate.Prediction{}, fmt.Errorf("%s has no clean row with source %s (add rows with kind clean, or Merge a file of source,pred)", a.p.Files[0], source)
	}
	return a.task(pr), nil
}

// task maps a file's prediction into the task: by its scores when it has
// them, else its class (−1 when the class belongs to no task class).
func (a predictionsFile) task(pr model.Prediction) evaluate.Prediction {
	conf := float32(math.NaN())
	if pr.HasConfidence {
		conf = pr.Confidence
	}
	if pr.Scores != nil {
		c, cf := a.m.Map(pr.Scores)
		if !pr.HasConfidence {
			conf = cf
		}
		return evaluate.Prediction{Class: c, Conf: conf}
	}
	c, ok := model.MapIndex(a.m, pr.Class)
	if !ok {
		c = -1
	}
	return evaluate.Prediction{Class: c, Conf: conf}
}

// builtinDemoModel is the --model value of the built-in demonstration model.
const builtinDemoModel = "builtin:demo"

// openDemoModel opens the built-in demonstration model (package demo), which
// brings its own preprocessing and classifies the demo shapes' classes.
func openDemoModel(f *evalFlags) (*evalModel, error) {
	if f.preset != "" || f.config != "" || f.labels != "" || f.probabilities {
		return nil, usagef("--model %s brings its own preprocessing and classes; drop --preset, --config, --labels and --probabilities", builtinDemoModel)
	}
	c, err := demo.Open()
	if err != nil {
		return nil, err
	}
	return &evalModel{
		classifier: c, preprocess: demo.Preprocess{}, classes: demo.Classes, truth: evaluate.TruthByName(demo.Classes),
		describe: fmt.Sprintf("built-in %s on the classes %s", demo.ModelName, strings.Join(demo.Classes, ", ")),
	}, nil
}
