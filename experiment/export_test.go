package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/robustness"
)

// simulate runs one participant through its plan as the server would:
// answer each trial with answer(trial, stimulus), stop when screened out,
// then store the status State derives.
func simulate(t *testing.T, s Store, d *Design, ext string, answer func(Trial, *Stimulus) Response) *Participant {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, _, err := s.Join(ctx, JoinRequest{ExternalID: ext, Platform: "prolific", SessionID: "sess-" + ext, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ts, err := s.Trials(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		st := State(d, p, ts)
		if st.Next == nil {
			if st.Status != p.Status {
				if err := s.SetStatus(ctx, p.ID, st.Status, st.Reason, now); err != nil {
					t.Fatal(err)
				}
				p.Status, p.Reason = st.Status, st.Reason
			}
			return p
		}
		r := answer(*st.Next, d.Stimulus(st.Next.StimulusID))
		r.At = now.Add(time.Duration(st.Next.Index) * time.Second)
		if r.RefreshHz == 0 {
			r.RefreshHz, r.ShownMS, r.Frames, r.Input = 60, 200, 12, "key"
		}
		r.TimingOK = TimingOK(d.Timing, r.ShownMS, r.RefreshHz)
		if err := s.Respond(ctx, p.ID, st.Next.Index, r); err != nil {
			t.Fatal(err)
		}
	}
}

// wrongAnswer returns a category other than the ground truth.
func wrongAnswer(d *Design, st *Stimulus) string {
	for _, c := range d.Categories {
		if c.Name != st.GroundTruth {
			return c.Name
		}
	}
	panic("one category")
}

// TestExportRoundTrip exports simulated participants and reads the export
// back with human.ReadTrials, as vcr analyze --human does: exactly the
// main trials of included participants, minus timing misses, come back as
// robustness trials, in order, with their Δv and correctness.
func TestExportRoundTrip(t *testing.T) {
	cfg := testConfig(t, fixture(t))
	cfg.ExcludeTimingMisses = true
	d, _ := build(t, cfg)
	s := OpenTestStore(t)
	if err := s.Init(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	// The simulated observer is right on clean images and on corrupted
	// ones with Δv < 0.5.
	good := func(tr Trial, st *Stimulus) Response {
		r := Response{Response: st.GroundTruth, RTms: 400 + float64(tr.Index)}
		if !st.IsOriginal && st.DV >= 0.5 {
			r.Response = wrongAnswer(d, st)
		}
		return r
	}
	var parts []*Participant
	for i := range 6 {
		parts = append(parts, simulate(t, s, d, "ok"+strconv.Itoa(i), good))
	}
	// Fails qualification: screened out after the qualification trials.
	screened := simulate(t, s, d, "noqual", func(tr Trial, st *Stimulus) Response {
		r := good(tr, st)
		if tr.Role == RoleQualification {
			r.Response = wrongAnswer(d, st)
		}
		return r
	})
	// Fails both sanity trials (one is allowed): excluded.
	excluded := simulate(t, s, d, "nosanity", func(tr Trial, st *Stimulus) Response {
		r := good(tr, st)
		if tr.Role == RoleSanity {
			r.Response = wrongAnswer(d, st)
		}
		return r
	})
	// Timing misses on every main trial with an even index.
	slow := simulate(t, s, d, "slow", func(tr Trial, st *Stimulus) Response {
		r := good(tr, st)
		if tr.Index%2 == 0 {
			r.RefreshHz, r.ShownMS, r.Frames = 60, 250, 15
		}
		return r
	})
	if screened.Status != StatusScreenedOut || excluded.Status != StatusExcluded || slow.Status != StatusCompleted {
		t.Fatalf("statuses %s %s %s", screened.Status, excluded.Status, slow.Status)
	}

	var buf bytes.Buffer
	sum, err := Export(context.Background(), s, d, &buf)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows[0], ExportColumns) {
		t.Fatalf("header %v", rows[0])
	}
	col := map[string]int{}
	for i, c := range ExportColumns {
		col[c] = i
	}
	// The contract's columns are all there.
	for _, c := range []string{"participant", "stimulus_id", "source_id", "corruption", "dv", "ground_truth", "response", "correct", "rt_ms", "shown_ms", "excluded"} {
		if _, ok := col[c]; !ok {
			t.Errorf("column %s missing", c)
		}
	}
	answered := 0
	ctx := context.Background()
	var want = map[string][]robustness.Trial{}
	for _, p := range append(parts, screened, excluded, slow) {
		ts, _ := s.Trials(ctx, p.ID)
		for _, tr := range ts {
			if tr.Answer == nil {
				continue
			}
			answered++
			st := d.Stimulus(tr.StimulusID)
			if tr.Role == RoleMain && !st.IsOriginal && p.Status == StatusCompleted && tr.Answer.TimingOK {
				want[st.Corruption] = append(want[st.Corruption], robustness.Trial{DV: st.DV, Correct: tr.Answer.Response == st.GroundTruth})
			}
		}
	}
	if len(rows)-1 != answered || sum.Rows != answered {
		t.Errorf("export has %d rows (summary %d), want %d answered trials", len(rows)-1, sum.Rows, answered)
	}
	if sum.Participants != 9 || sum.ByStatus[StatusCompleted] != 7 || sum.TimingMisses == 0 {
		t.Errorf("summary %+v", sum)
	}
	for _, r := range rows[1:] {
		id, _ := strconv.ParseInt(r[col["participant"]], 10, 64)
		var st Status
		for _, p := range append(parts, screened, excluded, slow) {
			if p.ID == id {
				st = p.Status
			}
		}
		wantEx := st != StatusCompleted || r[col["timing_ok"]] == "0"
		if (r[col["excluded"]] == "1") != wantEx || (wantEx && r[col["exclusion_reason"]] == "") {
			t.Errorf("row %v: excluded %s reason %q, participant %s", r[:5], r[col["excluded"]], r[col["exclusion_reason"]], st)
		}
		if (r[col["correct"]] == "1") != (r[col["response"]] == r[col["ground_truth"]]) {
			t.Errorf("row %v: correct column wrong", r[:5])
		}
	}

	ds, err := human.ReadTrials(bytes.NewReader(buf.Bytes()), "trials.csv")
	if err != nil {
		t.Fatal(err)
	}
	for c, w := range want {
		series, err := ds.Lookup(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(series.Trials) != len(w) {
			t.Fatalf("%s: %d trials read back, want %d", c, len(series.Trials), len(w))
		}
		paired := 0
		for i, tr := range series.Trials {
			if tr.DV != w[i].DV || tr.Correct != w[i].Correct {
				t.Errorf("%s trial %d: %+v, want DV %v correct %v", c, i, tr, w[i].DV, w[i].Correct)
			}
			if !tr.Unpaired {
				paired++
				// Clean originals are always answered right, so a paired trial
				// is consistent exactly when it is correct.
				if tr.Consistent != tr.Correct {
					t.Errorf("%s trial %d: consistent %v, correct %v", c, i, tr.Consistent, tr.Correct)
				}
			}
		}
		if paired == 0 {
			t.Errorf("%s: no trial paired with a clean original", c)
		}
		if series.CleanAccuracy != 1 || series.VIFMethod != "pixel" {
			t.Errorf("%s: clean accuracy %v, VIF method %q", c, series.CleanAccuracy, series.VIFMethod)
		}
	}
	if len(ds.Series) != len(want) {
		t.Errorf("%d series read back, want %d", len(ds.Series), len(want))
	}
}
