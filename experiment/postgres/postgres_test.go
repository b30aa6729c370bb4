package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/postgres"
	"github.com/vcr-bench/vcr/experiment/storetest"
)

// The tests run against the server at $VCR_TEST_POSTGRES (a URL such as
// postgres://postgres@/postgres?host=/tmp/pg&sslmode=disable, of a role
// that may create databases). TestMain creates a database of its own with
// a random name, dropped at the end; each open gives a test a fresh schema
// in it. Without the variable the tests skip, unless VCR_REQUIRE_POSTGRES=1
// (as in CI), which makes them fail.

var (
	testDB    string // URL of this run's database
	setupErr  error
	schemas   sync.Map // testing.TB → schema name
	schemaSeq atomic.Int64
)

func TestMain(m *testing.M) {
	base := os.Getenv("VCR_TEST_POSTGRES")
	var cleanup func()
	if base != "" {
		testDB, cleanup, setupErr = createDatabase(base)
	}
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	os.Exit(code)
}

// withParams sets connection parameters in a URL or key=value string.
func withParams(dsn string, kv map[string]string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		for k, v := range kv {
			if k == "dbname" {
				u.Path = "/" + v
				continue
			}
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for k, v := range kv {
		dsn += " " + k + "=" + v
	}
	return dsn
}

func createDatabase(base string) (string, func(), error) {
	ctx := context.Background()
	admin, err := postgres.Open(ctx, base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "vcr_test_" + hex.EncodeToString(b)
	if _, err := admin.DB().ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	return withParams(base, map[string]string{"dbname": name}), func() {
		if _, err := admin.DB().ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "drop database %s: %v\n", name, err)
		}
		admin.Close()
	}, nil
}

// dbURL returns this run's database, skipping or failing tb as the
// environment asks.
func dbURL(tb testing.TB) string {
	tb.Helper()
	required := os.Getenv("VCR_REQUIRE_POSTGRES") == "1"
	switch {
	case os.Getenv("VCR_TEST_POSTGRES") == "" && required:
		tb.Fatal("VCR_REQUIRE_POSTGRES=1 but VCR_TEST_POSTGRES is not set")
	case os.Getenv("VCR_TEST_POSTGRES") == "":
		tb.Skip("PostgreSQL store tests skipped: set VCR_TEST_POSTGRES to a postgres:// URL of a role that may create databases")
	case setupErr != nil:
		tb.Fatalf("PostgreSQL at VCR_TEST_POSTGRES: %v", setupErr)
	}
	return testDB
}

// open returns a store on tb's schema, created on first use.
func open(tb testing.TB) experiment.Store {
	tb.Helper()
	v, _ := schemas.LoadOrStore(tb, fmt.Sprintf("s%d", schemaSeq.Add(1)))
	return openSchema(tb, v.(string))
}

// fresh opens a store on a new schema: a benchmark runs its function
// several times with the same *testing.B.
func fresh(tb testing.TB) experiment.Store {
	tb.Helper()
	return openSchema(tb, fmt.Sprintf("s%d", schemaSeq.Add(1)))
}

// openSchema opens a store on schema, creating it if needed.
func openSchema(tb testing.TB, schema string) experiment.Store {
	tb.Helper()
	u := dbURL(tb)
	ctx := context.Background()
	admin, err := postgres.Open(ctx, u)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = admin.DB().ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema)
	admin.Close()
	if err != nil {
		tb.Fatal(err)
	}
	s, err := postgres.Open(ctx, withParams(u, map[string]string{"search_path": schema}))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) experiment.Store { return open(t) })
}

func TestOpenErrors(t *testing.T) {
	u := dbURL(t)
	ctx := context.Background()
	if _, err := postgres.Open(ctx, "postgres://user:secret@[::1"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open(bad URL): %v (must fail without repeating the password)", err)
	}
	if _, err := postgres.Open(ctx, withParams(u, map[string]string{"dbname": "vcr_no_such_database"})); err == nil ||
		!strings.Contains(err.Error(), "vcr_no_such_database") {
		t.Errorf("Open(missing database): %v, want an error naming the database", err)
	}
}

func BenchmarkJoin(b *testing.B)    { storetest.BenchmarkJoin(b, fresh) }
func BenchmarkRespond(b *testing.B) { storetest.BenchmarkRespond(b, fresh) }
func BenchmarkRespondParallel(b *testing.B) {
	storetest.BenchmarkRespondParallel(b, fresh)
}
