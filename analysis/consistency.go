package analysis

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/consistency"
	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/results"
)

// HumanObserverPrefix starts the observer name of a human participant in
// error_consistency.csv ("human:17" for participant 17), keeping
// participants apart from models.
const HumanObserverPrefix = "human:"

// stimulusKey is how a corrupted stimulus is named on both sides of the
// join: the source image (results: source; trial CSV: image_id, or
// source_id in an experiment export), the corruption, its parameters (as
// the manifest writes them; the export and the results copy them) and its
// Δv (both copy the manifest's number; it tells apart draws of the same
// parameters with different seeds, which the export does not record).
func stimulusKey(source, corruption, params string, dv float64) string {
	return source + "\x00" + corruption + "\x00" + params + "\x00" + strconv.FormatFloat(dv, 'g', -1, 64)
}

// isParticipantTrials reports whether spec names a file of the project's
// trial CSV (a participant column and image_id or source_id), whose
// trials identify participants and stimuli.
func isParticipantTrials(spec string) bool {
	fi, err := os.Stat(spec)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(spec)
	if err != nil {
		return false
	}
	defer f.Close()
	head, err := csv.NewReader(bufio.NewReader(f)).Read()
	if err != nil {
		return false
	}
	for i := range head {
		head[i] = strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff"))
	}
	return slices.Contains(head, "participant") && (slices.Contains(head, "image_id") || slices.Contains(head, "source_id"))
}

// errorConsistency compares the models of the results files and the
// participants of the trial CSV spec trial by trial (package consistency),
// or returns nil when spec is no such file.
func errorConsistency(ctx context.Context, opt Options, warn *[]string) (*consistency.Result, error) {
	if opt.Human == "" || !isParticipantTrials(opt.Human) {
		return nil, nil
	}
	f, err := os.Open(opt.Human)
	if err != nil {
		return nil, err
	}
	recs, err := human.ReadRecords(bufio.NewReader(f), opt.Human)
	f.Close()
	if err != nil {
		return nil, err
	}
	var obs []consistency.Observer
	byName := map[string]int{}
	seen := map[string]bool{}  // participant NUL key
	twice := map[string]bool{} // participant NUL key of stimuli judged twice
	for _, r := range recs {
		if r.IsOriginal {
			continue // clean originals: the models' correct_clean is per source, not per stimulus
		}
		name := HumanObserverPrefix + r.Participant
		i, ok := byName[name]
		if !ok {
			i = len(obs)
			byName[name] = i
			obs = append(obs, consistency.Observer{Name: name, Human: true})
		}
		key := stimulusKey(r.ImageID, r.Corruption, r.Params, r.DV)
		if seen[name+"\x00"+key] {
			twice[name+"\x00"+key] = true
			continue
		}
		seen[name+"\x00"+key] = true
		obs[i].Trials = append(obs[i].Trials, consistency.Trial{Stimulus: key, Corruption: r.Corruption, DV: r.DV,
			Correct: r.Response == r.GroundTruth})
	}
	if len(twice) > 0 {
		for i := range obs {
			obs[i].Trials = slices.DeleteFunc(obs[i].Trials, func(t consistency.Trial) bool { return twice[obs[i].Name+"\x00"+t.Stimulus] })
		}
		*warn = append(*warn, fmt.Sprintf("error consistency: %d stimuli of %s were judged twice by the same participant; they are left out of that participant's trials", len(twice), opt.Human))
	}
	humans := len(obs)
	stimuli := map[string]bool{}
	for _, o := range obs {
		for _, t := range o.Trials {
			stimuli[t.Stimulus] = true
		}
	}
	shared := 0
	for _, rf := range opt.Results {
		m, err := readObservers(rf, warn)
		if err != nil {
			return nil, err
		}
		for _, o := range m {
			for _, t := range o.Trials {
				if stimuli[t.Stimulus] {
					shared++
				}
			}
		}
		obs = append(obs, m...)
	}
	if humans > 0 && len(obs) > humans && shared == 0 {
		*warn = append(*warn, fmt.Sprintf("error consistency: no corrupted stimulus of the human trials %s is in the results; trials join on (image_id or source_id, corruption, params, dv) = the results' (source, corruption, params, dv), as 'vcr experiment export' and 'vcr eval' write them from one test set",
			opt.Human))
	}
	return consistency.Compare(ctx, obs, consistency.Options{Bins: consistency.DefaultBins, Bootstrap: opt.Bootstrap,
		Seed: opt.Seed, Level: consistency.DefaultLevel})
}

