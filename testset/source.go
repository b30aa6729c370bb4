package testset

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// Source is a dataset that Generate draws images from. Its shape is that of
// dataset.Dataset, so any dataset reader plugs in unchanged.
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
type Item struct {
	// Index is the image's position in the Source.
	Index int
	// Source identifies the image, e.g. its path relative to the root.
	Source string
	// Label is the class index, or −1 when the image has no label.
	Label int
	// LabelName is the class name ("" when unlabelled).
	LabelName string
}

// imageExts are the file extensions DirSource lists (compared in lower case).
var imageExts = map[string]bool{
	".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".bmp": true,
	".tif": true, ".tiff": true, ".webp": true,
}

// DirSource is a plain folder of images: either flat (every image file
// directly in the folder, unlabelled) or one sub-folder per class (the
// torchvision ImageFolder layout: classes are the sub-folders that hold
// images, sorted by name, labels 0, 1, …; files are found recursively inside
// each class folder). Files are listed in sorted order, so the same folder
// always gives the same Source.
type DirSource struct {
	root    string
	opt     imageio.Options
	classes []string
	items   []Item
}

// NewDirSource lists the images under root. It returns an error if root is
// not a readable folder or holds no image files.
func NewDirSource(root string, opt imageio.Options) (*DirSource, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", root)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	d := &DirSource{root: root, opt: opt}
	for _, e := range entries { // ReadDir sorts by name
		if strings.HasPrefix(e.Name(), ".") || !isDir(filepath.Join(root, e.Name()), e) {
			continue
		}
		files, err := listImages(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			continue
		}
		label := len(d.classes)
		d.classes = append(d.classes, e.Name())
		for _, f := range files {
			d.items = append(d.items, Item{Index: len(d.items), Source: e.Name() + "/" + f, Label: label, LabelName: e.Name()})
		}
	}
	if len(d.classes) == 0 {
		for _, e := range entries {
			if isImageName(e.Name()) && isFile(filepath.Join(root, e.Name()), e) {
				d.items = append(d.items, Item{Index: len(d.items), Source: e.Name(), Label: -1})
			}
		}
	}
	if len(d.items) == 0 {
		return nil, fmt.Errorf("%s holds no image files (%s), neither directly nor in class sub-folders", root, strings.Join(sortedExts(), ", "))
	}
	return d, nil
}

// isDir and isFile report whether the entry at path is a folder or a
// regular file, following symbolic links (datasets are often links).
func isDir(path string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		return err == nil && st.IsDir()
	}
	return e.IsDir()
}

func isFile(path string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		return err == nil && st.Mode().IsRegular()
	}
	return e.Type().IsRegular()
}

// listImages returns the image files under dir, recursively, as slash
// separated paths relative to dir, sorted. dir may be a symbolic link;
// links to files inside are followed, links to folders are not.
func listImages(dir string) ([]string, error) {
	var out []string
	walkRoot := dir + string(filepath.Separator) // a trailing separator follows a link
	err := filepath.WalkDir(walkRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != walkRoot && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if isImageName(e.Name()) && isFile(p, e) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func isImageName(name string) bool {
	return !strings.HasPrefix(name, ".") && imageExts[strings.ToLower(filepath.Ext(name))]
}

func sortedExts() []string {
	var e []string
	for k := range imageExts {
		e = append(e, k)
	}
	sort.Strings(e)
	return e
}

// Len implements Source.
func (d *DirSource) Len() int { return len(d.items) }

// Item implements Source.
func (d *DirSource) Item(i int) Item { return d.items[i] }

// Load implements Source.
func (d *DirSource) Load(i int) (*imageio.Image, error) {
	return imageio.Load(filepath.Join(d.root, filepath.FromSlash(d.items[i].Source)), d.opt)
}

// Classes implements Source.
func (d *DirSource) Classes() []string { return d.classes }

// Name implements Source: "imagefolder" for class folders, "folder" for a flat folder.
func (d *DirSource) Name() string {
	if len(d.classes) > 0 {
		return "imagefolder"
	}
	return "folder"
}

// Root implements Source.
func (d *DirSource) Root() string { return d.root }
