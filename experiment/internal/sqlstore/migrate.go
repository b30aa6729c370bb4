package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// migrations are the schema steps of both backends.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Types are the column types a dialect fills into the migrations.
type Types struct {
	ID    string // an auto-numbered 64-bit primary key
	Int64 string
	Float string // IEEE 754 double
	Bool  string
	Blob  string // bytes
	// Time holds a UTC time to at least the microsecond.
	Time string
	// ClusteredTable follows the trials table's definition (SQLite:
	// " WITHOUT ROWID", rows stored in primary key order).
	ClusteredTable string
}

// Migration is one schema step, from a file NNNN_name.sql.
type Migration struct {
	Version    int
	Name       string
	Statements []string
}

var (
	migrationName = regexp.MustCompile(`^(\d+)_([a-z0-9_]+)\.sql$`)
	statementEnd  = regexp.MustCompile(`;[ \t]*(\r?\n|$)`)
)

// Migrations reads the *.sql files at the top of fsys in version order,
// each a text/template filled with types. Lines starting with "--" are
// comments.
func Migrations(fsys fs.FS, types Types) ([]Migration, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		tmpl, err := template.New(e.Name()).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		var text strings.Builder
		if err := tmpl.Execute(&text, types); err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		var lines []string
		for _, l := range strings.Split(text.String(), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		mig := Migration{Version: v, Name: m[2]}
		for _, st := range statementEnd.Split(strings.Join(lines, "\n"), -1) {
			if st = strings.TrimSpace(st); st != "" {
				mig.Statements = append(mig.Statements, st)
			}
		}
		out = append(out, mig)
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("two migrations with version %d", out[i].Version)
		}
	}
	return out, nil
}

// migrate applies the migrations the database lacks, all in one serialised
// transaction, and records them in schema_migrations.
func (s *Store) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	migs, err := Migrations(sub, s.d.Types)
	if err != nil {
		return err
	}
	return s.write(ctx, true, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY,
			name TEXT NOT NULL,
			applied TEXT NOT NULL)`); err != nil {
			return err
		}
		done := map[int]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		defer rows.Close()
		newest := 0
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return err
			}
			done[v] = true
			newest = max(newest, v)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if len(migs) > 0 && newest > migs[len(migs)-1].Version {
			return fmt.Errorf("the schema is at version %d, newer than this program knows (%d); use a newer vcr",
				newest, migs[len(migs)-1].Version)
		}
		for _, m := range migs {
			if done[m.Version] {
				continue
			}
			for _, st := range m.Statements {
				if _, err := tx.ExecContext(ctx, st); err != nil {
					return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
				}
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`),
				m.Version, m.Name, time.Now().UTC().Format(TimeLayout)); err != nil {
				return err
			}
		}
		return nil
	})
}
