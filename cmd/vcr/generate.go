package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/testset"
)

func init() {
	addCommand(&command{name: "generate", summary: "build a VCR test set: corrupted images labelled with Δv, manifest, coverage", run: runGenerate})
}

// getenv reads the environment (shard variables); tests replace it.
var getenv = os.Getenv

const generateUsage = `
Usage: vcr generate --images DIR --corruptions NAME[,NAME…] --n N --out OUT [flags]

Builds a VCR test set (the VCR study's Algorithm 1): for each corruption, N
draws, each an image drawn uniformly from the dataset and parameters drawn
uniformly from the corruption's whole domain; the corrupted image is rounded
to 8 bit, saved, and labelled with its visual change Δv = max(0, 1 − VIF)
against the original. Every draw is seeded from (--seed, corruption, draw
number) only, so the same command writes the same bytes with any number of
workers or shards.

--images names the dataset (see docs/datasets.md); its kind is detected
unless --dataset-kind says it:
  imagefolder   a folder of images (JPEG, PNG, GIF, BMP, TIFF, WebP): flat, or
                one sub-folder per class (labels are the sub-folder names, sorted)
  imagenet-val  the flat ImageNet validation folder, with --imagenet-labels
                (the devkit's ILSVRC2012_validation_ground_truth.txt or a
                LOC_val_solution.csv) and optionally --synsets (class list) to
                map labels to indices
  cifar10, cifar100  CIFAR binary batches (a .bin file or the batches folder;
                --split test|train)
  list          a CSV with columns path and label (paths relative to the CSV)
--resize S scales each source so that its shorter side is S (Pillow's
antialiased bilinear) and --crop C takes the centre C×C, before corruption.
By default images are used at their native size, as both published studies
(VCR and ICSE 2022) computed Δv on the native-size image; Δv after
--resize 256 --crop 224 differs from the native-size Δv (by −0.055…+0.062 on
ImageNet validation images), so use it only when the model should see the
cropped images and Δv need not match the studies'.

Δv flavours: the primary --vif-method fills vif and dv (and is the one
targeted sampling aims at). Every wavelet flavour that applies is computed
too, from the same steerable pyramid, into its own column: dv_vcr_py,
dv_vifvec and, for images whose shorter side is below 72 pixels
(CIFAR-sized), dv_vifvec2_layers; so the test set can be compared with human
data labelled with any of them without regenerating it (about 12 % more CPU
time for a whole 224×224 run than one flavour; see docs/performance.md).
--dv-methods LIST chooses the flavours instead (the primary is always
included), e.g. --dv-methods vcr-py for one only.

OUT receives:
  manifest.csv   one row per corrupted image, in id order: id, source, label,
                 corruption, params (JSON), seed, vif, dv, path, label_index,
                 label_name, source_index, severity, sampling, vif_method,
                 width, height, then dv_<flavour> per Δv flavour
  images/        images/<corruption>/<id>.png (--layout imagefolder:
                 images/<corruption>/<class>/<id>.png)
  failures.csv   id, source, corruption, error for sources that could not be
                 read or scored; a broken image never stops the run
  coverage.json  Δv coverage per corruption (--bins 40 bins, a bin covered
                 with ≥ --min-per-bin 20 rows), also printed as a table
  run.json       the settings (dataset path as typed, absolute and relative
                 to OUT, so OUT can be moved together with the dataset; the
                 frost texture set as textures); --resume checks them
  status.json    written last, when the run is complete

frost draws from ImageNet-C's five frost textures, built into vcr; with
--frost-textures procedural from the generated look-alikes of earlier vcr
versions (whose test sets it reproduces), with --frost-textures DIR from the
first five image files of DIR (see 'vcr corrupt --help').

A run stopped by Ctrl-C, a crash or kill -9 continues where it stopped with
the same command plus --resume, and ends with exactly the rows of an
uninterrupted run. An existing, non-empty OUT is refused unless --resume or
--force (which deletes the earlier output) is given.

Memory: the workers share the budget --max-memory (default: 3/4 of the
machine's memory, or of the cgroup limit of a container or batch job). A
draw needs about 48 bytes per source pixel to decode and 200 per pixel
(after --resize/--crop) to corrupt and score, read from the image's header
before decoding; a worker waits while the others hold the memory, and a
source that needs more than the whole budget is listed in failures.csv
(with its size and the --max-memory it would need) and the run goes on.
See docs/performance.md.

Sharding: --shard i/n runs draws i, i+n, i+2n, … into OUT/shard-i-of-n;
'vcr merge OUT' then writes OUT exactly as one run would. Without --shard the
shard comes from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT (counted from
SLURM_ARRAY_TASK_MIN) or from JOB_COMPLETION_INDEX with VCR_SHARD_COUNT
(Kubernetes Indexed Jobs). See docs/generate.md.

Examples:
  vcr generate --images val/ --corruptions gaussian_noise,gaussian_blur --n 50000 --seed 1 --out vcr-val
  vcr generate --images val/ --imagenet-labels LOC_val_solution.csv --corruptions frost --n 200 --out t
  vcr generate --images cifar-10-batches-bin --vif-method vifvec2-layers --corruptions frost --n 200 --out c
  vcr generate --images val/ --corruptions all --n 2000 --out small --layout imagefolder
  vcr generate --images val/ --corruptions shot_noise --n 5000 --sampling targeted --out targeted
  vcr generate --images val/ --corruptions gaussian_noise,contrast --n 1000 --imagenet-c --out inc
  vcr generate --images val/ --corruptions frost --n 1000 --frost-textures procedural --out old-frost
  vcr generate --images val/ --corruptions gaussian_noise --n 50000 --out vcr-val --shard 3/8
  vcr generate --images photos/ --corruptions all --n 500 --out p --max-memory 8GiB
  vcr generate … --resume        # continue an interrupted run
`

