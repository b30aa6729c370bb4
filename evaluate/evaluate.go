package evaluate

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/lock"
	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/task"
	"github.com/vcr-bench/vcr/testset"
)

// Preprocessor turns a decoded image into a model's input tensor
// (model.Preprocess is one). It must be safe for concurrent use.
type Preprocessor interface {
	Apply(m *imageio.Image) (model.Tensor, error)
}

// Mapper maps a model's score vector to a class of the task and a
// confidence (task.Mapping is one). Class indexes Config.Classes.
type Mapper interface {
	Map(scores []float32) (class int, conf float32)
}

// ArgMax is the Mapper of a model whose outputs are the task's classes: the
// class with the highest score, and that score.
type ArgMax struct{}

// Map implements Mapper. It returns −1 for an empty score vector; NaN
// scores never win.
func (ArgMax) Map(scores []float32) (int, float32) {
	best, bv := -1, float32(math.Inf(-1))
	for i, v := range scores {
		if v > bv || best < 0 && !math.IsNaN(float64(v)) {
			best, bv = i, v
		}
	}
	if best < 0 {
		return -1, float32(math.NaN())
	}
	return best, bv
}

// Prediction is a predicted class (an index into Config.Classes, or −1 for
// a prediction of no class of the task, such as an ImageNet class outside
// the 16 categories) and its confidence (NaN when unknown).
type Prediction struct {
	Class int
	Conf  float32
}

// Predictions are predictions made elsewhere (an imported file): one per
// manifest row for the corrupted image and one per clean source image.
type Predictions interface {
	// Corrupted returns the prediction for the corrupted image of row r.
	Corrupted(r *testset.Record) (Prediction, error)
	// Clean returns the prediction for the clean source image source.
	Clean(source string) (Prediction, error)
}

// Config describes one evaluation.
type Config struct {
	// outLocked is set by Eval, which holds Out's lock already.
	outLocked bool

	// TestSet is the folder vcr generate wrote (manifest.csv, run.json,
	// images/).
	TestSet string
	// Out is the results CSV to write.
	Out string
	// Resume continues an interrupted evaluation (Out.partial); Force
	// replaces an existing Out. Without either, an existing Out or
	// Out.partial is an error wrapping ErrExists.
	Resume, Force bool
	// Settings describe what produces the predictions (model, preprocessing,
	// label mapping, …). They are written to SettingsFile(Out) with the
	// test set's folder, and Resume refuses to continue results made with
	// other settings (a *SettingsError).
	Settings map[string]string
	// Record, if not nil, describes what made the results (model, runtime,
	// preprocessing, task) for the settings file; Run fills in Tool,
	// Version, TestSet, DVColumns and Settings.
	Record *Record

	// Exactly one of Classifier and Predictions is set.
	//
	// Classifier scores the images: Preprocess turns each decoded image
	// into a tensor, Mapper (default ArgMax) turns scores into a class.
	Classifier model.Classifier
	Preprocess Preprocessor
	Mapper     Mapper
	// Predictions supplies predictions instead of a classifier.
	Predictions Predictions
	// Logits, if not empty, is a CSV file that receives the classifier's
	// raw score vector (logits, or probabilities for a model that outputs
	// them) of every image it scores: columns id, path, source, kind
	// ("clean" or "corrupted"), logit_0 … logit_{K−1}, one row per clean
	// source image (id and path empty) and per corrupted image, in the
	// order scored, values in the shortest form that reads back as the same
	// float32. It is a predictions file that vcr eval --predictions reads
	// (the prediction is the arg-max of the scores). It is written to a
	// temporary file and renamed when the evaluation completes. It needs a
	// Classifier, and is refused with Resume: a resumed run does not score
	// the rows an earlier run kept.
	Logits string

	// Classes names the task's classes (what Mapper's class indexes); the
	// results show a prediction by name, or by index when Classes is nil.
	Classes []string
	// Truth returns a manifest row's ground-truth class in the task. An
	// error wrapping ErrOutsideTask excludes the row from scoring (its
	// target and correct_* columns are empty); any other error stops Run
	// before it writes anything. Default: TruthByName(Classes).
	Truth func(r *testset.Record) (class int, err error)

	// Sources loads clean source images (default: NewDatasetSources for the
	// run.json of TestSet, reading with Opt).
	Sources Sources
	// Opt limits decoding (the pixel limit) of test-set and source images.
	Opt imageio.Options

	// Batch is the number of images per Classify call (default 32; capped
	// by the classifier's MaxBatch).
	Batch int
	// Workers decode and preprocess images in parallel (default GOMAXPROCS).
	Workers int
	// Concurrency is the number of Classify calls in flight (default 1;
	// more for a remote server).
	Concurrency int

	// Progress, if not nil, is called with the rows done (including rows
	// kept from an interrupted run) and the total, first before any work.
	Progress func(done, total int)
	// Warn, if not nil, receives warnings.
	Warn func(msg string)
}

