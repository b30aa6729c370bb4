package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/vcr-bench/vcr/experiment/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// MaxConns is the most connections one Store opens.
const MaxConns = 32

// LockKey is the advisory lock key that serialises assignment ("vcr-exp1").
const LockKey int64 = 0x7663722d65787031

// Store is an experiment.Store in a PostgreSQL database. Its methods are
// those of experiment.Store, documented in package sqlstore's Store.
type Store struct {
	*sqlstore.Store
}

// Open connects to the PostgreSQL database at url, a postgres:// URL or a
// key=value connection string as libpq takes them (e.g.
// postgres://user:password@host:5432/db?sslmode=disable, or with
// ?host=/run/postgresql for a Unix socket). It checks that the server
// answers. Call Init before anything else.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		// The URL may hold a password: don't repeat it.
		return nil, errors.New("postgres: the database URL does not parse; expected postgres://user@host:port/db")
	}
	name := "postgres " + net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(MaxConns)
	db.SetMaxIdleConns(MaxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := sqlstore.New(db, db, sqlstore.Dialect{
		Name:       name,
		Dollar:     true,
		Lock:       fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", LockKey),
		Time:       func(t time.Time) any { return t.UTC() },
		ReadTx:     sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
		Retryable:  retryable,
		Migrations: sub,
	})
	return &Store{s}, nil
}

// retryable reports serialization failures and deadlocks.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}
