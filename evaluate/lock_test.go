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
