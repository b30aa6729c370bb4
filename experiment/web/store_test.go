package web

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// testStore is the real SQLite store in a temporary folder, counting the
// answers it accepted, so tests can say that a refused request stored
// nothing.
type testStore struct {
	experiment.Store
	responds atomic.Int64 // Respond calls that stored an answer
}

// newTestStore opens a testStore holding d, closed when the test ends.
func newTestStore(t *testing.T, d *experiment.Design) *testStore {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "exp.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Init(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return &testStore{Store: st}
}

func (s *testStore) Respond(ctx context.Context, participant int64, index int, r experiment.Response) error {
	err := s.Store.Respond(ctx, participant, index, r)
	if err == nil {
		s.responds.Add(1)
	}
	return err
}

// participants returns how many participants have joined.
func (s *testStore) participants(t *testing.T) int {
	t.Helper()
	n := 0
	if err := s.Store.Participants(context.Background(), func(*experiment.Participant) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
