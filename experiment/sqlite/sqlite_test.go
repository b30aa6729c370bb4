package sqlite_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/experiment/storetest"
)

// paths remembers each test's database file so that a second open of the
// same test reopens it.
var paths sync.Map // *testing.T or *testing.B → string

func open(tb testing.TB) experiment.Store {
	p, _ := paths.LoadOrStore(tb, filepath.Join(tb.TempDir(), "exp.sqlite"))
	return openPath(tb, p.(string))
}

// fresh opens a new database: a benchmark runs its function several times
// with the same *testing.B, removing the temporary folder in between.
func fresh(tb testing.TB) experiment.Store {
	return openPath(tb, filepath.Join(tb.TempDir(), "exp.sqlite"))
}

func openPath(tb testing.TB, path string) experiment.Store {
	s, err := sqlite.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) experiment.Store { return open(t) })
}

func BenchmarkJoin(b *testing.B)    { storetest.BenchmarkJoin(b, fresh) }
func BenchmarkRespond(b *testing.B) { storetest.BenchmarkRespond(b, fresh) }
func BenchmarkRespondParallel(b *testing.B) {
	storetest.BenchmarkRespondParallel(b, fresh)
}
