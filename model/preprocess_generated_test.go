package model

import (
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// normalised is the tensor the ImageNet normalisation alone makes of m
// (NCHW), written straight from the formula (v − mean) / std with the
// kernel's float32 coefficients a = 1/std, b = −mean/std.
func normalised(m *imageio.Image) []float32 {
	mean := [3]float32{0.485, 0.456, 0.406}
	std := [3]float32{0.229, 0.224, 0.225}
	out := make([]float32, 0, 3*m.Width*m.Height)
	for c := range 3 {
		a, b := 1/std[c], -mean[c]/std[c]
		for _, v := range m.Ch[c] {
			out = append(out, v*a+b)
		}
	}
	return out
}

func equalTensors(a, b []float32) (diff int) {
	if len(a) != len(b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff
}

// TestForGeneratedCropped checks that preset imagenet on the 224×224 images
// of a --resize 256 --crop 224 test set feeds them unchanged apart from
// normalisation, bit for bit the tensor of imagenet-cropped, while the
// unadapted preset resamples them (224 → 256 → 224) and changes them.
func TestForGeneratedCropped(t *testing.T) {
	m := testimg.Natural(224, 224, 5)
	want := normalised(m)
	p := mustPreset(t, "imagenet")
	q, note, warning := p.ForGenerated(256, 224)
	if warning != "" || !strings.Contains(note, "224×224 already (vcr generate --resize 256 --crop 224)") || !strings.Contains(note, "skips its own resize to 256 and crop to 224×224") {
		t.Errorf("note %q, warning %q", note, warning)
	}
	got, err := q.Apply(m)
	if err != nil {
		t.Fatal(err)
	}
	if d := equalTensors(got.Data, want); d != 0 || !equalShape(got.Shape, []int64{3, 224, 224}) {
		t.Errorf("adapted imagenet: %d of %d values differ from normalisation alone (shape %v)", d, len(want), got.Shape)
	}
	c := mustPreset(t, "imagenet-cropped")
	got, err = c.Apply(m)
	if err != nil {
		t.Fatal(err)
	}
	if d := equalTensors(got.Data, want); d != 0 {
		t.Errorf("imagenet-cropped: %d values differ from normalisation alone", d)
	}
	if _, n, w := c.ForGenerated(256, 224); n != "" || w != "" {
		t.Errorf("imagenet-cropped on a --crop 224 test set: note %q, warning %q; want none", n, w)
	}
	raw, err := p.Apply(m)
	if err != nil {
		t.Fatal(err)
	}
	if d := equalTensors(raw.Data, want); d == 0 {
		t.Error("unadapted imagenet preset left 224×224 images unchanged; the test does not show the re-resize")
	}
	if _, err := c.Apply(testimg.Natural(256, 224, 1)); err == nil || !strings.Contains(err.Error(), "is 256×224 but must be exactly 224×224") {
		t.Errorf("imagenet-cropped on a 256×224 image: %v", err)
	}
}

func TestForGeneratedCases(t *testing.T) {
	imagenet := mustPreset(t, "imagenet")
	cifar := mustPreset(t, "cifar")
	for _, tc := range []struct {
		name          string
		p             Preprocess
		resize, crop  int
		want          Preprocess // the adapted preprocessing's size fields
		note, warning string     // substrings; "" = must be empty
	}{
		{"nothing done", imagenet, 0, 0, imagenet, "", ""},
		{"other crop", imagenet, 256, 256, imagenet, "", "already resized and cropped to 256×256 by vcr generate --resize 256 --crop 256"},
		{"crop only, same size", imagenet, 0, 224, Preprocess{}, "--crop 224", ""},
		{"same resize", imagenet, 256, 0, Preprocess{CropWidth: 224, CropHeight: 224}, "skips its own resize to 256", ""},
		{"other resize", imagenet, 300, 0, imagenet, "", "resizes them again to 256"},
		{"cifar 32", cifar, 0, 32, cifar, "", ""},
		{"cifar on 224 crops", cifar, 256, 224, cifar, "", "resizes or crops them again (size 32×32)"},
	} {
		q, note, warning := tc.p.ForGenerated(tc.resize, tc.crop)
		if q.Resize != tc.want.Resize || q.CropWidth != tc.want.CropWidth || q.CropHeight != tc.want.CropHeight || q.Width != tc.want.Width || q.Mean != tc.p.Mean {
			t.Errorf("%s: adapted %+v", tc.name, q)
		}
		if tc.note == "" && note != "" || !strings.Contains(note, tc.note) {
			t.Errorf("%s: note %q, want %q", tc.name, note, tc.note)
		}
		if tc.warning == "" && warning != "" || !strings.Contains(warning, tc.warning) {
			t.Errorf("%s: warning %q, want %q", tc.name, warning, tc.warning)
		}
	}
}
