package evaluate

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/testset"
)

// Columns are the results table's columns, in order:
//
//	id                 the manifest row id
//	source             the clean source image (manifest source)
//	corruption         the corruption's catalogue name
//	severity           ImageNet-C severity 1…5, empty when sampled
//	params             the corruption parameters (JSON object)
//	dv                 Δv of the corrupted image
//	vif_method         the VIF flavour Δv was computed with
//	dv_<flavour>…      Δv with each further flavour the manifest holds
//	                   (its dv_* columns, copied in manifest order; absent
//	                   when the manifest has none)
//	label              the manifest's ground-truth label
//	target             the ground truth in the task's classes (e.g. "car"
//	                   under the car / not-car mapping); empty when the label
//	                   is outside the task
//	pred_clean         the class predicted for the clean source image
//	pred_corrupted     the class predicted for the corrupted image
//	correct_clean      1 if pred_clean = target, else 0; empty without target
//	correct_corrupted  1 if pred_corrupted = target, else 0; empty without target
//	consistent         1 if pred_corrupted = pred_clean, else 0
//	conf_clean         the confidence of pred_clean (empty when unknown)
//	conf_corrupted     the confidence of pred_corrupted (empty when unknown)
//	error              why the row has no predictions (an unreadable image);
//	                   empty otherwise
//
// Predictions are class names when the task's classes have names, else
// class indexes.
//
// Columns lists the columns every results table has; the dv_* columns are
// inserted after vif_method.
var Columns = []string{
	"id", "source", "corruption", "severity", "params", "dv", "vif_method", "label", "target",
	"pred_clean", "pred_corrupted", "correct_clean", "correct_corrupted", "consistent",
	"conf_clean", "conf_corrupted", "error",
}

var (
	colID        = slices.Index(Columns, "id")
	colSource    = slices.Index(Columns, "source")
	colPredClean = slices.Index(Columns, "pred_clean")
	colCorrCor   = slices.Index(Columns, "correct_corrupted")
	colCorrClean = slices.Index(Columns, "correct_clean")
	colConsist   = slices.Index(Columns, "consistent")
	colConfClean = slices.Index(Columns, "conf_clean")
	colError     = slices.Index(Columns, "error")
	colMethod    = slices.Index(Columns, "vif_method")
)

// Flush policy: rows are appended and synced every flushRows rows or every
// flushEvery, whichever comes first.
const (
	flushRows  = 512
	flushEvery = time.Second
)

// resultsWriter appends rows to Out.partial.
type resultsWriter struct {
	cfg       *Config
	rows      []*testset.Record
	truth     []int      // per row: the target class, −1 outside the task
	header    []string   // Columns with the dv_* columns inserted
	dv        [][]string // per row: the values of the dv_* columns
	f         *os.File
	buf       bytes.Buffer
	cw        *csv.Writer
	rec       []string
	next      int // index of the next row to write
	lastSync  time.Time
	unsynced  int
	classIdx  map[string]int
	cleanSeen map[string]Prediction // clean predictions of rows written (resume)

	errors, excluded, correct, correctClean, consistent int
	resumed                                             int
}

// className formats class c.
func (w *resultsWriter) className(c int) string {
	if c < 0 {
		return ""
	}
	if c < len(w.cfg.Classes) {
		return w.cfg.Classes[c]
	}
	return strconv.Itoa(c)
}

