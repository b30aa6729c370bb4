//go:build !cgo

package onnx

import (
	"context"
	"errors"

	"github.com/vcr-bench/vcr/model"
)

// ErrNoCgo is returned by Open in binaries built without cgo, which can't
// load ONNX Runtime.
var ErrNoCgo = errors.New("onnx: this vcr was built without cgo (CGO_ENABLED=0) and can't load ONNX Runtime; rebuild with CGO_ENABLED=1 and a C compiler, or serve the model over the Open Inference Protocol")

// ErrClosed is returned by Classify after Close.
var ErrClosed = errors.New("onnx: model is closed")

// Model is an ONNX image classifier; without cgo it can't be opened.
type Model struct{ info model.Info }

// Open always fails with ErrNoCgo in builds without cgo.
func Open(path string, opt Options) (*Model, error) { return nil, ErrNoCgo }

// Loaded returns empty strings: no library can be loaded without cgo.
func Loaded() (path, version string) { return "", "" }

// Info describes the model.
func (m *Model) Info() model.Info { return m.info }

// Library returns "".
func (m *Model) Library() string { return "" }

// Providers returns "".
func (m *Model) Providers() string { return "" }

// Classify fails with ErrNoCgo.
func (m *Model) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	return nil, ErrNoCgo
}

// Close does nothing.
func (m *Model) Close() error { return nil }

var _ model.Classifier = (*Model)(nil)
