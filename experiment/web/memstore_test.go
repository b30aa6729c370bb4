package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// memStore is a test-only in-memory experiment.Store following the
// interface's documented semantics.
type memStore struct {
	mu     sync.Mutex
	d      *experiment.Design
	parts  []*experiment.Participant
	hashes map[int64][]byte
	trials map[int64][]experiment.Trial
	tokens map[string][2]int64 // token → participant, index
	// responds counts Respond calls that stored an answer.
	responds int
}

func newMemStore() *memStore {
	return &memStore{hashes: map[int64][]byte{}, trials: map[int64][]experiment.Trial{}, tokens: map[string][2]int64{}}
}

func (m *memStore) Init(ctx context.Context, d *experiment.Design) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.d != nil && m.d.Hash != d.Hash {
		return experiment.ErrDesignMismatch
	}
	m.d = d
	return nil
}

func holds(p *experiment.Participant) bool {
	return p.Status == experiment.StatusActive || p.Status == experiment.StatusCompleted
}

func (m *memStore) Join(ctx context.Context, req experiment.JoinRequest) (*experiment.Participant, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.parts {
		if p.ExternalID == req.ExternalID {
			m.hashes[p.ID] = append([]byte(nil), req.SessionHash...)
			p.LastSeen = req.Now
			c := *p
			return &c, false, nil
		}
	}
	batch := -1
	if len(m.d.Batches) > 0 {
		count := make([]int, len(m.d.Batches))
		for _, p := range m.parts {
			if p.Batch >= 0 && holds(p) {
				count[p.Batch]++
			}
		}
		for b, n := range count {
			if n < m.d.ViewsPerBatch && (batch < 0 || n < count[batch]) {
				batch = b
			}
		}
		if batch < 0 {
			return nil, false, experiment.ErrFull
		}
	}
	p := &experiment.Participant{ID: int64(len(m.parts) + 1), Seq: int64(len(m.parts)), ExternalID: req.ExternalID,
		Platform: req.Platform, StudyID: req.StudyID, SessionID: req.SessionID, Batch: batch,
		Status: experiment.StatusActive, UserAgent: req.UserAgent, Created: req.Now, LastSeen: req.Now}
	m.parts = append(m.parts, p)
	m.hashes[p.ID] = append([]byte(nil), req.SessionHash...)
	plan := m.d.Plan(batch, p.Seq)
	for i := range plan {
		b := make([]byte, 16)
		rand.Read(b)
		plan[i].Participant = p.ID
		plan[i].Token = hex.EncodeToString(b)
		m.tokens[plan[i].Token] = [2]int64{p.ID, int64(i)}
	}
	m.trials[p.ID] = plan
	c := *p
	return &c, true, nil
}

func (m *memStore) BySession(ctx context.Context, h []byte) (*experiment.Participant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.parts {
		if bytes.Equal(m.hashes[p.ID], h) {
			c := *p
			return &c, nil
		}
	}
	return nil, experiment.ErrNotFound
}

func (m *memStore) Trials(ctx context.Context, participant int64) ([]experiment.Trial, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts, ok := m.trials[participant]
	if !ok {
		return nil, experiment.ErrNotFound
	}
	out := make([]experiment.Trial, len(ts))
	for i, t := range ts {
		out[i] = t
		if t.Answer != nil {
			a := *t.Answer
			out[i].Answer = &a
		}
	}
	return out, nil
}

func (m *memStore) TrialByToken(ctx context.Context, token string) (*experiment.Trial, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.tokens[token]
	if !ok {
		return nil, experiment.ErrNotFound
	}
	t := m.trials[k[0]][k[1]]
	return &t, nil
}

func (m *memStore) part(id int64) *experiment.Participant {
	for _, p := range m.parts {
		if p.ID == id {
			return p
		}
	}
	return nil
}

func (m *memStore) Respond(ctx context.Context, participant int64, index int, r experiment.Response) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.part(participant)
	ts := m.trials[participant]
	if p == nil || index < 0 || index >= len(ts) {
		return experiment.ErrNotFound
	}
	if ts[index].Answer != nil {
		return experiment.ErrAnswered
	}
	if p.Status != experiment.StatusActive {
		return experiment.ErrClosed
	}
	for i := 0; i < index; i++ {
		if ts[i].Answer == nil {
			return experiment.ErrOutOfOrder
		}
	}
	ts[index].Answer = &r
	p.LastSeen = r.At
	m.responds++
	return nil
}

func (m *memStore) SetStatus(ctx context.Context, participant int64, st experiment.Status, reason string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.part(participant)
	if p == nil {
		return experiment.ErrNotFound
	}
	p.Status, p.Reason = st, reason
	return nil
}

func (m *memStore) Abandon(ctx context.Context, before time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, p := range m.parts {
		if p.Status == experiment.StatusActive && p.LastSeen.Before(before) {
			p.Status = experiment.StatusAbandoned
			n++
		}
	}
	return n, nil
}

func (m *memStore) Progress(ctx context.Context) (*experiment.Progress, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pr := &experiment.Progress{Participants: map[experiment.Status]int{}, Exclusions: map[string]int{}}
	cond := map[string]*experiment.ConditionProgress{}
	for _, p := range m.parts {
		pr.Participants[p.Status]++
		if p.Reason != "" {
			pr.Exclusions[p.Reason]++
		}
		for _, t := range m.trials[p.ID] {
			if t.Role != experiment.RoleMain {
				continue
			}
			c := m.d.Stimulus(t.StimulusID).Corruption
			if cond[c] == nil {
				cond[c] = &experiment.ConditionProgress{Corruption: c}
			}
			if holds(p) {
				cond[c].Planned++
			}
			if t.Answer != nil {
				cond[c].Answered++
				pr.TrialsAnswered++
				if !t.Answer.TimingOK {
					pr.TimingMisses++
				}
			}
		}
	}
	for _, c := range cond {
		pr.Conditions = append(pr.Conditions, *c)
	}
	sort.Slice(pr.Conditions, func(i, j int) bool { return pr.Conditions[i].Corruption < pr.Conditions[j].Corruption })
	for b := range m.d.Batches {
		bp := experiment.BatchProgress{ID: b}
		for _, p := range m.parts {
			if p.Batch == b {
				switch p.Status {
				case experiment.StatusActive:
					bp.Active++
				case experiment.StatusCompleted:
					bp.Completed++
				}
			}
		}
		pr.Batches = append(pr.Batches, bp)
	}
	return pr, nil
}

func (m *memStore) Participants(ctx context.Context, fn func(*experiment.Participant) error) error {
	m.mu.Lock()
	ps := make([]experiment.Participant, len(m.parts))
	for i, p := range m.parts {
		ps[i] = *p
	}
	m.mu.Unlock()
	for i := range ps {
		if err := fn(&ps[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Answered(ctx context.Context, fn func(*experiment.Trial) error) error {
	m.mu.Lock()
	var ts []experiment.Trial
	for _, p := range m.parts {
		for _, t := range m.trials[p.ID] {
			if t.Answer != nil {
				ts = append(ts, t)
			}
		}
	}
	m.mu.Unlock()
	for i := range ts {
		if err := fn(&ts[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Close() error { return nil }
