package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/analysis"
	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/demo"
	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/reliability"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/results"
	"github.com/vcr-bench/vcr/testset"
)

func init() {
	addCommand(&command{name: "demo", summary: "run the whole benchmark on built-in data and a demonstration model (no downloads)", run: runDemo})
}

const demoUsage = `
Usage: vcr demo --out DIR [--n 800] [--n-images 400] [--size 96] [--sampling targeted] [--quick]

Runs the whole benchmark in one command, on data and a model built into vcr:

  1. DIR/images     a generated, labelled image set (package demo): four
                    classes by the shape of a dominant object (disc, square,
                    triangle, stripes) over natural-looking 1/f backgrounds
  2. DIR/testset    vcr generate: --n draws for each of frost, brightness,
                    contrast, gaussian_noise, defocus_blur, jpeg_compression
                    over their whole parameter domains, with Δv measured by
                    the vifvec VIF (the flavour of the human data); by
                    default with --sampling targeted, which spreads Δv
                    evenly over [0, 1] (uniform parameters, the VCR study's
                    sampling, put most gaussian_noise draws near Δv = 1)
  3. DIR/eval       vcr eval with --model builtin:demo, a small pure-Go
                    demonstration model (edge-orientation features and a
                    linear softmax layer)
  4. DIR/analysis   vcr analyze against the built-in human data of Hu et al.
                    (ICSE 2022, icse2022-imagenet) for the same corruptions

What is compared: the demo model's accuracy and prediction consistency
against Δv, next to the human curves of the same corruption on the same Δv
axis (both use vifvec). The tasks differ: the humans judged car / not car on
ImageNet images, the demo model tells shapes apart. The comparison shows
the method working end to end; its HMRI and MRSI say nothing about how a
real model compares with humans. Use vcr generate, eval and analyze on your
own data and model for that.

--quick runs a reduced size (for tests). Each step is the same code as the
command of that name; DIR/demo.log holds each step's command line (to
repeat it by hand) and its output.
`

// demoCorruptions are corruptions of the ICSE 2022 ImageNet human data.
var demoCorruptions = []string{"frost", "brightness", "contrast", "gaussian_noise", "defocus_blur", "jpeg_compression"}

