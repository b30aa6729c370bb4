package experiment_test

import (
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

func init() {
	experiment.OpenTestStore = func(t *testing.T) experiment.Store {
		t.Helper()
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "exp.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}
