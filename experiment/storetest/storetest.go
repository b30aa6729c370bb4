package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// Open returns a store on a fresh database for t; called again with the
// same t it opens the same database again, after the first store was
// closed (a restart) or while it is open (a second server process). The
// suite closes the stores it opens; open registers any cleanup of the
// database itself with t.Cleanup.
type Open func(t *testing.T) experiment.Store

// Run runs the conformance suite of experiment.Store against open.
func Run(t *testing.T, open Open) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"Init", testInit},
		{"JoinPlan", testJoinPlan},
		{"JoinKnown", testJoinKnown},
		{"JoinBalance", testJoinBalance},
		{"JoinNoBatches", testJoinNoBatches},
		{"Lookups", testLookups},
		{"Respond", testRespond},
		{"RespondErrors", testRespondErrors},
		{"SetStatus", testSetStatus},
		{"Abandon", testAbandon},
		{"RejoinHoldsNothing", testRejoinHoldsNothing},
		{"AddrLimit", testAddrLimit},
		{"Served", testServed},
		{"Progress", testProgress},
		{"Iterators", testIterators},
		{"Reopen", testReopen},
		{"ConcurrentJoin", testConcurrentJoin},
		{"ConcurrentJoinSameID", testConcurrentJoinSameID},
		{"ConcurrentRespond", testConcurrentRespond},
		{"ConcurrentParticipants", testConcurrentParticipants},
		{"TwoStores", testTwoStores},
		{"StoredDesign", testStoredDesign},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// t0 is the suite's clock: a fixed instant with sub-ms digits that the
// store must keep to the millisecond.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func hash(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }

func initStore(t *testing.T, open Open, d *experiment.Design) experiment.Store {
	t.Helper()
	s := open(t)
	if err := s.Init(context.Background(), d); err != nil {
		s.Close()
		t.Fatalf("Init: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func join(t *testing.T, s experiment.Store, id string, now time.Time) *experiment.Participant {
	t.Helper()
	p, created, err := s.Join(context.Background(), experiment.JoinRequest{ExternalID: id, Platform: "prolific",
		StudyID: "study", SessionID: "sess-" + id, UserAgent: "test", SessionHash: hash("cookie " + id), Now: now})
	if err != nil {
		t.Fatalf("Join(%s): %v", id, err)
	}
	if !created {
		t.Fatalf("Join(%s): created false for a new participant", id)
	}
	return p
}

func trials(t *testing.T, s experiment.Store, p int64) []experiment.Trial {
	t.Helper()
	tr, err := s.Trials(context.Background(), p)
	if err != nil {
		t.Fatalf("Trials(%d): %v", p, err)
	}
	return tr
}

// answer is a response with awkward floats that must round-trip exactly.
func answer(i int) experiment.Response {
	return experiment.Response{Response: "dog", RTms: 0.1 + 0.2 + float64(i), ShownMS: 200.00000000000003,
		MaskMS: math.Pi * 100, RefreshHz: 59.94005994005994, Frames: 12, TimingOK: i%3 != 0, Input: "key",
		At: at(100 + float64(i))}
}

func respondAll(t *testing.T, s experiment.Store, p int64, n int) {
	t.Helper()
	for i := range n {
		if err := s.Respond(context.Background(), p, i, answer(i)); err != nil {
			t.Fatalf("Respond(%d, %d): %v", p, i, err)
		}
	}
}

func sameParticipant(t *testing.T, what string, got, want *experiment.Participant) {
	t.Helper()
	if got.ID != want.ID || got.Seq != want.Seq || got.ExternalID != want.ExternalID || got.Platform != want.Platform ||
		got.StudyID != want.StudyID || got.SessionID != want.SessionID || got.Batch != want.Batch ||
		got.Status != want.Status || got.Reason != want.Reason || got.UserAgent != want.UserAgent ||
		!got.Created.Equal(want.Created) || !got.LastSeen.Equal(want.LastSeen) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
	if got.Created.Location() != time.UTC || got.LastSeen.Location() != time.UTC {
		t.Errorf("%s: times not in UTC: %v, %v", what, got.Created, got.LastSeen)
	}
}

func sameAnswer(a, b *experiment.Response) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.At, y.At = time.Time{}, time.Time{}
	return x == y && a.At.Equal(b.At)
}

func testInit(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("init", 2, 4, 2)
	s := initStore(t, open, d)
	if err := s.Init(ctx, d); err != nil {
		t.Fatalf("second Init with the same design: %v", err)
	}
	p := join(t, s, "a", t0)
	other := NewDesign("other", 2, 4, 2)
	if err := s.Init(ctx, other); !errors.Is(err, experiment.ErrDesignMismatch) {
		t.Fatalf("Init with another design: %v, want ErrDesignMismatch", err)
	}
	// The store still serves the first design and its participant.
	if _, created, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "a", Now: at(1)}); err != nil || created {
		t.Fatalf("Join after mismatch: created %v, %v", created, err)
	}
	tr := trials(t, s, p.ID)
	if want := d.Plan(p.Batch, p.Seq); len(tr) != len(want) {
		t.Fatalf("%d trials after the mismatch, want %d", len(tr), len(want))
	}
	unhashed := NewDesign("x", 1, 1, 1)
	unhashed.Hash = ""
	if err := s.Init(ctx, unhashed); err == nil {
		t.Errorf("Init with an unfrozen design (no hash) succeeded")
	}
}

