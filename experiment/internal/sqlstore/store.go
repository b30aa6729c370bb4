package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// Dialect is what differs between the SQL backends.
type Dialect struct {
	// Name names the backend and the database in every error, e.g.
	// "sqlite exp.sqlite" or "postgres db.example.org/exp".
	Name string
	// Dollar rewrites the ? placeholders of the shared queries as $1, $2, …
	Dollar bool
	// Lock, when set, is executed first in every write transaction that
	// must be serialised against other processes: Init, Join, SetStatus
	// and Abandon.
	Lock string
	// Time converts a time (UTC, µs precision) to the stored value.
	Time func(time.Time) any
	// ReadTx are the options of the read-only snapshot Progress reads.
	ReadTx sql.TxOptions
	// Retryable reports whether a failed write transaction may be retried
	// (deadlock, serialisation failure); nil for never.
	Retryable func(error) bool
	// Types are the column types of the schema.
	Types Types
}

// TimeLayout is how SQLite stores times: fixed width, UTC, microseconds, so
// that text order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// TokenBytes is the number of random bytes in a trial token (144 bits); the
// token is their unpadded base64url encoding, 24 characters.
const TokenBytes = 18

// Store implements experiment.Store on a database/sql database.
type Store struct {
	w, r *sql.DB // writes, reads (the same pool for PostgreSQL)
	d    Dialect

	design atomic.Pointer[experiment.Design]

	mu    sync.Mutex // guards stmts
	stmts map[stmtKey]*sql.Stmt
}

type stmtKey struct {
	db    *sql.DB
	query string
}

// New returns a store on the databases w (writes) and r (reads; may be w).
// The store owns them: Close closes them.
func New(w, r *sql.DB, d Dialect) *Store {
	return &Store{w: w, r: r, d: d, stmts: map[stmtKey]*sql.Stmt{}}
}

// Name returns the dialect's name of the database.
func (s *Store) Name() string { return s.d.Name }

// DB returns the database/sql handle used for writes (for tests and tools).
func (s *Store) DB() *sql.DB { return s.w }

func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %s: %w", s.d.Name, op, err)
}

// q rewrites the placeholders of query for the dialect.
func (s *Store) q(query string) string {
	if !s.d.Dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// stmt returns query prepared on db, s.w or s.r. Init prepares the
// statements of the frequent operations; one asked for before is prepared
// here (database/sql then prepares it on each connection as needed).
func (s *Store) stmt(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	k := stmtKey{db, query}
	s.mu.Lock()
	st, ok := s.stmts[k]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	// Prepare without holding mu: it may wait for a connection.
	st, err := db.PrepareContext(ctx, s.q(query))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.stmts[k]; ok {
		st.Close()
		return old, nil
	}
	s.stmts[k] = st
	return st, nil
}

// txStmt returns query, prepared on the write pool by Init, bound to tx.
// (It must not prepare on the pool here: with SQLite's single writer
// connection held by tx that would wait forever.)
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	st, ok := s.stmts[stmtKey{s.w, query}]
	s.mu.Unlock()
	if !ok {
		return tx.PrepareContext(ctx, s.q(query))
	}
	return tx.StmtContext(ctx, st), nil
}

// write runs fn in a write transaction, serialised by the dialect's Lock
// when lock is set, and retries it a few times when the dialect says the
// failure is transient.
func (s *Store) write(ctx context.Context, lock bool, fn func(tx *sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.tryWrite(ctx, lock, fn)
		if err == nil || attempt >= 8 || s.d.Retryable == nil || !s.d.Retryable(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * time.Millisecond)
	}
}

