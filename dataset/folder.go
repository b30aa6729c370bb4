package dataset

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/vcr-bench/vcr/imageio"
)

// OpenImageFolder opens root as torchvision's ImageFolder: every
// sub-folder of root is a class, classes are sorted by name (byte order, as
// Python's sorted) and numbered from 0, and the images of a class are all
// files with an image extension (see IsImageFile) anywhere below its
// folder, ordered as torchvision orders them: by containing folder path,
// then by file name. Symbolic links are followed. Hidden files and folders
// (names starting with ".") are skipped. A class folder without images keeps
// its index (torchvision refuses such folders instead).
//
// A folder that holds images but no sub-folders with images is read as one
// flat, unlabelled set (Label −1, no classes), in file-name order. A folder
// with both top-level images and class folders is refused, since either
// reading would silently drop files.
//
// Opening walks the tree once; it decodes nothing.
func OpenImageFolder(root string, opt imageio.Options) (Dataset, error) {
	top, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var classes, flat []string
	for _, e := range top {
		if hidden(e.Name()) {
			continue
		}
		dir, err := isDir(root, e)
		if err != nil {
			return nil, fmt.Errorf("dataset: %w", err)
		}
		switch {
		case dir:
			classes = append(classes, e.Name())
		case IsImageFile(e.Name()):
			flat = append(flat, e.Name())
		}
	}
	slices.Sort(classes)
	slices.Sort(flat)

	d := &files{name: KindImageFolder, root: root, opt: opt}
	var found []image
	for label, class := range classes {
		n := len(found)
		if found, err = walkImages(root, class, label, nil, found); err != nil {
			return nil, err
		}
		// torchvision: for root, _, fnames in sorted(os.walk(class dir)): for fname in sorted(fnames)
		slices.SortFunc(found[n:], func(a, b image) int {
			return cmp.Or(cmp.Compare(a.dir, b.dir), cmp.Compare(a.name, b.name))
		})
	}
	switch {
	case len(found) > 0 && len(flat) > 0:
		return nil, fmt.Errorf("dataset: %s holds both images (%s, …) and class folders with images (%s, …); move the loose images into a class folder, or point to a folder of only one kind",
			root, flat[0], path.Join(found[0].dir, found[0].name))
	case len(found) > 0:
		d.classes = classes
		d.items = make([]Item, len(found))
		for i, f := range found {
			d.items[i] = Item{Index: i, Source: path.Join(f.dir, f.name), Label: f.label, LabelName: classes[f.label]}
		}
	case len(flat) > 0:
		d.items = make([]Item, len(flat))
		for i, name := range flat {
			d.items[i] = Item{Index: i, Source: name, Label: -1}
		}
	default:
		return nil, fmt.Errorf("dataset: no images (png, jpg, jpeg, gif, bmp, tif, tiff, webp) in %s or its sub-folders", root)
	}
	return d, nil
}

// image is a file found by walkImages: dir is its folder relative to the
// dataset root, slash-separated.
type image struct {
	dir, name string
	label     int
}

// walkImages appends the image files below root/dir (recursively) to found.
// It follows symbolic links; ancestors are the folders above dir, so that a
// link back to one of them is reported instead of walked forever.
func walkImages(root, dir string, label int, ancestors []os.FileInfo, found []image) ([]image, error) {
	full := filepath.Join(root, filepath.FromSlash(dir))
	fi, err := os.Stat(full)
	if err != nil {
		return found, fmt.Errorf("dataset: %w", err)
	}
	for _, a := range ancestors {
		if os.SameFile(a, fi) {
			return found, fmt.Errorf("dataset: %s is a symbolic link loop (it leads back to a folder above it)", full)
		}
	}
	ancestors = append(ancestors, fi)
	entries, err := os.ReadDir(full)
	if err != nil {
		return found, fmt.Errorf("dataset: %w", err)
	}
	for _, e := range entries {
		if hidden(e.Name()) {
			continue
		}
		sub, err := isDir(full, e)
		if err != nil {
			return found, fmt.Errorf("dataset: %w", err)
		}
		if sub {
			if found, err = walkImages(root, dir+"/"+e.Name(), label, ancestors[:len(ancestors):len(ancestors)], found); err != nil {
				return found, err
			}
		} else if IsImageFile(e.Name()) {
			found = append(found, image{dir: dir, name: e.Name(), label: label})
		}
	}
	return found, nil
}

// isDir reports whether the entry e of folder dir is a folder, following a
// symbolic link. A dangling link is not a folder.
func isDir(dir string, e os.DirEntry) (bool, error) {
	if e.Type()&os.ModeSymlink == 0 {
		return e.IsDir(), nil
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	if err != nil {
		if os.IsNotExist(err) {
			return false, nil
		}
		return false, err
	}
	return fi.IsDir(), nil
}
