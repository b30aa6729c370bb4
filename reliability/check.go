package reliability

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/task"

	"github.com/vcr-bench/vcr/stats"
)

// Defaults of CheckOptions (the study's worked example and its ε quantile).
const (
	DefaultBatches     = 200
	DefaultBatchSize   = 50
	DefaultQuantile    = 0.10
	DefaultAlpha       = 0.05
	DefaultMaxAttempts = 200
	DefaultModelBatch  = 32
)

// Preprocessor turns an image into the model's input tensor
// (model.Preprocess is one).
type Preprocessor interface {
	Apply(m *imageio.Image) (model.Tensor, error)
}

// Mapper maps a score vector to a class of the task (task.Mapping is one).
type Mapper interface {
	Map(scores []float32) (class int, conf float32)
}

// CheckOptions configures Check. Zero values take the defaults named.
type CheckOptions struct {
	// Images is the pool of original images, with labels.
	Images dataset.Dataset
	// Classifier, Preprocess and Mapping run the model: a prediction is
	// Mapping.Map(Classifier(Preprocess(image))); a nil Mapping is the
	// arg-max over the scores.
	Classifier model.Classifier
	Preprocess Preprocessor
	Mapping    Mapper
	// Truth returns an item's task class; items for which it returns an
	// error wrapping task.ErrOutsideTask leave the pool, other errors stop
	// the check.
	Truth func(dataset.Item) (int, error)
	// Batches is n (default 200) and BatchSize k (default 50).
	Batches, BatchSize int
	// Quantile q sets ε, the lower q-th quantile of the Δv of all
	// preservation draws (default 0.10, as the study's checker).
	Quantile float64
	// Alpha is the one-sided significance level (default 0.05).
	Alpha float64
	// Seed is the master seed: batch b's images and every draw depend only
	// on (Seed, b, slot).
	Seed uint64
	// MaxAttempts bounds the parameter draws per image (default 200; one
	// stream of draws serves both thresholds); an image that does not reach
	// a threshold within it leaves its batch for that threshold and is
	// reported in Verdict.Failures.
	MaxAttempts int
	// VIFMethod is the Δv flavour; "" means the requirement's. A method
	// other than the requirement's is refused unless OverrideVIF is set.
	VIFMethod   iqa.Method
	OverrideVIF bool
	// ReproTolerance > 0 reruns the check with ReproSeed (default Seed+1)
	// and warns when Δm or Δs of the two runs differ by more than it.
	ReproTolerance float64
	ReproSeed      *uint64
	// Workers transform and score images in parallel (default 1).
	Workers int
	// ModelBatch is the number of images per Classify call (default 32).
	ModelBatch int
	// Progress, if set, is called after each batch with the batches done
	// and the total (both runs when ReproTolerance > 0).
	Progress func(done, total int)
}

// Distance is one reliability distance: Δ = baseline − transformed, over
// the per-batch values, with σ = √(σ²_baseline + σ²_transformed) from the
// sample standard deviations of the batch values (the paper's §6: the
// spread of batch values, not divided by √n).
type Distance struct {
	// Kind is "correctness" (Δm) or "preservation" (Δs).
	Kind string `json:"kind"`
	// Threshold is t_c or t_p.
	Threshold float64 `json:"threshold"`
	// Baseline and BaselineSD are the mean and standard deviation of m0
	// (or s0) over the batches; Transformed and TransformedSD those of m_tc
	// (or s_tp).
	Baseline      float64 `json:"baseline"`
	BaselineSD    float64 `json:"baseline_sd"`
	Transformed   float64 `json:"transformed"`
	TransformedSD float64 `json:"transformed_sd"`
	// BaselineBatches is the number of batches the baseline mean is over
	// (for s0 only batches holding a pair with Δv ≤ ε count).
	BaselineBatches int `json:"baseline_batches"`
	// Delta is Baseline − Transformed, Sigma its σ, Bound = Delta + z·Sigma.
	Delta float64 `json:"delta"`
	Sigma float64 `json:"sigma"`
	Bound float64 `json:"bound"`
	// Satisfied is Bound ≤ 0.
	Satisfied bool `json:"satisfied"`
	// Attempts is the total number of parameter draws until acceptance
	// (or giving up), Images the images accepted, MaxAttempts the most
	// draws one accepted image needed.
	Attempts    int `json:"attempts"`
	Images      int `json:"images"`
	MaxAttempts int `json:"max_attempts"`
}

