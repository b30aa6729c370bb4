// Package onnxgen writes small image-classifier models in the ONNX format,
// encoding the protobuf by hand, so that the ONNX Runtime backend can be
// tested on models the project makes itself (nothing is downloaded).
//
// Two architectures are available, both with pseudo-random weights drawn
// from Spec.Seed:
//
//   - Linear: input → GlobalAveragePool → Flatten → Gemm(W, b) → K scores.
//   - Conv: input → Conv(C→F, 3×3, pads 1) → Relu → GlobalAveragePool →
//     Flatten → Gemm(W, b) → K scores.
//
// Either may end in a Softmax, take NHWC input (a leading Transpose) and
// have dynamic batch ('N') and spatial ('H', 'W') dimensions. Net.Forward
// computes the same function in plain Go, straight from the operators'
// definitions in the ONNX operator specification, as a reference.
package onnxgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/vcr-bench/vcr/model"
)

// Arch is a model architecture.
type Arch string

// The architectures.
const (
	Linear Arch = "linear"
	Conv   Arch = "conv"
	// Dense takes a (N, Channels) vector, not an image: Gemm → K scores.
	// It exists to test that image backends reject non-image models.
	Dense Arch = "dense"
)

// Spec describes a model to generate.
type Spec struct {
	Arch    Arch
	Classes int // length of the score vector, ≥ 1
	// Channels of the input image; 0 means 3.
	Channels int
	// Height and Width of the input; 0 makes the dimension dynamic.
	Height, Width int
	// Batch is the batch dimension; 0 makes it dynamic ('N').
	Batch int
	// Layout of the input; "" means NCHW. NHWC models transpose the input
	// to NCHW first.
	Layout model.Layout
	// Filters of the Conv architecture's convolution; 0 means 4.
	Filters int
	// Softmax appends a Softmax, so that the model outputs probabilities.
	Softmax bool
	// Seed determines the weights.
	Seed uint64
}

// Net is a generated model: its spec and weights.
type Net struct {
	Spec Spec
	// ConvW has shape (Filters, Channels, 3, 3) and ConvB (Filters); nil
	// for the Linear architecture.
	ConvW, ConvB []float32
	// GemmW has shape (Classes, features) (Gemm with transB = 1) and GemmB
	// (Classes); features is Channels for Linear and Filters for Conv.
	GemmW, GemmB []float32
}

// InputName and the output names of generated models.
const (
	InputName  = "input"
	LogitsName = "logits"
	ProbsName  = "probs"
)

// New returns the model spec describes, with weights drawn from spec.Seed.
func New(spec Spec) (*Net, error) {
	if spec.Channels == 0 {
		spec.Channels = 3
	}
	if spec.Layout == "" {
		spec.Layout = model.NCHW
	}
	if spec.Filters == 0 {
		spec.Filters = 4
	}
	switch {
	case spec.Arch != Linear && spec.Arch != Conv && spec.Arch != Dense:
		return nil, fmt.Errorf("onnxgen: unknown architecture %q (want %q, %q or %q)", spec.Arch, Linear, Conv, Dense)
	case spec.Classes < 1:
		return nil, fmt.Errorf("onnxgen: Classes must be at least 1 (got %d)", spec.Classes)
	case spec.Channels < 1 || spec.Height < 0 || spec.Width < 0 || spec.Batch < 0 || spec.Filters < 1:
		return nil, fmt.Errorf("onnxgen: invalid sizes in %+v", spec)
	case spec.Layout != model.NCHW && spec.Layout != model.NHWC:
		return nil, fmt.Errorf("onnxgen: unknown layout %q", spec.Layout)
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x9e3779b97f4a7c15))
	uniform := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(scale * (2*rng.Float64() - 1))
		}
		return v
	}
	n := &Net{Spec: spec}
	features := spec.Channels
	if spec.Arch == Conv {
		features = spec.Filters
		n.ConvW = uniform(spec.Filters*spec.Channels*9, 0.5)
		n.ConvB = uniform(spec.Filters, 0.1)
	}
	n.GemmW = uniform(spec.Classes*features, 1)
	n.GemmB = uniform(spec.Classes, 0.1)
	return n, nil
}

// OutputName is the name of the model's output tensor.
func (n *Net) OutputName() string {
	if n.Spec.Softmax {
		return ProbsName
	}
	return LogitsName
}

// InputShape is the model's input shape with the batch dimension; -1 marks
// a dynamic dimension.
func (n *Net) InputShape() []int64 {
	s := n.Spec
	d := func(v int) int64 {
		if v == 0 {
			return -1
		}
		return int64(v)
	}
	if s.Arch == Dense {
		return []int64{d(s.Batch), int64(s.Channels)}
	}
	if s.Layout == model.NHWC {
		return []int64{d(s.Batch), d(s.Height), d(s.Width), int64(s.Channels)}
	}
	return []int64{d(s.Batch), int64(s.Channels), d(s.Height), d(s.Width)}
}

