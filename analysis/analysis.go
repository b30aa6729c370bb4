// Package analysis is the library behind 'vcr analyze': it reads the
// results tables of 'vcr eval', loads human data, checks that models and
// humans share one Δv axis and one set of corruptions, fits every curve
// with bootstrap bands (package robustness), compares models with humans
// (HMRI, MRSI), finds the corruptions visually similar for humans, and
// writes the report folder (package report: summary.json, CSV tables,
// SVG/PNG plots).
//
// It is the one place that joins the packages results, human, robustness
// and report; a Go program calls Run exactly as the command line does:
//
//	res, err := analysis.Run(ctx, analysis.Options{
//		Results: []results.File{{Path: "resnet50/results.csv"}},
//		Human:   "builtin:icse2022-imagenet",
//		Out:     "report",
//	})
//
// The estimation follows the VCR study's Algorithm 1 (Hu et al., "Towards
// Visually-Continuous Corruption Robustness of Neural Networks and Its
// Comparison with Humans") and HMRI/MRSI as defined there.
package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/imagenetc"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/results"
	"github.com/vcr-bench/vcr/robustness"
)

// Errors Run wraps, so that a caller can tell a bad request from a failure.
var (
	// ErrOptions: an option outside its range; the message names the
	// option as the command line spells it (--bins).
	ErrOptions = errors.New("analysis: bad option")
	// ErrOut: the output folder cannot be created or written.
	ErrOut = errors.New("analysis: cannot write the output folder")
)

// Options say what Run analyses and how. The zero value of a numeric
// field is not its default: start from DefaultOptions.
type Options struct {
	// Results are the results files of 'vcr eval' (at least one). A file's
	// Model names its model (results.File).
	Results []results.File
	// Human names human data as human.Open takes it ("builtin:NAME", a
	// built-in NAME, a per-bin folder or a trial file); empty: no humans.
	// HumanVIFMethod is the flavour of an ICSE 2022 per-trial file.
	Human, HumanVIFMethod string
	// AllHuman fits every corruption of the human data, not only the
	// models' (for the similar-corruption classes).
	AllHuman bool
	// AllowVIFMismatch compares models and humans whose Δv axes come from
	// different VIF flavours (recorded as a warning) when the results hold
	// no Δv column of the humans' flavour.
	AllowVIFMismatch bool
	// Bins is the number M of equal Δv bins (1…100000), or AutoBins;
	// MinPerBin the minimum rows L for a bin to enter a fit (≥ 1);
	// Bootstrap the replicates B (0: no bands or intervals).
	Bins, MinPerBin, Bootstrap int
	// Seed is the master bootstrap seed (SeriesSeed derives each series').
	Seed uint64
	// Lambda, when not nil, is a fixed smoothing penalty (> 0); nil: GCV.
	Lambda *float64
	// Families maps model names to families that share a plot colour.
	Families map[string]string
	// Out is the report folder, created if missing and checked to be
	// writable before any fitting; empty: Run writes nothing.
	Out string
	// Progress, when not nil, is called after each bootstrap replicate
	// with the replicates done and the total.
	Progress func(done, total int)
}

// AutoBins (Options.Bins) chooses M from the data: the VCR study's
// M = 40 (robustness.DefaultBins) when every series of trials (models,
// and humans given trial by trial) has at least
// MinUsableBins bins of at least MinPerBin rows at that resolution, else
// the largest M below it for which they all do (at least MinAutoBins). A
// small test set (200 rows over 40 bins hold 5 rows a bin) thus still gets
// curves, at a coarser resolution; the choice is recorded and warned about.
const AutoBins = 0

// MinAutoBins is the fewest bins AutoBins chooses; MinUsableBins the
// usable bins (at least MinPerBin rows) it asks of every model series.
const (
	MinAutoBins   = 5
	MinUsableBins = 4
)

