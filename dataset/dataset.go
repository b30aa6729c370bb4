package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// Item is one dataset element.
type Item struct {
	// Index is the position in the dataset, 0…Len()−1, stable for a given
	// dataset on disk.
	Index int
	// Source identifies the element stably: its path relative to the dataset
	// root, slash-separated (absolute when a list CSV gives an absolute
	// path), or "<batch file>#<record>" for CIFAR, e.g. "data_batch_1.bin#1234".
	Source string
	// Label is the class index in the dataset's label space, −1 if unlabelled.
	Label int
	// LabelName is the class name (folder name, WordNet ID, CIFAR class
	// name), "" if unknown.
	LabelName string
}

// Dataset is a random-access, streaming collection of labelled images.
// Implementations are safe for concurrent use by several goroutines.
type Dataset interface {
	// Name is the reader: "imagefolder", "imagenet-val", "cifar10",
	// "cifar100" or "list".
	Name() string
	// Len is the number of elements.
	Len() int
	// Item returns element i without decoding it. It panics if i is out of range.
	Item(i int) Item
	// Load decodes element i. Errors name the source file or record. It
	// panics if i is out of range.
	Load(i int) (*imageio.Image, error)
	// Classes returns the label names by index; it may be empty, for
	// example for unlabelled folders. The caller must not modify it.
	Classes() []string
	// Root is the dataset's root directory; Item.Source is relative to it.
	Root() string
}

// HeaderReader is implemented by the datasets that can tell an element's
// size before decoding it: every Dataset that Open returns. Header
// returns the size element i's header declares, and its file size; it
// reads no pixels. It panics if i is out of range.
type HeaderReader interface {
	Header(i int) (imageio.Header, error)
}

// Kinds of dataset accepted by Spec.Kind.
const (
	KindAuto        = "auto"
	KindImageFolder = "imagefolder"
	KindImageNetVal = "imagenet-val"
	KindCIFAR10     = "cifar10"
	KindCIFAR100    = "cifar100"
	KindList        = "list"
)

// Kinds lists the values Spec.Kind accepts.
var Kinds = []string{KindAuto, KindImageFolder, KindImageNetVal, KindCIFAR10, KindCIFAR100, KindList}

// Spec says which dataset to open and how.
type Spec struct {
	// Kind is one of Kinds; "" means "auto".
	//
	// "auto" decides from Path: a .csv file is a list; a .bin file or a
	// folder holding CIFAR batch files is CIFAR-10 or CIFAR-100 (by the
	// file names, else by the record size); a folder with Labels set is an
	// ImageNet validation folder; any other folder is an image folder
	// (class sub-folders, or flat).
	Kind string
	// Path is the folder, CSV file, or CIFAR batch file or folder.
	Path string
	// Labels is the ImageNet validation labels file: the devkit's
	// ILSVRC2012_validation_ground_truth.txt or a LOC_val_solution.csv-style
	// CSV. Only used by "imagenet-val".
	Labels string
	// Synsets is a class list, one class per line; a line starting with a
	// WordNet ID ("n01440764 tench, Tinca tinca", the LOC_synset_mapping.txt
	// format) contributes that ID, any other line its trimmed text. Used by
	// "imagenet-val" (see OpenImageNetVal) and "list" (label names and
	// indices refer to it).
	Synsets string
	// Split selects the CIFAR batches when Path is a folder: "test" (the
	// default: test_batch.bin or test.bin) or "train" (data_batch_*.bin or
	// train.bin).
	Split string
	// MaxPixels is the decoder's pixel limit (imageio.Options.MaxPixels):
	// 0 means imageio.DefaultMaxPixels, negative disables it.
	MaxPixels int
}