// Marshal encodes the model as an ONNX ModelProto (IR version 8, opset 13).
func (n *Net) Marshal() []byte {
	s := n.Spec
	names := [4]string{"N", "C", "H", "W"}
	if s.Layout == model.NHWC {
		names = [4]string{"N", "H", "W", "C"}
	}
	shape := make([]dim, len(n.InputShape()))
	for i, v := range n.InputShape() {
		shape[i] = dim{value: v}
		if v < 0 {
			shape[i] = dim{param: names[i]}
		}
	}
	batch := dim{value: int64(s.Batch)}
	if s.Batch == 0 {
		batch = dim{param: "N"}
	}
	g := graph{
		name:    fmt.Sprintf("vcr_tiny_%s_%d", s.Arch, s.Classes),
		doc:     fmt.Sprintf("vcr onnxgen test model: %+v", s),
		inputs:  []valueInfo{{name: InputName, shape: shape}},
		outputs: []valueInfo{{name: n.OutputName(), shape: []dim{batch, {value: int64(s.Classes)}}}},
	}
	x := InputName
	if s.Layout == model.NHWC && s.Arch != Dense {
		g.nodes = append(g.nodes, node{op: "Transpose", name: "to_nchw", in: []string{x}, out: []string{"x_nchw"},
			attributes: []attr{intsAttr("perm", 0, 3, 1, 2)}})
		x = "x_nchw"
	}
	features := s.Channels
	if s.Arch == Conv {
		features = s.Filters
		g.initializers = append(g.initializers,
			initializer{name: "conv_w", dims: []int64{int64(s.Filters), int64(s.Channels), 3, 3}, data: n.ConvW},
			initializer{name: "conv_b", dims: []int64{int64(s.Filters)}, data: n.ConvB})
		g.nodes = append(g.nodes,
			node{op: "Conv", name: "conv", in: []string{x, "conv_w", "conv_b"}, out: []string{"conv"},
				attributes: []attr{intsAttr("kernel_shape", 3, 3), intsAttr("pads", 1, 1, 1, 1), intsAttr("strides", 1, 1)}},
			node{op: "Relu", name: "relu", in: []string{"conv"}, out: []string{"relu"}})
		x = "relu"
	}
	g.initializers = append(g.initializers,
		initializer{name: "fc_w", dims: []int64{int64(s.Classes), int64(features)}, data: n.GemmW},
		initializer{name: "fc_b", dims: []int64{int64(s.Classes)}, data: n.GemmB})
	logits := LogitsName
	if s.Softmax {
		logits = "fc"
	}
	if s.Arch != Dense {
		g.nodes = append(g.nodes,
			node{op: "GlobalAveragePool", name: "pool", in: []string{x}, out: []string{"pool"}},
			node{op: "Flatten", name: "flatten", in: []string{"pool"}, out: []string{"flat"}, attributes: []attr{intAttr("axis", 1)}})
		x = "flat"
	}
	g.nodes = append(g.nodes,
		node{op: "Gemm", name: "fc", in: []string{x, "fc_w", "fc_b"}, out: []string{logits},
			attributes: []attr{floatAttr("alpha", 1), floatAttr("beta", 1), intAttr("transB", 1)}})
	if s.Softmax {
		g.nodes = append(g.nodes, node{op: "Softmax", name: "softmax", in: []string{logits}, out: []string{ProbsName},
			attributes: []attr{intAttr("axis", 1)}})
	}
	return g.marshal()
}

// WriteFile writes the encoded model to path.
func (n *Net) WriteFile(path string) error {
	return os.WriteFile(path, n.Marshal(), 0o644)
}

// Forward computes the model's output for one image x of height h and
// width w, laid out (C, H, W) for NCHW models and (H, W, C) for NHWC ones,
// in float64 from the operators' definitions (ONNX Conv is a
// cross-correlation with zero padding; GlobalAveragePool the mean over
// H×W; Gemm with transB = 1 computes x·Wᵀ + b). It panics if len(x) is
// not Channels×h×w.
func (n *Net) Forward(x []float32, h, w int) []float32 {
	s := n.Spec
	c := s.Channels
	if len(x) != c*h*w {
		panic(fmt.Sprintf("onnxgen: Forward: got %d values, want %d×%d×%d", len(x), c, h, w))
	}
	at := func(ch, y, xx int) float64 {
		if s.Layout == model.NHWC {
			return float64(x[(y*w+xx)*c+ch])
		}
		return float64(x[(ch*h+y)*w+xx])
	}
	var features []float64
	switch s.Arch {
	case Dense:
		features = make([]float64, len(x))
		for i, v := range x {
			features[i] = float64(v)
		}
	case Linear:
		features = make([]float64, c)
		for ch := range c {
			sum := 0.0
			for y := range h {
				for xx := range w {
					sum += at(ch, y, xx)
				}
			}
			features[ch] = sum / float64(h*w)
		}
	default:
		features = make([]float64, s.Filters)
		for f := range s.Filters {
			sum := 0.0
			for y := range h {
				for xx := range w {
					v := float64(n.ConvB[f])
					for ch := range c {
						for ky := range 3 {
							for kx := range 3 {
								iy, ix := y+ky-1, xx+kx-1
								if iy < 0 || iy >= h || ix < 0 || ix >= w {
									continue // zero padding
								}
								v += float64(n.ConvW[((f*c+ch)*3+ky)*3+kx]) * at(ch, iy, ix)
							}
						}
					}
					sum += math.Max(v, 0) // Relu
				}
			}
			features[f] = sum / float64(h*w)
		}
	}
	out := make([]float64, s.Classes)
	for k := range out {
		v := float64(n.GemmB[k])
		for j, f := range features {
			v += float64(n.GemmW[k*len(features)+j]) * f
		}
		out[k] = v
	}
	if s.Softmax {
		m := math.Inf(-1)
		for _, v := range out {
			m = math.Max(m, v)
		}
		sum := 0.0
		for k, v := range out {
			out[k] = math.Exp(v - m)
			sum += out[k]
		}
		for k := range out {
			out[k] /= sum
		}
	}
	res := make([]float32, len(out))
	for k, v := range out {
		res[k] = float32(v)
	}
	return res
}
