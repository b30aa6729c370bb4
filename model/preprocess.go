package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/task"
)

// Preprocess describes how an image becomes a model's input tensor, in this
// order:
//
//  1. Resize > 0: resize so that the shorter side is Resize pixels
//     (imageio.ResizeShorter, Pillow's bilinear filter with antialiasing, as
//     torchvision's Resize on PIL images).
//  2. CropWidth, CropHeight > 0: take the centre window of that size
//     (imageio.CenterCrop; torchvision's CenterCrop, padding with black
//     where the image is smaller). Giving only one of them crops a square.
//  3. Width, Height > 0: if the image is not exactly Width×Height now,
//     resize it to exactly that size (imageio.Resize, aspect ratio not kept).
//  4. Each sample v in [0, 1] becomes (v·Scale − Mean[c]) / Std[c].
//  5. The channels are written in RGB order, or BGR when BGR is set, in the
//     memory order Layout (NCHW: shape (3, H, W); NHWC: shape (H, W, 3)).
//
// Mean and Std are in the units of v·Scale and listed in the model's
// channel order (after the BGR swap), as frameworks print them: torchvision
// models take Scale 1, Mean (0.485, 0.456, 0.406) and Std (0.229, 0.224,
// 0.225); a Caffe model with BGR input in [0, 255] takes Scale 255, BGR true
// and its BGR mean. Zero values mean the neutral setting: Scale 0 is 1, a
// Std entry of 0 is 1, an empty Layout is NCHW.
//
// The zero Preprocess passes images through at their own size, RGB, NCHW,
// values in [0, 1].
type Preprocess struct {
	// Resize is the shorter side after resizing; 0 = no resize.
	Resize int `json:"resize,omitempty"`
	// CropWidth and CropHeight are the centre crop's size; 0 = no crop.
	CropWidth  int `json:"crop_width,omitempty"`
	CropHeight int `json:"crop_height,omitempty"`
	// Width and Height are the final input size; 0 = whatever size steps 1
	// and 2 give. Set both or neither.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Mean and Std normalise each channel: (v·Scale − Mean) / Std.
	Mean [3]float32 `json:"mean"`
	Std  [3]float32 `json:"std"`
	// Scale is the value range of unnormalised inputs: 1 for [0, 1], 255 for
	// [0, 255]; 0 means 1.
	Scale float32 `json:"scale,omitempty"`
	// Layout is the tensor's memory order; "" means NCHW.
	Layout Layout `json:"layout,omitempty"`
	// BGR writes the channels in blue, green, red order.
	BGR bool `json:"bgr,omitempty"`
	// ExactSize, with Width and Height, makes an image of any other size
	// (after steps 1 and 2) an error instead of resizing it: for images
	// already brought to the model's size, such as a test set made with
	// vcr generate --resize 256 --crop 224.
	ExactSize bool `json:"exact_size,omitempty"`
}

// Presets lists the names Preset accepts.
var Presets = []string{"imagenet", "imagenet-cropped", "cifar", "none"}

