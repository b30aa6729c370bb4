package model

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// slowTensor is the preprocessing written straight from Preprocess's
// documentation, using imageio's whole-image steps and indexing every
// element by its formula.
func slowTensor(p Preprocess, m *imageio.Image) ([]float32, []int64) {
	if p.Resize > 0 {
		m = imageio.ResizeShorter(m, p.Resize)
	}
	if cw, ch := p.crop(); cw > 0 {
		m = imageio.CenterCrop(m, cw, ch)
	}
	if p.Width > 0 && (m.Width != p.Width || m.Height != p.Height) {
		m = imageio.Resize(m, p.Width, p.Height)
	}
	w, h := m.Width, m.Height
	out := make([]float32, 3*w*h)
	scale := float64(p.Scale)
	if scale == 0 {
		scale = 1
	}
	for k := range 3 {
		src := k
		if p.BGR {
			src = 2 - k
		}
		std := float64(p.Std[k])
		if std == 0 {
			std = 1
		}
		for y := range h {
			for x := range w {
				v := (float64(m.Ch[src][y*w+x])*scale - float64(p.Mean[k])) / std
				if p.layout() == NHWC {
					out[(y*w+x)*3+k] = float32(v)
				} else {
					out[k*w*h+y*w+x] = float32(v)
				}
			}
		}
	}
	if p.layout() == NHWC {
		return out, []int64{int64(h), int64(w), 3}
	}
	return out, []int64{3, int64(h), int64(w)}
}

func mustPreset(t testing.TB, name string) Preprocess {
	p, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestApplyMatchesSlow(t *testing.T) {
	imagenet := mustPreset(t, "imagenet")
	cifar := mustPreset(t, "cifar")
	caffe := Preprocess{Resize: 256, CropWidth: 224, Mean: [3]float32{103.94, 116.78, 123.68}, Scale: 255, BGR: true, Layout: NHWC}
	for _, tc := range []struct {
		name string
		p    Preprocess
		w, h int
	}{
		{"imagenet 500x375", imagenet, 500, 375},
		{"imagenet 375x500", imagenet, 375, 500},
		{"imagenet 224x224", imagenet, 224, 224},
		{"imagenet 150x100 (crop pads)", imagenet, 150, 100},
		{"cifar 32x32", cifar, 32, 32},
		{"cifar 224x224 (resized)", cifar, 224, 224},
		{"none 41x27", mustPreset(t, "none"), 41, 27},
		{"zero value", Preprocess{}, 19, 23},
		{"caffe BGR NHWC 255", caffe, 300, 211},
		{"crop then resize", Preprocess{CropWidth: 100, CropHeight: 80, Width: 64, Height: 48, Std: [3]float32{0.5, 0.25, 2}}, 131, 97},
		{"horizontal pass only", Preprocess{Width: 50, Height: 27}, 41, 27},
		{"vertical pass only", Preprocess{Width: 41, Height: 60, Layout: NHWC, BGR: true}, 41, 27},
		{"resize without crop", Preprocess{Resize: 64}, 130, 97},
		{"resize then crop then resize", Preprocess{Resize: 100, CropWidth: 80, Width: 64, Height: 64}, 150, 120},
		{"rectangular crop odd offsets", Preprocess{CropWidth: 30, CropHeight: 20, Layout: NHWC}, 45, 37},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := testimg.Natural(tc.w, tc.h, 7)
			orig := m.Clone()
			got, err := tc.p.Apply(m)
			if err != nil {
				t.Fatal(err)
			}
			want, shape := slowTensor(tc.p, m)
			if !equalShape(got.Shape, shape) {
				t.Fatalf("shape %v, want %v", got.Shape, shape)
			}
			if len(got.Data) != len(want) {
				t.Fatalf("len %d, want %d", len(got.Data), len(want))
			}
			// float32 a·v+b against float64 (v·s − mean)/std: a few ulps of values up to ~255.
			tol := 1e-5 * float64(max(1, tc.p.Scale))
			for i := range want {
				if d := math.Abs(float64(got.Data[i] - want[i])); d > tol {
					t.Fatalf("element %d = %v, want %v", i, got.Data[i], want[i])
				}
			}
			if imageio.MaxAbsDiff(m, orig) != 0 {
				t.Error("Apply modified its input")
			}
		})
	}
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestResampleExact checks that the fused resize-and-crop gives exactly
// imageio.Preprocess's samples (same weights, same summation order).
func TestResampleExact(t *testing.T) {
	for _, sz := range [][2]int{{500, 375}, {224, 224}, {375, 500}, {301, 257}, {1024, 683}} {
		m := testimg.Natural(sz[0], sz[1], 3)
		got, err := (Preprocess{Resize: 256, CropWidth: 224}).Apply(m)
		if err != nil {
			t.Fatal(err)
		}
		want := imageio.Preprocess(m, 256, 224)
		for c := range 3 {
			for i, v := range want.Ch[c] {
				if g := got.Data[c*224*224+i]; g != v {
					t.Fatalf("%dx%d: channel %d sample %d = %v, imageio gives %v", sz[0], sz[1], c, i, g, v)
				}
			}
		}
	}
}