// Failure is an image for which no draw reached Δv ≤ t within the bound.
type Failure struct {
	Kind      string  `json:"kind"`
	Batch     int     `json:"batch"`
	Slot      int     `json:"slot"`
	Source    string  `json:"source"`
	Threshold float64 `json:"threshold"`
	Attempts  int     `json:"attempts"`
	// MinDV is the smallest Δv seen.
	MinDV float64 `json:"min_dv"`
}

// Repro is the reproducibility check: the same check with a second seed.
type Repro struct {
	Seed         uint64  `json:"seed"`
	Correctness  float64 `json:"delta_m"`
	Preservation float64 `json:"delta_s"`
	// DiffM and DiffS are |Δ(seed) − Δ(second seed)|.
	DiffM     float64 `json:"diff_m"`
	DiffS     float64 `json:"diff_s"`
	Tolerance float64 `json:"tolerance"`
	Exceeded  bool    `json:"exceeded"`
}

// Verdict is the result of checking one requirement.
type Verdict struct {
	Requirement Requirement `json:"requirement"`
	VIFMethod   iqa.Method  `json:"vif_method"`
	Batches     int         `json:"batches"`
	BatchSize   int         `json:"batch_size"`
	Seed        uint64      `json:"seed"`
	Quantile    float64     `json:"quantile"`
	Alpha       float64     `json:"alpha"`
	Z           float64     `json:"z"`
	// Epsilon is ε, the Quantile-th quantile of the preservation draws' Δv.
	Epsilon float64 `json:"epsilon"`
	// Draws is the number of transformations made and scored: one stream
	// per image serves both thresholds, so Draws ≤ the distances' Attempts
	// summed.
	Draws int `json:"draws"`
	// Pool is the number of images in the pool; Excluded those outside the task.
	Pool     int `json:"pool"`
	Excluded int `json:"excluded"`

	Correctness  Distance `json:"correctness"`
	Preservation Distance `json:"preservation"`
	// Satisfied is true when both distances are satisfied.
	Satisfied bool      `json:"satisfied"`
	Failures  []Failure `json:"failures,omitempty"`
	Repro     *Repro    `json:"repro,omitempty"`
	Warnings  []string  `json:"warnings,omitempty"`
	// Timing is where the time of this run went.
	Timing Timing `json:"timing"`
	// TestSet is what a check with a test set (CheckTestSet) used; nil for
	// a check that generated its images.
	TestSet *TestSetPlan `json:"testset,omitempty"`
}

// Timing sums the time spent per stage, in seconds, over all workers (so
// with several workers the sums exceed the wall time).
type Timing struct {
	Load       float64 `json:"load"`
	Corrupt    float64 `json:"corrupt"`
	VIF        float64 `json:"vif"`
	Preprocess float64 `json:"preprocess"`
	// Model is the wall time of the Classify calls; with a test set
	// (CheckTestSet), of the predictor's calls: loading, preprocessing and
	// classifying the images, or looking them up in a predictions file.
	Model float64 `json:"model"`
	// Wall is the run's wall time.
	Wall float64 `json:"wall"`
}

// ZAlpha returns the one-sided standard normal quantile z with
// P(Z > z) = alpha (1.6449 for 0.05).
func ZAlpha(alpha float64) float64 { return math.Sqrt2 * math.Erfinv(1-2*alpha) }

// ErrUnreachable is returned (wrapped) when no image of a whole run reached
// Δv ≤ t within the attempt bound.
var ErrUnreachable = errors.New("Δv ≤ threshold unreachable within the attempt bound")

