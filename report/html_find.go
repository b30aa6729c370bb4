package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/reliability"
	"github.com/vcr-bench/vcr/testset"
)

// CheckFile is the name by which WriteHTML recognises a requirement
// verdicts file ('vcr requirements check') that lacks the "tool" field.
const CheckFile = "requirements-check.json"

// found is what WriteHTML found in its folders.
type found struct {
	analyses []*foundAnalysis
	testsets []*foundTestSet
	evals    []*foundEval
	reqs     []*foundRequirements
	checks   []*foundJSON
	// contrasts are 'vcr contrast' folders (html_contrast.go).
	contrasts []*foundContrast
}

// foundAnalysis is a folder written by 'vcr analyze'.
type foundAnalysis struct {
	dir     string
	summary Summary
	// svgs maps an SVG file's base name to its bytes.
	svgs map[string][]byte
	// curves are the fitted curves of curves.csv with the bins of bins.csv
	// (nil when the folder has no curves.csv).
	curves map[curveKey]*curveData
}

// foundTestSet is a folder written by 'vcr generate'.
type foundTestSet struct {
	dir      string
	run      map[string]any          // run.json
	coverage *testset.CoverageReport // coverage.json, nil when absent
	manifest bool                    // manifest.csv present
}

// foundEval is a results table of 'vcr eval' with its settings file.
type foundEval struct {
	path     string
	settings map[string]any
}

type foundRequirements struct {
	path string
	file reliability.File
}

type foundJSON struct {
	path string
	v    any
}

func (f *found) empty() bool {
	return len(f.analyses) == 0 && len(f.testsets) == 0 && len(f.evals) == 0 && len(f.reqs) == 0 && len(f.checks) == 0 && len(f.contrasts) == 0
}

// maxDepth bounds how deep WriteHTML looks below each folder.
const maxDepth = 4

// find walks dirs for the outputs of the other commands. Folders named
// images (test-set images) and hidden folders are skipped.
func find(dirs []string) (*found, error) {
	f := &found{}
	seen := map[string]bool{}
	for _, root := range dirs {
		st, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", root)
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			if rel != "." && (d.Name() == testset.ImagesDir || strings.HasPrefix(d.Name(), ".") || strings.Count(rel, string(filepath.Separator)) >= maxDepth) {
				return filepath.SkipDir
			}
			abs, _ := filepath.Abs(p)
			if seen[abs] {
				return filepath.SkipDir
			}
			seen[abs] = true
			return f.scan(p)
		})
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func readJSONFile(p string, v any) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// Tools are the "tool" values of the artefacts WriteHTML recognises (the
// run metadata every command writes into its JSON files).
const (
	ToolAnalyze              = "vcr analyze"
	ToolGenerate             = "vcr generate"
	ToolCoverage             = "vcr coverage"
	ToolEval                 = "vcr eval"
	ToolRequirementsEstimate = "vcr requirements estimate"
	ToolRequirementsCheck    = "vcr requirements check"
)

// maxJSON bounds the JSON files scan reads (larger ones are no artefacts
// of ours).
const maxJSON = 256 << 20

// legacyTool names the tool of a JSON file written before files carried a
// "tool" field, from its name (and, for requirements files, its content);
// "" when the file is none of ours.
func legacyTool(dir, name string, data []byte) string {
	switch {
	case name == "summary.json":
		return ToolAnalyze
	case name == testset.RunFile, name == testset.CoverageFile, name == testset.StatusFile:
		return ToolGenerate
	case name == CheckFile || strings.Contains(name, "verdict"):
		return ToolRequirementsCheck
	case strings.HasSuffix(name, ".csv.json") && exists(filepath.Join(dir, strings.TrimSuffix(name, ".json"))):
		return ToolEval
	case bytes.Contains(data, []byte(`"requirements"`)) && bytes.Contains(data, []byte(`"t_c"`)):
		return ToolRequirementsEstimate
	}
	return ""
}

// scan looks at the files of one folder. A JSON file is recognised by its
// "tool" field (run.json of 'vcr generate', RESULTS.csv.json of 'vcr eval',
// summary.json of 'vcr analyze', requirements and verdict files of
// 'vcr requirements', under any name), or, for files without one, by the
// names those commands used before (legacyTool).
func (f *found) scan(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if err := f.scanContrast(dir); err != nil {
		return err
	}
	var ts *foundTestSet
	var cov *testset.CoverageReport
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		if info, err := e.Info(); err != nil || info.Size() > maxJSON {
			continue
		}
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var head struct {
			Tool string `json:"tool"`
		}
		tool := ""
		if json.Unmarshal(data, &head) == nil {
			tool = head.Tool
		}
		legacy := tool == ""
		if legacy {
			tool = legacyTool(dir, name, data)
		}
		decode := func(v any) error {
			if err := json.Unmarshal(data, v); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			return nil
		}
		switch tool {
		case ToolAnalyze:
			a := &foundAnalysis{dir: dir, svgs: map[string][]byte{}}
			if err := decode(&a.summary); err != nil {
				return err
			}
			for _, e := range ents {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".svg") {
					b, err := os.ReadFile(filepath.Join(dir, e.Name()))
					if err != nil {
						return err
					}
					a.svgs[e.Name()] = b
				}
			}
			if a.curves, err = readCurves(dir); err != nil {
				return err
			}
			f.analyses = append(f.analyses, a)
		case ToolGenerate, ToolCoverage:
			var keys map[string]json.RawMessage
			if err := decode(&keys); err != nil {
				return err
			}
			switch {
			case keys["overall"] != nil && keys["corruptions"] != nil: // a coverage report
				cov = &testset.CoverageReport{}
				if err := decode(cov); err != nil {
					return err
				}
			case keys["complete"] != nil, tool == ToolCoverage: // status.json
			default:
				ts = &foundTestSet{dir: dir}
				if err := decode(&ts.run); err != nil {
					return err
				}
			}
		case ToolEval:
			ev := &foundEval{path: strings.TrimSuffix(p, ".json")}
			if err := decode(&ev.settings); err != nil {
				return err
			}
			f.evals = append(f.evals, ev)
		case ToolRequirementsCheck:
			var v any
			if err := decode(&v); err != nil {
				return err
			}
			f.checks = append(f.checks, &foundJSON{path: p, v: v})
		case ToolRequirementsEstimate:
			// Only the requirements: the file's version field changed type
			// when files gained the tool metadata.
			var rf struct {
				Requirements []reliability.Requirement `json:"requirements"`
			}
			if json.Unmarshal(data, &rf) != nil || len(rf.Requirements) == 0 {
				if !legacy {
					return fmt.Errorf("%s: a requirements file without requirements", p)
				}
				continue
			}
			f.reqs = append(f.reqs, &foundRequirements{path: p, file: reliability.File{Requirements: rf.Requirements}})
		}
	}
	if ts != nil {
		ts.coverage = cov
		ts.manifest = exists(filepath.Join(dir, testset.ManifestFile))
		f.testsets = append(f.testsets, ts)
	}
	return nil
}

// corruptions returns every corruption named by the analyses and test sets,
// sorted.
func (f *found) corruptions() []string {
	var cs []string
	add := func(c string) {
		if c != "" && !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	for _, a := range f.analyses {
		for _, m := range a.summary.Models {
			add(m.Corruption)
		}
	}
	for _, t := range f.testsets {
		if t.coverage != nil {
			for _, c := range t.coverage.Corruptions {
				add(c.Corruption)
			}
		}
	}
	slices.Sort(cs)
	return cs
}

var errNothing = errors.New("nothing a report can use")
