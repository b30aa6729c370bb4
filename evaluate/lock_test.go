package evaluate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/model"
)

// blockingModel is fakeModel that, on its first call, says so on started
// and waits for release.
type blockingModel struct {
	fakeModel
	started, release chan struct{}
	once             bool
}

func (b *blockingModel) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	if !b.once {
		b.once = true
		close(b.started)
		<-b.release
	}
	return b.fakeModel.Classify(ctx, batch)
}

// TestConcurrentRunsRefused runs a second evaluation (with Resume, as the
// report of issue 15 did) on the Out of a first one that is still running:
// the second is refused with ErrLocked and writes nothing, and the first
// finishes with exactly the rows of an undisturbed run (before the lock,
// both appended to Out.partial: 1,698 rows for 900).
func TestConcurrentRunsRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("outputs are locked with flock(2) on Linux only")
	}
	ts, _ := makeTestSet(t, 8, 0)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.csv")
	if _, err := Run(context.Background(), Config{TestSet: ts, Out: ref, Classifier: &fakeModel{}, Preprocess: planar{}, Classes: classes, Batch: 4, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.csv")
	bm := &blockingModel{started: make(chan struct{}), release: make(chan struct{})}
	first := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Config{TestSet: ts, Out: out, Classifier: bm, Preprocess: planar{}, Classes: classes, Batch: 4, Workers: 1})
		first <- err
	}()
	<-bm.started
	_, err := Run(context.Background(), Config{TestSet: ts, Out: out, Classifier: &fakeModel{}, Preprocess: planar{}, Classes: classes, Batch: 4, Workers: 1, Resume: true})
	if !errors.Is(err, ErrLocked) {
		t.Errorf("second run while the first is running: %v, want ErrLocked", err)
	} else if msg := err.Error(); !strings.Contains(msg, out) || !strings.Contains(msg, "--resume") {
		t.Errorf("message %q should name %s and say to rerun with --resume", msg, out)
	}
	close(bm.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, out), readFile(t, ref)) {
		t.Error("the first run's results differ from an undisturbed run's")
	}
	if _, err := os.Stat(out + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
	// Once the first has finished, a resume is accepted again.
	if s, err := Run(context.Background(), Config{TestSet: ts, Out: out, Classifier: &fakeModel{}, Preprocess: planar{}, Classes: classes, Batch: 4, Workers: 1, Resume: true}); err != nil || !s.WasComplete {
		t.Errorf("resume after the first finished: %+v, %v", s, err)
	}
}

// TestEvalLocksBeforeOpeningModel holds the lock of an --out and runs Eval
// with a model file that does not exist: the run is refused with ErrLocked
// before the model is opened (before, it reported the model only after
// opening it, so a second eval on a busy --out loaded its model for nothing).
func TestEvalLocksBeforeOpeningModel(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("outputs are locked with flock(2) on Linux only")
	}
	ts, _ := makeTestSet(t, 4, 0)
	out := filepath.Join(t.TempDir(), "r.csv")
	release, err := lockOut(out)
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-model.onnx")
	_, err = Eval(context.Background(), Options{TestSet: ts, Out: out, Model: ModelSpec{Model: missing}})
	if !errors.Is(err, ErrLocked) {
		t.Errorf("eval on a locked --out: %v, want ErrLocked before the model is opened", err)
	}
	release()
	// Unlocked, the same call gets as far as the model and names it.
	_, err = Eval(context.Background(), Options{TestSet: ts, Out: out, Model: ModelSpec{Model: missing}})
	if err == nil || errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "no-such-model.onnx") {
		t.Errorf("eval on a free --out with a missing model: %v, want an error naming the model", err)
	}
	if _, err := os.Stat(out + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
}