func testJoinPlan(t *testing.T, open Open) {
	d := NewDesign("plan", 3, 6, 2)
	s := initStore(t, open, d)
	tokens := map[string]bool{}
	for i := range 6 {
		now := at(float64(i) + 0.0004) // sub-ms digits are not required to survive, ms are
		p := join(t, s, fmt.Sprintf("w%d", i), now)
		if p.Seq != int64(i) || p.Batch != i%3 || p.Status != experiment.StatusActive {
			t.Errorf("participant %d: seq %d batch %d status %s, want seq %d batch %d active", i, p.Seq, p.Batch, p.Status, i, i%3)
		}
		if p.ExternalID != fmt.Sprintf("w%d", i) || p.Platform != "prolific" || p.StudyID != "study" ||
			p.SessionID != fmt.Sprintf("sess-w%d", i) || p.UserAgent != "test" {
			t.Errorf("participant %d: request fields not kept: %+v", i, p)
		}
		if d := p.Created.Sub(now); d < -time.Millisecond || d > time.Millisecond || !p.Created.Equal(p.LastSeen) {
			t.Errorf("participant %d: created %v, last seen %v, want %v", i, p.Created, p.LastSeen, now)
		}
		tr := trials(t, s, p.ID)
		want := d.Plan(p.Batch, p.Seq)
		if len(tr) != len(want) {
			t.Fatalf("participant %d: %d trials, want %d", i, len(tr), len(want))
		}
		sources := map[string]bool{}
		for k, got := range tr {
			w := want[k]
			if got.Participant != p.ID || got.Index != k || got.Role != w.Role || got.StimulusID != w.StimulusID ||
				got.Mask != w.Mask || got.Answer != nil {
				t.Errorf("participant %d trial %d: %+v, want %+v", i, k, got, w)
			}
			b, err := base64.RawURLEncoding.DecodeString(got.Token)
			if err != nil || len(b) < 16 {
				t.Errorf("token %q: not base64url of at least 128 bits (%v)", got.Token, err)
			}
			if tokens[got.Token] {
				t.Errorf("token %q repeated", got.Token)
			}
			tokens[got.Token] = true
			src := d.Stimulus(got.StimulusID).SourceID
			if sources[src] {
				t.Errorf("participant %d sees source %s twice", i, src)
			}
			sources[src] = true
		}
		// Every stimulus of the batch is planned.
		if n := countRole(tr, experiment.RoleMain); n != len(d.Batches[p.Batch].Stimuli) {
			t.Errorf("participant %d: %d main trials, want %d", i, n, len(d.Batches[p.Batch].Stimuli))
		}
	}
}

func countRole(tr []experiment.Trial, r experiment.Role) int {
	n := 0
	for _, t := range tr {
		if t.Role == r {
			n++
		}
	}
	return n
}

func testJoinKnown(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("known", 2, 3, 3)
	s := initStore(t, open, d)
	p := join(t, s, "alice", t0)
	before := trials(t, s, p.ID)
	q, created, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "alice", Platform: "mturk", SessionHash: hash("new"), Now: at(60)})
	if err != nil || created {
		t.Fatalf("Join again: created %v, %v", created, err)
	}
	// Rejoining replaces the session but is no progress: LastSeen stays.
	want := *p
	sameParticipant(t, "rejoined", q, &want)
	if _, err := s.BySession(ctx, hash("cookie alice")); !errors.Is(err, experiment.ErrNotFound) {
		t.Errorf("old session hash still finds the participant: %v", err)
	}
	got, err := s.BySession(ctx, hash("new"))
	if err != nil {
		t.Fatalf("BySession(new hash): %v", err)
	}
	sameParticipant(t, "BySession after rejoin", got, &want)
	after := trials(t, s, p.ID)
	if !slices.EqualFunc(before, after, func(a, b experiment.Trial) bool { return a.Token == b.Token && a.StimulusID == b.StimulusID }) {
		t.Errorf("rejoining changed the plan")
	}
	// The next new participant still gets the next Seq.
	if r := join(t, s, "bob", at(61)); r.Seq != 1 {
		t.Errorf("next participant has seq %d, want 1", r.Seq)
	}
	if _, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "", Now: t0}); err == nil {
		t.Errorf("Join with an empty external id succeeded")
	}
}

func testJoinBalance(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("balance", 3, 2, 2)
	s := initStore(t, open, d)
	var ps []*experiment.Participant
	for i := range 6 {
		p := join(t, s, fmt.Sprintf("p%d", i), at(float64(i)))
		if p.Batch != i%3 {
			t.Errorf("participant %d got batch %d, want %d (fewest holders, lowest id)", i, p.Batch, i%3)
		}
		ps = append(ps, p)
	}
	if _, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "late", Now: at(10)}); !errors.Is(err, experiment.ErrFull) {
		t.Fatalf("seventh Join: %v, want ErrFull", err)
	}
	// Completed keeps its batch; excluded, screened out and abandoned free it.
	set := func(p *experiment.Participant, st experiment.Status) {
		if err := s.SetStatus(ctx, p.ID, st, "r", at(20)); err != nil {
			t.Fatal(err)
		}
	}
	set(ps[0], experiment.StatusCompleted) // batch 0
	if _, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "late", Now: at(21)}); !errors.Is(err, experiment.ErrFull) {
		t.Fatalf("Join after a completion: %v, want ErrFull", err)
	}
	set(ps[4], experiment.StatusExcluded)    // batch 1
	set(ps[2], experiment.StatusScreenedOut) // batch 2
	for _, want := range []int{1, 2} {
		p, created, err := s.Join(ctx, experiment.JoinRequest{ExternalID: fmt.Sprint("late", want), Now: at(22)})
		if err != nil || !created || p.Batch != want {
			t.Fatalf("Join after exclusions: batch %v created %v err %v, want batch %d", p, created, err, want)
		}
	}
	if _, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "later", Now: at(23)}); !errors.Is(err, experiment.ErrFull) {
		t.Fatalf("Join when full again: %v, want ErrFull", err)
	}
	// Seq counts joined participants only: ErrFull takes none.
	p, err := s.BySession(ctx, hash("cookie p5"))
	if err != nil || p.Seq != 5 {
		t.Fatalf("BySession(p5): %+v, %v", p, err)
	}
}

