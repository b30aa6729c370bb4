package model

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Prediction is one image's prediction from a predictions file. Top and
// Scores are shared with the Predictions: callers must not modify them.
type Prediction struct {
	// Class is the predicted class: an index into the class list the file
	// was loaded with (or the model's output index when no list was given).
	Class int
	// Confidence is the file's confidence value when HasConfidence is set.
	Confidence    float32
	HasConfidence bool
	// Top lists the top-k classes, best first; nil when the file has none.
	Top []int
	// Scores are the logit_0 … logit_{K−1} values; nil when the file has
	// none.
	Scores []float32
}

// Predictions are the predictions of a file (the third model backend, next
// to ONNX Runtime and the Open Inference Protocol): predictions on the test
// set's corrupted images, keyed by manifest id and/or image path, and
// predictions on the clean source images, keyed by the manifest's source.
// See ParsePredictions for the format. A Predictions is safe for
// concurrent lookups once loaded.
type Predictions struct {
	// Files names the file (or files, after Merge) read.
	Files []string
	// Classes is the class list names were resolved with (may be nil).
	Classes []string
	// NumScores is K, the number of logit_i columns; 0 when there are none.
	NumScores int

	rows             []Prediction
	where            []string // "file:line" per row, for duplicate errors
	byID             map[int]int
	byPath           map[string]int
	clean            map[string]int
	rootAbs, rootRel string
}

// LoadPredictions reads a predictions CSV file; see ParsePredictions.
func LoadPredictions(path string, classes []string) (*Predictions, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: predictions: %w", err)
	}
	defer f.Close()
	return ParsePredictions(bufio.NewReader(f), path, classes)
}

// predictionColumns are the recognised header names (lower case) by role.
var (
	predColumns = []string{"pred", "prediction", "class"}
	confColumns = []string{"confidence", "conf"}
	topColumns  = []string{"top5", "topk", "top_k"}
)

