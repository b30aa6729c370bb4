package contrast

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Colours are the palette's 8 labels, in the study's order.
var Colours = []string{"red", "green", "blue", "brown", "gray", "white", "black", "others"}

// Others is the palette label for colours outside the palette or shared
// by several colours, and the group of every pair containing it.
const Others = "others"

// Groups are the ordered contrast groups, index 0 (low) to 3 (high), as
// used for trends; Others is reported but left out of trends.
var Groups = []string{"low", "low-mid", "high-mid", "high"}

// AllGroups are Groups followed by Others.
var AllGroups = append(slices.Clone(Groups), Others)

// ErrColour wraps errors about colour names outside the palette.
var ErrColour = errors.New("contrast: unknown colour")

// ErrTable wraps errors in a pair→group table.
var ErrTable = errors.New("contrast: bad group table")

// NormColour returns the palette name of s (case-insensitive, "grey" is
// "gray", surrounding space ignored), or an error wrapping ErrColour that
// lists the allowed names.
func NormColour(s string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(s))
	if c == "grey" {
		c = "gray"
	}
	if slices.Contains(Colours, c) {
		return c, nil
	}
	return "", fmt.Errorf("%w %q (allowed: %s)", ErrColour, s, strings.Join(Colours, ", "))
}

// GroupIndex returns the index of g in Groups, or -1 (Others, unknown).
func GroupIndex(g string) int { return slices.Index(Groups, g) }

// Table maps an unordered colour pair to its contrast group.
type Table struct {
	m map[[2]string]string
}

func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// Group returns the group of the unordered pair (a, b): Others when either
// is Others, else the table's group; ok is false for a pair the table does
// not list.
func (t *Table) Group(a, b string) (g string, ok bool) {
	if a == Others || b == Others {
		return Others, true
	}
	g, ok = t.m[pairKey(a, b)]
	return g, ok
}

// Len returns the number of pairs listed.
func (t *Table) Len() int { return len(t.m) }

// builtinPairs is the published pair→group table (contrast.md, "Contrast
// groups"; background first, treated as unordered).
var builtinPairs = [][3]string{
	{"red", "red", "low"}, {"red", "green", "high"}, {"red", "gray", "low-mid"},
	{"red", "blue", "high"}, {"red", "brown", "high-mid"}, {"red", "white", "high"},
	{"red", "black", "high"}, {"green", "green", "low"}, {"green", "blue", "low-mid"},
	{"green", "brown", "high"}, {"green", "gray", "low-mid"}, {"green", "white", "high-mid"},
	{"white", "white", "low"}, {"green", "black", "high-mid"}, {"blue", "blue", "low"},
	{"blue", "brown", "high"}, {"blue", "gray", "low-mid"}, {"blue", "white", "high-mid"},
	{"blue", "black", "high-mid"}, {"brown", "brown", "low"}, {"brown", "gray", "low-mid"},
	{"brown", "white", "low-mid"}, {"brown", "black", "low-mid"}, {"gray", "gray", "low"},
	{"gray", "white", "low-mid"}, {"gray", "black", "low-mid"}, {"black", "black", "low"},
	{"white", "black", "high"},
}

// BuiltinTable returns the published table: 28 pairs of the 7 palette
// colours (every unordered pair), each pair with "others" being Others.
func BuiltinTable() *Table {
	t := &Table{m: map[[2]string]string{}}
	for _, p := range builtinPairs {
		t.m[pairKey(p[0], p[1])] = p[2]
	}
	return t
}

// ReadTable reads a user pair→group table: CSV with a header naming the
// columns background, foreground and group (any order, extra columns
// ignored). Colours must be palette names, groups one of AllGroups; a pair
// may appear once (either order). Pairs it does not list fall back to the
// built-in table. Errors name the file and line.
func ReadTable(r io.Reader, name string) (*Table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: no header: %v", ErrTable, name, err)
	}
	col, err := columns(head, name, "background", "foreground", "group")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTable, err)
	}
	t := BuiltinTable()
	seen := map[[2]string]int{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrTable, name, err)
		}
		a, err := NormColour(field(rec, col[0]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: background: %w", name, line, err)
		}
		b, err := NormColour(field(rec, col[1]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: foreground: %w", name, line, err)
		}
		g := strings.ToLower(strings.TrimSpace(field(rec, col[2])))
		if !slices.Contains(AllGroups, g) {
			return nil, fmt.Errorf("%w: %s:%d: group %q is not one of %s", ErrTable, name, line, g, strings.Join(AllGroups, ", "))
		}
		k := pairKey(a, b)
		if l, ok := seen[k]; ok {
			return nil, fmt.Errorf("%w: %s:%d: pair %s–%s already given on line %d", ErrTable, name, line, a, b, l)
		}
		if (a == Others || b == Others) && g != Others {
			return nil, fmt.Errorf("%w: %s:%d: a pair with %q must be in group %q", ErrTable, name, line, Others, Others)
		}
		seen[k] = line
		t.m[k] = g
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("%w: %s: no pairs", ErrTable, name)
	}
	return t, nil
}

// columns returns the indices of the wanted columns in head
// (case-insensitive), or an error naming the missing ones.
func columns(head []string, name string, want ...string) ([]int, error) {
	idx := make([]int, len(want))
	var missing []string
	for i, w := range want {
		idx[i] = slices.IndexFunc(head, func(h string) bool {
			return strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), w)
		})
		if idx[i] < 0 {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing column(s) %s (header: %s)", name, strings.Join(missing, ", "), strings.Join(head, ","))
	}
	return idx, nil
}

func field(rec []string, i int) string {
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}
