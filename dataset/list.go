package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// OpenList opens a list CSV: a header row naming a "path" column and
// optionally a "label" column (case-insensitive; other columns are
// ignored), then one row per image. Relative paths are relative to the
// CSV's folder (the dataset root) and are kept, slash-separated, as
// Item.Source; absolute paths are kept as they are. Elements are in row
// order. Files are not checked at open; Load reports a missing file.
//
// Labels: an empty cell (or no label column) is unlabelled (−1). Without a
// class list, labels that are all integers (≥ −1) are class indices, with
// empty LabelName and no Classes; if any label is not an integer, all labels
// are class names, numbered in sorted order of the distinct names
// (Classes). With a class list (synsets, read with ReadSynsets), a name
// must be in the list and an integer must be a valid index into it; Classes
// is the list.
//
// Errors name the CSV file and line.
func OpenList(csvPath, synsets string, opt imageio.Options) (Dataset, error) {
	f, err := os.Open(csvPath)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	var space *LabelSpace
	if synsets != "" {
		if space, err = ReadSynsets(synsets); err != nil {
			return nil, err
		}
	}
	rows, err := ParseList(f, csvPath, space)
	if err != nil {
		return nil, err
	}
	d := &files{name: KindList, root: filepath.Dir(csvPath), opt: opt, items: rows.Items, classes: rows.Classes}
	return d, nil
}

// List is a parsed list CSV.
type List struct {
	Items   []Item   // one per row, Source as written (slash-separated)
	Classes []string // label names by index; nil for integer labels without a class list
}

// ParseList parses a list CSV from r (see OpenList); name names the input
// in errors and space, if not nil, is the class list.
func ParseList(r io.Reader, name string, space *LabelSpace) (*List, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("dataset: %s is empty; it needs a header row with a path column", name)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	pathCol, labelCol := -1, -1
	for i, h := range header {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "path":
			if pathCol >= 0 {
				return nil, fmt.Errorf("dataset: %s:1: two path columns", name)
			}
			pathCol = i
		case "label":
			if labelCol >= 0 {
				return nil, fmt.Errorf("dataset: %s:1: two label columns", name)
			}
			labelCol = i
		}
	}
	if pathCol < 0 {
		return nil, fmt.Errorf("dataset: %s:1: header %q has no \"path\" column; the first row must name the columns, e.g. path,label", name, strings.Join(header, ","))
	}
	var (
		l       List
		labels  []string // raw label cells
		lines   []int
		numeric = true
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of spaces
		}
		if pathCol >= len(rec) {
			return nil, fmt.Errorf("dataset: %s:%d: %d fields, but the path is column %d", name, line, len(rec), pathCol+1)
		}
		p := strings.TrimSpace(rec[pathCol])
		if p == "" {
			return nil, fmt.Errorf("dataset: %s:%d: empty path", name, line)
		}
		if !filepath.IsAbs(p) {
			p = path.Clean(filepath.ToSlash(p))
		}
		lab := ""
		if labelCol >= 0 && labelCol < len(rec) {
			lab = strings.TrimSpace(rec[labelCol])
		}
		if lab != "" {
			if _, err := strconv.Atoi(lab); err != nil {
				numeric = false
			}
		}
		l.Items = append(l.Items, Item{Index: len(l.Items), Source: p, Label: -1})
		labels = append(labels, lab)
		lines = append(lines, line)
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("dataset: %s lists no images", name)
	}
	switch {
	case space != nil:
		l.Classes = space.names
	case !numeric:
		seen := map[string]bool{}
		for _, lab := range labels {
			if lab != "" && !seen[lab] {
				seen[lab] = true
				l.Classes = append(l.Classes, lab)
			}
		}
		slices.Sort(l.Classes)
		space, _ = NewLabelSpace(l.Classes) // distinct and non-empty
	}
	for i, lab := range labels {
		it := &l.Items[i]
		if lab == "" {
			continue
		}
		if space != nil {
			if k, ok := space.Index(lab); ok {
				it.Label, it.LabelName = k, lab
				continue
			}
		}
		k, err := strconv.Atoi(lab)
		switch {
		case err != nil:
			return nil, fmt.Errorf("dataset: %s:%d: label %q is not in the class list", name, lines[i], lab)
		case k == -1:
		case k < 0 || (space != nil && k >= space.Len()):
			limit := "≥ 0"
			if space != nil {
				limit = fmt.Sprintf("0…%d (the class list has %d classes)", space.Len()-1, space.Len())
			}
			return nil, fmt.Errorf("dataset: %s:%d: label %d out of range; use %s, or -1 or an empty cell for unlabelled", name, lines[i], k, limit)
		default:
			it.Label = k
			if space != nil {
				it.LabelName = space.Name(k)
			}
		}
	}
	return &l, nil
}
