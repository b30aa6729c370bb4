// Package results reads the per-image results tables that 'vcr eval'
// writes (results.csv) and turns them into the vcr package's input: one
// robustness.Series per (model, corruption).
//
// A results table has a header row and one row per corrupted image. The
// columns it needs (any order, extra columns ignored):
//
//	id                 the row id (for messages)
//	corruption         the corruption's catalogue name
//	dv                 Δv of the corrupted image, in [0, 1]
//	vif_method         the VIF flavour Δv was computed with
//	pred_clean         the prediction on the clean image
//	pred_corrupted     the prediction on the corrupted image
//	correct_clean      1 or 0; empty when the label is outside the task
//	correct_corrupted  1 or 0; empty when the label is outside the task
//	consistent         1 if pred_corrupted = pred_clean, else 0
//
// and optionally severity (the ImageNet-C severity 1…5 of rows made by
// 'vcr generate --imagenet-c', empty otherwise: Table.Severities), source (the clean source image; the clean accuracy is
// averaged over distinct sources), error (rows with an error have no
// predictions and are skipped), model (the model's name, for tables that
// hold several models) and per-flavour Δv columns dv_<flavour>
// (iqa.DVColumn: dv_vcr_py, dv_vifvec, dv_vifvec2_layers), which let the
// rows be analysed on another flavour's Δv axis (Options.DVMethod).
//
// Beside a results file, 'vcr eval' writes its settings as FILE.json
// (results.csv.json); Read takes the task from its "task" object when the
// file exists.
package results

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/robustness"
)

// Required are the columns a results table must have.
var Required = []string{
	"id", "corruption", "dv", "vif_method", "pred_clean", "pred_corrupted",
	"correct_clean", "correct_corrupted", "consistent",
}

// Errors, wrapped with the file (and row) they concern.
var (
	// ErrEmpty: a table without data rows.
	ErrEmpty = errors.New("results: no rows")
	// ErrColumns: required columns are missing.
	ErrColumns = errors.New("results: missing columns")
	// ErrValue: a cell that cannot be parsed, or a Δv outside [0, 1].
	ErrValue = errors.New("results: bad value")
	// ErrVIFMixed: rows whose Δv come from different VIF flavours.
	ErrVIFMixed = errors.New("results: mixed VIF flavours")
	// ErrNoDVColumn: Options.DVMethod names a flavour that a file neither
	// holds in its dv column nor in a dv_<flavour> column.
	ErrNoDVColumn = errors.New("results: no Δv of the requested VIF flavour")
	// ErrDuplicate: two rows of one file with the same id (and model), as
	// two evaluations appending to one output leave; analysing them would
	// count those images twice.
	ErrDuplicate = errors.New("results: duplicate id")
)

// Options tune Read.
type Options struct {
	// DVMethod, when not empty, is the VIF flavour whose Δv the series
	// get: the dv column on rows whose vif_method is DVMethod, else the
	// column iqa.DVColumn(DVMethod) (e.g. dv_vifvec). Rows may then differ
	// in vif_method. Empty: the dv column, and all rows must share one
	// vif_method.
	DVMethod string
}

// Task is the task a results file was evaluated on, as 'vcr eval' records
// it in FILE.json: {"task": {"name": "car", "classes": ["car", "not car"]}}.
type Task struct {
	Name    string   `json:"name"`
	Classes []string `json:"classes,omitempty"`
}

