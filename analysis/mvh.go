package analysis

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/consistency"
	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/version"
)

// MVHOptions say what ModelVsHuman compares.
type MVHOptions struct {
	// Human names model-vs-human raw data as human.OpenMVH takes it
	// (builtin:mvh-contrast, a folder of raw-data CSVs, or one CSV).
	Human string
	// Predictions are model results files in model-vs-human's raw-data
	// format (subj = the model's name, object_response = its answer), as
	// model-vs-human writes them for models; each subj is one model.
	Predictions []string
	// Probabilities says the logit_ columns of predictions files hold
	// probabilities, not logits (ReadMVHPredictions).
	Probabilities bool
	// Bootstrap is the number of replicates of the kappa intervals (0:
	// none); Seed the master seed (consistency.Options).
	Bootstrap int
	Seed      uint64
	// Out is the folder to write (created); empty: nothing is written.
	Out string
	// Plot, when not empty, is a figure file to write (.svg, or .png):
	// the two panels of MVHCharts.
	Plot string
}

// MVHAccuracy is one observer's 16-class accuracy on one condition:
// Correct of N trials (object_response = category).
type MVHAccuracy struct {
	Observer  string  `json:"observer"`
	Human     bool    `json:"human"`
	Condition string  `json:"condition"`
	N         int     `json:"n"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"accuracy"`
}

// MVHResult is what ModelVsHuman computed.
type MVHResult struct {
	Accuracy    []MVHAccuracy
	Consistency *consistency.Result
	// Conditions sum up each condition for the table and the plots, in
	// condition order (numeric when the conditions are numbers).
	Conditions []MVHCondition
	Warnings   []string
	// Files are the paths written (none without MVHOptions.Out).
	Files []string
}

// MVHTool is the "tool" field of the summary.json ModelVsHuman writes.
const MVHTool = "vcr error-consistency"

