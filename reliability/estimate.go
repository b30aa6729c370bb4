package reliability

import (
	"github.com/vcr-bench/vcr/stats"

	"errors"
	"fmt"
	"math"

	"github.com/vcr-bench/vcr/spline"
)

// Bins is per-bin human data for one curve, as in the study's per-bin
// files (requirements-method.md §A.1): X[k] is the Δv label of bin k (the
// upper edge of the 0.01-wide bin, ascending, unique), N[k] its number of
// trials and C[k] the number of correct (correctness) or preserved
// (preservation) answers; the observed proportion is C[k]/N[k].
type Bins struct {
	X []float64
	N []int
	C []int
}

// HumanBins is the human data of one (task, image distribution,
// transformation): the correctness-preservation bins (accuracy) and the
// prediction-preservation bins, which in the published data come from
// different sets of trials.
type HumanBins struct {
	Correctness  Bins
	Preservation Bins
}

// Stopping rules of Estimate (requirements-method.md §A.6).
const (
	// RuleScript is the published script as shipped: the label of the
	// second bin of the first pair of consecutive significant bins; if there
	// is none, the second-to-last bin's label.
	RuleScript = "script"
	// RuleIntended is what the script's step-back line meant to do: the
	// label of the bin just before the first bin of the first pair of
	// consecutive significant bins (0 when that pair starts at the first
	// bin); if there is no such pair, the second-to-last bin's label as in
	// the script.
	RuleIntended = "intended"
	// RuleFirst is the script's earlier version: the label of the first
	// significant bin; if there is none, the last bin's label.
	RuleFirst = "first"
)

// Rules lists the stopping rules Estimate accepts.
var Rules = []string{RuleScript, RuleIntended, RuleFirst}

// Human clean accuracies the study used as m0 (requirements-method.md §A.4).
const (
	ImageNetCleanAccuracy = 0.970
	CIFAR10CleanAccuracy  = 0.967
)

// MinTrialsPerBin: the study keeps only bins with more than this many
// trials; Estimate rejects data with smaller bins.
const MinTrialsPerBin = 10

// EstimateOptions configures Estimate.
type EstimateOptions struct {
	// Rule is the stopping rule: RuleScript (the default when empty),
	// RuleIntended or RuleFirst.
	Rule string
	// Weighted weights the smoothing spline by N[k]/min N (the script does
	// so for CIFAR-10, not for ImageNet).
	Weighted bool
	// P0 is the human clean accuracy m0 the correctness bins are tested
	// against (ImageNetCleanAccuracy, CIFAR10CleanAccuracy or measured).
	P0 float64
	// Alpha is the significance level of the per-bin tests; 0 means 0.05.
	Alpha float64
}

// ErrTooFew is wrapped by Estimate's errors for data with too few bins or
// too few trials per bin.
var ErrTooFew = errors.New("too few human trials")

// CurveEstimate is the audit trail of one threshold: the per-bin data, the
// spline fit, the tests and where the scan stopped.
type CurveEstimate struct {
	// P0 is the proportion the bins were tested against (m0 or s0).
	P0 float64 `json:"p0"`
	// Per bin: Δv label, trials, successes, observed proportion, fitted
	// proportion ŷ, its 83 % band, x′ = round(n·ŷ) (half to even) and the
	// two-sided binomial p-value of x′ out of n against P0.
	X        []float64 `json:"x"`
	N        []int     `json:"n"`
	C        []int     `json:"c"`
	Observed []float64 `json:"observed"`
	Fitted   []float64 `json:"fitted"`
	Lo83     []float64 `json:"lo83"`
	Hi83     []float64 `json:"hi83"`
	XPrime   []int     `json:"x_prime"`
	P        []float64 `json:"p"`
	// Spline fit: spar, λ, equivalent degrees of freedom and CV criterion.
	Spar   float64 `json:"spar"`
	Lambda float64 `json:"lambda"`
	DF     float64 `json:"df"`
	CV     float64 `json:"cv"`
	// Stop is the 0-based bin the rule returned (-1: before the first bin,
	// threshold 0), Fallback whether the rule's fallback was used.
	Stop      int     `json:"stop"`
	Fallback  bool    `json:"fallback"`
	Threshold float64 `json:"threshold"`
}