// Preset returns a named preprocessing:
//
//   - "imagenet": torchvision's ImageNet evaluation transform (the
//     torchvision model documentation and its reference scripts):
//     Resize(256), CenterCrop(224), ToTensor, Normalize(mean (0.485, 0.456,
//     0.406), std (0.229, 0.224, 0.225)); NCHW, RGB, Scale 1.
//   - "imagenet-cropped": the normalisation of "imagenet" alone, for images
//     already resized and centre-cropped to 224×224 (a test set made with
//     vcr generate --resize 256 --crop 224): no resize or crop, and an image
//     of another size is an error (ExactSize).
//   - "cifar": 32×32 CIFAR-10 inputs, no resize or crop (an image of
//     another size is resized to 32×32), normalised with the CIFAR-10
//     training set's per-channel mean (0.4914, 0.4822, 0.4465) and standard
//     deviation (0.2470, 0.2435, 0.2616) of pixel values in [0, 1], the
//     values used by the pytorch-cifar training scripts (kuangliu) and the
//     chenyaofo/pytorch-cifar-models checkpoints; NCHW, RGB, Scale 1.
//     Models that normalise inside the graph (RobustBench) want "none".
//   - "none": no resizing or normalisation: values in [0, 1], RGB, NCHW.
//
// It returns an error naming the known presets for any other name.
func Preset(name string) (Preprocess, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "imagenet":
		return Preprocess{
			Resize: 256, CropWidth: 224, CropHeight: 224,
			Mean:  [3]float32{0.485, 0.456, 0.406},
			Std:   [3]float32{0.229, 0.224, 0.225},
			Scale: 1, Layout: NCHW,
		}, nil
	case "imagenet-cropped":
		return Preprocess{
			Width: 224, Height: 224, ExactSize: true,
			Mean:  [3]float32{0.485, 0.456, 0.406},
			Std:   [3]float32{0.229, 0.224, 0.225},
			Scale: 1, Layout: NCHW,
		}, nil
	case "cifar":
		return Preprocess{
			Width: 32, Height: 32,
			Mean:  [3]float32{0.4914, 0.4822, 0.4465},
			Std:   [3]float32{0.2470, 0.2435, 0.2616},
			Scale: 1, Layout: NCHW,
		}, nil
	case "none":
		return Preprocess{Scale: 1, Layout: NCHW}, nil
	}
	return Preprocess{}, fmt.Errorf("model: unknown preprocessing preset %q; use one of %s", name, strings.Join(Presets, ", "))
}

// check reports the first invalid field, naming it by its JSON name.
func (p Preprocess) check() error {
	switch {
	case p.Resize < 0:
		return fieldError("resize", "must not be negative (got %d)", p.Resize)
	case p.CropWidth < 0:
		return fieldError("crop_width", "must not be negative (got %d)", p.CropWidth)
	case p.CropHeight < 0:
		return fieldError("crop_height", "must not be negative (got %d)", p.CropHeight)
	case p.Width < 0:
		return fieldError("width", "must not be negative (got %d)", p.Width)
	case p.Height < 0:
		return fieldError("height", "must not be negative (got %d)", p.Height)
	case max(p.Resize, p.CropWidth, p.CropHeight, p.Width, p.Height) > maxSide:
		return fieldError(sideField(p), "must be at most %d pixels", maxSide)
	case p.ExactSize && p.Width == 0:
		return fieldError("exact_size", "needs width and height")
	case (p.Width == 0) != (p.Height == 0):
		return fieldError("width", "and height must be set together (got width %d, height %d)", p.Width, p.Height)
	case p.Scale < 0 || p.Scale != p.Scale:
		return fieldError("scale", "must be positive, e.g. 1 for inputs in [0, 1] or 255 for [0, 255] (got %g)", p.Scale)
	case p.Layout != "" && p.Layout != NCHW && p.Layout != NHWC:
		return fieldError("layout", "must be %s or %s (got %q)", NCHW, NHWC, p.Layout)
	}
	for c, s := range p.Std {
		if s < 0 || s != s {
			return fieldError("std", "entries must be positive (0 means 1); entry %d is %g", c, s)
		}
		if m := p.Mean[c]; m != m {
			return fieldError("mean", "entry %d is NaN", c)
		}
	}
	return nil
}

// maxSide bounds every size setting, so that a typo cannot ask for a
// tensor of gigabytes.
const maxSide = 16384

// sideField names the first size field above maxSide.
func sideField(p Preprocess) string {
	for _, f := range []struct {
		name string
		v    int
	}{{"resize", p.Resize}, {"crop_width", p.CropWidth}, {"crop_height", p.CropHeight}, {"width", p.Width}, {"height", p.Height}} {
		if f.v > maxSide {
			return f.name
		}
	}
	return ""
}