// Check checks the model of opt against req: the procedure of the paper's
// §6 as the project implements it (docs/requirements-check.md).
func Check(ctx context.Context, req Requirement, opt CheckOptions) (*Verdict, error) {
	c, err := corrupt.Lookup(req.Transformation)
	if err != nil {
		return nil, fmt.Errorf("requirement %q: %w", req.Transformation, err)
	}
	if err := checkThreshold("t_c", req.TC); err != nil {
		return nil, err
	}
	if err := checkThreshold("t_p", req.TP); err != nil {
		return nil, err
	}
	method, mismatch, err := resolveVIF(req, opt.VIFMethod, opt.OverrideVIF)
	if err != nil {
		return nil, err
	}
	if opt.Images == nil || opt.Classifier == nil || opt.Preprocess == nil || opt.Truth == nil {
		return nil, errors.New("reliability: Check needs Images, Classifier, Preprocess and Truth")
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&opt.Batches, DefaultBatches)
	def(&opt.BatchSize, DefaultBatchSize)
	def(&opt.MaxAttempts, DefaultMaxAttempts)
	def(&opt.Workers, 1)
	def(&opt.ModelBatch, DefaultModelBatch)
	if opt.Quantile == 0 {
		opt.Quantile = DefaultQuantile
	}
	if opt.Alpha == 0 {
		opt.Alpha = DefaultAlpha
	}
	switch {
	case opt.Batches < 2:
		return nil, fmt.Errorf("batches = %d: need at least 2 for a standard deviation", opt.Batches)
	case opt.BatchSize < 1 || opt.MaxAttempts < 1 || opt.Workers < 1 || opt.ModelBatch < 1:
		return nil, errors.New("batch size, attempts, workers and model batch must be positive")
	case !(opt.Quantile > 0 && opt.Quantile <= 1):
		return nil, fmt.Errorf("quantile %g outside (0, 1]", opt.Quantile)
	case !(opt.Alpha > 0 && opt.Alpha < 0.5):
		return nil, fmt.Errorf("alpha %g outside (0, 0.5)", opt.Alpha)
	}

	ck := &checker{c: c, opt: opt, method: method, orig: map[int]int{}}
	if err := ck.pool(); err != nil {
		return nil, err
	}
	runs := 1
	if opt.ReproTolerance > 0 {
		runs = 2
	}
	ck.total = runs * opt.Batches
	v, err := ck.run(ctx, req, opt.Seed)
	if err != nil {
		return nil, err
	}
	if mismatch {
		v.Warnings = append(v.Warnings, fmt.Sprintf("Δv computed with %s, but the thresholds were estimated on the %q axis: the verdict compares different scales (accepted by override)", method, req.VIFMethod))
	}
	if runs == 2 {
		seed := opt.Seed + 1
		if opt.ReproSeed != nil {
			seed = *opt.ReproSeed
		}
		v2, err := ck.run(ctx, req, seed)
		if err != nil {
			return nil, fmt.Errorf("reproducibility run (seed %d): %w", seed, err)
		}
		addRepro(v, v2, opt.ReproTolerance)
	}
	return v, nil
}

// addRepro records in v the reproducibility run v2 (the same check with
// another seed) and warns when Δm or Δs differ by more than tol or the
// verdicts differ.
func addRepro(v, v2 *Verdict, tol float64) {
	r := &Repro{Seed: v2.Seed, Correctness: v2.Correctness.Delta, Preservation: v2.Preservation.Delta, Tolerance: tol}
	r.DiffM = math.Abs(v.Correctness.Delta - r.Correctness)
	r.DiffS = math.Abs(v.Preservation.Delta - r.Preservation)
	r.Exceeded = r.DiffM > r.Tolerance || r.DiffS > r.Tolerance
	v.Repro = r
	if r.Exceeded {
		v.Warnings = append(v.Warnings, fmt.Sprintf("seeds %d and %d give Δm %.4f vs %.4f and Δs %.4f vs %.4f (tolerance %g): n = %d batches may be too few",
			v.Seed, v2.Seed, v.Correctness.Delta, r.Correctness, v.Preservation.Delta, r.Preservation, r.Tolerance, v.Batches))
	}
	if v.Satisfied != v2.Satisfied {
		v.Warnings = append(v.Warnings, fmt.Sprintf("the verdict differs with seed %d", v2.Seed))
	}
}

// drawPool returns the pool indices of batch b's k images: k uniform draws
// with replacement from a pool of size n, from corrupt.NewRand(seed, b).
// Check and CheckTestSet draw their batches with it.
func drawPool(seed uint64, b, k, n int) []int {
	rng := corrupt.NewRand(seed, uint64(b))
	p := make([]int, k)
	for j := range p {
		p[j] = rng.IntN(n)
	}
	return p
}