// autoBins returns the bins AutoBins chooses for the series.
func autoBins(series []robustness.Series, minPerBin int) int {
	for m := robustness.DefaultBins; m > MinAutoBins; m-- {
		ok := true
		for _, s := range series {
			count := make([]int, m)
			for _, t := range s.Trials {
				if j := robustness.BinIndex(t.DV, m); j >= 0 && j < m {
					count[j]++
				}
			}
			usable := 0
			for _, c := range count {
				if c >= minPerBin {
					usable++
				}
			}
			if usable < min(MinUsableBins, m) {
				ok = false
				break
			}
		}
		if ok {
			return m
		}
	}
	return MinAutoBins
}

// DefaultOptions returns the options of 'vcr analyze' without flags.
func DefaultOptions() Options {
	return Options{Bins: AutoBins, MinPerBin: robustness.DefaultMinCount,
		Bootstrap: robustness.DefaultReplicates, Seed: 1}
}

// Result is what Run computed.
type Result struct {
	// Analysis holds the estimates, comparisons, settings and warnings;
	// Analysis.Summary() is summary.json.
	Analysis *report.Analysis
	// Rows counts the results rows read; Models the distinct models.
	Rows, Models int
	// Files are the paths Run wrote (none without Options.Out).
	Files []string
}

// Validate returns an error wrapping ErrOptions for an option outside its
// range, naming the option as the command line spells it.
func (o *Options) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrOptions}, a...)...)
	}
	switch {
	case len(o.Results) == 0:
		return bad("no results file; name one with --results, e.g. --results resnet50/results.csv")
	case o.Bins < 0 || o.Bins > 100000:
		return bad("--bins must be in 1…100000, or 0 to choose from the data (got %d), e.g. --bins 40", o.Bins)
	case o.MinPerBin < 1:
		return bad("--min-per-bin must be at least 1 (got %d), e.g. --min-per-bin 20", o.MinPerBin)
	case o.Bootstrap < 0:
		return bad("--bootstrap must be 0 (none) or positive (got %d), e.g. --bootstrap 1000", o.Bootstrap)
	case o.Lambda != nil && !(*o.Lambda > 0):
		return bad("--lambda must be positive (got %v), e.g. --lambda 0.1", *o.Lambda)
	}
	return nil
}

