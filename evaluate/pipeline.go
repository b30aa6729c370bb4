package evaluate

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/testset"
)

// job is one image to score: the corrupted image of rows[row], or, with
// clean set, the clean source image of rows[row].
type job struct {
	row   int
	clean bool
}

// batch is a run of consecutive tasks scored by one Classify call.
type batch struct {
	tasks   []job
	tensors []model.Tensor // one per task; Data nil where errs is set
	errs    []string       // why a task's image could not be read
	preds   []Prediction   // filled by the classify stage
	scores  [][]float32    // the raw scores, kept when Config.Logits is set
	done    chan struct{}  // closed when preds is filled
}

// runClassifier scores every clean source image not yet scored and every
// corrupted image of rows[w.next:], and writes their rows in order.
//
// Stages: Workers goroutines decode and preprocess whole batches; the
// Concurrency goroutines call Classify; this goroutine writes rows batch by
// batch, in order. At most Workers+Concurrency+2 batches are in flight, so
// memory does not grow with the test set.
//
// lw, if not nil, receives the score vector of every image scored.
func runClassifier(parent context.Context, cfg *Config, rows []*testset.Record, w *resultsWriter, lw *logitsWriter, sum *Summary) error {
	// Plan: each source's clean image is scored just before the first
	// corrupted image that needs it, unless an earlier run scored it.
	cleanPred := w.cleanSeen
	cleanErr := map[string]string{}
	planned := map[string]bool{}
	var tasks []job
	for i := w.next; i < len(rows); i++ {
		src := rows[i].Source
		if _, ok := cleanPred[src]; !ok && !planned[src] {
			planned[src] = true
			tasks = append(tasks, job{row: i, clean: true})
		}
		tasks = append(tasks, job{row: i})
	}
	var batches []*batch
	for s := 0; s < len(tasks); s += cfg.Batch {
		b := &batch{tasks: tasks[s:min(s+cfg.Batch, len(tasks))], done: make(chan struct{})}
		batches = append(batches, b)
	}

	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	inflight := cfg.Workers + cfg.Concurrency + 2
	sem := make(chan struct{}, inflight)
	decodeCh := make(chan *batch)
	classifyCh := make(chan *batch, inflight)
	var nClean, nCorrupted atomic.Int64
	var wg sync.WaitGroup

	// Feeder.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(decodeCh)
		for _, b := range batches {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case decodeCh <- b:
			case <-ctx.Done():
				return
			}
		}
	}()

	// Decoders.
	var decWG sync.WaitGroup
	for range cfg.Workers {
		decWG.Add(1)
		go func() {
			defer decWG.Done()
			for b := range decodeCh {
				if err := prepare(ctx, cfg, rows, b); err != nil {
					cancel(err)
					return
				}
				classifyCh <- b // never blocks: at most inflight batches exist
			}
		}()
	}
	go func() { decWG.Wait(); close(classifyCh) }()

	// Classifiers.
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range classifyCh {
				if ctx.Err() != nil {
					continue // drain
				}
				nc, nk, err := score(ctx, cfg, b)
				if err != nil {
					cancel(err)
					continue
				}
				nClean.Add(int64(nc))
				nCorrupted.Add(int64(nk))
				close(b.done)
			}
		}()
	}

	// Writer.
	err := func() error {
		for _, b := range batches {
			select {
			case <-b.done:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			for j, t := range b.tasks {
				r := rows[t.row]
				if lw != nil && b.errs[j] == "" {
					if err := lw.write(r, t.clean, b.scores[j]); err != nil {
						return err
					}
				}
				if t.clean {
					if b.errs[j] != "" {
						cleanErr[r.Source] = "clean " + b.errs[j]
					} else {
						cleanPred[r.Source] = b.preds[j]
					}
					continue
				}
				clean, ok := cleanPred[r.Source]
				msg := b.errs[j]
				if !ok && msg == "" {
					msg = cleanErr[r.Source]
				}
				if err := w.write(t.row, clean, b.preds[j], msg); err != nil {
					return err
				}
			}
			b.tensors, b.preds, b.scores = nil, nil, nil
			<-sem
			if cfg.Progress != nil {
				cfg.Progress(w.next, len(rows))
			}
		}
		return nil
	}()
	if err != nil {
		cancel(err)
	}
	wg.Wait()
	sum.CleanEvaluated, sum.CorruptedEvaluated = int(nClean.Load()), int(nCorrupted.Load())
	if err == nil {
		err = parent.Err()
	}
	return err
}

