//go:build !vcrmodel

// This file connects vcr eval to its backends in a build without package
// model's preprocessing, label mappings and predictions reader and without
// model/onnx: only --server with --preset none and identity labels work.
// eval_backends_model.go (build tag vcrmodel) is the full version; once
// those packages are in the tree, it replaces this file.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
)

// openEvalModel opens the model, preprocessing and label mapping of f.
func openEvalModel(ctx context.Context, f *evalFlags, stderr io.Writer) (*evalModel, error) {
	switch {
	case f.predictions != "":
		return nil, errors.New("--predictions: this build of vcr has no predictions-file reader")
	case f.modelPath != "":
		return nil, errors.New("--model: this build of vcr has no ONNX Runtime backend")
	case f.config != "":
		return nil, errors.New("--config: this build of vcr has no model configs")
	case f.preset != "none":
		return nil, fmt.Errorf("--preset %q: this build of vcr has only --preset none", f.preset)
	case f.labels != "" && f.labels != "identity":
		return nil, fmt.Errorf("--labels %q: this build of vcr has only identity labels", f.labels)
	}
	c, err := dialServer(ctx, f)
	if err != nil {
		return nil, err
	}
	info := c.Info()
	if info.Layout != model.NCHW || (info.Channels != 0 && info.Channels != 3) {
		c.Close()
		return nil, fmt.Errorf("model %s takes %s input with %d channels; --preset none gives NCHW with 3", info.Name, info.Layout, info.Channels)
	}
	return &evalModel{
		classifier: c,
		preprocess: planarCHW{h: info.Height, w: info.Width},
		describe:   fmt.Sprintf("model %s on %s (%d outputs), preset none, identity labels", info.Name, strings.TrimRight(f.server, "/"), info.Classes),
	}, nil
}

// planarCHW lays an image out as a 3×H×W tensor of values in [0, 1].
type planarCHW struct{ h, w int }

func (p planarCHW) Apply(m *imageio.Image) (model.Tensor, error) {
	if (p.h > 0 && m.Height != p.h) || (p.w > 0 && m.Width != p.w) {
		return model.Tensor{}, fmt.Errorf("image is %d×%d, the model takes %d×%d", m.Width, m.Height, p.w, p.h)
	}
	n := m.Width * m.Height
	d := make([]float32, 3*n)
	for c := range 3 {
		copy(d[c*n:], m.Ch[c][:n])
	}
	return model.Tensor{Data: d, Shape: []int64{3, int64(m.Height), int64(m.Width)}}, nil
}

var _ evaluate.Preprocessor = planarCHW{}