// TestCropOffset checks the in-place crop window against imageio.CenterCrop
// for every parity of the margins.
func TestCropOffset(t *testing.T) {
	for n := 1; n < 12; n++ {
		for k := 1; k <= n; k++ {
			m := imageio.New(n, 1)
			for i := range n {
				m.Ch[0][i] = float32(i)
			}
			c := imageio.CenterCrop(m, k, 1)
			if got, want := cropOffset(n, k), int(c.Ch[0][0]); got != want {
				t.Errorf("cropOffset(%d, %d) = %d, imageio.CenterCrop starts at %d", n, k, got, want)
			}
		}
	}
}

func TestApplyIntoReusesBuffer(t *testing.T) {
	p := mustPreset(t, "imagenet")
	m := testimg.Natural(500, 375, 1)
	buf := make([]float32, 3*224*224)
	got, err := p.ApplyInto(buf, m)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Data[0] != &buf[0] {
		t.Error("ApplyInto did not write into dst")
	}
	small := make([]float32, 10)
	got, err = p.ApplyInto(small, m)
	if err != nil || len(got.Data) != 3*224*224 {
		t.Fatalf("ApplyInto with a short buffer: len %d, err %v", len(got.Data), err)
	}
	// Without resizing, nothing but the tensor's shape is allocated.
	q := Preprocess{CropWidth: 224, Mean: p.Mean, Std: p.Std}
	src := testimg.Natural(256, 256, 2)
	if a := testing.AllocsPerRun(10, func() { q.ApplyInto(buf, src) }); a > 1 {
		t.Errorf("ApplyInto without resize: %v allocations, want ≤ 1 (the shape)", a)
	}
}

func TestApplyErrors(t *testing.T) {
	m := testimg.Natural(8, 8, 1)
	for _, tc := range []struct {
		p     Preprocess
		field string
	}{
		{Preprocess{Resize: -1}, "resize"},
		{Preprocess{Width: 10}, "width"},
		{Preprocess{Std: [3]float32{1, -1, 1}}, "std"},
		{Preprocess{Layout: "CHW"}, "layout"},
		{Preprocess{Scale: -255}, "scale"},
		{Preprocess{CropHeight: 20000}, "crop_height"},
	} {
		_, err := tc.p.Apply(m)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: error %v, want one about field %q", tc.p, err, tc.field)
		}
	}
	if _, err := (Preprocess{}).Apply(imageio.New(0, 0)); err == nil {
		t.Error("empty image: no error")
	}
}

