package evaluate

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/testset"
)

// Sources loads the clean source images of a test set, preprocessed as the
// generate run preprocessed them before corrupting.
type Sources interface {
	// Load returns the source image that the manifest names source (its
	// source column) with dataset index index (its source_index column).
	Load(source string, index int) (*imageio.Image, error)
}

// DatasetSources loads source images from the dataset a generate run read:
// files under Root (image folders, ImageNet validation folders, list CSVs)
// or records of CIFAR batch files ("data_batch_1.bin#1234"), then applies
// imageio.Preprocess with the run's resize and crop. It is safe for
// concurrent use.
type DatasetSources struct {
	Kind         string
	Root         string
	Resize, Crop int
	Opt          imageio.Options
}

// CleanSources returns the clean source images of the test set in folder
// testSet, whose run.json is ri: the dataset at images when given (where
// the dataset is now), else at the root run.json records. It is the one
// place vcr eval finds the clean images.
func CleanSources(ri *testset.RunInfo, testSet, images string, opt imageio.Options) (*DatasetSources, error) {
	return NewDatasetSources(ri, images, opt)
}

// NewDatasetSources returns the sources of the run described by ri. A
// non-empty root replaces the dataset root recorded in run.json (for a
// dataset mounted elsewhere now).
func NewDatasetSources(ri *testset.RunInfo, root string, opt imageio.Options) (*DatasetSources, error) {
	if root == "" {
		root = ri.Dataset.Root
	}
	if root == "" {
		return nil, fmt.Errorf("run.json records no dataset root; give the dataset's folder")
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("the source images are read from the dataset the test set was generated from, %s: %w", root, err)
	}
	return &DatasetSources{Kind: ri.Dataset.Kind, Root: root, Resize: ri.Dataset.Resize, Crop: ri.Dataset.Crop, Opt: opt}, nil
}

var cifarBufs = sync.Pool{New: func() any { return new([]byte) }}

// Load implements Sources.
func (s *DatasetSources) Load(source string, index int) (*imageio.Image, error) {
	var m *imageio.Image
	var err error
	if s.Kind == dataset.KindCIFAR10 || s.Kind == dataset.KindCIFAR100 {
		m, err = s.loadCIFAR(source)
	} else {
		p := filepath.FromSlash(source)
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.Root, p)
		}
		m, err = imageio.Load(p, s.Opt)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", source, err)
	}
	if s.Resize > 0 || s.Crop > 0 {
		m = imageio.Preprocess(m, s.Resize, s.Crop)
	}
	return m, nil
}

// loadCIFAR reads record r of the batch file named by "file#r".
func (s *DatasetSources) loadCIFAR(source string) (*imageio.Image, error) {
	file, recStr, ok := strings.Cut(source, "#")
	r, err := strconv.Atoi(recStr)
	if !ok || err != nil || r < 0 {
		return nil, fmt.Errorf("not a CIFAR record name (want FILE.bin#RECORD)")
	}
	labelBytes := 1
	if s.Kind == dataset.KindCIFAR100 {
		labelBytes = 2
	}
	const pixels = 32 * 32 * 3
	size := labelBytes + pixels
	f, err := os.Open(filepath.Join(s.Root, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bp := cifarBufs.Get().(*[]byte)
	defer cifarBufs.Put(bp)
	if cap(*bp) < size {
		*bp = make([]byte, size)
	}
	buf := (*bp)[:size]
	if _, err := f.ReadAt(buf, int64(r)*int64(size)); err != nil {
		return nil, fmt.Errorf("record %d: %w", r, err)
	}
	return dataset.DecodeCIFARRecord(buf, labelBytes)
}
