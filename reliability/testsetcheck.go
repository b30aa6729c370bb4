package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/testset"
)

// MinRowsPerBatchImage sets when CheckTestSet warns of heavy reuse: a
// threshold with fewer than MinRowsPerBatchImage·k usable rows (k the
// images per batch) uses each row n·k/rows > n/MinRowsPerBatchImage times
// per run. With at least 10·k rows the standard error of the mean over the
// test set's rows is below 1/√10 ≈ 0.32 of the spread σ of the batch
// values the verdict's bound uses (docs/requirements-check.md).
const MinRowsPerBatchImage = 10

// TestSet is a test set written by vcr generate (or vcr merge), as
// CheckTestSet reads it: its folder, its manifest rows in file order and
// the flavours of its per-flavour Δv columns.
type TestSet struct {
	Dir       string
	Rows      []*testset.Record
	DVMethods []iqa.Method
}

// ReadTestSet reads the manifest of the test set in dir. It returns an
// error naming the folder when it has no manifest.csv or no rows, and
// testset.ReadManifest's errors for a malformed manifest.
func ReadTestSet(dir string) (*TestSet, error) {
	path := filepath.Join(dir, testset.ManifestFile)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: give the folder vcr generate (or vcr merge) wrote", dir, testset.ManifestFile)
		}
		return nil, err
	}
	ms, err := testset.ManifestDVMethods(path)
	if err != nil {
		return nil, err
	}
	ts := &TestSet{Dir: dir, DVMethods: ms}
	err = testset.ReadManifest(path, func(r *testset.Record) error {
		ts.Rows = append(ts.Rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ts.Rows) == 0 {
		return nil, fmt.Errorf("%s has no rows", path)
	}
	return ts, nil
}

// TestSetPredictor classifies images of a test set into the task's
// classes. Predict returns one class per row: the prediction for the clean
// source image of rows[i] when clean[i], else for its corrupted image; a
// negative class is a prediction of no class of the task. evaluate's
// TestSetImages is one (a model, or a predictions file).
type TestSetPredictor interface {
	Predict(ctx context.Context, rows []*testset.Record, clean []bool) ([]int, error)
}

// PredictionCache is a TestSetPredictor that classifies every image once:
// clean source images by their source name, corrupted images by their
// path. Share one between the requirements of a check so that the clean
// images are classified once for all of them. Not safe for concurrent use.
type PredictionCache struct {
	p                TestSetPredictor
	clean, corrupted map[string]int
	// Clean and Corrupted count the images classified so far.
	Clean, Corrupted int
}

// NewPredictionCache returns a cache in front of p.
func NewPredictionCache(p TestSetPredictor) *PredictionCache {
	return &PredictionCache{p: p, clean: map[string]int{}, corrupted: map[string]int{}}
}

// Predict implements TestSetPredictor; it asks the underlying predictor
// only for images it has not classified yet.
func (c *PredictionCache) Predict(ctx context.Context, rows []*testset.Record, clean []bool) ([]int, error) {
	if len(rows) != len(clean) {
		panic("reliability: Predict with rows and clean of different lengths")
	}
	var qr []*testset.Record
	var qc []bool
	asked := map[string]bool{}
	for i, r := range rows {
		m, key := c.lookup(r, clean[i])
		if _, ok := m[key]; ok || asked[key] {
			continue
		}
		asked[key] = true
		qr, qc = append(qr, r), append(qc, clean[i])
	}
	if len(qr) > 0 {
		got, err := c.p.Predict(ctx, qr, qc)
		if err != nil {
			return nil, err
		}
		if len(got) != len(qr) {
			return nil, fmt.Errorf("the predictor returned %d classes for %d images", len(got), len(qr))
		}
		for i, r := range qr {
			m, key := c.lookup(r, qc[i])
			m[key] = got[i]
			if qc[i] {
				c.Clean++
			} else {
				c.Corrupted++
			}
		}
	}
	out := make([]int, len(rows))
	for i, r := range rows {
		m, key := c.lookup(r, clean[i])
		out[i] = m[key]
	}
	return out, nil
}

// lookup returns the map and key of an image.
func (c *PredictionCache) lookup(r *testset.Record, clean bool) (map[string]int, string) {
	if clean {
		return c.clean, r.Source
	}
	return c.corrupted, r.Path
}

// has reports whether the image is cached.
func (c *PredictionCache) has(r *testset.Record, clean bool) bool {
	m, key := c.lookup(r, clean)
	_, ok := m[key]
	return ok
}

// TestSetOptions configures CheckTestSet. Zero values take the defaults of
// CheckOptions.
type TestSetOptions struct {
	// TestSet holds the rows the images are taken from.
	TestSet *TestSet
	// Predictor classifies the test set's images (wrapped in a
	// PredictionCache unless it is one).
	Predictor TestSetPredictor
	// Truth returns a row's task class; a negative class puts the row's
	// source outside the task (it leaves the pool, counted in
	// Verdict.Excluded). An error stops the check.
	Truth func(*testset.Record) (int, error)
	// Batches, BatchSize, Quantile, Alpha, Seed, VIFMethod, OverrideVIF,
	// ReproTolerance, ReproSeed and Progress are as in CheckOptions.
	Batches, BatchSize int
	Quantile, Alpha    float64
	Seed               uint64
	VIFMethod          iqa.Method
	OverrideVIF        bool
	ReproTolerance     float64
	ReproSeed          *uint64
	Progress           func(done, total int)
}

// UsableRows counts the rows that meet one threshold.
type UsableRows struct {
	Kind      string  `json:"kind"`
	Threshold float64 `json:"threshold"`
	// Rows is the number of usable rows (uniform, Δv ≤ Threshold, source in
	// the task) and Sources the number of sources holding at least one.
	Rows    int `json:"rows"`
	Sources int `json:"sources"`
	// PoolRows is the number of usable rows of the pool's sources; Min,
	// Median and Max describe how many each pool source has.
	PoolRows int `json:"pool_rows"`
	Min      int `json:"min_per_source"`
	Median   int `json:"median_per_source"`
	Max      int `json:"max_per_source"`
	// Used is the number of distinct rows the run(s) take (Slots images
	// per run).
	Used int `json:"used"`
}

// TestSetPlan says, before a check with a test set starts, what it will
// use and what it will cost. PlanTestSet returns it; CheckTestSet records
// it in Verdict.TestSet.
type TestSetPlan struct {
	Transformation string `json:"transformation"`
	Dir            string `json:"dir"`
	// Column is the manifest's Δv column the thresholds apply to
	// (iqa.DVColumn of the VIF flavour).
	Column string `json:"column"`
	// Rows is the number of rows of the corruption; NotUniform of them were
	// drawn by targeted or ImageNet-C sampling and are not used, NoDV have
	// no Δv of the flavour (an empty cell), OutsideTask have a label
	// outside the task.
	Rows        int `json:"rows"`
	NotUniform  int `json:"not_uniform"`
	NoDV        int `json:"no_dv"`
	OutsideTask int `json:"outside_task"`
	// Sources is the number of sources with a usable row of the corruption
	// (uniform, with Δv, in the task).
	Sources int `json:"sources"`
	// Correctness and Preservation count the rows under t_c and t_p.
	Correctness  UsableRows `json:"correctness"`
	Preservation UsableRows `json:"preservation"`
	// Pool is the number of sources the batches draw from: those with a
	// row under both thresholds. Skipped names the others (sources with
	// rows of the corruption but none under the tighter threshold).
	Pool    int      `json:"pool"`
	Skipped []string `json:"skipped_sources"`
	// Runs is 2 with the reproducibility rerun, else 1; Slots is n·k, the
	// images per kind and run.
	Runs  int `json:"runs"`
	Slots int `json:"slots"`
	// CleanImages and CorruptedImages are the distinct images the runs
	// classify (or look up in a predictions file): the cost of the check.
	CleanImages     int `json:"clean_images"`
	CorruptedImages int `json:"corrupted_images"`
	// Warnings say what the user should look at (rows not used, skipped
	// sources, heavy reuse, and how to fill thin thresholds).
	// They are the first of the verdict's warnings.
	Warnings []string `json:"-"`

	clean map[string]bool // the clean images' source names
}

// DVColumnError is returned when a test set has no Δv column of the
// requirement's VIF flavour.
type DVColumnError struct {
	Dir            string
	Transformation string
	Method         iqa.Method
	// Have lists the manifest's Δv columns (dv, then its dv_<flavour>
	// columns).
	Have []string
}

func (e *DVColumnError) Error() string {
	return fmt.Sprintf("test set %s has no %s column: requirement %q is checked on the %s Δv axis, and the manifest's Δv columns are %s; generate the test set with --dv-methods %s (or give --vif-method with one of its flavours and --allow-vif-mismatch)",
		e.Dir, iqa.DVColumn(e.Method), e.Transformation, e.Method, strings.Join(e.Have, ", "), e.Method)
}

// hasDV returns a *DVColumnError when ts has no Δv column of method.
func (ts *TestSet) hasDV(req Requirement, method iqa.Method) error {
	if slices.Contains(ts.DVMethods, method) {
		return nil
	}
	have := []string{"dv"}
	for _, m := range ts.DVMethods {
		have = append(have, iqa.DVColumn(m))
	}
	return &DVColumnError{Dir: ts.Dir, Transformation: req.Transformation, Method: method, Have: have}
}

// Column returns the manifest column that holds Δv on req's axis (with
// vifMethod and override as in TestSetOptions): iqa.DVColumn of the
// flavour. It returns resolveVIF's *VIFMethodError for a flavour refused,
// and a *DVColumnError when the test set has no such column: the checks a
// caller can make before opening a model.
func (ts *TestSet) Column(req Requirement, vifMethod iqa.Method, override bool) (string, error) {
	method, _, err := resolveVIF(req, vifMethod, override)
	if err != nil {
		return "", err
	}
	if err := ts.hasDV(req, method); err != nil {
		return "", err
	}
	return iqa.DVColumn(method), nil
}

// tsSource is one source image of a test-set check.
type tsSource struct {
	name  string
	index int // source_index
	truth int
	rows  [2][]int // usable rows per kind (indices into TestSet.Rows), manifest order
	minDV float64
}

// tsIndex is a test set prepared for one requirement.
type tsIndex struct {
	ts     *TestSet
	c      *corrupt.Corruption
	method iqa.Method
	t      [2]float64
	dv     []float64 // Δv per row of ts.Rows (NaN when not usable)
	pool   []*tsSource
	plan   TestSetPlan
	// excluded counts the sources outside the task.
	excluded int
}

// newTSIndex finds the rows of req's corruption usable under its
// thresholds.
func newTSIndex(ts *TestSet, req Requirement, c *corrupt.Corruption, method iqa.Method, truth func(*testset.Record) (int, error)) (*tsIndex, error) {
	if err := ts.hasDV(req, method); err != nil {
		return nil, err
	}
	x := &tsIndex{ts: ts, c: c, method: method, t: [2]float64{req.TC, req.TP}, dv: make([]float64, len(ts.Rows))}
	p := &x.plan
	p.Transformation, p.Dir, p.Column = req.Transformation, ts.Dir, iqa.DVColumn(method)
	bySource := map[string]*tsSource{}
	var sources []*tsSource
	outside := map[string]bool{}
	names := map[string]bool{}
	for i, r := range ts.Rows {
		x.dv[i] = math.NaN()
		names[r.Corruption] = true
		if r.Corruption != c.Name {
			continue
		}
		p.Rows++
		if r.Sampling != "uniform" {
			p.NotUniform++
			continue
		}
		dv, ok := r.DVs[method]
		if !ok {
			p.NoDV++
			continue
		}
		s := bySource[r.Source]
		if s == nil {
			if outside[r.Source] {
				p.OutsideTask++
				continue
			}
			cl, err := truth(r)
			if err != nil {
				return nil, fmt.Errorf("%s row id %d: %w", testset.ManifestFile, r.ID, err)
			}
			if cl < 0 {
				outside[r.Source] = true
				p.OutsideTask++
				continue
			}
			s = &tsSource{name: r.Source, index: r.SourceIndex, truth: cl, minDV: math.Inf(1)}
			bySource[r.Source] = s
			sources = append(sources, s)
		}
		x.dv[i] = dv
		s.minDV = min(s.minDV, dv)
		for kd := range 2 {
			if dv <= x.t[kd] {
				s.rows[kd] = append(s.rows[kd], i)
			}
		}
	}
	x.excluded = len(outside)
	if p.Rows == 0 {
		have := make([]string, 0, len(names))
		for n := range names {
			have = append(have, n)
		}
		sort.Strings(have)
		return nil, fmt.Errorf("test set %s has no rows of %s (it has %s): generate them with vcr generate --corruptions %s", ts.Dir, c.Name, strings.Join(have, ", "), c.Name)
	}
	// The pool in dataset order, as Check's pool.
	sort.SliceStable(sources, func(i, j int) bool {
		if sources[i].index != sources[j].index {
			return sources[i].index < sources[j].index
		}
		return sources[i].name < sources[j].name
	})
	p.Sources = len(sources)
	p.Skipped = []string{}
	tight := kindC
	if x.t[kindP] < x.t[kindC] {
		tight = kindP
	}
	for _, s := range sources {
		for kd := range 2 {
			u := p.usable()[kd]
			u.Rows += len(s.rows[kd])
			if len(s.rows[kd]) > 0 {
				u.Sources++
			}
		}
		if len(s.rows[kindC]) == 0 || len(s.rows[kindP]) == 0 {
			p.Skipped = append(p.Skipped, s.name)
			continue
		}
		x.pool = append(x.pool, s)
	}
	p.Pool = len(x.pool)
	for kd := range 2 {
		u := p.usable()[kd]
		u.Kind, u.Threshold = kindNames[kd], x.t[kd]
		per := make([]int, len(x.pool))
		for i, s := range x.pool {
			per[i] = len(s.rows[kd])
			u.PoolRows += per[i]
		}
		if len(per) > 0 {
			sort.Ints(per)
			u.Min, u.Median, u.Max = per[0], per[len(per)/2], per[len(per)-1]
		}
	}
	if len(x.pool) == 0 {
		return nil, fmt.Errorf("no source of test set %s has a uniform row of %s with %s ≤ %g (%d uniform rows of %d sources, smallest Δv %s): generate more uniform rows of %s, e.g. vcr generate --corruptions %s --sampling uniform --dv-methods %s with a larger --n",
			ts.Dir, c.Name, p.Column, x.t[tight], p.Rows-p.NotUniform-p.NoDV-p.OutsideTask, p.Sources, minDVText(sources), c.Name, c.Name, method)
	}
	return x, nil
}

// usable returns the plan's two UsableRows, indexed by kind.
func (p *TestSetPlan) usable() [2]*UsableRows {
	return [2]*UsableRows{&p.Correctness, &p.Preservation}
}

func minDVText(ss []*tsSource) string {
	m := math.Inf(1)
	for _, s := range ss {
		m = min(m, s.minDV)
	}
	if math.IsInf(m, 1) {
		return "none"
	}
	return fmt.Sprintf("%.4g", m)
}

// selection is the rows a run takes: per batch and slot, the pool index
// of the source and, per kind, the row (an index into TestSet.Rows).
type selection struct {
	src  [][]int
	rows [2][][]int
}

// cursorSalt separates the generators of the cursors' starting rows from
// those of the batches.
const cursorSalt = 0x5d1b3c7e9a4f2681

// selectRows draws run seed's batches as Check does (drawPool) and gives
// each drawn source, per kind, its next usable row: the rows of a source
// under a threshold, in manifest order, are taken in turn, cycling, from a
// starting row drawn from corrupt.NewRand(seed ^ cursorSalt, pool index).
func (x *tsIndex) selectRows(seed uint64, n, k int) selection {
	var sel selection
	sel.src = make([][]int, n)
	for kd := range 2 {
		sel.rows[kd] = make([][]int, n)
	}
	next := make([][2]int, len(x.pool))
	started := make([]bool, len(x.pool))
	for b := range n {
		sel.src[b] = drawPool(seed, b, k, len(x.pool))
		for kd := range 2 {
			sel.rows[kd][b] = make([]int, k)
		}
		for j, p := range sel.src[b] {
			s := x.pool[p]
			if !started[p] {
				started[p] = true
				rng := corrupt.NewRand(seed^cursorSalt, uint64(p))
				for kd := range 2 {
					next[p][kd] = rng.IntN(len(s.rows[kd]))
				}
			}
			for kd := range 2 {
				rs := s.rows[kd]
				sel.rows[kd][b][j] = rs[next[p][kd]%len(rs)]
				next[p][kd]++
			}
		}
	}
	return sel
}

// PlanTestSet returns what CheckTestSet(ctx, req, opt) will use and cost,
// without classifying anything. Its errors are CheckTestSet's before any
// image is classified: an unknown transformation, a threshold outside
// [0, 1], a VIF flavour refused (VIFMethodError), a test set without the
// flavour's Δv column (*DVColumnError), without rows of the corruption, or
// without a source that has a usable row under both thresholds.
func PlanTestSet(req Requirement, opt TestSetOptions) (*TestSetPlan, error) {
	x, opt, err := prepareTestSet(req, opt)
	if err != nil {
		return nil, err
	}
	return &x.plan, nil
}

// prepareTestSet checks req and opt, fills in the defaults, indexes the
// test set and completes the plan.
func prepareTestSet(req Requirement, opt TestSetOptions) (*tsIndex, TestSetOptions, error) {
	c, err := corrupt.Lookup(req.Transformation)
	if err != nil {
		return nil, opt, fmt.Errorf("requirement %q: %w", req.Transformation, err)
	}
	if err := checkThreshold("t_c", req.TC); err != nil {
		return nil, opt, err
	}
	if err := checkThreshold("t_p", req.TP); err != nil {
		return nil, opt, err
	}
	method, mismatch, err := resolveVIF(req, opt.VIFMethod, opt.OverrideVIF)
	if err != nil {
		return nil, opt, err
	}
	if opt.TestSet == nil || opt.Truth == nil {
		return nil, opt, errors.New("reliability: CheckTestSet needs TestSet and Truth")
	}
	if opt.Batches == 0 {
		opt.Batches = DefaultBatches
	}
	if opt.BatchSize == 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.Quantile == 0 {
		opt.Quantile = DefaultQuantile
	}
	if opt.Alpha == 0 {
		opt.Alpha = DefaultAlpha
	}
	switch {
	case opt.Batches < 2:
		return nil, opt, fmt.Errorf("batches = %d: need at least 2 for a standard deviation", opt.Batches)
	case opt.BatchSize < 1:
		return nil, opt, errors.New("batch size must be positive")
	case !(opt.Quantile > 0 && opt.Quantile <= 1):
		return nil, opt, fmt.Errorf("quantile %g outside (0, 1]", opt.Quantile)
	case !(opt.Alpha > 0 && opt.Alpha < 0.5):
		return nil, opt, fmt.Errorf("alpha %g outside (0, 0.5)", opt.Alpha)
	}
	x, err := newTSIndex(opt.TestSet, req, c, method, opt.Truth)
	if err != nil {
		return nil, opt, err
	}
	p := &x.plan
	p.Runs, p.Slots = 1, opt.Batches*opt.BatchSize
	seeds := []uint64{opt.Seed}
	if opt.ReproTolerance > 0 {
		p.Runs = 2
		seeds = append(seeds, reproSeed(opt))
	}
	p.clean = map[string]bool{}
	used := [2]map[int]bool{{}, {}}
	for _, seed := range seeds {
		sel := x.selectRows(seed, opt.Batches, opt.BatchSize)
		for b := range sel.src {
			for j, pi := range sel.src[b] {
				p.clean[x.pool[pi].name] = true
				for kd := range 2 {
					used[kd][sel.rows[kd][b][j]] = true
				}
			}
		}
	}
	corrupted := map[string]bool{}
	for kd := range 2 {
		p.usable()[kd].Used = len(used[kd])
		for i := range used[kd] {
			corrupted[opt.TestSet.Rows[i].Path] = true
		}
	}
	p.CleanImages, p.CorruptedImages = len(p.clean), len(corrupted)
	x.warn(opt, mismatch)
	return x, opt, nil
}

// reproSeed is the seed of the reproducibility run.
func reproSeed(opt TestSetOptions) uint64 {
	if opt.ReproSeed != nil {
		return *opt.ReproSeed
	}
	return opt.Seed + 1
}

// warn fills the plan's warnings.
func (x *tsIndex) warn(opt TestSetOptions, mismatch bool) {
	p := &x.plan
	c := x.c.Name
	if mismatch {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Δv read from %s, but the thresholds were estimated on another VIF flavour's axis: the verdict compares different scales (accepted by override)", p.Column))
	}
	if p.NotUniform > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d of the %d rows of %s were drawn by targeted or ImageNet-C sampling and are not used: only uniform draws, filtered by Δv, give the rejection loop's distribution", p.NotUniform, p.Rows, c))
	}
	if len(p.Skipped) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d of %d sources have rows of %s but none with %s ≤ %g (the tighter threshold) and are left out of the pool (%s): the check describes the other %d sources",
			len(p.Skipped), p.Sources, c, p.Column, min(x.t[kindC], x.t[kindP]), listSome(p.Skipped, 3), p.Pool))
	}
	uniform := p.Rows - p.NotUniform - p.NoDV - p.OutsideTask
	want := MinRowsPerBatchImage * opt.BatchSize
	for kd, u := range p.usable() {
		if u.PoolRows >= want {
			continue
		}
		share := float64(u.Rows) / float64(max(uniform, 1))
		need := int(math.Ceil(float64(want) / share))
		p.Warnings = append(p.Warnings, fmt.Sprintf("only %d rows of the pool have %s ≤ %g (%s): a run's %d images reuse each about %.0f times, and with fewer than %d·k = %d rows the test set's own sampling error is no longer small against σ. To fill it, generate about %d uniform rows of %s (%.2g%% of its uniform rows meet the threshold) into a new folder and check on that: vcr generate --images DATASET --corruptions %s --sampling uniform --dv-methods %s --n %d --out DIR. Targeted sampling (docs/targeted.md) fills thin Δv ranges of VCR curves, but its rows are not uniform draws and the check does not use them",
			u.PoolRows, p.Column, u.Threshold, kindNames[kd], p.Slots, float64(p.Slots)/float64(max(u.PoolRows, 1)), MinRowsPerBatchImage, want, need, c, 100*share, c, x.method, need))
	}
}

