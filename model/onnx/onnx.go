//go:build cgo

package onnx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vcr-bench/vcr/model"
)

// env is the process-wide ONNX Runtime environment: onnxruntime_go loads one
// library per process and keeps global state, so it is initialised once.
var env struct {
	mu      sync.Mutex
	library string // the loaded library's path; "" until loaded
}

// initRuntime loads the library Options select, or checks that the loaded
// one is the same.
func initRuntime(opt Options) (string, error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.library != "" {
		explicit := opt.Library
		if explicit == "" {
			// A different library named by the environment since the
			// first Open is still a conflict worth reporting.
			for _, e := range envLibraries {
				if v := os.Getenv(e); v != "" {
					explicit = v
					break
				}
			}
		}
		if explicit != "" && !sameFile(explicit, env.library) {
			return "", fmt.Errorf("onnx: ONNX Runtime is already loaded from %s in this process; cannot also load %s (use one library per process)", env.library, explicit)
		}
		return env.library, nil
	}
	path, _, err := FindLibrary(opt)
	if err != nil {
		return "", err
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return "", fmt.Errorf("onnx: load ONNX Runtime from %s: %w (vcr needs ONNX Runtime 1.24 or later, built for %s)\n%s",
			path, err, platform(), InstallHint())
	}
	env.library = path
	return path, nil
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}

// Loaded returns the path of the ONNX Runtime library loaded in this
// process, and the library's version; empty strings if none is loaded yet.
func Loaded() (path, version string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.library == "" {
		return "", ""
	}
	return env.library, ort.GetVersion()
}

// Model is an ONNX image classifier run by ONNX Runtime. It implements
// model.Classifier and is safe for concurrent use: ONNX Runtime allows
// concurrent runs of one session, and each Classify call uses its own
// buffers.
type Model struct {
	info      model.Info
	inShape   []int64 // model input shape with the batch dimension; -1 dynamic
	outShape  []int64 // model output shape with the batch dimension
	fixedN    int64   // the model's fixed batch size, 0 if dynamic
	chunk     int     // images per run
	library   string
	mu        sync.RWMutex // write-locked by Close
	session   *ort.DynamicAdvancedSession
	closed    bool
	providers string
	inputs    sync.Pool // *[]float32 input buffers
}

// Open loads the ONNX model at path. It finds and loads ONNX Runtime (see
// FindLibrary) on first use, reads the model's input and output names and
// shapes, and checks that the input is a 4-D float image tensor (N,C,H,W or
// N,H,W,C; C = 1 or 3) and that the output holds one score vector per image.
func Open(path string, opt Options) (*Model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: open model: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("onnx: open model: %s is a directory, not an .onnx file", path)
	}
	if opt.MaxBatch < 0 || opt.Threads < 0 || opt.CUDADevice < 0 {
		return nil, fmt.Errorf("onnx: MaxBatch, Threads and CUDADevice must not be negative (got %d, %d, %d)", opt.MaxBatch, opt.Threads, opt.CUDADevice)
	}
	lib, err := initRuntime(opt)
	if err != nil {
		return nil, err
	}
	inputs, outputs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %s is not a model ONNX Runtime can load: %w", path, err)
	}
	m := &Model{library: lib, info: model.Info{Name: filepath.Base(path)}}
	if err := m.setInput(path, inputs, opt.Layout); err != nil {
		return nil, err
	}
	if err := m.setOutput(path, outputs, opt.Output); err != nil {
		return nil, err
	}
	m.chunk = opt.MaxBatch
	if m.chunk == 0 {
		m.chunk = 32
	}
	if m.fixedN > 0 {
		m.chunk = int(m.fixedN)
	}
	m.info.MaxBatch = m.chunk

	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnx: session options: %w", err)
	}
	defer so.Destroy()
	if opt.Threads > 0 {
		if err := so.SetIntraOpNumThreads(opt.Threads); err != nil {
			return nil, fmt.Errorf("onnx: set %d threads: %w", opt.Threads, err)
		}
		if err := so.SetInterOpNumThreads(1); err != nil {
			return nil, fmt.Errorf("onnx: set inter-op threads: %w", err)
		}
	}
	m.providers = "CPU"
	if opt.CUDA {
		if err := appendCUDA(so, opt.CUDADevice); err != nil {
			return nil, fmt.Errorf("onnx: the CUDA execution provider is not available with %s: %w; "+
				"use a GPU build of ONNX Runtime (pip install onnxruntime-gpu, or the onnxruntime-linux-x64-gpu release, "+
				"with a matching CUDA and cuDNN) or run on the CPU without --cuda", lib, err)
		}
		m.providers = "CUDA:" + strconv.Itoa(opt.CUDADevice)
	}
	s, err := ort.NewDynamicAdvancedSession(path, []string{m.info.InputName}, []string{m.info.OutputName}, so)
	if err != nil {
		if opt.CUDA {
			return nil, fmt.Errorf("onnx: create a CUDA session for %s: %w", path, err)
		}
		return nil, fmt.Errorf("onnx: create a session for %s: %w", path, err)
	}
	m.session = s
	return m, nil
}

