package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// OpenImageNetVal opens an ImageNet (ILSVRC-2012) validation folder: a flat
// folder of images named ILSVRC2012_val_XXXXXXXX with an image extension
// (normally .JPEG) and a labels file, in one of two formats, told apart by
// the first line (a .csv file, or a first line with a comma, is a CSV):
//
// (a) the devkit's ILSVRC2012_validation_ground_truth.txt: line k holds the
// ILSVRC2012_ID (1…1000) of image ILSVRC2012_val_%08d(k). These IDs follow
// the devkit's meta.mat order, which is NOT the sorted-WordNet-ID order that
// torchvision, Caffe and Keras models use. Without a synsets file, Label is
// ILSVRC2012_ID − 1 (the devkit order, 0-based), LabelName is "" and Classes
// is empty. With synsets, a file listing the 1000 WordNet IDs in devkit
// order (line k = ILSVRC2012_ID k, e.g. exported from meta.mat's synsets),
// LabelName is the image's WordNet ID and Label its index in the sorted
// order of those IDs, the standard ImageNet-1k index; Classes is the sorted
// list. A synsets file that is already sorted (such as
// LOC_synset_mapping.txt) is refused with the ground-truth list, because it
// cannot be in devkit order. Elements are in line order.
//
// (b) a LOC_val_solution.csv-style CSV with header "ImageId,PredictionString",
// where PredictionString starts with the image's WordNet ID (the rest, the
// boxes, is ignored). LabelName is the WordNet ID. Label is its line number
// (0-based) in synsets (LOC_synset_mapping.txt: "n01440764 tench, Tinca
// tinca" lines in index order) when a synsets file is given; otherwise its
// index among the sorted distinct WordNet IDs in the CSV, which equals the
// standard ImageNet-1k index only when all 1000 classes occur (the full
// validation set). Elements are sorted by ImageId.
//
// Every labelled image must be in the folder and every image in the folder
// must be labelled; errors name the labels file and line, or the image.
func OpenImageNetVal(root, labels, synsets string, opt imageio.Options) (Dataset, error) {
	if labels == "" {
		return nil, fmt.Errorf("dataset: an ImageNet validation folder needs a labels file: ILSVRC2012_validation_ground_truth.txt (devkit) or LOC_val_solution.csv")
	}
	data, err := os.ReadFile(labels)
	if err != nil {
		return nil, fmt.Errorf("dataset: labels file: %w", err)
	}
	var space *LabelSpace
	if synsets != "" {
		if space, err = ReadSynsets(synsets); err != nil {
			return nil, err
		}
	}
	images, err := listImages(root)
	if err != nil {
		return nil, err
	}
	d := &files{name: KindImageNetVal, root: root, opt: opt}
	var stems []labelRef
	first, _, _ := bytes.Cut(data, []byte("\n"))
	first = bytes.TrimPrefix(bytes.TrimSpace(first), []byte("\ufeff"))
	// A devkit line is a bare integer; anything CSV-like goes to the CSV
	// parser, whose errors explain the expected header.
	if bytes.HasPrefix(bytes.ToLower(first), []byte("imageid")) || bytes.ContainsRune(first, ',') ||
		strings.EqualFold(filepath.Ext(labels), ".csv") {
		stems, err = d.parseLOC(data, labels, space)
	} else {
		stems, err = d.parseGroundTruth(data, labels, space, synsets)
	}
	if err != nil {
		return nil, err
	}
	// Match labels to files.
	used := make(map[string]bool, len(stems))
	for i, ref := range stems {
		name, ok := images[ref.stem]
		if !ok {
			return nil, fmt.Errorf("dataset: %s:%d: labels image %s, but %s has no %s.* image file", labels, ref.line, ref.stem, root, ref.stem)
		}
		d.items[i].Source = name
		used[ref.stem] = true
	}
	if len(images) != len(used) {
		var extra []string
		for stem, name := range images {
			if !used[stem] {
				extra = append(extra, name)
			}
		}
		slices.Sort(extra)
		return nil, fmt.Errorf("dataset: %s has %d images but %s labels only %d of them; e.g. %s has no label",
			root, len(images), labels, len(used), extra[0])
	}
	return d, nil
}

// labelRef is an image named by a labels file, and the line naming it.
type labelRef struct {
	stem string
	line int
}

// listImages maps the stem (name without extension) of every image file in
// the folder root to its name.
func listImages(root string) (map[string]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		n := e.Name()
		if hidden(n) || !IsImageFile(n) || e.IsDir() {
			continue
		}
		stem := n[:strings.LastIndexByte(n, '.')]
		if prev, dup := m[stem]; dup {
			return nil, fmt.Errorf("dataset: %s holds both %s and %s; keep one file per image", root, prev, n)
		}
		m[stem] = n
	}
	return m, nil
}