// PrepareOut creates the folder dir (and its parents) and checks that a
// file can be written in it. Its errors wrap ErrOut.
func PrepareOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w %s: %v", ErrOut, dir, errors.Unwrap(err))
	}
	f, err := os.CreateTemp(dir, ".vcr-write-check-*")
	if err != nil {
		return fmt.Errorf("%w %s: it is not writable", ErrOut, dir)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// SeriesSeed derives the bootstrap seed of one series from the master
// seed, so that different series (a model and the humans it is compared
// with) are resampled independently, yet every run with the same seed
// writes the same numbers: FNV-1a (64 bit) of "master\x00subject\x00corruption".
func SeriesSeed(master uint64, subject, corruption string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", master, subject, corruption)
	return h.Sum64()
}

// Run reads, fits, compares and (with Options.Out) writes the report
// folder. Caveats that are not failures (skipped rows, sparse bins,
// corruptions without human data, a Δv column taken from another flavour,
// differing tasks) are in Result.Analysis.Warnings, similar caveats
// grouped into one line each. It returns errors wrapping ErrOptions,
// ErrOut, human.ErrNotFound, human.ErrNeedVIFMethod,
// robustness.ErrVIFMismatch (results and humans on different Δv axes),
// robustness.ErrCorruptionMismatch (no model corruption has human data),
// the results package's errors and ctx.Err().
func Run(ctx context.Context, opt Options) (*Result, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Out != "" {
		if err := PrepareOut(opt.Out); err != nil {
			return nil, err
		}
	}
	paths := make([]string, len(opt.Results))
	for i, f := range opt.Results {
		paths[i] = f.Path
	}
	a := &report.Analysis{Results: paths, Human: opt.Human, Bins: opt.Bins, MinPerBin: opt.MinPerBin,
		Bootstrap: opt.Bootstrap, Seed: opt.Seed, Lambda: opt.Lambda, Families: opt.Families}
	var warn []string

	// Human data first: its flavour picks the results' Δv column.
	var humans []robustness.Series
	var ds *human.Dataset
	if opt.Human != "" {
		var err error
		if ds, err = human.Open(opt.Human, opt.HumanVIFMethod); err != nil {
			return nil, fmt.Errorf("--human %s: %w", opt.Human, err)
		}
		humans = ds.Series
		if len(humans) == 0 {
			return nil, fmt.Errorf("--human %s: no human series", opt.Human)
		}
		for i := range humans {
			humans[i].Human = true
			if humans[i].Subject == "" {
				humans[i].Subject = human.Subject
			}
		}
		slices.SortFunc(humans, func(x, y robustness.Series) int { return strings.Compare(x.Corruption, y.Corruption) })
		a.HumanVIFMethod, a.HumanTask = humans[0].VIFMethod, ds.Task
		for _, h := range humans[1:] {
			if h.VIFMethod != a.HumanVIFMethod {
				return nil, fmt.Errorf("--human %s mixes VIF flavours (%s: %q, %s: %q)", opt.Human, humans[0].Corruption, a.HumanVIFMethod, h.Corruption, h.VIFMethod)
			}
		}
	}
	tab, err := readResults(opt, a, &warn)
	if err != nil {
		return nil, err
	}
	a.VIFMethod, a.ResultsVIFMethod, a.Tasks = tab.VIFMethod, tab.RecordedVIFMethod, tab.Tasks
	if opt.Bins == AutoBins {
		var withTrials []robustness.Series
		for _, s := range slices.Concat(tab.Series, humans) {
			if len(s.Trials) > 0 {
				withTrials = append(withTrials, s)
			}
		}
		opt.Bins = autoBins(withTrials, opt.MinPerBin)
		a.Bins = opt.Bins
		if opt.Bins < robustness.DefaultBins {
			warn = append(warn, fmt.Sprintf("Δv bins chosen from the data: at the study's %d bins some series have fewer than %d bins of at least %d rows (--min-per-bin); using %d bins of width %.3g (give --bins %d to insist, or generate more rows)",
				robustness.DefaultBins, MinUsableBins, opt.MinPerBin, opt.Bins, 1/float64(opt.Bins), robustness.DefaultBins))
		}
	}
	for _, w := range tab.Warnings {
		warn = append(warn, w.Error())
	}
	if tab.Severities != nil {
		if a.ImageNetC, err = imageNetC(ctx, tab, opt, &warn); err != nil {
			return nil, err
		}
	}

	// Match model corruptions with human ones.
	humanFor := map[string]int{} // canonical corruption → index in humans
	if ds != nil {
		warn = append(warn, taskWarnings(tab, ds, opt.Human)...)
		byName := map[string]int{}
		var have []string
		for i, h := range humans {
			have = append(have, h.Corruption)
			byName[human.CanonicalCorruption(h.Corruption)] = i
		}
		need := make([]bool, len(humans))
		var lacking, lackingModels []string
		for _, s := range tab.Series {
			i, ok := byName[human.CanonicalCorruption(s.Corruption)]
			if !ok {
				if !slices.Contains(lacking, s.Corruption) {
					lacking = append(lacking, s.Corruption)
				}
				if !slices.Contains(lackingModels, s.Subject) {
					lackingModels = append(lackingModels, s.Subject)
				}
				continue
			}
			need[i] = true
		}
		if !slices.Contains(need, true) {
			return nil, &causeError{
				msg: fmt.Sprintf("the human data %s has none of the models' corruptions (%s); it has %s",
					opt.Human, strings.Join(lacking, ", "), strings.Join(have, ", ")),
				causes: []error{robustness.ErrCorruptionMismatch},
			}
		}
		if len(lacking) > 0 {
			warn = append(warn, fmt.Sprintf("the human data %s has no series for %d corruption(s): %s (models %s); they are analysed without HMRI/MRSI (the human data has %s)",
				opt.Human, len(lacking), strings.Join(lacking, ", "), strings.Join(lackingModels, ", "), strings.Join(have, ", ")))
		}
		var keep []robustness.Series
		for i, h := range humans {
			if need[i] || opt.AllHuman {
				humanFor[human.CanonicalCorruption(h.Corruption)] = len(keep)
				keep = append(keep, h)
			}
		}
		humans = keep
	}

	// Fit every series.
	ro := robustness.Options{Bins: opt.Bins, MinCount: opt.MinPerBin, Replicates: opt.Bootstrap, Lambda: opt.Lambda}
	if opt.Bootstrap == 0 {
		ro.Replicates = -1
	}
	all := slices.Concat(tab.Series, humans)
	if opt.Progress != nil && opt.Bootstrap > 0 {
		done, total := 0, opt.Bootstrap*len(all)
		ro.Progress = func(int, int) { done++; opt.Progress(done, total) }
	}
	ests := make([]*robustness.Estimate, len(all))
	for i, s := range all {
		o := ro
		o.Seed = SeriesSeed(opt.Seed, s.Subject, s.Corruption)
		e, err := robustness.Fit(ctx, s, o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			who := "model " + s.Subject
			if s.Human {
				who = "human data " + opt.Human
			}
			return nil, fmt.Errorf("%s, corruption %s: %w", who, s.Corruption, err)
		}
		ests[i] = e
	}
	a.Models, a.Humans = ests[:len(tab.Series)], ests[len(tab.Series):]
	var estWarn []error
	for _, e := range ests {
		estWarn = append(estWarn, e.Warnings...)
	}
	if len(humans) > 0 {
		a.Comparisons = make([]*robustness.Comparison, len(a.Models))
		for i, m := range a.Models {
			hi, ok := humanFor[human.CanonicalCorruption(m.Corruption)]
			if !ok {
				continue // no human data for this corruption (warned above)
			}
			// The names may differ in spelling only (CanonicalCorruption).
			c, err := robustness.Compare(m, a.Humans[hi], robustness.CompareOptions{AllowVIFMismatch: opt.AllowVIFMismatch, AllowCorruptionMismatch: true})
			if err != nil {
				return nil, err
			}
			a.Comparisons[i] = c
		}
		if len(a.Humans) >= 2 && opt.Bootstrap > 0 {
			co := robustness.CompareOptions{AllowVIFMismatch: opt.AllowVIFMismatch}
			if a.SimilarAccuracy, err = robustness.Similarity(a.Humans, robustness.AccuracyCurve, co); err != nil {
				warn = append(warn, "similar corruptions (accuracy): "+err.Error())
			}
			if a.SimilarConsistency, err = robustness.Similarity(a.Humans, robustness.ConsistencyCurve, co); err != nil {
				warn = append(warn, "similar corruptions (consistency): "+err.Error())
			}
		}
	}
	if a.ErrorConsistency, err = errorConsistency(ctx, opt, &warn); err != nil {
		return nil, fmt.Errorf("error consistency: %w", err)
	}
	a.Warnings = append(warn, GroupWarnings(estWarn)...)

	res := &Result{Analysis: a, Rows: tab.Rows, Models: countModels(tab.Series)}
	if opt.Out == "" {
		return res, nil
	}
	for _, f := range []struct {
		name string
		fill func(io.Writer) error
	}{
		{"summary.json", a.WriteJSON},
		{"summary.csv", a.WriteSummaryCSV},
		{"curves.csv", a.WriteCurvesCSV},
		{"bins.csv", a.WriteBinsCSV},
	} {
		p := filepath.Join(opt.Out, f.name)
		if err := atomicfile.Write(p, f.fill); err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
		res.Files = append(res.Files, p)
	}
	if a.ImageNetC != nil {
		for _, f := range []struct {
			name string
			fill func(io.Writer) error
		}{
			{ImageNetCJSON, func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(a.ImageNetC)
			}},
			{ImageNetCCSV, a.ImageNetC.WriteCSV},
		} {
			p := filepath.Join(opt.Out, f.name)
			if err := atomicfile.Write(p, f.fill); err != nil {
				return nil, fmt.Errorf("write %s: %w", p, err)
			}
			res.Files = append(res.Files, p)
		}
	}
	if a.ErrorConsistency != nil {
		p := filepath.Join(opt.Out, report.ErrorConsistencyFile)
		if err := atomicfile.Write(p, a.WriteErrorConsistencyCSV); err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
		res.Files = append(res.Files, p)
	}
	plots, err := a.WritePlots(opt.Out)
	res.Files = append(res.Files, plots...)
	if err != nil {
		return nil, err
	}
	if err := replaceOutputList(opt.Out, res.Files); err != nil {
		return nil, err
	}
	return res, nil
}