// Table is what Read found in one or more results files.
type Table struct {
	// Series are one per (model, corruption), sorted by model, then
	// corruption. Each holds the rows with a label in the task (correct_*
	// not empty) as trials, CleanAccuracy = mean of correct_clean over the
	// distinct sources (over rows without a source column), CleanN = that
	// number of sources, and CleanConsistency = 1 (a deterministic model
	// predicts the same class on the same image).
	Series []robustness.Series
	// VIFMethod is the VIF flavour of the series' Δv: Options.DVMethod
	// when set, else the one vif_method of all rows.
	VIFMethod string
	// RecordedVIFMethod is the vif_method of the first row read (the
	// flavour of its dv column).
	RecordedVIFMethod string
	// DVMethods lists the flavours, in iqa.Methods order, whose
	// dv_<flavour> column every file has.
	DVMethods []string
	// Tasks maps each model to the task its results file records (models
	// of files without a settings file or task are absent).
	Tasks map[string]Task
	// Severities counts, per model, corruption and ImageNet-C severity, the
	// labelled rows whose severity cell is not empty, sorted by model,
	// corruption and severity; nil when no row has a severity.
	// SeverityClean holds per model the clean outcomes of those rows: the
	// distinct sources and how many of them have correct_clean = 1 (rows,
	// for a file without a source column).
	Severities    []SeverityCount
	SeverityClean map[string]CleanCount
	// Rows counts the data rows read; Skipped the rows with an error;
	// Unlabelled the rows whose label is outside the task.
	Rows, Skipped, Unlabelled int
	// Warnings are caveats that are not failures (skipped rows).
	Warnings []error
}

// SeverityCount counts a model's labelled rows of one corruption at one
// ImageNet-C severity: N rows, Correct of them with correct_corrupted = 1.
type SeverityCount struct {
	Model, Corruption string
	Severity          int // 1…5
	N, Correct        int
}

// CleanCount counts clean outcomes: N images, Correct of them classified
// correctly.
type CleanCount struct{ N, Correct int }

// MaxSeverity is the largest ImageNet-C severity a severity cell may hold.
const MaxSeverity = 5

// sevKey is a (model, corruption, severity) triple.
type sevKey struct {
	model, corruption string
	severity          int
}

// sevAcc accumulates the severity rows.
type sevAcc struct {
	counts  map[sevKey]*SeverityCount
	sources map[string]map[string]bool // model → source → correct_clean (first seen)
	clean   map[string]*CleanCount     // model → rows without a source column
}

// File is one results file to read.
type File struct {
	Path string
	// Model names the model for rows without a model column. Empty: the
	// file's base name without extension, or the folder's name when the
	// file is called results.csv (as 'vcr eval --out DIR' writes it).
	Model string
}

// DefaultModel returns the model name Read uses for path when File.Model
// is empty.
func DefaultModel(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if base == "results" {
		if d := filepath.Base(filepath.Dir(filepath.Clean(path))); d != "." && d != string(filepath.Separator) {
			return d
		}
	}
	return base
}

// key is a (model, corruption) pair.
type key struct{ model, corruption string }

// acc accumulates one series.
type acc struct {
	trials  []robustness.Trial
	sources map[string]bool // source → correct_clean (first seen)
	cleanK  int             // rows' correct_clean sum when there is no source column
	cleanN  int
	file    string // the file that first had a row of the series
}

// Read reads the results files with the default Options.
func Read(files []File) (*Table, error) { return ReadOptions(files, Options{}) }

