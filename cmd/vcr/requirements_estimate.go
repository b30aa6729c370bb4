package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/plot"
	"github.com/vcr-bench/vcr/reliability"
)

const requirementsEstimateUsage = `
Usage: vcr requirements estimate --human DATA --transformation NAME --out REQ.json
                                 [--rule script|intended|first] [--p0 X] [--plot REQ.svg]

Instantiates reliability requirements from human data as the ICSE 2022
study's estimate_range.R does (docs/requirements.md): per transformation,
0.01-wide Δv bins labelled by their upper edge, a cubic smoothing spline
with leave-one-out cross-validated smoothing (R's smooth.spline, cv = TRUE),
per bin x′ = round(n·spline) tested with R's two-sided binom.test against
the human clean accuracy m0 (t_c) or the pooled preservation s0 of the
lowest-Δv half of the trials (t_p), and a stopping rule:

  script    (default) the published script as shipped: the label of the
            second bin of the first two consecutive significant bins
            (p < --alpha); none: the second-to-last bin
  intended  what the script's step-back line meant: the label of the bin
            just before that pair (0 if the pair starts at the first bin);
            none: the second-to-last bin
  first     the script's earlier version: the first significant bin;
            none: the last bin

The default reproduces the published R script (estimate_range.R) as
shipped, not the thresholds printed in the paper's Table 1. --rule first,
the script's earlier version, is the rule the paper's CIFAR-10 thresholds
are reported to come from; vcr holds no copy of that table, so this is not
verified here (docs/requirements.md).

--human is one of
  - a folder of the study's per-bin files (estimating/imagenet,
    estimating/cifar10, sixty_percent/sixty_percent_1, …), named
    <dataset>_c_p_<T>.csv and <dataset>_p_p_<T>.csv with dataset imagenet
    or cifar10;
  - a built-in dataset, optionally prefixed with "builtin:": BUILTINS;
  - the project's human trial CSV (docs/human-data.md), or an ICSE 2022
    per-trial CSV (with --human-vif-method), binned here.
Published names map to the catalogue's (RGB → rgb_shift, Color_jitter →
color_jitter). --transformation all estimates every transformation of the
data into one file.

Defaults as the study: m0 = 0.970 for the ImageNet data, 0.967 for CIFAR-10,
the measured clean accuracy for trial files (--p0 overrides); spline weights
n/min n for CIFAR-10 data, none otherwise (--weights overrides).

--out and --plot are checked, and missing folders created, before the
estimation. --plot writes, per transformation, the fitted human curves with their 83 %
bands, the observed proportions and the thresholds (SVG, or PNG when the
name ends in .png); with several transformations the name gets _<T> before
its extension.

Example:
  vcr requirements estimate --human builtin:icse2022-imagenet --transformation frost --out req.json --plot req.svg
`

// loadEstimateHuman loads --human: a built-in dataset (builtin:NAME or a
// bare built-in name), a folder of the study's per-bin files, or a trial
// file (icseVIF names the flavour of an ICSE per-trial file).
func loadEstimateHuman(spec, icseVIF string) (*reliability.HumanData, error) {
	name := strings.TrimPrefix(spec, "builtin:")
	if strings.HasPrefix(spec, "builtin:") || slices.Contains(human.BuiltinNames(), name) {
		h, err := reliability.BuiltinHuman(name)
		if err != nil {
			return nil, usagef("--human %s: %v", spec, err)
		}
		return h, nil
	}
	st, err := os.Stat(spec)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usagef("--human %s: no such file or folder, and not a built-in dataset (built-in: %s)", spec, strings.Join(human.BuiltinNames(), ", "))
		}
		return nil, err
	}
	if st.IsDir() {
		h, err := reliability.ReadICSEFolder(spec)
		if err != nil {
			return nil, fmt.Errorf("--human %w", err)
		}
		return h, nil
	}
	d, err := loadHuman(spec, icseVIF)
	if err != nil {
		return nil, err
	}
	return reliability.HumanFromTrials(d, spec), nil
}

func runRequirementsEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("requirements estimate", strings.Replace(requirementsEstimateUsage, "BUILTINS", strings.Join(human.BuiltinNames(), ", "), 1), stderr)
	humanSpec := fs.String("human", "", "human data: a per-bin `folder`, a built-in dataset (builtin:NAME or NAME) or a trial file")
	trName := fs.String("transformation", "", "transformation `NAME` (catalogue or published name), or all")
	out := fs.String("out", "", "requirements `file` to write (JSON)")
	rule := fs.String("rule", reliability.RuleScript, "stopping `rule`: script, intended or first")
	p0Flag := fs.String("p0", "", "human clean accuracy m0 in (0, 1] (default: the study's constant, or measured)")
	weights := fs.String("weights", "auto", "spline weights: auto (n/min n for CIFAR-10 data), none or count")
	alpha := fs.Float64("alpha", 0.05, "significance level of the per-bin tests")
	plotPath := fs.String("plot", "", "plot `file` (.svg or .png) of the human curves and thresholds")
	humanVIF := fs.String("human-vif-method", "", "VIF `flavour` of an ICSE 2022 per-trial --human file (which does not record it)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *humanSpec == "":
		return usagef("--human is required, e.g. --human builtin:icse2022-imagenet")
	case *trName == "":
		return usagef("--transformation is required, e.g. --transformation frost (or all)")
	case *out == "":
		return usagef("--out is required, e.g. --out req.json")
	case !slices.Contains(reliability.Rules, *rule):
		return usagef("--rule %q: want script, intended or first", *rule)
	case !(*alpha > 0 && *alpha < 1):
		return usagef("--alpha must be in (0, 1) (got %v)", *alpha)
	case *weights != "auto" && *weights != "none" && *weights != "count":
		return usagef("--weights %q: want auto, none or count", *weights)
	case *plotPath != "" && !slices.Contains([]string{".svg", ".png"}, strings.ToLower(filepath.Ext(*plotPath))):
		return usagef("--plot %s: want a file name ending in .svg or .png", *plotPath)
	}
	if *humanVIF != "" {
		if _, err := iqa.ParseMethod(*humanVIF); err != nil {
			return usagef("--human-vif-method: %v", err)
		}
	}
	var p0 float64 // 0: the data's default
	if *p0Flag != "" {
		v, err := strconv.ParseFloat(*p0Flag, 64)
		if err != nil || !(v > 0 && v <= 1) {
			return usagef("--p0 must be a number in (0, 1] (got %q)", *p0Flag)
		}
		p0 = v
	}
	if err := checkOutFiles([2]string{"--out", *out}, [2]string{"--plot", *plotPath}); err != nil {
		return err
	}
	if err := checkNotForeign("--out", *out, "a requirements file", isRequirementsFile); err != nil {
		return err
	}
	h, err := loadEstimateHuman(*humanSpec, *humanVIF)
	if err != nil {
		return err
	}
	opt := reliability.EstimateOptions{Rule: *rule, Weighted: h.Weighted, Alpha: *alpha, P0: p0}
	if p0 == 0 && !(h.P0 > 0 && h.P0 <= 1) {
		return usagef("the human clean accuracy of %s is unknown (no judged originals); give it with --p0", *humanSpec)
	}
	if *weights != "auto" {
		opt.Weighted = *weights == "count"
	}
	file, err := h.Estimate(ctx, *trName, opt)
	if errors.Is(err, reliability.ErrUnknownTransformation) {
		return usagef("--transformation %s: %v", *trName, err)
	}
	if err != nil {
		return err
	}
	if err := atomicfile.Write(*out, file.Write); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if *plotPath != "" {
		var plots []string
		for _, r := range file.Requirements {
			p := *plotPath
			if len(file.Requirements) > 1 {
				ext := filepath.Ext(p)
				p = strings.TrimSuffix(p, ext) + "_" + r.Transformation + ext
			}
			if err := writeRequirementPlot(p, r); err != nil {
				return fmt.Errorf("--plot: %w", err)
			}
			plots = append(plots, p)
		}
		if len(plots) > 1 {
			// The files are not named --plot itself: say where they went.
			fmt.Fprintf(stderr, "vcr requirements estimate: --plot: %d plots, one per transformation: %s\n", len(plots), strings.Join(plots, ", "))
		}
	}
	fmt.Fprintf(stdout, "%-18s %6s %6s %7s %7s  rule %s, data %s (%s)\n", "transformation", "t_c", "t_p", "m0", "s0", *rule, h.Dataset, h.VIFMethod)
	for _, r := range file.Requirements {
		fmt.Fprintf(stdout, "%-18s %6.2f %6.2f %7.4f %7.4f\n", r.Transformation, r.TC, r.TP, r.HumanAccuracy, r.HumanPreservation)
	}
	return nil
}

// requirementChart draws one requirement's human curves, bands, observed
// proportions and thresholds.
func requirementChart(r reliability.Requirement) plot.Chart {
	det := r.Details.(*reliability.EstimateDetails)
	ch := plot.Chart{Title: fmt.Sprintf("%s (%s): t_c = %.2f, t_p = %.2f (rule %s)", r.Transformation, r.Dataset, r.TC, r.TP, r.Rule),
		XLabel: "Δv (" + r.VIFMethod + ")", YLabel: "human proportion", YMin: 0, YMax: 1.05}
	xmax, ymin := 0.0, 1.0
	for _, c := range []struct {
		name string
		ce   *reliability.CurveEstimate
	}{{"accuracy (correctness)", det.Correctness}, {"preservation", det.Preservation}} {
		cv := plot.Curve{Name: c.name, X: c.ce.X, Y: c.ce.Fitted, Lo83: c.ce.Lo83, Hi83: c.ce.Hi83}
		for k := range c.ce.X {
			cv.Points = append(cv.Points, plot.Point{X: c.ce.X[k], Y: c.ce.Observed[k], N: c.ce.N[k]})
			ymin = min(ymin, c.ce.Observed[k], c.ce.Lo83[k])
		}
		xmax = max(xmax, c.ce.X[len(c.ce.X)-1])
		ch.Curves = append(ch.Curves, cv)
	}
	for _, l := range []struct {
		name string
		t    float64
	}{{"t_c", r.TC}, {"t_p", r.TP}} {
		ch.Curves = append(ch.Curves, plot.Curve{Name: fmt.Sprintf("%s = %.2f", l.name, l.t), X: []float64{l.t, l.t + 1e-9}, Y: []float64{0, 1.05}, Group: l.name})
	}
	ch.XMin, ch.XMax = 0, math.Min(1, xmax+0.02)
	ch.YMin = math.Max(0, math.Floor(ymin*10)/10-0.05)
	return ch
}

func writeRequirementPlot(path string, r reliability.Requirement) error {
	ch := requirementChart(r)
	return atomicfile.Write(path, func(w io.Writer) error {
		if strings.EqualFold(filepath.Ext(path), ".png") {
			return plot.CurvesPNG(w, ch, 900, 560)
		}
		return plot.CurvesSVG(w, ch)
	})
}

// isRequirementsFile reports whether head begins a requirements file: one
// with the "tool" field of vcr requirements estimate, or an older one
// without it (a "requirements" array with "t_c").
func isRequirementsFile(head []byte) bool {
	return jsonOfTool("vcr requirements estimate")(head) ||
		bytes.Contains(head, []byte(`"requirements"`)) && bytes.Contains(head, []byte(`"t_c"`))
}