// prepare loads and preprocesses the images of b. An unreadable image is
// recorded in b.errs; a preprocessing error (the model's input does not fit
// the images) stops the evaluation.
func prepare(ctx context.Context, cfg *Config, rows []*testset.Record, b *batch) error {
	b.tensors = make([]model.Tensor, len(b.tasks))
	b.errs = make([]string, len(b.tasks))
	for j, t := range b.tasks {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		r := rows[t.row]
		var m *imageio.Image
		var err error
		if t.clean {
			m, err = cfg.Sources.Load(r.Source, r.SourceIndex)
		} else {
			var p string
			if p, err = testset.LocalPath(cfg.TestSet, r.Path); err == nil {
				m, err = imageio.Load(p, cfg.Opt)
			}
			if err == nil && (m.Width != r.Width || m.Height != r.Height) && r.Width > 0 {
				err = fmt.Errorf("%s is %d×%d, but the manifest says %d×%d", r.Path, m.Width, m.Height, r.Width, r.Height)
			}
		}
		if err != nil {
			b.errs[j] = err.Error()
			continue
		}
		tn, err := cfg.Preprocess.Apply(m)
		if err != nil {
			what := r.Path
			if t.clean {
				what = r.Source
			}
			return fmt.Errorf("preprocess %s: %w", what, err)
		}
		b.tensors[j] = tn
	}
	return nil
}

// score classifies the readable images of b and fills b.preds.
func score(ctx context.Context, cfg *Config, b *batch) (clean, corrupted int, err error) {
	b.preds = make([]Prediction, len(b.tasks))
	in := make([]model.Tensor, 0, len(b.tasks))
	for j := range b.tasks {
		if b.errs[j] == "" {
			in = append(in, b.tensors[j])
		}
	}
	if len(in) == 0 {
		return 0, 0, nil
	}
	out, err := cfg.Classifier.Classify(ctx, in)
	if err != nil {
		return 0, 0, err
	}
	if len(out) != len(in) {
		return 0, 0, fmt.Errorf("model %s returned %d score vectors for %d images", cfg.Classifier.Info().Name, len(out), len(in))
	}
	if cfg.Logits != "" {
		b.scores = make([][]float32, len(b.tasks))
	}
	k := 0
	for j, t := range b.tasks {
		if b.errs[j] != "" {
			continue
		}
		if b.scores != nil {
			b.scores[j] = slices.Clone(out[k])
		}
		c, conf := cfg.Mapper.Map(out[k])
		k++
		b.preds[j] = Prediction{Class: c, Conf: conf}
		if t.clean {
			clean++
		} else {
			corrupted++
		}
	}
	return clean, corrupted, nil
}

// logitsWriter writes Config.Logits: a header naming K score columns when
// the first row comes, then one row per scored image.
type logitsWriter struct {
	bw     *bufio.Writer
	cw     *csv.Writer
	k      int // number of scores; 0 before the header
	record []string
}

func (l *logitsWriter) write(r *testset.Record, clean bool, scores []float32) error {
	if l.k == 0 {
		if len(scores) == 0 {
			return fmt.Errorf("logits: the model returned an empty score vector")
		}
		l.k = len(scores)
		l.record = []string{"id", "path", "source", "kind"}
		for i := range l.k {
			l.record = append(l.record, "logit_"+strconv.Itoa(i))
		}
		if err := l.cw.Write(l.record); err != nil {
			return err
		}
	}
	if len(scores) != l.k {
		return fmt.Errorf("logits: the model returned %d scores for %s after %d for earlier images", len(scores), r.Path, l.k)
	}
	if clean {
		l.record = append(l.record[:0], "", "", r.Source, "clean")
	} else {
		l.record = append(l.record[:0], strconv.Itoa(r.ID), r.Path, r.Source, "corrupted")
	}
	for _, v := range scores {
		l.record = append(l.record, strconv.FormatFloat(float64(v), 'g', -1, 32))
	}
	return l.cw.Write(l.record)
}

func (l *logitsWriter) flush() error {
	l.cw.Flush()
	if err := l.cw.Error(); err != nil {
		return err
	}
	return l.bw.Flush()
}
