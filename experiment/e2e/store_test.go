package e2e

import (
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// openTestStore opens a SQLite store in dir, closed when the test ends.
func openTestStore(t *testing.T, dir string) experiment.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(dir, "exp.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
