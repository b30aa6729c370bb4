package loadtest

import (
	"context"
	"fmt"
	"strings"

	"github.com/vcr-bench/vcr/experiment"
)

// Verification is what Verify found.
type Verification struct {
	Participants int `json:"participants"`
	// Completed counts participants whose every trial is answered.
	// Incomplete counts the participants with acknowledged responses that
	// have unanswered trials and were not screened out; IncompleteIDs lists
	// the first 20 of them.
	Completed     int      `json:"completed"`
	Incomplete    int      `json:"incomplete"`
	IncompleteIDs []string `json:"incomplete_ids,omitempty"`
	// Answered is the number of answered trials in the store; Acked the
	// number of acknowledged responses checked; Unacked the answered
	// trials of the checked participants that the client never saw
	// acknowledged (a response stored just before a crash, then answered
	// 409 on retry: allowed).
	Answered int `json:"answered"`
	Acked    int `json:"acked"`
	Unacked  int `json:"unacked"`
	// Lost: acknowledged but not in the store. Mismatched: stored with
	// another answer. Duplicated: a trial answered (or acknowledged) twice.
	Lost       int `json:"lost"`
	Mismatched int `json:"mismatched"`
	Duplicated int `json:"duplicated"`
	// NotPrefix: participants with an unanswered trial before an answered
	// one. PlanMismatch: participants whose stored trials are not
	// Design.Plan(batch, seq). RepeatedSource: participants who saw a
	// source image twice. OverfullBatches: batches with more than
	// ViewsPerBatch holders.
	NotPrefix       int `json:"not_prefix"`
	PlanMismatch    int `json:"plan_mismatch"`
	RepeatedSource  int `json:"repeated_source"`
	OverfullBatches int `json:"overfull_batches"`
	// MaxBatchHolders is the largest number of holders of one batch.
	MaxBatchHolders int `json:"max_batch_holders"`
	// Problems describes the first problems found.
	Problems []string `json:"problems,omitempty"`
}

// Err returns an error describing the problems, or nil when every check
// passed.
func (v *Verification) Err() error {
	if len(v.Problems) == 0 {
		return nil
	}
	return fmt.Errorf("verification failed: lost %d, mismatched %d, duplicated %d, not a prefix %d, plan mismatch %d, repeated source %d, overfull batches %d; %s",
		v.Lost, v.Mismatched, v.Duplicated, v.NotPrefix, v.PlanMismatch, v.RepeatedSource, v.OverfullBatches,
		strings.Join(v.Problems[:min(5, len(v.Problems))], "; "))
}

func (v *Verification) problem(format string, args ...any) {
	if len(v.Problems) < 50 {
		v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
	}
}

