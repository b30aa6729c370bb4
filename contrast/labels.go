package contrast

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Label is the colour label of one image.
type Label struct {
	ID                     string
	Background, Foreground string
	// Group is the contrast group of the pair under the table used.
	Group string
}

// Labels are the colour labels of a set of images.
type Labels struct {
	ByID map[string]Label
	// Estimated is true when the file came from Estimate (it has a true
	// "estimate" column): its colours are guesses, not judgements.
	Estimated bool
	// Name is where the labels came from (for messages).
	Name string
}

// ReadLabels reads a labels CSV: a header naming the columns id,
// background and foreground (any order, case-insensitive; extra columns
// ignored), and one row per image. Colours are palette names (Colours;
// "grey" is accepted for "gray"). A column "estimate" whose cells are 1 or
// true marks the labels as estimated. Each pair is mapped to its group by
// t (nil: the built-in table). Errors name the file and line: an unknown
// colour (listing the allowed names), a pair t does not list, a repeated
// or empty id, or no rows.
func ReadLabels(r io.Reader, name string, t *Table) (*Labels, error) {
	if t == nil {
		t = BuiltinTable()
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: no header: %v", name, err)
	}
	col, err := columns(head, name, "id", "background", "foreground")
	if err != nil {
		return nil, err
	}
	est := slices.IndexFunc(head, func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), "estimate") })
	l := &Labels{ByID: map[string]Label{}, Name: name}
	line := map[string]int{}
	for n := 2; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		id := field(rec, col[0])
		if id == "" {
			return nil, fmt.Errorf("%s:%d: empty id", name, n)
		}
		if p, ok := line[id]; ok {
			return nil, fmt.Errorf("%s:%d: id %q already labelled on line %d", name, n, id, p)
		}
		bg, err := NormColour(field(rec, col[1]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: background: %w", name, n, err)
		}
		fg, err := NormColour(field(rec, col[2]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: foreground: %w", name, n, err)
		}
		g, ok := t.Group(bg, fg)
		if !ok {
			return nil, fmt.Errorf("%s:%d: the group table has no group for the pair %s–%s; add it to --groups", name, n, bg, fg)
		}
		if est >= 0 {
			if v := strings.ToLower(field(rec, est)); v == "1" || v == "true" {
				l.Estimated = true
			}
		}
		line[id] = n
		l.ByID[id] = Label{ID: id, Background: bg, Foreground: fg, Group: g}
	}
	if len(l.ByID) == 0 {
		return nil, fmt.Errorf("%s: no labelled images", name)
	}
	return l, nil
}

// WriteLabels writes labels as a labels CSV that ReadLabels reads back:
// id, background, foreground, group, and estimate = 1 when estimated (with
// the dominant shares of the estimate when given), sorted by id.
func WriteLabels(w io.Writer, labels []Estimated) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "background", "foreground", "group", "estimate", "background_share", "foreground_share"})
	s := slices.Clone(labels)
	slices.SortFunc(s, func(a, b Estimated) int { return strings.Compare(a.ID, b.ID) })
	for _, e := range s {
		cw.Write([]string{e.ID, e.Background, e.Foreground, e.Group, "1",
			fmt.Sprintf("%.3f", e.BackgroundShare), fmt.Sprintf("%.3f", e.ForegroundShare)})
	}
	cw.Flush()
	return cw.Error()
}