func (s *Store) tryWrite(ctx context.Context, lock bool, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if lock && s.d.Lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.Lock); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (s *Store) now(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// timeCol scans a stored time.
type timeCol struct {
	t     *time.Time
	valid bool
}

func (c *timeCol) Scan(v any) error {
	c.valid = v != nil
	switch v := v.(type) {
	case nil:
		*c.t = time.Time{}
	case time.Time:
		*c.t = v.UTC()
	case string:
		return c.parse(v)
	case []byte:
		return c.parse(string(v))
	default:
		return fmt.Errorf("time column holds %T", v)
	}
	return nil
}

func (c *timeCol) parse(v string) error {
	t, err := time.Parse(TimeLayout, v)
	if err != nil {
		return fmt.Errorf("time column: %w", err)
	}
	*c.t = t.UTC()
	return nil
}

func (s *Store) designOrErr() (*experiment.Design, error) {
	d := s.design.Load()
	if d == nil {
		return nil, errors.New("Init has not been called")
	}
	return d, nil
}

// Init implements experiment.Store.
func (s *Store) Init(ctx context.Context, d *experiment.Design) error {
	if d == nil {
		panic("sqlstore: Init with a nil design")
	}
	if d.Hash == "" {
		return s.wrap("init", errors.New("the design has no hash (call Design.Freeze)"))
	}
	if err := s.migrate(ctx); err != nil {
		return s.wrap("migrate", err)
	}
	for _, q := range []struct {
		db    *sql.DB
		query string
	}{{s.w, respondTouch}, {s.w, respondCheck}, {s.w, respondUpdate}, {s.w, qServedStim}, {s.w, qServedMask},
		{s.r, qBySession}, {s.r, qTrials}, {s.r, qByToken}} {
		if _, err := s.stmt(ctx, q.db, q.query); err != nil {
			return s.wrap("prepare", err)
		}
	}
	js, err := json.Marshal(d)
	if err != nil {
		return s.wrap("init", err)
	}
	err = s.write(ctx, true, func(tx *sql.Tx) error {
		var hash string
		err := tx.QueryRowContext(ctx, s.q(`SELECT hash FROM design WHERE id = 1`)).Scan(&hash)
		switch {
		case err == nil:
			if hash != d.Hash {
				return fmt.Errorf("it holds design %.12s, this is %q (%.12s); use another database or the original config: %w",
					hash, d.Name, d.Hash, experiment.ErrDesignMismatch)
			}
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		now := s.now(time.Time{})
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO design (id, hash, name, design, created) VALUES (1, ?, ?, ?, ?)`),
			d.Hash, d.Name, string(js), s.d.Time(now)); err != nil {
			return err
		}
		for i, b := range d.Batches {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO batches (id, size) VALUES (?, ?)`), i, len(b.Stimuli)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.wrap("init", err)
	}
	s.design.Store(d)
	return nil
}

// StoredDesign implements experiment.Store.
func (s *Store) StoredDesign(ctx context.Context) (*experiment.Design, error) {
	var js string
	err := s.r.QueryRowContext(ctx, s.q(`SELECT design FROM design WHERE id = 1`)).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("the database holds no experiment yet: %w", experiment.ErrNotFound)
	}
	if err != nil {
		// A database without the schema (never served) holds no design
		// either; any other failure is reported as is.
		var n int
		if serr := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); serr != nil {
			return nil, fmt.Errorf("the database holds no experiment yet: %w", experiment.ErrNotFound)
		}
		return nil, s.wrap("read the design", err)
	}
	d := &experiment.Design{}
	if err := json.Unmarshal([]byte(js), d); err != nil {
		return nil, s.wrap("read the design", err)
	}
	want := d.Hash
	d.Freeze()
	if d.Hash != want {
		return nil, s.wrap("read the design", fmt.Errorf("the recorded design does not match its hash %.12s", want))
	}
	return d, nil
}

const participantCols = `id, seq, external_id, platform, study_id, session_id, batch, status, reason, user_agent, created, last_seen`

type scanner interface{ Scan(...any) error }

func scanParticipant(row scanner) (*experiment.Participant, error) {
	var p experiment.Participant
	var batch sql.NullInt64
	var status string
	if err := row.Scan(&p.ID, &p.Seq, &p.ExternalID, &p.Platform, &p.StudyID, &p.SessionID, &batch, &status,
		&p.Reason, &p.UserAgent, &timeCol{t: &p.Created}, &timeCol{t: &p.LastSeen}); err != nil {
		return nil, err
	}
	p.Status = experiment.Status(status)
	p.Batch = -1
	if batch.Valid {
		p.Batch = int(batch.Int64)
	}
	return &p, nil
}

