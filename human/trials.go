package human

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Columns of the project's trial CSV, in the order WriteHeader writes them
// (docs/human-data.md). Readers find columns by name; extra columns are
// ignored; the required ones are marked in Record.
var Columns = []string{
	"participant", "session", "trial", "image_id", "source", "corruption", "params",
	"dv", "vif_method", "ground_truth", "response", "rt_ms", "is_original", "timestamp", "task",
}

// Record is one row of the project's trial CSV: one human judgement.
type Record struct {
	Participant string  // required: pseudonymous participant id
	Session     string  // session id
	Trial       int     // index of the trial within the session
	ImageID     string  // required: source image identifier (pairs originals with corrupted versions)
	Source      string  // dataset of the source image, e.g. "imagenet16"
	Corruption  string  // required for corrupted trials: catalogue name; for originals the group shown with (may be empty)
	Params      string  // corruption parameters, e.g. "sigma=0.3;seed=17"
	DV          float64 // required: Δv ∈ [0, 1] (0 for originals)
	VIFMethod   string  // required for corrupted trials: VIF flavour of DV
	GroundTruth string  // required: the correct category
	Response    string  // required: the participant's answer
	RTms        float64 // response time in milliseconds (NaN if unknown)
	IsOriginal  bool    // required: the stimulus is an uncorrupted original
	Timestamp   string  // RFC 3339 time of the response
	Task        string  // the task's name, e.g. "car" or "imagenet16" (may be empty)
}

// WriteHeader writes the CSV header line.
func WriteHeader(w *csv.Writer) error { return w.Write(Columns) }

// Write writes r as one CSV row in Columns order.
func (r *Record) Write(w *csv.Writer) error {
	rt := ""
	if !math.IsNaN(r.RTms) {
		rt = strconv.FormatFloat(r.RTms, 'f', -1, 64)
	}
	orig := "0"
	if r.IsOriginal {
		orig = "1"
	}
	return w.Write([]string{r.Participant, r.Session, strconv.Itoa(r.Trial), r.ImageID, r.Source, r.Corruption, r.Params,
		strconv.FormatFloat(r.DV, 'g', -1, 64), r.VIFMethod, r.GroundTruth, r.Response, rt, orig, r.Timestamp, r.Task})
}

// ReadRecords reads the project's trial CSV. It returns an error naming the
// line for a missing required column or value, a row with more or fewer
// fields than the header, a NUL byte, a Δv outside [0, 1], or an
// is_original or excluded other than 0/1/true/false. It reads the export of
// vcr experiment directly: source_id is accepted for image_id (when there
// is no image_id column), rows with excluded 1 are skipped, and so are rows
// whose role column is set to anything but "main".
func ReadRecords(r io.Reader, name string) ([]Record, error) {
	return readRecords(r, name, &skipped{})
}

// skipped counts the rows ReadRecords leaves out, to explain an empty result.
type skipped struct {
	excluded int // excluded 1
	notMain  int // practice, qualification and sanity trials
}

