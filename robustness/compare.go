package robustness

import (
	"fmt"
	"math"
	"sort"

	"github.com/vcr-bench/vcr/spline"

	"github.com/vcr-bench/vcr/stats"
)

// CompareOptions configures Compare.
type CompareOptions struct {
	// AllowVIFMismatch compares series with different VIF flavours anyway
	// and records a warning wrapping ErrVIFMismatch instead of failing.
	AllowVIFMismatch bool
	// AllowCorruptionMismatch compares a model with human data of another
	// corruption (e.g. a visually similar one) and records a warning.
	AllowCorruptionMismatch bool
}

// Metrics are the human-aware metrics for one property (accuracy or
// consistency), each with the paired bootstrap's percentile intervals.
type Metrics struct {
	AH, AM   Interval // A(h) = ∫ s_h, A(m) = ∫ s_m
	AHM, AMH Interval // A(h>m) = ∫ max(0, s_h − s_m), A(m>h) = ∫ max(0, s_m − s_h)
	HMRI     Interval // 1 − A(h>m)/A(h) ∈ [0, 1]
	MRSI     Interval // A(m>h)/A(m) ∈ [0, 1)
}

// Comparison is a model compared with humans on one corruption.
type Comparison struct {
	Model, Corruption, HumanCorruption string
	Accuracy, Consistency              Metrics
	Warnings                           []error
}

// Compare computes HMRI and MRSI of model against human for accuracy and
// consistency. Intervals pair model replicate b with human replicate b (the
// two are resampled independently); they are NaN when either estimate has
// no bootstrap. It returns ErrVIFMismatch or ErrCorruptionMismatch (wrapped)
// unless the matching option allows it.
func Compare(model, human *Estimate, opt CompareOptions) (*Comparison, error) {
	c := &Comparison{Model: model.Subject, Corruption: model.Corruption, HumanCorruption: human.Corruption}
	if model.VIFMethod != human.VIFMethod {
		err := fmt.Errorf("%w: %s/%s uses %q, %s/%s uses %q", ErrVIFMismatch,
			model.Subject, model.Corruption, model.VIFMethod, human.Subject, human.Corruption, human.VIFMethod)
		if !opt.AllowVIFMismatch {
			return nil, err
		}
		c.Warnings = append(c.Warnings, err)
	}
	if model.Corruption != human.Corruption {
		err := fmt.Errorf("%w: model %s is on %q, human data on %q", ErrCorruptionMismatch,
			model.Subject, model.Corruption, human.Corruption)
		if !opt.AllowCorruptionMismatch {
			return nil, err
		}
		c.Warnings = append(c.Warnings, err)
	}
	c.Accuracy = compareCurves(&model.Accuracy, &human.Accuracy)
	c.Consistency = compareCurves(&model.Consistency, &human.Consistency)
	return c, nil
}

// areas returns A(h), A(m), A(h>m), A(m>h), HMRI, MRSI for one pair of fits.
func areas(m, h *spline.Monotone) [6]float64 {
	ah, am := h.Integral(0, 1), m.Integral(0, 1)
	ahm := PositiveArea(h, m)
	amh := PositiveArea(m, h)
	return [6]float64{ah, am, ahm, amh, 1 - ratio(ahm, ah), ratio(amh, am)}
}

// ratio is a/b with 0/0 = 0 (an all-zero curve has nothing to exceed).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func compareCurves(m, h *Curve) Metrics {
	v := areas(m.Fit, h.Fit)
	var out [6]Interval
	for i := range out {
		out[i] = Interval{Value: v[i], Lo83: math.NaN(), Hi83: math.NaN(), Lo95: math.NaN(), Hi95: math.NaN()}
	}
	nb := min(len(m.reps), len(h.reps))
	if nb > 0 {
		reps := make([][]float64, 6)
		for b := range nb {
			if m.reps[b] == nil || h.reps[b] == nil {
				continue
			}
			r := areas(m.reps[b], h.reps[b])
			for i := range r {
				reps[i] = append(reps[i], r[i])
			}
		}
		for i := range out {
			out[i].setCI(reps[i])
		}
	}
	return Metrics{AH: out[0], AM: out[1], AHM: out[2], AMH: out[3], HMRI: out[4], MRSI: out[5]}
}

// setCI sets the percentile intervals from replicate values (sorted in place).
func (iv *Interval) setCI(r []float64) {
	sort.Float64s(r)
	iv.Lo83, iv.Hi83 = stats.Quantile(r, 0.085), stats.Quantile(r, 0.915)
	iv.Lo95, iv.Hi95 = stats.Quantile(r, 0.025), stats.Quantile(r, 0.975)
}
