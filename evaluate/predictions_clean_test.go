package evaluate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/task"
)

// TestPredictionsCleanMissingMessage checks that a predictions file without
// clean rows is told how to add them in terms of the file's columns, not of
// the Go API, and that a file missing one source names that source.
func TestPredictionsCleanMissingMessage(t *testing.T) {
	dir := t.TempDir()
	mp, err := task.New(task.Spec{Outputs: 2, OutputNames: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, csv, source string
		want              []string
	}{
		{"none.csv", "id,pred\n0,a\n", "a/x.png",
			[]string{"none.csv has no clean rows", "one row per source", "empty id", "a/x.png", "docs/eval-models.md"}},
		{"some.csv", "id,source,pred\n0,,a\n,a/y.png,a\n", "a/x.png",
			[]string{"some.csv has no clean row with source a/x.png", "empty id", "docs/eval-models.md"}},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := model.LoadPredictions(path, []string{"a", "b"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = predictionsFile{p: p, m: mp}.Clean(tc.source)
		if err == nil {
			t.Fatalf("%s: no error for a missing clean row", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "Merge") {
			t.Errorf("%s: error %q names the Go API", tc.name, err)
		}
	}
}