func runGenerate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	names := make([]string, len(iqa.Methods))
	for i, m := range iqa.Methods {
		names[i] = string(m)
	}
	fs := newFlagSet("generate", generateUsage, stderr)
	images := fs.String("images", "", "dataset `path`: an image folder, ImageNet validation folder, CIFAR batches or list CSV (required)")
	kind := fs.String("dataset-kind", dataset.KindAuto, "dataset `kind`: "+strings.Join(dataset.Kinds, ", "))
	labels := fs.String("imagenet-labels", "", "imagenet-val: ImageNet validation labels `file` (devkit ground truth or LOC_val_solution.csv)")
	synsets := fs.String("synsets", "", "class list `file` (LOC_synset_mapping.txt style) mapping labels to indices")
	split := fs.String("split", "", "cifar10/cifar100: `split` test or train (default test)")
	resize := fs.Int("resize", 0, "resize each source so its shorter side is `S` pixels (0: native size)")
	crop := fs.Int("crop", 0, "then take the centre `C`×C crop (0: no crop)")
	corrList := fs.String("corruptions", "", "comma-separated corruption `names`, or all (required; see 'vcr corruptions')")
	n := fs.Int("n", 1000, "draws per corruption (`N` images; with --imagenet-c N images × 5 severities)")
	seed := fs.Uint64("seed", 0, "master `seed`; every draw is seeded from it, the corruption and the draw number")
	out := fs.String("out", "", "output `folder` (required)")
	method := fs.String("vif-method", string(iqa.VCRPy), "primary VIF `method` for vif and dv: "+strings.Join(names, ", "))
	dvMethods := fs.String("dv-methods", "", "comma-separated VIF `methods` whose Δv also gets a dv_<method> column (default: vcr-py,vifvec, plus vifvec2-layers for images under 72 px)")
	bins := fs.Int("bins", testset.DefaultBins, "coverage: split Δv into `M` equal bins")
	minPerBin := fs.Int("min-per-bin", testset.DefaultMinPerBin, "coverage: a bin is covered with at least `L` rows")
	sampling := fs.String("sampling", testset.SamplingUniform, "parameter `sampling`: uniform (the VCR study) or targeted (Δv close to uniform, learnt from a pilot)")
	pilot := fs.Int("pilot", testset.DefaultPilot, "targeted sampling: pilot `draws` per corruption")
	frostTex := fs.String("frost-textures", "", frostTexturesFlagDoc+"; recorded in run.json (textures)")
	imagenetC := fs.Bool("imagenet-c", false, "corrupt each drawn image at the corruption's five ImageNet-C severities instead of sampling parameters")
	truncate := fs.Bool("truncate", false, "convert corrupted images to 8 bit by truncation, as the VCR toolbox does (default: round to nearest)")
	layout := fs.String("layout", testset.LayoutFlat, "image `layout`: flat (images/<corruption>/<id>) or imagefolder (images/<corruption>/<class>/<id>)")
	format := fs.String("format", "png", "image `format`: png or jpg (Δv is measured before JPEG encoding)")
	quality := fs.Int("quality", 95, "JPEG `quality` 1–100 with --format jpg")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "`number` of images processed in parallel (one VIF scorer each)")
	shardFlag := fs.String("shard", "", "run shard `i/n` (0 ≤ i < n) into OUT/shard-i-of-n (default: from Slurm or Kubernetes variables, else the whole run)")
	resume := fs.Bool("resume", false, "continue the interrupted run in OUT (the settings must match OUT/run.json)")
	force := fs.Bool("force", false, "delete OUT's earlier output and start over")
	prog := fs.String("progress", "auto", "progress on stderr: auto (a bar on a terminal, else a log line every 10 s), always (bar) or never")
	maxPixels := fs.Int("max-pixels", imageio.DefaultMaxPixels, "skip (as failures) source images with more `pixels` than this")
	maxMemory := fs.String("max-memory", "auto", "memory `budget` of the run, e.g. 4GiB or 512MiB: workers share it, and a source image that needs more is skipped as a failure (auto: 3/4 of the machine's or the cgroup's memory; none: no budget)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("generate takes no positional arguments (got %s); name the dataset with --images", strings.Join(pos, " "))
	}
	switch {
	case *images == "":
		return usagef("--images is required, e.g. --images path/to/val")
	case *corrList == "":
		return usagef("--corruptions is required, e.g. --corruptions gaussian_noise,gaussian_blur ('vcr corruptions' lists the names)")
	case *out == "":
		return usagef("--out is required, e.g. --out vcr-testset")
	case *n < 1:
		return usagef("--n must be at least 1 (got %d), e.g. --n 50000", *n)
	case *workers < 1:
		return usagef("--workers must be at least 1 (got %d), e.g. --workers %d", *workers, runtime.GOMAXPROCS(0))
	case *quality < 1 || *quality > 100:
		return usagef("--quality must be in 1…100 (got %d)", *quality)
	case *resume && *force:
		return usagef("--resume and --force exclude each other: --resume continues OUT, --force deletes it")
	case *bins < 1:
		return usagef("--bins must be at least 1 (got %d), e.g. --bins %d", *bins, testset.DefaultBins)
	case *minPerBin < 1:
		return usagef("--min-per-bin must be at least 1 (got %d), e.g. --min-per-bin %d", *minPerBin, testset.DefaultMinPerBin)
	}
	m, err := iqa.ParseMethod(*method)
	if err != nil {
		return usageError{fmt.Errorf("--vif-method: %w", err)}
	}
	var dvs []iqa.Method
	if *dvMethods != "" {
		if dvs, err = parseMethodList(*dvMethods); err != nil {
			return usageError{fmt.Errorf("--dv-methods: %w", err)}
		}
	}
	if *sampling != testset.SamplingUniform && *sampling != testset.SamplingTargeted {
		return usagef("--sampling must be uniform or targeted (got %q)", *sampling)
	}
	if *imagenetC && *sampling != testset.SamplingUniform {
		return usagef("--imagenet-c uses the five fixed severities; it does not combine with --sampling %s", *sampling)
	}
	if *sampling == testset.SamplingTargeted && *pilot < 2 {
		return usagef("--pilot must be at least 2 (got %d), e.g. --pilot %d", *pilot, testset.DefaultPilot)
	}
	if *layout != testset.LayoutFlat && *layout != testset.LayoutImageFolder {
		return usagef("--layout must be flat or imagefolder (got %q)", *layout)
	}
	if *format == "jpeg" {
		*format = "jpg"
	}
	if *format != "png" && *format != "jpg" {
		return usagef("--format must be png or jpg (got %q)", *format)
	}
	cs, err := parseCorruptions(*corrList)
	if err != nil {
		return err
	}
	if *frostTex != "" {
		i := slices.IndexFunc(cs, func(c *corrupt.Corruption) bool { return c.Name == "frost" })
		if i < 0 {
			return usagef("--frost-textures only applies when --corruptions includes frost (got %s)", *corrList)
		}
		if cs[i], _, err = frostFromFlag(*frostTex, *maxPixels, "generate", stderr); err != nil {
			return err
		}
	}
	shard := testset.Whole
	if *shardFlag != "" {
		if shard, err = testset.ParseShard(*shardFlag); err != nil {
			return usageError{fmt.Errorf("--shard: %w", err)}
		}
	} else if s, ok, err := testset.ShardFromEnv(getenv); err != nil {
		return usageError{err}
	} else if ok {
		shard = s
	}
	if *resize < 0 || *crop < 0 {
		return usagef("--resize and --crop must be ≥ 0 (got %d, %d)", *resize, *crop)
	}
	var budget int64 // 0: testset.DefaultMaxMemory
	switch *maxMemory {
	case "auto", "":
	case "none":
		budget = -1
	default:
		if budget, err = testset.ParseBytes(*maxMemory); err != nil {
			return usageError{fmt.Errorf("--max-memory: %w", err)}
		}
		if budget == 0 {
			return usagef("--max-memory must be positive (got %q), e.g. --max-memory 4GiB; 'none' runs without a budget", *maxMemory)
		}
		if budget < testset.MinMaxMemory {
			return usagef("--max-memory %s is too small: the program itself needs %s; give at least --max-memory %s",
				testset.FormatBytes(budget), testset.FormatBytes(testset.ProgramReserve), testset.FormatBytes(testset.MinMaxMemory))
		}
	}
	dir := shard.Dir(*out)
	if err := checkOutDir("--out", dir); err != nil {
		return err
	}
	src, err := dataset.Open(dataset.Spec{Kind: *kind, Path: *images, Labels: *labels, Synsets: *synsets, Split: *split, MaxPixels: *maxPixels})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--images: %s does not exist", *images)
		}
		return fmt.Errorf("--images: %w", err)
	}
	var preprocess func(*imageio.Image) *imageio.Image
	if *resize > 0 || *crop > 0 {
		r, c := *resize, *crop
		preprocess = func(m *imageio.Image) *imageio.Image { return imageio.Preprocess(m, r, c) }
	}
	rounding := imageio.Round
	if *truncate {
		rounding = imageio.Truncate
	}

	var showBar, showLog bool
	switch *prog {
	case "auto":
		showBar = progress.IsTerminal(stderr)
		showLog = !showBar
	case "always":
		showBar = true
	case "never":
	default:
		return usagef("--progress must be auto, always or never (got %q)", *prog)
	}
	var mu sync.Mutex
	warn := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "vcr generate: %s\n", msg)
	}
	rep := newReporter(stderr, "generating", showBar, showLog)
	cfg := testset.Config{CoveragePlots: report.WriteCoveragePlots,
		Source: src, Corruptions: cs, N: *n, Seed: *seed, Method: m, DVMethods: dvs, Bins: *bins, MinPerBin: *minPerBin, Sampling: *sampling, Pilot: *pilot,
		ImageNetC: *imagenetC, Rounding: rounding, Layout: *layout, Format: *format, JPEGQuality: *quality,
		Shard: shard, Out: dir, Resume: *resume, Force: *force, Workers: *workers, MaxMemory: budget, Version: version.String(),
		Progress: rep.update, Warn: warn,
		Resize: *resize, Crop: *crop, Preprocess: preprocess,
	}
	if err := testset.CheckOut(dir, *resume, *force); errors.Is(err, testset.ErrExists) {
		return usagef("%s is not empty; pass --resume to continue the run recorded in its %s, or --force to delete its output and start over", dir, testset.RunFile)
	}
	what := fmt.Sprintf("%d images (%s) × %d corruption(s) × %d draws", src.Len(), src.Name(), len(cs), *n)
	if *imagenetC {
		what += " × 5 severities"
	}
	if shard.Count > 1 {
		what += fmt.Sprintf(", shard %s", shard)
	}
	fmt.Fprintf(stderr, "vcr generate: %s into %s with %d worker%s\n", what, dir, *workers, plural(*workers))
	switch {
	case budget < 0:
		fmt.Fprintf(stderr, "vcr generate: no memory budget (--max-memory none)\n")
	case budget == 0:
		total, from := testset.SystemMemory()
		if total > 0 {
			fmt.Fprintf(stderr, "vcr generate: memory budget %s (3/4 of %s, %s; --max-memory changes it)\n", testset.FormatBytes(testset.DefaultMaxMemory()), testset.FormatBytes(total), from)
		} else {
			fmt.Fprintf(stderr, "vcr generate: memory budget %s (the machine's memory is unknown; --max-memory changes it)\n", testset.FormatBytes(testset.DefaultMaxMemory()))
		}
	}
	if *sampling == testset.SamplingTargeted {
		fmt.Fprintf(stderr, "vcr generate: pilot of %d draws per corruption for targeted sampling\n", *pilot)
	}
	sum, err := testset.Generate(ctx, cfg)
	rep.finish()
	if err != nil {
		var me *testset.MismatchError
		switch {
		case errors.Is(err, testset.ErrExists):
			return usagef("%s is not empty; pass --resume to continue the run recorded in its %s, or --force to delete its output and start over", dir, testset.RunFile)
		case errors.As(err, &me):
			text := mismatchText(me, me.Path+" records other settings than this command:", "in the folder", "now")
			return usageError{fmt.Errorf("%s\nRerun with the original settings and --resume, or pass --force to start over (deletes the earlier output)", text)}
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			fmt.Fprintf(stderr, "vcr generate: stopped; every complete row is saved. Run the same command with --resume to continue.\n")
		}
		return err
	}
	switch {
	case sum.WasComplete:
		fmt.Fprintf(stderr, "vcr generate: %s was complete already\n", dir)
	}
	fmt.Fprintf(stdout, "%d rows in %s", sum.Rows, pathJoin(dir, testset.ManifestFile))
	if sum.Failures > 0 {
		fmt.Fprintf(stdout, "; %d failed, listed in %s", sum.Failures, pathJoin(dir, testset.FailuresFile))
	}
	fmt.Fprintf(stdout, "\nΔv coverage (%s):\n", pathJoin(dir, testset.CoverageFile))
	if err := sum.Coverage.WriteTable(stdout); err != nil {
		return err
	}
	if *sampling == testset.SamplingUniform && !*imagenetC {
		for _, c := range sum.Coverage.Corruptions {
			if c.N >= c.Bins*c.MinPerBin && c.Fraction < 0.5 {
				fmt.Fprintf(stdout, "Low coverage (%s %.0f%%): uniform parameters leave much of the Δv range empty; --sampling targeted spreads Δv over [0, 1] (docs/targeted.md).\n", c.Corruption, 100*c.Fraction)
				break
			}
		}
	}
	if shard.Count > 1 {
		fmt.Fprintf(stdout, "This is shard %s; when all %d shards are complete, run: vcr merge %s\n", shard, shard.Count, *out)
	}
	return nil
}

