package loadtest_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/e2e"
	"github.com/vcr-bench/vcr/experiment/loadtest"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// verifyFixture is a SQLite store with 4 participants of a tiny design:
// p0 and p1 answered everything, p2 the first 3 trials, p3 nothing; acked
// lists every stored answer.
func verifyFixture(t *testing.T) (experiment.Store, *experiment.Design, []loadtest.Ack) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	d, err := e2e.TinyDesign(dir, e2e.DesignOptions{Batches: 2, PerBatch: 3, ViewsPerBatch: 2, Practice: 1, Qualification: 1, Sanity: 1, SanityMaxFailures: 1, Images: 2, Size: 16, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(filepath.Join(dir, "v.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Init(ctx, d); err != nil {
		t.Fatal(err)
	}
	var acked []loadtest.Ack
	now := time.Unix(1_800_000_000, 0)
	for i, answer := range []int{-1, -1, 3, 0} {
		ext := fmt.Sprintf("v%d", i)
		h := sha256.Sum256([]byte(ext))
		p, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: ext, Platform: "direct", SessionHash: h[:], Now: now})
		if err != nil {
			t.Fatal(err)
		}
		trials, err := s.Trials(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if answer < 0 {
			answer = len(trials)
		}
		for j := 0; j < answer; j++ {
			r := experiment.Response{Response: d.Categories[j%len(d.Categories)].Name, RTms: 500, ShownMS: 200, MaskMS: 200, RefreshHz: 60, Frames: 12, TimingOK: true, Input: "key", At: now}
			if err := s.Respond(ctx, p.ID, j, r); err != nil {
				t.Fatal(err)
			}
			acked = append(acked, loadtest.Ack{ExternalID: ext, Index: j, Response: r.Response})
		}
	}
	return s, d, acked
}

func TestVerify(t *testing.T) {
	ctx := context.Background()
	s, d, acked := verifyFixture(t)
	perParticipant := len(d.Plan(0, 0))

	v, err := loadtest.Verify(ctx, s, d, acked)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Err(); err != nil {
		t.Fatalf("a consistent store fails: %v", err)
	}
	if v.Participants != 4 || v.Completed != 2 || v.Answered != 2*perParticipant+3 || v.Acked != len(acked) || v.Incomplete != 1 || v.MaxBatchHolders != 2 {
		t.Errorf("verification %+v, want 4 participants, 2 completed, %d answered, 1 incomplete, 2 holders", *v, 2*perParticipant+3)
	}
	if _, err := loadtest.VerifyAll(ctx, s, d, acked); err == nil {
		t.Error("VerifyAll accepts a participant that did not complete its run")
	}
	// Without the acknowledgement of p2's answers, p2 counts as not
	// checked, and the rest is complete.
	var done []loadtest.Ack
	for _, a := range acked {
		if a.ExternalID != "v2" {
			done = append(done, a)
		}
	}
	if _, err := loadtest.VerifyAll(ctx, s, d, done); err != nil {
		t.Errorf("VerifyAll of completed participants: %v", err)
	}
	// Dropping an acknowledgement is allowed (stored just before a crash,
	// answered 409 on retry): it counts as unacknowledged.
	if v, _ := loadtest.Verify(ctx, s, d, done[1:]); v.Err() != nil || v.Unacked != 1 {
		t.Errorf("one acknowledgement fewer: Err %v, Unacked %d, want nil and 1", v.Err(), v.Unacked)
	}

	for _, tc := range []struct {
		name  string
		acked []loadtest.Ack
		field func(*loadtest.Verification) int
	}{
		{"lost (unanswered trial)", append(clone(acked), loadtest.Ack{ExternalID: "v2", Index: 3, Response: "car"}), func(v *loadtest.Verification) int { return v.Lost }},
		{"lost (unknown participant)", append(clone(acked), loadtest.Ack{ExternalID: "nobody", Index: 0, Response: "car"}), func(v *loadtest.Verification) int { return v.Lost }},
		{"lost (index out of range)", append(clone(acked), loadtest.Ack{ExternalID: "v3", Index: 99, Response: "car"}), func(v *loadtest.Verification) int { return v.Lost }},
		{"mismatched", func() []loadtest.Ack { a := clone(acked); a[4].Response = "not-" + a[4].Response; return a }(), func(v *loadtest.Verification) int { return v.Mismatched }},
		{"duplicated", append(clone(acked), acked[2]), func(v *loadtest.Verification) int { return v.Duplicated }},
	} {
		v, err := loadtest.Verify(ctx, s, d, tc.acked)
		if err != nil {
			t.Fatal(err)
		}
		if tc.field(v) != 1 || v.Err() == nil {
			t.Errorf("%s: counted %d, Err %v; want 1 and an error", tc.name, tc.field(v), v.Err())
		}
	}

	// A design other than the store's: the plans do not match.
	other := *d
	other.Seed++
	other.Freeze()
	if v, _ := loadtest.Verify(ctx, s, &other, acked); v.PlanMismatch == 0 || v.Err() == nil {
		t.Errorf("another design: plan mismatches %d, Err %v", v.PlanMismatch, v.Err())
	}
	// A design whose batches repeat a source within a batch.
	rep := *d
	rep.Stimuli = append([]experiment.Stimulus(nil), d.Stimuli...)
	b0 := d.Stimulus(d.Batches[0].Stimuli[0])
	for i := range rep.Stimuli {
		if rep.Stimuli[i].ID == d.Batches[0].Stimuli[1] || rep.Stimuli[i].ID == d.Batches[1].Stimuli[1] {
			rep.Stimuli[i].SourceID = b0.SourceID
		}
	}
	rep.Freeze()
	if v, _ := loadtest.Verify(ctx, s, &rep, acked); v.RepeatedSource == 0 || v.Err() == nil {
		t.Errorf("repeated sources: counted %d, Err %v", v.RepeatedSource, v.Err())
	}
	// Fewer views per batch than the store's holders: overfull.
	small := *d
	small.ViewsPerBatch = 1
	if v, _ := loadtest.Verify(ctx, s, &small, acked); v.OverfullBatches == 0 || v.Err() == nil {
		t.Errorf("overfull batches: counted %d, Err %v", v.OverfullBatches, v.Err())
	}
	// A store that lost an answer in the middle of a plan.
	if v, _ := loadtest.Verify(ctx, gapStore{s}, d, done); v.NotPrefix != 3 || v.Lost != 2 || v.Err() == nil {
		t.Errorf("answers with a gap: not-prefix %d, lost %d, Err %v; want 3, 2 and an error", v.NotPrefix, v.Lost, v.Err())
	}
}

func clone(a []loadtest.Ack) []loadtest.Ack { return append([]loadtest.Ack(nil), a...) }

// gapStore hides the answer of trial 1 of every participant.
type gapStore struct{ experiment.Store }

func (g gapStore) Trials(ctx context.Context, participant int64) ([]experiment.Trial, error) {
	ts, err := g.Store.Trials(ctx, participant)
	if len(ts) > 2 && ts[2].Answer != nil {
		ts[1].Answer = nil
	}
	return ts, err
}
