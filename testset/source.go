package testset

import (
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
)

// Source is a dataset that Generate draws images from; every
// dataset.Dataset (image folders, ImageNet validation, CIFAR, list CSVs)
// is one.
type Source interface {
	// Len returns the number of images.
	Len() int
	// Item describes image i (0 ≤ i < Len) without decoding it.
	Item(i int) Item
	// Load decodes image i. A broken or unreadable file is an error, not a panic.
	Load(i int) (*imageio.Image, error)
	// Classes lists the class names in label order (nil when unlabelled).
	Classes() []string
	// Name names the kind of dataset, e.g. "imagefolder".
	Name() string
	// Root is the folder or file the dataset was read from.
	Root() string
}

// Item describes one image of a Source.
type Item = dataset.Item

var _ Source = dataset.Dataset(nil)
