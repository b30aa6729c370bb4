// Package sqlite is the embedded experiment.Store: one SQLite database file
// in WAL mode, through the pure-Go driver modernc.org/sqlite (no cgo).
//
// Every commit is synced (synchronous=FULL), so a nil error means the
// change survives a crash or power loss. Writes go through one connection
// whose transactions start with BEGIN IMMEDIATE: within a process they
// queue on that connection, and other processes opening the same file wait
// for the lock (busy_timeout) instead of interleaving. That makes
// assignment (Join), Respond's checks and status changes serial, so the
// batch balancing and the one-answer-per-trial rule hold under any
// concurrency. Reads (BySession, Trials, TrialByToken, Progress, the
// iterators) use a separate pool of read-only connections and run
// concurrently with the writer, as WAL allows.
//
// The schema (experiment/internal/sqlstore/migrations/*.sql, embedded,
// applied by Init and recorded in schema_migrations) and the Go code are
// shared with the PostgreSQL backend (experiment/postgres); only the column types and the locking differ.
package sqlite