// ModelVsHuman computes, as model-vs-human's analysis code does
// (modelvshuman/plotting/analyses.py), every observer's 16-class accuracy
// per condition and the error consistency of every pair of observers per
// condition, trials matched by condition and human.ShortImageName of the
// image name. The mean kappa over pairs of human subjects is the ceiling;
// each model gets its mean over the subjects. A stimulus judged twice by
// one observer is left out of its consistency (a warning counts them);
// accuracy counts every trial. With opt.Out it writes accuracy.csv,
// error_consistency.csv and summary.json.
func ModelVsHuman(ctx context.Context, opt MVHOptions) (*MVHResult, error) {
	if opt.Bootstrap < 0 {
		return nil, fmt.Errorf("%w: --bootstrap must be 0 (none) or positive (got %d), e.g. --bootstrap 1000", ErrOptions, opt.Bootstrap)
	}
	if ext := strings.ToLower(filepath.Ext(opt.Plot)); opt.Plot != "" && ext != ".svg" && ext != ".png" {
		return nil, fmt.Errorf("%w: --plot %s: want a file name ending in .svg or .png", ErrOptions, opt.Plot)
	}
	if opt.Out != "" {
		if err := PrepareOut(opt.Out); err != nil {
			return nil, err
		}
	}
	hum, err := human.OpenMVH(opt.Human)
	if err != nil {
		return nil, fmt.Errorf("--human %s: %w", opt.Human, err)
	}
	res := &MVHResult{}
	var obs []consistency.Observer
	index := map[string]int{}
	isHuman := map[string]bool{}
	acc := map[[2]string]*MVHAccuracy{}
	seen, twice := map[string]bool{}, map[string]bool{}
	add := func(ts []human.MVHTrial, h bool, where string) error {
		for _, t := range ts {
			if prev, ok := isHuman[t.Subject]; ok && prev != h {
				return fmt.Errorf("%s: observer %s is both a human subject and a model; rename the model (subj)", where, t.Subject)
			}
			isHuman[t.Subject] = h
			i, ok := index[t.Subject]
			if !ok {
				i = len(obs)
				index[t.Subject] = i
				obs = append(obs, consistency.Observer{Name: t.Subject, Human: h})
			}
			k := [2]string{t.Subject, t.Condition}
			a := acc[k]
			if a == nil {
				a = &MVHAccuracy{Observer: t.Subject, Human: h, Condition: t.Condition}
				acc[k] = a
			}
			a.N++
			if t.Correct() {
				a.Correct++
			}
			st := t.Condition + "\x00" + human.ShortImageName(t.ImageName)
			if seen[t.Subject+"\x00"+st] {
				twice[t.Subject+"\x00"+st] = true
				continue
			}
			seen[t.Subject+"\x00"+st] = true
			obs[i].Trials = append(obs[i].Trials, consistency.Trial{Stimulus: st, Corruption: t.Condition, Correct: t.Correct()})
		}
		return nil
	}
	if err := add(hum, true, opt.Human); err != nil {
		return nil, err
	}
	for _, p := range opt.Predictions {
		ts, err := readMVHPredictionsFile(p, hum, opt.Probabilities)
		if err != nil {
			return nil, err
		}
		if err := add(ts, false, p); err != nil {
			return nil, err
		}
		res.Warnings = append(res.Warnings, coverageWarnings(hum, ts, p)...)
	}
	if len(twice) > 0 {
		for i := range obs {
			obs[i].Trials = slices.DeleteFunc(obs[i].Trials, func(t consistency.Trial) bool { return twice[obs[i].Name+"\x00"+t.Stimulus] })
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d (observer, condition, image) stimuli were judged twice by the same observer; they are left out of the error consistency", len(twice)))
	}
	for _, a := range acc {
		a.Accuracy = float64(a.Correct) / float64(a.N)
		res.Accuracy = append(res.Accuracy, *a)
	}
	slices.SortFunc(res.Accuracy, func(x, y MVHAccuracy) int {
		if x.Human != y.Human {
			if x.Human {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(x.Observer, y.Observer), compareCondition(x.Condition, y.Condition))
	})
	if res.Consistency, err = consistency.Compare(ctx, obs, consistency.Options{Bootstrap: opt.Bootstrap, Seed: opt.Seed, Level: consistency.DefaultLevel}); err != nil {
		return nil, err
	}
	res.Conditions = mvhConditions(res.Accuracy, res.Consistency)
	if opt.Plot != "" {
		charts := MVHCharts(res, mvhDatasetName(opt.Human))
		if err := atomicfile.Write(opt.Plot, func(w io.Writer) error { return writeMVHPlot(w, opt.Plot, charts) }); err != nil {
			return nil, fmt.Errorf("write %s: %w", opt.Plot, err)
		}
		res.Files = append(res.Files, opt.Plot)
	}
	if opt.Out == "" {
		return res, nil
	}
	sum := struct {
		Tool        string             `json:"tool"`
		Version     string             `json:"version"`
		Human       string             `json:"human"`
		Predictions []string           `json:"predictions"`
		Bootstrap   int                `json:"bootstrap"`
		Level       float64            `json:"level"`
		Seed        uint64             `json:"seed"`
		Accuracy    []MVHAccuracy      `json:"accuracy"`
		Ceiling     []consistency.Mean `json:"human_ceiling"`
		ModelHuman  []consistency.Mean `json:"model_human"`
		Conditions  []MVHCondition     `json:"conditions"`
		Warnings    []string           `json:"warnings,omitempty"`
	}{MVHTool, version.String(), opt.Human, opt.Predictions, opt.Bootstrap, consistency.DefaultLevel, opt.Seed,
		res.Accuracy, res.Consistency.Ceiling, res.Consistency.ModelHuman, res.Conditions, res.Warnings}
	if sum.Predictions == nil {
		sum.Predictions = []string{}
	}
	if sum.Ceiling == nil {
		sum.Ceiling = []consistency.Mean{}
	}
	if sum.ModelHuman == nil {
		sum.ModelHuman = []consistency.Mean{}
	}
	for _, f := range []struct {
		name string
		fill func(io.Writer) error
	}{
		{"accuracy.csv", func(w io.Writer) error { return writeMVHAccuracy(w, res.Accuracy) }},
		{"error_consistency.csv", res.Consistency.WriteCSV},
		{"summary.json", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		}},
	} {
		p := filepath.Join(opt.Out, f.name)
		if err := atomicfile.Write(p, f.fill); err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
		res.Files = append(res.Files, p)
	}
	return res, nil
}

// MVHCondition sums up one condition the way model-vs-human's figures
// show it: each subject's accuracy and mean kappa with the other subjects
// (as model-vs-human's ErrorConsistency.get_result computes a human's
// value), their mean and range (the human band), and each model's accuracy
// and mean kappa with the subjects.
type MVHCondition struct {
	Condition string `json:"condition"`
	// Subjects are the human subjects' values, by name.
	Subjects []MVHObserverValues `json:"subjects"`
	// HumanAccuracy is the mean of the subjects' accuracies,
	// HumanAccuracyMin and HumanAccuracyMax their range.
	HumanAccuracy    float64 `json:"human_accuracy"`
	HumanAccuracyMin float64 `json:"human_accuracy_min"`
	HumanAccuracyMax float64 `json:"human_accuracy_max"`
	// HumanKappa is the mean of the subjects' mean kappas (model-vs-human's
	// human value; the mean over pairs when every pair shares trials),
	// HumanKappaMin and HumanKappaMax their range, over HumanKappaPairs
	// pairs of subjects; with no pair all four are 0.
	HumanKappa      float64 `json:"human_kappa"`
	HumanKappaMin   float64 `json:"human_kappa_min"`
	HumanKappaMax   float64 `json:"human_kappa_max"`
	HumanKappaPairs int     `json:"human_kappa_pairs"`
	// Models are the models' values, by name.
	Models []MVHObserverValues `json:"models"`
}

// MVHObserverValues are one observer's values on one condition: its
// 16-class accuracy on N trials and its mean kappa over Pairs partners
// (the human subjects other than itself); Pairs 0 leaves Kappa 0.
type MVHObserverValues struct {
	Name     string  `json:"name"`
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	Kappa    float64 `json:"kappa"`
	Pairs    int     `json:"pairs"`
}

// mvhConditions builds the per-condition summaries from the accuracies
// and the pair rows (every row has Bin AllDV here).
func mvhConditions(acc []MVHAccuracy, ec *consistency.Result) []MVHCondition {
	type key struct{ obs, cond string }
	sum, pairs := map[key]float64{}, map[key]int{}
	for _, r := range ec.Rows {
		if r.Bin != consistency.AllDV || math.IsNaN(r.Kappa) {
			continue
		}
		switch r.Kind {
		case "human-human":
			for _, o := range []string{r.A, r.B} {
				sum[key{o, r.Corruption}] += r.Kappa
				pairs[key{o, r.Corruption}]++
			}
		case "model-human":
			sum[key{r.A, r.Corruption}] += r.Kappa
			pairs[key{r.A, r.Corruption}]++
		}
	}
	byCond := map[string]*MVHCondition{}
	var conds []string
	for _, a := range acc {
		c := byCond[a.Condition]
		if c == nil {
			c = &MVHCondition{Condition: a.Condition}
			byCond[a.Condition] = c
			conds = append(conds, a.Condition)
		}
		k := key{a.Observer, a.Condition}
		v := MVHObserverValues{Name: a.Observer, N: a.N, Accuracy: a.Accuracy, Pairs: pairs[k]}
		if v.Pairs > 0 {
			v.Kappa = sum[k] / float64(v.Pairs)
		}
		if a.Human {
			c.Subjects = append(c.Subjects, v)
		} else {
			c.Models = append(c.Models, v)
		}
	}
	slices.SortFunc(conds, compareCondition)
	out := make([]MVHCondition, 0, len(conds))
	for _, name := range conds {
		c := byCond[name]
		c.HumanAccuracyMin, c.HumanAccuracyMax = math.Inf(1), math.Inf(-1)
		c.HumanKappaMin, c.HumanKappaMax = math.Inf(1), math.Inf(-1)
		nk := 0
		for _, s := range c.Subjects {
			c.HumanAccuracy += s.Accuracy
			c.HumanAccuracyMin, c.HumanAccuracyMax = min(c.HumanAccuracyMin, s.Accuracy), max(c.HumanAccuracyMax, s.Accuracy)
			if s.Pairs > 0 {
				c.HumanKappa += s.Kappa
				c.HumanKappaMin, c.HumanKappaMax = min(c.HumanKappaMin, s.Kappa), max(c.HumanKappaMax, s.Kappa)
				c.HumanKappaPairs += s.Pairs
				nk++
			}
		}
		c.HumanKappaPairs /= 2
		if len(c.Subjects) > 0 {
			c.HumanAccuracy /= float64(len(c.Subjects))
		} else {
			c.HumanAccuracyMin, c.HumanAccuracyMax = 0, 0
		}
		if nk > 0 {
			c.HumanKappa /= float64(nk)
		} else {
			c.HumanKappaMin, c.HumanKappaMax = 0, 0
		}
		out = append(out, *c)
	}
	return out
}

// compareCondition orders conditions numerically when both are numbers
// (0, 0.03, 10, 100), else naturally: runs of digits compare as integers
// (c01 < c05 < c10 < c100; 1-10-10 < 16-10-10 < 128-10-10), the rest as
// strings.
func compareCondition(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	run := func(s string, num bool) (string, string) {
		i := 0
		for i < len(s) && digit(s[i]) == num {
			i++
		}
		return s[:i], s[i:]
	}
	for ra, rb := a, b; ra != "" && rb != ""; {
		na, nb := digit(ra[0]), digit(rb[0])
		if na != nb {
			return cmp.Compare(ra, rb)
		}
		var ta, tb string
		ta, ra = run(ra, na)
		tb, rb = run(rb, nb)
		if na {
			ia, _ := strconv.ParseUint(ta, 10, 64)
			ib, _ := strconv.ParseUint(tb, 10, 64)
			if c := cmp.Compare(ia, ib); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(ta, tb); c != 0 {
			return c
		}
	}
	return cmp.Compare(a, b)
}

func writeMVHAccuracy(w io.Writer, rows []MVHAccuracy) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"observer", "human", "condition", "n", "correct", "accuracy"})
	for _, r := range rows {
		cw.Write([]string{r.Observer, strconv.FormatBool(r.Human), r.Condition, strconv.Itoa(r.N), strconv.Itoa(r.Correct),
			strconv.FormatFloat(r.Accuracy, 'g', -1, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// readMVHPredictionsFile reads a model's answers: a model-vs-human
// raw-data CSV (it has an object_response column; human.ReadMVH) or a
// predictions file keyed by image name (ReadMVHPredictions), matched to
// the stimuli of hum (MatchMVHPredictions).
func readMVHPredictionsFile(p string, hum []human.MVHTrial, probabilities bool) ([]human.MVHTrial, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("--predictions: %w", err)
	}
	head, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err == nil && IsMVHRawHeader(head) {
		return human.ReadMVH(bytes.NewReader(data), p)
	}
	preds, err := ReadMVHPredictions(bytes.NewReader(data), p, probabilities)
	if err != nil {
		return nil, err
	}
	return MatchMVHPredictions(hum, preds, p)
}

// coverageWarnings says, once per model of ts, in which conditions the
// model answered fewer of the stimuli than the humans saw.
func coverageWarnings(hum, ts []human.MVHTrial, file string) []string {
	stimuli := map[string]map[string]bool{} // condition → image ids
	for _, t := range hum {
		if stimuli[t.Condition] == nil {
			stimuli[t.Condition] = map[string]bool{}
		}
		stimuli[t.Condition][human.ShortImageName(t.ImageName)] = true
	}
	answered := map[[2]string]int{}
	var keys [][2]string
	for _, t := range ts {
		k := [2]string{t.Subject, t.Condition}
		if answered[k] == 0 {
			keys = append(keys, k)
		}
		answered[k]++
	}
	short := map[string][]string{}
	var models []string
	for _, k := range keys {
		if n, all := answered[k], len(stimuli[k[1]]); n < all {
			if short[k[0]] == nil {
				models = append(models, k[0])
			}
			short[k[0]] = append(short[k[0]], fmt.Sprintf("%s: %d of %d", k[1], n, all))
		}
	}
	var out []string
	for _, m := range models {
		out = append(out, fmt.Sprintf("%s: model %s answered fewer stimuli than the humans saw (%s)", file, m, strings.Join(short[m], ", ")))
	}
	return out
}