func appendCUDA(so *ort.SessionOptions, device int) error {
	co, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return err
	}
	defer co.Destroy()
	if err := co.Update(map[string]string{"device_id": strconv.Itoa(device)}); err != nil {
		return err
	}
	return so.AppendExecutionProviderCUDA(co)
}

func (m *Model) setInput(path string, inputs []ort.InputOutputInfo, layout model.Layout) error {
	if len(inputs) != 1 {
		names := make([]string, len(inputs))
		for i, in := range inputs {
			names[i] = in.Name
		}
		return fmt.Errorf("onnx: %s has %d inputs %q; vcr needs a model with one image input", path, len(inputs), names)
	}
	in := inputs[0]
	dims := []int64(in.Dimensions)
	if in.OrtValueType != ort.ONNXTypeTensor || in.DataType != ort.TensorElementDataTypeFloat || len(dims) != 4 {
		return fmt.Errorf("onnx: %s: input %q is %s; vcr needs a 4-D float32 image tensor (N,3,H,W or N,H,W,3)", path, in.Name, in.String())
	}
	if layout == "" {
		switch {
		case dims[1] == 3 || dims[1] == 1:
			layout = model.NCHW
		case dims[3] == 3 || dims[3] == 1:
			layout = model.NHWC
		default:
			return fmt.Errorf("onnx: %s: can't tell the layout of input %q %s: neither dimension 1 nor 3 is 1 or 3 channels; set the layout (NCHW or NHWC) explicitly", path, in.Name, fmtDims(dims))
		}
	}
	var c, h, w int64
	switch layout {
	case model.NCHW:
		c, h, w = dims[1], dims[2], dims[3]
	case model.NHWC:
		h, w, c = dims[1], dims[2], dims[3]
	default:
		return fmt.Errorf("onnx: unknown layout %q (want NCHW or NHWC)", layout)
	}
	if c < 1 {
		return fmt.Errorf("onnx: %s: input %q %s has a dynamic channel dimension; vcr needs a fixed number of channels", path, in.Name, fmtDims(dims))
	}
	if dims[0] > 0 {
		m.fixedN = dims[0]
	}
	m.inShape = dims
	m.info.InputName = in.Name
	m.info.Layout = layout
	m.info.Channels = int(c)
	m.info.Height = int(max(h, 0))
	m.info.Width = int(max(w, 0))
	return nil
}

func (m *Model) setOutput(path string, outputs []ort.InputOutputInfo, name string) error {
	var out *ort.InputOutputInfo
	for i := range outputs {
		if name == "" || outputs[i].Name == name {
			out = &outputs[i]
			break
		}
	}
	if out == nil {
		names := make([]string, len(outputs))
		for i, o := range outputs {
			names[i] = o.Name
		}
		return fmt.Errorf("onnx: %s has no output %q (outputs: %q)", path, name, names)
	}
	dims := []int64(out.Dimensions)
	if out.OrtValueType != ort.ONNXTypeTensor || out.DataType != ort.TensorElementDataTypeFloat || len(dims) < 2 {
		return fmt.Errorf("onnx: %s: output %q is %s; vcr needs float32 scores shaped (N, classes)", path, out.Name, out.String())
	}
	classes := int64(1)
	for _, d := range dims[1:] {
		if d < 1 {
			classes = 0 // known only after a run
			break
		}
		classes *= d
	}
	m.outShape = dims
	m.info.OutputName = out.Name
	m.info.Classes = int(classes)
	return nil
}

// Info describes the model.
func (m *Model) Info() model.Info { return m.info }

// Library returns the path of the ONNX Runtime library the model runs on.
func (m *Model) Library() string { return m.library }

// Providers names the execution provider: "CPU" or "CUDA:<device>".
func (m *Model) Providers() string { return m.providers }

// ErrClosed is returned by Classify after Close.
var ErrClosed = errors.New("onnx: model is closed")

// imageShape is the expected per-image shape for a batch whose first
// tensor has shape first (dynamic dimensions take first's sizes).
func (m *Model) imageShape(first []int64) []int64 {
	want := append([]int64(nil), m.inShape[1:]...)
	if len(first) == 3 {
		for i, d := range want {
			if d < 0 {
				want[i] = first[i]
			}
		}
	}
	return want
}