// ParsePredictions reads predictions in CSV with a header row; name names
// the input in errors. Columns (names case-insensitive, any order; other
// columns are ignored):
//
//   - id: the manifest's row id, and/or path: the corrupted image's path as
//     the manifest gives it (relative to the test set folder; absolute paths
//     and paths relative to the current directory work after SetRoot);
//   - source and kind: a row with kind "clean" is a prediction on the clean
//     source image named source (the manifest's source column); kind
//     "corrupted" or empty is an image of the test set. Without a kind
//     column, a row with a source but neither id nor path is clean. So clean
//     predictions come either as extra rows of the same file or as a second
//     file with the columns source,pred (join the two with Merge);
//   - pred (or prediction, class): the predicted class, an index or a name
//     of classes;
//   - confidence (or conf): optional;
//   - top5 (or topk, top_k): optional, classes separated by ";" or spaces,
//     best first;
//   - logit_0 … logit_{K−1}: optional scores (logits or probabilities),
//     all K columns; with classes, K must be len(classes).
//
// Without a pred column the prediction is the first top-k entry or the
// arg-max of the scores. Indices must be in 0…len(classes)−1 when classes
// is given; names need classes. Errors name the input, the line and the
// column; a key given twice (id, path, or clean source) is an error.
func ParsePredictions(r io.Reader, name string, classes []string) (*Predictions, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("model: predictions %s is empty; want a header such as id,pred", name)
	}
	if err != nil {
		return nil, fmt.Errorf("model: predictions %s: %w", name, err)
	}
	header = slices.Clone(header) // the reader reuses its record
	for i := range header {
		header[i] = strings.TrimPrefix(strings.TrimSpace(header[i]), "\ufeff")
	}
	p := &Predictions{Files: []string{name}, Classes: classes, byID: map[int]int{}, byPath: map[string]int{}, clean: map[string]int{}}
	col := map[string]int{}
	logitCol := map[int]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		if k, ok := strings.CutPrefix(h, "logit_"); ok {
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n > 1<<24 {
				return nil, fmt.Errorf("model: predictions %s: line 1, column %d: %q is not logit_<index>", name, i+1, header[i])
			}
			if _, dup := logitCol[n]; dup {
				return nil, fmt.Errorf("model: predictions %s: line 1, column %d: %q appears twice", name, i+1, header[i])
			}
			logitCol[n] = i
			continue
		}
		if _, dup := col[h]; dup && h != "" {
			return nil, fmt.Errorf("model: predictions %s: line 1, column %d: column %q appears twice", name, i+1, h)
		}
		col[h] = i
	}
	find := func(names []string) (int, string) {
		found, which := -1, ""
		for _, n := range names {
			if i, ok := col[n]; ok {
				if found >= 0 {
					return -2, which + " and " + n
				}
				found, which = i, n
			}
		}
		return found, which
	}
	predCol, predName := find(predColumns)
	confCol, confName := find(confColumns)
	topCol, topName := find(topColumns)
	for _, c := range []struct {
		i    int
		name string
	}{{predCol, predName}, {confCol, confName}, {topCol, topName}} {
		if c.i == -2 {
			return nil, fmt.Errorf("model: predictions %s: line 1: columns %s mean the same; keep one", name, c.name)
		}
	}
	idCol, pathCol, srcCol, kindCol := colOr(col, "id"), colOr(col, "path"), colOr(col, "source"), colOr(col, "kind")
	if len(logitCol) > 0 {
		p.NumScores = len(logitCol)
		for k := range p.NumScores {
			if _, ok := logitCol[k]; !ok {
				return nil, fmt.Errorf("model: predictions %s: line 1: %d logit_ columns but logit_%d is missing; give logit_0 … logit_%d", name, p.NumScores, k, p.NumScores-1)
			}
		}
		if classes != nil && p.NumScores != len(classes) {
			return nil, classesError{fmt.Errorf("model: predictions %s: line 1: %d logit_ columns, but %d classes to score (%s)", name, p.NumScores, len(classes), listClasses(classes))}
		}
	}
	if predCol < 0 && topCol < 0 && p.NumScores == 0 {
		return nil, fmt.Errorf("model: predictions %s: line 1: no prediction column; want one named pred, prediction or class (or top5, or logit_0 …)", name)
	}
	if idCol < 0 && pathCol < 0 && srcCol < 0 {
		return nil, fmt.Errorf("model: predictions %s: line 1: no key column; want id or path (corrupted images) or source (clean images)", name)
	}
	index := map[string]int{}
	for i, c := range classes {
		index[c] = i
	}
	// class resolves a class given as an index or a name.
	class := func(s string) (int, error) {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); err == nil {
			if n < 0 || (classes != nil && n >= len(classes)) {
				if classes == nil {
					return 0, fmt.Errorf("class index %d is negative", n)
				}
				return 0, classesError{fmt.Errorf("class index %d is outside 0…%d", n, len(classes)-1)}
			}
			return n, nil
		}
		if s == "" {
			return 0, errors.New("empty class")
		}
		if classes == nil {
			return 0, classesError{fmt.Errorf("class name %q, but no class list was given to resolve names; use class indices", s)}
		}
		if n, ok := index[s]; ok {
			return n, nil
		}
		return 0, classesError{fmt.Errorf("unknown class %q", s)}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("model: predictions %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		fail := func(c int, format string, args ...any) error {
			return fmt.Errorf("model: predictions %s: line %d, column %d (%s): %s", name, line, c+1, header[c], fmt.Sprintf(format, args...))
		}
		if len(rec) != len(header) {
			if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
				continue // blank line
			}
			return nil, fmt.Errorf("model: predictions %s: line %d: %d fields, but the header has %d", name, line, len(rec), len(header))
		}
		field := func(c int) string {
			if c < 0 {
				return ""
			}
			return strings.TrimSpace(rec[c])
		}
		var pr Prediction
		if p.NumScores > 0 {
			pr.Scores = make([]float32, p.NumScores)
			for k := range pr.Scores {
				c := logitCol[k]
				v, err := strconv.ParseFloat(field(c), 32)
				if err != nil {
					return nil, fail(c, "%q is not a number", rec[c])
				}
				pr.Scores[k] = float32(v)
			}
		}
		if s := field(topCol); s != "" {
			for t := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ';' || r == ' ' || r == '|' }) {
				c, err := class(t)
				if err != nil {
					return nil, markClasses(err, fail(topCol, "%v", err))
				}
				pr.Top = append(pr.Top, c)
			}
		}
		switch s := field(predCol); {
		case s != "":
			c, err := class(s)
			if err != nil {
				return nil, markClasses(err, fail(predCol, "%v", err))
			}
			pr.Class = c
		case len(pr.Top) > 0:
			pr.Class = pr.Top[0]
		case pr.Scores != nil:
			pr.Class = argmax(pr.Scores)
		default:
			c := predCol
			if c < 0 {
				c = topCol
			}
			if c < 0 {
				return nil, fmt.Errorf("model: predictions %s: line %d: no prediction", name, line)
			}
			return nil, fail(c, "no prediction")
		}
		if s := field(confCol); s != "" {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil || math.IsNaN(v) {
				return nil, fail(confCol, "confidence %q is not a number", s)
			}
			pr.Confidence, pr.HasConfidence = float32(v), true
		}
		id, pth, src := field(idCol), field(pathCol), field(srcCol)
		clean := id == "" && pth == "" && src != ""
		if kindCol >= 0 {
			switch k := strings.ToLower(field(kindCol)); k {
			case "clean":
				clean = true
			case "", "corrupted":
				clean = false
			default:
				return nil, fail(kindCol, "kind %q is neither clean nor corrupted", field(kindCol))
			}
		}
		at := len(p.rows)
		where := fmt.Sprintf("%s:%d", name, line)
		if clean {
			if src == "" {
				c := srcCol
				if c < 0 {
					c = kindCol
				}
				return nil, fail(c, "a clean row needs a source")
			}
			key := normSource(src)
			if prev, dup := p.clean[key]; dup {
				return nil, fail(srcCol, "clean source %q already given at %s", src, p.where[prev])
			}
			p.clean[key] = at
		} else {
			if id == "" && pth == "" {
				return nil, fmt.Errorf("model: predictions %s: line %d: neither id nor path given", name, line)
			}
			if id != "" {
				n, err := strconv.Atoi(id)
				if err != nil || n < 0 {
					return nil, fail(idCol, "id %q is not a non-negative integer", id)
				}
				if prev, dup := p.byID[n]; dup {
					return nil, fail(idCol, "id %d already given at %s", n, p.where[prev])
				}
				p.byID[n] = at
			}
			if pth != "" {
				key := normPath(pth)
				if prev, dup := p.byPath[key]; dup {
					return nil, fail(pathCol, "path %q already given at %s", pth, p.where[prev])
				}
				p.byPath[key] = at
			}
		}
		p.rows = append(p.rows, pr)
		p.where = append(p.where, where)
	}
	return p, nil
}