// EstimateDetails is Requirement.Details as Estimate fills it.
type EstimateDetails struct {
	Test         string         `json:"test"`
	Alpha        float64        `json:"alpha"`
	Weighted     bool           `json:"weighted"`
	Correctness  *CurveEstimate `json:"correctness"`
	Preservation *CurveEstimate `json:"preservation"`
}

// Estimate instantiates a reliability requirement from human data as the
// study's estimate_range.R does (requirements-method.md §A.2–A.6): for each
// curve a cubic smoothing spline with cross-validated smoothing
// (spline.FitSmooth, R's smooth.spline(x, y, w, cv = TRUE)), per bin
// x′ = round(n·ŷ) tested with R's two-sided binom.test against p0 (the
// clean accuracy opt.P0 for t_c, the pooled preservation of the
// lowest-Δv half for t_p), and the stopping rule opt.Rule. The returned
// Requirement has TC, TP, HumanAccuracy, HumanPreservation, Rule and
// Details (*EstimateDetails) set; the caller fills in the names.
func Estimate(h HumanBins, opt EstimateOptions) (*Requirement, error) {
	if opt.Rule == "" {
		opt.Rule = RuleScript
	}
	if opt.Rule != RuleScript && opt.Rule != RuleIntended && opt.Rule != RuleFirst {
		return nil, fmt.Errorf("unknown stopping rule %q (want %s, %s or %s)", opt.Rule, RuleScript, RuleIntended, RuleFirst)
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return nil, fmt.Errorf("significance level %v not in (0, 1)", opt.Alpha)
	}
	if !(opt.P0 > 0 && opt.P0 <= 1) {
		return nil, fmt.Errorf("human clean accuracy %v not in (0, 1]", opt.P0)
	}
	if err := checkBins(h.Correctness, "correctness"); err != nil {
		return nil, err
	}
	if err := checkBins(h.Preservation, "preservation"); err != nil {
		return nil, err
	}
	ce, err := estimateCurve(h.Correctness, opt.P0, opt)
	if err != nil {
		return nil, fmt.Errorf("correctness: %w", err)
	}
	s0 := pooledPreservation(h.Preservation)
	pe, err := estimateCurve(h.Preservation, s0, opt)
	if err != nil {
		return nil, fmt.Errorf("preservation: %w", err)
	}
	return &Requirement{
		TC:                ce.Threshold,
		TP:                pe.Threshold,
		HumanAccuracy:     opt.P0,
		HumanPreservation: s0,
		Rule:              opt.Rule,
		Details: &EstimateDetails{
			Test:         "two-sided exact binomial (R binom.test) of round(n·spline) against p0",
			Alpha:        opt.Alpha,
			Weighted:     opt.Weighted,
			Correctness:  ce,
			Preservation: pe,
		},
	}, nil
}

// checkBins validates one curve's bins.
func checkBins(b Bins, kind string) error {
	k := len(b.X)
	if len(b.N) != k || len(b.C) != k {
		return fmt.Errorf("%s bins: %d labels, %d counts, %d successes", kind, k, len(b.N), len(b.C))
	}
	if k < 4 {
		return fmt.Errorf("%w: %s data has %d Δv bins with more than %d trials; the smoothing spline needs at least 4",
			ErrTooFew, kind, k, MinTrialsPerBin)
	}
	for i := range k {
		if math.IsNaN(b.X[i]) || math.IsInf(b.X[i], 0) {
			return fmt.Errorf("%s bin %d: Δv label %v", kind, i+1, b.X[i])
		}
		if i > 0 && !(b.X[i] > b.X[i-1]) {
			return fmt.Errorf("%s bins: Δv labels not strictly ascending at bin %d (%v after %v)", kind, i+1, b.X[i], b.X[i-1])
		}
		if b.N[i] <= MinTrialsPerBin {
			return fmt.Errorf("%w: %s bin Δv = %v has %d trials; the test needs more than %d per bin",
				ErrTooFew, kind, b.X[i], b.N[i], MinTrialsPerBin)
		}
		if b.C[i] < 0 || b.C[i] > b.N[i] {
			return fmt.Errorf("%s bin Δv = %v: %d successes out of %d trials", kind, b.X[i], b.C[i], b.N[i])
		}
	}
	return nil
}

