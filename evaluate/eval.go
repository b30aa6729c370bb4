package evaluate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/testset"
)

// Options describe one evaluation of a model on a test set, as vcr eval's
// flags give it.
type Options struct {
	// TestSet is the folder vcr generate (or vcr merge) wrote.
	TestSet string
	// Out is the results CSV; its settings go to SettingsFile(Out).
	Out string
	// Resume and Force: see Config.
	Resume, Force bool
	// Model is the classifier, preprocessing and task.
	Model ModelSpec
	// Logits, if not empty, is a CSV file for the model's raw scores of
	// every image (see Config.Logits); not with Resume or a predictions file.
	Logits string
	// Images, if not empty, is where the dataset of the clean source images
	// is now (instead of the one run.json records).
	Images string
	// MaxPixels limits decoding (0: default, negative: none).
	MaxPixels int
	// Workers decode and preprocess images in parallel (default GOMAXPROCS).
	Workers int

	// Log, if not nil, receives one-line information (the model and task
	// used, what the preprocessing adapted); Warn receives warnings.
	Log, Warn func(msg string)
	// Progress: see Config.
	Progress func(done, total int)
}

// Eval is the whole of vcr eval: it checks the test set and the output
// path, opens the model (OpenModel) with the preprocessing adapted to what
// vcr generate did, finds the clean source images (CleanSources), and
// runs the evaluation (Run), recording what ran in SettingsFile(Out).
// Errors name the flag or file at fault; a bad setting is a *SpecError.
func Eval(ctx context.Context, opt Options) (*Summary, error) {
	logf := func(f string, a ...any) {
		if opt.Log != nil {
			opt.Log(fmt.Sprintf(f, a...))
		}
	}
	warnf := func(f string, a ...any) {
		if opt.Warn != nil {
			opt.Warn(fmt.Sprintf(f, a...))
		}
	}
	// The test set and the output first: their errors are the cheapest.
	if _, err := os.Stat(filepath.Join(opt.TestSet, testset.ManifestFile)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%s has no %s; give the folder vcr generate (or vcr merge) wrote", opt.TestSet, testset.ManifestFile)
		}
		return nil, &SpecError{Flag: "--testset", Err: err}
	}
	if st, err := testset.ReadStatus(opt.TestSet); err == nil && !st.Complete {
		warnf("%s is not complete (no complete %s); evaluating the rows it has", opt.TestSet, testset.StatusFile)
	}
	if err := CheckOutput(opt.Out, opt.Resume, opt.Force); err != nil {
		return nil, err
	}
	// The output is locked before the model is opened, so that a second
	// vcr eval on the same --out is refused at once rather than after
	// loading (and perhaps uploading) a large model.
	release, err := lockOut(opt.Out)
	if err != nil {
		return nil, err
	}
	defer release()
	if opt.Logits != "" {
		switch {
		case opt.Model.Predictions != "":
			return nil, &SpecError{Flag: "--logits", Usage: true, Err: fmt.Errorf("a predictions file has no model to score the images; drop --logits, or give --model or --server")}
		case opt.Resume:
			return nil, &SpecError{Flag: "--logits", Usage: true, Err: fmt.Errorf("a resumed evaluation does not score the rows it keeps; drop --resume (or --logits), or use --force to start over")}
		}
		if _, err := os.Stat(opt.Logits); err == nil && !opt.Force {
			return nil, &SpecError{Flag: "--logits", Usage: true, Err: fmt.Errorf("%s: %w; pass --force to replace it", opt.Logits, ErrExists)}
		}
		if err := atomicfile.CheckWritable(opt.Logits); err != nil {
			return nil, &SpecError{Flag: "--logits", Err: err}
		}
	}
	imgOpt := imageio.Options{MaxPixels: opt.MaxPixels}
	var sources Sources
	if opt.Model.Predictions == "" {
		ri, err := testset.ReadRunInfo(opt.TestSet)
		if err != nil {
			return nil, &SpecError{Flag: "--testset", Err: err}
		}
		ds, err := CleanSources(ri, opt.TestSet, opt.Images, imgOpt)
		if err != nil {
			return nil, &SpecError{Flag: "--images", Err: fmt.Errorf("%w; pass --images to say where the dataset is now", err)}
		}
		sources = ds
		if ds.Found != testset.ResolvedOverride {
			logf("clean source images in %s, found %s", ds.Root, ds.Found)
		}
	}
	spec := opt.Model
	spec.TestSet = opt.TestSet
	m, err := OpenModel(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	logf("%s on %s", m.Describe, opt.TestSet)
	for _, n := range m.Notes {
		logf("%s", n)
	}
	for _, w := range m.Warnings {
		warnf("%s", w)
	}
	concurrency := 1
	if spec.Server != "" {
		concurrency = spec.Concurrency
	}
	rec := &Record{ModelRecord: m.Record, PreprocessingNotes: m.Notes}
	settings := spec.settings()
	if m.Record.SHA256 != "" {
		settings["model_sha256"] = m.Record.SHA256
	}
	return Run(ctx, Config{
		outLocked: true,
		TestSet:   opt.TestSet, Out: opt.Out, Resume: opt.Resume, Force: opt.Force, Settings: settings, Record: rec,
		Classifier: m.Classifier, Preprocess: m.Preprocess, Mapper: m.Mapper, Predictions: m.Predictions,
		Classes: m.Classes, Truth: m.Truth, Sources: sources, Opt: imgOpt,
		Batch: spec.BatchSize, Workers: opt.Workers, Concurrency: concurrency,
		Progress: opt.Progress, Warn: opt.Warn, Logits: opt.Logits,
	})
}

// CheckOutput checks, before any long work, that the results file out can
// be written: its folder is created if missing, and an existing out (or
// an unfinished out.partial) is an error wrapping ErrExists unless resume
// or force is set. It returns a *SpecError naming --out.
func CheckOutput(out string, resume, force bool) error {
	if out == "" {
		return &SpecError{Flag: "--out", Usage: true, Err: errors.New("is required, e.g. --out results.csv")}
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return &SpecError{Flag: "--out", Usage: true, Err: fmt.Errorf("%s is a folder; give a file name such as %s", out, filepath.Join(out, "results.csv"))}
	}
	if err := atomicfile.CheckWritable(out); err != nil {
		return &SpecError{Flag: "--out", Usage: true, Err: err}
	}
	if !resume && !force {
		for _, p := range []string{out, Partial(out)} {
			if _, err := os.Stat(p); err == nil {
				return &SpecError{Flag: "--out", Usage: true, Err: fmt.Errorf("%s: %w; pass --resume to continue that evaluation, or --force to replace it", p, ErrExists)}
			}
		}
	}
	return nil
}

// settings are the parts of spec that decide the predictions, recorded
// beside the results so that Resume continues only the same evaluation.
func (spec ModelSpec) settings() map[string]string {
	m := map[string]string{}
	add := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	add("model", spec.Model)
	add("server", spec.Server)
	add("model_name", spec.ModelName)
	add("model_version", spec.ModelVersion)
	add("predictions", spec.Predictions)
	add("preset", spec.Preset)
	add("config", spec.Config)
	add("task", spec.Task)
	add("input_name", spec.InputName)
	add("output_name", spec.OutputName)
	add("layout", string(spec.Layout))
	if spec.Probabilities {
		m["probabilities"] = "true"
	}
	return m
}
