package evaluate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/testset"
)

// TestSetImages classifies images of one test set that the caller chooses
// (vcr requirements check --testset, through reliability.CheckTestSet),
// with an opened Model: a classifier, which decodes, preprocesses and
// classifies the images as Run does, or a predictions file, which is only
// looked up (no model runs). It implements reliability.TestSetPredictor.
type TestSetImages struct {
	cfg Config
}

// NewTestSetImages returns the classifier of m for the images of the test
// set in folder testSet. With a classifier, sources loads the clean source
// images (CleanSources) and opt limits decoding; batch is the number of
// images per model call (default 32, capped by the model's) and workers
// the images decoded and preprocessed in parallel (default GOMAXPROCS).
// sources may be nil with a predictions file.
func NewTestSetImages(m *Model, testSet string, sources Sources, opt imageio.Options, batch, workers int) (*TestSetImages, error) {
	cfg := Config{TestSet: testSet, Classifier: m.Classifier, Preprocess: m.Preprocess, Mapper: m.Mapper,
		Predictions: m.Predictions, Classes: m.Classes, Truth: m.Truth, Sources: sources, Opt: opt, Batch: batch, Workers: workers}
	if (cfg.Classifier == nil) == (cfg.Predictions == nil) {
		return nil, errors.New("evaluate: NewTestSetImages needs a model with exactly one of a classifier and predictions")
	}
	if cfg.Classifier != nil && (cfg.Preprocess == nil || cfg.Sources == nil) {
		return nil, errors.New("evaluate: NewTestSetImages with a classifier needs its preprocessing and the clean sources")
	}
	cfg.setDefaults()
	return &TestSetImages{cfg: cfg}, nil
}

// Truth returns the task class of row r's label, or −1 when the label is
// outside the task (or the row has none).
func (t *TestSetImages) Truth(r *testset.Record) (int, error) {
	c, err := t.cfg.Truth(r)
	if errors.Is(err, ErrOutsideTask) {
		return -1, nil
	}
	return c, err
}

// Predict returns the task class predicted for each image: the clean
// source image of rows[i] when clean[i], else its corrupted image (−1 for
// a prediction outside the task's classes). An image that cannot be read,
// or a predictions file without the image, is an error naming it.
func (t *TestSetImages) Predict(ctx context.Context, rows []*testset.Record, clean []bool) ([]int, error) {
	if len(rows) != len(clean) {
		panic("evaluate: Predict with rows and clean of different lengths")
	}
	out := make([]int, len(rows))
	if p := t.cfg.Predictions; p != nil {
		for i, r := range rows {
			var pr Prediction
			var err error
			if clean[i] {
				pr, err = p.Clean(r.Source)
			} else {
				pr, err = p.Corrupted(r)
			}
			if err != nil {
				return nil, err
			}
			if pr.Class < -1 || len(t.cfg.Classes) > 0 && pr.Class >= len(t.cfg.Classes) {
				return nil, fmt.Errorf("predictions for %s: class %d is outside the %d classes", what(r, clean[i]), pr.Class, len(t.cfg.Classes))
			}
			out[i] = pr.Class
		}
		return out, nil
	}
	return t.classify(ctx, rows, clean, out)
}

// what names an image for messages.
func what(r *testset.Record, clean bool) string {
	if clean {
		return "the clean image " + r.Source
	}
	return r.Path
}

// classify runs the classifier: Workers goroutines decode and preprocess
// whole batches (at most Workers+2 batches in memory), and this goroutine
// classifies them in order.
func (t *TestSetImages) classify(ctx context.Context, rows []*testset.Record, clean []bool, out []int) ([]int, error) {
	cfg := &t.cfg
	var batches []*batch
	for s := 0; s < len(rows); s += cfg.Batch {
		b := &batch{done: make(chan struct{})}
		for i := s; i < min(s+cfg.Batch, len(rows)); i++ {
			b.tasks = append(b.tasks, job{row: i, clean: clean[i]})
		}
		batches = append(batches, b)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, cfg.Workers+2)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(cfg.Workers, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1)) - 1
				if i >= len(batches) {
					<-sem
					return
				}
				b := batches[i]
				if err := prepare(ctx, cfg, rows, b); err != nil {
					cancel(err)
					return
				}
				close(b.done)
			}
		}()
	}
	err := func() error {
		for _, b := range batches {
			select {
			case <-b.done:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			for j, e := range b.errs {
				if e != "" {
					r := rows[b.tasks[j].row]
					return fmt.Errorf("read %s: %s", what(r, b.tasks[j].clean), e)
				}
			}
			if _, _, err := score(ctx, cfg, b); err != nil {
				return err
			}
			for j, tk := range b.tasks {
				out[tk.row] = b.preds[j].Class
			}
			b.tensors, b.preds = nil, nil
			<-sem
		}
		return nil
	}()
	if err != nil {
		cancel(err)
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return out, nil
}

// OpenTestSetImages opens the model of spec for the test set in folder
// testSet (OpenModel, with spec.TestSet = testSet) and returns it with its
// TestSetImages. With a classifier it also finds the clean source images
// (CleanSources; images, if not empty, is where the dataset is now) and
// found says where; a predictions file needs neither a model nor the
// source images. Close the model when done. A bad setting is a *SpecError
// naming the flag.
func OpenTestSetImages(ctx context.Context, spec ModelSpec, testSet, images string, opt imageio.Options, workers int) (t *TestSetImages, m *Model, found string, err error) {
	var sources Sources
	if spec.Predictions == "" {
		ri, err := testset.ReadRunInfo(testSet)
		if err != nil {
			return nil, nil, "", &SpecError{Flag: "--testset", Err: err}
		}
		ds, err := CleanSources(ri, testSet, images, opt)
		if err != nil {
			return nil, nil, "", &SpecError{Flag: "--images", Err: fmt.Errorf("%w; pass --images to say where the dataset is now", err)}
		}
		sources = ds
		if ds.Found != testset.ResolvedOverride {
			found = fmt.Sprintf("clean source images in %s, found %s", ds.Root, ds.Found)
		}
	}
	spec.TestSet = testSet
	m, err = OpenModel(ctx, spec)
	if err != nil {
		return nil, nil, "", err
	}
	t, err = NewTestSetImages(m, testSet, sources, opt, spec.BatchSize, workers)
	if err != nil {
		m.Close()
		return nil, nil, "", err
	}
	return t, m, found, nil
}
