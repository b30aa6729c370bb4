//go:build cgo

package onnx_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
)

// EnvRequire makes the tests fail, instead of skip, when ONNX Runtime is
// missing; CI sets it so that the ONNX path can't be skipped silently.
const EnvRequire = "VCR_REQUIRE_ONNXRUNTIME"

// requireRuntime skips the test when no ONNX Runtime library is found
// (fails when $VCR_REQUIRE_ONNXRUNTIME is 1) and returns its path.
func requireRuntime(t testing.TB) string {
	t.Helper()
	lib, _, err := onnx.FindLibrary(onnx.Options{})
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1 but ONNX Runtime is missing: %v", EnvRequire, err)
		}
		t.Skipf("ONNX Runtime not installed, skipping; install it with "+
			"`npm install --ignore-scripts onnxruntime-node@%s` in the repository (or `pip install onnxruntime`) "+
			"or set %s to libonnxruntime.so (see docs/onnx.md)", onnx.NPMVersion, onnx.EnvLibrary)
	}
	return lib
}

// TestRuntimeRequired fails when CI asks for ONNX Runtime and it can't be
// found or loaded.
func TestRuntimeRequired(t *testing.T) {
	if os.Getenv(EnvRequire) != "1" {
		t.Skipf("%s is not 1", EnvRequire)
	}
	requireRuntime(t)
	m := openNet(t, onnxgen.Spec{Arch: onnxgen.Linear, Classes: 2}, onnx.Options{})
	if _, version := onnx.Loaded(); version == "" {
		t.Errorf("Loaded() reports no version after opening %s", m.Info().Name)
	}
}

// writeNet generates the model spec describes into a temporary file.
func writeNet(t testing.TB, spec onnxgen.Spec) (*onnxgen.Net, string) {
	t.Helper()
	n, err := onnxgen.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("%s_%d.onnx", spec.Arch, spec.Classes))
	if err := n.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return n, path
}