// parseClass is the inverse of className.
func (w *resultsWriter) parseClass(s string) (int, bool) {
	if len(w.cfg.Classes) > 0 {
		i, ok := w.classIdx[s]
		return i, ok
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// write appends the row for r; errMsg non-empty records a row without
// predictions.
func (w *resultsWriter) write(row int, clean, cor Prediction, errMsg string) error {
	r := w.rows[row]
	rec := w.rec[:0]
	sev := ""
	if r.Severity > 0 {
		sev = strconv.Itoa(r.Severity)
	}
	target := w.truth[row]
	ok := target >= 0
	tname := ""
	if ok {
		tname = w.className(target)
	} else {
		w.excluded++
	}
	rec = append(rec, strconv.Itoa(r.ID), r.Source, r.Corruption, sev, r.Params,
		strconv.FormatFloat(r.DV, 'g', -1, 64), r.Method)
	if w.dv != nil {
		rec = append(rec, w.dv[row]...)
	}
	rec = append(rec, r.Label, tname)
	if errMsg != "" {
		w.errors++
		rec = append(rec, "", "", "", "", "", "", "", errMsg)
	} else {
		cc, cr := "", ""
		if ok {
			cc, cr = bit(clean.Class == target), bit(cor.Class == target)
			if cor.Class == target {
				w.correct++
			}
			if clean.Class == target {
				w.correctClean++
			}
		}
		if clean.Class == cor.Class {
			w.consistent++
		}
		rec = append(rec, w.className(clean.Class), w.className(cor.Class), cc, cr,
			bit(clean.Class == cor.Class), formatConf(clean.Conf), formatConf(cor.Conf), "")
	}
	w.rec = rec
	w.cw.Write(rec)
	w.next++
	w.unsynced++
	if w.unsynced >= flushRows || time.Since(w.lastSync) >= flushEvery {
		return w.sync()
	}
	return nil
}

// sync writes the buffered rows and syncs the file.
func (w *resultsWriter) sync() error {
	w.cw.Flush()
	w.unsynced, w.lastSync = 0, time.Now()
	if w.buf.Len() == 0 {
		return nil
	}
	if _, err := w.f.Write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", w.f.Name(), err)
	}
	w.buf.Reset()
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.f.Name(), err)
	}
	return nil
}

func (w *resultsWriter) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// finish renames the complete partial file to out.
func (w *resultsWriter) finish(out string) error {
	name := w.f.Name()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	w.f = nil
	if err := os.Rename(name, out); err != nil {
		return err
	}
	return syncDir(out)
}

func (w *resultsWriter) tally(s *Summary) {
	s.Resumed = w.resumed
	s.Errors, s.Excluded, s.Correct, s.CorrectClean, s.Consistent = w.errors, w.excluded, w.correct, w.correctClean, w.consistent
}

