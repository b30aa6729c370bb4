// This file implements vcr requirements check: a model against reliability
// requirements (package reliability), with a table, JSON and JUnit XML.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/reliability"
)

const requirementsCheckUsage = `
Usage: vcr requirements check --requirements REQ.json --images DIR (--model MODEL.onnx | --server URL --model-name NAME) [flags]

Checks a model against reliability requirements (Hu et al., ICSE 2022; see
docs/requirements-check.md). For each requirement (transformation, t_c,
t_p): draw --batches batches of --batch-size images with replacement from
--images, transform each with parameters drawn uniformly from the
corruption's domain, redrawn until Δv ≤ t_c (correctness) or Δv ≤ t_p
(preservation) — at most --max-attempts draws per image, failures are
reported — and run the model on the originals and the transformed images.
Per batch: m0 (accuracy on the originals), m_tc, s0 (prediction agreement
of the pairs with Δv ≤ ε, ε the --quantile of all preservation Δv) and s_tp.
A requirement holds iff Δ + z·σ ≤ 0 for both Δm = m0 − m_tc and
Δs = s0 − s_tp (σ = √(σ²_base + σ²_transformed), the batch spread; z for
one-sided --alpha). --repro-tolerance > 0 reruns with seed+1 and warns when
Δ differs by more.

The model runs through the same backends as 'vcr eval': ONNX Runtime
(--model) or an Open Inference Protocol server (--server). A predictions
file is not enough: the transformed images are generated during the check.
--labels-map maps the model's outputs to the task (e.g. imagenet-car for the
study's car / not-car task); the images' labels are mapped the same way and
images outside the task are left out.

Exit status: 0 when every requirement holds, 1 when any is violated, 2 on
an error (usage, data, model).

Examples:
  vcr requirements check --requirements frost.json --images val --labels LOC_val_solution.csv \
      --model resnet50.onnx --preset imagenet --labels-map imagenet-car --junit out.xml
  vcr requirements check --requirements req.json --images cifar10 --server http://triton:8000 \
      --model-name resnet --preset cifar --labels-map cifar10-car --json out.json
`

// runRequirementsCheck is "vcr requirements check".
func runRequirementsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := requirementsCheck(ctx, args, stdout, stderr)
	var ue usageError
	var ee exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.As(err, &ue), errors.As(err, &ee):
		return err
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return err
	}
	// Data and model errors exit 2, leaving 1 to "violated".
	return exitError{code: exitUsage, err: err}
}

func requirementsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("requirements check", requirementsCheckUsage, stderr)
	var f evalFlags
	addModelFlags(fs, &f, "labels-map")
	reqPath := fs.String("requirements", "", "requirements `file` (JSON) written by vcr requirements estimate (required)")
	only := fs.String("transformation", "", "check only these `names` (comma-separated)")
	images := fs.String("images", "", "dataset `path` of the original images: folder, ImageNet validation folder, CIFAR batches or list CSV (required)")
	kind := fs.String("kind", "auto", "dataset `kind`: "+strings.Join(dataset.Kinds, ", "))
	labels := fs.String("labels", "", "ImageNet validation labels `file` for --images")
	synsets := fs.String("synsets", "", "class list `file` for an ImageNet validation folder or list CSV")
	split := fs.String("split", "", "CIFAR `split`: test (default) or train")
	maxPixels := fs.Int("max-pixels", 0, "decoder pixel `limit` (0: default, negative: none)")
	batches := fs.Int("batches", reliability.DefaultBatches, "bootstrap batches `n`")
	batchSize := fs.Int("batch-size", reliability.DefaultBatchSize, "images per batch `k`")
	quantile := fs.Float64("quantile", reliability.DefaultQuantile, "ε is this lower `q`uantile of the preservation draws' Δv")
	alpha := fs.Float64("alpha", reliability.DefaultAlpha, "one-sided significance `level`")
	seed := fs.Uint64("seed", 1, "master `seed`")
	attempts := fs.Int("max-attempts", reliability.DefaultMaxAttempts, "parameter draws per image before giving up on it")
	reproTol := fs.Float64("repro-tolerance", 0.02, "rerun with seed+1 and warn when Δm or Δs differ by more than this (0: no rerun)")
	vif := fs.String("vif", "", "VIF `method` (default: the requirement's; another one is refused unless --force-vif)")
	forceVIF := fs.Bool("force-vif", false, "accept a --vif other than the requirement's")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "images transformed and scored in parallel")
	junit := fs.String("junit", "", "write JUnit XML to `file` (one test case per requirement)")
	jsonOut := fs.String("json", "", "write the verdicts as JSON to `file`")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected argument %q", pos[0])
	case *reqPath == "":
		return usagef("--requirements is required")
	case *images == "":
		return usagef("--images is required: the folder of original images")
	case f.server != "" && f.modelName == "" && f.modelPath != "":
		f.modelName, f.modelPath = f.modelPath, ""
	}
	switch {
	case f.modelPath == "" && f.server == "":
		return usagef("give the model: --model FILE.onnx or --server URL --model-name NAME (a predictions file is not enough: images are generated during the check)")
	case f.modelPath != "" && f.server != "":
		return usagef("give one of --model and --server")
	case f.server != "" && f.modelName == "":
		return usagef("--server needs --model-name")
	case f.batch < 1 || *workers < 1 || f.concurrency < 1 || *batches < 2 || *batchSize < 1 || *attempts < 1:
		return usagef("--batch, --workers, --concurrency, --batch-size and --max-attempts must be at least 1, --batches at least 2")
	case f.layout != "" && f.layout != string(model.NCHW) && f.layout != string(model.NHWC):
		return usagef("--layout must be NCHW or NHWC (got %q)", f.layout)
	case !(*quantile > 0 && *quantile <= 1):
		return usagef("--quantile must be in (0, 1]")
	case !(*alpha > 0 && *alpha < 0.5):
		return usagef("--alpha must be in (0, 0.5)")
	case *reproTol < 0:
		return usagef("--repro-tolerance must not be negative")
	}
	var method iqa.Method
	if *vif != "" {
		if method, err = iqa.ParseMethod(*vif); err != nil {
			return usagef("--vif: %v", err)
		}
	}

	reqs, err := readRequirements(*reqPath)
	if err != nil {
		return fmt.Errorf("--requirements: %w", err)
	}
	if *only != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var sel []reliability.Requirement
		for _, r := range reqs {
			if keep[r.Transformation] {
				sel = append(sel, r)
				delete(keep, r.Transformation)
			}
		}
		for n := range keep {
			return usagef("--transformation: %s has no requirement for %q", *reqPath, n)
		}
		reqs = sel
	}
	ds, err := dataset.Open(dataset.Spec{Kind: *kind, Path: *images, Labels: *labels, Synsets: *synsets, Split: *split, MaxPixels: *maxPixels})
	if err != nil {
		return fmt.Errorf("--images: %w", err)
	}
	em, err := openEvalModel(ctx, &f, stderr)
	if err != nil {
		return err
	}
	defer em.classifier.Close()
	mp, _ := em.mapper.(model.Mapping)
	truth := func(it dataset.Item) (int, error) {
		if it.Label < 0 && it.LabelName == "" {
			return -1, fmt.Errorf("%w: unlabelled (give --labels or a labelled folder)", model.ErrOutsideTask)
		}
		if mp == nil {
			// A model with its own classes and no mapping (the built-in
			// demonstration model): labels are matched by class name.
			if i := slices.Index(em.classes, it.LabelName); i >= 0 {
				return i, nil
			}
			return -1, fmt.Errorf("%w: class %q is not one of the model's classes %s", model.ErrOutsideTask, it.LabelName, strings.Join(em.classes, ", "))
		}
		return model.LabelToTask(mp, it.Label, it.LabelName)
	}
	fmt.Fprintf(stderr, "vcr requirements check: %s; %d images from %s\n", em.describe, ds.Len(), *images)

	var verdicts []*reliability.Verdict
	start := time.Now()
	for _, r := range reqs {
		opt := reliability.CheckOptions{
			Images: ds, Classifier: em.classifier, Preprocess: em.preprocess, Mapping: em.mapper, Truth: truth,
			Batches: *batches, BatchSize: *batchSize, Quantile: *quantile, Alpha: *alpha, Seed: *seed,
			MaxAttempts: *attempts, VIFMethod: method, OverrideVIF: *forceVIF, ReproTolerance: *reproTol,
			Workers: *workers, ModelBatch: f.batch,
		}
		if !*quiet {
			name, step := r.Transformation, 0
			opt.Progress = func(done, total int) {
				if p := done * 10 / total; p > step || done == total {
					step = p
					fmt.Fprintf(stderr, "  %s: %d/%d batches (%s)\n", name, done, total, time.Since(start).Round(time.Second))
				}
			}
		}
		v, err := reliability.Check(ctx, r, opt)
		if err != nil {
			return err
		}
		if !*quiet {
			tm := v.Timing
			fmt.Fprintf(stderr, "  %s: %.1fs wall; summed over workers: VIF %.1fs, corruption %.1fs, loading %.1fs, preprocessing %.1fs; model calls %.1fs; %d draws (VIF computations) for %d+%d accepted images\n",
				r.Transformation, tm.Wall, tm.VIF, tm.Corrupt, tm.Load, tm.Preprocess, tm.Model,
				v.Draws, v.Correctness.Images, v.Preservation.Images)
		}
		for _, w := range v.Warnings {
			fmt.Fprintf(stderr, "vcr requirements check: %s: warning: %s\n", r.Transformation, w)
		}
		verdicts = append(verdicts, v)
	}
	elapsed := time.Since(start)
	writeVerdictTable(stdout, verdicts)
	if *jsonOut != "" {
		b, err := json.MarshalIndent(checkReport{Model: em.describe, Images: *images, Seconds: elapsed.Seconds(), Verdicts: verdicts}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	if *junit != "" {
		b, err := junitXML(verdicts, elapsed)
		if err != nil {
			return err
		}
		if err := os.WriteFile(*junit, b, 0o644); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	bad := 0
	for _, v := range verdicts {
		if !v.Satisfied {
			bad++
		}
	}
	if bad > 0 {
		return exitError{code: exitFailure, err: fmt.Errorf("%d of %d requirements violated", bad, len(verdicts))}
	}
	return nil
}

// checkReport is the --json file.
type checkReport struct {
	Model    string                 `json:"model"`
	Images   string                 `json:"images"`
	Seconds  float64                `json:"seconds"`
	Verdicts []*reliability.Verdict `json:"verdicts"`
}

// readRequirements reads a requirements file: {"version", "requirements":
// [...]}, or a single requirement object.
func readRequirements(path string) ([]reliability.Requirement, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w (want a JSON requirements file)", path, err)
	}
	var reqs []reliability.Requirement
	if _, ok := probe["requirements"]; ok {
		var f reliability.File
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		reqs = f.Requirements
	} else if _, ok := probe["transformation"]; ok {
		var r reliability.Requirement
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		reqs = []reliability.Requirement{r}
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%s holds no requirements", path)
	}
	for i, r := range reqs {
		if r.Transformation == "" {
			return nil, fmt.Errorf("%s: requirement %d names no transformation", path, i+1)
		}
	}
	return reqs, nil
}

// writeVerdictTable prints one row per requirement and distance.
func writeVerdictTable(w io.Writer, vs []*reliability.Verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REQUIREMENT\tTHRESHOLD\tBASELINE\tTRANSFORMED\tMEAN Δ\tσ\tBOUND\tVERDICT\t")
	for _, v := range vs {
		for _, d := range []reliability.Distance{v.Correctness, v.Preservation} {
			sym := "t_c"
			if d.Kind == "preservation" {
				sym = "t_p"
			}
			fmt.Fprintf(tw, "%s %s\t%s=%.3f\t%.4f\t%.4f\t%+.4f\t%.4f\t%+.4f\t%s\t\n", v.Requirement.Transformation, d.Kind, sym, d.Threshold,
				d.Baseline, d.Transformed, d.Delta, d.Sigma, d.Bound, verdictWord(d.Satisfied))
		}
	}
	tw.Flush()
}

func verdictWord(ok bool) string {
	if ok {
		return "satisfied"
	}
	return "VIOLATED"
}

// JUnit XML, the subset CI systems read (Jenkins, GitLab, GitHub actions).
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string          `xml:"name,attr"`
	ClassName string          `xml:"classname,attr"`
	Time      string          `xml:"time,attr"`
	Props     []junitProperty `xml:"properties>property,omitempty"`
	Failure   *junitFailure   `xml:"failure,omitempty"`
	SystemOut string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func junitXML(vs []*reliability.Verdict, elapsed time.Duration) ([]byte, error) {
	s := junitSuite{Name: "vcr requirements", Tests: len(vs), Time: fmt.Sprintf("%.3f", elapsed.Seconds())}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, v := range vs {
		r := v.Requirement
		class := "vcr.requirements"
		if r.Dataset != "" {
			class += "." + r.Dataset
		}
		c := junitCase{Name: r.Transformation, ClassName: class, Time: fmt.Sprintf("%.3f", v.Timing.Wall)}
		c.Props = []junitProperty{
			{"vif_method", string(v.VIFMethod)}, {"batches", strconv.Itoa(v.Batches)}, {"batch_size", strconv.Itoa(v.BatchSize)},
			{"seed", strconv.FormatUint(v.Seed, 10)}, {"alpha", g(v.Alpha)}, {"z", g(v.Z)}, {"epsilon", g(v.Epsilon)},
		}
		var lines []string
		var bad []string
		for _, d := range []reliability.Distance{v.Correctness, v.Preservation} {
			p, t := "m", "t_c"
			if d.Kind == "preservation" {
				p, t = "s", "t_p"
			}
			c.Props = append(c.Props,
				junitProperty{t, g(d.Threshold)},
				junitProperty{p + "0", g(d.Baseline)}, junitProperty{p + "_t", g(d.Transformed)},
				junitProperty{"delta_" + p, g(d.Delta)}, junitProperty{"sigma_" + p, g(d.Sigma)},
				junitProperty{"bound_" + p, g(d.Bound)}, junitProperty{d.Kind + "_satisfied", strconv.FormatBool(d.Satisfied)},
				junitProperty{d.Kind + "_attempts", strconv.Itoa(d.Attempts)})
			line := fmt.Sprintf("%s (threshold %g): Δ%s = %.4f, σ = %.4f, Δ + %.4f·σ = %+.4f: %s", d.Kind, d.Threshold, p, d.Delta, d.Sigma, v.Z, d.Bound, verdictWord(d.Satisfied))
			lines = append(lines, line)
			if !d.Satisfied {
				bad = append(bad, line)
			}
		}
		lines = append(lines, v.Warnings...)
		c.SystemOut = strings.Join(lines, "\n")
		if len(bad) > 0 {
			s.Failures++
			c.Failure = &junitFailure{Message: fmt.Sprintf("%s requirement violated", r.Transformation), Type: "violated", Text: strings.Join(bad, "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}
