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
// databases; CI starts a private cluster and sets it). It creates a
// database of its own and drops it at the end. Without the variable it
// skips, unless VCR_REQUIRE_POSTGRES=1 makes that a failure.
func TestLoadPostgres(t *testing.T) {
	base := os.Getenv("VCR_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("VCR_REQUIRE_POSTGRES") == "1" {
			t.Fatal("VCR_REQUIRE_POSTGRES=1 but VCR_TEST_POSTGRES is not set")
		}
		t.Skip("set VCR_TEST_POSTGRES to a postgres:// URL of a role that may create databases to run the load test on PostgreSQL")
	}
	ctx := context.Background()
	admin, err := postgres.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	rand.Read(b)
	name := "vcr_e2e_" + hex.EncodeToString(b)
	if _, err := admin.DB().ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	defer func() {
		if _, err := admin.DB().ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	}()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("VCR_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + name
	s, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runLoad(t, t.TempDir(), s, "postgres")
}