// parseCorruptions resolves a comma-separated list of names ("all" for the
// whole catalogue).
func parseCorruptions(list string) ([]*corrupt.Corruption, error) {
	if strings.TrimSpace(list) == "all" {
		return corrupt.All(), nil
	}
	var cs []*corrupt.Corruption
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		c, err := corrupt.Lookup(name)
		if err != nil {
			return nil, usageError{fmt.Errorf("--corruptions: %w", err)}
		}
		if seen[c.Name] {
			return nil, usagef("--corruptions: %s is listed twice", c.Name)
		}
		seen[c.Name] = true
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, usagef("--corruptions names no corruption (got %q)", list)
	}
	return cs, nil
}

// runJSONFlags maps run.json keys to the flags that set them.
var runJSONFlags = map[string]string{
	"seed": "--seed", "n": "--n", "corruptions": "--corruptions", "vif_method": "--vif-method",
	"dv_methods": "--dv-methods", "coverage.bins": "--bins", "coverage.min_per_bin": "--min-per-bin",
	"sampling": "--sampling", "pilot": "--pilot", "imagenet_c": "--imagenet-c", "rounding": "--truncate",
	"layout": "--layout", "format": "--format", "jpeg_quality": "--quality", "rows": "--n × --corruptions",
	"shard.index": "--shard", "shard.count": "--shard", "version": "vcr version",
	"dataset.kind": "--images", "dataset.len": "--images (number of images)",
	"dataset.fingerprint": "--images (file names or labels)", "dataset.root": "--images",
	"dataset.resize": "--resize", "dataset.crop": "--crop", "tool": "tool",
}