// ReadOptions reads the results files and groups their rows into series.
// It returns errors wrapping ErrEmpty (a file without rows), ErrColumns
// (naming the missing columns), ErrValue (naming the file, line and
// column), ErrVIFMixed (naming both flavours and where each was first
// seen), ErrNoDVColumn (naming the columns the file has) and ErrDuplicate
// (naming both lines of an id that occurs twice in one file, per model when
// the file has a model column); each names the file. A cell holding a NUL
// byte is an ErrValue.
func ReadOptions(files []File, opt Options) (*Table, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("results: no files to read")
	}
	t := &Table{VIFMethod: opt.DVMethod}
	series := map[key]*acc{}
	sev := &sevAcc{counts: map[sevKey]*SeverityCount{}, sources: map[string]map[string]bool{}, clean: map[string]*CleanCount{}}
	var vifWhere string
	var dvSets [][]string
	for _, f := range files {
		have, err := readFile(f, opt, t, series, sev, &vifWhere)
		if err != nil {
			return nil, err
		}
		dvSets = append(dvSets, have)
	}
	for _, m := range iqa.Methods {
		all := true
		for _, h := range dvSets {
			all = all && slices.Contains(h, string(m))
		}
		if all {
			t.DVMethods = append(t.DVMethods, string(m))
		}
	}
	keys := make([]key, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.corruption, b.corruption))
	})
	for _, k := range keys {
		a := series[k]
		s := robustness.Series{Subject: k.model, Corruption: k.corruption, VIFMethod: t.VIFMethod,
			Trials: a.trials, CleanConsistency: 1}
		if a.sources != nil {
			for _, c := range a.sources {
				if c {
					a.cleanK++
				}
			}
			a.cleanN = len(a.sources)
		}
		if a.cleanN > 0 {
			s.CleanAccuracy = float64(a.cleanK) / float64(a.cleanN)
			s.CleanN = a.cleanN
		}
		t.Series = append(t.Series, s)
	}
	t.Severities, t.SeverityClean = sev.table()
	if t.Skipped > 0 {
		t.Warnings = append(t.Warnings, fmt.Errorf("%d rows with an error (unreadable images) were skipped", t.Skipped))
	}
	if t.Unlabelled > 0 {
		t.Warnings = append(t.Warnings, fmt.Errorf("%d rows whose label is outside the task (empty correct_*) were left out", t.Unlabelled))
	}
	if len(t.Series) == 0 {
		return nil, fmt.Errorf("%s: %w: no row has a label in the model's task (correct_corrupted is empty in every row): the dataset's labels are not classes of the task the results were evaluated on; rerun vcr eval with a --task that maps the model's outputs and the labels to one set of classes (imagenet16, car, a mapping file; vcr eval --help)", filePaths(files), ErrEmpty)
	}
	return t, nil
}