// parseGroundTruth reads the devkit list; it fills d.items (without
// Source) and returns the image stems.
func (d *files) parseGroundTruth(data []byte, name string, space *LabelSpace, synsets string) ([]labelRef, error) {
	var sorted []string
	if space != nil {
		if slices.IsSorted(space.names) {
			return nil, fmt.Errorf("dataset: %s is sorted by WordNet ID (like LOC_synset_mapping.txt), but the devkit ground truth %s uses the devkit's meta.mat order; give the synsets in ILSVRC2012_ID order, or use LOC_val_solution.csv with LOC_synset_mapping.txt", synsets, name)
		}
		sorted = space.Names()
		slices.Sort(sorted)
		d.classes = sorted
	}
	var stems []labelRef
	sc := bufio.NewScanner(bytes.NewReader(data))
	line, blank := 0, 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			if blank == 0 {
				blank = line
			}
			continue
		}
		if blank != 0 {
			return nil, fmt.Errorf("dataset: %s:%d: blank line inside the ground-truth list (line k labels image k)", name, blank)
		}
		id, err := strconv.Atoi(t)
		if err != nil || id < 1 || id > 1000 {
			return nil, fmt.Errorf("dataset: %s:%d: %q is not an ILSVRC2012_ID (an integer 1…1000)", name, line, t)
		}
		it := Item{Index: len(d.items), Label: id - 1}
		if space != nil {
			if id > space.Len() {
				return nil, fmt.Errorf("dataset: %s:%d: ILSVRC2012_ID %d but %s lists only %d synsets", name, line, id, synsets, space.Len())
			}
			it.LabelName = space.Name(id - 1)
			it.Label, _ = slices.BinarySearch(sorted, it.LabelName)
		}
		d.items = append(d.items, it)
		stems = append(stems, labelRef{fmt.Sprintf("ILSVRC2012_val_%08d", line), line})
	}
	if len(stems) == 0 {
		return nil, fmt.Errorf("dataset: %s has no labels", name)
	}
	return stems, nil
}

// parseLOC reads a LOC_val_solution.csv-style file; it fills d.items
// (without Source) and returns the image stems.
func (d *files) parseLOC(data []byte, name string, space *LabelSpace) ([]labelRef, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	idCol, predCol := -1, -1
	for i, h := range header {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "imageid":
			idCol = i
		case "predictionstring":
			predCol = i
		}
	}
	if idCol < 0 || predCol < 0 {
		return nil, fmt.Errorf("dataset: %s:1: header %q lacks the ImageId and PredictionString columns", name, strings.Join(header, ","))
	}
	type row struct {
		stem, wnid string
		line       int
	}
	var rows []row
	seen := map[string]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) <= max(idCol, predCol) {
			return nil, fmt.Errorf("dataset: %s:%d: %d fields, want at least %d", name, line, len(rec), max(idCol, predCol)+1)
		}
		stem := strings.TrimSpace(rec[idCol])
		if stem == "" {
			return nil, fmt.Errorf("dataset: %s:%d: empty ImageId", name, line)
		}
		if prev, dup := seen[stem]; dup {
			return nil, fmt.Errorf("dataset: %s:%d: image %s already labelled on line %d", name, line, stem, prev)
		}
		seen[stem] = line
		wnid, _, _ := strings.Cut(strings.TrimSpace(rec[predCol]), " ")
		if !IsWNID(wnid) {
			return nil, fmt.Errorf("dataset: %s:%d: PredictionString %q does not start with a WordNet ID (like n01440764)", name, line, rec[predCol])
		}
		if space != nil {
			if _, ok := space.Index(wnid); !ok {
				return nil, fmt.Errorf("dataset: %s:%d: %s is not in the synsets list", name, line, wnid)
			}
		}
		rows = append(rows, row{stem, wnid, line})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("dataset: %s has no labels", name)
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.stem, b.stem) })
	if space != nil {
		d.classes = space.names
	} else {
		distinct := map[string]bool{}
		for _, r := range rows {
			if !distinct[r.wnid] {
				distinct[r.wnid] = true
				d.classes = append(d.classes, r.wnid)
			}
		}
		slices.Sort(d.classes)
		space, _ = NewLabelSpace(d.classes) // distinct and non-empty
	}
	stems := make([]labelRef, len(rows))
	d.items = make([]Item, len(rows))
	for i, r := range rows {
		l, _ := space.Index(r.wnid)
		d.items[i] = Item{Index: i, Label: l, LabelName: r.wnid}
		stems[i] = labelRef{r.stem, r.line}
	}
	return stems, nil
}