func TestValidate(t *testing.T) {
	imagenet := mustPreset(t, "imagenet")
	for _, tc := range []struct {
		name string
		p    Preprocess
		info Info
		want []string // substrings of the error; nil = no error
	}{
		{"fits", imagenet, Info{Layout: NCHW, Channels: 3, Height: 224, Width: 224}, nil},
		{"dynamic model", imagenet, Info{Layout: NCHW, Channels: 3}, nil},
		{"unknown layout", imagenet, Info{Height: 224, Width: 224}, nil},
		{"variable size fits any", mustPreset(t, "none"), Info{Layout: NCHW, Channels: 3, Height: 32, Width: 32}, nil},
		{"size", imagenet, Info{Name: "resnet20.onnx", Layout: NCHW, Channels: 3, Height: 32, Width: 32},
			[]string{"1×3×224×224 (NCHW)", "resnet20.onnx takes 1×3×32×32 (NCHW)", "size differs"}},
		{"layout", imagenet, Info{Layout: NHWC, Channels: 3, Height: 224, Width: 224},
			[]string{"1×3×224×224 (NCHW)", "1×224×224×3 (NHWC)", "layout differs"}},
		{"channels", imagenet, Info{Layout: NCHW, Channels: 1, Height: 224, Width: 224},
			[]string{"1×1×224×224", "1 channels"}},
		{"dynamic dims named", mustPreset(t, "cifar"), Info{Layout: NCHW, Channels: 3, Height: 224},
			[]string{"1×3×32×32 (NCHW)", "1×3×224×? (NCHW)"}},
	} {
		err := tc.p.Validate(tc.info)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, s := range tc.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, s)
			}
		}
	}
}

