package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/vcr-bench/vcr/experiment/postgres"
)

// TestLoadPostgres is TestLoadSQLite against PostgreSQL at
// $VCR_TEST_POSTGRES (a postgres:// URL of a role that may create
// databases; CI starts a private cluster and sets it), in a database of
// its own.
func TestLoadPostgres(t *testing.T) {
	db := postgresDatabase(t)
	s, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runLoad(t, t.TempDir(), s, "postgres")
}

// postgresDatabase creates a database of its own on the PostgreSQL server
// at $VCR_TEST_POSTGRES, dropped when the test ends, and returns its URL.
// Without the variable it skips the test, unless VCR_REQUIRE_POSTGRES=1.
func postgresDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("VCR_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("VCR_REQUIRE_POSTGRES") == "1" {
			t.Fatal("VCR_REQUIRE_POSTGRES=1 but VCR_TEST_POSTGRES is not set")
		}
		t.Skip("set VCR_TEST_POSTGRES to a postgres:// URL of a role that may create databases to run this test on PostgreSQL")
	}
	ctx := context.Background()
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("VCR_TEST_POSTGRES must be a postgres:// URL (got %q)", base)
	}
	admin, err := postgres.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "vcr_e2e_" + hex.EncodeToString(b)
	if _, err := admin.DB().ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.DB().ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		admin.Close()
	})
	u.Path = "/" + name
	return u.String()
}
