package evaluate

import (
	"fmt"

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

// DatasetSources are the Sources of a generate run's dataset
// (dataset.SourceImages).
type DatasetSources struct {
	Images *dataset.SourceImages
	// Root is the dataset's folder and Found how CleanSources found it
	// (one of testset's Resolved constants); empty from NewDatasetSources.
	Root, Found string
}

// CleanSources returns the clean source images of the test set in folder
// testSet, whose run.json is ri: the dataset at images when given (where
// the dataset is now), else where run.json says, relative to the test set
// first, so that a test set works from any working directory and after it
// moved together with its data (testset.ResolveImages). It is the one
// place vcr eval finds the clean images.
func CleanSources(ri *testset.RunInfo, testSet, images string, opt imageio.Options) (*DatasetSources, error) {
	root, how, err := testset.ResolveImages(testSet, images)
	if err != nil {
		return nil, err
	}
	ds, err := NewDatasetSources(ri, root, opt)
	if err != nil {
		return nil, err
	}
	ds.Root, ds.Found = root, how
	return ds, nil
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
	s, err := dataset.OpenSourceImages(ri.Dataset.Kind, root, ri.Dataset.Resize, ri.Dataset.Crop, opt)
	if err != nil {
		return nil, err
	}
	return &DatasetSources{Images: s}, nil
}

// Load implements Sources.
func (s *DatasetSources) Load(source string, index int) (*imageio.Image, error) {
	return s.Images.Load(source)
}
