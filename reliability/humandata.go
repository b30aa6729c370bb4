package reliability

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/iqa"
)

// HumanData is human data ready for Estimate: per-bin data per
// transformation (catalogue names) with the defaults of its origin.
type HumanData struct {
	// Dataset, Task and VIFMethod are copied into every requirement.
	Dataset, Task, VIFMethod string
	// Source describes where the data come from.
	Source string
	// P0 is the default human clean accuracy m0 (NaN: unknown).
	P0 float64
	// Weighted is the default spline weighting (the study weighted its
	// CIFAR-10 data, n/min n).
	Weighted bool
	// Transformations lists the transformations in the data's order.
	Transformations []string
	// Bins and From hold, per transformation, the bins and where they came
	// from (a requirement's Source).
	Bins map[string]HumanBins
	From map[string]string
}

func (h *HumanData) add(t string, b HumanBins, from string) {
	if h.Bins == nil {
		h.Bins, h.From = map[string]HumanBins{}, map[string]string{}
	}
	h.Transformations = append(h.Transformations, t)
	h.Bins[t] = b
	h.From[t] = from
}

// studyDefaults returns the VIF flavour, m0 and weighting of the ICSE 2022
// study's data set "imagenet" or "cifar10" (requirements-method §A.2, A.4).
func studyDefaults(ds string) (vif string, p0 float64, weighted bool, ok bool) {
	switch ds {
	case "imagenet":
		return human.VIFVec, ImageNetCleanAccuracy, false, true
	case "cifar10":
		return human.VIFVec2Layers, CIFAR10CleanAccuracy, true, true
	}
	return "", 0, false, false
}

// catalogueName maps a transformation name to the corruption catalogue's
// (the study's "RGB" → "rgb_shift"), else to its lower-case form.
func catalogueName(name string) string {
	if c, err := corrupt.Lookup(name); err == nil {
		return c.Name
	}
	return strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(name))
}

// BuiltinHuman returns the built-in human dataset name (human.BuiltinNames)
// with the study's defaults: m0 0.970 and no weights for the ImageNet data,
// 0.967 and weights n/min n for CIFAR-10. Per-bin series keep their bins;
// per-trial series are binned by FromTrials.
func BuiltinHuman(name string) (*HumanData, error) {
	d, err := human.Builtin(name)
	if err != nil {
		return nil, err
	}
	ds := "imagenet"
	if strings.Contains(name, "cifar10") {
		ds = "cifar10"
	}
	vif, p0, weighted, _ := studyDefaults(ds)
	h := &HumanData{Dataset: name, Task: d.Task, VIFMethod: vif, Source: d.Source, P0: p0, Weighted: weighted}
	for _, s := range d.Series {
		if s.Binned != nil {
			h.add(s.Corruption, HumanBins{
				Correctness:  FromICSECounts(s.Binned.Accuracy),
				Preservation: FromICSECounts(s.Binned.Consistency)}, "builtin:"+name)
		} else {
			h.add(s.Corruption, FromTrials(s.Trials), "builtin:"+name+" (trials binned by 0.01)")
		}
	}
	return h, nil
}

// HumanFromTrials returns a trial dataset (human.ReadTrials or
// human.ReadICSETrials) binned by FromTrials; from (its file) names it in
// the requirements' Source. m0 is the first measured clean accuracy (NaN
// when no original was judged); the spline is weighted for the CIFAR-10
// flavour (vifvec2-layers), as the study did.
func HumanFromTrials(d *human.Dataset, from string) *HumanData {
	h := &HumanData{Dataset: d.Name, Task: d.Task, VIFMethod: d.VIFMethod, Source: from, P0: math.NaN()}
	if d.Source != "" {
		h.Source = d.Source
	}
	m, _ := CanonicalVIF(d.VIFMethod)
	h.Weighted = m == iqa.VIFVec2Layers
	for _, s := range d.Series {
		h.add(catalogueName(s.Corruption), FromTrials(s.Trials), from+" (trials binned by 0.01)")
		if math.IsNaN(h.P0) && !math.IsNaN(s.CleanAccuracy) {
			h.P0 = s.CleanAccuracy
		}
	}
	return h
}