// Classify runs the model on batch, MaxBatch images at a time, and returns
// one score vector per image. Every tensor must have the model's per-image
// shape ((C,H,W) for NCHW, (H,W,C) for NHWC; dynamic dimensions take the
// first tensor's sizes) and matching data. It checks ctx between runs and
// asks ONNX Runtime to stop a run in progress when ctx is cancelled.
func (m *Model) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	if len(batch) == 0 {
		return [][]float32{}, ctx.Err()
	}
	want := m.imageShape(batch[0].Shape)
	per := int64(1)
	for _, d := range want {
		per *= d
	}
	for i, t := range batch {
		if !equalShape(t.Shape, want) {
			return nil, fmt.Errorf("onnx: batch[%d]: model %s expects %s (%s), got %s", i, m.info.Name, fmtShape(want), m.info.Layout, fmtShape(t.Shape))
		}
		if int64(len(t.Data)) != per {
			return nil, fmt.Errorf("onnx: batch[%d]: shape %s needs %d values, got %d", i, fmtShape(t.Shape), per, len(t.Data))
		}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	res := make([][]float32, 0, len(batch))
	for start := 0; start < len(batch); start += m.chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := batch[start:min(start+m.chunk, len(batch))]
		scores, err := m.run(ctx, part, want, per)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		res = append(res, scores...)
	}
	return res, nil
}

// run runs one chunk of at most m.chunk images.
func (m *Model) run(ctx context.Context, part []model.Tensor, img []int64, per int64) ([][]float32, error) {
	n := int64(len(part))
	if m.fixedN > 0 {
		n = m.fixedN // pad with zeros to the model's batch size
	}
	buf := m.getInput(int(n * per))
	defer m.inputs.Put(buf)
	data := *buf
	for i, t := range part {
		copy(data[int64(i)*per:], t.Data)
	}
	clear(data[int64(len(part))*per:]) // padding of a fixed-size batch
	in, err := ort.NewTensor(append([]int64{n}, img...), data)
	if err != nil {
		return nil, fmt.Errorf("onnx: input tensor: %w", err)
	}
	defer in.Destroy()

	// Preallocate the output when its shape is known, so that ONNX Runtime
	// writes the scores straight into Go memory.
	var out ort.Value
	classes := int64(m.info.Classes)
	var outData []float32
	if classes > 0 {
		shape := append([]int64{n}, m.outShape[1:]...)
		outData = make([]float32, n*classes)
		t, err := ort.NewTensor(shape, outData)
		if err != nil {
			return nil, fmt.Errorf("onnx: output tensor: %w", err)
		}
		out = t
	}
	outputs := []ort.Value{out}

	ro, err := ort.NewRunOptions()
	if err != nil {
		return nil, fmt.Errorf("onnx: run options: %w", err)
	}
	defer ro.Destroy()
	terminated := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		ro.Terminate()
		close(terminated)
	})
	err = m.session.RunWithOptions([]ort.Value{in}, outputs, ro)
	if !stop() && ctx.Err() != nil {
		<-terminated // ro must outlive Terminate
	}
	if outputs[0] != nil {
		defer outputs[0].Destroy()
	}
	if err != nil {
		return nil, fmt.Errorf("onnx: run %s on %d images: %w", m.info.Name, len(part), err)
	}
	if classes == 0 {
		t, ok := outputs[0].(*ort.Tensor[float32])
		if !ok {
			return nil, fmt.Errorf("onnx: output %q is not a float32 tensor", m.info.OutputName)
		}
		outData = t.GetData()
		if int64(len(outData))%n != 0 || len(outData) == 0 {
			return nil, fmt.Errorf("onnx: output %q has %d values for %d images", m.info.OutputName, len(outData), n)
		}
		classes = int64(len(outData)) / n
	}
	res := make([][]float32, len(part))
	for i := range res {
		res[i] = outData[int64(i)*classes : int64(i+1)*classes : int64(i+1)*classes]
	}
	return res, nil
}

// getInput returns a pooled input buffer of length size. Buffers go back to
// the pool after the run that used them (the input tensor refers to the Go
// slice only until it is destroyed).
func (m *Model) getInput(size int) *[]float32 {
	if b, ok := m.inputs.Get().(*[]float32); ok && cap(*b) >= size {
		*b = (*b)[:size]
		return b
	}
	b := make([]float32, size)
	return &b
}

// Close releases the session. Classify calls in progress finish first.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return m.session.Destroy()
}

var _ model.Classifier = (*Model)(nil)
