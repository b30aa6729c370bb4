package testset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/vcr-bench/vcr/internal/localpath"
	"github.com/vcr-bench/vcr/iqa"
)

// Record is one manifest row as read back by ReadManifest: the columns
// other programs (vcr eval) need, parsed.
type Record struct {
	ID         int
	Source     string // the source image as the dataset names it
	Label      string // the label column (class name, or index when unnamed)
	Corruption string
	Params     string // the params column, a JSON object
	DV         float64
	// DVs holds Δv by each per-flavour column of the manifest (dv_vcr_py,
	// dv_vifvec, …; see Columns), keyed by flavour; a flavour whose cell is
	// empty (VIF undefined for the pair) is absent. Nil for manifests
	// without such columns. ManifestDVMethods gives the columns' order.
	DVs        map[iqa.Method]float64
	Path       string // the corrupted image, relative to the output folder
	LabelIndex int    // −1 when unlabelled
	LabelName  string
	// SourceIndex is the source image's index in the dataset.
	SourceIndex int
	Severity    int // 1…5, or 0 when sampled
	// Sampling is how the row's parameters were drawn: "uniform",
	// "targeted" or "imagenet-c" (the sampling column).
	Sampling string
	Method   string
	Width    int
	Height   int
}

// Column positions of the fields Record carries.
var (
	colSource      = slices.Index(Columns, "source")
	colLabel       = slices.Index(Columns, "label")
	colParams      = slices.Index(Columns, "params")
	colLabelIndex  = slices.Index(Columns, "label_index")
	colLabelName   = slices.Index(Columns, "label_name")
	colSourceIndex = slices.Index(Columns, "source_index")
	colSeverity    = slices.Index(Columns, "severity")
	colSampling    = slices.Index(Columns, "sampling")
	colMethod      = slices.Index(Columns, "vif_method")
	colWidth       = slices.Index(Columns, "width")
	colHeight      = slices.Index(Columns, "height")
)

// ReadManifest streams the rows of the manifest at path (a test set's
// manifest.csv) to fn in file order. It returns an error naming the file
// and row for a header other than Columns (followed by per-flavour Δv
// columns), a malformed field or a path column that does not name a file
// inside the test-set folder (LocalPath), and stops at the first error fn
// returns.
func ReadManifest(path string, fn func(r *Record) error) error {
	line := 1
	return readManifestRecords(path, func(ms []iqa.Method, rec []string) error {
		line++
		r, err := parseRecord(rec)
		if err == nil && len(ms) > 0 {
			r.DVs = make(map[iqa.Method]float64, len(ms))
			for i, m := range ms {
				cell := rec[len(Columns)+i]
				if cell == "" {
					continue
				}
				v, e := strconv.ParseFloat(cell, 64)
				if e != nil || !(v >= 0 && v <= 1) {
					err = fmt.Errorf("column %s: %q is not a number in [0, 1]", iqa.DVColumn(m), cell)
					break
				}
				r.DVs[m] = v
			}
		}
		if err != nil {
			return fmt.Errorf("%s row %d: %w", path, line, err)
		}
		return fn(r)
	})
}

// ManifestDVMethods returns the flavours of the per-flavour Δv columns of
// the manifest at path, in column order (none for manifests written before
// these columns existed).
func ManifestDVMethods(path string) ([]iqa.Method, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := csv.NewReader(bufio.NewReader(f)).Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return parseManifestHeader(path, h)
}

func parseRecord(rec []string) (*Record, error) {
	r := &Record{
		Source: rec[colSource], Label: rec[colLabel], Corruption: rec[colCorruption],
		Params: rec[colParams], Path: rec[colPath], LabelName: rec[colLabelName], Method: rec[colMethod],
		Sampling:   rec[colSampling],
		LabelIndex: -1,
	}
	var err error
	atoi := func(col int, dst *int, optional bool) {
		if err != nil || (optional && rec[col] == "") {
			return
		}
		v, e := strconv.Atoi(rec[col])
		if e != nil {
			err = fmt.Errorf("column %s: %q is not an integer", Columns[col], rec[col])
			return
		}
		*dst = v
	}
	atoi(colID, &r.ID, false)
	atoi(colLabelIndex, &r.LabelIndex, true)
	atoi(colSourceIndex, &r.SourceIndex, false)
	atoi(colSeverity, &r.Severity, true)
	atoi(colWidth, &r.Width, false)
	atoi(colHeight, &r.Height, false)
	if err != nil {
		return nil, err
	}
	if r.DV, err = strconv.ParseFloat(rec[colDV], 64); err != nil {
		return nil, fmt.Errorf("column dv: %q is not a number", rec[colDV])
	}
	if err := localpath.Check(r.Path); err != nil {
		return nil, fmt.Errorf("column path: %w (it must name an image inside the test-set folder)", err)
	}
	return r, nil
}

// ReadRunInfo reads run.json from the test-set folder dir.
func ReadRunInfo(dir string) (*RunInfo, error) {
	return readRunInfo(filepath.Join(dir, RunFile))
}

// ReadStatus reads status.json from the test-set folder dir. A run that
// has not finished has none: ReadStatus then returns a Status with Complete
// false and a nil error.
func ReadStatus(dir string) (*Status, error) {
	var st Status
	if err := readJSON(filepath.Join(dir, StatusFile), &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Status{}, nil
		}
		return nil, err
	}
	return &st, nil
}
