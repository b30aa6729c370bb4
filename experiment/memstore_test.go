package experiment

import (
	"context"
	"errors"
	"sync"
	"time"
)

// memStore is an in-memory Store for the tests of this package (Export,
// DistinguishReport); the real stores are in experiment/sqlite and
// experiment/postgres. It implements what the tests use: Init, Join,
// Trials, Respond, SetStatus, Participants and Answered.
type memStore struct {
	mu     sync.Mutex
	d      *Design
	parts  []*Participant
	trials map[int64][]Trial
}

var errMemUnsupported = errors.New("memStore: not used by these tests")

func (s *memStore) Init(ctx context.Context, d *Design) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d != nil && s.d.Hash != d.Hash {
		return ErrDesignMismatch
	}
	s.d, s.trials = d, map[int64][]Trial{}
	return nil
}

func (s *memStore) Join(ctx context.Context, req JoinRequest) (*Participant, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.parts {
		if p.ExternalID == req.ExternalID {
			c := *p
			return &c, false, nil
		}
	}
	holders := make([]int, len(s.d.Batches))
	for _, p := range s.parts {
		if p.Batch >= 0 && (p.Status == StatusActive || p.Status == StatusCompleted) {
			holders[p.Batch]++
		}
	}
	batch := -1
	for i, h := range holders {
		if h < s.d.ViewsPerBatch && (batch < 0 || h < holders[batch]) {
			batch = i
		}
	}
	if batch < 0 && len(s.d.Batches) > 0 {
		return nil, false, ErrFull
	}
	p := &Participant{ID: int64(len(s.parts) + 1), Seq: int64(len(s.parts)), ExternalID: req.ExternalID, Platform: req.Platform,
		SessionID: req.SessionID, Batch: batch, Status: StatusActive, Created: req.Now, LastSeen: req.Now}
	s.parts = append(s.parts, p)
	plan := s.d.Plan(batch, p.Seq)
	for i := range plan {
		plan[i].Participant = p.ID
	}
	s.trials[p.ID] = plan
	c := *p
	return &c, true, nil
}

func (s *memStore) BySession(ctx context.Context, h []byte) (*Participant, error) {
	return nil, errMemUnsupported
}

func (s *memStore) Trials(ctx context.Context, participant int64) ([]Trial, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts, ok := s.trials[participant]
	if !ok {
		return nil, ErrNotFound
	}
	out := make([]Trial, len(ts))
	for i, t := range ts {
		out[i] = t
		if t.Answer != nil {
			a := *t.Answer
			out[i].Answer = &a
		}
	}
	return out, nil
}

func (s *memStore) TrialByToken(ctx context.Context, token string) (*Trial, error) {
	return nil, errMemUnsupported
}

func (s *memStore) Respond(ctx context.Context, participant int64, index int, r Response) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts, ok := s.trials[participant]
	if !ok || index < 0 || index >= len(ts) {
		return ErrNotFound
	}
	if s.parts[participant-1].Status != StatusActive {
		return ErrClosed
	}
	if ts[index].Answer != nil {
		return ErrAnswered
	}
	if index > 0 && ts[index-1].Answer == nil {
		return ErrOutOfOrder
	}
	ts[index].Answer = &r
	return nil
}

func (s *memStore) SetStatus(ctx context.Context, participant int64, st Status, reason string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if participant < 1 || int(participant) > len(s.parts) {
		return ErrNotFound
	}
	s.parts[participant-1].Status, s.parts[participant-1].Reason = st, reason
	return nil
}

func (s *memStore) Abandon(ctx context.Context, before time.Time) (int, error) {
	return 0, errMemUnsupported
}

func (s *memStore) Progress(ctx context.Context) (*Progress, error) { return nil, errMemUnsupported }

func (s *memStore) Participants(ctx context.Context, fn func(*Participant) error) error {
	s.mu.Lock()
	parts := make([]Participant, len(s.parts))
	for i, p := range s.parts {
		parts[i] = *p
	}
	s.mu.Unlock()
	for i := range parts {
		if err := fn(&parts[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *memStore) Answered(ctx context.Context, fn func(*Trial) error) error {
	s.mu.Lock()
	var out []Trial
	for _, p := range s.parts {
		for _, t := range s.trials[p.ID] {
			if t.Answer != nil {
				out = append(out, t)
			}
		}
	}
	s.mu.Unlock()
	for i := range out {
		if err := fn(&out[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *memStore) Close() error { return nil }

var _ Store = (*memStore)(nil)