// ReadTask returns the task recorded in the settings file path+".json"
// that 'vcr eval' writes beside a results file, and false when there is
// no such file or it records no task. A settings file that is not JSON is
// an error.
func ReadTask(path string) (Task, bool, error) {
	data, err := os.ReadFile(path + ".json")
	if errors.Is(err, os.ErrNotExist) {
		return Task{}, false, nil
	}
	if err != nil {
		return Task{}, false, err
	}
	var v struct {
		Task *Task `json:"task"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return Task{}, false, fmt.Errorf("%s.json: %w", path, err)
	}
	if v.Task == nil || v.Task.Name == "" {
		return Task{}, false, nil
	}
	return *v.Task, true, nil
}

// readFile reads one file into t and series and returns the flavours
// whose dv_<flavour> column it has.
func readFile(f File, opt Options, t *Table, series map[key]*acc, sev *sevAcc, vifWhere *string) ([]string, error) {
	have, err := readRows(f, opt, t, series, sev, vifWhere)
	if err != nil {
		return nil, err
	}
	task, ok, err := ReadTask(f.Path)
	if err != nil {
		return nil, err
	}
	if ok {
		if t.Tasks == nil {
			t.Tasks = map[string]Task{}
		}
		for k := range series {
			if _, done := t.Tasks[k.model]; !done && series[k].file == f.Path {
				t.Tasks[k.model] = task
			}
		}
	}
	return have, nil
}

func readRows(f File, opt Options, t *Table, series map[key]*acc, sev *sevAcc, vifWhere *string) ([]string, error) {
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	model := f.Model
	if model == "" {
		model = DefaultModel(f.Path)
	}
	cr := csv.NewReader(bufio.NewReaderSize(fh, 1<<16))
	cr.ReuseRecord = true
	head, err := cr.Read()
	head = slices.Clone(head) // ReuseRecord: later reads overwrite it
	if err == io.EOF {
		return nil, fmt.Errorf("%s: %w (the file is empty)", f.Path, ErrEmpty)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	var missing []string
	for _, c := range Required {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: %w: %s (has %s); is it a results.csv written by 'vcr eval'?",
			f.Path, ErrColumns, strings.Join(missing, ", "), strings.Join(head, ","))
	}
	optional := func(name string) int {
		if i, ok := col[name]; ok {
			return i
		}
		return -1
	}
	var have []string
	for _, m := range iqa.Methods {
		if _, ok := col[iqa.DVColumn(m)]; ok {
			have = append(have, string(m))
		}
	}
	iAlt := -1 // the column of opt.DVMethod's Δv, when it is not the dv column
	if opt.DVMethod != "" {
		iAlt = optional(iqa.DVColumn(iqa.Method(opt.DVMethod)))
	}
	iCorr, iDV, iVIF := col["corruption"], col["dv"], col["vif_method"]
	iCC, iCK, iCons := col["correct_clean"], col["correct_corrupted"], col["consistent"]
	iSrc, iErr, iModel, iSev := optional("source"), optional("error"), optional("model"), optional("severity")
	iID := col["id"]
	idLine := map[string]int{} // id (model NUL id with a model column) → its line
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		line, _ := cr.FieldPos(0)
		rows++
		t.Rows++
		at := func(c string) error {
			return fmt.Errorf("%s line %d (id %s): %w: %s = %q", f.Path, line, rec[col["id"]], ErrValue, c, rec[col[c]])
		}
		for i, v := range rec {
			if strings.IndexByte(v, 0) >= 0 {
				return nil, fmt.Errorf("%s line %d: %w: column %s holds a NUL byte; the file is damaged or not a results CSV", f.Path, line, ErrValue, head[min(i, len(head)-1)])
			}
		}
		idKey := rec[iID]
		if iModel >= 0 {
			idKey = rec[iModel] + "\x00" + idKey
		}
		if first, dup := idLine[idKey]; dup {
			return nil, fmt.Errorf("%s lines %d and %d: %w %s; were two evaluations writing it at once? Evaluate again with vcr eval --force", f.Path, first, line, ErrDuplicate, rec[iID])
		}
		idLine[strings.Clone(idKey)] = line
		if iErr >= 0 && rec[iErr] != "" {
			t.Skipped++
			continue
		}
		vif := rec[iVIF]
		if t.RecordedVIFMethod == "" {
			t.RecordedVIFMethod = strings.Clone(vif)
		}
		iRowDV, dvName := iDV, "dv"
		if opt.DVMethod != "" && vif != opt.DVMethod {
			if iAlt < 0 {
				return nil, fmt.Errorf("%w: %s line %d has Δv by %q and the file has no column %s (it has %s)",
					ErrNoDVColumn, f.Path, line, vif, iqa.DVColumn(iqa.Method(opt.DVMethod)), dvColumnsText(have))
			}
			iRowDV, dvName = iAlt, head[iAlt]
		}
		dv, err := strconv.ParseFloat(strings.TrimSpace(rec[iRowDV]), 64)
		if err != nil || math.IsNaN(dv) || dv < 0 || dv > 1 {
			return nil, fmt.Errorf("%s line %d (id %s): %w: %s = %q (Δv must be a number in [0, 1])", f.Path, line, rec[col["id"]], ErrValue, dvName, rec[iRowDV])
		}
		switch {
		case opt.DVMethod != "":
		case t.VIFMethod == "":
			t.VIFMethod = strings.Clone(vif)
			*vifWhere = fmt.Sprintf("%s line %d", f.Path, line)
		case vif != t.VIFMethod:
			return nil, fmt.Errorf("%w: %s line %d has Δv by %q, but %s has %q; analyse results of one VIF flavour together (re-run 'vcr generate' with the same --vif-method)",
				ErrVIFMixed, f.Path, line, vif, *vifWhere, t.VIFMethod)
		}
		cons, ok := bit(rec[iCons])
		if !ok {
			return nil, at("consistent")
		}
		severity := 0
		if iSev >= 0 && strings.TrimSpace(rec[iSev]) != "" {
			v, err := strconv.Atoi(strings.TrimSpace(rec[iSev]))
			if err != nil || v < 1 || v > MaxSeverity {
				return nil, fmt.Errorf("%s line %d (id %s): %w: severity = %q (an ImageNet-C severity is 1…%d, or empty for sampled rows)", f.Path, line, rec[iID], ErrValue, rec[iSev], MaxSeverity)
			}
			severity = v
		}
		cc, okc := bit(rec[iCC])
		ck, okk := bit(rec[iCK])
		if rec[iCC] == "" && rec[iCK] == "" {
			t.Unlabelled++
			continue
		}
		if !okc {
			return nil, at("correct_clean")
		}
		if !okk {
			return nil, at("correct_corrupted")
		}
		m := model
		if iModel >= 0 && rec[iModel] != "" {
			m = rec[iModel]
		}
		k := key{m, rec[iCorr]}
		a := series[k]
		if a == nil {
			k = key{strings.Clone(k.model), strings.Clone(k.corruption)}
			a = &acc{file: f.Path}
			if iSrc >= 0 {
				a.sources = map[string]bool{}
			}
			series[k] = a
		}
		a.trials = append(a.trials, robustness.Trial{DV: dv, Correct: ck, Consistent: cons})
		if severity > 0 {
			sev.add(k.model, k.corruption, severity, ck, cc, iSrc >= 0, rec, iSrc)
		}
		if a.sources != nil {
			if _, seen := a.sources[rec[iSrc]]; !seen {
				a.sources[strings.Clone(rec[iSrc])] = cc
			}
		} else {
			a.cleanN++
			if cc {
				a.cleanK++
			}
		}
	}
	if rows == 0 {
		return nil, fmt.Errorf("%s: %w (only a header)", f.Path, ErrEmpty)
	}
	return have, nil
}

// dvColumnsText lists the dv_<flavour> columns of a file for messages.
func dvColumnsText(have []string) string {
	if len(have) == 0 {
		return "no dv_<flavour> column"
	}
	c := make([]string, len(have))
	for i, m := range have {
		c[i] = iqa.DVColumn(iqa.Method(m))
	}
	return strings.Join(c, ", ")
}

// bit parses "1"/"0" (also "true"/"false").
func bit(s string) (v, ok bool) {
	switch strings.TrimSpace(s) {
	case "1", "true", "True", "TRUE":
		return true, true
	case "0", "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

// add counts one labelled row with a severity.
func (s *sevAcc) add(model, corruption string, severity int, correct, cleanCorrect, hasSource bool, rec []string, iSrc int) {
	k := sevKey{model, corruption, severity}
	c := s.counts[k]
	if c == nil {
		k = sevKey{strings.Clone(model), strings.Clone(corruption), severity}
		c = &SeverityCount{Model: k.model, Corruption: k.corruption, Severity: severity}
		s.counts[k] = c
	}
	c.N++
	if correct {
		c.Correct++
	}
	if hasSource {
		m := s.sources[model]
		if m == nil {
			m = map[string]bool{}
			s.sources[strings.Clone(model)] = m
		}
		if _, seen := m[rec[iSrc]]; !seen {
			m[strings.Clone(rec[iSrc])] = cleanCorrect
		}
		return
	}
	cl := s.clean[model]
	if cl == nil {
		cl = &CleanCount{}
		s.clean[strings.Clone(model)] = cl
	}
	cl.N++
	if cleanCorrect {
		cl.Correct++
	}
}

// table returns the sorted counts and the clean counts per model (nil, nil
// without severity rows).
func (s *sevAcc) table() ([]SeverityCount, map[string]CleanCount) {
	if len(s.counts) == 0 {
		return nil, nil
	}
	out := make([]SeverityCount, 0, len(s.counts))
	for _, c := range s.counts {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b SeverityCount) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Corruption, b.Corruption), cmp.Compare(a.Severity, b.Severity))
	})
	clean := map[string]CleanCount{}
	for m, cl := range s.clean {
		clean[m] = *cl
	}
	for m, src := range s.sources {
		c := clean[m]
		for _, ok := range src {
			c.N++
			if ok {
				c.Correct++
			}
		}
		clean[m] = c
	}
	return out, clean
}

// filePaths joins the paths of files for messages.
func filePaths(files []File) string {
	p := make([]string, len(files))
	for i, f := range files {
		p[i] = f.Path
	}
	return strings.Join(p, ", ")
}