// ErrOutsideTask is wrapped by Truth's error for a label that belongs to no
// class of the task (an ImageNet image of none of the 16 categories).
var ErrOutsideTask = errors.New("label is outside the task")

// ErrExists is returned (wrapped) when the output exists and neither Resume
// nor Force is set.
var ErrExists = errors.New("results file exists")

// ErrLocked is returned (wrapped) when another process is writing the same
// Out: Run holds a lock on Out+".lock" (removed at the end) while it runs.
var ErrLocked = lock.ErrLocked

// Summary describes a finished evaluation.
type Summary struct {
	Out  string
	Rows int
	// Resumed is the number of rows kept from an interrupted run.
	Resumed int
	// WasComplete is set when Resume found Out complete already.
	WasComplete bool
	// CleanEvaluated and CorruptedEvaluated count the images scored by this
	// call (with a classifier).
	CleanEvaluated, CorruptedEvaluated int
	// Errors counts rows whose image could not be read (their error column
	// says why); Excluded counts rows whose label is outside the task.
	Errors, Excluded int
	// Correct, CorrectClean and Consistent count the rows with
	// correct_corrupted, correct_clean and consistent 1.
	Correct, CorrectClean, Consistent int
}

// Partial returns the name of the file that holds an unfinished evaluation
// whose results go to out.
func Partial(out string) string { return out + ".partial" }

// TruthByName returns the Truth function that finds a row's label in
// classes: by label name, then by the label column; with no classes, the
// dataset's label index is the class. Other labels are outside the task.
func TruthByName(classes []string) func(r *testset.Record) (int, error) {
	idx := make(map[string]int, len(classes))
	for i, c := range classes {
		if _, dup := idx[c]; !dup {
			idx[c] = i
		}
	}
	return func(r *testset.Record) (int, error) {
		if len(classes) == 0 && r.LabelIndex >= 0 {
			return r.LabelIndex, nil
		}
		if i, ok := idx[r.LabelName]; ok && r.LabelName != "" {
			return i, nil
		}
		if i, ok := idx[r.Label]; ok && r.Label != "" {
			return i, nil
		}
		return -1, fmt.Errorf("label %q: %w", r.Label, ErrOutsideTask)
	}
}

