-- The experiment schema (SQLite). experiment/postgres/migrations holds the
-- same tables in PostgreSQL's types; keep the two in step.
-- Times are TEXT in UTC, 2006-01-02T15:04:05.000000Z (fixed width, so text
-- order is time order).

-- The one recorded design (id is always 1).
CREATE TABLE design (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	hash TEXT NOT NULL,
	name TEXT NOT NULL,
	design TEXT NOT NULL,
	created TEXT NOT NULL
);

-- One row per batch of the design; id is the batch's index.
CREATE TABLE batches (
	id INTEGER PRIMARY KEY,
	size INTEGER NOT NULL
);

CREATE TABLE participants (
	id INTEGER PRIMARY KEY,
	seq INTEGER NOT NULL UNIQUE,
	external_id TEXT NOT NULL UNIQUE,
	platform TEXT NOT NULL,
	study_id TEXT NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	batch INTEGER REFERENCES batches (id),
	status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'screened_out', 'excluded', 'abandoned')),
	reason TEXT NOT NULL DEFAULT '',
	user_agent TEXT NOT NULL DEFAULT '',
	session_hash BLOB,
	created TEXT NOT NULL,
	last_seen TEXT NOT NULL
);
CREATE INDEX participants_session ON participants (session_hash);
CREATE INDEX participants_batch ON participants (batch, status);
CREATE INDEX participants_seen ON participants (status, last_seen);

-- The plans; the answer columns are NULL until answered_at is set.
CREATE TABLE trials (
	participant INTEGER NOT NULL REFERENCES participants (id),
	idx INTEGER NOT NULL,
	role TEXT NOT NULL,
	stimulus_id TEXT NOT NULL,
	token TEXT NOT NULL UNIQUE,
	mask INTEGER NOT NULL,
	response TEXT,
	rt_ms REAL,
	shown_ms REAL,
	mask_ms REAL,
	refresh_hz REAL,
	frames INTEGER,
	timing_ok INTEGER,
	input TEXT,
	answered_at TEXT,
	PRIMARY KEY (participant, idx)
) WITHOUT ROWID;
-- Each participant's unanswered trials: the next one is the first.
CREATE INDEX trials_open ON trials (participant, idx) WHERE answered_at IS NULL;
