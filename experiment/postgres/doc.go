// Package postgres is the experiment.Store for PostgreSQL, for experiments
// served by several server processes sharing one database. It talks to the
// server through github.com/jackc/pgx/v5 (database/sql interface).
//
// Assignment is transactional across processes: Join, SetStatus, Abandon
// and Init take a transaction-level advisory lock (pg_advisory_xact_lock,
// scoped to the database) before they read anything, so the next Seq, the
// batch holder counts and the new participant's plan are read and written
// by one transaction at a time, and the lock is released by COMMIT or
// ROLLBACK, even when a process dies. Respond first updates the
// participant's row (last_seen … RETURNING status), which locks it until
// COMMIT, so concurrent submissions for one participant, from any process,
// are applied one after another, each statement after the lock seeing the
// answers committed before (READ COMMITTED takes a snapshot per statement);
// and the trial's UPDATE only writes an unanswered row: of two submissions
// of one trial exactly one succeeds, the other gets ErrAnswered. Deadlocks
// and serialisation failures are retried.
//
// Each commit is durable as far as the server's configuration makes it
// (synchronous_commit on, the default). Progress reads one REPEATABLE READ
// snapshot.
//
// The schema (experiment/internal/sqlstore/migrations/*.sql, embedded,
// applied by Init and recorded in schema_migrations) and the Go code are
// shared with the SQLite backend (experiment/sqlite); only the column types and the locking differ.
package postgres
