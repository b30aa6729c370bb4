package sqlite

import (
	"database/sql"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/internal/sqlstore"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// BusyTimeout is how long a write waits for another process's write lock
// on the same file before it fails.
const BusyTimeout = 10 * time.Second

// Store is an experiment.Store in one SQLite file. Its methods are those
// of experiment.Store, documented in package sqlstore's Store.
type Store struct {
	*sqlstore.Store
}

// Open opens (creating it if needed) the SQLite database at path. Call
// Init before anything else. path is a file name, not a URI; ":memory:" is
// not supported (the read connections could not see the writer's data).
func Open(path string) (*Store, error) {
	name := "sqlite " + path
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("%s: give the path of a database file", name)
	}
	dsn := func(extra string) string {
		return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + extra +
			fmt.Sprintf("&_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)", BusyTimeout.Milliseconds())
	}
	w, err := sql.Open("sqlite", dsn("_txlock=immediate&_pragma=journal_mode(WAL)"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)
	// Open the writer first: it creates the file and switches it to WAL
	// before any reader connects.
	var mode string
	if err := w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		w.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !strings.EqualFold(mode, "wal") {
		w.Close()
		return nil, fmt.Errorf("%s: journal mode is %s, not WAL (a file system without shared memory?)", name, mode)
	}
	r, err := sql.Open("sqlite", dsn("_pragma=query_only(1)"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s := sqlstore.New(w, r, sqlstore.Dialect{
		Name:   name,
		Time:   func(t time.Time) any { return t.UTC().Format(sqlstore.TimeLayout) },
		ReadTx: sql.TxOptions{ReadOnly: true},
		Types: sqlstore.Types{ID: "INTEGER PRIMARY KEY", Int64: "INTEGER", Float: "REAL", Bool: "INTEGER",
			Blob: "BLOB", Time: "TEXT", ClusteredTable: " WITHOUT ROWID"},
	})
	return &Store{s}, nil
}

var _ experiment.Store = (*Store)(nil)