// openResults prepares Out.partial for writing rows from the first one not
// yet written. With Resume and a complete Out it sets sum.WasComplete.
func openResults(cfg *Config, rows []*testset.Record, truth []int, dvNames []string, dv [][]string, sum *Summary) (*resultsWriter, error) {
	w := &resultsWriter{cfg: cfg, rows: rows, truth: truth, header: resultsHeader(dvNames), dv: dv, classIdx: map[string]int{}, cleanSeen: map[string]Prediction{}, lastSync: time.Now()}
	for i, c := range cfg.Classes {
		if _, dup := w.classIdx[c]; !dup {
			w.classIdx[c] = i
		}
	}
	w.cw = csv.NewWriter(&w.buf)
	if err := os.MkdirAll(filepath.Dir(cfg.Out), 0o755); err != nil {
		return nil, err
	}
	partial := Partial(cfg.Out)
	_, errOut := os.Stat(cfg.Out)
	_, errPart := os.Stat(partial)
	outExists, partExists := errOut == nil, errPart == nil
	switch {
	case cfg.Force:
		for _, p := range []string{cfg.Out, partial} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		partExists = false
	case cfg.Resume && outExists && !partExists:
		n, err := w.scan(cfg.Out, rows)
		if err != nil {
			return nil, err
		}
		if n.rows != len(rows) || n.cut != n.size {
			return nil, fmt.Errorf("%s has %d rows, not the %d rows of %s; pass --force to evaluate again", cfg.Out, n.rows, len(rows), testset.ManifestFile)
		}
		sum.WasComplete = true
		w.tally(sum)
		sum.Resumed = n.rows
		return w, nil
	case outExists && !cfg.Resume:
		return nil, fmt.Errorf("%s: %w", cfg.Out, ErrExists)
	case partExists && !cfg.Resume:
		return nil, fmt.Errorf("%s: %w", partial, ErrExists)
	}
	if partExists {
		n, err := w.scan(partial, rows)
		if err != nil {
			return nil, err
		}
		if n.header < 0 {
			partExists = false
		} else {
			if err := truncate(partial, n.cut); err != nil {
				return nil, err
			}
			w.next, w.resumed = n.rows, n.rows
			if n.rows > 0 && cfg.Warn != nil {
				cfg.Warn(fmt.Sprintf("resuming %s after %d of %d rows", partial, n.rows, len(rows)))
			}
		}
	}
	if outExists && partExists {
		// A finished file and an unfinished one: the unfinished one is newer.
		if err := os.Remove(cfg.Out); err != nil {
			return nil, err
		}
	}
	if !partExists {
		var hb bytes.Buffer
		cw := csv.NewWriter(&hb)
		cw.Write(w.header)
		cw.Flush()
		if err := os.WriteFile(partial, hb.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(partial, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	w.f = f
	return w, nil
}

type scanResult struct {
	header    int64 // offset after the header, −1 without a complete header
	cut, size int64 // the end of the last complete matching row; the file size
	rows      int
}

// scan reads the complete rows of a results file that match rows in order,
// remembering their clean predictions and counts.
func (w *resultsWriter) scan(path string, rows []*testset.Record) (scanResult, error) {
	res := scanResult{header: -1}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return res, err
	}
	res.size = st.Size()
	lastNL := false
	if res.size > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], res.size-1); err != nil {
			return res, err
		}
		lastNL = b[0] == '\n'
	}
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	complete := func() bool { return cr.InputOffset() < res.size || lastNL }
	h, err := cr.Read()
	if err != nil || !complete() {
		return res, nil
	}
	if !slices.Equal(h, w.header) {
		return res, fmt.Errorf("%s has columns %s, want %s; it was not written by this version of vcr eval for this test set (pass --force to replace it)", path, strings.Join(h, ","), strings.Join(w.header, ","))
	}
	col := func(c int) int {
		if c > colMethod {
			return c + len(w.header) - len(Columns)
		}
		return c
	}
	res.header = cr.InputOffset()
	res.cut = res.header
	for res.rows < len(rows) {
		rec, err := cr.Read()
		if err != nil || len(rec) != len(w.header) || !complete() {
			break
		}
		r := rows[res.rows]
		if rec[colID] != strconv.Itoa(r.ID) || rec[colSource] != r.Source {
			return res, fmt.Errorf("%s row %d is id %s (%s), but the manifest's row is id %d (%s); it belongs to another test set (pass --force to replace it)", path, res.rows+2, rec[colID], rec[colSource], r.ID, r.Source)
		}
		if rec[col(colError)] != "" {
			w.errors++
		} else {
			if c, ok := w.parseClass(rec[col(colPredClean)]); ok {
				conf := float32(math.NaN())
				if v, err := strconv.ParseFloat(rec[col(colConfClean)], 32); err == nil {
					conf = float32(v)
				}
				w.cleanSeen[r.Source] = Prediction{Class: c, Conf: conf}
			}
			if rec[col(colCorrCor)] == "1" {
				w.correct++
			}
			if rec[col(colCorrClean)] == "1" {
				w.correctClean++
			}
			if rec[col(colConsist)] == "1" {
				w.consistent++
			}
		}
		if w.truth[res.rows] < 0 {
			w.excluded++
		}
		res.rows++
		res.cut = cr.InputOffset()
	}
	if _, err := cr.Read(); err != io.EOF && res.rows == len(rows) {
		res.size = -1 // rows beyond the manifest: not complete
	}
	return res, nil
}

// truncate cuts the file at path to size bytes and syncs it.
func truncate(path string, size int64) error {
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

// syncDir syncs the folder holding path, so a rename survives a crash.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return nil // best effort: some systems cannot open folders
	}
	defer d.Close()
	d.Sync()
	return nil
}
