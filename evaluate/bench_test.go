package evaluate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/testset"
)

// trivial is a classifier that does almost nothing, so that a benchmark
// measures the pipeline around the model.
type trivial struct{}

func (trivial) Info() model.Info { return model.Info{Name: "trivial", Classes: 3} }
func (trivial) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	out := make([][]float32, len(batch))
	for i, t := range batch {
		out[i] = []float32{t.Data[0], t.Data[len(t.Data)/2], t.Data[len(t.Data)-1]}
	}
	return out, nil
}
func (trivial) Close() error { return nil }

// BenchmarkPipeline224 runs the whole evaluation (manifest, decoding the
// 224×224 PNGs of a test set and its clean sources, preprocessing into
// NCHW tensors, batching, results writing) with a trivial classifier. The
// img/s metric counts every image scored (corrupted and clean).
func BenchmarkPipeline224(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	for i := range 20 {
		if err := imageio.Save(filepath.Join(root, "a", fmt.Sprintf("%d.png", i)), testimg.Natural(224, 224, uint64(i)), imageio.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	ds, err := dataset.OpenImageFolder(root, imageio.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, _ := corrupt.Lookup("brightness")
	ts := filepath.Join(b.TempDir(), "ts")
	if _, err := testset.Generate(context.Background(), testset.Config{Source: ds, Corruptions: []*corrupt.Corruption{c}, N: 300, Out: ts}); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "r.csv")
	b.ResetTimer()
	cpu0 := processCPU()
	images := 0
	for b.Loop() {
		sum, err := Run(context.Background(), Config{TestSet: ts, Out: out, Force: true, Classifier: trivial{}, Preprocess: planar{}, Workers: runtime.GOMAXPROCS(0)})
		if err != nil {
			b.Fatal(err)
		}
		images += sum.CleanEvaluated + sum.CorruptedEvaluated
	}
	cpu := processCPU() - cpu0
	b.ReportMetric(float64(images)/b.Elapsed().Seconds(), "img/s")
	// CPU time per image is what a loaded machine cannot distort: on n idle
	// cores the pipeline runs n/(CPU per image) images per second.
	b.ReportMetric(float64(cpu.Microseconds())/float64(images), "cpu-µs/img")
}

// processCPU returns the user and system CPU time of the process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