// OutputList is the file in an analysis folder that lists the files the
// last Run wrote there, one base name a line. The next Run into the same
// folder removes the files of that list it does not write again (plots of
// a corruption or model no longer analysed), so that a folder never mixes
// two analyses; files Run did not write are never touched.
const OutputList = ".vcr-analyze-outputs"

// replaceOutputList removes the files of dir's previous OutputList that are
// not in files, then records files as the new list.
func replaceOutputList(dir string, files []string) error {
	keep := map[string]bool{}
	var b strings.Builder
	for _, f := range files {
		name := filepath.Base(f)
		keep[name] = true
		b.WriteString(name + "\n")
	}
	list := filepath.Join(dir, OutputList)
	if old, err := os.ReadFile(list); err == nil {
		for _, name := range strings.Split(string(old), "\n") {
			// Only plain names of this folder: a damaged or crafted list
			// cannot reach outside it.
			if name == "" || keep[name] || name != filepath.Base(name) || name == "." || name == ".." || name == OutputList {
				continue
			}
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove the earlier analysis's %s: %w", filepath.Join(dir, name), err)
			}
		}
	}
	return atomicfile.Write(list, func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// Files of the ImageNet-C metrics, written when the results have a
// severity column with values.
const (
	ImageNetCJSON = "imagenet_c.json"
	ImageNetCCSV  = "imagenet_c.csv"
)

// CleanErrorMethod says how the ImageNet-C clean error of a model is
// measured from its results (imagenetc.Report.CleanErrorMethod).
const CleanErrorMethod = "1 - mean of correct_clean over the distinct source images of the model's labelled rows with a severity (over those rows when the results have no source column)"

// imageNetC computes the ImageNet-C metrics of every model with severity
// rows, with percentile bootstrap intervals when opt.Bootstrap > 0
// (imagenetc.Intervals: opt.Bootstrap replicates, level 0.95, master seed
// opt.Seed), and warns about models without an mCE and about tasks other
// than ImageNet's 1000 classes (AlexNet's errors are 1000-class top-1
// errors). It returns ctx.Err() if cancelled.
func imageNetC(ctx context.Context, tab *results.Table, opt Options, warn *[]string) (*imagenetc.Report, error) {
	var models []imagenetc.Model
	for _, c := range tab.Severities {
		if len(models) == 0 || models[len(models)-1].Name != c.Model {
			cl := tab.SeverityClean[c.Model]
			models = append(models, imagenetc.Model{Name: c.Model, CleanN: cl.N, CleanErrors: cl.N - cl.Correct})
		}
		m := &models[len(models)-1]
		m.Counts = append(m.Counts, imagenetc.Count{Corruption: c.Corruption, Severity: c.Severity, N: c.N, Errors: c.N - c.Correct})
	}
	rep := imagenetc.NewReport(models, CleanErrorMethod)
	for i := range rep.Models {
		r := &rep.Models[i]
		if opt.Bootstrap > 0 {
			if err := imagenetc.Intervals(ctx, models[i], r, imagenetc.Bootstrap{Replicates: opt.Bootstrap, Seed: opt.Seed, Level: imagenetc.DefaultLevel}); err != nil {
				return nil, err
			}
		}
		if t, ok := tab.Tasks[r.Model]; ok && len(t.Classes) > 0 && len(t.Classes) != 1000 {
			note := fmt.Sprintf("task %s has %d classes, but AlexNet's reference errors are ImageNet 1000-class top-1 errors: CE and mCE compare different questions", t.Name, len(t.Classes))
			r.Notes = append(r.Notes, note)
			*warn = append(*warn, "ImageNet-C, model "+r.Model+": "+note)
		}
		if len(r.Missing) > 0 {
			*warn = append(*warn, fmt.Sprintf("ImageNet-C, model %s: no mCE: the results lack benchmark corruption(s) %s at all five severities (the mCE averages all %d)",
				r.Model, strings.Join(r.Missing, ", "), len(imagenetc.Benchmark)))
		}
	}
	return rep, nil
}

// readResults reads the results files on the humans' Δv axis when the
// human data have a flavour: the results' dv column when it is of that
// flavour, else their dv_<flavour> column. Without such a column it
// refuses, unless opt.AllowVIFMismatch (then the dv column is used and
// a.VIFMismatch says so).
func readResults(opt Options, a *report.Analysis, warn *[]string) (*results.Table, error) {
	if a.HumanVIFMethod == "" {
		return results.Read(opt.Results)
	}
	tab, err := results.ReadOptions(opt.Results, results.Options{DVMethod: a.HumanVIFMethod})
	if err == nil {
		if tab.RecordedVIFMethod != a.HumanVIFMethod {
			a.DVMethod = a.HumanVIFMethod
			*warn = append(*warn, fmt.Sprintf("the results' dv column is by VIF flavour %q; the models' Δv is taken from their %s column (flavour %q, the human data's), so models and humans share one Δv axis",
				tab.RecordedVIFMethod, iqa.DVColumn(iqa.Method(a.HumanVIFMethod)), a.HumanVIFMethod))
		}
		return tab, nil
	}
	if !errors.Is(err, results.ErrNoDVColumn) {
		return nil, err
	}
	if !opt.AllowVIFMismatch {
		detail := strings.TrimPrefix(err.Error(), results.ErrNoDVColumn.Error()+": ")
		return nil, &causeError{
			msg: fmt.Sprintf("models and humans are on different Δv axes: the human data %s has Δv by VIF flavour %q, but %s; regenerate the test set with 'vcr generate --dv-methods %s,%s' and re-run 'vcr eval', or pass --allow-vif-mismatch to compare anyway",
				opt.Human, a.HumanVIFMethod, detail, primaryFlavour(opt.Results), a.HumanVIFMethod),
			causes: []error{robustness.ErrVIFMismatch, err},
		}
	}
	tab, err = results.Read(opt.Results)
	if err != nil {
		return nil, err
	}
	a.VIFMismatch = fmt.Sprintf("VIF flavours differ, compared anyway (--allow-vif-mismatch): the model results' Δv was computed with VIF flavour %q but the human data %s with %q; their Δv axes are not comparable",
		tab.VIFMethod, opt.Human, a.HumanVIFMethod)
	return tab, nil
}

// causeError is an error with its own message that matches several causes
// with errors.Is.
type causeError struct {
	msg    string
	causes []error
}

func (e *causeError) Error() string   { return e.msg }
func (e *causeError) Unwrap() []error { return e.causes }

// primaryFlavour returns the vif_method of the results (for messages), or
// "FLAVOUR" when they cannot be read.
func primaryFlavour(files []results.File) string {
	if tab, err := results.Read(files); err == nil {
		return tab.RecordedVIFMethod
	}
	return "FLAVOUR"
}

// taskWarnings says, once per distinct model task, when the models' task
// differs from the human data's, and when results record no task at all.
func taskWarnings(tab *results.Table, ds *human.Dataset, spec string) []string {
	if ds.Task == "" {
		return nil
	}
	var out, unknown []string
	seen := map[string][]string{}
	var order []string
	for _, s := range tab.Series {
		t, ok := tab.Tasks[s.Subject]
		switch {
		case !ok:
			if !slices.Contains(unknown, s.Subject) {
				unknown = append(unknown, s.Subject)
			}
		case t.Name != ds.Task:
			if _, done := seen[t.Name]; !done {
				order = append(order, t.Name)
			}
			if !slices.Contains(seen[t.Name], s.Subject) {
				seen[t.Name] = append(seen[t.Name], s.Subject)
			}
		}
	}
	for _, name := range order {
		var t results.Task
		for _, m := range seen[name] {
			t = tab.Tasks[m]
			break
		}
		out = append(out, fmt.Sprintf("model task %s (%s) vs human task %s (%s): HMRI compares different questions (models %s)",
			name, describeTask(t), ds.Task, describeHumanTask(ds.Task), strings.Join(seen[name], ", ")))
	}
	if len(unknown) > 0 {
		out = append(out, fmt.Sprintf("the results of %s record no task (no \"task\" in RESULTS.csv.json); cannot check it against the human data's task %s (%s)",
			strings.Join(unknown, ", "), ds.Task, describeHumanTask(ds.Task)))
	}
	return out
}

func describeTask(t results.Task) string {
	switch {
	case len(t.Classes) == 0:
		return "classes not recorded"
	case len(t.Classes) <= 3:
		return strings.Join(t.Classes, " / ")
	}
	return fmt.Sprintf("%d classes", len(t.Classes))
}

func describeHumanTask(name string) string {
	if name == human.TaskCar {
		return "car / not car"
	}
	return "as named"
}

// GroupWarnings turns per-curve caveats into one line per kind: the
// caveats that are *robustness.Warning of the same Kind become
// "Kind: N curves: where (count), …"; a kind met once keeps its own text,
// and other errors are kept as they are, in order of first appearance.
func GroupWarnings(errs []error) []string {
	var order []string
	groups := map[string][]*robustness.Warning{}
	var out []string
	for _, e := range errs {
		var w *robustness.Warning
		if !errors.As(e, &w) {
			order = append(order, "\x00"+e.Error())
			continue
		}
		if _, ok := groups[w.Kind]; !ok {
			order = append(order, w.Kind)
		}
		groups[w.Kind] = append(groups[w.Kind], w)
	}
	for _, k := range order {
		if plain, ok := strings.CutPrefix(k, "\x00"); ok {
			out = append(out, plain)
			continue
		}
		g := groups[k]
		if len(g) == 1 {
			out = append(out, g[0].Error())
			continue
		}
		parts := make([]string, len(g))
		for i, w := range g {
			if w.Of > 0 {
				parts[i] = fmt.Sprintf("%s (%d of %d)", w.Where(), w.Count, w.Of)
			} else {
				parts[i] = fmt.Sprintf("%s (%d)", w.Where(), w.Count)
			}
		}
		out = append(out, fmt.Sprintf("%s: %d curves: %s", k, len(g), strings.Join(parts, ", ")))
	}
	return out
}

func countModels(s []robustness.Series) int {
	var m []string
	for _, x := range s {
		if !slices.Contains(m, x.Subject) {
			m = append(m, x.Subject)
		}
	}
	return len(m)
}