func colOr(col map[string]int, name string) int {
	if i, ok := col[name]; ok {
		return i
	}
	return -1
}

// normPath normalises an image path: slashes, no "." or ".." elements.
func normPath(s string) string {
	s = strings.ReplaceAll(s, `\`, "/")
	return path.Clean(s)
}

// normSource normalises a source as the manifest writes it (slash-separated).
func normSource(s string) string { return normPath(s) }

// SetRoot names the test set folder, so that LookupPath also finds rows
// whose path is absolute or relative to the current directory (e.g.
// "out/images/x.png" for the manifest's "images/x.png" in folder "out").
func (p *Predictions) SetRoot(root string) {
	p.rootRel = normPath(filepath.ToSlash(root))
	if abs, err := filepath.Abs(root); err == nil {
		p.rootAbs = normPath(filepath.ToSlash(abs))
	}
}

// Len returns the number of predictions on corrupted images.
func (p *Predictions) Len() int { return len(p.rows) - len(p.clean) }

// CleanLen returns the number of predictions on clean source images.
func (p *Predictions) CleanLen() int { return len(p.clean) }

// Lookup returns the prediction for manifest row id.
func (p *Predictions) Lookup(id int) (Prediction, bool) {
	i, ok := p.byID[id]
	if !ok {
		return Prediction{}, false
	}
	return p.rows[i], true
}

// LookupPath returns the prediction for the corrupted image at rel, the
// path as the manifest gives it (relative to the test set folder).
func (p *Predictions) LookupPath(rel string) (Prediction, bool) {
	key := normPath(rel)
	if i, ok := p.byPath[key]; ok {
		return p.rows[i], true
	}
	for _, root := range []string{p.rootRel, p.rootAbs} {
		if root == "" || path.IsAbs(key) {
			continue
		}
		if i, ok := p.byPath[path.Join(root, key)]; ok {
			return p.rows[i], true
		}
	}
	return Prediction{}, false
}

// Clean returns the prediction for the clean source image source (the
// manifest's source column).
func (p *Predictions) Clean(source string) (Prediction, bool) {
	i, ok := p.clean[normSource(source)]
	if !ok {
		return Prediction{}, false
	}
	return p.rows[i], true
}

// Merge adds q's predictions to p, typically a second file holding the
// clean predictions. A key present in both, or a different number of
// scores, is an error naming both places.
func (p *Predictions) Merge(q *Predictions) error {
	if p.NumScores != q.NumScores && p.NumScores != 0 && q.NumScores != 0 {
		return fmt.Errorf("model: predictions %s has %d logit columns but %s has %d", strings.Join(p.Files, ", "), p.NumScores, strings.Join(q.Files, ", "), q.NumScores)
	}
	for id, j := range q.byID {
		if i, dup := p.byID[id]; dup {
			return fmt.Errorf("model: predictions: id %d is given at %s and at %s", id, p.where[i], q.where[j])
		}
	}
	for k, j := range q.byPath {
		if i, dup := p.byPath[k]; dup {
			return fmt.Errorf("model: predictions: path %q is given at %s and at %s", k, p.where[i], q.where[j])
		}
	}
	for k, j := range q.clean {
		if i, dup := p.clean[k]; dup {
			return fmt.Errorf("model: predictions: clean source %q is given at %s and at %s", k, p.where[i], q.where[j])
		}
	}
	off := len(p.rows)
	for id, j := range q.byID {
		p.byID[id] = off + j
	}
	for k, j := range q.byPath {
		p.byPath[k] = off + j
	}
	for k, j := range q.clean {
		p.clean[k] = off + j
	}
	p.rows = append(p.rows, q.rows...)
	p.where = append(p.where, q.where...)
	p.Files = append(p.Files, q.Files...)
	p.NumScores = max(p.NumScores, q.NumScores)
	return nil
}

// argmax returns the index of the largest score (the first on ties; NaNs
// never win) or 0 when there is none.
func argmax(s []float32) int {
	best, bi := float32(math.Inf(-1)), 0
	for i, v := range s {
		if v > best {
			best, bi = v, i
		}
	}
	return bi
}

// listClasses names up to five classes, then how many more there are.
func listClasses(classes []string) string {
	if len(classes) <= 5 {
		return strings.Join(classes, ", ")
	}
	return fmt.Sprintf("%s, … %d more", strings.Join(classes[:5], ", "), len(classes)-5)
}

// ErrClasses is matched (errors.Is) by the errors of a predictions file
// whose classes do not fit the class list it was read with: a class name
// or index outside it, or another number of logit_ columns. The caller,
// which knows where the list came from, can say how to give another.
var ErrClasses = errors.New("predictions do not fit the class list")

// classesError is an error that matches ErrClasses.
type classesError struct{ error }

func (e classesError) Is(target error) bool { return target == ErrClasses }
func (e classesError) Unwrap() error        { return e.error }

// markClasses returns out as a classesError when cause is one.
func markClasses(cause, out error) error {
	if errors.Is(cause, ErrClasses) {
		return classesError{out}
	}
	return out
}
