package model

import "context"

// Layout is the memory order of an image tensor.
type Layout string

const (
	// NCHW is channels-first (PyTorch, ONNX exports of torchvision models).
	NCHW Layout = "NCHW"
	// NHWC is channels-last (TensorFlow, Keras).
	NHWC Layout = "NHWC"
)

// Tensor is one preprocessed image: Data holds Shape's elements in
// row-major order, Shape being (C, H, W) for NCHW and (H, W, C) for NHWC
// models (without the batch dimension).
type Tensor struct {
	Data  []float32
	Shape []int64
}

// Info describes what a classifier takes and returns.
type Info struct {
	// Name identifies the model (file name, or the served model's name).
	Name string `json:"name"`
	// InputName and OutputName are the tensors' names in the model.
	InputName  string `json:"input_name"`
	OutputName string `json:"output_name"`
	// Layout is the input's memory order.
	Layout Layout `json:"layout"`
	// Channels, Height and Width of one input image; 0 where the model
	// accepts any size (a dynamic dimension).
	Channels int `json:"channels"`
	Height   int `json:"height"`
	Width    int `json:"width"`
	// Classes is the length of the score vector per image.
	Classes int `json:"classes"`
	// MaxBatch is the largest batch the backend accepts in one call; 0
	// means no limit.
	MaxBatch int `json:"max_batch"`
}

// Classifier scores batches of preprocessed images. Implementations must be
// safe for concurrent use by several goroutines.
type Classifier interface {
	// Info describes the model.
	Info() Info
	// Classify returns one score vector (logits or probabilities, Classes
	// long) per tensor of batch, in order. It stops early and returns
	// ctx.Err() when ctx is cancelled.
	Classify(ctx context.Context, batch []Tensor) ([][]float32, error)
	// Close releases the model's resources.
	Close() error
}
