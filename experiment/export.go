package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/vcr-bench/vcr/internal/csvsafe"
)

// ExportColumns are the columns Export writes, in order. The first ones
// are those of the project's trial CSV (docs/human-data.md), with
// source_id for image_id, so that human.ReadTrials (vcr analyze --human)
// reads an export directly: it skips rows with excluded = 1 and rows whose
// role is not "main".
//
//	participant       the participant's store id (pseudonymous)
//	session           the platform's session / assignment id
//	trial             the trial's index in the participant's plan
//	role              practice, qualification, main or sanity
//	stimulus_id       the design's stimulus id
//	source_id         the source image (the dataset's name for it)
//	source            the kind of dataset ("imagefolder", "cifar10", …)
//	corruption        the corruption; empty for a clean original
//	params            the corruption parameters (JSON, as in the manifest)
//	dv                Δv of the image (0 for a clean original)
//	vif_method        the VIF flavour of dv
//	ground_truth      the right answer
//	response          the participant's answer
//	correct           1 if response = ground_truth, else 0
//	rt_ms             response time from stimulus onset, ms
//	shown_ms          the measured time the stimulus was on screen, ms
//	mask_ms           the measured time the mask was on screen, ms
//	refresh_hz        the display's measured refresh rate
//	frames            display frames the stimulus was on
//	input             "key" or "mouse"
//	timing_ok         1 if shown_ms was within the tolerance of the target
//	is_original       1 for a clean original
//	excluded          1 if the row is excluded from analysis
//	exclusion_reason  why (the participant's status and reason, or the timing miss)
//	timestamp         when the answer was stored (RFC 3339, UTC)
//	batch             the participant's batch (−1: none)
//	pair, source_id2, corruption2, params2, dv2
//	                  the second image of a distinguishability trial
var ExportColumns = []string{
	"participant", "session", "trial", "role", "stimulus_id", "source_id", "source", "corruption", "params",
	"dv", "vif_method", "ground_truth", "response", "correct", "rt_ms", "shown_ms", "mask_ms", "refresh_hz",
	"frames", "input", "timing_ok", "is_original", "excluded", "exclusion_reason", "timestamp", "batch",
	"pair", "source_id2", "corruption2", "params2", "dv2",
}

// exportNumeric are the columns of ExportColumns that hold numbers
// (formatted by Export itself); every other column is text and is escaped
// against formula injection (ExportOptions).
var exportNumeric = map[string]bool{"participant": true, "trial": true, "dv": true, "correct": true, "rt_ms": true,
	"shown_ms": true, "mask_ms": true, "refresh_hz": true, "frames": true, "timing_ok": true, "is_original": true,
	"excluded": true, "batch": true, "dv2": true}

// exportText marks the text columns of ExportColumns.
var exportText = textColumns(ExportColumns, exportNumeric)

func textColumns(cols []string, numeric map[string]bool) []bool {
	out := make([]bool, len(cols))
	for i, c := range cols {
		out[i] = !numeric[c]
	}
	return out
}

// ExportOptions are the choices of ExportWithOptions.
type ExportOptions struct {
	// RawCSV writes the text cells as they are. By default a text cell
	// (session ids, answers, source ids, reasons: every column but the
	// numeric ones) that begins with =, +, -, @, a tab or a carriage
	// return gets a leading single quote, as OWASP recommends against
	// CSV injection, so that a spreadsheet shows it as text instead of
	// running it as a formula; numbers such as "-0.5" are never changed.
	// human.ReadTrials reads either.
	RawCSV bool
}

// ExportSummary counts what Export wrote.
type ExportSummary struct {
	Rows         int            // answered trials written
	Participants int            // participants with at least one row
	Main         int            // rows of role main
	Included     int            // main rows not excluded (what vcr analyze reads)
	Excluded     int            // rows with excluded = 1
	TimingMisses int            // rows with timing_ok = 0
	ByStatus     map[Status]int // participants with rows, by status
}

// Export is ExportWithOptions with the default options: text cells
// escaped against formula injection.
func Export(ctx context.Context, s Store, d *Design, w io.Writer) (ExportSummary, error) {
	return ExportWithOptions(ctx, s, d, w, ExportOptions{})
}

// ExportWithOptions writes every answered trial of the store as one CSV row
// (ExportColumns) to w. A row is excluded when its participant is
// excluded, screened out or abandoned, when the server found its timing
// claims implausible (Response.Implausible, CheckTiming), or, with
// d.ExcludeTimingMisses, when its stimulus timing missed the target; excluded rows are written
// too, with the reason. Active participants' rows are included (they may
// still be excluded later). It returns an error for a trial whose stimulus
// the design lacks (the store holds another design). Text cells are
// escaped unless opts.RawCSV (see ExportOptions).
func ExportWithOptions(ctx context.Context, s Store, d *Design, w io.Writer, opts ExportOptions) (ExportSummary, error) {
	sum := ExportSummary{ByStatus: map[Status]int{}}
	parts := map[int64]*Participant{}
	err := s.Participants(ctx, func(p *Participant) error {
		c := *p
		parts[p.ID] = &c
		return nil
	})
	if err != nil {
		return sum, fmt.Errorf("export: %w", err)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(ExportColumns); err != nil {
		return sum, err
	}
	seen := map[int64]bool{}
	rec := make([]string, len(ExportColumns))
	err = s.Answered(ctx, func(t *Trial) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := d.Stimulus(t.StimulusID)
		if st == nil {
			return fmt.Errorf("export: participant %d trial %d: stimulus %q is not in design %s", t.Participant, t.Index, t.StimulusID, d.Name)
		}
		p := parts[t.Participant]
		if p == nil {
			return fmt.Errorf("export: trial %d of unknown participant %d", t.Index, t.Participant)
		}
		a := t.Answer
		if !seen[p.ID] {
			seen[p.ID] = true
			sum.Participants++
			sum.ByStatus[p.Status]++
		}
		excluded, reason := exclusion(d, p, a)
		if !a.TimingOK {
			sum.TimingMisses++
		}
		sum.Rows++
		if excluded {
			sum.Excluded++
		}
		if t.Role == RoleMain {
			sum.Main++
			if !excluded {
				sum.Included++
			}
		}
		dv2 := ""
		if st.Path2 != "" {
			dv2 = fnum(st.DV2)
		}
		rec = append(rec[:0], strconv.FormatInt(p.ID, 10), p.SessionID, strconv.Itoa(t.Index), string(t.Role), st.ID,
			st.SourceID, st.Dataset, st.Corruption, st.Params, fnum(st.DV), st.VIFMethod, st.GroundTruth, a.Response,
			bit(Correct(d, st, a.Response)), fnum(a.RTms), fnum(a.ShownMS), fnum(a.MaskMS), fnum(a.RefreshHz),
			strconv.Itoa(a.Frames), a.Input, bit(a.TimingOK), bit(st.IsOriginal), bit(excluded), reason,
			a.At.UTC().Format(time.RFC3339Nano), strconv.Itoa(p.Batch),
			st.Pair, st.SourceID2, st.Corruption2, st.Params2, dv2)
		if !opts.RawCSV {
			csvsafe.Row(rec, exportText)
		}
		return cw.Write(rec)
	})
	if err != nil {
		return sum, err
	}
	cw.Flush()
	return sum, cw.Error()
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
