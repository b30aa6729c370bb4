// Package sqlstore is the experiment.Store shared by the SQLite and
// PostgreSQL backends (experiment/sqlite, experiment/postgres). Both talk
// database/sql and keep the same tables; a Dialect says how they differ:
// placeholder syntax, how write transactions are serialised, how times are
// stored and which errors are worth a retry.
//
// Tables (migrations/*.sql create them, text/template templates filled
// with the dialect's column Types, applied in version order by Init and
// recorded in schema_migrations):
//
//	design        the one recorded design: hash, name, canonical JSON
//	batches       one row per design batch (id, number of stimuli)
//	participants  id, unique seq, unique external_id, batch (NULL = none),
//	              status, reason, session_hash, created, last_seen
//	              (moved by answers only), join_addr (the keyed address
//	              Join counts places by), …
//	trials        (participant, idx) primary key, role, stimulus_id,
//	              unique token, mask, stimulus_served, mask_served (when
//	              the server sent the images), answer columns and
//	              implausible (NULL until answered)
//
// Assignment (Join), status changes (SetStatus, Abandon) and Init run in
// write transactions that the dialect serialises: SQLite through its single
// writer connection and BEGIN IMMEDIATE, PostgreSQL through a transaction-
// level advisory lock taken first in the transaction. Respond starts by
// updating the participant's row (last_seen), which locks it on PostgreSQL
// (SQLite's single writer is serial anyway), so concurrent submissions for
// one participant are applied one after another, each seeing the answers
// committed before it; and its UPDATE of the trial only writes an
// unanswered row, so at most one of several submissions for a trial wins.
package sqlstore