// FieldError is an invalid setting in a preprocessing or model config.
type FieldError struct {
	Field string // JSON name, e.g. "std"
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q %s", e.Field, e.Msg) }

func fieldError(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Size returns the input size every image gets, or 0, 0 when it depends on
// the image (no Width/Height and no crop).
func (p Preprocess) Size() (w, h int) {
	if p.Width > 0 && p.Height > 0 {
		return p.Width, p.Height
	}
	if cw, ch := p.crop(); cw > 0 {
		return cw, ch
	}
	return 0, 0
}

// layout returns Layout with "" meaning NCHW.
func (p Preprocess) layout() Layout {
	if p.Layout == "" {
		return NCHW
	}
	return p.Layout
}

// crop returns the crop size; a single given side makes a square.
func (p Preprocess) crop() (w, h int) {
	w, h = p.CropWidth, p.CropHeight
	if w == 0 {
		w = h
	}
	if h == 0 {
		h = w
	}
	return w, h
}

// Shape returns the tensor shape for a w×h input: (3, h, w) for NCHW,
// (h, w, 3) for NHWC.
func (p Preprocess) Shape(w, h int) []int64 {
	if p.layout() == NHWC {
		return []int64{int64(h), int64(w), 3}
	}
	return []int64{3, int64(h), int64(w)}
}

// Validate reports whether the preprocessing's output fits the model's
// input: three channels, the same layout, and the same height and width
// where both are fixed. The error names both shapes. An output whose size
// depends on the image (no crop or Width/Height) fits any size here; a
// model with a fixed size then rejects images of another size when it
// classifies them.
func (p Preprocess) Validate(info Info) error {
	if err := p.check(); err != nil {
		return fmt.Errorf("model: preprocessing: %w", err)
	}
	w, h := p.Size()
	got := describeShape(p.layout(), 3, h, w)
	want := describeShape(info.Layout, info.Channels, info.Height, info.Width)
	name := info.Name
	if name == "" {
		name = "the model"
	}
	bad := func(why string) error {
		return fmt.Errorf("model: preprocessing gives %s but %s takes %s (%s); choose a preset or config whose layout and input size match the model", got, name, want, why)
	}
	if info.Channels != 0 && info.Channels != 3 {
		return bad(fmt.Sprintf("%d channels, not 3", info.Channels))
	}
	if info.Layout != "" && info.Layout != p.layout() {
		return bad("layout differs")
	}
	if w > 0 && ((info.Width > 0 && info.Width != w) || (info.Height > 0 && info.Height != h)) {
		return bad("size differs")
	}
	return nil
}

// describeShape writes a batch-1 shape such as "1×3×224×224 (NCHW)", with
// "?" for dynamic dimensions.
func describeShape(l Layout, c, h, w int) string {
	d := func(n int) string {
		if n <= 0 {
			return "?"
		}
		return fmt.Sprint(n)
	}
	if l == "" {
		return fmt.Sprintf("1×%s×%s×%s (layout unknown)", d(c), d(h), d(w))
	}
	if l == NHWC {
		return fmt.Sprintf("1×%s×%s×%s (NHWC)", d(h), d(w), d(c))
	}
	return fmt.Sprintf("1×%s×%s×%s (NCHW)", d(c), d(h), d(w))
}

// Apply returns m preprocessed into a new tensor. It does not modify m. It
// returns an error for an invalid Preprocess or an empty image.
func (p Preprocess) Apply(m *imageio.Image) (Tensor, error) {
	return p.ApplyInto(nil, m)
}

// ApplyInto is Apply writing the tensor's data into dst when dst has the
// capacity (3·W·H), so that a caller can reuse one buffer per worker;
// otherwise it allocates. The returned Tensor's Data aliases dst then.
// A resize followed by a crop inside the image (the ImageNet convention)
// is computed only over the cropped window, without intermediate images.
func (p Preprocess) ApplyInto(dst []float32, m *imageio.Image) (Tensor, error) {
	if err := p.check(); err != nil {
		return Tensor{}, fmt.Errorf("model: preprocessing: %w", err)
	}
	if m == nil || m.Width <= 0 || m.Height <= 0 {
		return Tensor{}, fmt.Errorf("model: preprocessing: empty image")
	}
	// Plan: the output is the w×h window at (x0, y0) of m resized to rw×rh
	// (no resize when rw×rh is m's size). Steps that cannot be expressed
	// that way (a crop that pads, a crop followed by a resize) are done
	// with imageio first.
	rw, rh := m.Width, m.Height
	if p.Resize > 0 {
		rw, rh = imageio.ShorterSideSize(m.Width, m.Height, p.Resize)
	}
	x0, y0, w, h := 0, 0, rw, rh
	if cw, ch := p.crop(); cw > 0 {
		if cw <= rw && ch <= rh {
			x0, y0, w, h = cropOffset(rw, cw), cropOffset(rh, ch), cw, ch
		} else {
			if p.Resize > 0 {
				m = imageio.ResizeShorter(m, p.Resize)
			}
			m = imageio.CenterCrop(m, cw, ch)
			rw, rh, x0, y0, w, h = cw, ch, 0, 0, cw, ch
		}
	}
	if p.Width > 0 && (w != p.Width || h != p.Height) {
		if p.ExactSize {
			return Tensor{}, fmt.Errorf("model: preprocessing: the image is %d×%d but must be exactly %d×%d (exact_size); use a preset that resizes, such as imagenet, for images of other sizes", w, h, p.Width, p.Height)
		}
		if rw != m.Width || rh != m.Height {
			m = imageio.ResizeShorter(m, p.Resize)
		}
		if w != m.Width || h != m.Height {
			m = imageio.CenterCrop(m, w, h)
		}
		rw, rh, x0, y0, w, h = p.Width, p.Height, 0, 0, p.Width, p.Height
	}
	n := 3 * w * h
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	var a, b [3]float32 // model channel k = src channel order[k]·a[k] + b[k]
	order := [3]int{0, 1, 2}
	if p.BGR {
		order = [3]int{2, 1, 0}
	}
	scale := p.Scale
	if scale == 0 {
		scale = 1
	}
	for k := range 3 {
		s := p.Std[k]
		if s == 0 {
			s = 1
		}
		a[k] = scale / s
		b[k] = -p.Mean[k] / s
	}
	switch {
	case rw != m.Width || rh != m.Height:
		if !resample8Into(dst, m, rw, rh, x0, y0, w, h, p.layout(), order, a, b) {
			resampleInto(dst, m, rw, rh, x0, y0, w, h, p.layout(), order, a, b)
		}
	case p.layout() == NHWC:
		writeNHWC(dst, m, x0, y0, w, h, order, a, b)
	default:
		writeNCHW(dst, m, x0, y0, w, h, order, a, b)
	}
	return Tensor{Data: dst, Shape: p.Shape(w, h)}, nil
}

// writeNCHW writes the w×h window at (x0, y0) of m into dst, planar.
func writeNCHW(dst []float32, m *imageio.Image, x0, y0, w, h int, order [3]int, a, b [3]float32) {
	for k := range 3 {
		src := m.Ch[order[k]]
		ak, bk := a[k], b[k]
		plane := dst[k*w*h:][:w*h]
		for y := range h {
			s := src[(y0+y)*m.Width+x0:][:w]
			d := plane[y*w:][:len(s)]
			for x, v := range s {
				d[x] = v*ak + bk
			}
		}
	}
}

// writeNHWC writes the w×h window at (x0, y0) of m into dst, interleaved.
func writeNHWC(dst []float32, m *imageio.Image, x0, y0, w, h int, order [3]int, a, b [3]float32) {
	c0, c1, c2 := m.Ch[order[0]], m.Ch[order[1]], m.Ch[order[2]]
	for y := range h {
		off := (y0+y)*m.Width + x0
		s0 := c0[off:][:w]
		s1 := c1[off:][:len(s0)]
		s2 := c2[off:][:len(s0)]
		d := dst[3*y*w:][:3*len(s0)]
		for x, v := range s0 {
			e := d[3*x:][:3]
			e[0] = v*a[0] + b[0]
			e[1] = s1[x]*a[1] + b[1]
			e[2] = s2[x]*a[2] + b[2]
		}
	}
}

// cropOffset is the first sample of a centre crop of k out of n ≥ k
// samples, as imageio.CenterCrop (torchvision) places it:
// round((n − k)/2) with Python's round-half-to-even.
func cropOffset(n, k int) int {
	d := n - k
	if d%2 == 0 {
		return d / 2
	}
	if lo := (d - 1) / 2; lo%2 == 0 {
		return lo
	}
	return (d + 1) / 2
}

// Config is a model config file: the preprocessing, and how the model's
// outputs map to the task's classes. In JSON the preprocessing fields sit at
// the top level beside the others:
//
//	{"preset": "imagenet", "task": "imagenet16"}
//	{"width": 32, "height": 32, "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5],
//	 "layout": "NHWC", "task": "my-mapping.csv", "probabilities": true}
type Config struct {
	// Preset names the preprocessing the fields below start from (see
	// Preset); the preprocessing fields given in the file override it.
	Preset string `json:"preset,omitempty"`
	Preprocess
	// Task is the task the model's outputs are mapped to: a task name
	// (task.Names: "identity", "imagenet16", "car", …) or a mapping file
	// (.csv or .json; a relative path is relative to the config file). ""
	// means identity.
	Task string `json:"task,omitempty"`
	// ClassNames is an optional class list file naming the model's outputs
	// in order, one per line (dataset.ParseSynsets format, e.g.
	// LOC_synset_mapping.txt); relative to the config file.
	ClassNames string `json:"class_names,omitempty"`
	// Probabilities says the model outputs probabilities (it ends in a
	// softmax); otherwise its outputs are logits and mappings apply a
	// softmax first.
	Probabilities bool `json:"probabilities,omitempty"`
}

// LoadConfig reads a model config (JSON, see Config). Unknown fields are
// errors; every error names the file, and the field or line at fault.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: config: %w", err)
	}
	c, err := parseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("model: config %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if c.Task != "" && !task.IsName(c.Task) && !filepath.IsAbs(strings.TrimPrefix(c.Task, task.MappingPrefix)) {
		c.Task = task.MappingPrefix + filepath.Join(dir, strings.TrimPrefix(c.Task, task.MappingPrefix))
	}
	if c.ClassNames != "" && !filepath.IsAbs(c.ClassNames) {
		c.ClassNames = filepath.Join(dir, c.ClassNames)
	}
	return c, nil
}

