package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/localpath"
)

// SourceImages loads the source images of a test set — the images its
// manifest names in the source column — from the dataset they were drawn
// from: files under Root (image folders, ImageNet validation folders, list
// CSVs) or records of CIFAR batch files ("data_batch_1.bin#1234"), then
// applies imageio.Preprocess with the Resize and Crop the generate run
// used, so that they match the corrupted images. It is safe for concurrent
// use.
type SourceImages struct {
	Kind         string
	Root         string
	Resize, Crop int
	Opt          imageio.Options
}

// OpenSourceImages returns the source images of a dataset of the given kind
// at root, to be resized and cropped as given (0 = not). It returns an
// error when root does not exist.
func OpenSourceImages(kind, root string, resize, crop int, opt imageio.Options) (*SourceImages, error) {
	if root == "" {
		return nil, fmt.Errorf("no dataset folder given for the source images")
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("the source images are read from the dataset the test set was generated from, %s: %w", root, err)
	}
	return &SourceImages{Kind: kind, Root: root, Resize: resize, Crop: crop, Opt: opt}, nil
}

var cifarBufs = sync.Pool{New: func() any { return new([]byte) }}

// Load returns the source image the dataset names source (a path relative
// to Root, or "FILE.bin#RECORD" for CIFAR), with Resize and Crop applied.
func (s *SourceImages) Load(source string) (*imageio.Image, error) {
	var m *imageio.Image
	var err error
	if s.Kind == KindCIFAR10 || s.Kind == KindCIFAR100 {
		m, err = s.loadCIFAR(source)
	} else {
		p, perr := SourceFile(s.Kind, s.Root, source)
		if perr != nil {
			return nil, perr
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

// SourceFile returns the file of source, a source image as a manifest's
// source column names it, in the dataset of the given kind at root. Image
// folders and ImageNet validation folders name their files relative to
// root, so their sources must stay inside it (internal/localpath: relative,
// clean, no ".."); anything else — an absolute path planted in a crafted
// manifest — is an error. A list CSV may name any file (absolute, or
// relative to its folder), so list sources are taken as written. CIFAR
// sources ("FILE.bin#RECORD") name a batch file inside root.
func SourceFile(kind, root, source string) (string, error) {
	switch kind {
	case KindList:
		p := filepath.FromSlash(source)
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		return p, nil
	case KindCIFAR10, KindCIFAR100:
		source, _, _ = strings.Cut(source, "#")
	}
	if err := localpath.Check(source); err != nil {
		return "", fmt.Errorf("source %w (sources of a %q dataset are relative to its folder)", err, kind)
	}
	return filepath.Join(root, filepath.FromSlash(source)), nil
}

// loadCIFAR reads record r of the batch file named by "file#r".
func (s *SourceImages) loadCIFAR(source string) (*imageio.Image, error) {
	file, recStr, ok := strings.Cut(source, "#")
	r, err := strconv.Atoi(recStr)
	if !ok || err != nil || r < 0 {
		return nil, fmt.Errorf("not a CIFAR record name (want FILE.bin#RECORD)")
	}
	labelBytes := 1
	if s.Kind == KindCIFAR100 {
		labelBytes = 2
	}
	const pixels = 32 * 32 * 3
	size := labelBytes + pixels
	p, err := SourceFile(s.Kind, s.Root, file)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
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
	return DecodeCIFARRecord(buf, labelBytes)
}
