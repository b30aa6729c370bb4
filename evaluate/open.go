package evaluate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/internal/demo"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/oip"
	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/task"
	"github.com/vcr-bench/vcr/testset"
)

// BuiltinDemoModel is the ModelSpec.Model value of the built-in
// demonstration model (vcr demo's toy shape classifier).
const BuiltinDemoModel = "builtin:demo"

// ModelSpec says which classifier to open and how to feed it: the model
// flags of vcr eval and vcr requirements check. Exactly one of Model,
// Server (with ModelName) and Predictions is set.
type ModelSpec struct {
	// Model is an ONNX file run in-process with ONNX Runtime (--model), or
	// BuiltinDemoModel.
	Model string
	// Server is an Open Inference Protocol server's base URL (--server),
	// serving ModelName (--model-name) in ModelVersion (--model-version;
	// "" = the server's choice).
	Server, ModelName, ModelVersion string
	// Predictions is a predictions CSV made elsewhere (--predictions); its
	// rows are looked up in the test set TestSet.
	Predictions string

	// Preset names the preprocessing (--preset; model.Preset), Config a
	// model config file (--config; model.LoadConfig). Preset, Task and
	// Probabilities override the config's fields. Without either the
	// preprocessing is "imagenet".
	Preset, Config string
	// Task is the task the model's outputs map to (--task; task.New).
	Task string
	// Probabilities says the model outputs probabilities, not logits.
	Probabilities bool

	// ONNX Runtime settings (--onnxruntime-lib, --cuda, --threads).
	ONNXRuntimeLib string
	CUDA           bool
	Threads        int
	// BatchSize is the number of images per model call (--batch-size).
	BatchSize int
	// Server settings: requests in flight, time limit per request, retries
	// after transient errors (0 = none), and extra HTTP headers.
	Concurrency int
	Timeout     time.Duration
	Retries     int
	Header      http.Header
	// MaxResponse caps an inference response in bytes (--max-response;
	// 0: oip.DefaultMaxResponse of the batch size and the model's class
	// count).
	MaxResponse int64
	// InputName, OutputName and Layout override what the model's metadata
	// says (--input-name, --output-name, --layout).
	InputName, OutputName string
	Layout                model.Layout

	// TestSet is the test set the model will see ("" for none, as in vcr
	// requirements check). Its run.json tells the dataset kind (for the car
	// task) and the resize and crop vcr generate already applied, which the
	// preprocessing then does not repeat (model.Preprocess.ForGenerated);
	// predictions files are resolved against it.
	TestSet string
}

// SpecError is an error in one setting of a ModelSpec. Flag names the
// setting by its vcr flag ("--preset"); Usage is set when the value itself
// is wrong (rather than, say, a file that cannot be read).
type SpecError struct {
	Flag  string
	Usage bool
	Err   error
}

