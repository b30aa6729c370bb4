package contrast

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Level kinds: how corrupted rows are grouped along corruption strength.
const (
	LevelSeverity = "severity" // the rows' ImageNet-C severity
	LevelDV       = "dv"       // equal Δv bins on [0, 1]
)

// Defaults of Options.
const (
	DefaultDVBins     = 5
	DefaultReplicates = 1000
)

// ErrMissing wraps the error for results rows whose image has no label.
var ErrMissing = errors.New("contrast: images missing from the labels")

// Options tune Analyse.
type Options struct {
	// Level is LevelSeverity, LevelDV or "" (severity when every row has
	// one, else Δv bins).
	Level string
	// DVBins is the number of equal Δv bins on [0, 1] (LevelDV; 0: 5).
	DVBins int
	// Replicates is the number of bootstrap replicates of the slope
	// interval (0: no interval).
	Replicates int
	// Seed seeds the bootstrap (with the model's name and the scope).
	Seed uint64
	// SkipUnlabelled skips rows whose image has no label (with a warning)
	// instead of failing with ErrMissing.
	SkipUnlabelled bool
}

// Model is one model's results rows.
type Model struct {
	Name string
	Rows []Row
}

// GroupAcc is the accuracy of one contrast group.
type GroupAcc struct {
	Group string `json:"group"`
	// Index is the group's place in the order (0 low … 3 high), -1 for others.
	Index int `json:"index"`
	// Images counts distinct images, Rows the predictions (equal on clean
	// images), Correct the correct ones.
	Images  int `json:"images"`
	Rows    int `json:"rows"`
	Correct int `json:"correct"`
	// Accuracy is Correct/Rows; nil for a group without images.
	Accuracy *float64 `json:"accuracy"`
}

// Measure is the contrast dependence of one set of predictions.
type Measure struct {
	// Groups are the accuracies of AllGroups, in order.
	Groups []GroupAcc `json:"groups"`
	// Accuracy is over all the set's rows (others included).
	Accuracy *float64 `json:"accuracy"`
	// Slope and Intercept are GroupSlope's line; SlopeCI its 95 %
	// percentile bootstrap interval (when computed). nil with fewer than two
	// ordered groups with images.
	Slope     *float64    `json:"slope"`
	Intercept *float64    `json:"intercept"`
	SlopeCI   *[2]float64 `json:"slope_ci,omitempty"`
	// WeightedStd is the weighted standard deviation of the ordered groups'
	// accuracies, weights = their rows (sensitivity to contrast).
	WeightedStd *float64 `json:"weighted_std"`
}

// Level is a Measure at one severity or Δv bin.
type Level struct {
	Level string `json:"level"`
	Measure
}

// Scope is the corrupted-image analysis of all corruptions pooled or one.
type Scope struct {
	Corruption string  `json:"corruption,omitempty"`
	Corrupted  Measure `json:"corrupted"`
	// Levels are the contrast × level grid (one Measure per level).
	Levels []Level `json:"levels"`
	// SeverityStd is the weighted standard deviation of the levels'
	// accuracies, weights = their rows (sensitivity to severity).
	SeverityStd *float64 `json:"severity_std"`
}

// ModelResult is the analysis of one model.
type ModelResult struct {
	Model string `json:"model"`
	// Images counts the distinct clean images, Rows the corrupted rows.
	Images int `json:"images"`
	Rows   int `json:"rows"`
	// Clean is on the clean images (each image once: its first row's
	// correct_clean).
	Clean Measure `json:"clean"`
	// Pooled is on every corrupted row; Corruptions one per corruption.
	Pooled      Scope   `json:"pooled"`
	Corruptions []Scope `json:"corruptions"`
}

// Comparison is the change from Base to Model (Model − Base).
type Comparison struct {
	Base  string `json:"base"`
	Model string `json:"model"`
	// Clean and Corrupted hold per AllGroups entry the accuracy difference
	// (nil where either has no images).
	Clean     []*float64 `json:"clean_group_delta"`
	Corrupted []*float64 `json:"corrupted_group_delta"`
	// SlopeDelta and StdDelta are [clean, corrupted] differences.
	SlopeDelta [2]*float64 `json:"slope_delta"`
	StdDelta   [2]*float64 `json:"weighted_std_delta"`
}

