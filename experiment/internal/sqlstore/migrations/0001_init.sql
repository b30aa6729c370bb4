-- The experiment schema. Migrations are text/template templates filled
-- with the dialect's Types, so that SQLite and PostgreSQL get the same
-- tables, each in its own column types (see Types).

-- The one recorded design (id is always 1).
CREATE TABLE design (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	hash TEXT NOT NULL,
	name TEXT NOT NULL,
	design TEXT NOT NULL,
	created {{.Time}} NOT NULL
);

-- One row per batch of the design; id is the batch's index.
CREATE TABLE batches (
	id INTEGER PRIMARY KEY,
	size INTEGER NOT NULL
);

CREATE TABLE participants (
	id {{.ID}},
	seq {{.Int64}} NOT NULL UNIQUE,
	external_id TEXT NOT NULL UNIQUE,
	platform TEXT NOT NULL,
	study_id TEXT NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	batch INTEGER REFERENCES batches (id),
	status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'screened_out', 'excluded', 'abandoned')),
	reason TEXT NOT NULL DEFAULT '',
	user_agent TEXT NOT NULL DEFAULT '',
	session_hash {{.Blob}},
	created {{.Time}} NOT NULL,
	last_seen {{.Time}} NOT NULL
);
CREATE INDEX participants_session ON participants (session_hash);
-- Covers the holder counts of Join.
CREATE INDEX participants_batch ON participants (status, batch);
-- Abandon's search.
CREATE INDEX participants_seen ON participants (status, last_seen);

-- The plans; the answer columns are NULL until answered_at is set.
CREATE TABLE trials (
	participant {{.Int64}} NOT NULL REFERENCES participants (id),
	idx INTEGER NOT NULL,
	role TEXT NOT NULL,
	stimulus_id TEXT NOT NULL,
	token TEXT NOT NULL UNIQUE,
	mask INTEGER NOT NULL,
	response TEXT,
	rt_ms {{.Float}},
	shown_ms {{.Float}},
	mask_ms {{.Float}},
	refresh_hz {{.Float}},
	frames INTEGER,
	timing_ok {{.Bool}},
	input TEXT,
	answered_at {{.Time}},
	PRIMARY KEY (participant, idx)
){{.ClusteredTable}};
-- Each participant's unanswered trials: the next one is the first.
CREATE INDEX trials_open ON trials (participant, idx) WHERE answered_at IS NULL;
