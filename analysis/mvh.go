package analysis

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

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
	// Bootstrap is the number of replicates of the kappa intervals (0:
	// none); Seed the master seed (consistency.Options).
	Bootstrap int
	Seed      uint64
	// Out is the folder to write (created); empty: nothing is written.
	Out string
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
	Warnings    []string
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
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		ts, err := human.ReadMVH(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		if err := add(ts, false, p); err != nil {
			return nil, err
		}
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
		Warnings    []string           `json:"warnings,omitempty"`
	}{MVHTool, version.String(), opt.Human, opt.Predictions, opt.Bootstrap, consistency.DefaultLevel, opt.Seed,
		res.Accuracy, res.Consistency.Ceiling, res.Consistency.ModelHuman, res.Warnings}
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

// compareCondition orders conditions numerically when both are numbers
// (0, 10, 100), else as strings (c01, c03).
func compareCondition(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
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