// setDefaults fills the settings cfg leaves at zero: arg-max mapping,
// truth by class name, 32 images per model call (capped by the model's
// maximum batch), GOMAXPROCS workers, one model call at a time.
func (cfg *Config) setDefaults() {
	if cfg.Mapper == nil {
		cfg.Mapper = ArgMax{}
	}
	if cfg.Truth == nil {
		cfg.Truth = TruthByName(cfg.Classes)
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 32
	}
	if cfg.Classifier != nil {
		if mb := cfg.Classifier.Info().MaxBatch; mb > 0 && cfg.Batch > mb {
			cfg.Batch = mb
		}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
}

// Run evaluates the test set of cfg and writes cfg.Out. It returns
// ctx.Err() when ctx is cancelled, after saving every complete row in
// Out.partial; the evaluation then resumes with cfg.Resume.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if (cfg.Classifier == nil) == (cfg.Predictions == nil) {
		panic("evaluate: Run needs exactly one of Classifier and Predictions")
	}
	if cfg.Classifier != nil && cfg.Preprocess == nil {
		panic("evaluate: Run with a Classifier needs Preprocess")
	}
	cfg.setDefaults()

	if cfg.Logits != "" && (cfg.Predictions != nil || cfg.Resume) {
		return nil, fmt.Errorf("logits %s: scores are written only by a classifier scoring every image in one run, not with a predictions file or resume", cfg.Logits)
	}
	rows, err := readManifest(cfg.TestSet)
	if err != nil {
		return nil, err
	}
	if cfg.Classifier != nil && cfg.Sources == nil {
		ri, err := testset.ReadRunInfo(cfg.TestSet)
		if err != nil {
			return nil, fmt.Errorf("read the test set's run settings: %w", err)
		}
		if cfg.Sources, err = CleanSources(ri, cfg.TestSet, "", cfg.Opt); err != nil {
			return nil, err
		}
	}
	truth, err := targets(cfg.Truth, rows)
	if err != nil {
		return nil, err
	}
	if cfg.Predictions != nil {
		// Check every row first so that a predictions file missing rows
		// writes nothing.
		if err := checkPredictions(cfg.Predictions, rows, len(cfg.Classes)); err != nil {
			return nil, err
		}
	}

	dvNames, dvIDs, dv, err := manifestDV(filepath.Join(cfg.TestSet, testset.ManifestFile))
	if err != nil {
		return nil, err
	}
	if dvNames != nil {
		if len(dvIDs) != len(rows) {
			return nil, fmt.Errorf("%s: %d rows with dv_* columns, %d rows in all", testset.ManifestFile, len(dvIDs), len(rows))
		}
		for i, id := range dvIDs {
			if id != rows[i].ID {
				return nil, fmt.Errorf("%s: row %d has id %d, expected %d", testset.ManifestFile, i+2, id, rows[i].ID)
			}
		}
	}
	sum := &Summary{Out: cfg.Out, Rows: len(rows)}
	settings := map[string]string{"testset": filepath.Clean(cfg.TestSet)}
	for k, v := range cfg.Settings {
		settings[k] = v
	}
	// Two runs appending to one Out.partial would duplicate rows: the
	// second is refused while the first holds the lock.
	if !cfg.outLocked {
		release, err := lockOut(cfg.Out)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	if cfg.Resume && !cfg.Force {
		if err := checkSettings(cfg.Out, settings); err != nil {
			return nil, err
		}
	}
	w, err := openResults(&cfg, rows, truth, dvNames, dv, sum)
	if err != nil || sum.WasComplete {
		return sum, err
	}
	rec := &Record{}
	if cfg.Record != nil {
		*rec = *cfg.Record
	}
	rec.Tool, rec.Version, rec.TestSet, rec.DVColumns, rec.Settings = Tool, version.String(), cfg.TestSet, dvNames, settings
	if rec.Task.Name == "" {
		rec.Task = TaskRecord{Name: task.NameIdentity, Classes: cfg.Classes}
	}
	if err := writeRecord(cfg.Out, rec); err != nil {
		w.close()
		return nil, err
	}
	defer w.close()
	if cfg.Progress != nil {
		cfg.Progress(w.next, len(rows))
	}
	if cfg.Predictions != nil {
		err = runPredictions(ctx, &cfg, rows, w)
	} else if cfg.Logits == "" {
		err = runClassifier(ctx, &cfg, rows, w, nil, sum)
	} else {
		err = atomicfile.Write(cfg.Logits, func(f io.Writer) error {
			lw := &logitsWriter{bw: bufio.NewWriter(f)}
			lw.cw = csv.NewWriter(lw.bw)
			if err := runClassifier(ctx, &cfg, rows, w, lw, sum); err != nil {
				return err
			}
			return lw.flush()
		})
	}
	if err == nil {
		err = w.sync()
	}
	if err != nil {
		if serr := w.sync(); serr != nil && !errors.Is(err, context.Canceled) {
			err = errors.Join(err, serr)
		}
		return nil, err
	}
	if err := w.finish(cfg.Out); err != nil {
		return nil, err
	}
	w.tally(sum)
	return sum, nil
}

