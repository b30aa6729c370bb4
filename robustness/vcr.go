package robustness

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/vcr-bench/vcr/spline"
)

// Defaults of Options.
const (
	DefaultBins       = 40   // M, the paper's resolution (KITTI convention)
	DefaultMinCount   = 20   // L: the paper's "covered bin" threshold (≥ 20 images)
	DefaultReplicates = 1000 // bootstrap replicates B
	DefaultGrid       = 101  // band grid points on [0, 1] (Δv step 0.01)
)

// Errors.
var (
	// ErrVIFMismatch: the series being compared were measured with different
	// VIF flavours, so their Δv axes are not comparable.
	ErrVIFMismatch = errors.New("robustness: series use different VIF flavours")
	// ErrCorruptionMismatch: a model and a human series for different corruptions.
	ErrCorruptionMismatch = errors.New("robustness: series are for different corruptions")
	// ErrNoData: a series without trials (or without any usable bin).
	ErrNoData = errors.New("robustness: no usable data")
	// ErrDV: a Δv outside [0, 1] or NaN.
	ErrDV = errors.New("robustness: Δv outside [0, 1]")
)

// Trial is one model prediction or one human judgement on a corrupted image.
type Trial struct {
	DV         float64 // visual change Δv ∈ [0, 1]
	Correct    bool    // prediction equals the ground truth
	Consistent bool    // prediction equals the prediction on the clean image
	// Unpaired marks a trial without a clean prediction to compare with
	// (human data where nobody judged the original): it counts for accuracy
	// only, and Consistent is ignored.
	Unpaired bool
}

// Counts is per-bin binomial data for one curve: N[i] trials at Δv = X[i],
// K[i] of them successes (correct, or consistent). X must lie in [0, 1].
type Counts struct {
	X []float64
	N []int
	K []int
}

// Bins is pre-binned input, an alternative to Series.Trials (for example the
// published per-bin human data, where accuracy and consistency come from
// different sets of trials and so have their own bins). Bins with N = 0 are
// ignored; the minimum count L is not applied (the producer applied its own).
// The bootstrap resamples each curve's trials independently (a multinomial
// over its (bin, success) cells), which is exact for every statistic of a
// single curve.
type Bins struct {
	Accuracy    Counts
	Consistency Counts
}

// Series is all trials of one subject (a model, or "human") on one corruption.
type Series struct {
	Subject    string // model name or "human"
	Corruption string
	VIFMethod  string // VIF flavour of the Δv axis, e.g. "vifvec"
	Human      bool
	Trials     []Trial
	// Binned is used instead of Trials when Trials is empty.
	Binned *Bins
	// CleanAccuracy anchors the accuracy curve at Δv = 0. NaN leaves the
	// curve unanchored (its value at 0 is then the fit's extrapolation).
	CleanAccuracy float64
	// CleanConsistency anchors the consistency curve at Δv = 0: 1 for
	// deterministic models, measured for humans; NaN = unanchored (e.g. the
	// published ImageNet human data, whose raw originals are lost).
	CleanConsistency float64
	// CleanN is the number of clean judgements behind CleanAccuracy and
	// CleanConsistency. With CleanN > 0 the bootstrap also resamples the
	// anchors (binomially, CleanN draws); 0 treats them as exact.
	CleanN int
}

// Options configures Estimate. The zero value uses the defaults.
type Options struct {
	Bins       int      // M, number of equal Δv bins; 0 = DefaultBins
	MinCount   int      // L, minimum trials for a bin to enter the fit; 0 = DefaultMinCount
	Replicates int      // bootstrap replicates; 0 = DefaultReplicates, < 0 = no bootstrap
	Seed       uint64   // master seed; replicate b uses PCG(Seed, b)
	Grid       int      // band grid points on [0, 1]; 0 = DefaultGrid (must be ≥ 2)
	Workers    int      // parallel workers; 0 = GOMAXPROCS. Results do not depend on it.
	Lambda     *float64 // fixed smoothing penalty (spline.MonotoneOptions.Lambda); nil = GCV
	Segments   int      // spline knot intervals; 0 = spline's default
	// Progress, if not nil, is called after each replicate; it may be
	// called concurrently from several workers.
	Progress func(done, total int)
}

// Interval is a point estimate with bootstrap percentile intervals.
type Interval struct {
	Value      float64 // estimate from the original data
	Lo83, Hi83 float64 // 83 % percentile interval (NaN without bootstrap)
	Lo95, Hi95 float64 // 95 % percentile interval (NaN without bootstrap)
}

// Curve is one fitted performance curve with its pointwise bands.
type Curve struct {
	Bins Counts // every bin of the data (X = bin centre), including sparse ones
	Used []bool // Used[i]: bin i entered the fit (N ≥ L)
	// Anchor is s(0): the clean accuracy or consistency.
	Anchor float64
	// Fit is the monotone spline; its Eval/Integral give s(v) and areas.
	Fit *spline.Monotone
	// Grid are the band abscissae; Value = s(Grid). Lo/Hi are pointwise
	// percentile bands (nil without bootstrap).
	Grid, Value []float64
	Lo83, Hi83  []float64
	Lo95, Hi95  []float64
	// Covered is the Δv range the data support: [0, max used bin centre]
	// (the anchor covers Δv = 0; an unanchored curve starts at its first used
	// bin centre). Outside it the curve is an extrapolation.
	Covered [2]float64
	reps    []*spline.Monotone
}

// Estimate is the VCR estimate of one series.
type Estimate struct {
	Subject, Corruption, VIFMethod string
	Human                          bool
	N                              int // trials
	Accuracy, Consistency          Curve
	Ra, Rp                         Interval // R̂a = ∫₀¹ s_a, R̂p = ∫₀¹ s_p
	// MeanAccuracy and MeanConsistency are the plain averages over all trials
	// (what ImageNet-C reports; consistency over paired trials), side by side
	// with R̂ to expose coverage bias.
	MeanAccuracy, MeanConsistency float64
	Bins, MinCount, Replicates    int
	Seed                          uint64
	Warnings                      []error
}

// MarshalJSON writes the interval with NaN bounds (no bootstrap) as null,
// which encoding/json cannot otherwise represent.
func (iv Interval) MarshalJSON() ([]byte, error) {
	f := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	return json.Marshal(map[string]any{"value": f(iv.Value), "lo83": f(iv.Lo83), "hi83": f(iv.Hi83), "lo95": f(iv.Lo95), "hi95": f(iv.Hi95)})
}