func testJoinNoBatches(t *testing.T, open Open) {
	d := NewDesign("nobatch", 0, 0, 1)
	s := initStore(t, open, d)
	for i := range 30 {
		p := join(t, s, fmt.Sprint("n", i), at(float64(i)))
		if p.Batch != -1 || p.Seq != int64(i) {
			t.Fatalf("participant %d: batch %d seq %d, want −1, %d", i, p.Batch, p.Seq, i)
		}
		tr := trials(t, s, p.ID)
		if want := d.Plan(-1, p.Seq); len(tr) != len(want) || countRole(tr, experiment.RoleMain) != 0 {
			t.Fatalf("participant %d: %d trials (%d main), want %d (0 main)", i, len(tr), countRole(tr, experiment.RoleMain), len(want))
		}
	}
}

func testLookups(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("lookups", 2, 3, 2)
	s := initStore(t, open, d)
	p := join(t, s, "x", t0)
	got, err := s.BySession(ctx, hash("cookie x"))
	if err != nil {
		t.Fatal(err)
	}
	sameParticipant(t, "BySession", got, p)
	for _, h := range [][]byte{hash("nobody"), nil} {
		if _, err := s.BySession(ctx, h); !errors.Is(err, experiment.ErrNotFound) {
			t.Errorf("BySession(%x): %v, want ErrNotFound", h, err)
		}
	}
	tr := trials(t, s, p.ID)
	for _, want := range tr {
		got, err := s.TrialByToken(ctx, want.Token)
		if err != nil {
			t.Fatalf("TrialByToken: %v", err)
		}
		if got.Participant != p.ID || got.Index != want.Index || got.StimulusID != want.StimulusID || got.Token != want.Token {
			t.Errorf("TrialByToken(%s) = %+v, want %+v", want.Token, got, want)
		}
	}
	if _, err := s.TrialByToken(ctx, "no-such-token"); !errors.Is(err, experiment.ErrNotFound) {
		t.Errorf("TrialByToken(unknown): %v, want ErrNotFound", err)
	}
	if _, err := s.Trials(ctx, p.ID+1000); !errors.Is(err, experiment.ErrNotFound) {
		t.Errorf("Trials(unknown): %v, want ErrNotFound", err)
	}
}

func testRespond(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("respond", 1, 4, 2)
	s := initStore(t, open, d)
	p := join(t, s, "r", t0)
	n := len(trials(t, s, p.ID))
	respondAll(t, s, p.ID, n)
	tr := trials(t, s, p.ID)
	for i, got := range tr {
		want := answer(i)
		if got.Answer == nil {
			t.Fatalf("trial %d: no answer stored", i)
		}
		if !sameAnswer(got.Answer, &want) || got.Answer.At.Location() != time.UTC {
			t.Errorf("trial %d: stored %+v, want %+v (floats exactly)", i, *got.Answer, want)
		}
	}
	got, err := s.BySession(ctx, hash("cookie r"))
	if err != nil {
		t.Fatal(err)
	}
	if want := answer(n - 1).At; !got.LastSeen.Equal(want) {
		t.Errorf("LastSeen %v after the last answer, want %v", got.LastSeen, want)
	}
	// Extreme floats survive (−0 may come back as 0: SQLite stores
	// integral REALs as integers); NaN is refused.
	p2 := join(t, s, "r2", t0)
	r := answer(0)
	r.RTms, r.ShownMS, r.MaskMS = math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64
	if err := s.Respond(ctx, p2.ID, 0, r); err != nil {
		t.Fatal(err)
	}
	a := trials(t, s, p2.ID)[0].Answer
	if a.RTms != r.RTms || a.ShownMS != r.ShownMS || a.MaskMS != r.MaskMS {
		t.Errorf("special floats: stored %v %v %v, want %v %v %v", a.RTms, a.ShownMS, a.MaskMS, r.RTms, r.ShownMS, r.MaskMS)
	}
	r.RTms = math.NaN()
	if err := s.Respond(ctx, p2.ID, 1, r); err == nil {
		t.Errorf("Respond with a NaN response time succeeded")
	}
}