// ReadICSEFolder reads a folder of the study's per-bin files,
// <ds>_c_p_<T>.csv and <ds>_p_p_<T>.csv with ds imagenet or cifar10
// (estimating/imagenet, estimating/cifar10, sixty_percent/…), with the
// study's defaults for ds. It returns an error naming the file when one of
// a pair is missing, when ds is unknown, or when the folder mixes data sets.
func ReadICSEFolder(dir string) (*HumanData, error) {
	var cps []string
	for _, kind := range []string{"_c_p_", "_p_p_"} {
		m, err := filepath.Glob(filepath.Join(dir, "*"+kind+"*.csv"))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			// Name every transformation by its correctness file, so that a
			// lone preservation file reports the missing correctness file.
			cp := filepath.Join(dir, strings.Replace(filepath.Base(f), "_p_p_", "_c_p_", 1))
			if !slices.Contains(cps, cp) {
				cps = append(cps, cp)
			}
		}
	}
	if len(cps) == 0 {
		return nil, fmt.Errorf("%s: no per-bin files <dataset>_c_p_<T>.csv / <dataset>_p_p_<T>.csv in the folder", dir)
	}
	slices.Sort(cps)
	h := &HumanData{Task: human.TaskCar, Source: dir}
	for _, cp := range cps {
		base := filepath.Base(cp)
		ds, tr, _ := strings.Cut(strings.TrimSuffix(base, ".csv"), "_c_p_")
		vif, p0, weighted, ok := studyDefaults(ds)
		if !ok {
			return nil, fmt.Errorf("%s: unknown data set %q (want imagenet_… or cifar10_…)", cp, ds)
		}
		if h.Dataset == "" {
			h.Dataset, h.VIFMethod, h.P0, h.Weighted = "icse2022-"+ds, vif, p0, weighted
		} else if h.Dataset != "icse2022-"+ds {
			return nil, fmt.Errorf("%s mixes data sets (%s and %s)", dir, h.Dataset, ds)
		}
		pp := filepath.Join(dir, ds+"_p_p_"+tr+".csv")
		var hb HumanBins
		for _, f := range []struct {
			path string
			dst  *Bins
		}{{cp, &hb.Correctness}, {pp, &hb.Preservation}} {
			r, err := os.Open(f.path)
			if err != nil {
				return nil, fmt.Errorf("transformation %s: %w", tr, err)
			}
			c, err := human.ReadICSEBins(r, f.path)
			r.Close()
			if err != nil {
				return nil, err
			}
			*f.dst = FromICSECounts(c)
		}
		h.add(catalogueName(tr), hb, filepath.Join(dir, base)+", "+filepath.Join(dir, filepath.Base(pp)))
	}
	return h, nil
}

// ErrUnknownTransformation is returned (wrapped) by HumanData.Estimate for
// a transformation the data do not hold.
var ErrUnknownTransformation = errors.New("unknown transformation")

// Estimate instantiates the requirements of the named transformation
// (catalogue or published name, e.g. "RGB"), or of every transformation
// for "all", and returns them as a File (NewFile). opt.P0 = 0 takes h.P0;
// opt.Weighted is used as given (set it from h.Weighted for the study's
// weighting). A name the data do not hold is an error wrapping
// ErrUnknownTransformation that lists the data's transformations.
func (h *HumanData) Estimate(ctx context.Context, transformation string, opt EstimateOptions) (*File, error) {
	trs := h.Transformations
	if transformation != "all" {
		t := catalogueName(transformation)
		if _, ok := h.Bins[t]; !ok {
			hint := ""
			if _, err := corrupt.Lookup(transformation); err != nil {
				hint = "; catalogue: " + err.Error()
			}
			return nil, fmt.Errorf("%w: the human data %s have no transformation %q (they have %s)%s",
				ErrUnknownTransformation, h.Dataset, t, strings.Join(h.Transformations, ", "), hint)
		}
		trs = []string{t}
	}
	if opt.P0 == 0 {
		opt.P0 = h.P0
	}
	if !(opt.P0 > 0 && opt.P0 <= 1) {
		return nil, fmt.Errorf("the human clean accuracy m0 of %s is unknown (no judged originals)", h.Dataset)
	}
	f := NewFile(nil)
	for _, t := range trs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := Estimate(h.Bins[t], opt)
		if err != nil {
			return nil, fmt.Errorf("transformation %s (%s): %w", t, h.From[t], err)
		}
		r.Transformation, r.Task, r.Dataset, r.VIFMethod, r.Source = t, h.Task, h.Dataset, h.VIFMethod, h.From[t]
		f.Requirements = append(f.Requirements, *r)
	}
	return f, nil
}