func checkThreshold(name string, t float64) error {
	if !(t >= 0 && t <= 1) {
		return fmt.Errorf("%s = %g outside [0, 1]", name, t)
	}
	return nil
}

// checker holds one Check's state shared by its runs.
type checker struct {
	c      *corrupt.Corruption
	opt    CheckOptions
	method iqa.Method

	items    []int // dataset indices in the task
	truth    []int // task class per items entry
	excluded int

	mu   sync.Mutex
	orig map[int]int // dataset index → predicted task class of the original

	done, total int

	// nanoseconds per stage of the current run
	tLoad, tCorrupt, tVIF, tPre, tModel atomic.Int64
}

// pool keeps the dataset's items inside the task.
func (ck *checker) pool() error {
	d := ck.opt.Images
	for i := range d.Len() {
		it := d.Item(i)
		t, err := ck.opt.Truth(it)
		if errors.Is(err, task.ErrOutsideTask) {
			ck.excluded++
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", it.Source, err)
		}
		ck.items = append(ck.items, i)
		ck.truth = append(ck.truth, t)
	}
	if len(ck.items) == 0 {
		return fmt.Errorf("no image of %s (%d items) belongs to the task", d.Root(), d.Len())
	}
	return nil
}

// Kinds of draws.
const (
	kindC = iota // correctness: Δv ≤ t_c
	kindP        // preservation: Δv ≤ t_p
)

var kindNames = [2]string{"correctness", "preservation"}

// slot is one image of a batch: its two transformed versions.
type slot struct {
	pool     int // index into checker.items
	ok       [2]bool
	dv       [2]float64
	attempts [2]int // draws until acceptance (or until giving up)
	draws    int    // draws made for the slot (both thresholds)
	minDV    [2]float64
	pred     [2]int
	tensor   [2]model.Tensor
	origT    *model.Tensor // preprocessed original when not cached yet
}

// run performs one bootstrap run with seed.
func (ck *checker) run(ctx context.Context, req Requirement, seed uint64) (*Verdict, error) {
	opt := ck.opt
	n, k := opt.Batches, opt.BatchSize
	t := [2]float64{req.TC, req.TP}
	start := time.Now()
	for _, a := range []*atomic.Int64{&ck.tLoad, &ck.tCorrupt, &ck.tVIF, &ck.tPre, &ck.tModel} {
		a.Store(0)
	}
	out := make([][]outcome, n)
	v := &Verdict{Requirement: req, VIFMethod: ck.method, Batches: n, BatchSize: k, Seed: seed,
		Quantile: opt.Quantile, Alpha: opt.Alpha, Z: ZAlpha(opt.Alpha), Pool: len(ck.items), Excluded: ck.excluded}
	dist := [2]*Distance{&v.Correctness, &v.Preservation}
	for i, d := range dist {
		d.Kind, d.Threshold = kindNames[i], t[i]
	}
	for b := range n {
		ss := make([]slot, k)
		for j, p := range drawPool(seed, b, k, len(ck.items)) {
			ss[j].pool = p
		}
		if err := ck.transform(ctx, seed, b, ss, t); err != nil {
			return nil, err
		}
		if err := ck.predict(ctx, ss); err != nil {
			return nil, err
		}
		var okN [2]int
		out[b] = make([]outcome, k)
		for j := range ss {
			s := &ss[j]
			out[b][j] = outcome{truth: ck.truth[s.pool], orig: ck.orig[ck.items[s.pool]], ok: s.ok, pred: s.pred, dv: s.dv}
			v.Draws += s.draws
			for kd := range 2 {
				d := dist[kd]
				d.Attempts += s.attempts[kd]
				if !s.ok[kd] {
					v.Failures = append(v.Failures, Failure{Kind: kindNames[kd], Batch: b, Slot: j,
						Source: opt.Images.Item(ck.items[s.pool]).Source, Threshold: t[kd], Attempts: s.attempts[kd], MinDV: s.minDV[kd]})
					continue
				}
				okN[kd]++
				d.Images++
				d.MaxAttempts = max(d.MaxAttempts, s.attempts[kd])
			}
			s.tensor = [2]model.Tensor{}
		}
		for kd := range 2 {
			if okN[kd] == 0 {
				return nil, fmt.Errorf("%s, batch %d: no image reached Δv ≤ %g (%s) in %d attempts each: %w",
					req.Transformation, b, t[kd], kindNames[kd], opt.MaxAttempts, ErrUnreachable)
			}
		}
		ck.done++
		if opt.Progress != nil {
			opt.Progress(ck.done, ck.total)
		}
	}
	finish(v, out)
	if len(v.Failures) > 0 {
		v.Warnings = append(v.Warnings, fmt.Sprintf("%d image draw(s) did not reach their threshold within %d attempts and left their batches", len(v.Failures), opt.MaxAttempts))
	}
	sec := func(a *atomic.Int64) float64 { return float64(a.Load()) / 1e9 }
	v.Timing = Timing{Load: sec(&ck.tLoad), Corrupt: sec(&ck.tCorrupt), VIF: sec(&ck.tVIF), Preprocess: sec(&ck.tPre),
		Model: sec(&ck.tModel), Wall: time.Since(start).Seconds()}
	return v, nil
}