func testRespondErrors(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("errors", 1, 4, 2)
	s := initStore(t, open, d)
	p := join(t, s, "e", t0)
	n := len(trials(t, s, p.ID))
	if err := s.Respond(ctx, p.ID, 2, answer(2)); !errors.Is(err, experiment.ErrOutOfOrder) {
		t.Errorf("Respond(2) first: %v, want ErrOutOfOrder", err)
	}
	if err := s.Respond(ctx, p.ID, 0, answer(0)); err != nil {
		t.Fatal(err)
	}
	second := answer(0)
	second.Response = "cat"
	if err := s.Respond(ctx, p.ID, 0, second); !errors.Is(err, experiment.ErrAnswered) {
		t.Errorf("second Respond(0): %v, want ErrAnswered", err)
	}
	if got := trials(t, s, p.ID)[0].Answer.Response; got != "dog" {
		t.Errorf("second submission replaced the first: %q", got)
	}
	for _, tc := range []struct {
		p     int64
		index int
	}{{p.ID + 100, 0}, {p.ID, n}, {p.ID, -1}} {
		if err := s.Respond(ctx, tc.p, tc.index, answer(1)); !errors.Is(err, experiment.ErrNotFound) {
			t.Errorf("Respond(%d, %d): %v, want ErrNotFound", tc.p, tc.index, err)
		}
	}
	for _, st := range []experiment.Status{experiment.StatusCompleted, experiment.StatusScreenedOut,
		experiment.StatusExcluded, experiment.StatusAbandoned} {
		if err := s.SetStatus(ctx, p.ID, st, "", at(5)); err != nil {
			t.Fatal(err)
		}
		if err := s.Respond(ctx, p.ID, 1, answer(1)); !errors.Is(err, experiment.ErrClosed) {
			t.Errorf("Respond when %s: %v, want ErrClosed", st, err)
		}
		// A repeated submission still says it was answered.
		if err := s.Respond(ctx, p.ID, 0, answer(0)); !errors.Is(err, experiment.ErrAnswered) {
			t.Errorf("repeated Respond when %s: %v, want ErrAnswered", st, err)
		}
	}
	if err := s.SetStatus(ctx, p.ID, experiment.StatusActive, "", at(6)); err != nil {
		t.Fatal(err)
	}
	if err := s.Respond(ctx, p.ID, 1, answer(1)); err != nil {
		t.Errorf("Respond after reactivation: %v", err)
	}
}

func testSetStatus(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("status", 1, 2, 3))
	p := join(t, s, "s", t0)
	if err := s.SetStatus(ctx, p.ID, experiment.StatusScreenedOut, "qualification 1/3", at(9)); err != nil {
		t.Fatal(err)
	}
	got, err := s.BySession(ctx, hash("cookie s"))
	if err != nil {
		t.Fatal(err)
	}
	want := *p
	want.Status, want.Reason, want.LastSeen = experiment.StatusScreenedOut, "qualification 1/3", at(9)
	sameParticipant(t, "after SetStatus", got, &want)
	if err := s.SetStatus(ctx, p.ID, experiment.StatusScreenedOut, "qualification 1/3", at(9)); err != nil {
		t.Errorf("repeated SetStatus: %v", err)
	}
	if err := s.SetStatus(ctx, p.ID+7, experiment.StatusCompleted, "", at(9)); !errors.Is(err, experiment.ErrNotFound) {
		t.Errorf("SetStatus(unknown): %v, want ErrNotFound", err)
	}
	if err := s.SetStatus(ctx, p.ID, "bogus", "", at(9)); err == nil {
		t.Errorf("SetStatus(bogus) succeeded")
	}
}

func testAbandon(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("abandon", 2, 2, 1))
	a := join(t, s, "a", at(0))  // batch 0, silent
	b := join(t, s, "b", at(10)) // batch 1
	if _, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "c", Now: at(20)}); !errors.Is(err, experiment.ErrFull) {
		t.Fatalf("third Join: %v, want ErrFull", err)
	}
	if err := s.Respond(ctx, b.ID, 0, experiment.Response{Response: "cat", At: at(50)}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Abandon(ctx, at(30))
	if err != nil || n != 1 {
		t.Fatalf("Abandon: %d, %v; want 1", n, err)
	}
	got, err := s.BySession(ctx, hash("cookie a"))
	if err != nil || got.Status != experiment.StatusAbandoned {
		t.Fatalf("a after Abandon: %+v, %v", got, err)
	}
	if got, _ := s.BySession(ctx, hash("cookie b")); got.Status != experiment.StatusActive {
		t.Errorf("b (seen at 50 s) abandoned")
	}
	if n, err := s.Abandon(ctx, at(30)); err != nil || n != 0 {
		t.Errorf("second Abandon: %d, %v; want 0", n, err)
	}
	if err := s.Respond(ctx, a.ID, 0, answer(0)); !errors.Is(err, experiment.ErrClosed) {
		t.Errorf("Respond of an abandoned participant: %v, want ErrClosed", err)
	}
	c := join(t, s, "c", at(60))
	if c.Batch != a.Batch {
		t.Errorf("new participant got batch %d, want the freed batch %d", c.Batch, a.Batch)
	}
	// Completed participants are never abandoned.
	if err := s.SetStatus(ctx, b.ID, experiment.StatusCompleted, "", at(70)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Abandon(ctx, at(1000)); err != nil || n != 1 {
		t.Errorf("Abandon(1000 s): %d, %v; want 1 (c only)", n, err)
	}
}

// testRejoinHoldsNothing: rejoining every few seconds (the keep-alive
// attack of issue 15) does not keep a silent participant from being
// abandoned; an answer does.
func testRejoinHoldsNothing(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("keepalive", 2, 2, 1))
	join(t, s, "a", at(0))
	b := join(t, s, "b", at(0))
	for sec := 10.0; sec <= 100; sec += 10 {
		if _, created, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "a", SessionHash: hash("cookie a"), Now: at(sec)}); err != nil || created {
			t.Fatalf("rejoin at %v s: created %v, %v", sec, created, err)
		}
	}
	if err := s.Respond(ctx, b.ID, 0, experiment.Response{Response: "cat", At: at(90)}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Abandon(ctx, at(60)); err != nil || n != 1 {
		t.Fatalf("Abandon(60 s) after rejoins of a until 100 s: %d, %v; want 1 (a)", n, err)
	}
	if got, _ := s.BySession(ctx, hash("cookie a")); got.Status != experiment.StatusAbandoned {
		t.Errorf("a, rejoining but never answering, is %s, want abandoned", got.Status)
	}
	if got, _ := s.BySession(ctx, hash("cookie b")); got.Status != experiment.StatusActive || !got.LastSeen.Equal(at(90)) {
		t.Errorf("b, answering at 90 s: %s, last seen %v", got.Status, got.LastSeen)
	}
}

