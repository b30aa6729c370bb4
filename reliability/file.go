package reliability

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vcr-bench/vcr/internal/version"
)

// EstimateTool and CheckTool are the "tool" fields of the files that
// 'vcr requirements estimate' (a requirements File) and 'vcr requirements
// check' (a CheckReport) write; readers find the files by them.
const (
	EstimateTool = "vcr requirements estimate"
	CheckTool    = "vcr requirements check"
)

// FileFormat is the layout version of the requirements files NewFile makes.
const FileFormat = 1

// File is a requirements file: one or more requirements with the metadata
// of the run that wrote them.
type File struct {
	// Tool is the command that wrote the file (EstimateTool); Version the
	// vcr build (internal/version). Both are empty in files written before
	// they were recorded.
	Tool    string `json:"tool,omitempty"`
	Version string `json:"version,omitempty"`
	// Format is the file layout (FileFormat). Files of the first layout
	// recorded it as a number in "version"; DecodeFile reads those too.
	Format       int           `json:"format"`
	Requirements []Requirement `json:"requirements"`
}

// NewFile returns a File holding reqs, stamped with EstimateTool, the
// running build's version and FileFormat.
func NewFile(reqs []Requirement) *File {
	return &File{Tool: EstimateTool, Version: version.String(), Format: FileFormat, Requirements: reqs}
}

// UnmarshalJSON decodes a requirements file of either layout: the current
// one ("tool", "version" a string, "format") and the first one, whose
// "version" was the format number.
func (f *File) UnmarshalJSON(b []byte) error {
	type plain File
	var raw struct {
		plain
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = File(raw.plain)
	f.Version = ""
	v := bytes.TrimSpace(raw.Version)
	switch {
	case len(v) == 0 || string(v) == "null":
	case v[0] == '"':
		if err := json.Unmarshal(v, &f.Version); err != nil {
			return err
		}
	default:
		var n int
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("\"version\" is %s: want the vcr version (a string) or the format number 1", v)
		}
		if f.Format == 0 {
			f.Format = n
		}
	}
	return nil
}

// Write writes f as indented JSON followed by a newline.
func (f *File) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// ReadFile reads the requirements file at path (see DecodeFile).
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeFile(bytes.NewReader(b), path)
}

// DecodeFile reads a requirements file from r: a File (JSON object with
// "requirements"), or a single Requirement object. name (the file name)
// prefixes every error. It returns an error when the file holds no
// requirement, a requirement names no transformation, a threshold lies
// outside [0, 1], or the format is newer than FileFormat.
func DecodeFile(r io.Reader, name string) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w (want a JSON requirements file, as 'vcr requirements estimate' writes)", name, err)
	}
	f := &File{}
	if _, ok := probe["requirements"]; ok {
		if err := json.Unmarshal(data, f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else if _, ok := probe["transformation"]; ok {
		var q Requirement
		if err := json.Unmarshal(data, &q); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		f.Format, f.Requirements = FileFormat, []Requirement{q}
	}
	switch {
	case f.Format > FileFormat:
		return nil, fmt.Errorf("%s: format %d is newer than this vcr reads (%d); update vcr", name, f.Format, FileFormat)
	case len(f.Requirements) == 0:
		return nil, fmt.Errorf("%s holds no requirements (want {\"requirements\": [{\"transformation\": …, \"t_c\": …, \"t_p\": …}]})", name)
	}
	for i, q := range f.Requirements {
		if q.Transformation == "" {
			return nil, fmt.Errorf("%s: requirement %d names no transformation", name, i+1)
		}
		if err := checkThreshold("t_c", q.TC); err != nil {
			return nil, fmt.Errorf("%s: requirement %d (%s): %w", name, i+1, q.Transformation, err)
		}
		if err := checkThreshold("t_p", q.TP); err != nil {
			return nil, fmt.Errorf("%s: requirement %d (%s): %w", name, i+1, q.Transformation, err)
		}
	}
	return f, nil
}

// ErrNoRequirement is returned (wrapped) by Select for a name the file has
// no requirement for.
var ErrNoRequirement = errors.New("no requirement")

// Select returns the requirements for the named transformations, in the
// file's order; no names select all. A name without a requirement is an
// error wrapping ErrNoRequirement that lists the file's transformations.
func (f *File) Select(names []string) ([]Requirement, error) {
	if len(names) == 0 {
		return f.Requirements, nil
	}
	keep := map[string]bool{}
	for _, n := range names {
		keep[strings.TrimSpace(n)] = true
	}
	var sel, have []string
	var out []Requirement
	for _, q := range f.Requirements {
		have = append(have, q.Transformation)
		if keep[q.Transformation] {
			out = append(out, q)
			sel = append(sel, q.Transformation)
		}
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		found := false
		for _, s := range sel {
			found = found || s == n
		}
		if !found {
			return nil, fmt.Errorf("%w for %q (the file has %s)", ErrNoRequirement, n, strings.Join(have, ", "))
		}
	}
	return out, nil
}
