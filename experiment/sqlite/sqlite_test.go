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
	s, err := sqlite.Open(p.(string))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) experiment.Store { return open(t) })
}

func BenchmarkJoin(b *testing.B)    { storetest.BenchmarkJoin(b, open) }
func BenchmarkRespond(b *testing.B) { storetest.BenchmarkRespond(b, open) }
func BenchmarkRespondParallel(b *testing.B) {
	storetest.BenchmarkRespondParallel(b, open)
}