// testAddrLimit: an address holds at most MaxPerAddr places; places it
// gives up (abandoned, screened out) count no more; other addresses and
// rejoins are not limited.
func testAddrLimit(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("addr", 10, 2, 1))
	jr := func(id, addr string, sec float64) experiment.JoinRequest {
		return experiment.JoinRequest{ExternalID: id, SessionHash: hash("cookie " + id), Addr: addr, MaxPerAddr: 2, Now: at(sec)}
	}
	var ps []*experiment.Participant
	for i, id := range []string{"x1", "x2"} {
		p, _, err := s.Join(ctx, jr(id, "net-x", float64(i)))
		if err != nil {
			t.Fatalf("Join %s: %v", id, err)
		}
		ps = append(ps, p)
	}
	if _, _, err := s.Join(ctx, jr("x3", "net-x", 3)); !errors.Is(err, experiment.ErrAddrLimit) {
		t.Fatalf("third Join from one address: %v, want ErrAddrLimit", err)
	}
	if _, created, err := s.Join(ctx, jr("x1", "net-x", 4)); err != nil || created {
		t.Errorf("rejoin from a full address: created %v, %v", created, err)
	}
	if _, _, err := s.Join(ctx, jr("y1", "net-y", 5)); err != nil {
		t.Errorf("Join from another address: %v", err)
	}
	if _, _, err := s.Join(ctx, jr("z1", "", 5)); err != nil {
		t.Errorf("Join without an address: %v", err)
	}
	if err := s.SetStatus(ctx, ps[0].ID, experiment.StatusScreenedOut, "qualification", at(6)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Join(ctx, jr("x3", "net-x", 7)); err != nil {
		t.Errorf("Join after the address gave a place up: %v", err)
	}
	if _, _, err := s.Join(ctx, jr("x4", "net-x", 8)); !errors.Is(err, experiment.ErrAddrLimit) {
		t.Errorf("Join x4: %v, want ErrAddrLimit", err)
	}
	n := 0
	s.Participants(ctx, func(*experiment.Participant) error { n++; return nil })
	if n != 5 {
		t.Errorf("%d participants, want 5 (refused joins take no place)", n)
	}
}

// testServed: Served records the last time each image was served, by
// token, skipping unknown tokens, without touching LastSeen.
func testServed(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("served", 2, 2, 1))
	p := join(t, s, "a", at(0))
	tr := trials(t, s, p.ID)
	if !tr[0].StimulusServed.IsZero() || !tr[0].MaskServed.IsZero() {
		t.Fatalf("new trial served at %v / %v", tr[0].StimulusServed, tr[0].MaskServed)
	}
	if err := s.Served(ctx, []experiment.ServedImage{{Token: tr[0].Token, At: at(1.25)}, {Token: tr[0].Token, Mask: true, At: at(1.5)},
		{Token: "no-such-token-000000000", At: at(1.75)}}); err != nil {
		t.Fatalf("Served: %v", err)
	}
	if err := s.Served(ctx, []experiment.ServedImage{{Token: tr[0].Token, At: at(2.125)}}); err != nil {
		t.Fatalf("Served again: %v", err)
	}
	if err := s.Served(ctx, nil); err != nil {
		t.Fatalf("Served(nil): %v", err)
	}
	got, err := s.TrialByToken(ctx, tr[0].Token)
	if err != nil {
		t.Fatal(err)
	}
	if !got.StimulusServed.Equal(at(2.125)) || !got.MaskServed.Equal(at(1.5)) {
		t.Errorf("served at %v / %v, want %v / %v", got.StimulusServed, got.MaskServed, at(2.125), at(1.5))
	}
	if !trials(t, s, p.ID)[0].MaskServed.Equal(at(1.5)) {
		t.Errorf("Trials does not report MaskServed")
	}
	r := answer(1)
	r.Implausible = "implausible timing: the mask was never fetched"
	if err := s.Respond(ctx, p.ID, 0, r); err != nil {
		t.Fatal(err)
	}
	if got := trials(t, s, p.ID)[0].Answer; got == nil || got.Implausible != r.Implausible {
		t.Errorf("Implausible not stored: %+v", got)
	}
	if q, _ := s.BySession(ctx, hash("cookie a")); !q.LastSeen.Equal(r.At) {
		t.Errorf("LastSeen %v, want the answer's %v", q.LastSeen, r.At)
	}
}