func TestPreset(t *testing.T) {
	p := mustPreset(t, "imagenet")
	// torchvision: Resize(256), CenterCrop(224), Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]).
	if p.Resize != 256 || p.CropWidth != 224 || p.CropHeight != 224 || p.Mean != [3]float32{0.485, 0.456, 0.406} ||
		p.Std != [3]float32{0.229, 0.224, 0.225} || p.Layout != NCHW || p.Scale != 1 || p.BGR {
		t.Errorf("imagenet preset %+v", p)
	}
	if w, h := p.Size(); w != 224 || h != 224 {
		t.Errorf("imagenet Size %d×%d", w, h)
	}
	c := mustPreset(t, "CIFAR")
	if w, h := c.Size(); w != 32 || h != 32 || c.Mean != [3]float32{0.4914, 0.4822, 0.4465} || c.Std != [3]float32{0.2470, 0.2435, 0.2616} {
		t.Errorf("cifar preset %+v", c)
	}
	if w, h := mustPreset(t, "none").Size(); w != 0 || h != 0 {
		t.Errorf("none Size %d×%d, want 0×0", w, h)
	}
	if _, err := Preset("vgg"); err == nil || !strings.Contains(err.Error(), "imagenet, imagenet-cropped, cifar, none") {
		t.Errorf("unknown preset: %v", err)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "m.json", `{"preset": "imagenet", "layout": "NHWC", "task": "map.csv", "probabilities": true,
		"class_names": "/abs/synsets.txt"}`)
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := mustPreset(t, "imagenet")
	want.Layout = NHWC
	if c.Preprocess != want || !c.Probabilities || c.Task != "mapping:"+filepath.Join(dir, "map.csv") || c.ClassNames != "/abs/synsets.txt" {
		t.Errorf("config %+v", c)
	}
	c, err = LoadConfig(writeFile(t, dir, "b.json", `{"width": 32, "height": 32, "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5], "scale": 255, "bgr": true, "task": "imagenet16"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Width != 32 || c.Scale != 255 || !c.BGR || c.Task != "imagenet16" || c.Std[2] != 0.5 {
		t.Errorf("config %+v", c)
	}
	for _, tc := range []struct{ text, want string }{
		{`{"resize": 256, "crop": 224}`, `field "crop" is not a config field`},
		{`{"resize": "256"}`, `field "resize" must be a JSON int`},
		{`{"mean": [0.5, 0.5]}`, ``},
		{"{\n\"resize\": 256,\n}", `line 3`},
		{`{"std": [1, 0, -1]}`, `field "std"`},
		{`{"width": 32}`, `field "width"`},
		{`{"preset": "vgg"}`, `field "preset"`},
		{`{"layout": "CHW"}`, `field "layout"`},
	} {
		path := writeFile(t, dir, "bad.json", tc.text)
		_, err := LoadConfig(path)
		if tc.want == "" {
			continue // accepted or not, it must not panic
		}
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want the file and %q", tc.text, err, tc.want)
		}
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func BenchmarkApplyImageNet500x375(b *testing.B) {
	p := mustPreset(b, "imagenet")
	m := testimg.Natural(500, 375, 1)
	buf := make([]float32, 3*224*224)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ApplyInto(buf, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyImageNet500x375Float is BenchmarkApplyImageNet500x375 for
// an image that is not all 8-bit levels (a computed image), which takes the
// float resampler instead of Pillow's 8-bit one.
func BenchmarkApplyImageNet500x375Float(b *testing.B) {
	p := mustPreset(b, "imagenet")
	m := testimg.Natural(500, 375, 1)
	for c := range 3 {
		for i, v := range m.Ch[c] {
			m.Ch[c][i] = v*0.999 + 0.0001
		}
	}
	buf := make([]float32, 3*224*224)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ApplyInto(buf, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyImageNet224(b *testing.B) {
	p := mustPreset(b, "imagenet")
	m := testimg.Natural(224, 224, 1)
	buf := make([]float32, 3*224*224)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ApplyInto(buf, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyImageNet500x375Unfused is the same work through imageio's
// whole-image steps, the baseline of the fused path.
func BenchmarkApplyImageNet500x375Unfused(b *testing.B) {
	m := testimg.Natural(500, 375, 1)
	b.ReportAllocs()
	for b.Loop() {
		slowTensor(mustPreset(b, "imagenet"), m)
	}
}

func BenchmarkApplyNone224(b *testing.B) {
	p := mustPreset(b, "none")
	m := testimg.Natural(224, 224, 1)
	buf := make([]float32, 3*224*224)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ApplyInto(buf, m); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"preset": "imagenet", "layout": "NHWC", "task": "imagenet16"}`))
	f.Add([]byte(`{"width": 32, "height": 32, "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(data)
		if err != nil {
			return
		}
		// An accepted config must preprocess an image without error.
		// (Only small sizes, to keep the fuzzer's memory bounded.)
		if max(c.Resize, c.Width, c.Height, c.CropWidth, c.CropHeight) > 512 {
			return
		}
		if _, err := c.Preprocess.Apply(imageio.New(5, 3)); err != nil {
			t.Fatalf("config %+v accepted but Apply fails: %v", c, err)
		}
	})
}

func TestConfigMapping(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "classes.txt", "n01440764 tench\nn01443537 goldfish\nn01484850 great white shark\n")
	writeFile(t, dir, "map.csv", "0,fish\n1,fish\n2,shark\n")
	c, err := LoadConfig(writeFile(t, dir, "a.json", `{"preset": "none", "class_names": "classes.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Mapping(3, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Classes(); len(got) != 3 || got[1] != "n01443537" {
		t.Errorf("classes %v", got)
	}
	if _, err := c.Mapping(4, ""); err == nil {
		t.Error("3 class names for 4 outputs: no error")
	}
	c, err = LoadConfig(writeFile(t, dir, "b.json", `{"task": "map.csv", "probabilities": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = c.Mapping(3, ""); err != nil || m.Name() != "mapping:map.csv" || len(m.Classes()) != 2 {
		t.Fatalf("mapping %v, %v", m, err)
	}
	if cl, conf := m.Map([]float32{0.3, 0.3, 0.4}); cl != 1 || conf != 0.4 {
		t.Errorf("Map = %d, %v", cl, conf)
	}
}

// TestApplyConcurrent runs the pooled fused path from several goroutines
// on images of different sizes (run with -race).
func TestApplyConcurrent(t *testing.T) {
	p := mustPreset(t, "imagenet")
	imgs := []*imageio.Image{testimg.Natural(500, 375, 1), testimg.Natural(224, 224, 2), testimg.Natural(300, 640, 3)}
	want := make([][]float32, len(imgs))
	for i, m := range imgs {
		w, _ := slowTensor(p, m)
		want[i] = w
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			buf := make([]float32, 3*224*224)
			for k := range 6 {
				i := (g + k) % len(imgs)
				got, err := p.ApplyInto(buf, imgs[i])
				if err == nil {
					for j, v := range want[i] {
						if math.Abs(float64(got.Data[j]-v)) > 1e-5 {
							err = errors.New("concurrent ApplyInto differs from the reference")
							break
						}
					}
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