// Error names the flag and the reason, without the package prefix of the
// underlying error ("--task: … ", not "--task: task: …").
func (e *SpecError) Error() string {
	msg := e.Err.Error()
	for _, p := range []string{"task: ", "model: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return e.Flag + ": " + msg
}
func (e *SpecError) Unwrap() error { return e.Err }

// Model is an opened classifier (or predictions file) with the
// preprocessing and the task that Run needs.
type Model struct {
	// Exactly one of Classifier and Predictions is set. Close the
	// Classifier when done (Close does).
	Classifier  model.Classifier
	Predictions Predictions
	// Preprocess turns images into the classifier's input.
	Preprocess Preprocessor
	// Mapping is the task (nil for the built-in demonstration model, whose
	// outputs are its classes); Mapper is what Run maps scores with.
	Mapping task.Mapping
	Mapper  Mapper
	// Classes names the task's classes; Truth is every row's ground truth
	// in them.
	Classes []string
	Truth   func(r *testset.Record) (class int, err error)
	// Describe is one line for the log: model, preprocessing, task.
	Describe string
	// Notes say once what the preprocessing adapted to the test set (a
	// resize or crop vcr generate already did); Warnings say what the user
	// should look at (a preprocessing that resizes again).
	Notes, Warnings []string
	// Record is what ran, for the results' settings file.
	Record ModelRecord
}

// Close releases the classifier, if any.
func (m *Model) Close() error {
	if m.Classifier != nil {
		return m.Classifier.Close()
	}
	return nil
}

// ModelRecord says what made the predictions, as RESULTS.csv.json records
// it.
type ModelRecord struct {
	// Kind is "onnx", "server", "predictions" or "builtin".
	Kind string `json:"model_kind"`
	// Name is the model's name (file name, served name, built-in name).
	Name string `json:"model"`
	// File and SHA256 are the ONNX model or predictions file and its
	// SHA-256 (hex).
	File   string `json:"model_file,omitempty"`
	SHA256 string `json:"model_sha256,omitempty"`
	// Outputs is the length of the model's score vector (0 = unknown).
	Outputs int `json:"model_outputs,omitempty"`
	// Runtime is what ran the model.
	Runtime *RuntimeRecord `json:"runtime,omitempty"`
	// Preset and Config name the preprocessing; Preprocessing is what was
	// applied, after adapting to the test set.
	Preset        string            `json:"preset,omitempty"`
	Config        string            `json:"config,omitempty"`
	Preprocessing *model.Preprocess `json:"preprocessing,omitempty"`
	// BatchSize is the number of images per model call.
	BatchSize int `json:"batch_size,omitempty"`
	// Task is the task the outputs were mapped to.
	Task TaskRecord `json:"task"`
}

// RuntimeRecord describes the runtime of a model: ONNX Runtime (Version,
// Library, Providers) or an inference server (Server, ServerName,
// ServerVersion, ModelVersions, Platform).
type RuntimeRecord struct {
	Name          string   `json:"name"`
	Version       string   `json:"version,omitempty"`
	Library       string   `json:"library,omitempty"`
	Providers     string   `json:"providers,omitempty"`
	Server        string   `json:"server,omitempty"`
	ServerName    string   `json:"server_name,omitempty"`
	ServerVersion string   `json:"server_version,omitempty"`
	ModelVersion  string   `json:"model_version,omitempty"`
	ModelVersions []string `json:"model_versions,omitempty"`
	Platform      string   `json:"platform,omitempty"`
}

// TaskRecord is a task as results record it: its name (task.Names,
// or "mapping:FILE") and classes.
type TaskRecord struct {
	Name    string   `json:"name"`
	Classes []string `json:"classes"`
}

// OpenModel opens the classifier or predictions file of spec, with its
// preprocessing and task. It returns a *SpecError naming the flag at fault
// for a bad setting.
func OpenModel(ctx context.Context, spec ModelSpec) (*Model, error) {
	var ri *testset.RunInfo
	if spec.TestSet != "" {
		if r, err := testset.ReadRunInfo(spec.TestSet); err == nil {
			ri = r
		}
	}
	if spec.Model == BuiltinDemoModel {
		return openDemo(spec)
	}
	cfg := &model.Config{}
	if spec.Config != "" {
		c, err := model.LoadConfig(spec.Config)
		if err != nil {
			return nil, &SpecError{Flag: "--config", Err: err}
		}
		cfg = c
	}
	switch {
	case spec.Preset != "":
		p, err := model.Preset(spec.Preset)
		if err != nil {
			return nil, &SpecError{Flag: "--preset", Usage: true, Err: err}
		}
		cfg.Preprocess, cfg.Preset = p, spec.Preset
	case spec.Config == "":
		p, _ := model.Preset("imagenet")
		cfg.Preprocess, cfg.Preset = p, "imagenet"
	}
	if spec.Task != "" {
		cfg.Task = spec.Task
	}
	if spec.Probabilities {
		cfg.Probabilities = true
	}
	kind := ""
	if ri != nil {
		kind = ri.Dataset.Kind
	}
	if spec.Predictions != "" {
		return openPredictions(spec, cfg, kind)
	}

	m := &Model{Record: ModelRecord{Preset: cfg.Preset, Config: spec.Config, BatchSize: spec.BatchSize}}
	var where string
	if spec.Server != "" {
		cl, err := dialServer(ctx, spec)
		if err != nil {
			return nil, err
		}
		md, sv := cl.Metadata(), cl.Server()
		m.Classifier, where = cl, "on "+spec.Server
		m.Record.Kind, m.Record.Name = "server", spec.ModelName
		m.Record.Runtime = &RuntimeRecord{Name: "Open Inference Protocol", Server: spec.Server, ServerName: sv.Name, ServerVersion: sv.Version,
			ModelVersion: spec.ModelVersion, ModelVersions: md.Versions, Platform: md.Platform}
	} else {
		sum, err := fileSHA256(spec.Model)
		if err != nil {
			return nil, &SpecError{Flag: "--model", Err: err}
		}
		om, err := onnx.Open(spec.Model, onnx.Options{
			Library: spec.ONNXRuntimeLib, CUDA: spec.CUDA, Threads: spec.Threads, MaxBatch: spec.BatchSize,
			Output: spec.OutputName, Layout: spec.Layout,
		})
		if err != nil {
			return nil, &SpecError{Flag: "--model", Err: err}
		}
		_, version := onnx.Loaded()
		m.Classifier, where = om, fmt.Sprintf("with ONNX Runtime %s (%s)", om.Library(), om.Providers())
		m.Record.Kind, m.Record.Name, m.Record.File, m.Record.SHA256 = "onnx", filepath.Base(spec.Model), spec.Model, sum
		m.Record.Runtime = &RuntimeRecord{Name: "ONNX Runtime", Version: version, Library: om.Library(), Providers: om.Providers()}
	}
	info := m.Classifier.Info()
	m.Record.Outputs = info.Classes
	pre := cfg.Preprocess
	if ri != nil {
		var note, warning string
		pre, note, warning = pre.ForGenerated(ri.Dataset.Resize, ri.Dataset.Crop)
		if note != "" {
			m.Notes = append(m.Notes, note)
		}
		if warning != "" {
			m.Warnings = append(m.Warnings, warning)
		}
	}
	if err := pre.Validate(info); err != nil {
		m.Classifier.Close()
		if spec.Preset == "" && spec.Config == "" {
			// The user chose nothing: say where the 224×224 came from.
			err = fmt.Errorf("%w (no --preset or --config was given, so --preset imagenet applied; --preset none feeds the test set's images as they are, or give the model's own preprocessing with --config)", err)
		}
		return nil, &SpecError{Flag: "--preset/--config", Usage: true, Err: err}
	}
	mp, err := cfg.Mapping(info.Classes, kind)
	if err != nil {
		m.Classifier.Close()
		return nil, &SpecError{Flag: "--task", Usage: true, Err: err}
	}
	preset := cfg.Preset
	if preset == "" {
		preset = "custom"
	}
	m.Preprocess, m.Mapping, m.Mapper, m.Classes, m.Truth = pre, mp, mp, mp.Classes(), TaskTruth(mp)
	m.Record.Preprocessing = &pre
	m.Record.Task = TaskRecord{Name: mp.Name(), Classes: mp.Classes()}
	m.Describe = fmt.Sprintf("model %s %s (%d outputs), preprocessing %s, task %s", info.Name, where, info.Classes, preset, mp.Name())
	return m, nil
}

// TaskTruth is the ground truth of manifest rows under task m (task.Truth
// of the row's label index and name); labels of no task class, and rows
// without a label, are outside the task (ErrOutsideTask).
func TaskTruth(m task.Mapping) func(*testset.Record) (int, error) {
	return func(r *testset.Record) (int, error) {
		c, err := task.Truth(m, r.LabelIndex, r.LabelName)
		if errors.Is(err, task.ErrOutsideTask) {
			return -1, fmt.Errorf("%w: %v", ErrOutsideTask, err)
		}
		return c, err
	}
}

// fileSHA256 returns the hex SHA-256 of a file's bytes.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// dialServer connects to the Open Inference Protocol server of spec.
func dialServer(ctx context.Context, spec ModelSpec) (*oip.Client, error) {
	opt := oip.Options{
		Version: spec.ModelVersion, InputName: spec.InputName, OutputName: spec.OutputName, Layout: spec.Layout,
		MaxBatch: spec.BatchSize, Concurrency: spec.Concurrency, Timeout: spec.Timeout, Retries: spec.Retries,
		Header: spec.Header, MaxResponse: spec.MaxResponse,
	}
	if spec.Retries == 0 {
		opt.Retries = -1
	}
	c, err := oip.Dial(ctx, spec.Server, spec.ModelName, opt)
	if err != nil {
		return nil, &SpecError{Flag: "--server", Err: err}
	}
	return c, nil
}

// openPredictions loads a predictions file. Predicted classes are names or
// indices of the model's classes: the config's class_names, or else (for
// the identity task) the test set's own classes as its manifest names
// them.
func openPredictions(spec ModelSpec, cfg *model.Config, kind string) (*Model, error) {
	var names []string
	fromManifest := false
	if cfg.ClassNames != "" {
		s, err := dataset.ReadSynsets(cfg.ClassNames)
		if err != nil {
			return nil, &SpecError{Flag: "--config", Err: fmt.Errorf("class_names: %w", err)}
		}
		names = s.Names()
	} else if cfg.Task == "" || strings.EqualFold(cfg.Task, task.NameIdentity) {
		var err error
		if names, err = manifestClasses(spec.TestSet); err != nil {
			return nil, &SpecError{Flag: "--testset", Err: err}
		}
		fromManifest = true
	}
	p, err := model.LoadPredictions(spec.Predictions, names)
	if err != nil {
		if fromManifest && errors.Is(err, model.ErrClasses) {
			err = fmt.Errorf("%w\n(the classes are the test set's own, from its manifest; for a model with other classes give its class list as class_names in a --config file, or map its outputs with --task)", err)
		}
		return nil, &SpecError{Flag: "--predictions", Err: err}
	}
	sum, err := fileSHA256(spec.Predictions)
	if err != nil {
		return nil, &SpecError{Flag: "--predictions", Err: err}
	}
	p.SetRoot(spec.TestSet)
	outputs := p.NumScores
	if outputs == 0 {
		outputs = len(names)
	}
	mp, err := task.New(task.Spec{Name: cfg.Task, Outputs: outputs, OutputNames: names, Probabilities: cfg.Probabilities, DatasetKind: kind})
	if err != nil {
		return nil, &SpecError{Flag: "--task", Usage: true, Err: err}
	}
	return &Model{
		Predictions: predictionsFile{p: p, m: mp}, Mapping: mp, Mapper: mp, Classes: mp.Classes(), Truth: TaskTruth(mp),
		Describe: fmt.Sprintf("predictions %s (%d rows, %d clean), task %s", filepath.Base(spec.Predictions), p.Len(), p.CleanLen(), mp.Name()),
		Record: ModelRecord{
			Kind: "predictions", Name: filepath.Base(spec.Predictions), File: spec.Predictions, SHA256: sum, Outputs: outputs,
			Task: TaskRecord{Name: mp.Name(), Classes: mp.Classes()},
		},
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
	return names, err
}

// predictionsFile serves a predictions file's rows, mapped to the task.
type predictionsFile struct {
	p *model.Predictions
	m task.Mapping
}

func (a predictionsFile) Corrupted(r *testset.Record) (Prediction, error) {
	pr, ok := a.p.Lookup(r.ID)
	if !ok {
		pr, ok = a.p.LookupPath(r.Path)
	}
	if !ok {
		return Prediction{}, fmt.Errorf("%s has no row with id %d or path %s", a.p.Files[0], r.ID, r.Path)
	}
	return a.toTask(pr), nil
}

func (a predictionsFile) Clean(source string) (Prediction, error) {
	pr, ok := a.p.Clean(source)
	if !ok {
		if a.p.CleanLen() == 0 {
			return Prediction{}, fmt.Errorf("%s has no clean rows, but consistency needs the prediction on every clean source image: add one row per source (source,pred with an empty id, for %s and the others; see docs/eval-models.md, Predictions files)", a.p.Files[0], source)
		}
		return Prediction{}, fmt.Errorf("%s has no clean row with source %s: add one (source,pred with an empty id, or kind clean; see docs/eval-models.md, Predictions files)", a.p.Files[0], source)
	}
	return a.toTask(pr), nil
}

// toTask maps a file's prediction into the task: by its scores when it has
// them, else its class (−1 when the class belongs to no task class).
func (a predictionsFile) toTask(pr model.Prediction) Prediction {
	conf := float32(math.NaN())
	if pr.HasConfidence {
		conf = pr.Confidence
	}
	if pr.Scores != nil {
		c, cf := a.m.Map(pr.Scores)
		if !pr.HasConfidence {
			conf = cf
		}
		return Prediction{Class: c, Conf: conf}
	}
	c, ok := task.MapIndex(a.m, pr.Class)
	if !ok {
		c = -1
	}
	return Prediction{Class: c, Conf: conf}
}

// openDemo opens the built-in demonstration model (package demo), which
// brings its own preprocessing and classifies the demo shapes' classes.
func openDemo(spec ModelSpec) (*Model, error) {
	if spec.Preset != "" || spec.Config != "" || spec.Task != "" || spec.Probabilities {
		return nil, &SpecError{Flag: "--model", Usage: true, Err: fmt.Errorf("%s brings its own preprocessing and classes; drop --preset, --config, --task and --probabilities", BuiltinDemoModel)}
	}
	c, err := demo.Open()
	if err != nil {
		return nil, err
	}
	return &Model{
		Classifier: c, Preprocess: demo.Preprocess{}, Classes: demo.Classes, Truth: TruthByName(demo.Classes),
		Describe: fmt.Sprintf("built-in %s on the classes %s", demo.ModelName, strings.Join(demo.Classes, ", ")),
		Record: ModelRecord{
			Kind: "builtin", Name: demo.ModelName, Outputs: len(demo.Classes), BatchSize: spec.BatchSize,
			Task: TaskRecord{Name: task.NameIdentity, Classes: demo.Classes},
		},
	}, nil
}
