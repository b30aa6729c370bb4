package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/internal/csvsafe"
	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/stats"
)

// DistinguishAlpha is the significance level of the distinguishability
// verdict.
const DistinguishAlpha = 0.05

// PairResult is the distinguishability of one corruption pair: how often
// participants answered "same corruption?" correctly, and the one-sided
// exact binomial test of that rate against chance (0.5).
type PairResult struct {
	Pair        string `json:"pair"` // "A|B"
	CorruptionA string `json:"corruption_a"`
	CorruptionB string `json:"corruption_b"`
	// Participants is the number of participants whose answers count.
	Participants int `json:"participants"`
	N            int `json:"n"`       // trials
	Correct      int `json:"correct"` // correct answers
	// Rate is Correct/N (0 when N = 0).
	Rate float64 `json:"rate"`
	// The trials whose two images had the same corruption, and the others.
	SameN       int     `json:"same_n"`
	SameCorrect int     `json:"same_correct"`
	DiffN       int     `json:"different_n"`
	DiffCorrect int     `json:"different_correct"`
	PValue      float64 `json:"p_value"`
	// Distinguishable is PValue < Alpha (and N > 0).
	Distinguishable bool   `json:"distinguishable"`
	Verdict         string `json:"verdict"` // "distinguishable", "not distinguishable" or "no data"
}

// Distinguishability is the report of a distinguishability experiment.
type Distinguishability struct {
	// Tool and Version name the program that made the report ("vcr
	// experiment distinguish" and the vcr version), as every vcr artefact
	// records them.
	Tool    string  `json:"tool"`
	Version string  `json:"version"`
	Design  string  `json:"design"`
	Hash    string  `json:"design_hash"`
	Test    string  `json:"test"`
	Chance  float64 `json:"chance"`
	Alpha   float64 `json:"alpha"`
	// Pairs are in the order of the design's first stimulus of each pair.
	Pairs []PairResult `json:"pairs"`
	// ExcludedTrials counts answered main trials left out (excluded,
	// screened-out or abandoned participants; timing misses when the design
	// excludes them).
	ExcludedTrials int `json:"excluded_trials"`
}

// exclusion says whether a trial's answer is excluded from analysis and
// why: its participant is excluded, screened out or abandoned, or (with
// d.ExcludeTimingMisses) its stimulus timing missed the target.
func exclusion(d *Design, p *Participant, a *Response) (bool, string) {
	switch p.Status {
	case StatusExcluded, StatusScreenedOut, StatusAbandoned:
		reason := string(p.Status)
		if p.Reason != "" {
			reason += ": " + p.Reason
		}
		return true, reason
	}
	if a.Implausible != "" {
		return true, a.Implausible
	}
	if d.ExcludeTimingMisses && !a.TimingOK {
		return true, fmt.Sprintf("timing: stimulus shown %s ms at %s Hz, target %d ms", fnum(a.ShownMS), fnum(a.RefreshHz), d.Timing.Stimulus.Milliseconds())
	}
	return false, ""
}