// readManifest reads every manifest row, checking that ids increase.
func readManifest(dir string) ([]*testset.Record, error) {
	path := filepath.Join(dir, testset.ManifestFile)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: give the folder vcr generate wrote (for a sharded run, the folder vcr merge wrote)", dir, testset.ManifestFile)
		}
		return nil, err
	}
	var rows []*testset.Record
	prev := -1
	err := testset.ReadManifest(path, func(r *testset.Record) error {
		if r.ID <= prev {
			return fmt.Errorf("%s: id %d follows id %d; rows must be in increasing id order", path, r.ID, prev)
		}
		prev = r.ID
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no rows", path)
	}
	return rows, nil
}

// targets returns every row's ground-truth class, −1 outside the task.
func targets(truth func(*testset.Record) (int, error), rows []*testset.Record) ([]int, error) {
	t := make([]int, len(rows))
	for i, r := range rows {
		c, err := truth(r)
		switch {
		case errors.Is(err, ErrOutsideTask):
			c = -1
		case err != nil:
			return nil, fmt.Errorf("%s row id %d: %w", testset.ManifestFile, r.ID, err)
		}
		t[i] = c
	}
	return t, nil
}

// checkPredictions makes sure p has a prediction for every row and source.
func checkPredictions(p Predictions, rows []*testset.Record, classes int) error {
	seen := map[string]bool{}
	check := func(pr Prediction, err error) error {
		if err != nil {
			return err
		}
		if pr.Class < -1 || classes > 0 && pr.Class >= classes {
			return fmt.Errorf("predicted class %d is outside the %d classes", pr.Class, classes)
		}
		return nil
	}
	for _, r := range rows {
		if err := check(p.Corrupted(r)); err != nil {
			return fmt.Errorf("predictions for row %d (%s): %w", r.ID, r.Path, err)
		}
		if !seen[r.Source] {
			seen[r.Source] = true
			if err := check(p.Clean(r.Source)); err != nil {
				return fmt.Errorf("predictions for the clean image %s: %w", r.Source, err)
			}
		}
	}
	return nil
}

// runPredictions writes the rows from imported predictions.
func runPredictions(ctx context.Context, cfg *Config, rows []*testset.Record, w *resultsWriter) error {
	for i := w.next; i < len(rows); i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		r := rows[i]
		clean, _ := cfg.Predictions.Clean(r.Source)
		cor, _ := cfg.Predictions.Corrupted(r)
		if err := w.write(i, clean, cor, ""); err != nil {
			return err
		}
		if cfg.Progress != nil && (i+1)%256 == 0 {
			cfg.Progress(i+1, len(rows))
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(len(rows), len(rows))
	}
	return nil
}

func formatConf(c float32) string {
	if math.IsNaN(float64(c)) {
		return ""
	}
	return strconv.FormatFloat(float64(c), 'g', -1, 32)
}

// lockOut creates out's folder and takes out's lock (internal/lock.File):
// two runs appending to one Out.partial would duplicate rows. The error
// wraps ErrLocked when another run holds it and says what to do.
func lockOut(out string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	release, err = lock.File(out)
	if err != nil {
		return nil, fmt.Errorf("%w; wait for the other vcr eval to finish (or stop it), then run again with --resume", err)
	}
	return release, nil
}
