package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/internal/csvsafe"
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

// TestExportFormulaEscaping checks finding 11 of issue 15: text cells that
// a spreadsheet would run as formulas (participant-supplied session ids
// such as "-2-3" and "@A1:A9", category names, source ids) get a leading
// single quote, numbers such as "-0.5" stay numbers, RawCSV writes the
// cells as they are, and human.ReadTrials (vcr analyze --human) reads the
// escaped export to exactly the data it reads from the raw one: it needs
// no ids back, since it only compares answers with ground truths and pairs
// source ids within the file, and escaping is one-to-one.
func TestExportFormulaEscaping(t *testing.T) {
	ctx := context.Background()
	d := &Design{Name: "formulas", Kind: KindRecognition, Seed: 3, Masks: 1, ViewsPerBatch: 3,
		Categories: []Category{{Name: "=1+1"}, {Name: "-car"}}}
	src := func(i int) string { return fmt.Sprintf("=cmd|' /C calc'!A%d", i) }
	for b := range 2 {
		bt := Batch{ID: b}
		for k := range 4 { // corrupted: sources 4b … 4b+3
			i := 4*b + k
			id := fmt.Sprintf("m%d", i)
			d.Stimuli = append(d.Stimuli, Stimulus{ID: id, Role: RoleMain, SourceID: src(i), Dataset: "@imagefolder", Path: id + ".png",
				Corruption: "gaussian_noise", Params: "{}", TestSetID: i, DV: 0.1 * float64(k+1), VIFMethod: "pixel", GroundTruth: d.Categories[i%2].Name})
			bt.Stimuli = append(bt.Stimuli, id)
		}
		for k := range 2 { // clean originals of sources the other batch shows corrupted
			i := 4*(1-b) + k
			id := fmt.Sprintf("c%d", i)
			d.Stimuli = append(d.Stimuli, Stimulus{ID: id, Role: RoleMain, SourceID: src(i), Dataset: "@imagefolder", Path: id + ".png",
				TestSetID: -1, GroundTruth: d.Categories[i%2].Name, IsOriginal: true})
			bt.Stimuli = append(bt.Stimuli, id)
		}
		d.Batches = append(d.Batches, bt)
	}
	d.Practice, d.Qualification, d.Sanity = []string{}, []string{}, []string{}
	d.Freeze()
	s := OpenTestStore(t)
	if err := s.Init(ctx, d); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sessions := []string{"-2-3", "@A1:A9", `=HYPERLINK("http://evil.example")`, "+1", "\tx", "'=quoted"}
	for n, sess := range sessions {
		p, _, err := s.Join(ctx, JoinRequest{ExternalID: fmt.Sprintf("p%d", n), Platform: "direct", SessionID: sess, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		ts, err := s.Trials(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			st := d.Stimulus(tr.StimulusID)
			ans := st.GroundTruth
			if !st.IsOriginal && (tr.Index+n)%3 == 0 {
				ans = wrongAnswer(d, st)
			}
			r := Response{Response: ans, RTms: -0.5, ShownMS: 200, RefreshHz: 60, Frames: 12, TimingOK: true, Input: "key", At: now}
			if err := s.Respond(ctx, p.ID, tr.Index, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	export := func(raw bool) ([]byte, [][]string) {
		var buf bytes.Buffer
		if _, err := ExportWithOptions(ctx, s, d, &buf, ExportOptions{RawCSV: raw}); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), rows
	}
	escBytes, esc := export(false)
	rawBytes, raw := export(true)
	var def bytes.Buffer
	if _, err := Export(ctx, s, d, &def); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(def.Bytes(), escBytes) {
		t.Error("Export does not escape as ExportWithOptions does by default")
	}
	if len(esc) != 1+6*6 || len(raw) != len(esc) {
		t.Fatalf("%d escaped and %d raw rows, want %d", len(esc), len(raw), 1+6*6)
	}
	col := map[string]int{}
	for i, c := range ExportColumns {
		col[c] = i
	}
	gotSessions := map[string]bool{}
	for r := 1; r < len(esc); r++ {
		for c, cell := range esc[r] {
			name := ExportColumns[c]
			if exportNumeric[name] {
				if cell != raw[r][c] {
					t.Errorf("row %d: numeric %s %q escaped to %q", r, name, raw[r][c], cell)
				}
				continue
			}
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("row %d: %s %q begins with a formula character", r, name, cell)
			}
			if csvsafe.Unescape(cell) != raw[r][c] {
				t.Errorf("row %d: %s: Unescape(%q) = %q, want the raw %q", r, name, cell, csvsafe.Unescape(cell), raw[r][c])
			}
		}
		if got := esc[r][col["rt_ms"]]; got != "-0.5" {
			t.Errorf("row %d: rt_ms %q, want the number -0.5", r, got)
		}
		gotSessions[esc[r][col["session"]]] = true
	}
	for _, want := range []string{"'-2-3", "'@A1:A9", `'=HYPERLINK("http://evil.example")`, "'+1", "'\tx", "''=quoted"} {
		if !gotSessions[want] {
			t.Errorf("no session cell %q among %v", want, gotSessions)
		}
	}
	if raw[1][col["session"]] != "-2-3" || raw[1][col["ground_truth"]][0] != '=' && raw[1][col["ground_truth"]][0] != '-' {
		t.Errorf("raw row %v", raw[1])
	}

	// human.ReadTrials reads both to the same data.
	dsEsc, err := human.ReadTrials(bytes.NewReader(escBytes), "trials.csv")
	if err != nil {
		t.Fatalf("escaped export: %v", err)
	}
	dsRaw, err := human.ReadTrials(bytes.NewReader(rawBytes), "trials.csv")
	if err != nil {
		t.Fatalf("raw export: %v", err)
	}
	if a, b := fmt.Sprintf("%+v", dsEsc), fmt.Sprintf("%+v", dsRaw); a != b {
		t.Errorf("human.ReadTrials reads the escaped export as\n%s\nand the raw one as\n%s", a, b)
	}
	series, err := dsEsc.Lookup("gaussian_noise")
	if err != nil {
		t.Fatal(err)
	}
	paired, correct := 0, 0
	for _, tr := range series.Trials {
		if !tr.Unpaired {
			paired++
		}
		if tr.Correct {
			correct++
		}
	}
	if len(series.Trials) != 24 || paired == 0 || correct == 0 || correct == 24 || series.CleanAccuracy != 1 {
		t.Errorf("read back %d trials, %d paired, %d correct, clean accuracy %v; want 24, some, some but not all, 1",
			len(series.Trials), paired, correct, series.CleanAccuracy)
	}
}

// TestDistinguishCSVEscaped: the distinguishability CSV escapes its text
// cells too.
func TestDistinguishCSVEscaped(t *testing.T) {
	r := &Distinguishability{Chance: 0.5, Alpha: 0.05, Pairs: []PairResult{{Pair: "=a|-b", CorruptionA: "=a", CorruptionB: "-b", N: 2, Rate: 0.5, PValue: 0.75, Verdict: "not distinguishable"}}}
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[1][:3]; !slices.Equal(got, []string{"'=a|-b", "'=a", "'-b"}) {
		t.Errorf("text cells %q, want them escaped", got)
	}
	if rows[1][4] != "2" || rows[1][6] != "0.5" {
		t.Errorf("numeric cells %q changed", rows[1])
	}
}