func openNet(t testing.TB, spec onnxgen.Spec, opt onnx.Options) *onnx.Model {
	t.Helper()
	requireRuntime(t)
	_, path := writeNet(t, spec)
	m, err := onnx.Open(path, opt)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// images returns count test tensors of size h×w in layout, cut from
// natural-looking test images.
func images(count, h, w int, layout model.Layout) []model.Tensor {
	out := make([]model.Tensor, count)
	for i := range out {
		img := testimg.Natural(w, h, uint64(i+1))
		t := model.Tensor{Data: make([]float32, 3*h*w), Shape: []int64{3, int64(h), int64(w)}}
		if layout == model.NHWC {
			t.Shape = []int64{int64(h), int64(w), 3}
		}
		for c := range 3 {
			for p, v := range img.Ch[c] {
				// Centre and scale like an ImageNet normalisation would.
				v = (v - 0.45) / 0.25
				if layout == model.NHWC {
					t.Data[p*3+c] = v
				} else {
					t.Data[c*h*w+p] = v
				}
			}
		}
		out[i] = t
	}
	return out
}

// close32 reports whether got agrees with want within 1e-5, relative to
// the larger of 1 and |want|, for images of up to 32×32 = 1024 pixels. ONNX
// Runtime averages in float32 and Forward in float64; float32 rounding
// errors in a sum of n terms grow like √n·ε (ε = 6e-8), so the tolerance
// grows with √(pixels/1024): 7e-5 at 224×224.
func close32(got, want float32, pixels int) bool {
	tol := 1e-5 * math.Max(1, math.Sqrt(float64(pixels)/1024))
	return math.Abs(float64(got-want)) <= tol*math.Max(1, math.Abs(float64(want)))
}

func TestMatchesReference(t *testing.T) {
	requireRuntime(t)
	for _, tc := range []struct {
		name string
		spec onnxgen.Spec
		h, w int // image size for dynamic models
		opt  onnx.Options
	}{
		{"linear-dynamic", onnxgen.Spec{Arch: onnxgen.Linear, Classes: 10, Seed: 1}, 24, 40, onnx.Options{}},
		{"linear-imagenet", onnxgen.Spec{Arch: onnxgen.Linear, Classes: 1000, Height: 224, Width: 224, Seed: 2}, 224, 224, onnx.Options{}},
		{"conv-softmax", onnxgen.Spec{Arch: onnxgen.Conv, Classes: 10, Height: 32, Width: 32, Softmax: true, Seed: 3}, 32, 32, onnx.Options{MaxBatch: 2}},
		{"conv-nhwc", onnxgen.Spec{Arch: onnxgen.Conv, Classes: 16, Layout: model.NHWC, Seed: 4}, 20, 28, onnx.Options{Threads: 1}},
		{"conv-fixed-batch", onnxgen.Spec{Arch: onnxgen.Conv, Classes: 5, Height: 16, Width: 16, Batch: 4, Seed: 5}, 16, 16, onnx.Options{}},
		{"conv-1000", onnxgen.Spec{Arch: onnxgen.Conv, Classes: 1000, Height: 64, Width: 64, Filters: 8, Seed: 6}, 64, 64, onnx.Options{MaxBatch: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, path := writeNet(t, tc.spec)
			m, err := onnx.Open(path, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			info := m.Info()
			layout := net.Spec.Layout
			wantMax := 32
			if tc.opt.MaxBatch > 0 {
				wantMax = tc.opt.MaxBatch
			}
			if tc.spec.Batch > 0 {
				wantMax = tc.spec.Batch
			}
			want := model.Info{Name: filepath.Base(path), InputName: onnxgen.InputName, OutputName: net.OutputName(),
				Layout: layout, Channels: 3, Height: tc.spec.Height, Width: tc.spec.Width, Classes: tc.spec.Classes, MaxBatch: wantMax}
			if info != want {
				t.Errorf("Info() = %+v, want %+v", info, want)
			}
			batch := images(7, tc.h, tc.w, layout)
			got, err := m.Classify(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(batch) {
				t.Fatalf("got %d score vectors for %d images", len(got), len(batch))
			}
			for i, img := range batch {
				ref := net.Forward(img.Data, tc.h, tc.w)
				if len(got[i]) != len(ref) {
					t.Fatalf("image %d: %d scores, want %d", i, len(got[i]), len(ref))
				}
				bad := 0
				for k := range ref {
					if !close32(got[i][k], ref[k], tc.h*tc.w) {
						if bad < 3 {
							t.Errorf("image %d class %d: ONNX Runtime %v, Go reference %v", i, k, got[i][k], ref[k])
						}
						bad++
					}
				}
			}
			if tc.spec.Softmax {
				for i, s := range got {
					sum := 0.0
					for _, v := range s {
						sum += float64(v)
					}
					if math.Abs(sum-1) > 1e-5 {
						t.Errorf("image %d: probabilities sum to %v", i, sum)
					}
				}
			}
		})
	}
}

// TestConcurrent runs one model from several goroutines at once.
func TestConcurrent(t *testing.T) {
	spec := onnxgen.Spec{Arch: onnxgen.Conv, Classes: 10, Height: 32, Width: 32, Seed: 7}
	requireRuntime(t)
	net, path := writeNet(t, spec)
	m, err := onnx.Open(path, onnx.Options{MaxBatch: 3, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	batch := images(5, 32, 32, model.NCHW)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for range 5 {
				got, err := m.Classify(context.Background(), batch[g%5:])
				if err != nil {
					errs <- err
					return
				}
				for i, s := range got {
					ref := net.Forward(batch[g%5+i].Data, 32, 32)
					for k := range ref {
						if !close32(s[k], ref[k], 32*32) {
							errs <- fmt.Errorf("goroutine %d image %d class %d: %v, want %v", g, i, k, s[k], ref[k])
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClassifyErrors(t *testing.T) {
	m := openNet(t, onnxgen.Spec{Arch: onnxgen.Conv, Classes: 3, Height: 32, Width: 32}, onnx.Options{MaxBatch: 1})
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		batch []model.Tensor
		want  string
	}{
		{"size", images(1, 16, 16, model.NCHW), "expects 3×32×32 (NCHW), got 3×16×16"},
		{"layout", images(1, 32, 32, model.NHWC), "expects 3×32×32 (NCHW), got 32×32×3"},
		{"rank", []model.Tensor{{Data: make([]float32, 3*32*32), Shape: []int64{3, 1024}}}, "got 3×1024"},
		{"negative", []model.Tensor{{Data: make([]float32, 3*32*32), Shape: []int64{3, -32, 32}}}, "got 3×?×32"},
		{"data", []model.Tensor{{Data: make([]float32, 10), Shape: []int64{3, 32, 32}}}, "needs 3072 values, got 10"},
		{"second", append(images(1, 32, 32, model.NCHW), images(1, 8, 8, model.NCHW)...), "batch[1]"},
	} {
		_, err := m.Classify(ctx, tc.batch)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	// A dynamic model takes any size, but one size per batch.
	dyn := openNet(t, onnxgen.Spec{Arch: onnxgen.Linear, Classes: 3}, onnx.Options{})
	mixed := append(images(1, 8, 8, model.NCHW), images(1, 9, 9, model.NCHW)...)
	if _, err := dyn.Classify(ctx, mixed); err == nil || !strings.Contains(err.Error(), "expects 3×8×8 (NCHW), got 3×9×9") {
		t.Errorf("mixed sizes: error %v", err)
	}

	// Cancellation: already cancelled, and an empty batch.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Classify(cctx, images(3, 32, 32, model.NCHW)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
	if got, err := m.Classify(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("empty batch: %v, %v", got, err)
	}

	// Close.
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Classify(ctx, images(1, 32, 32, model.NCHW)); !errors.Is(err, onnx.ErrClosed) {
		t.Errorf("after Close: error %v, want ErrClosed", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	requireRuntime(t)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.onnx")
	if err := os.WriteFile(garbage, []byte("this is not a protobuf model\x00\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, dense := writeNet(t, onnxgen.Spec{Arch: onnxgen.Dense, Classes: 4, Channels: 5})
	_, conv := writeNet(t, onnxgen.Spec{Arch: onnxgen.Conv, Classes: 4})
	for _, tc := range []struct {
		name, path string
		opt        onnx.Options
		want       string
	}{
		{"missing", filepath.Join(dir, "nope.onnx"), onnx.Options{}, "no such file"},
		{"directory", dir, onnx.Options{}, "is a directory"},
		{"not onnx", garbage, onnx.Options{}, "is not a model ONNX Runtime can load"},
		{"not an image", dense, onnx.Options{}, "needs a 4-D float32 image tensor"},
		{"output", conv, onnx.Options{Output: "scores"}, `has no output "scores"`},
		{"layout", conv, onnx.Options{Layout: "CHWN"}, "unknown layout"},
		{"negative", conv, onnx.Options{Threads: -1}, "must not be negative"},
		{"other library", conv, onnx.Options{Library: "/bin/sh"}, "already loaded"},
	} {
		m, err := onnx.Open(tc.path, tc.opt)
		if err == nil {
			m.Close()
			t.Errorf("%s: Open succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want one containing %q", tc.name, err, tc.want)
		}
	}

	// The same library, named explicitly, is fine.
	lib, _ := onnx.Loaded()
	m, err := onnx.Open(conv, onnx.Options{Library: lib})
	if err != nil {
		t.Fatalf("Open with the loaded library: %v", err)
	}
	m.Close()
}

// TestCUDA opens a model on the CUDA execution provider: an error naming
// the fix with a CPU-only library (like the npm package's), a working
// session with a GPU build on a machine with a GPU.
func TestCUDA(t *testing.T) {
	requireRuntime(t)
	net, path := writeNet(t, onnxgen.Spec{Arch: onnxgen.Conv, Classes: 10, Height: 32, Width: 32, Seed: 9})
	m, err := onnx.Open(path, onnx.Options{CUDA: true})
	if err != nil {
		if !strings.Contains(err.Error(), "CUDA execution provider is not available") || !strings.Contains(err.Error(), "onnxruntime-gpu") {
			t.Errorf("CUDA error does not say how to fix it: %v", err)
		}
		t.Logf("no CUDA: %v", err)
		return
	}
	defer m.Close()
	if m.Providers() != "CUDA:0" {
		t.Errorf("Providers() = %q", m.Providers())
	}
	batch := images(4, 32, 32, model.NCHW)
	got, err := m.Classify(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	for i, img := range batch {
		ref := net.Forward(img.Data, 32, 32)
		for k := range ref {
			// GPU kernels (TF32 convolutions) round more coarsely.
			if math.Abs(float64(got[i][k]-ref[k])) > 1e-2*math.Max(1, math.Abs(float64(ref[k]))) {
				t.Errorf("CUDA image %d class %d: %v, want %v", i, k, got[i][k], ref[k])
			}
		}
	}
}

// BenchmarkClassifyConv224 runs batches of 32 224×224 images through the
// tiny conv net (Conv 3→4 3×3, Relu, GlobalAveragePool, Gemm → 1000), with
// one intra-op thread and with ONNX Runtime's default (one per core).
func BenchmarkClassifyConv224(b *testing.B) {
	requireRuntime(b)
	_, path := writeNet(b, onnxgen.Spec{Arch: onnxgen.Conv, Classes: 1000, Height: 224, Width: 224, Seed: 10})
	batch := images(32, 224, 224, model.NCHW)
	ctx := context.Background()
	for _, threads := range []int{1, 0} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			m, err := onnx.Open(path, onnx.Options{MaxBatch: 32, Threads: threads})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Classify(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "img/s")
		})
	}
}

// TestBadLibraryThenGood runs in a child process (ONNX Runtime is loaded
// once per process): a file that isn't ONNX Runtime gives a clear error and
// leaves the process free to load the real library afterwards.
func TestBadLibraryThenGood(t *testing.T) {
	if os.Getenv("VCR_ONNX_TEST_CHILD") != "1" {
		lib := requireRuntime(t)
		cmd := exec.Command(os.Args[0], "-test.run=^TestBadLibraryThenGood$", "-test.v")
		cmd.Env = append(os.Environ(), "VCR_ONNX_TEST_CHILD=1", onnx.EnvLibrary+"="+lib)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestBadLibraryThenGood") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	_, path := writeNet(t, onnxgen.Spec{Arch: onnxgen.Linear, Classes: 3})
	_, err := onnx.Open(path, onnx.Options{Library: "/bin/sh"})
	if err == nil || !strings.Contains(err.Error(), "load ONNX Runtime from /bin/sh") || !strings.Contains(err.Error(), "1.24 or later") {
		t.Fatalf("Open with /bin/sh: %v", err)
	}
	t.Log(err)
	if lib, _ := onnx.Loaded(); lib != "" {
		t.Fatalf("Loaded() = %q after a failed load", lib)
	}
	m, err := onnx.Open(path, onnx.Options{})
	if err != nil {
		t.Fatalf("Open after a failed load: %v", err)
	}
	m.Close()
}

// countdownCtx is cancelled by its n-th call to Err, which lets a test
// cancel Classify between two runs deterministically.
type countdownCtx struct {
	context.Context
	mu   sync.Mutex
	n    int
	done chan struct{}
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

func (c *countdownCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n > 0 {
		c.n--
		if c.n == 0 {
			close(c.done)
		}
	}
	if c.n == 0 {
		return context.Canceled
	}
	return nil
}

func TestCancelBetweenRuns(t *testing.T) {
	m := openNet(t, onnxgen.Spec{Arch: onnxgen.Conv, Classes: 3, Height: 16, Width: 16}, onnx.Options{MaxBatch: 2})
	batch := images(6, 16, 16, model.NCHW)
	// Err is checked once per run of 2 images; the 3rd check cancels.
	ctx := &countdownCtx{Context: context.Background(), n: 3, done: make(chan struct{})}
	got, err := m.Classify(ctx, batch)
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("Classify = %d results, %v; want context.Canceled", len(got), err)
	}
	// Not cancelled: all three runs.
	ctx = &countdownCtx{Context: context.Background(), n: 100, done: make(chan struct{})}
	if got, err := m.Classify(ctx, batch); err != nil || len(got) != 6 {
		t.Errorf("Classify = %d results, %v", len(got), err)
	}
}