// readRecords is ReadRecords, counting the rows it skips in sk.
func readRecords(r io.Reader, name string, sk *skipped) ([]Record, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	col, err := header(rec, "participant", "corruption", "dv", "vif_method", "ground_truth", "response", "is_original")
	if err == nil {
		if _, ok := col["image_id"]; !ok {
			if i, ok := col["source_id"]; ok {
				col["image_id"] = i // the experiment export's name for it
			} else {
				_, err = header(rec, "image_id")
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []Record
	nCols := len(rec)
	rows := newRows(cr, name, nCols)
	for rows.next() {
		rec, line := rows.rec, rows.line
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		bad := func(what string) error {
			return fmt.Errorf("%w: %s line %d: %s", ErrFormat, name, line, what)
		}
		switch strings.ToLower(get("excluded")) {
		case "1", "true":
			sk.excluded++
			continue
		case "", "0", "false":
		default:
			return nil, bad(fmt.Sprintf("excluded %q must be 0 or 1", get("excluded")))
		}
		if r := get("role"); r != "" && r != "main" {
			sk.notMain++
			continue // practice, qualification and sanity trials
		}
		var x Record
		x.Participant, x.Session, x.ImageID, x.Source = get("participant"), get("session"), get("image_id"), get("source")
		x.Corruption, x.Params, x.VIFMethod = get("corruption"), get("params"), get("vif_method")
		x.GroundTruth, x.Response, x.Timestamp, x.Task = get("ground_truth"), get("response"), get("timestamp"), get("task")
		if t := get("trial"); t != "" {
			if x.Trial, err = strconv.Atoi(t); err != nil {
				return nil, bad(fmt.Sprintf("trial %q is not an integer", t))
			}
		}
		switch strings.ToLower(get("is_original")) {
		case "1", "true":
			x.IsOriginal = true
		case "0", "false":
		default:
			return nil, bad(fmt.Sprintf("is_original %q must be 0 or 1", get("is_original")))
		}
		if x.DV, err = strconv.ParseFloat(get("dv"), 64); err != nil || !(x.DV >= 0 && x.DV <= 1) {
			return nil, bad(fmt.Sprintf("dv %q must be a number in [0, 1]", get("dv")))
		}
		x.RTms = math.NaN()
		if t := get("rt_ms"); t != "" {
			if x.RTms, err = strconv.ParseFloat(t, 64); err != nil {
				return nil, bad(fmt.Sprintf("rt_ms %q is not a number", t))
			}
		}
		if x.Participant == "" || x.ImageID == "" || x.GroundTruth == "" || x.Response == "" {
			return nil, bad("participant, image_id, ground_truth and response must not be empty")
		}
		if !x.IsOriginal && (x.Corruption == "" || x.VIFMethod == "") {
			return nil, bad("a corrupted trial needs corruption and vif_method")
		}
		out = append(out, x)
	}
	if rows.err != nil {
		return nil, rows.err
	}
	return out, nil
}

// ReadTrials reads the project's trial CSV into a Dataset: one series per
// corruption, paired with the originals as ReadICSETrials does (the
// reference answer for consistency is the majority answer to the same
// source/image_id original by other participants). It returns an error if
// a corruption's trials carry more than one vif_method. The optional task
// column names the Dataset's Task; rows of different tasks are an error.
func ReadTrials(r io.Reader, name string) (*Dataset, error) {
	var sk skipped
	recs, err := readRecords(r, name, &sk)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(recs, func(x Record) bool { return !x.IsOriginal }) && sk.excluded > 0 {
		// pair's plain "no judgements" would hide that the file has them.
		return nil, fmt.Errorf("%w: %s has no included judgements of corrupted images: %d rows are excluded (its excluded and exclusion_reason columns say why, e.g. a participant screened out by the qualification trials) and %d are practice, qualification or sanity trials; collect more participants, or check the study's qualification settings",
			ErrFormat, name, sk.excluded, sk.notMain)
	}
	vifOf := map[string]string{}
	js := make([]judgement, 0, len(recs))
	task, taskRow := "", 0
	for i, x := range recs {
		if x.Task != "" {
			if task != "" && x.Task != task {
				return nil, fmt.Errorf("%w: %s row %d has task %q but row %d has %q; one file holds one task", ErrFormat, name, i+2, x.Task, taskRow, task)
			}
			task, taskRow = x.Task, i+2
		}
		if !x.IsOriginal {
			if v, ok := vifOf[x.Corruption]; ok && v != x.VIFMethod {
				return nil, fmt.Errorf("%w: %s row %d: corruption %s mixes vif_method %q and %q", ErrFormat, name, i+2, x.Corruption, v, x.VIFMethod)
			}
			vifOf[x.Corruption] = x.VIFMethod
		}
		js = append(js, judgement{corruption: x.Corruption, id: x.Source + "/" + x.ImageID, truth: x.GroundTruth,
			answer: x.Response, dv: x.DV, original: x.IsOriginal})
	}
	common := ""
	for _, v := range vifOf {
		common = v
		break
	}
	d, err := pair(js, name, common, vifOf)
	if err != nil {
		return nil, err
	}
	d.Task = task
	return d, nil
}

// checkRow returns an ErrFormat error naming the file and line when rec
// does not have the header's want fields (a cut or merged line; the csv
// reader's own check is off where this is called) or holds a NUL byte (a
// damaged or binary file).
// rowReader reads the data rows of a CSV whose header has been read,
// checking each with checkRow; Read errors name the file.
type rowReader struct {
	cr   *csv.Reader
	name string
	n    int // the header's number of fields

	rec  []string // the current row
	line int      // its line number
	err  error    // why next stopped early; nil at the end of the file
}

func newRows(cr *csv.Reader, name string, n int) *rowReader {
	return &rowReader{cr: cr, name: name, n: n}
}

// next reads the next row into rec and line; it returns false at the end
// of the file or on an error (then err is set).
func (r *rowReader) next() bool {
	rec, err := r.cr.Read()
	if err == io.EOF {
		return false
	}
	if err != nil {
		r.err = fmt.Errorf("%s: %w", r.name, err)
		return false
	}
	line, _ := r.cr.FieldPos(0)
	if err := checkRow(r.name, line, rec, r.n); err != nil {
		r.err = err
		return false
	}
	r.rec, r.line = rec, line
	return true
}

func checkRow(name string, line int, rec []string, want int) error {
	if len(rec) != want {
		return fmt.Errorf("%w: %s line %d: %d fields, but the header has %d; was the line cut or two lines merged?", ErrFormat, name, line, len(rec), want)
	}
	for _, v := range rec {
		if strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("%w: %s line %d: a NUL byte; the file is damaged or not a CSV", ErrFormat, name, line)
		}
	}
	return nil
}
