package demo

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
)

// ModelName names the demonstration model in results and reports.
const ModelName = "demo-shapes (demonstration model)"

// Weights are a fitted linear softmax classifier on standardised features.
type Weights struct {
	// About says what the model is and how to regenerate the file.
	About   string   `json:"about"`
	Classes []string `json:"classes"`
	// Mean and Std standardise each feature.
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
	// W[c] are class c's weights over the standardised features, B[c] its bias.
	W [][]float64 `json:"w"`
	B []float64   `json:"b"`
	// Train records how the weights were fitted.
	Train TrainConfig `json:"train"`
}

// Validate checks the shapes and values of w.
func (w *Weights) Validate() error {
	k := len(Classes)
	if len(w.Classes) != k || len(w.Mean) != NumFeatures || len(w.Std) != NumFeatures || len(w.W) != k || len(w.B) != k {
		return fmt.Errorf("demo: weights have the wrong shape (%d classes, %d means, %d stds, %d weight rows, %d biases; want %d, %d, %d, %d, %d)",
			len(w.Classes), len(w.Mean), len(w.Std), len(w.W), len(w.B), k, NumFeatures, NumFeatures, k, k)
	}
	for i, c := range w.Classes {
		if c != Classes[i] {
			return fmt.Errorf("demo: weights class %d is %q, want %q", i, c, Classes[i])
		}
	}
	for c, row := range w.W {
		if len(row) != NumFeatures {
			return fmt.Errorf("demo: weight row %d has %d values, want %d", c, len(row), NumFeatures)
		}
	}
	for _, s := range append([][]float64{w.Mean, w.Std, w.B}, w.W...) {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("demo: weights hold a non-finite value")
			}
		}
	}
	for _, v := range w.Std {
		if v <= 0 {
			return fmt.Errorf("demo: weights hold a non-positive standard deviation")
		}
	}
	return nil
}

// Logits returns the class scores of feature vector f.
func (w *Weights) Logits(f []float64) []float32 {
	out := make([]float32, len(w.W))
	for c, row := range w.W {
		z := w.B[c]
		for j, v := range f {
			z += row[j] * (v - w.Mean[j]) / w.Std[j]
		}
		out[c] = float32(z)
	}
	return out
}

//go:embed weights.json
var weightsJSON []byte

// ParseWeights decodes and validates a weights file.
func ParseWeights(b []byte) (*Weights, error) {
	var w Weights
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("demo: weights: %w", err)
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

// EmbeddedWeights returns the weights built into the binary.
func EmbeddedWeights() (*Weights, error) { return ParseWeights(weightsJSON) }

// Classifier is the demonstration model: a model.Classifier taking NCHW
// tensors of any size (Preprocess makes them) and returning one logit per
// class of Classes. It is safe for concurrent use.
type Classifier struct{ w *Weights }

// Open returns the demonstration model with the embedded weights.
func Open() (*Classifier, error) {
	w, err := EmbeddedWeights()
	if err != nil {
		return nil, err
	}
	return &Classifier{w: w}, nil
}

// New returns the demonstration model with weights w.
func New(w *Weights) *Classifier { return &Classifier{w: w} }

// Info implements model.Classifier.
func (c *Classifier) Info() model.Info {
	return model.Info{Name: ModelName, InputName: "image", OutputName: "logits", Layout: model.NCHW, Channels: 3, Classes: len(Classes)}
}

// Classify implements model.Classifier.
func (c *Classifier) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	out := make([][]float32, len(batch))
	f := make([]float64, NumFeatures)
	grey := make([]float64, featSide*featSide)
	for i, t := range batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(t.Shape) != 3 || t.Shape[0] != 3 || int64(len(t.Data)) != t.Shape[0]*t.Shape[1]*t.Shape[2] {
			return nil, fmt.Errorf("demo: tensor %d has shape %v; want (3, H, W) with H·W·3 values", i, t.Shape)
		}
		Features(f, t.Data, int(t.Shape[2]), int(t.Shape[1]), grey)
		out[i] = c.w.Logits(f)
	}
	return out, nil
}

// Close implements model.Classifier.
func (c *Classifier) Close() error { return nil }

// Preprocess is the demonstration model's preprocessing: the image's planes
// as a (3, H, W) tensor, unchanged (an evaluate.Preprocessor).
type Preprocess struct{}

// Apply implements evaluate.Preprocessor.
func (Preprocess) Apply(m *imageio.Image) (model.Tensor, error) {
	n := m.Width * m.Height
	d := make([]float32, 3*n)
	for c := range 3 {
		copy(d[c*n:(c+1)*n], m.Ch[c][:n])
	}
	return model.Tensor{Data: d, Shape: []int64{3, int64(m.Height), int64(m.Width)}}, nil
}

// Predict returns the class index the model predicts for m.
func (c *Classifier) Predict(m *imageio.Image) int {
	t, _ := Preprocess{}.Apply(m)
	f := make([]float64, NumFeatures)
	Features(f, t.Data, m.Width, m.Height, make([]float64, featSide*featSide))
	best := 0
	z := c.w.Logits(f)
	for i, v := range z {
		if v > z[best] {
			best = i
		}
	}
	return best
}