// parseConfig decodes a config: first the preset, then the file again over
// the preset's values.
func parseConfig(data []byte) (*Config, error) {
	var head struct {
		Preset string `json:"preset"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(data, err)
	}
	c := &Config{}
	if head.Preset != "" {
		p, err := Preset(head.Preset)
		if err != nil {
			return nil, fieldError("preset", "%v", strings.TrimPrefix(err.Error(), "model: "))
		}
		c.Preprocess = p
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, jsonError(data, err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if err := c.Preprocess.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// jsonError rewrites a decoding error to name the line or the field.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("line %d: %v", 1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")), syn)
	case errors.As(err, &typ):
		return fieldError(strings.TrimPrefix(typ.Field, "Preprocess."), "must be a JSON %s (got %s)", typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fieldError(f, "is not a config field; known fields: preset, resize, crop_width, crop_height, width, height, mean, std, scale, layout, bgr, exact_size, task, class_names, probabilities")
	}
	return err
}

// Mapping returns the task c describes (task.New of Task, with the class
// names of ClassNames) for a model with the given number of outputs (0 =
// unknown) on a dataset of the given kind ("" = unknown).
func (c *Config) Mapping(outputs int, datasetKind string) (task.Mapping, error) {
	var names []string
	if c.ClassNames != "" {
		s, err := dataset.ReadSynsets(c.ClassNames)
		if err != nil {
			return nil, fmt.Errorf("model: class_names: %w", err)
		}
		names = s.Names()
	}
	return task.New(task.Spec{Name: c.Task, Outputs: outputs, OutputNames: names, Probabilities: c.Probabilities, DatasetKind: datasetKind})
}