// listSome lists up to n names, then how many more.
func listSome(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
}

// TotalImages returns the distinct clean and corrupted images the checks of
// plans classify together (clean images shared between requirements count
// once).
func TotalImages(plans []*TestSetPlan) (clean, corrupted int) {
	seen := map[string]bool{}
	for _, p := range plans {
		for s := range p.clean {
			seen[s] = true
		}
		corrupted += p.CorruptedImages
	}
	return len(seen), corrupted
}

// WriteText writes the plan as a few indented lines for the log.
func (p *TestSetPlan) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s on %s of %s: %d rows", p.Transformation, p.Column, p.Dir, p.Rows)
	var not []string
	if p.NotUniform > 0 {
		not = append(not, fmt.Sprintf("%d not uniform", p.NotUniform))
	}
	if p.NoDV > 0 {
		not = append(not, fmt.Sprintf("%d without Δv", p.NoDV))
	}
	if p.OutsideTask > 0 {
		not = append(not, fmt.Sprintf("%d outside the task", p.OutsideTask))
	}
	if len(not) > 0 {
		fmt.Fprintf(&sb, " (not used: %s)", strings.Join(not, ", "))
	}
	fmt.Fprintf(&sb, ", %d sources\n", p.Sources)
	for _, u := range p.usable() {
		fmt.Fprintf(&sb, "  %s Δv ≤ %g: %d rows from %d sources; in the pool %d rows, per source min %d, median %d, max %d\n",
			u.Kind, u.Threshold, u.Rows, u.Sources, u.PoolRows, u.Min, u.Median, u.Max)
	}
	fmt.Fprintf(&sb, "  pool: %d sources", p.Pool)
	if len(p.Skipped) > 0 {
		fmt.Fprintf(&sb, " (%d skipped, no row under the tighter threshold: %s)", len(p.Skipped), listSome(p.Skipped, 5))
	}
	fmt.Fprintf(&sb, "\n  cost: %d run(s) × %d images per kind: %d distinct images to classify (%d clean, %d corrupted; rows used: %d correctness, %d preservation)\n",
		p.Runs, p.Slots, p.CleanImages+p.CorruptedImages, p.CleanImages, p.CorruptedImages, p.Correctness.Used, p.Preservation.Used)
	_, err := io.WriteString(w, sb.String())
	return err
}

