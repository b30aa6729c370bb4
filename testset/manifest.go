package testset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/iqa"
)

// File names inside an output folder.
const (
	ManifestFile = "manifest.csv"
	FailuresFile = "failures.csv"
	RunFile      = "run.json"
	CoverageFile = "coverage.json"
	// CoverageDir holds one Δv histogram per corruption (SVG and PNG).
	CoverageDir = "coverage"
	StatusFile  = "status.json"
	ImagesDir   = "images"
)

// Columns are the manifest's columns, in order:
//
//	id            row number, 0 … rows−1 over the whole run (all shards)
//	source        the source image as the dataset names it (path relative to its root)
//	label         the ground-truth label: the class name, or the class index when
//	              the dataset has no names; empty when unlabelled
//	corruption    the corruption's catalogue name
//	params        the parameters as a JSON object in the corruption's parameter order
//	seed          the row seed: `vcr corrupt --corruption C --param …(params) --seed SEED`
//	              on the (preprocessed) source reproduces the image
//	vif, dv       VIF and Δv = max(0, 1 − VIF) of the 8-bit corrupted image
//	path          the corrupted image, relative to the output folder
//	label_index   the class index (empty when unlabelled)
//	label_name    the class name (empty when the dataset has none)
//	source_index  the source image's index in the dataset (drawn uniformly)
//	severity      the ImageNet-C severity 1…5 (--imagenet-c), else empty
//	sampling      "uniform", "targeted" or "imagenet-c"
//	vif_method    the VIF flavour (iqa.Method)
//	width, height the image size
//
// After these come the per-flavour Δv columns of the run, one per VIF
// flavour in RunInfo.DVMethods (iqa.DVColumn: dv_vcr_py, dv_vifvec,
// dv_vifvec2_layers, …): Δv of the same image computed with that flavour,
// empty where the flavour's VIF is undefined for the pair (a flat
// reference under vifvec). dv repeats the column of the primary flavour
// vif_method. Manifests written before these columns existed have none.
var Columns = []string{
	"id", "source", "label", "corruption", "params", "seed", "vif", "dv", "path",
	"label_index", "label_name", "source_index", "severity", "sampling", "vif_method", "width", "height",
}

// FailureColumns are the columns of failures.csv: one row per row id that
// has no manifest row (an unreadable source, or an image VIF cannot score).
// Every id of a run is in exactly one of the two files.
var FailureColumns = []string{"id", "source", "corruption", "error"}

// Column positions used when reading manifests back.
var (
	colID         = slices.Index(Columns, "id")
	colCorruption = slices.Index(Columns, "corruption")
	colDV         = slices.Index(Columns, "dv")
	colPath       = slices.Index(Columns, "path")
)

// Row is one manifest row.
type Row struct {
	ID         int
	Item       Item
	Corruption *corrupt.Corruption
	Params     []float64
	Seed       uint64
	VIF, DV    float64
	// DVs holds Δv by each flavour of the run's DVMethods, NaN where it is
	// undefined.
	DVs      map[iqa.Method]float64
	Path     string
	Severity int // 1…5, or 0 when sampled
	Sampling string
	Method   string
	Width    int
	Height   int
}

// ManifestColumns returns the header of a manifest that carries the
// per-flavour Δv columns of dvMethods: Columns followed by
// iqa.DVColumn(m) for each m, in order.
func ManifestColumns(dvMethods []iqa.Method) []string {
	h := slices.Clip(Columns)
	for _, m := range dvMethods {
		h = append(h, iqa.DVColumn(m))
	}
	return h
}

// parseManifestHeader checks a manifest header: Columns, then any number of
// distinct per-flavour Δv columns. It returns the flavours of those columns
// in order.
func parseManifestHeader(path string, h []string) ([]iqa.Method, error) {
	if len(h) < len(Columns) || !slices.Equal(h[:len(Columns)], Columns) {
		return nil, fmt.Errorf("%s has columns %s, want %s (then dv_<flavour> columns); it was not written by vcr generate", path, strings.Join(h, ","), strings.Join(Columns, ","))
	}
	var ms []iqa.Method
	for _, col := range h[len(Columns):] {
		i := slices.IndexFunc(iqa.Methods, func(m iqa.Method) bool { return iqa.DVColumn(m) == col })
		if i < 0 || slices.Contains(ms, iqa.Methods[i]) {
			return nil, fmt.Errorf("%s: column %q after %s is not a per-flavour Δv column (dv_vcr_py, dv_vifvec, …) or is repeated", path, col, Columns[len(Columns)-1])
		}
		ms = append(ms, iqa.Methods[i])
	}
	return ms, nil
}