// demoHuman is the built-in human data the demo compares with.
const demoHuman = "icse2022-imagenet"

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", demoUsage, stderr)
	out := fs.String("out", "", "output `folder` (required; must be empty or absent)")
	n := fs.Int("n", 800, "draws per corruption (`N`)")
	nImages := fs.Int("n-images", 400, "number of generated source `images` (a count; elsewhere --images is a dataset path)")
	size := fs.Int("size", 96, "side of the generated images in `pixels`")
	seed := fs.Uint64("seed", 2, "`seed` of the generated images (the demo model was fitted on seed 1)")
	boot := fs.Int("bootstrap", 200, "bootstrap replicates of the analysis")
	bins := fs.Int("bins", 20, "Δv `bins` of the analysis")
	minPer := fs.Int("min-per-bin", 20, "minimum rows per bin of the analysis")
	sampling := fs.String("sampling", "targeted", "parameter `sampling` of vcr generate: targeted or uniform")
	quick := fs.Bool("quick", false, "a reduced run: --n 60 --n-images 40 --size 64 --bootstrap 20 --bins 8 --min-per-bin 5 (for tests)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("demo takes no positional arguments (got %s)", strings.Join(pos, " "))
	}
	if *out == "" {
		return usagef("--out is required, e.g. --out demo")
	}
	if *quick {
		*n, *nImages, *size, *boot, *bins, *minPer = 60, 40, 64, 20, 8, 5
	}
	if *n < 1 || *nImages < 1 || *size < 32 || *boot < 0 {
		return usagef("--n and --n-images must be at least 1, --size at least 32 and --bootstrap ≥ 0 (got %d, %d, %d, %d)", *n, *nImages, *size, *boot)
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		if fileExists(filepath.Join(*out, "demo.log")) && !fileExists(filepath.Join(*out, "report.html")) {
			// An interrupted demo: it has no --resume, so say how to start again.
			return usagef("%s holds an unfinished demo (interrupted?); the demo does not resume: delete the folder (rm -r %s) and run it again, or choose a new folder", *out, *out)
		}
		return usagef("%s is not empty; choose a new folder", *out)
	}
	start := time.Now()
	step := func(format string, a ...any) {
		fmt.Fprintf(stdout, "[%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, a...))
	}
	images := filepath.Join(*out, "images")
	testSet := filepath.Join(*out, "testset")
	resultsCSV := filepath.Join(*out, "eval", "results.csv")
	analysisDir := filepath.Join(*out, "analysis")

	step("1/6 images: %d demo images of %d×%d (%s) → %s", *nImages, *size, *size, strings.Join(demo.Classes, ", "), images)
	if err := demo.Dataset(ctx, images, *nImages, *size, *seed); err != nil {
		return err
	}
	// The steps below call the libraries behind the commands; their own
	// messages go to a log file beside the equivalent command line (to
	// repeat a step by hand), the demo prints one line per step.
	logPath := filepath.Join(*out, "demo.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	logLine := func(msg string) { fmt.Fprintln(logf, msg) }
	failed := func(what string, err error) error { return fmt.Errorf("%s: %w (log: %s)", what, err, logPath) }

	step("2/6 generate: %d draws × %d corruptions (%s), %s sampling, Δv by vifvec → %s", *n, len(demoCorruptions), strings.Join(demoCorruptions, ", "), *sampling, testSet)
	fmt.Fprintf(logf, "$ vcr generate --images %s --corruptions %s --n %d --seed 1 --vif-method vifvec --sampling %s --out %s\n",
		images, strings.Join(demoCorruptions, ","), *n, *sampling, testSet)
	src, err := dataset.Open(dataset.Spec{Kind: dataset.KindAuto, Path: images})
	if err != nil {
		return failed("generate", err)
	}
	var cs []*corrupt.Corruption
	for _, name := range demoCorruptions {
		c, err := corrupt.Lookup(name)
		if err != nil {
			return err
		}
		cs = append(cs, c)
	}
	gen, err := testset.Generate(ctx, testset.Config{CoveragePlots: report.WriteCoveragePlots,
		Source: src, Corruptions: cs, N: *n, Seed: 1, Method: iqa.VIFVec, Sampling: *sampling, Pilot: testset.DefaultPilot,
		Bins: testset.DefaultBins, MinPerBin: testset.DefaultMinPerBin, Rounding: imageio.Round, Layout: testset.LayoutFlat,
		Format: "png", JPEGQuality: 95, Shard: testset.Whole, Out: testSet, Workers: runtime.GOMAXPROCS(0),
		Version: version.String(), Warn: logLine,
	})
	if err != nil {
		return failed("generate", err)
	}
	fmt.Fprintf(logf, "%d rows, %d failed\n", gen.Rows, gen.Failures)

	step("3/6 eval: %s → %s", demo.ModelName, resultsCSV)
	fmt.Fprintf(logf, "\n$ vcr eval --testset %s --model %s --out %s\n", testSet, builtinDemoModel, resultsCSV)
	ev, err := evaluate.Eval(ctx, evaluate.Options{TestSet: testSet, Out: resultsCSV, Model: evaluate.ModelSpec{Model: builtinDemoModel},
		Workers: runtime.GOMAXPROCS(0), Log: logLine, Warn: logLine})
	if err != nil {
		return failed("eval", err)
	}
	fmt.Fprintf(logf, "%d rows in %s\n", ev.Rows, ev.Out)

	step("4/6 analyze: against the human data %s (Hu et al., ICSE 2022) → %s", demoHuman, analysisDir)
	fmt.Fprintf(logf, "\n$ vcr analyze --results %s --model-name demonstration-model --human builtin:%s --bootstrap %d --bins %d --min-per-bin %d --out %s\n",
		resultsCSV, demoHuman, *boot, *bins, *minPer, analysisDir)
	ao := analysis.DefaultOptions()
	ao.Results = []results.File{{Path: resultsCSV, Model: "demonstration-model"}}
	ao.Human, ao.Bootstrap, ao.Bins, ao.MinPerBin, ao.Out = demoHuman, *boot, *bins, *minPer, analysisDir
	an, err := analysis.Run(ctx, ao)
	if err != nil {
		return failed("analyze", err)
	}
	for _, w := range an.Analysis.Warnings {
		logLine("warning: " + w)
	}
	if err := printDemoSummary(stdout, filepath.Join(analysisDir, "summary.json")); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "         compared: the demo model (shapes) and humans (car / not car on ImageNet) on the same Δv axis (vifvec);\n"+
		"         the tasks differ, so the numbers demonstrate the pipeline, not a model-versus-human result\n")
	reqDir := filepath.Join(*out, "requirements")
	if err := os.MkdirAll(reqDir, 0o755); err != nil {
		return err
	}
	reqFile := filepath.Join(reqDir, "requirements.json")
	step("5/6 requirements: t_c and t_p from %s (the study's script rule) → %s", demoHuman, reqFile)
	fmt.Fprintf(logf, "\n$ vcr requirements estimate --human builtin:%s --transformation all --out %s\n", demoHuman, reqFile)
	hd, err := reliability.BuiltinHuman(demoHuman)
	if err != nil {
		return failed("requirements estimate", err)
	}
	reqs, err := hd.Estimate(ctx, "all", reliability.EstimateOptions{Rule: reliability.RuleScript, Weighted: hd.Weighted})
	if err != nil {
		return failed("requirements estimate", err)
	}
	if err := atomicfile.Write(reqFile, reqs.Write); err != nil {
		return failed("requirements estimate", err)
	}
	checkArgs := []string{"check", "--requirements", reqFile, "--images", images, "--model", builtinDemoModel,
		"--transformation", strings.Join(demoCorruptions, ","), "--bootstrap-batches", "40", "--images-per-batch", "10", "--seed", strconv.FormatUint(*seed, 10),
		"--json", filepath.Join(reqDir, "requirements-check.json"), "--junit", filepath.Join(reqDir, "junit.xml")}
	step("   check: the demo model against them (n = 40 batches of k = 10 images each) → %s", reqDir)
	fmt.Fprintf(logf, "\n$ vcr requirements %s\n", strings.Join(checkArgs, " "))
	var ee exitError
	switch err := runRequirements(ctx, checkArgs, stdout, logf); {
	case err == nil:
		step("   all requirements hold")
	case errors.As(err, &ee) && ee.code == exitFailure:
		// A violated requirement is a result, not a failure of the demo.
		step("   %v (see the table above; the demo model is not robust by design)", err)
	default:
		return fmt.Errorf("vcr requirements check: %w (log: %s)", err, logPath)
	}
	step("6/6 report")
	p := filepath.Join(*out, "report.html")
	if err := report.WriteHTML(p, *out); err != nil {
		return fmt.Errorf("report: %w (log: %s)", err, logPath)
	}
	step("done; report: %s", p)
	return nil
}

// printDemoSummary prints R̂a of the model and the humans and HMRI (accuracy)
// per corruption from the analysis' summary.json.
func printDemoSummary(w io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var sum report.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	human := map[string]float64{}
	for _, h := range sum.Humans {
		human[h.Corruption] = h.Ra
	}
	// Written out: "R̂" is two runes in one column, which %9s would miscount.
	fmt.Fprintf(w, "         %-18s  R̂a model  R̂a human   HMRI_a\n", "corruption")
	for _, m := range sum.Models {
		hmri := "—"
		if m.HMRIa != nil {
			hmri = fmt.Sprintf("%.3f", *m.HMRIa)
		}
		hr, ok := human[m.HumanCorruption]
		hs := "—"
		if ok {
			hs = fmt.Sprintf("%.3f", hr)
		}
		fmt.Fprintf(w, "         %-18s %9.3f %9s %8s\n", m.Corruption, m.Ra, hs, hmri)
	}
	return nil
}
