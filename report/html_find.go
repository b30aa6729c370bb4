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

// CheckFile is the name of the requirement verdicts file ('vcr requirements
// check') that WriteHTML shows when it finds one.
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

// scan looks at the files of one folder.
func (f *found) scan(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if err := f.scanContrast(dir); err != nil {
		return err
	}
	if p := filepath.Join(dir, "summary.json"); exists(p) {
		a := &foundAnalysis{dir: dir, svgs: map[string][]byte{}}
		if err := readJSONFile(p, &a.summary); err != nil {
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
		f.analyses = append(f.analyses, a)
	}
	if p := filepath.Join(dir, testset.RunFile); exists(p) {
		t := &foundTestSet{dir: dir, manifest: exists(filepath.Join(dir, testset.ManifestFile))}
		if err := readJSONFile(p, &t.run); err != nil {
			return err
		}
		if c := filepath.Join(dir, testset.CoverageFile); exists(c) {
			t.coverage = &testset.CoverageReport{}
			if err := readJSONFile(c, t.coverage); err != nil {
				return err
			}
		}
		f.testsets = append(f.testsets, t)
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		p := filepath.Join(dir, name)
		switch {
		case name == CheckFile || strings.Contains(name, "verdict"):
			var v any
			if err := readJSONFile(p, &v); err != nil {
				return err
			}
			f.checks = append(f.checks, &foundJSON{path: p, v: v})
		case strings.HasSuffix(name, ".csv.json") && exists(strings.TrimSuffix(p, ".json")):
			ev := &foundEval{path: strings.TrimSuffix(p, ".json")}
			if err := readJSONFile(p, &ev.settings); err != nil {
				return err
			}
			f.evals = append(f.evals, ev)
		case name == "summary.json" || name == testset.RunFile || name == testset.CoverageFile || name == testset.StatusFile:
		default:
			// A requirements file: {"version", "requirements": [{"transformation", "t_c", …}]}.
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !bytes.Contains(data, []byte(`"requirements"`)) || !bytes.Contains(data, []byte(`"t_c"`)) {
				continue
			}
			var rf reliability.File
			if json.Unmarshal(data, &rf) != nil || len(rf.Requirements) == 0 {
				continue
			}
			f.reqs = append(f.reqs, &foundRequirements{path: p, file: rf})
		}
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