// pooledPreservation is s0 of §A.4: the pooled proportion over the
// lowest-Δv bins up to and including the first bin at which the
// cumulative count reaches ⌈N/2⌉.
func pooledPreservation(b Bins) float64 {
	total := 0
	for _, n := range b.N {
		total += n
	}
	left := int(math.Ceil(0.5 * float64(total)))
	cnt, pre := 0, 0
	for k := range b.N {
		left -= b.N[k]
		cnt += b.N[k]
		pre += b.C[k]
		if left <= 0 {
			break
		}
	}
	return float64(pre) / float64(cnt)
}

// estimateCurve fits, tests and scans one curve.
func estimateCurve(b Bins, p0 float64, opt EstimateOptions) (*CurveEstimate, error) {
	k := len(b.X)
	y := make([]float64, k)
	w := make([]float64, k)
	minN := b.N[0]
	for _, n := range b.N {
		minN = min(minN, n)
	}
	for i := range k {
		y[i] = float64(b.C[i]) / float64(b.N[i])
		w[i] = 1
		if opt.Weighted {
			w[i] = float64(b.N[i]) / float64(minN)
		}
	}
	fit, err := spline.FitSmooth(b.X, y, w, spline.SmoothOptions{Criterion: spline.CV})
	if err != nil {
		return nil, err
	}
	if len(fit.Fitted) != k {
		return nil, fmt.Errorf("spline grouped %d bins into %d distinct Δv values", k, len(fit.Fitted))
	}
	lo, hi := fit.Band(spline.Z83)
	ce := &CurveEstimate{P0: p0, X: append([]float64(nil), b.X...), N: append([]int(nil), b.N...),
		C: append([]int(nil), b.C...), Observed: y, Fitted: fit.Fitted, Lo83: lo, Hi83: hi,
		XPrime: make([]int, k), P: make([]float64, k),
		Spar: fit.Spar, Lambda: fit.Lambda, DF: fit.DF, CV: fit.Crit}
	for i := range k {
		v := float64(b.N[i]) * fit.Fitted[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("spline value at Δv = %v is %v", b.X[i], fit.Fitted[i])
		}
		xp := math.RoundToEven(v)
		if xp < 0 || xp > float64(b.N[i]) {
			// R's binom.test stops with an error here too.
			return nil, fmt.Errorf("spline value %.4g at Δv = %v gives %v of %d trials, outside [0, n]", fit.Fitted[i], b.X[i], xp, b.N[i])
		}
		ce.XPrime[i] = int(xp)
		if ce.P[i], err = stats.BinomTest(ce.XPrime[i], b.N[i], p0); err != nil {
			return nil, err
		}
	}
	ce.Stop, ce.Fallback = stopBin(ce.P, opt.Alpha, opt.Rule)
	if ce.Stop >= 0 {
		ce.Threshold = b.X[ce.Stop]
	}
	return ce, nil
}

// stopBin applies a stopping rule to the per-bin p-values and returns the
// 0-based bin whose label is the threshold (-1: threshold 0) and whether
// the fallback was used.
func stopBin(p []float64, alpha float64, rule string) (int, bool) {
	k := len(p)
	if rule == RuleFirst {
		for i, v := range p {
			if v < alpha {
				return i, false
			}
		}
		return k - 1, true
	}
	counter := 2
	for i, v := range p {
		if v < alpha {
			counter--
			if counter == 0 {
				if rule == RuleIntended {
					return i - 2, false
				}
				return i, false
			}
		} else {
			counter = 2
		}
	}
	return k - 2, true
}