// record returns the row's fields in the order of ManifestColumns(dvMethods).
func (r *Row) record(dvMethods []iqa.Method) []string {
	label, labelIndex := "", ""
	if r.Item.Label >= 0 {
		labelIndex = strconv.Itoa(r.Item.Label)
		label = labelIndex
		if r.Item.LabelName != "" {
			label = r.Item.LabelName
		}
	}
	sev := ""
	if r.Severity > 0 {
		sev = strconv.Itoa(r.Severity)
	}
	rec := []string{
		strconv.Itoa(r.ID), r.Item.Source, label, r.Corruption.Name, ParamsJSON(r.Corruption, r.Params),
		strconv.FormatUint(r.Seed, 10), formatFloat(r.VIF), formatFloat(r.DV), r.Path,
		labelIndex, r.Item.LabelName, strconv.Itoa(r.Item.Index), sev, r.Sampling, r.Method,
		strconv.Itoa(r.Width), strconv.Itoa(r.Height),
	}
	for _, m := range dvMethods {
		v, ok := r.DVs[m]
		if !ok || math.IsNaN(v) {
			rec = append(rec, "")
			continue
		}
		rec = append(rec, formatFloat(v))
	}
	return rec
}

// Failure is one failures.csv row.
type Failure struct {
	ID         int
	Source     string
	Corruption string
	Err        string
}

func (f *Failure) record() []string {
	return []string{strconv.Itoa(f.ID), f.Source, f.Corruption, f.Err}
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ParamsJSON formats p as a JSON object whose keys are c's parameter names in
// catalogue order, numbers in the shortest form that reads back exactly, e.g.
// {"sigma":0.0731,"alias":0.5}. The order is stable, so equal parameters give
// equal bytes.
func ParamsJSON(c *corrupt.Corruption, p []float64) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, v := range p {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Quote(c.Params[i].Name))
		sb.WriteByte(':')
		sb.WriteString(formatFloat(v))
	}
	sb.WriteByte('}')
	return sb.String()
}

// scanAppendLog reads an append-only CSV written by Generate (manifest.csv or
// failures.csv). It calls visit with the id and byte range of every complete
// record in order, stopping at the first record visit rejects or that cannot
// be parsed (the partial line a killed run leaves). A record is complete when
// it has the header's field count, a numeric id and ends with a newline. It
// returns the offset just after the header, or −1 if the file has no
// complete header (it was cut while being created).
func scanAppendLog(path string, wantHeader []string, visit func(id int, start, end int64) bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return -1, err
	}
	size := st.Size()
	lastNL := false
	if size > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], size-1); err != nil {
			return -1, err
		}
		lastNL = b[0] == '\n'
	}
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	complete := func() bool { return cr.InputOffset() < size || lastNL }
	h, err := cr.Read()
	if err != nil || !complete() {
		return -1, nil
	}
	if !slices.Equal(h, wantHeader) {
		return -1, fmt.Errorf("%s has columns %s, want %s; it was not written by this version of vcr generate", path, strings.Join(h, ","), strings.Join(wantHeader, ","))
	}
	headerEnd := cr.InputOffset()
	for {
		start := cr.InputOffset()
		rec, err := cr.Read()
		if err != nil || len(rec) != len(wantHeader) || !complete() {
			return headerEnd, nil // EOF or a partial tail
		}
		id, err := strconv.Atoi(rec[0])
		if err != nil || !visit(id, start, cr.InputOffset()) {
			return headerEnd, nil
		}
	}
}

// truncateTo cuts the file at path to size bytes and syncs it.
func truncateTo(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return fmt.Errorf("truncate %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readRecords streams the records of the CSV file at path (after checking its
// header) to fn. The record slice is reused between calls.
func readRecords(path string, wantHeader []string, fn func(rec []string) error) error {
	return readCSVFile(path, func(h []string) error {
		if !slices.Equal(h, wantHeader) {
			return fmt.Errorf("%s has columns %s, want %s", path, strings.Join(h, ","), strings.Join(wantHeader, ","))
		}
		return nil
	}, fn)
}

// readManifestRecords streams the records of the manifest at path to fn,
// with the per-flavour Δv columns the header names (parseManifestHeader).
func readManifestRecords(path string, fn func(dvMethods []iqa.Method, rec []string) error) error {
	var ms []iqa.Method
	return readCSVFile(path, func(h []string) (err error) {
		ms, err = parseManifestHeader(path, h)
		return err
	}, func(rec []string) error { return fn(ms, rec) })
}

// readCSVFile streams the records of the CSV file at path to fn after checkHeader
// accepted its header; every record must have the header's field count.
func readCSVFile(path string, checkHeader func(h []string) error, fn func(rec []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.ReuseRecord = true
	h, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%s is empty", path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := checkHeader(h); err != nil {
		return err
	}
	cr.FieldsPerRecord = len(h)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}
