package contrast

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Row is one results row of 'vcr eval' as Analyse needs it.
type Row struct {
	// Image is the key of the row's clean image: its source, or its id when
	// the table has no source column.
	Image string
	// ID is the row id.
	ID string
	// Model is the row's model column (empty without one).
	Model      string
	Corruption string
	// Severity is the ImageNet-C severity (0: none recorded).
	Severity int
	// DV is Δv (NaN when empty).
	DV                             float64
	CorrectClean, CorrectCorrupted bool
}

// ReadResults reads a results table of 'vcr eval' (docs/eval.md): the
// columns id, corruption, correct_clean and correct_corrupted are
// required; source, severity, dv, error and model (tables holding several
// models) are used when present. Rows
// with an error or with empty correct_* (label outside the task) are
// skipped and counted in skipped. Errors name the file and line.
func ReadResults(r io.Reader, name string) (rows []Row, skipped int, err error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: no header: %v", name, err)
	}
	col, err := columns(head, name, "id", "corruption", "correct_clean", "correct_corrupted")
	if err != nil {
		return nil, 0, err
	}
	opt := func(c string) int {
		for i, h := range head {
			if strings.EqualFold(strings.TrimSpace(h), c) {
				return i
			}
		}
		return -1
	}
	src, sev, dv, errc, mod := opt("source"), opt("severity"), opt("dv"), opt("error"), opt("model")
	for n := 2; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %v", name, err)
		}
		if field(rec, errc) != "" {
			skipped++
			continue
		}
		cc, cx := field(rec, col[2]), field(rec, col[3])
		if cc == "" || cx == "" {
			skipped++
			continue
		}
		row := Row{ID: field(rec, col[0]), Corruption: field(rec, col[1]), DV: nan, Model: field(rec, mod)}
		row.Image = row.ID
		if s := field(rec, src); s != "" {
			row.Image = s
		}
		if row.CorrectClean, err = parseBit(cc); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: correct_clean: %v", name, n, err)
		}
		if row.CorrectCorrupted, err = parseBit(cx); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: correct_corrupted: %v", name, n, err)
		}
		if s := field(rec, sev); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 {
				return nil, 0, fmt.Errorf("%s:%d: severity %q is not a positive integer", name, n, s)
			}
			row.Severity = v
		}
		if s := field(rec, dv); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v >= 0 && v <= 1) {
				return nil, 0, fmt.Errorf("%s:%d: dv %q is not a number in [0, 1]", name, n, s)
			}
			row.DV = v
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, skipped, fmt.Errorf("%s: no usable rows (%d skipped for errors or labels outside the task)", name, skipped)
	}
	return rows, skipped, nil
}

func parseBit(s string) (bool, error) {
	switch s {
	case "1":
		return true, nil
	case "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not 1 or 0", s)
}