// Verify checks the store s against the design d and the acknowledged
// responses acked (Report.Acked):
//   - every acknowledged response is stored, with the same answer;
//   - no trial is answered twice (in the store's Answered stream or in
//     acked);
//   - every participant's answered trials are a prefix of its plan, and
//     the stored plan is d.Plan(batch, seq);
//   - no batch has more than d.ViewsPerBatch holders (active or completed
//     participants);
//   - no participant's plan shows a source image twice.
//
// d may be nil: the checks that need the design are then skipped. The
// returned error is for a store that could not be read; problems found are
// in the Verification (see Verification.Err).
func Verify(ctx context.Context, s experiment.Store, d *experiment.Design, acked []Ack) (*Verification, error) {
	v := &Verification{Acked: len(acked)}
	byExt := map[string]*experiment.Participant{}
	var ps []*experiment.Participant
	if err := s.Participants(ctx, func(p *experiment.Participant) error {
		q := *p
		byExt[q.ExternalID] = &q
		ps = append(ps, &q)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read participants: %w", err)
	}
	v.Participants = len(ps)

	// Answered stream: no (participant, index) twice.
	type key struct {
		p int64
		i int
	}
	seen := map[key]bool{}
	if err := s.Answered(ctx, func(t *experiment.Trial) error {
		k := key{t.Participant, t.Index}
		if seen[k] {
			v.Duplicated++
			v.problem("trial %d of participant %d answered twice in the store", t.Index, t.Participant)
		}
		seen[k] = true
		v.Answered++
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read answered trials: %w", err)
	}

	trials := map[int64][]experiment.Trial{}
	holders := map[int]int{}
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ts, err := s.Trials(ctx, p.ID)
		if err != nil {
			return nil, fmt.Errorf("read trials of participant %d: %w", p.ID, err)
		}
		trials[p.ID] = ts
		answered, gap, done := 0, -1, true
		for j, t := range ts {
			if t.Index != j {
				v.NotPrefix++
				v.problem("participant %s: trial %d has index %d", p.ExternalID, j, t.Index)
				break
			}
			if t.Answer == nil {
				done = false
				if gap < 0 {
					gap = j
				}
				continue
			}
			answered++
			if gap >= 0 {
				v.NotPrefix++
				v.problem("participant %s: trial %d answered but trial %d is not", p.ExternalID, j, gap)
				break
			}
		}
		if done && len(ts) > 0 {
			v.Completed++
		}
		if p.Batch >= 0 && (p.Status == experiment.StatusActive || p.Status == experiment.StatusCompleted) {
			holders[p.Batch]++
		}
		if d != nil {
			verifyPlan(v, d, p, ts)
		}
	}
	for b, n := range holders {
		v.MaxBatchHolders = max(v.MaxBatchHolders, n)
		if d != nil && n > d.ViewsPerBatch {
			v.OverfullBatches++
			v.problem("batch %d has %d holders, more than %d", b, n, d.ViewsPerBatch)
		}
	}

	// Acknowledged responses.
	acks := map[string]map[int]bool{}
	for _, a := range acked {
		if acks[a.ExternalID] == nil {
			acks[a.ExternalID] = map[int]bool{}
		}
		if acks[a.ExternalID][a.Index] {
			v.Duplicated++
			v.problem("participant %s: trial %d acknowledged twice", a.ExternalID, a.Index)
			continue
		}
		acks[a.ExternalID][a.Index] = true
		p := byExt[a.ExternalID]
		if p == nil {
			v.Lost++
			v.problem("participant %s: acknowledged trial %d but the participant is not in the store", a.ExternalID, a.Index)
			continue
		}
		ts := trials[p.ID]
		if a.Index < 0 || a.Index >= len(ts) || ts[a.Index].Answer == nil {
			v.Lost++
			v.problem("participant %s: acknowledged trial %d is not stored", a.ExternalID, a.Index)
			continue
		}
		if got := ts[a.Index].Answer.Response; got != a.Response {
			v.Mismatched++
			v.problem("participant %s: trial %d stored answer %q, acknowledged %q", a.ExternalID, a.Index, got, a.Response)
		}
	}
	for ext, idx := range acks {
		p := byExt[ext]
		if p == nil {
			continue
		}
		n, all := 0, true
		for _, t := range trials[p.ID] {
			if t.Answer != nil {
				n++
			} else {
				all = false
			}
		}
		v.Unacked += max(0, n-len(idx))
		if !all && p.Status != experiment.StatusScreenedOut {
			v.Incomplete++
			if len(v.IncompleteIDs) < 20 {
				v.IncompleteIDs = append(v.IncompleteIDs, ext)
			}
		}
	}
	return v, nil
}

// verifyPlan checks a participant's stored trials against the design.
func verifyPlan(v *Verification, d *experiment.Design, p *experiment.Participant, ts []experiment.Trial) {
	if p.Batch >= len(d.Batches) {
		v.PlanMismatch++
		v.problem("participant %s: batch %d out of range", p.ExternalID, p.Batch)
		return
	}
	plan := d.Plan(p.Batch, p.Seq)
	if len(plan) != len(ts) {
		v.PlanMismatch++
		v.problem("participant %s: %d stored trials, the plan has %d", p.ExternalID, len(ts), len(plan))
	} else {
		for j := range plan {
			if plan[j].StimulusID != ts[j].StimulusID || plan[j].Role != ts[j].Role {
				v.PlanMismatch++
				v.problem("participant %s: trial %d is %s %s, the plan says %s %s", p.ExternalID, j, ts[j].Role, ts[j].StimulusID, plan[j].Role, plan[j].StimulusID)
				break
			}
		}
	}
	sources := map[string]string{}
	for _, t := range ts {
		st := d.Stimulus(t.StimulusID)
		if st == nil {
			v.PlanMismatch++
			v.problem("participant %s: trial %d has unknown stimulus %q", p.ExternalID, t.Index, t.StimulusID)
			return
		}
		ids := []string{st.SourceID}
		if st.SourceID2 != "" && st.SourceID2 != st.SourceID {
			ids = append(ids, st.SourceID2)
		}
		for _, src := range ids {
			if prev, ok := sources[src]; ok {
				v.RepeatedSource++
				v.problem("participant %s: source %q in stimuli %s and %s", p.ExternalID, src, prev, st.ID)
				return
			}
			sources[src] = st.ID
		}
	}
}

// VerifyAll runs Verify and also requires that every participant with
// acknowledged responses completed its run (or was screened out); it
// returns the verification and an error describing the first problems.
func VerifyAll(ctx context.Context, s experiment.Store, d *experiment.Design, acked []Ack) (*Verification, error) {
	v, err := Verify(ctx, s, d, acked)
	if err != nil {
		return nil, err
	}
	if err := v.Err(); err != nil {
		return v, err
	}
	if v.Incomplete > 0 {
		return v, fmt.Errorf("verification failed: %d participants did not complete their runs: %s", v.Incomplete, strings.Join(v.IncompleteIDs, ", "))
	}
	return v, nil
}