// Result is everything Analyse computes.
type Result struct {
	LevelKind string        `json:"level_kind"`
	Levels    []string      `json:"levels"`
	Models    []ModelResult `json:"models"`
	// Comparisons compare every later model with the first.
	Comparisons []Comparison `json:"comparisons"`
	Replicates  int          `json:"bootstrap_replicates"`
	Seed        uint64       `json:"seed"`
	// Warnings are caveats: groups without images, skipped rows.
	Warnings []string `json:"warnings"`
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// cell is one image's predictions within a scope: k correct of n.
type cell struct{ k, n int }

// cells holds a scope's images per AllGroups entry.
type cells [5]map[string]*cell

func newCells() *cells {
	var c cells
	for i := range c {
		c[i] = map[string]*cell{}
	}
	return &c
}

func (c *cells) add(g int, img string, ok bool) {
	x := c[g][img]
	if x == nil {
		x = &cell{}
		c[g][img] = x
	}
	x.n++
	if ok {
		x.k++
	}
}

// groupIndex returns the index of g in AllGroups.
func groupIndex(g string) int { return slices.Index(AllGroups, g) }

// measure computes the Measure of c; with reps > 0 a bootstrap interval of
// the slope from rng, resampling images within each group.
func (c *cells) measure(reps int, rng *rand.Rand) Measure {
	var m Measure
	acc := make([]float64, len(Groups))
	w := make([]float64, len(Groups))
	var tk, tn int
	for i, g := range AllGroups {
		ga := GroupAcc{Group: g, Index: GroupIndex(g), Images: len(c[i])}
		for _, x := range c[i] {
			ga.Rows += x.n
			ga.Correct += x.k
		}
		tk += ga.Correct
		tn += ga.Rows
		a := nan
		if ga.Rows > 0 {
			a = float64(ga.Correct) / float64(ga.Rows)
			ga.Accuracy = num(a)
		}
		if i < len(Groups) {
			acc[i], w[i] = a, float64(ga.Rows)
		}
		m.Groups = append(m.Groups, ga)
	}
	if tn > 0 {
		m.Accuracy = num(float64(tk) / float64(tn))
	}
	s, b := GroupSlope(acc)
	m.Slope, m.Intercept = num(s), num(b)
	m.WeightedStd = num(WeightedStd(acc, w))
	if reps > 0 && m.Slope != nil {
		m.SlopeCI = c.bootstrap(reps, rng)
	}
	return m
}

// bootstrap returns the 95 % percentile interval of the slope over reps
// replicates that resample each ordered group's images with replacement
// (stratified: group sizes stay fixed; an image keeps all its rows).
func (c *cells) bootstrap(reps int, rng *rand.Rand) *[2]float64 {
	var lists [4][]cell
	for i := range Groups {
		keys := make([]string, 0, len(c[i]))
		for k := range c[i] {
			keys = append(keys, k)
		}
		slices.Sort(keys) // map order must not reach the random stream
		for _, k := range keys {
			lists[i] = append(lists[i], *c[i][k])
		}
	}
	slopes := make([]float64, reps)
	acc := make([]float64, len(Groups))
	for r := range slopes {
		for i, l := range lists {
			if len(l) == 0 {
				acc[i] = nan
				continue
			}
			var k, n int
			for range l {
				x := l[rng.IntN(len(l))]
				k += x.k
				n += x.n
			}
			acc[i] = float64(k) / float64(n)
		}
		slopes[r], _ = GroupSlope(acc)
	}
	lo, hi := percentileCI(slopes)
	if math.IsNaN(lo) {
		return nil
	}
	return &[2]float64{lo, hi}
}

func newRand(seed uint64, model, scope string) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s", model, scope)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// levelOf assigns rows to levels; it returns each row's level index and the
// level names.
func levelOf(models []Model, opt Options) (kind string, names []string, of func(Row) int, err error) {
	kind = opt.Level
	if kind == "" {
		kind = LevelSeverity
		for _, m := range models {
			for _, r := range m.Rows {
				if r.Severity == 0 {
					kind = LevelDV
				}
			}
		}
	}
	switch kind {
	case LevelSeverity:
		var sev []int
		for _, m := range models {
			for _, r := range m.Rows {
				if r.Severity == 0 {
					return "", nil, nil, fmt.Errorf("model %s, row %s has no severity; use Δv bins (--by dv)", m.Name, r.ID)
				}
				if !slices.Contains(sev, r.Severity) {
					sev = append(sev, r.Severity)
				}
			}
		}
		slices.Sort(sev)
		for _, s := range sev {
			names = append(names, strconv.Itoa(s))
		}
		return kind, names, func(r Row) int { return slices.Index(sev, r.Severity) }, nil
	case LevelDV:
		b := opt.DVBins
		if b == 0 {
			b = DefaultDVBins
		}
		if b < 1 {
			return "", nil, nil, fmt.Errorf("the number of Δv bins must be positive (got %d)", b)
		}
		for _, m := range models {
			for _, r := range m.Rows {
				if math.IsNaN(r.DV) {
					return "", nil, nil, fmt.Errorf("model %s, row %s has neither severity nor dv", m.Name, r.ID)
				}
			}
		}
		for i := range b {
			names = append(names, fmt.Sprintf("dv %.2f–%.2f", float64(i)/float64(b), float64(i+1)/float64(b)))
		}
		return kind, names, func(r Row) int { return min(int(r.DV*float64(b)), b-1) }, nil
	}
	return "", nil, nil, fmt.Errorf("unknown level kind %q (want %s or %s)", kind, LevelSeverity, LevelDV)
}

// Analyse measures every model's dependence on contrast. Each row's image
// is looked up in labels by the row's Image (its source), then by its ID.
// Rows of images without a label fail with ErrMissing (naming how many and
// a few examples) unless opt.SkipUnlabelled. Groups without images leave
// their accuracy nil and add a warning; slopes need two ordered groups and
// weighted standard deviations two groups or levels with rows.
func Analyse(models []Model, labels *Labels, opt Options) (*Result, error) {
	if len(models) == 0 {
		return nil, fmt.Errorf("contrast: no models")
	}
	kind, names, lvl, err := levelOf(models, opt)
	if err != nil {
		return nil, err
	}
	res := &Result{LevelKind: kind, Levels: names, Replicates: opt.Replicates, Seed: opt.Seed}
	for _, m := range models {
		mr, err := analyseModel(m, labels, len(names), lvl, opt, res)
		if err != nil {
			return nil, err
		}
		res.Models = append(res.Models, *mr)
	}
	for _, m := range res.Models[1:] {
		res.Comparisons = append(res.Comparisons, Compare(&res.Models[0], &m))
	}
	return res, nil
}

func analyseModel(m Model, labels *Labels, nlev int, lvl func(Row) int, opt Options, res *Result) (*ModelResult, error) {
	clean := newCells()
	pooled := newCells()
	pooledLev := make([]*cells, nlev)
	for i := range pooledLev {
		pooledLev[i] = newCells()
	}
	type corr struct {
		all *cells
		lev []*cells
	}
	byCorr := map[string]*corr{}
	seenClean := map[string]bool{}
	var missing []string
	missSeen := map[string]bool{}
	missRows := 0
	for _, r := range m.Rows {
		lab, ok := labels.ByID[r.Image]
		if !ok {
			lab, ok = labels.ByID[r.ID]
		}
		if !ok {
			missRows++
			if !missSeen[r.Image] {
				missSeen[r.Image] = true
				missing = append(missing, r.Image)
			}
			continue
		}
		g := groupIndex(lab.Group)
		if !seenClean[r.Image] {
			seenClean[r.Image] = true
			clean.add(g, r.Image, r.CorrectClean)
		}
		li := lvl(r)
		pooled.add(g, r.Image, r.CorrectCorrupted)
		pooledLev[li].add(g, r.Image, r.CorrectCorrupted)
		c := byCorr[r.Corruption]
		if c == nil {
			c = &corr{all: newCells(), lev: make([]*cells, nlev)}
			for i := range c.lev {
				c.lev[i] = newCells()
			}
			byCorr[r.Corruption] = c
		}
		c.all.add(g, r.Image, r.CorrectCorrupted)
		c.lev[li].add(g, r.Image, r.CorrectCorrupted)
	}
	if len(missing) > 0 {
		ex := missing[:min(5, len(missing))]
		msg := fmt.Sprintf("%d image(s) of model %s (%d rows) have no colour label in %s, e.g. %s; labels are matched by the results' source, then id",
			len(missing), m.Name, missRows, labels.Name, strings.Join(ex, ", "))
		if !opt.SkipUnlabelled {
			return nil, fmt.Errorf("%w: %s; label them, estimate them (--estimate-colors) or skip them (--skip-unlabelled)", ErrMissing, msg)
		}
		res.Warnings = append(res.Warnings, msg+"; skipped")
	}
	if len(seenClean) == 0 {
		return nil, fmt.Errorf("model %s: no labelled rows", m.Name)
	}
	mr := &ModelResult{Model: m.Name, Images: len(seenClean), Rows: len(m.Rows) - missRows}
	mr.Clean = clean.measure(opt.Replicates, newRand(opt.Seed, m.Name, "clean"))
	warnEmpty(res, m.Name, "clean", mr.Clean)
	scope := func(name string, all *cells, lev []*cells) Scope {
		s := Scope{Corruption: name, Corrupted: all.measure(opt.Replicates, newRand(opt.Seed, m.Name, "corrupted\x00"+name))}
		x := make([]float64, len(lev))
		w := make([]float64, len(lev))
		for i, l := range lev {
			lm := l.measure(0, nil)
			s.Levels = append(s.Levels, Level{Level: res.Levels[i], Measure: lm})
			x[i] = nan
			if lm.Accuracy != nil {
				x[i] = *lm.Accuracy
				for _, g := range lm.Groups {
					w[i] += float64(g.Rows)
				}
			}
		}
		s.SeverityStd = num(WeightedStd(x, w))
		return s
	}
	mr.Pooled = scope("", pooled, pooledLev)
	warnEmpty(res, m.Name, "corrupted", mr.Pooled.Corrupted)
	names := make([]string, 0, len(byCorr))
	for n := range byCorr {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		mr.Corruptions = append(mr.Corruptions, scope(n, byCorr[n].all, byCorr[n].lev))
	}
	return mr, nil
}

func warnEmpty(res *Result, model, what string, m Measure) {
	for _, g := range m.Groups {
		if g.Rows == 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("model %s: contrast group %s has no %s images; it is left out of the slope and the weighted standard deviation", model, g.Group, what))
		}
	}
	if m.Slope == nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("model %s: fewer than two ordered contrast groups have %s images; no slope", model, what))
	}
}

func diff(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	d := *b - *a
	return &d
}

// Compare returns the change from base to m (m − base): group accuracies,
// slopes and weighted standard deviations, clean and corrupted (pooled).
func Compare(base, m *ModelResult) Comparison {
	c := Comparison{Base: base.Model, Model: m.Model}
	for i := range AllGroups {
		c.Clean = append(c.Clean, diff(base.Clean.Groups[i].Accuracy, m.Clean.Groups[i].Accuracy))
		c.Corrupted = append(c.Corrupted, diff(base.Pooled.Corrupted.Groups[i].Accuracy, m.Pooled.Corrupted.Groups[i].Accuracy))
	}
	c.SlopeDelta = [2]*float64{diff(base.Clean.Slope, m.Clean.Slope), diff(base.Pooled.Corrupted.Slope, m.Pooled.Corrupted.Slope)}
	c.StdDelta = [2]*float64{diff(base.Clean.WeightedStd, m.Clean.WeightedStd), diff(base.Pooled.Corrupted.WeightedStd, m.Pooled.Corrupted.WeightedStd)}
	return c
}