// outcome is what the statistics need of one image of a batch: its task
// class, the prediction on its original, and per kind (correctness,
// preservation) whether it has a transformed image, the prediction on
// that image and its Δv.
type outcome struct {
	truth, orig int
	ok          [2]bool
	pred        [2]int
	dv          [2]float64
}

// finish computes v's distances, ε and verdict from the outcomes of its
// batches, each of which holds at least one accepted image per kind:
// m0 (accuracy on the batch's originals), m_tc, s_tp and, once ε is known
// from every preservation image's Δv, s0 (steps 4–6 of
// docs/requirements-check.md).
func finish(v *Verdict, out [][]outcome) {
	n := len(out)
	m0 := make([]float64, n)
	mt := make([]float64, n)
	st := make([]float64, n)
	var allDV []float64
	for b, ss := range out {
		var okN [2]int
		var right0, rightC, agreeP float64
		for j := range ss {
			s := &ss[j]
			right0 += b2f(s.orig == s.truth)
			for kd := range 2 {
				if s.ok[kd] {
					okN[kd]++
				}
			}
			if s.ok[kindC] {
				rightC += b2f(s.pred[kindC] == s.truth)
			}
			if s.ok[kindP] {
				agreeP += b2f(s.pred[kindP] == s.orig)
				allDV = append(allDV, s.dv[kindP])
			}
		}
		m0[b] = right0 / float64(len(ss))
		mt[b] = rightC / float64(okN[kindC])
		st[b] = agreeP / float64(okN[kindP])
	}
	// ε and s0 need the Δv of every preservation image of the run.
	v.Epsilon = quantile(allDV, v.Quantile)
	var s0 []float64
	for _, ss := range out {
		var agree, cnt float64
		for j := range ss {
			s := &ss[j]
			if s.ok[kindP] && s.dv[kindP] <= v.Epsilon {
				cnt++
				agree += b2f(s.pred[kindP] == s.orig)
			}
		}
		if cnt > 0 {
			s0 = append(s0, agree/cnt)
		}
	}
	fill(&v.Correctness, m0, mt, v.Z)
	fill(&v.Preservation, s0, st, v.Z)
	if len(s0) < 2 {
		v.Warnings = append(v.Warnings, fmt.Sprintf("only %d batch(es) hold a preservation pair with Δv ≤ ε = %.4g: s0's spread is unknown", len(s0), v.Epsilon))
	}
	v.Satisfied = v.Correctness.Satisfied && v.Preservation.Satisfied
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fill sets d's statistics from the per-batch baseline and transformed values.
func fill(d *Distance, base, tr []float64, z float64) {
	d.BaselineBatches = len(base)
	d.Baseline, d.BaselineSD = meanSD(base)
	d.Transformed, d.TransformedSD = meanSD(tr)
	d.Delta = d.Baseline - d.Transformed
	d.Sigma = math.Sqrt(d.BaselineSD*d.BaselineSD + d.TransformedSD*d.TransformedSD)
	d.Bound = d.Delta + z*d.Sigma
	d.Satisfied = d.Bound <= 0
}

// meanSD returns the mean and the sample (n − 1) standard deviation; the
// deviation of fewer than two values is 0.
func meanSD(x []float64) (mean, sd float64) {
	if len(x) == 0 {
		return math.NaN(), 0
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// quantile is numpy's default (linear interpolation) q-th quantile of
// the unsorted x.
func quantile(x []float64, q float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	return stats.Quantile(s, q)
}

// drawRand derives the generator of one image draw; batch sampling uses
// corrupt.NewRand(seed, batch) itself.
func drawRand(seed uint64, batch, k, j int) *rand.Rand {
	return corrupt.NewRand(seed^0x632be59bd9b4e019, uint64(batch)*uint64(k)+uint64(j))
}

// transform draws, for every slot, parameters until Δv ≤ t for each kind
// and preprocesses the accepted images (and originals not yet predicted).
func (ck *checker) transform(ctx context.Context, seed uint64, b int, ss []slot, t [2]float64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	errc := make(chan error, ck.opt.Workers)
	var wg sync.WaitGroup
	for range ck.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &transformer{scorer: iqa.NewScorer(ck.method)}
			for j := range jobs {
				if err := ck.transformSlot(w, seed, b, j, &ss[j], t); err != nil {
					errc <- err
					cancel()
					return
				}
			}
		}()
	}
	func() {
		defer close(jobs)
		for j := range ss {
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
	}
	return ctx.Err()
}

// transformer is one worker's scratch.
type transformer struct {
	scorer *iqa.Scorer
	ref    iqa.Reference // the current source, prepared for its draws
	dst    *imageio.Image
	gray   *iqa.Gray
}

func (ck *checker) transformSlot(w *transformer, seed uint64, b, j int, s *slot, t [2]float64) error {
	idx := ck.items[s.pool]
	t0 := time.Now()
	src, err := ck.opt.Images.Load(idx)
	if err != nil {
		return err
	}
	ck.tLoad.Add(int64(time.Since(t0)))
	source := ck.opt.Images.Item(idx).Source
	ck.mu.Lock()
	_, cached := ck.orig[idx]
	ck.mu.Unlock()
	if !cached {
		t0 := time.Now()
		ot, err := ck.opt.Preprocess.Apply(src)
		ck.tPre.Add(int64(time.Since(t0)))
		if err != nil {
			return fmt.Errorf("%s: preprocessing: %w", source, err)
		}
		s.origT = &ot
	}
	t0 = time.Now()
	ref := iqa.GrayFrom(src)
	ck.tVIF.Add(int64(time.Since(t0)))
	if w.dst == nil || !w.dst.SameSize(src) {
		w.dst = imageio.New(src.Width, src.Height)
		w.gray = iqa.NewGray(src.Width, src.Height)
	}
	// One stream of draws serves both thresholds: the first draw with
	// Δv ≤ t_c is the correctness image and the first with Δv ≤ t_p the
	// preservation image. Each is, as in two separate rejection loops,
	// uniform on the domain conditioned on its Δv range; sharing the
	// stream saves the draws of the looser threshold.
	rng := drawRand(seed, b, ck.opt.BatchSize, j)
	minDV := math.Inf(1)
	draws := 0
	// The reference's share of VIF (its pyramid and subband statistics) is
	// computed once, with the first draw (PrepareScore, which costs what
	// Score costs), for all of the source's draws; PrepareScore and ScoreRef
	// give exactly what Score(ref, dist) gives.
	for draws < ck.opt.MaxAttempts && !(s.ok[kindC] && s.ok[kindP]) {
		draws++
		t0 := time.Now()
		p := ck.c.Sample(rng)
		ck.c.Apply(w.dst, src, p, rng)
		// The model and Δv see the 8-bit image a saved file would hold.
		w.dst.Quantize(imageio.Round)
		t1 := time.Now()
		ck.tCorrupt.Add(int64(t1.Sub(t0)))
		w.dst.Luma(w.gray.Pix)
		var r iqa.Result
		if draws == 1 {
			r, err = w.scorer.PrepareScore(&w.ref, ref, w.gray)
		} else {
			r, err = w.scorer.ScoreRef(&w.ref, w.gray)
		}
		ck.tVIF.Add(int64(time.Since(t1)))
		if err != nil {
			return fmt.Errorf("%s: VIF: %w", source, err)
		}
		minDV = min(minDV, r.DV)
		var tn *model.Tensor
		for kd := range 2 {
			if s.ok[kd] || r.DV > t[kd] {
				continue
			}
			if tn == nil {
				t0 := time.Now()
				x, err := ck.opt.Preprocess.Apply(w.dst)
				ck.tPre.Add(int64(time.Since(t0)))
				if err != nil {
					return fmt.Errorf("%s (%s): preprocessing: %w", source, ck.c.Name, err)
				}
				tn = &x
			}
			s.ok[kd], s.dv[kd], s.attempts[kd], s.tensor[kd] = true, r.DV, draws, *tn
		}
	}
	s.draws = draws
	for kd := range 2 {
		s.minDV[kd] = minDV
		if !s.ok[kd] {
			s.attempts[kd] = draws
		}
	}
	return nil
}

// drawRef is one image of a model call: slot j's original (kind −1) or
// its draw of a kind.
type drawRef struct{ j, kind int }

// predict runs the model on the batch's accepted transformed images and on
// originals not predicted before, in calls of at most ModelBatch images.
func (ck *checker) predict(ctx context.Context, ss []slot) error {
	var refs []drawRef
	var batch []model.Tensor
	seen := map[int]bool{}
	for j := range ss {
		s := &ss[j]
		idx := ck.items[s.pool]
		if s.origT != nil && !seen[idx] {
			if _, ok := ck.orig[idx]; !ok {
				seen[idx] = true
				refs = append(refs, drawRef{j, -1})
				batch = append(batch, *s.origT)
			}
		}
		s.origT = nil
		for kd := range 2 {
			if s.ok[kd] {
				refs = append(refs, drawRef{j, kd})
				batch = append(batch, s.tensor[kd])
			}
		}
	}
	classes := ck.opt.Classifier.Info().Classes
	for lo := 0; lo < len(batch); lo += ck.opt.ModelBatch {
		hi := min(lo+ck.opt.ModelBatch, len(batch))
		t0 := time.Now()
		scores, err := ck.opt.Classifier.Classify(ctx, batch[lo:hi])
		ck.tModel.Add(int64(time.Since(t0)))
		if err == nil && len(scores) != hi-lo {
			err = fmt.Errorf("returned %d score vectors for %d images", len(scores), hi-lo)
		}
		if err != nil {
			return fmt.Errorf("model on %s: %w", ck.describe(ss, refs[lo:hi]), err)
		}
		for i, sc := range scores {
			r := refs[lo+i]
			if classes > 0 && len(sc) != classes {
				return fmt.Errorf("model returned %d scores for %s, want %d", len(sc), ck.describe(ss, refs[lo+i:lo+i+1]), classes)
			}
			cl := argmax(sc)
			if ck.opt.Mapping != nil {
				cl, _ = ck.opt.Mapping.Map(sc)
			}
			if r.kind < 0 {
				ck.mu.Lock()
				ck.orig[ck.items[ss[r.j].pool]] = cl
				ck.mu.Unlock()
			} else {
				ss[r.j].pred[r.kind] = cl
			}
		}
	}
	return nil
}

// describe names the images of a failed model call.
func (ck *checker) describe(ss []slot, refs []drawRef) string {
	names := make([]string, 0, min(len(refs), 4))
	for i, r := range refs {
		if i == 3 && len(refs) > 4 {
			names = append(names, fmt.Sprintf("and %d more", len(refs)-3))
			break
		}
		src := ck.opt.Images.Item(ck.items[ss[r.j].pool]).Source
		if r.kind < 0 {
			names = append(names, src+" (original)")
		} else {
			names = append(names, fmt.Sprintf("%s (%s, %s draw)", src, ck.c.Name, kindNames[r.kind]))
		}
	}
	return strings.Join(names, ", ")
}

func argmax(s []float32) int {
	best := 0
	for i, v := range s {
		if v > s[best] {
			best = i
		}
	}
	return best
}
