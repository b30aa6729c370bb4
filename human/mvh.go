package human

import (
	"bytes"
	"embed"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// MVHColumns are the columns of model-vs-human's raw-data CSVs (Geirhos et
// al., NeurIPS 2018 and 2021; github.com/bethgelab/model-vs-human,
// raw-data/<dataset>/<dataset>_<subject>_session_<n>.csv), all required;
// ReadMVH also accepts "session", as some of those files spell it.
var MVHColumns = []string{"subj", "Session", "trial", "rt", "object_response", "category", "condition", "imagename"}

// MVHTrial is one row of a model-vs-human raw-data CSV: one 16-class
// judgement by one subject.
type MVHTrial struct {
	Subject   string
	Session   string
	Trial     int
	RT        float64 // response time, seconds
	Response  string  // object_response
	Category  string  // the right answer
	Condition string  // e.g. "c30" (contrast 30%)
	ImageName string
}

// Correct reports whether the response is the category, as model-vs-human
// scores a 16-class trial.
func (t *MVHTrial) Correct() bool { return t.Response == t.Category }

// ShortImageName returns the image id model-vs-human matches trials of
// different observers by (get_short_imagename in
// modelvshuman/helper/plotting_helper.py): the last two "_"-separated
// parts of name when the first of them starts with "n0" (an ImageNet
// synset, as in 0001_cop_s01_c30_knife_10_n03041632_7380.png →
// n03041632_7380.png), else the last part.
func ShortImageName(name string) string {
	p := strings.Split(name, "_")
	if len(p) >= 2 && strings.HasPrefix(p[len(p)-2], "n0") {
		return p[len(p)-2] + "_" + p[len(p)-1]
	}
	return p[len(p)-1]
}

// ReadMVH reads a model-vs-human raw-data CSV. Columns are found by name
// (MVHColumns, all required; extra columns ignored). Errors wrap ErrFormat
// and name the file and line.
func ReadMVH(r io.Reader, name string) ([]MVHTrial, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	for i, h := range head { // some datasets (sketch, stylized, …) spell it "session"
		if strings.TrimSpace(h) == "session" {
			head[i] = "Session"
		}
	}
	col, err := header(head, MVHColumns...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []MVHTrial
	rows := newRows(cr, name, len(head))
	for rows.next() {
		rec, line := rows.rec, rows.line
		get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		t := MVHTrial{Subject: get("subj"), Session: get("Session"), Response: get("object_response"),
			Category: get("category"), Condition: get("condition"), ImageName: get("imagename")}
		if t.Trial, err = strconv.Atoi(get("trial")); err != nil {
			return nil, fmt.Errorf("%w: %s line %d: trial %q is not an integer", ErrFormat, name, line, get("trial"))
		}
		if t.RT, err = strconv.ParseFloat(get("rt"), 64); err != nil {
			return nil, fmt.Errorf("%w: %s line %d: rt %q is not a number", ErrFormat, name, line, get("rt"))
		}
		if t.Subject == "" || t.Category == "" || t.Condition == "" || t.ImageName == "" {
			return nil, fmt.Errorf("%w: %s line %d: subj, category, condition and imagename must not be empty", ErrFormat, name, line)
		}
		out = append(out, t)
	}
	if rows.err != nil {
		return nil, rows.err
	}
	return out, nil
}

//go:embed data/model-vs-human
var mvhFS embed.FS

// MVHPrefix starts the names of the embedded model-vs-human datasets:
// mvh-contrast, mvh-cue-conflict, …
const MVHPrefix = "mvh-"

// MVHBuiltinNames lists the embedded model-vs-human datasets
// (data/model-vs-human/ORIGIN.md), sorted.
func MVHBuiltinNames() []string {
	ents, _ := fs.ReadDir(mvhFS, "data/model-vs-human/raw-data")
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, MVHPrefix+e.Name())
		}
	}
	return out
}

// OpenMVH reads model-vs-human raw data named by spec: builtin:mvh-NAME
// or a bare mvh-NAME (unless a file or folder of that name exists) is an
// embedded dataset (MVHBuiltinNames); a folder is every *.csv in it (by
// name); a file is read as it is. The trials are in file order, files
// sorted by name. An unknown name returns an error wrapping ErrNotFound.
func OpenMVH(spec string) ([]MVHTrial, error) {
	name, builtin := strings.CutPrefix(spec, "builtin:")
	var fsys fs.FS
	var files []string
	label := func(f string) string { return filepath.Join(spec, f) }
	fi, statErr := os.Stat(spec)
	switch {
	case builtin || (statErr != nil && strings.HasPrefix(spec, MVHPrefix)):
		ds, _ := strings.CutPrefix(name, MVHPrefix)
		if !slices.Contains(MVHBuiltinNames(), name) {
			return nil, fmt.Errorf("%w: %q is no model-vs-human dataset; the built-in ones are builtin:%s", ErrNotFound, spec, strings.Join(MVHBuiltinNames(), ", builtin:"))
		}
		fsys, _ = fs.Sub(mvhFS, "data/model-vs-human/raw-data/"+ds)
		files, _ = fs.Glob(fsys, "*.csv")
		label = func(f string) string { return "builtin:" + name + "/" + f }
	case statErr != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrNotFound, spec, statErr)
	case fi.IsDir():
		fsys = os.DirFS(spec)
		files, _ = fs.Glob(fsys, "*.csv")
		if len(files) == 0 {
			return nil, fmt.Errorf("%w: the folder %s holds no .csv file", ErrNotFound, spec)
		}
	default:
		fsys, files = os.DirFS(filepath.Dir(spec)), []string{filepath.Base(spec)}
		label = func(string) string { return spec }
	}
	slices.Sort(files)
	var out []MVHTrial
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		t, err := ReadMVH(bytes.NewReader(data), label(f))
		if err != nil {
			return nil, err
		}
		out = append(out, t...)
	}
	return out, nil
}
