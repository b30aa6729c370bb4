package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/testset"
)

func init() {
	addCommand(&command{name: "merge", summary: "join the shards of a sharded 'vcr generate' run", run: runMerge})
}

const mergeUsage = `
Usage: vcr merge [--image-transfer move|copy|link] [--force] OUT [SHARD_DIR…]

Joins the shard folders written by 'vcr generate --shard i/n' (or by a Slurm
array or Kubernetes Indexed Job) into OUT, so that OUT holds exactly what one
unsharded run with the same settings writes: manifest.csv, failures.csv,
coverage.json, run.json and status.json are byte for byte the same, and the
images lie at the same paths.

Without SHARD_DIR arguments the shards are OUT/shard-*-of-*, where
'vcr generate --shard' puts them. Every shard must be complete and all must
come from the same command (same seed, N, corruptions, dataset content, VIF
method, …); the first difference found is reported.

Images are moved into OUT/images by default (copied when the shards are on
another file system), leaving the shard folders without images; delete them
after the merge. --image-transfer copy keeps the shard folders intact;
--image-transfer link hard-links. An interrupted merge can simply be run
again (without --force): images already in OUT are kept and the temporary
files it left are removed. The merged run.json records the dataset path
relative to OUT.

Examples:
  vcr merge vcr-val
  vcr merge --image-transfer copy merged/ node1/vcr-val/shard-0-of-2 node2/vcr-val/shard-1-of-2
`

func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", mergeUsage, stderr)
	images := fs.String("image-transfer", testset.ImagesMove, "how images reach OUT: `move`, copy or link")
	force := fs.Bool("force", false, "merge again into an OUT that holds a finished merge or another run's manifest.csv (an interrupted merge continues without it)")
	prog := fs.String("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), always or never")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("need the output folder OUT (and optionally the shard folders)")
	}
	switch *images {
	case testset.ImagesMove, testset.ImagesCopy, testset.ImagesLink:
	default:
		return usagef("--image-transfer must be move, copy or link (got %q)", *images)
	}
	var showBar bool
	switch *prog {
	case "auto":
		showBar = progress.IsTerminal(stderr)
	case "always":
		showBar = true
	case "never":
	default:
		return usagef("--progress must be auto, always or never (got %q)", *prog)
	}
	out, dirs := pos[0], pos[1:]
	if len(dirs) == 0 {
		if dirs, err = testset.ShardDirs(out); err != nil {
			return err
		}
		if len(dirs) == 0 {
			return usagef("%s holds no shard-*-of-* folders; name the shard folders after OUT", out)
		}
	}
	if err := checkOutDir("OUT", out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vcr merge: %d shards into %s (%s images)\n", len(dirs), out, *images)
	rep := newReporter(stderr, "merging", showBar, false)
	opt := testset.MergeOptions{Images: *images, Force: *force, CoveragePlots: report.WriteCoveragePlots, Progress: func(done, total int) {
		if done == 1 {
			rep.update(0, total)
		}
		rep.update(done, total)
	}}
	sum, err := testset.Merge(ctx, out, dirs, opt)
	rep.finish()
	if err != nil {
		var me *testset.MismatchError
		if errors.As(err, &me) {
			return errors.New(mismatchText(me, "the shards come from different commands; "+me.Path+" differs from the first shard:", "there", "in the first"))
		}
		return err
	}
	fmt.Fprintf(stdout, "%d rows in %s", sum.Rows, pathJoin(out, testset.ManifestFile))
	if sum.Failures > 0 {
		fmt.Fprintf(stdout, "; %d failed, listed in %s", sum.Failures, pathJoin(out, testset.FailuresFile))
	}
	fmt.Fprintf(stdout, "\nΔv coverage (%s):\n", pathJoin(out, testset.CoverageFile))
	return sum.Coverage.WriteTable(stdout)
}