// DistinguishReport computes, for every corruption pair of a
// distinguishability design, the rate of correct "same corruption?"
// answers on the main trials of the participants not excluded (as Export
// decides) and the one-sided exact binomial test against chance 0.5
// (stats.BinomGreater); a pair is distinguishable when p < DistinguishAlpha.
// It returns an error for a design that is not KindDistinguish.
func DistinguishReport(ctx context.Context, s Store, d *Design) (*Distinguishability, error) {
	if d.Kind != KindDistinguish {
		return nil, fmt.Errorf("design %s is a %s experiment, not %s", d.Name, d.Kind, KindDistinguish)
	}
	rep := &Distinguishability{Tool: "vcr experiment distinguish", Version: version.String(), Design: d.Name, Hash: d.Hash, Test: "one-sided exact binomial test, H1: rate > chance",
		Chance: 0.5, Alpha: DistinguishAlpha, Pairs: []PairResult{}}
	idx := map[string]int{}
	for _, st := range d.Stimuli {
		if st.Role != RoleMain || st.Pair == "" {
			continue
		}
		if _, ok := idx[st.Pair]; !ok {
			a, b, _ := strings.Cut(st.Pair, "|")
			idx[st.Pair] = len(rep.Pairs)
			rep.Pairs = append(rep.Pairs, PairResult{Pair: st.Pair, CorruptionA: a, CorruptionB: b})
		}
	}
	seen := make([]map[int64]bool, len(rep.Pairs))
	for i := range seen {
		seen[i] = map[int64]bool{}
	}
	parts := map[int64]*Participant{}
	if err := s.Participants(ctx, func(p *Participant) error {
		c := *p
		parts[p.ID] = &c
		return nil
	}); err != nil {
		return nil, err
	}
	err := s.Answered(ctx, func(t *Trial) error {
		if t.Role != RoleMain {
			return nil
		}
		st := d.Stimulus(t.StimulusID)
		if st == nil {
			return fmt.Errorf("distinguish: participant %d trial %d: stimulus %q is not in design %s", t.Participant, t.Index, t.StimulusID, d.Name)
		}
		p := parts[t.Participant]
		if p == nil {
			return fmt.Errorf("distinguish: trial %d of unknown participant %d", t.Index, t.Participant)
		}
		i, ok := idx[st.Pair]
		if !ok {
			return nil
		}
		if ex, _ := exclusion(d, p, t.Answer); ex {
			rep.ExcludedTrials++
			return nil
		}
		r := &rep.Pairs[i]
		ok = Correct(d, st, t.Answer.Response)
		r.N++
		if st.GroundTruth == AnswerSame {
			r.SameN++
		} else {
			r.DiffN++
		}
		if ok {
			r.Correct++
			if st.GroundTruth == AnswerSame {
				r.SameCorrect++
			} else {
				r.DiffCorrect++
			}
		}
		if !seen[i][p.ID] {
			seen[i][p.ID] = true
			r.Participants++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range rep.Pairs {
		r := &rep.Pairs[i]
		r.PValue = stats.BinomGreater(r.Correct, r.N, rep.Chance)
		r.Distinguishable = r.N > 0 && r.PValue < rep.Alpha
		switch {
		case r.N == 0:
			r.Rate = 0
			r.Verdict = "no data"
		case r.Distinguishable:
			r.Rate = float64(r.Correct) / float64(r.N)
			r.Verdict = "distinguishable"
		default:
			r.Rate = float64(r.Correct) / float64(r.N)
			r.Verdict = "not distinguishable"
		}
	}
	return rep, nil
}

// WriteJSON writes the report as indented JSON.
func (r *Distinguishability) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// DistinguishColumns are the columns of WriteCSV.
var DistinguishColumns = []string{"pair", "corruption_a", "corruption_b", "participants", "n", "correct", "rate",
	"same_n", "same_correct", "different_n", "different_correct", "chance", "p_value", "alpha", "distinguishable", "verdict"}

// distinguishText marks the text columns of DistinguishColumns.
var distinguishText = textColumns(DistinguishColumns, map[string]bool{"participants": true, "n": true, "correct": true,
	"rate": true, "same_n": true, "same_correct": true, "different_n": true, "different_correct": true, "chance": true,
	"p_value": true, "alpha": true, "distinguishable": true})

// WriteCSV writes one row per pair (DistinguishColumns). Its text cells
// (the pair and the corruption names) are escaped against formula
// injection as Export escapes them (ExportOptions).
func (r *Distinguishability) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(DistinguishColumns)
	for _, p := range r.Pairs {
		row := csvsafe.Row([]string{p.Pair, p.CorruptionA, p.CorruptionB, strconv.Itoa(p.Participants), strconv.Itoa(p.N),
			strconv.Itoa(p.Correct), fnum(p.Rate), strconv.Itoa(p.SameN), strconv.Itoa(p.SameCorrect),
			strconv.Itoa(p.DiffN), strconv.Itoa(p.DiffCorrect), fnum(r.Chance), fnum(p.PValue), fnum(r.Alpha),
			bit(p.Distinguishable), p.Verdict}, distinguishText)
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
