// This file implements vcr requirements check --testset: the check on the
// rows of a test set (reliability.CheckTestSet), with a model or a
// predictions file (evaluate.OpenTestSetImages).

package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/reliability"
	"github.com/vcr-bench/vcr/task"
	"github.com/vcr-bench/vcr/testset"
)

// testSetCheck holds the settings of a check with --testset besides the
// model flags.
type testSetCheck struct {
	reqPath   string
	reqs      []reliability.Requirement
	images    string
	maxPixels int
	workers   int
	progress  string
	opt       reliability.TestSetOptions
}

func requirementsCheckTestSet(ctx context.Context, f *evalFlags, c testSetCheck, out checkOutputs, stdout, stderr io.Writer) error {
	say := func(format string, a ...any) { fmt.Fprintf(stderr, "vcr requirements check: "+format+"\n", a...) }
	ts, err := reliability.ReadTestSet(f.testSet)
	if err != nil {
		return usagef("--testset: %v", err)
	}
	if st, err := testset.ReadStatus(f.testSet); err == nil && !st.Complete {
		say("warning: %s is not complete (no complete %s); checking on the rows it has", f.testSet, testset.StatusFile)
	}
	// The Δv columns before opening the model.
	for _, r := range c.reqs {
		if _, err := ts.Column(r, c.opt.VIFMethod, c.opt.OverrideVIF); err != nil {
			return usagef("--testset: %v", err)
		}
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	imgs, m, found, err := evaluate.OpenTestSetImages(ctx, spec, f.testSet, c.images, imageio.Options{MaxPixels: c.maxPixels}, c.workers)
	if err != nil {
		return specError(err)
	}
	defer m.Close()
	if found != "" {
		say("%s", found)
	}
	say("%s; %d rows of %s", m.Describe, len(ts.Rows), f.testSet)
	for _, n := range m.Notes {
		say("%s", n)
	}
	for _, w := range m.Warnings {
		say("warning: %s", w)
	}

	cache := reliability.NewPredictionCache(imgs)
	opt := c.opt
	opt.TestSet, opt.Predictor, opt.Truth = ts, cache, imgs.Truth
	var plans []*reliability.TestSetPlan
	for _, r := range c.reqs {
		p, err := reliability.PlanTestSet(r, opt)
		if err != nil {
			return err
		}
		if err := p.WriteText(stderr); err != nil {
			return err
		}
		plans = append(plans, p)
	}
	clean, corrupted := reliability.TotalImages(plans)
	if m.Predictions != nil {
		say("%d clean and %d corrupted images to look up in %s (no model runs)", clean, corrupted, f.predictions)
	} else {
		say("%d model inputs to classify (%d clean, %d corrupted; each image once)", clean+corrupted, clean, corrupted)
	}

	rep := reliability.NewCheckReport(c.reqPath, m.Describe, "")
	rep.TestSet = f.testSet
	modelTask, modelClasses := task.NameIdentity, m.Classes
	if m.Mapping != nil {
		modelTask, modelClasses = m.Mapping.Name(), m.Mapping.Classes()
	}
	rep.Warnings = append(rep.Warnings, reliability.TaskWarnings(c.reqs, modelTask, len(modelClasses))...)
	quiet := c.progress == "never"
	start := time.Now()
	for _, r := range c.reqs {
		o := opt
		if !quiet {
			o.Progress = checkProgress(stderr, r.Transformation, o.Batches, start)
		}
		v, err := reliability.CheckTestSet(ctx, r, o)
		if err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(stderr, "  %s: %.1fs wall, %.1fs classifying; %d clean and %d corrupted images classified so far\n",
				r.Transformation, v.Timing.Wall, v.Timing.Model, cache.Clean, cache.Corrupted)
		}
		rep.Add(v)
	}
	rep.Seconds = time.Since(start).Seconds()
	return out.write(rep, stdout, stderr)
}