// chunkImages is the number of images CheckTestSet asks its predictor for
// at once (fewer at the end of a run).
const chunkImages = 512

// CheckTestSet checks a model against req on the rows of a test set
// instead of images generated during the check (docs/requirements-check.md,
// "With a test set"): the batches draw sources as Check draws images
// (drawPool), and each drawn source takes, per threshold, its next row of
// the corruption — drawn uniformly from the domain (sampling "uniform"),
// with Δv (in the requirement's flavour's dv_<flavour> column) at most the
// threshold. Uniform draws filtered by Δv ≤ t have the distribution of
// Check's rejection loop. Only the predictor runs; each image is
// classified once. The statistics and the verdict are Check's;
// Verdict.TestSet holds the plan. Errors: PlanTestSet's, and the
// predictor's.
func CheckTestSet(ctx context.Context, req Requirement, opt TestSetOptions) (*Verdict, error) {
	x, opt, err := prepareTestSet(req, opt)
	if err != nil {
		return nil, err
	}
	if opt.Predictor == nil {
		return nil, errors.New("reliability: CheckTestSet needs a Predictor")
	}
	cache, ok := opt.Predictor.(*PredictionCache)
	if !ok {
		cache = NewPredictionCache(opt.Predictor)
	}
	r := &tsRun{x: x, opt: opt, cache: cache, total: x.plan.Runs * opt.Batches}
	v, err := r.run(ctx, req, opt.Seed)
	if err != nil {
		return nil, err
	}
	v.Warnings = append(slices.Clone(x.plan.Warnings), v.Warnings...)
	if x.plan.Runs == 2 {
		seed := reproSeed(opt)
		v2, err := r.run(ctx, req, seed)
		if err != nil {
			return nil, fmt.Errorf("reproducibility run (seed %d): %w", seed, err)
		}
		addRepro(v, v2, opt.ReproTolerance)
	}
	plan := x.plan
	v.TestSet = &plan
	return v, nil
}

