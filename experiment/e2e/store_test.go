package e2e

import (
	"context"
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

// Designs of the browser tests: a whole session (TestBrowser, TestFirefox)
// and the refusal pages (TestBrowserRefusals, TestFirefoxSmallWindow).
var (
	sessionDesign = DesignOptions{
		Batches: 2, PerBatch: 4, ViewsPerBatch: 2,
		Practice: 2, Qualification: 2, Sanity: 1,
		QualificationMinCorrect: 2, SanityMaxFailures: 0, Seed: 11,
	}
	refusalDesign = DesignOptions{Batches: 1, PerBatch: 2, ViewsPerBatch: 2, Seed: 13}
)

// serveTest builds TinyDesign(opt) in a temporary folder, opens a test
// store for it and serves both with cfg on loopback; the server stops
// (before the store closes) when the test ends.
func serveTest(t *testing.T, ctx context.Context, opt DesignOptions, cfg experiment.ServerConfig) (*experiment.Design, experiment.Store, *Server) {
	t.Helper()
	dir := t.TempDir()
	d, err := TinyDesign(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	s := openTestStore(t, dir)
	srv, err := StartServer(ctx, d, s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return d, s, srv
}
