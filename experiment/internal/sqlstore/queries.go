package sqlstore

// The queries of the frequent operations. Each must find its rows through
// an index (the SQLite tests check the query plans).
const (
	qByExternalID = `SELECT ` + participantCols + ` FROM participants WHERE external_id = ?`
	// qRejoin replaces the session only: a rejoin is no progress, so it
	// leaves last_seen (what keeps a place held) alone.
	qRejoin = `UPDATE participants SET session_hash = ? WHERE id = ?`
	// qAddrHolders counts the places held by participants who joined from
	// one address (index participants_addr).
	qAddrHolders = `SELECT COUNT(*) FROM participants WHERE join_addr = ? AND status IN ('active', 'completed')`
	qNextSeq     = `SELECT COALESCE(MAX(seq) + 1, 0) FROM participants`
	// qHolders reads the covering index participants_batch (status,
	// batch): one entry per holder, fine for the thousands a study has.
	qHolders = `SELECT batch, COUNT(*) FROM participants
		WHERE batch IS NOT NULL AND status IN ('active', 'completed') GROUP BY batch`
	qBySession  = `SELECT ` + participantCols + ` FROM participants WHERE session_hash = ? ORDER BY id LIMIT 1`
	qTrials     = `SELECT ` + trialCols + ` FROM trials WHERE participant = ? ORDER BY idx`
	qExists     = `SELECT 1 FROM participants WHERE id = ?`
	qByToken    = `SELECT ` + trialCols + ` FROM trials WHERE token = ?`
	qSetStatus  = `UPDATE participants SET status = ?, reason = ?, last_seen = ? WHERE id = ?`
	qAbandon    = `UPDATE participants SET status = ?, reason = ? WHERE status = ? AND last_seen < ?`
	qServedStim = `UPDATE trials SET stimulus_served = ? WHERE token = ?`
	qServedMask = `UPDATE trials SET mask_served = ? WHERE token = ?`
)

// The statements of Respond, prepared by Init. respondTouch comes first:
// it locks the participant's row (PostgreSQL; SQLite's writer is serial
// anyway), so the statements after it see every answer committed before,
// and submissions for one participant queue there.
const (
	respondTouch = `UPDATE participants SET last_seen = ? WHERE id = ? RETURNING status`
	// respondCheck reads whether the trial is answered and the
	// participant's next unanswered trial (from the partial index
	// trials_open).
	respondCheck = `SELECT t.answered_at IS NOT NULL,
			(SELECT MIN(u.idx) FROM trials u WHERE u.participant = t.participant AND u.answered_at IS NULL)
		FROM trials t WHERE t.participant = ? AND t.idx = ?`
	respondUpdate = `UPDATE trials SET response = ?, rt_ms = ?, shown_ms = ?, mask_ms = ?, refresh_hz = ?,
		frames = ?, timing_ok = ?, implausible = ?, input = ?, answered_at = ? WHERE participant = ? AND idx = ? AND answered_at IS NULL`
)

// PointQueries are the queries above by name, with ? placeholders, for
// tests that check their plans.
var PointQueries = map[string]string{
	"by external id": qByExternalID, "rejoin": qRejoin, "next seq": qNextSeq, "holders": qHolders,
	"by session": qBySession, "trials": qTrials, "exists": qExists, "by token": qByToken,
	"set status": qSetStatus, "abandon": qAbandon, "addr holders": qAddrHolders,
	"served stimulus": qServedStim, "served mask": qServedMask,
	"respond touch": respondTouch, "respond check": respondCheck, "respond update": respondUpdate,
}