// tsRun is the state of one CheckTestSet.
type tsRun struct {
	x           *tsIndex
	opt         TestSetOptions
	cache       *PredictionCache
	done, total int
}

// run performs one bootstrap run with seed.
func (r *tsRun) run(ctx context.Context, req Requirement, seed uint64) (*Verdict, error) {
	start := time.Now()
	x, opt := r.x, r.opt
	n, k := opt.Batches, opt.BatchSize
	rows := x.ts.Rows
	sel := x.selectRows(seed, n, k)
	v := &Verdict{Requirement: req, VIFMethod: x.method, Batches: n, BatchSize: k, Seed: seed,
		Quantile: opt.Quantile, Alpha: opt.Alpha, Z: ZAlpha(opt.Alpha), Pool: len(x.pool), Excluded: x.excluded}
	dist := [2]*Distance{&v.Correctness, &v.Preservation}
	for kd, d := range dist {
		d.Kind, d.Threshold = kindNames[kd], x.t[kd]
		// Every image is one row: one "attempt" each.
		d.Attempts, d.Images, d.MaxAttempts = n*k, n*k, 1
	}
	// Classify the images not classified yet, in chunks of about
	// chunkImages, reporting progress per batch whose images are done.
	var pr []*testset.Record
	var pc []bool
	pending := map[string]bool{}
	add := func(row *testset.Record, clean bool) {
		if r.cache.has(row, clean) {
			return
		}
		key := "c:" + row.Path
		if clean {
			key = "s:" + row.Source
		}
		if !pending[key] {
			pending[key] = true
			pr, pc = append(pr, row), append(pc, clean)
		}
	}
	var model time.Duration
	flushed := 0
	flush := func(upto int) error {
		if len(pr) > 0 {
			t0 := time.Now()
			if _, err := r.cache.Predict(ctx, pr, pc); err != nil {
				return err
			}
			model += time.Since(t0)
			pr, pc = pr[:0], pc[:0]
			clear(pending)
		}
		for ; flushed < upto; flushed++ {
			r.done++
			if opt.Progress != nil {
				opt.Progress(r.done, r.total)
			}
		}
		return nil
	}
	for b := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for j, p := range sel.src[b] {
			add(rows[x.pool[p].rows[kindC][0]], true)
			for kd := range 2 {
				add(rows[sel.rows[kd][b][j]], false)
			}
		}
		if len(pr) >= chunkImages || b == n-1 {
			if err := flush(b + 1); err != nil {
				return nil, err
			}
		}
	}
	out := make([][]outcome, n)
	for b := range n {
		out[b] = make([]outcome, k)
		for j, p := range sel.src[b] {
			s := x.pool[p]
			o := outcome{truth: s.truth, ok: [2]bool{true, true}}
			o.orig = r.cache.clean[s.name]
			for kd := range 2 {
				i := sel.rows[kd][b][j]
				o.pred[kd] = r.cache.corrupted[rows[i].Path]
				o.dv[kd] = x.dv[i]
			}
			out[b][j] = o
		}
	}
	finish(v, out)
	v.Timing = Timing{Model: model.Seconds(), Wall: time.Since(start).Seconds()}
	return v, nil
}