// Open opens the dataset described by spec.
func Open(spec Spec) (Dataset, error) {
	if spec.Path == "" {
		return nil, errors.New("dataset: no path given")
	}
	kind := spec.Kind
	if kind == "" || kind == KindAuto {
		var err error
		if kind, err = detect(spec); err != nil {
			return nil, err
		}
	}
	if spec.Labels != "" && kind != KindImageNetVal {
		return nil, fmt.Errorf("dataset: a labels file (%s) is only used with an ImageNet validation folder, not with kind %q", spec.Labels, kind)
	}
	if spec.Synsets != "" && kind != KindImageNetVal && kind != KindList {
		return nil, fmt.Errorf("dataset: a synsets/class list (%s) is only used with an ImageNet validation folder or a list CSV, not with kind %q", spec.Synsets, kind)
	}
	if spec.Split != "" && kind != KindCIFAR10 && kind != KindCIFAR100 {
		return nil, fmt.Errorf("dataset: a split (%q) only selects CIFAR batches, not files of kind %q", spec.Split, kind)
	}
	opt := imageio.Options{MaxPixels: spec.MaxPixels}
	switch kind {
	case KindImageFolder:
		return OpenImageFolder(spec.Path, opt)
	case KindImageNetVal:
		return OpenImageNetVal(spec.Path, spec.Labels, spec.Synsets, opt)
	case KindCIFAR10, KindCIFAR100:
		return OpenCIFAR(spec.Path, kind, spec.Split)
	case KindList:
		return OpenList(spec.Path, spec.Synsets, opt)
	}
	return nil, fmt.Errorf("dataset: unknown kind %q; use one of %s", kind, strings.Join(Kinds, ", "))
}

// detect implements Spec.Kind "auto".
func detect(spec Spec) (string, error) {
	fi, err := os.Stat(spec.Path)
	if err != nil {
		return "", fmt.Errorf("dataset: %w", err)
	}
	if !fi.IsDir() {
		switch strings.ToLower(filepath.Ext(spec.Path)) {
		case ".csv":
			return KindList, nil
		case ".bin":
			return cifarKindOfFile(spec.Path, fi.Size())
		}
		return "", fmt.Errorf("dataset: %s is a file but neither a .csv list nor a CIFAR .bin batch; give a folder of images, a list CSV or CIFAR batches", spec.Path)
	}
	if spec.Labels != "" {
		return KindImageNetVal, nil
	}
	if k, _, _ := findCIFARDir(spec.Path); k != "" {
		return k, nil
	}
	return KindImageFolder, nil
}

// imageExts are the file extensions (lower case) read as images.
var imageExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true,
	".tif": true, ".tiff": true, ".webp": true,
}

// IsImageFile reports whether name has an image extension: png, jpg, jpeg,
// gif, bmp, tif, tiff or webp, in any case.
func IsImageFile(name string) bool {
	return imageExts[strings.ToLower(filepath.Ext(name))]
}

// hidden reports whether a file or folder name is hidden (starts with a
// dot); hidden entries are skipped everywhere, which also skips the
// temporary files of atomic writes and folders like .ipynb_checkpoints.
func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// FilePath returns the file on disk that holds element i of d: Root joined
// with Item.Source, or Source itself when it is absolute (list CSVs). It
// returns "" for datasets whose elements are not files of their own (CIFAR
// records). It panics if i is out of range.
func FilePath(d Dataset, i int) string {
	if f, ok := d.(*files); ok {
		return f.Path(i)
	}
	d.Item(i) // range check
	return ""
}

// files is a Dataset whose elements are image files.
type files struct {
	name    string
	root    string
	items   []Item
	classes []string
	opt     imageio.Options
}

func (d *files) Name() string      { return d.name }
func (d *files) Len() int          { return len(d.items) }
func (d *files) Item(i int) Item   { return d.items[d.check(i)] }
func (d *files) Classes() []string { return d.classes }
func (d *files) Root() string      { return d.root }

// Path returns the file of element i on disk.
func (d *files) Path(i int) string {
	s := filepath.FromSlash(d.items[d.check(i)].Source)
	if filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(d.root, s)
}

func (d *files) Load(i int) (*imageio.Image, error) {
	m, err := imageio.Load(d.Path(i), d.opt)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return m, nil
}

// Header reads the header of element i's file without decoding its pixels
// (imageio.ReadHeader), so that a caller can refuse an image too large for
// its memory before decoding it.
func (d *files) Header(i int) (imageio.Header, error) {
	h, err := imageio.ReadHeader(d.Path(i))
	if err != nil {
		return h, fmt.Errorf("dataset: %w", err)
	}
	return h, nil
}

func (d *files) check(i int) int {
	if i < 0 || i >= len(d.items) {
		panic(fmt.Sprintf("dataset: index %d out of range [0, %d)", i, len(d.items)))
	}
	return i
}