// readObservers reads a results file of 'vcr eval' into one observer per
// model: each labelled row without an error is a trial, named by
// stimulusKey(source, corruption, params, dv), correct by correct_corrupted,
// at Δv dv. A file without source or params columns cannot be joined
// (a warning says so); stimuli on two rows of one model are ambiguous and
// left out with a warning.
func readObservers(rf results.File, warn *[]string) ([]consistency.Observer, error) {
	f, err := os.Open(rf.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReaderSize(f, 1<<16))
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", rf.Path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	for _, c := range []string{"source", "corruption", "params", "dv", "correct_corrupted"} {
		if _, ok := col[c]; !ok {
			*warn = append(*warn, fmt.Sprintf("error consistency: %s has no %s column, so its rows cannot be matched with the human trials; it is left out", rf.Path, c))
			return nil, nil
		}
	}
	get := func(rec []string, c string) string {
		if i, ok := col[c]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	model := rf.Model
	if model == "" {
		model = results.DefaultModel(rf.Path)
	}
	var obs []consistency.Observer
	index := map[string]int{}
	lineOf := map[string]int{}
	ambiguous := map[string]bool{} // model NUL key of stimuli met twice
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rf.Path, err)
		}
		line, _ := cr.FieldPos(0)
		if get(rec, "error") != "" || strings.TrimSpace(get(rec, "correct_corrupted")) == "" {
			continue
		}
		m := model
		if v := get(rec, "model"); v != "" && rf.Model == "" {
			m = v
		}
		var correct bool
		switch strings.TrimSpace(get(rec, "correct_corrupted")) {
		case "1", "true":
			correct = true
		case "0", "false":
		default:
			return nil, fmt.Errorf("%s line %d: correct_corrupted %q must be 0 or 1", rf.Path, line, get(rec, "correct_corrupted"))
		}
		dv, err := strconv.ParseFloat(strings.TrimSpace(get(rec, "dv")), 64)
		if err != nil || !(dv >= 0 && dv <= 1) {
			return nil, fmt.Errorf("%s line %d: dv %q must be a number in [0, 1]", rf.Path, line, get(rec, "dv"))
		}
		key := stimulusKey(get(rec, "source"), get(rec, "corruption"), get(rec, "params"), dv)
		if _, dup := lineOf[m+"\x00"+key]; dup {
			ambiguous[m+"\x00"+key] = true
			continue
		}
		lineOf[m+"\x00"+key] = line
		i, ok := index[m]
		if !ok {
			i = len(obs)
			index[m] = i
			obs = append(obs, consistency.Observer{Name: m})
		}
		obs[i].Trials = append(obs[i].Trials, consistency.Trial{Stimulus: key, Corruption: get(rec, "corruption"), DV: dv, Correct: correct})
	}
	if len(ambiguous) > 0 {
		for i := range obs {
			obs[i].Trials = slices.DeleteFunc(obs[i].Trials, func(t consistency.Trial) bool { return ambiguous[obs[i].Name+"\x00"+t.Stimulus] })
		}
		*warn = append(*warn, fmt.Sprintf("error consistency: %s has %d stimuli (source, corruption, params, dv) on two or more rows; a human trial cannot tell them apart, so they are left out",
			rf.Path, len(ambiguous)))
	}
	return obs, nil
}
