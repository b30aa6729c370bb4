package dataset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestSourceImages loads a CIFAR record and a folder image by their
// manifest source names, with and without the generate run's crop.
func TestSourceImages(t *testing.T) {
	dir := t.TempDir()
	writeCIFAR(t, filepath.Join(dir, "data_batch_2.bin"), 2, labels10(3, 0))
	s, err := dataset.OpenSourceImages(dataset.KindCIFAR10, dir, 0, 0, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Load("data_batch_2.bin#1")
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARImage(t, m, 2, 1)
	for _, bad := range []string{"data_batch_2.bin#3", "data_batch_2.bin", "data_batch_2.bin#-1"} {
		if _, err := s.Load(bad); err == nil {
			t.Errorf("Load(%q): no error", bad)
		}
	}

	img := testimg.Natural(40, 30, 3)
	if err := os.MkdirAll(filepath.Join(dir, "cat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := imageio.Save(filepath.Join(dir, "cat", "a.png"), img, imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err = dataset.OpenSourceImages(dataset.KindImageFolder, dir, 0, 24, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err = s.Load("cat/a.png")
	if err != nil {
		t.Fatal(err)
	}
	want := imageio.Preprocess(img, 0, 24)
	for c := range 3 {
		for i, v := range want.Ch[c] {
			if m.Ch[c][i] != v {
				t.Fatalf("cropped source differs from imageio.Preprocess at channel %d sample %d", c, i)
			}
		}
	}
	if _, err := dataset.OpenSourceImages(dataset.KindImageFolder, filepath.Join(dir, "gone"), 0, 0, imageio.Options{}); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("missing root: %v", err)
	}
}