// mismatchText lists the differing settings of me by flag; have and want
// name the two sides ("in the folder", "now").
func mismatchText(me *testset.MismatchError, head, have, want string) string {
	var sb strings.Builder
	sb.WriteString(head)
	for _, d := range me.Diffs {
		name := runJSONFlags[d.Key]
		if name == "" {
			name = d.Key
		}
		h, w := d.Have, d.Want
		if strings.HasPrefix(d.Key, "dataset.fingerprint") {
			h, w = h[:min(12, len(h))]+"…", w[:min(12, len(w))]+"…"
		}
		fmt.Fprintf(&sb, "\n  %s: %s %s, %s %s", name, h, have, w, want)
	}
	return sb.String()
}

// parseMethodList parses a comma-separated list of VIF method names.
func parseMethodList(list string) ([]iqa.Method, error) {
	var ms []iqa.Method
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		m, err := iqa.ParseMethod(name)
		if err != nil {
			return nil, err
		}
		if slices.Contains(ms, m) {
			return nil, fmt.Errorf("%s is listed twice", m)
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("names no method (got %q)", list)
	}
	return ms, nil
}

func pathJoin(dir, name string) string {
	return strings.TrimSuffix(dir, string(os.PathSeparator)) + string(os.PathSeparator) + name
}