func testProgress(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("progress", 3, 4, 2) // corruptions per batch: "", gaussian_noise, defocus_blur, jpeg
	s := initStore(t, open, d)
	p, err := s.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.TrialsAnswered != 0 || len(p.Batches) != 3 || len(p.Conditions) != 4 || p.Participants[experiment.StatusActive] != 0 {
		t.Fatalf("empty progress: %+v", p)
	}
	var ps []*experiment.Participant
	for i := range 5 {
		ps = append(ps, join(t, s, fmt.Sprint("p", i), at(float64(i)))) // batches 0 1 2 0 1
	}
	mainAnswered := 0
	answeredBy := func(pi, n int) {
		tr := trials(t, s, ps[pi].ID)
		for i := range n {
			if err := s.Respond(ctx, ps[pi].ID, i, answer(i)); err != nil {
				t.Fatal(err)
			}
			if tr[i].Role == experiment.RoleMain {
				mainAnswered++
			}
		}
	}
	total := len(trials(t, s, ps[0].ID))
	answeredBy(0, total) // all: answer(i).TimingOK is false for i%3 == 0
	answeredBy(1, 3)
	answeredBy(2, 9)
	set := func(pi int, st experiment.Status, reason string) {
		if err := s.SetStatus(ctx, ps[pi].ID, st, reason, at(30)); err != nil {
			t.Fatal(err)
		}
	}
	set(0, experiment.StatusCompleted, "")
	set(2, experiment.StatusExcluded, "sanity 2 failed")
	set(3, experiment.StatusScreenedOut, "qualification")
	p, err = s.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantP := map[experiment.Status]int{experiment.StatusActive: 2, experiment.StatusCompleted: 1,
		experiment.StatusExcluded: 1, experiment.StatusScreenedOut: 1, experiment.StatusAbandoned: 0}
	for st, n := range wantP {
		if p.Participants[st] != n {
			t.Errorf("Participants[%s] = %d, want %d", st, p.Participants[st], n)
		}
	}
	wantB := []experiment.BatchProgress{{ID: 0, Active: 0, Completed: 1}, {ID: 1, Active: 2}, {ID: 2}}
	if !slices.Equal(p.Batches, wantB) {
		t.Errorf("Batches = %+v, want %+v", p.Batches, wantB)
	}
	if want := map[string]int{"sanity 2 failed": 1, "qualification": 1}; len(p.Exclusions) != 2 ||
		p.Exclusions["sanity 2 failed"] != 1 || p.Exclusions["qualification"] != 1 {
		t.Errorf("Exclusions = %v, want %v", p.Exclusions, want)
	}
	wantAnswered := total + 3 + 9
	misses := (total+2)/3 + 1 + 3 // i%3 == 0 among 0..n-1
	if p.TrialsAnswered != wantAnswered || p.TimingMisses != misses {
		t.Errorf("TrialsAnswered %d TimingMisses %d, want %d %d", p.TrialsAnswered, p.TimingMisses, wantAnswered, misses)
	}
	// Planned: the main trials of active and completed participants
	// (p0, p1, p4: 3 × 4 stimuli, one per corruption each); Answered: every
	// answered main trial, counted from the plans directly.
	wantC := map[string]*experiment.ConditionProgress{}
	for _, c := range Corruptions {
		wantC[c] = &experiment.ConditionProgress{Corruption: c, Planned: 3}
	}
	for _, pi := range []int{0, 1, 2} {
		for _, tr := range trials(t, s, ps[pi].ID) {
			if tr.Role == experiment.RoleMain && tr.Answer != nil {
				wantC[d.Stimulus(tr.StimulusID).Corruption].Answered++
			}
		}
	}
	sum := 0
	for i, c := range p.Conditions {
		w := wantC[c.Corruption]
		if w == nil || c != *w {
			t.Errorf("Conditions[%d] = %+v, want %+v", i, c, w)
		}
		if i > 0 && p.Conditions[i-1].Corruption >= c.Corruption {
			t.Errorf("Conditions not in name order: %q before %q", p.Conditions[i-1].Corruption, c.Corruption)
		}
		sum += c.Answered
	}
	if sum != mainAnswered {
		t.Errorf("answered main trials over conditions %d, want %d", sum, mainAnswered)
	}
}