// Join implements experiment.Store.
func (s *Store) Join(ctx context.Context, req experiment.JoinRequest) (*experiment.Participant, bool, error) {
	d, err := s.designOrErr()
	if err != nil {
		return nil, false, s.wrap("join", err)
	}
	if req.ExternalID == "" {
		return nil, false, s.wrap("join", errors.New("empty external id"))
	}
	now := s.now(req.Now)
	var p *experiment.Participant
	var created bool
	err = s.write(ctx, true, func(tx *sql.Tx) error {
		p, created = nil, false
		old, err := scanParticipant(tx.QueryRowContext(ctx, s.q(qByExternalID), req.ExternalID))
		if err == nil {
			if _, err := tx.ExecContext(ctx, s.q(qRejoin), req.SessionHash, old.ID); err != nil {
				return err
			}
			p = old
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if req.Addr != "" && req.MaxPerAddr > 0 {
			var held int
			if err := tx.QueryRowContext(ctx, s.q(qAddrHolders), req.Addr).Scan(&held); err != nil {
				return err
			}
			if held >= req.MaxPerAddr {
				return experiment.ErrAddrLimit
			}
		}
		batch, err := s.pickBatch(ctx, tx, d)
		if err != nil {
			return err
		}
		np := &experiment.Participant{ExternalID: req.ExternalID, Platform: req.Platform, StudyID: req.StudyID,
			SessionID: req.SessionID, Batch: batch, Status: experiment.StatusActive, UserAgent: req.UserAgent,
			Created: now, LastSeen: now}
		if err := tx.QueryRowContext(ctx, s.q(qNextSeq)).Scan(&np.Seq); err != nil {
			return err
		}
		var dbBatch any
		if batch >= 0 {
			dbBatch = batch
		}
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO participants (seq, external_id, platform, study_id, session_id, batch, status, reason, user_agent, session_hash, created, last_seen, join_addr)
			VALUES (?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?) RETURNING id`),
			np.Seq, np.ExternalID, np.Platform, np.StudyID, np.SessionID, dbBatch, string(np.Status), np.UserAgent,
			req.SessionHash, s.d.Time(now), s.d.Time(now), req.Addr).Scan(&np.ID); err != nil {
			return err
		}
		if err := s.insertPlan(ctx, tx, np.ID, d.Plan(batch, np.Seq)); err != nil {
			return err
		}
		p, created = np, true
		return nil
	})
	if err != nil {
		return nil, false, s.wrap("join "+req.ExternalID, err)
	}
	return p, created, nil
}

// pickBatch returns the batch with the fewest holders below
// d.ViewsPerBatch (ties to the lowest), −1 for a design without batches,
// or ErrFull.
func (s *Store) pickBatch(ctx context.Context, tx *sql.Tx, d *experiment.Design) (int, error) {
	if len(d.Batches) == 0 {
		return -1, nil
	}
	holders := make([]int, len(d.Batches))
	rows, err := tx.QueryContext(ctx, s.q(qHolders))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var b, n int
		if err := rows.Scan(&b, &n); err != nil {
			return 0, err
		}
		if b >= 0 && b < len(holders) {
			holders[b] = n
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	best := -1
	for b, n := range holders {
		if n < d.ViewsPerBatch && (best < 0 || n < holders[best]) {
			best = b
		}
	}
	if best < 0 {
		return 0, experiment.ErrFull
	}
	return best, nil
}

// insertRows is how many trials one INSERT writes.
const insertRows = 100

func (s *Store) insertPlan(ctx context.Context, tx *sql.Tx, participant int64, plan []experiment.Trial) error {
	buf := make([]byte, TokenBytes*len(plan))
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	for start := 0; start < len(plan); start += insertRows {
		part := plan[start:min(start+insertRows, len(plan))]
		var b strings.Builder
		b.WriteString(`INSERT INTO trials (participant, idx, role, stimulus_id, token, mask) VALUES `)
		args := make([]any, 0, 6*len(part))
		for i, t := range part {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?)")
			k := start + i
			tok := base64.RawURLEncoding.EncodeToString(buf[k*TokenBytes : (k+1)*TokenBytes])
			args = append(args, participant, t.Index, string(t.Role), t.StimulusID, tok, t.Mask)
		}
		if _, err := tx.ExecContext(ctx, s.q(b.String()), args...); err != nil {
			return err
		}
	}
	return nil
}

// BySession implements experiment.Store.
func (s *Store) BySession(ctx context.Context, h []byte) (*experiment.Participant, error) {
	if len(h) == 0 {
		return nil, s.wrap("by session", experiment.ErrNotFound)
	}
	return one(ctx, s, "by session", qBySession, scanParticipant, h)
}

// one reads the row of a point query with scan: ErrNotFound when there is
// none.
func one[T any](ctx context.Context, s *Store, op, query string, scan func(scanner) (T, error), args ...any) (T, error) {
	var v T
	st, err := s.stmt(ctx, s.r, query)
	if err == nil {
		v, err = scan(st.QueryRowContext(ctx, args...))
	}
	if errors.Is(err, sql.ErrNoRows) {
		err = experiment.ErrNotFound
	}
	return v, s.wrap(op, err)
}

const trialCols = `participant, idx, role, stimulus_id, token, mask, response, rt_ms, shown_ms, mask_ms, refresh_hz, frames, timing_ok, input, answered_at,
	stimulus_served, mask_served, implausible`

func scanTrial(row scanner) (*experiment.Trial, error) {
	var t experiment.Trial
	var role string
	var resp, input, implausible sql.NullString
	var rt, shown, mask, hz sql.NullFloat64
	var frames sql.NullInt64
	var ok sql.NullBool
	var at time.Time
	atc := timeCol{t: &at}
	if err := row.Scan(&t.Participant, &t.Index, &role, &t.StimulusID, &t.Token, &t.Mask,
		&resp, &rt, &shown, &mask, &hz, &frames, &ok, &input, &atc,
		&timeCol{t: &t.StimulusServed}, &timeCol{t: &t.MaskServed}, &implausible); err != nil {
		return nil, err
	}
	t.Role = experiment.Role(role)
	if atc.valid {
		t.Answer = &experiment.Response{Response: resp.String, RTms: rt.Float64, ShownMS: shown.Float64,
			MaskMS: mask.Float64, RefreshHz: hz.Float64, Frames: int(frames.Int64), TimingOK: ok.Bool,
			Implausible: implausible.String, Input: input.String, At: at}
	}
	return &t, nil
}

// Trials implements experiment.Store.
func (s *Store) Trials(ctx context.Context, participant int64) ([]experiment.Trial, error) {
	st, err := s.stmt(ctx, s.r, qTrials)
	if err != nil {
		return nil, s.wrap("trials", err)
	}
	var out []experiment.Trial
	err = each(ctx, st, []any{participant}, func(rows *sql.Rows) error {
		t, err := scanTrial(rows)
		if err != nil {
			return err
		}
		out = append(out, *t)
		return nil
	})
	if err == nil && len(out) == 0 {
		var one int
		err = s.r.QueryRowContext(ctx, s.q(qExists), participant).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			err = experiment.ErrNotFound
		}
	}
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("trials of participant %d", participant), err)
	}
	return out, nil
}

// each runs st and calls fn per row.
func each(ctx context.Context, st *sql.Stmt, args []any, fn func(*sql.Rows) error) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TrialByToken implements experiment.Store.
func (s *Store) TrialByToken(ctx context.Context, token string) (*experiment.Trial, error) {
	return one(ctx, s, "trial by token", qByToken, scanTrial, token)
}

// Respond implements experiment.Store. The checks, in order: unknown
// participant or index → ErrNotFound; answered already → ErrAnswered (so a
// repeated submission of the last trial says so even after the participant
// completed); participant not active → ErrClosed; an earlier trial
// unanswered → ErrOutOfOrder.
func (s *Store) Respond(ctx context.Context, participant int64, index int, r experiment.Response) error {
	op := fmt.Sprintf("respond participant %d trial %d", participant, index)
	for name, v := range map[string]float64{"rt_ms": r.RTms, "shown_ms": r.ShownMS, "mask_ms": r.MaskMS, "refresh_hz": r.RefreshHz} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return s.wrap(op, fmt.Errorf("%s is %v; it must be a finite number", name, v))
		}
	}
	at := s.now(r.At)
	err := s.write(ctx, false, func(tx *sql.Tx) error {
		touch, err := s.txStmt(ctx, tx, respondTouch)
		if err != nil {
			return err
		}
		var status string
		if err := touch.QueryRowContext(ctx, s.d.Time(at), participant).Scan(&status); errors.Is(err, sql.ErrNoRows) {
			return experiment.ErrNotFound
		} else if err != nil {
			return err
		}
		check, err := s.txStmt(ctx, tx, respondCheck)
		if err != nil {
			return err
		}
		var answered bool
		var next sql.NullInt64
		err = check.QueryRowContext(ctx, participant, index).Scan(&answered, &next)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return experiment.ErrNotFound
		case err != nil:
			return err
		case answered:
			return experiment.ErrAnswered
		case status != string(experiment.StatusActive):
			return experiment.ErrClosed
		case next.Valid && next.Int64 < int64(index):
			return experiment.ErrOutOfOrder
		}
		upd, err := s.txStmt(ctx, tx, respondUpdate)
		if err != nil {
			return err
		}
		res, err := upd.ExecContext(ctx, r.Response, r.RTms, r.ShownMS, r.MaskMS, r.RefreshHz, r.Frames, r.TimingOK,
			r.Implausible, r.Input, s.d.Time(at), participant, index)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			// Unreachable while the participant row is locked; kept so
			// that a lost race can never overwrite an answer.
			return experiment.ErrAnswered
		}
		return nil
	})
	return s.wrap(op, err)
}

// Served implements experiment.Store.
func (s *Store) Served(ctx context.Context, images []experiment.ServedImage) error {
	if len(images) == 0 {
		return nil
	}
	err := s.write(ctx, false, func(tx *sql.Tx) error {
		for _, im := range images {
			query := qServedStim
			if im.Mask {
				query = qServedMask
			}
			st, err := s.txStmt(ctx, tx, query)
			if err != nil {
				return err
			}
			if _, err := st.ExecContext(ctx, s.d.Time(s.now(im.At)), im.Token); err != nil {
				return err
			}
		}
		return nil
	})
	return s.wrap(fmt.Sprintf("record %d served images", len(images)), err)
}

var statuses = []experiment.Status{experiment.StatusActive, experiment.StatusCompleted, experiment.StatusScreenedOut,
	experiment.StatusExcluded, experiment.StatusAbandoned}

// SetStatus implements experiment.Store. It also sets LastSeen to now.
func (s *Store) SetStatus(ctx context.Context, participant int64, st experiment.Status, reason string, now time.Time) error {
	op := fmt.Sprintf("set status of participant %d", participant)
	if !slices.Contains(statuses, st) {
		return s.wrap(op, fmt.Errorf("unknown status %q", st))
	}
	now = s.now(now)
	err := s.write(ctx, true, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(qSetStatus),
			string(st), reason, s.d.Time(now), participant)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return experiment.ErrNotFound
		}
		return nil
	})
	return s.wrap(op, err)
}

// AbandonReason is the Reason Abandon records.
const AbandonReason = "abandoned"

// Abandon implements experiment.Store.
func (s *Store) Abandon(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, true, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(qAbandon),
			string(experiment.StatusAbandoned), AbandonReason, string(experiment.StatusActive), s.d.Time(before.UTC()))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, s.wrap("abandon", err)
	}
	return int(n), nil
}

// Progress implements experiment.Store. All counts come from one snapshot.
// Conditions lists every corruption of the design's batches ("" = clean
// originals) in name order; Answered counts every answered main trial,
// Planned the main trials of active and completed participants.
// TimingMisses counts answered trials (any role) with TimingOK false.
func (s *Store) Progress(ctx context.Context) (*experiment.Progress, error) {
	d, err := s.designOrErr()
	if err != nil {
		return nil, s.wrap("progress", err)
	}
	opts := s.d.ReadTx
	tx, err := s.r.BeginTx(ctx, &opts)
	if err != nil {
		return nil, s.wrap("progress", err)
	}
	defer tx.Rollback()
	p, err := s.progress(ctx, tx, d)
	if err != nil {
		return nil, s.wrap("progress", err)
	}
	return p, nil
}

func (s *Store) progress(ctx context.Context, tx *sql.Tx, d *experiment.Design) (*experiment.Progress, error) {
	p := &experiment.Progress{Participants: map[experiment.Status]int{}, Exclusions: map[string]int{},
		Batches: make([]experiment.BatchProgress, len(d.Batches)), Conditions: []experiment.ConditionProgress{}}
	for _, st := range statuses {
		p.Participants[st] = 0
	}
	for i, b := range d.Batches {
		p.Batches[i].ID = b.ID
	}
	rows, err := tx.QueryContext(ctx, `SELECT status, reason, batch, COUNT(*) FROM participants GROUP BY status, reason, batch`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var st, reason string
		var batch sql.NullInt64
		var n int
		if err := rows.Scan(&st, &reason, &batch, &n); err != nil {
			return nil, err
		}
		status := experiment.Status(st)
		p.Participants[status] += n
		if status == experiment.StatusScreenedOut || status == experiment.StatusExcluded {
			p.Exclusions[reason] += n
		}
		if batch.Valid && batch.Int64 >= 0 && int(batch.Int64) < len(p.Batches) {
			switch status {
			case experiment.StatusActive:
				p.Batches[batch.Int64].Active += n
			case experiment.StatusCompleted:
				p.Batches[batch.Int64].Completed += n
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	cond := map[string]*experiment.ConditionProgress{}
	for _, b := range d.Batches {
		for _, id := range b.Stimuli {
			c := ""
			if st := d.Stimulus(id); st != nil {
				c = st.Corruption
			}
			if cond[c] == nil {
				cond[c] = &experiment.ConditionProgress{Corruption: c}
			}
		}
	}
	rows, err = tx.QueryContext(ctx, s.q(`SELECT t.stimulus_id,
			SUM(CASE WHEN p.status IN ('active', 'completed') THEN 1 ELSE 0 END),
			COUNT(t.answered_at)
		FROM trials t JOIN participants p ON p.id = t.participant
		WHERE t.role = ? GROUP BY t.stimulus_id`), string(experiment.RoleMain))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var planned, answered int
		if err := rows.Scan(&id, &planned, &answered); err != nil {
			return nil, err
		}
		c := ""
		if st := d.Stimulus(id); st != nil {
			c = st.Corruption
		}
		if cond[c] == nil {
			cond[c] = &experiment.ConditionProgress{Corruption: c}
		}
		cond[c].Planned += planned
		cond[c].Answered += answered
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, c := range cond {
		p.Conditions = append(p.Conditions, *c)
	}
	slices.SortFunc(p.Conditions, func(a, b experiment.ConditionProgress) int { return strings.Compare(a.Corruption, b.Corruption) })

	err = tx.QueryRowContext(ctx, `SELECT COUNT(answered_at),
		COALESCE(SUM(CASE WHEN answered_at IS NOT NULL AND NOT timing_ok THEN 1 ELSE 0 END), 0) FROM trials`).
		Scan(&p.TrialsAnswered, &p.TimingMisses)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Participants implements experiment.Store.
func (s *Store) Participants(ctx context.Context, fn func(*experiment.Participant) error) error {
	return iterate(ctx, s, "participants", `SELECT `+participantCols+` FROM participants ORDER BY id`, scanParticipant, fn)
}

// Answered implements experiment.Store.
func (s *Store) Answered(ctx context.Context, fn func(*experiment.Trial) error) error {
	return iterate(ctx, s, "answered trials",
		`SELECT `+trialCols+` FROM trials WHERE answered_at IS NOT NULL ORDER BY participant, idx`, scanTrial, fn)
}

// iterate calls fn for each row of query, read with scan; fn's error is
// returned as it is.
func iterate[T any](ctx context.Context, s *Store, op, query string, scan func(scanner) (T, error), fn func(T) error) error {
	rows, err := s.r.QueryContext(ctx, query)
	if err != nil {
		return s.wrap(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return s.wrap(op, err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return s.wrap(op, rows.Err())
}

// Close implements experiment.Store.
func (s *Store) Close() error {
	s.mu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = map[stmtKey]*sql.Stmt{}
	s.mu.Unlock()
	err := s.w.Close()
	if s.r != s.w {
		err = errors.Join(err, s.r.Close())
	}
	return s.wrap("close", err)
}

var _ experiment.Store = (*Store)(nil)