// reporter shows progress as a bar (terminal) or as a log line every
// logEvery (otherwise), counting from the first update (the rows an
// interrupted run had done) so that a resumed run's rate is its own.
type reporter struct {
	w           io.Writer
	label       string
	bar         *progress.Bar
	barOn, log  bool
	mu          sync.Mutex
	start       time.Time
	first, last int
	lastLog     time.Time
	started     bool
}

const logEvery = 10 * time.Second

func newReporter(w io.Writer, label string, bar, log bool) *reporter {
	return &reporter{w: w, label: label, barOn: bar, log: log}
}

func (r *reporter) update(done, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started {
		r.started, r.start, r.lastLog = true, time.Now(), time.Now()
		r.first = done // Generate reports the rows already done first
		if r.barOn {
			r.bar = progress.New(r.w, total-r.first, progress.Options{Label: r.label})
		}
	}
	if r.bar != nil {
		r.bar.Add(done - r.first - r.last)
	}
	r.last = done - r.first
	if r.log && time.Since(r.lastLog) >= logEvery {
		r.lastLog = time.Now()
		fmt.Fprintf(r.w, "%s (%d of %d in all)\n", progress.Render(r.label, r.last, total-r.first, time.Since(r.start), 20), done, total)
	}
}

func (r *reporter) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bar.Finish()
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