func testIterators(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("iter", 2, 3, 2))
	var ps []*experiment.Participant
	for i := range 4 {
		ps = append(ps, join(t, s, fmt.Sprint("i", i), at(float64(i))))
	}
	respondAll(t, s, ps[2].ID, 4)
	respondAll(t, s, ps[0].ID, 2)
	ps[2].LastSeen, ps[0].LastSeen = answer(3).At, answer(1).At
	var got []int64
	if err := s.Participants(ctx, func(p *experiment.Participant) error {
		if len(got) < len(ps) {
			sameParticipant(t, "Participants", p, ps[len(got)])
		}
		got = append(got, p.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !slices.IsSorted(got) {
		t.Errorf("Participants visited %v, want 4 in ID order", got)
	}
	var ans []string
	if err := s.Answered(ctx, func(tr *experiment.Trial) error {
		if tr.Answer == nil || tr.Answer.RTms != answer(tr.Index).RTms {
			t.Errorf("Answered gave %+v", tr)
		}
		ans = append(ans, fmt.Sprint(tr.Participant, "/", tr.Index))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprint(ps[0].ID, "/0"), fmt.Sprint(ps[0].ID, "/1"), fmt.Sprint(ps[2].ID, "/0"),
		fmt.Sprint(ps[2].ID, "/1"), fmt.Sprint(ps[2].ID, "/2"), fmt.Sprint(ps[2].ID, "/3")}
	if !slices.Equal(ans, want) {
		t.Errorf("Answered visited %v, want %v", ans, want)
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.Participants(ctx, func(*experiment.Participant) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Participants with a failing fn: %v after %d calls, want stop after 1", err, calls)
	}
	calls = 0
	if err := s.Answered(ctx, func(*experiment.Trial) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Answered with a failing fn: %v after %d calls, want stop after 1", err, calls)
	}
}

func testReopen(t *testing.T, open Open) {
	ctx := context.Background()
	d := NewDesign("reopen", 2, 3, 2)
	s := open(t)
	if err := s.Init(ctx, d); err != nil {
		t.Fatal(err)
	}
	a := join(t, s, "a", at(1))
	b := join(t, s, "b", at(2))
	respondAll(t, s, a.ID, 3)
	if err := s.SetStatus(ctx, b.ID, experiment.StatusExcluded, "why", at(3)); err != nil {
		t.Fatal(err)
	}
	wantA := trials(t, s, a.ID)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = open(t)
	if err := s.Init(ctx, NewDesign("reopen-other", 2, 3, 2)); !errors.Is(err, experiment.ErrDesignMismatch) {
		t.Errorf("reopened Init with another design: %v, want ErrDesignMismatch", err)
	}
	if err := s.Init(ctx, d); err != nil {
		t.Fatalf("reopened Init: %v", err)
	}
	defer s.Close()
	got, err := s.BySession(ctx, hash("cookie a"))
	if err != nil {
		t.Fatal(err)
	}
	a.LastSeen = answer(2).At
	sameParticipant(t, "a after reopening", got, a)
	gotA := trials(t, s, a.ID)
	if len(gotA) != len(wantA) {
		t.Fatalf("%d trials after reopening, want %d", len(gotA), len(wantA))
	}
	for i := range gotA {
		g, w := gotA[i], wantA[i]
		if g.Token != w.Token || g.StimulusID != w.StimulusID || !sameAnswer(g.Answer, w.Answer) {
			t.Errorf("trial %d after reopening: %+v, want %+v", i, g, w)
		}
	}
	if got, _ := s.BySession(ctx, hash("cookie b")); got == nil || got.Status != experiment.StatusExcluded || got.Reason != "why" {
		t.Errorf("b after reopening: %+v", got)
	}
	// Assignment continues: b's batch is free, seq goes on.
	c := join(t, s, "c", at(4))
	if c.Seq != 2 || c.Batch != b.Batch {
		t.Errorf("c after reopening: seq %d batch %d, want 2, %d", c.Seq, c.Batch, b.Batch)
	}
	if err := s.Respond(ctx, a.ID, 3, answer(3)); err != nil {
		t.Errorf("Respond after reopening: %v", err)
	}
}

func testConcurrentJoin(t *testing.T, open Open) {
	ctx := context.Background()
	const batches, views, workers = 10, 5, 200
	d := NewDesign("concurrent", batches, 4, views)
	s := initStore(t, open, d)
	var wg sync.WaitGroup
	var full atomic.Int32
	got := make([]*experiment.Participant, workers)
	errs := make(chan error, workers)
	for i := range workers {
		wg.Go(func() {
			p, created, err := s.Join(ctx, experiment.JoinRequest{ExternalID: fmt.Sprint("c", i),
				SessionHash: hash(fmt.Sprint("c", i)), Now: at(float64(i))})
			switch {
			case errors.Is(err, experiment.ErrFull):
				full.Add(1)
			case err != nil:
				errs <- err
			case !created:
				errs <- fmt.Errorf("Join(c%d): created false", i)
			default:
				got[i] = p
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if full.Load() != workers-batches*views {
		t.Errorf("%d joins got ErrFull, want %d", full.Load(), workers-batches*views)
	}
	holders := make([]int, batches)
	seqs := map[int64]bool{}
	for _, p := range got {
		if p == nil {
			continue
		}
		holders[p.Batch]++
		if seqs[p.Seq] {
			t.Errorf("seq %d given twice", p.Seq)
		}
		seqs[p.Seq] = true
		if tr := trials(t, s, p.ID); len(tr) != len(d.Plan(p.Batch, p.Seq)) {
			t.Errorf("participant %d: %d trials, want %d", p.ID, len(tr), len(d.Plan(p.Batch, p.Seq)))
		}
	}
	for b, n := range holders {
		if n != views {
			t.Errorf("batch %d has %d participants, want %d", b, n, views)
		}
	}
	for q := range int64(batches * views) {
		if !seqs[q] {
			t.Errorf("seq %d missing: seqs must be 0..%d", q, batches*views-1)
		}
	}
}

func testConcurrentJoinSameID(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("sameid", 4, 2, 5))
	var wg sync.WaitGroup
	var created atomic.Int32
	ids := make([]int64, 20)
	for i := range ids {
		wg.Go(func() {
			p, c, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "same", SessionHash: hash(fmt.Sprint(i)), Now: at(1)})
			if err != nil {
				t.Error(err)
				return
			}
			if c {
				created.Add(1)
			}
			ids[i] = p.ID
		})
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Errorf("%d joins created the participant, want 1", created.Load())
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Errorf("joins returned participants %v, want one", ids)
			break
		}
	}
}

func testConcurrentRespond(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("double", 1, 4, 50))
	const rounds, submits = 5, 8
	for r := range rounds {
		p := join(t, s, fmt.Sprint("d", r), at(0))
		for index := range 3 {
			var wg sync.WaitGroup
			var wins atomic.Int32
			winner := make(chan string, submits)
			for k := range submits {
				wg.Go(func() {
					a := answer(index)
					a.Response = fmt.Sprint("answer", k)
					err := s.Respond(ctx, p.ID, index, a)
					switch {
					case err == nil:
						wins.Add(1)
						winner <- a.Response
					case !errors.Is(err, experiment.ErrAnswered):
						t.Errorf("concurrent Respond: %v, want nil or ErrAnswered", err)
					}
				})
			}
			wg.Wait()
			close(winner)
			if wins.Load() != 1 {
				t.Fatalf("round %d trial %d: %d submissions succeeded, want exactly 1", r, index, wins.Load())
			}
			if got := trials(t, s, p.ID)[index].Answer.Response; got != <-winner {
				t.Errorf("stored answer %q is not the one that succeeded", got)
			}
		}
	}
}

// testConcurrentParticipants has many participants answer at once, each in
// order, and checks nothing is lost or duplicated.
func testConcurrentParticipants(t *testing.T, open Open) {
	ctx := context.Background()
	s := initStore(t, open, NewDesign("many", 8, 4, 4))
	var wg sync.WaitGroup
	want := 0
	for i := range 32 {
		p := join(t, s, fmt.Sprint("m", i), at(0))
		n := len(trials(t, s, p.ID))
		want += n
		wg.Go(func() {
			for k := range n {
				if err := s.Respond(ctx, p.ID, k, answer(k)); err != nil {
					t.Errorf("Respond(%d, %d): %v", p.ID, k, err)
					return
				}
			}
		})
	}
	wg.Wait()
	pr, err := s.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if pr.TrialsAnswered != want {
		t.Errorf("%d trials answered, want %d", pr.TrialsAnswered, want)
	}
}

// testTwoStores joins and answers through two stores on one database at
// once, as two server processes do, and checks the balancing and the
// one-answer rule still hold.
func testTwoStores(t *testing.T, open Open) {
	ctx := context.Background()
	const batches, views, workers = 6, 4, 60
	d := NewDesign("two", batches, 3, views)
	a := initStore(t, open, d)
	b := initStore(t, open, d)
	stores := []experiment.Store{a, b}
	var wg sync.WaitGroup
	var mu sync.Mutex
	holders := make([]int, batches)
	var joined []*experiment.Participant
	full := 0
	for i := range workers {
		wg.Go(func() {
			p, _, err := stores[i%2].Join(ctx, experiment.JoinRequest{ExternalID: fmt.Sprint("x", i), Now: at(float64(i))})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				holders[p.Batch]++
				joined = append(joined, p)
			case errors.Is(err, experiment.ErrFull):
				full++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if full != workers-batches*views {
		t.Errorf("%d joins got ErrFull, want %d", full, workers-batches*views)
	}
	for bt, n := range holders {
		if n != views {
			t.Errorf("batch %d has %d participants, want %d", bt, n, views)
		}
	}
	// Both stores submit each participant's first trial at once.
	var wins atomic.Int32
	for _, p := range joined {
		for _, s := range stores {
			wg.Go(func() {
				switch err := s.Respond(ctx, p.ID, 0, answer(0)); {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, experiment.ErrAnswered):
					t.Errorf("Respond(%d, 0): %v", p.ID, err)
				}
			})
		}
	}
	wg.Wait()
	if int(wins.Load()) != len(joined) {
		t.Errorf("%d submissions succeeded, want one per participant (%d)", wins.Load(), len(joined))
	}
}

// testStoredDesign checks that a store reports the design it recorded,
// without Init and after a restart, and ErrNotFound before it has one.
func testStoredDesign(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	if d, err := s.StoredDesign(ctx); !errors.Is(err, experiment.ErrNotFound) {
		s.Close()
		t.Fatalf("StoredDesign of a fresh store: %v, %v; want ErrNotFound", d, err)
	}
	d := NewDesign("stored", 2, 4, 2)
	if err := s.Init(ctx, d); err != nil {
		s.Close()
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t)
	defer s.Close()
	got, err := s.StoredDesign(ctx)
	if err != nil {
		t.Fatalf("StoredDesign after a restart, before Init: %v", err)
	}
	if got.Hash != d.Hash || got.Name != "stored" || len(got.Stimuli) != len(d.Stimuli) || len(got.Batches) != len(d.Batches) {
		t.Errorf("StoredDesign = %q %.12s, %d stimuli, %d batches; want %q %.12s, %d, %d",
			got.Name, got.Hash, len(got.Stimuli), len(got.Batches), d.Name, d.Hash, len(d.Stimuli), len(d.Batches))
	}
	if id := d.Stimuli[0].ID; got.Stimulus(id) == nil {
		t.Errorf("the stored design is not frozen: no stimulus %s", id)
	}
}
