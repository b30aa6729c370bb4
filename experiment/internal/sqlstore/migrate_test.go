package sqlstore

import (
	"slices"
	"testing"
	"testing/fstest"
)

func TestMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"0002_more.sql": {Data: []byte("-- a comment; with a semicolon\nALTER TABLE a ADD b TEXT;\n")},
		"0001_init.sql": {Data: []byte("CREATE TABLE a (\n\tx {{.Time}} DEFAULT 'p;q'\n){{.ClusteredTable}};\nCREATE INDEX i ON a (x);")},
		"README":        {Data: []byte("not a migration")},
	}
	got, err := Migrations(fsys, Types{Time: "TEXT", ClusteredTable: " WITHOUT ROWID"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Migration{
		{1, "init", []string{"CREATE TABLE a (\n\tx TEXT DEFAULT 'p;q'\n) WITHOUT ROWID", "CREATE INDEX i ON a (x)"}},
		{2, "more", []string{"ALTER TABLE a ADD b TEXT"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d migrations, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Version != want[i].Version || got[i].Name != want[i].Name || !slices.Equal(got[i].Statements, want[i].Statements) {
			t.Errorf("migration %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []fstest.MapFS{
		{"init.sql": {Data: []byte("SELECT 1;")}},
		{"0001_a.sql": {Data: []byte("SELECT 1;")}, "01_b.sql": {Data: []byte("SELECT 2;")}},
		{"0001_a.sql": {Data: []byte("CREATE TABLE a (x {{.Nope}});")}},
	} {
		if _, err := Migrations(bad, Types{}); err == nil {
			t.Errorf("Migrations(%v) succeeded", bad)
		}
	}
}

func TestRebind(t *testing.T) {
	s := New(nil, nil, Dialect{Dollar: true})
	if got, want := s.q("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"), "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"; got != want {
		t.Errorf("q = %q, want %q", got, want)
	}
	s = New(nil, nil, Dialect{})
	if got := s.q("b = ?"); got != "b = ?" {
		t.Errorf("q without Dollar = %q", got)
	}
}
