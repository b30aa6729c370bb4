package testset

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/lock"
	"github.com/vcr-bench/vcr/iqa"
)

// Sampling modes.
const (
	SamplingUniform   = "uniform"
	SamplingTargeted  = "targeted"
	SamplingImageNetC = "imagenet-c"
)

// Layouts of the image folder.
const (
	// LayoutFlat writes images/<corruption>/<id>.<ext>.
	LayoutFlat = "flat"
	// LayoutImageFolder writes images/<corruption>/<class>/<id>.<ext>, so
	// that each corruption's folder is a torchvision ImageFolder.
	LayoutImageFolder = "imagefolder"
)

// DefaultPilot is the default number of pilot draws per corruption for
// Δv-targeted sampling.
const DefaultPilot = 200

// PlotWriter draws a coverage report's plots into dir.
type PlotWriter func(r *CoverageReport, dir string) error

// Config describes one run (or one shard of a run) of Generate.
type Config struct {
	// Source is the dataset images are drawn from.
	Source Source
	// CoveragePlots, if not nil, draws the Δv coverage histograms into the
	// run's CoverageDir at the end (report.WriteCoveragePlots; testset
	// computes coverage, it draws nothing itself).
	CoveragePlots PlotWriter
	// Resize and Crop record the preprocessing Preprocess applies (0: none);
	// they go into run.json only.
	Resize, Crop int
	// Preprocess, if not nil, is applied to every loaded image before it is
	// corrupted (resize and centre crop).
	Preprocess func(*imageio.Image) *imageio.Image
	// Corruptions are sampled in this order; each gets N draws. A
	// corruption with a texture set (frost: the catalogue's ImageNet-C
	// textures, corrupt.NewProceduralFrost or corrupt.NewFrost) has it
	// recorded in run.json's textures.
	Corruptions []*corrupt.Corruption
	// N is the number of draws per corruption (≥ 1).
	N int
	// Seed is the master seed.
	Seed uint64
	// Method is the primary VIF flavour, whose Δv fills the manifest's vif
	// and dv columns and which targeted sampling aims at (default iqa.VCRPy).
	Method iqa.Method
	// DVMethods are the flavours whose Δv is also written, one manifest
	// column each (iqa.DVColumn), computed from the same pyramid
	// decomposition as the primary's where they are wavelet flavours
	// (iqa.MultiScorer). Nil means DefaultDVMethods for the size of the
	// (preprocessed) images. Method is always among them; the columns
	// follow the order of iqa.Methods.
	DVMethods []iqa.Method
	// Bins and MinPerBin define coverage.json: Δv split into Bins equal
	// bins, a bin covered with ≥ MinPerBin rows (0: DefaultBins,
	// DefaultMinPerBin, the VCR study's 40 and 20).
	Bins, MinPerBin int
	// Sampling is SamplingUniform (default) or SamplingTargeted.
	Sampling string
	// Pilot is the number of pilot draws per corruption for targeted sampling
	// (default DefaultPilot).
	Pilot int
	// ImageNetC corrupts every drawn image at each of the corruption's five
	// ImageNet-C severities instead of sampling parameters.
	ImageNetC bool
	// Rounding converts corrupted images to 8 bit (default imageio.Round;
	// imageio.Truncate as the VCR toolbox does).
	Rounding imageio.Rounding
	// Layout is LayoutFlat (default) or LayoutImageFolder.
	Layout string
	// Format is "png" (default) or "jpg"; JPEGQuality 1…100 (default 95).
	Format      string
	JPEGQuality int
	// Shard selects part of the draws (default Whole).
	Shard Shard
	// Out is the folder written (for a shard, Shard.Dir of the run's folder).
	Out string
	// Resume continues the run in Out; Force deletes its previous output.
	// Without either, a non-empty Out is an error wrapping ErrExists.
	Resume, Force bool
	// Workers is the number of images processed in parallel (default GOMAXPROCS).
	Workers int
	// MaxMemory is the run's memory budget in bytes: 0 means
	// DefaultMaxMemory() (three quarters of the machine's or the control
	// group's memory), a negative value no budget. Every worker reserves
	// what its draw's image needs (imageNeed: the file, DecodeBytesPerPixel
	// per source pixel, PipelineBytesPerPixel per pixel after Resize and
	// Crop) from the budget before decoding it, read from the image's
	// header, and waits while the other workers hold the rest; an image
	// that needs more than the budget leaves for one image (the budget less
	// what the program itself holds) is a failure (ErrOverBudget) and the
	// run goes on. Generate also sets the Go runtime's soft memory limit
	// (runtime/debug.SetMemoryLimit) to the budget for the run's duration.
	// The budget is not recorded in run.json: a resumed run may give
	// another. Which images fail depends on it, not on Workers.
	MaxMemory int64
	// Version is recorded in run.json.
	Version string
	// Progress, if not nil, is called once before the first draw and after
	// every draw written, with the rows (manifest plus failures) done and
	// the total of this shard.
	Progress func(done, total int)
	// Warn, if not nil, receives warnings (corruptions skipped, resume point).
	Warn func(msg string)
}

// ErrLocked is returned (wrapped) when another process is writing the
// output folder.
var ErrLocked = lock.ErrLocked

// ErrExists is returned (wrapped) when the output folder is not empty and
// neither Resume nor Force is set.
var ErrExists = errors.New("output folder is not empty")

// Summary describes a finished run.
type Summary struct {
	Out      string
	Rows     int // manifest rows
	Failures int // failures.csv rows
	// Resumed is the number of rows (manifest plus failures) kept from an
	// earlier, interrupted run.
	Resumed int
	// WasComplete is set when Resume found the run complete already.
	WasComplete bool
	Corruptions []string // the corruptions sampled (ImageNet-C mode skips some)
	Coverage    *CoverageReport
}

// Generate runs Algorithm 1 of the VCR study for every corruption of cfg:
// draws g = 0 … len(Corruptions)·N − 1 (corruption g / N, draw k = g mod N);
// each draw picks an image uniformly from the Source and parameters from the
// sampler, with generators seeded from (Seed, corruption name, k) only, so the
// output does not depend on Workers or on sharding. Each corrupted image is
// quantised to 8 bit, scored against its source with VIF, saved under
// Out/images, and listed in Out/manifest.csv in id order; unreadable sources
// go to Out/failures.csv. At the end Out/coverage.json and Out/status.json are
// written. See docs/generate.md for the layout, resume and sharding.
//
// Generate returns ctx.Err() when ctx is cancelled, after writing every
// complete row; the run can then be resumed.
func Generate(ctx context.Context, cfg Config) (*Summary, error) {
	st, err := newRunState(cfg)
	if err != nil {
		return nil, err
	}
	if st.mem != nil {
		// The soft limit makes the garbage collector return the memory of
		// finished draws before the heap grows past the budget; file-backed
		// pages (the program's code) count against the budget but not
		// against the Go heap.
		_, file := processMemory()
		limit := st.mem.total - file
		if old := debug.SetMemoryLimit(-1); old < limit {
			limit = old
		}
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	if err := os.MkdirAll(st.cfg.Out, 0o755); err != nil {
		return nil, err
	}
	release, err := lockDir(st.cfg.Out)
	if err != nil {
		return nil, err
	}
	defer release()
	complete, err := st.prepareOut()
	if err != nil {
		return nil, err
	}
	sum := &Summary{Out: st.cfg.Out}
	for _, c := range st.cs {
		sum.Corruptions = append(sum.Corruptions, c.Name)
	}
	if complete {
		// Resuming a finished run (a requeued job): nothing to generate.
		sum.Resumed, sum.WasComplete = st.shardDraws*st.perDraw, true
		return st.finish(sum)
	}
	if err := st.makeSamplers(ctx); err != nil {
		return nil, err
	}
	start, err := st.resumePoint()
	if err != nil {
		return nil, err
	}
	sum.Resumed = st.resumedRows
	if err := st.generate(ctx, start); err != nil {
		return nil, err
	}
	return st.finish(sum)
}

// runState is the configuration of a run resolved for generation.
type runState struct {
	cfg         Config
	cs          []*corrupt.Corruption
	nameSeed    []uint64 // per corruption: Seed ^ FNV-1a(name)
	samplers    []ParamSampler
	info        RunInfo
	dvMethods   []iqa.Method // the per-flavour Δv columns, in order
	columns     []string     // the manifest header
	perDraw     int          // rows per draw: 1, or 5 in ImageNet-C mode
	draws       int          // draws of the whole run
	shardDraws  int          // draws of this shard
	idWidth     int
	ext         string
	format      imageio.Format
	enc         imageio.EncodeOptions
	dirs        sync.Map // folders already created
	resumedRows int
	mem         *memBudget // nil: no budget
}

func newRunState(cfg Config) (*runState, error) {
	if cfg.Source == nil {
		panic("testset: Config.Source is nil")
	}
	if cfg.Out == "" {
		return nil, errors.New("no output folder given")
	}
	if cfg.N < 1 {
		return nil, fmt.Errorf("N must be at least 1 (got %d)", cfg.N)
	}
	if len(cfg.Corruptions) == 0 {
		return nil, errors.New("no corruptions given")
	}
	if cfg.Source.Len() == 0 {
		return nil, fmt.Errorf("dataset %s holds no images", cfg.Source.Root())
	}
	if cfg.Method == "" {
		cfg.Method = iqa.VCRPy
	}
	if _, err := iqa.ParseMethod(string(cfg.Method)); err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.MaxMemory == 0 {
		cfg.MaxMemory = DefaultMaxMemory()
	}
	mem, err := newMemBudget(cfg.MaxMemory)
	if err != nil {
		return nil, err
	}
	dvMethods, err := resolveDVMethods(cfg, mem)
	if err != nil {
		return nil, err
	}
	if cfg.Bins < 0 || cfg.MinPerBin < 0 {
		return nil, fmt.Errorf("coverage bins and rows per bin must be positive (got %d, %d)", cfg.Bins, cfg.MinPerBin)
	}
	cfg.Bins, cfg.MinPerBin = coverageSettings(cfg.Bins, cfg.MinPerBin)
	if cfg.Sampling == "" {
		cfg.Sampling = SamplingUniform
	}
	if cfg.ImageNetC {
		if cfg.Sampling != SamplingUniform {
			return nil, fmt.Errorf("ImageNet-C mode uses fixed severities; it cannot be combined with %s sampling", cfg.Sampling)
		}
		cfg.Sampling = SamplingImageNetC
	} else if cfg.Sampling != SamplingUniform && cfg.Sampling != SamplingTargeted {
		return nil, fmt.Errorf("unknown sampling %q; choose %s or %s", cfg.Sampling, SamplingUniform, SamplingTargeted)
	}
	if cfg.Sampling == SamplingTargeted && cfg.Pilot == 0 {
		cfg.Pilot = DefaultPilot
	}
	if cfg.Sampling != SamplingTargeted {
		cfg.Pilot = 0
	}
	if cfg.Sampling == SamplingTargeted && cfg.Pilot < 2*MinPilot {
		return nil, fmt.Errorf("targeted sampling needs at least %d pilot draws per corruption (got %d)", 2*MinPilot, cfg.Pilot)
	}
	if cfg.Layout == "" {
		cfg.Layout = LayoutFlat
	}
	if cfg.Layout != LayoutFlat && cfg.Layout != LayoutImageFolder {
		return nil, fmt.Errorf("unknown layout %q; choose %s or %s", cfg.Layout, LayoutFlat, LayoutImageFolder)
	}
	st := &runState{perDraw: 1, mem: mem}
	switch cfg.Format {
	case "", "png":
		cfg.Format, st.ext = "png", ".png"
		cfg.JPEGQuality = 0
	case "jpg", "jpeg":
		cfg.Format, st.ext, st.format = "jpg", ".jpg", imageio.JPEG
		if cfg.JPEGQuality == 0 {
			cfg.JPEGQuality = 95
		}
		if cfg.JPEGQuality < 1 || cfg.JPEGQuality > 100 {
			return nil, fmt.Errorf("JPEG quality must be in 1…100 (got %d)", cfg.JPEGQuality)
		}
	default:
		return nil, fmt.Errorf("unknown image format %q; choose png or jpg", cfg.Format)
	}
	st.enc = imageio.EncodeOptions{JPEGQuality: cfg.JPEGQuality, Rounding: cfg.Rounding}
	if cfg.Shard == (Shard{}) {
		cfg.Shard = Whole
	}
	if !cfg.Shard.Valid() {
		return nil, fmt.Errorf("invalid shard %s", cfg.Shard)
	}
	seen := map[string]bool{}
	for _, c := range cfg.Corruptions {
		if seen[c.Name] {
			return nil, fmt.Errorf("corruption %s is listed twice", c.Name)
		}
		seen[c.Name] = true
		if cfg.ImageNetC && len(c.Severities) != 5 {
			if cfg.Warn != nil {
				cfg.Warn(fmt.Sprintf("%s has no ImageNet-C severities; skipped in ImageNet-C mode", c.Name))
			}
			continue
		}
		st.cs = append(st.cs, c)
	}
	if len(st.cs) == 0 {
		return nil, errors.New("none of the corruptions has ImageNet-C severities ('vcr corruptions' shows which have)")
	}
	if cfg.ImageNetC {
		st.perDraw = 5
	}
	st.cfg = cfg
	st.dvMethods = dvMethods
	st.columns = ManifestColumns(dvMethods)
	st.draws = len(st.cs) * cfg.N
	st.shardDraws = cfg.Shard.draws(st.draws)
	st.idWidth = max(6, len(strconv.Itoa(st.draws*st.perDraw-1)))
	for _, c := range st.cs {
		h := fnv.New64a()
		h.Write([]byte(c.Name))
		st.nameSeed = append(st.nameSeed, cfg.Seed^h.Sum64())
	}
	rounding := "round"
	if cfg.Rounding == imageio.Truncate {
		rounding = "truncate"
	}
	names := make([]string, len(st.cs))
	var textures map[string]string
	for i, c := range st.cs {
		names[i] = c.Name
		if c.Textures != "" {
			if textures == nil {
				textures = map[string]string{}
			}
			textures[c.Name] = c.Textures
		}
	}
	dvNames := make([]string, len(dvMethods))
	for i, m := range dvMethods {
		dvNames[i] = string(m)
	}
	st.info = RunInfo{
		Tool: "vcr generate", Version: cfg.Version, Seed: cfg.Seed, N: cfg.N, Corruptions: names, Textures: textures,
		Dataset: DatasetInfo{
			Kind: cfg.Source.Name(), Len: cfg.Source.Len(),
			Fingerprint: fingerprint(cfg.Source), Resize: cfg.Resize, Crop: cfg.Crop,
		},
		VIFMethod: string(cfg.Method), DVMethods: dvNames, Sampling: cfg.Sampling,
		Coverage: CoverageSettings{Bins: cfg.Bins, MinPerBin: cfg.MinPerBin}, Pilot: cfg.Pilot, ImageNetC: cfg.ImageNetC,
		Rounding: rounding, Layout: cfg.Layout, Format: cfg.Format, JPEGQuality: cfg.JPEGQuality,
		Rows: st.draws * st.perDraw, Shard: cfg.Shard,
	}
	if err := st.info.Dataset.setRoot(cfg.Source.Root(), cfg.Out); err != nil {
		return nil, err
	}
	return st, nil
}

// DefaultDVMethods returns the flavours Generate computes Δv with when
// Config.DVMethods is nil, for images whose shorter side is side pixels:
// vcr-py (the VCR toolbox's) and vifvec (the ICSE 2022 ImageNet human
// data's), plus vifvec2-layers (the ICSE 2022 CIFAR-10 human data's) when
// side < 72, where the pyramid has fewer than four levels (CIFAR-sized
// images). All three share one pyramid decomposition per image.
func DefaultDVMethods(side int) []iqa.Method {
	ms := []iqa.Method{iqa.VCRPy, iqa.VIFVec}
	if side < 72 {
		ms = append(ms, iqa.VIFVec2Layers)
	}
	return ms
}

// resolveDVMethods returns the run's per-flavour Δv methods: cfg.DVMethods
// (or DefaultDVMethods for the size of the first source image that loads
// within the memory budget mem) with cfg.Method added, in the order of
// iqa.Methods.
func resolveDVMethods(cfg Config, mem *memBudget) ([]iqa.Method, error) {
	want := cfg.DVMethods
	if want == nil {
		side := cfg.Crop
		st := &runState{cfg: cfg, mem: mem}
		for i := 0; side == 0 && i < min(cfg.Source.Len(), 10); i++ {
			if mem != nil {
				// Nothing else runs yet: the header check is enough.
				if _, _, err := st.need(i); err != nil {
					continue
				}
			}
			img, err := cfg.Source.Load(i)
			if err != nil {
				continue // a broken first image says nothing about the size
			}
			if cfg.Preprocess != nil {
				img = cfg.Preprocess(img)
			}
			side = min(img.Width, img.Height)
		}
		if side == 0 {
			side = 72 // unknown: no 2-level flavour
		}
		want = DefaultDVMethods(side)
	}
	for _, m := range want {
		if _, err := iqa.ParseMethod(string(m)); err != nil {
			return nil, fmt.Errorf("Δv flavours: %w", err)
		}
	}
	var ms []iqa.Method
	for _, m := range iqa.Methods {
		if m == cfg.Method || slices.Contains(want, m) {
			ms = append(ms, m)
		}
	}
	return ms, nil
}

func (st *runState) warn(format string, a ...any) {
	if st.cfg.Warn != nil {
		st.cfg.Warn(fmt.Sprintf(format, a...))
	}
}

func (st *runState) path(name string) string { return filepath.Join(st.cfg.Out, name) }

// outputNames are the entries of an output folder that Force deletes.
var outputNames = []string{ManifestFile, FailuresFile, RunFile, CoverageFile, CoverageDir, StatusFile, ImagesDir}

// CheckOut reports, before any work, whether Generate would refuse the
// output folder out: a folder holding anything but temporary files needs
// resume or force, or the error wraps ErrExists. Commands call it to
// refuse before they print a plan; Generate checks again itself.
func CheckOut(out string, resume, force bool) error {
	entries, err := os.ReadDir(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if resume || force || !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !isTemp(e.Name()) }) {
		return nil
	}
	return fmt.Errorf("%s: %w", out, ErrExists)
}

// prepareOut checks the output folder against Resume and Force and creates
// run.json of a fresh run. It reports whether Resume found a complete run.
func (st *runState) prepareOut() (complete bool, err error) {
	out := st.cfg.Out
	entries, err := os.ReadDir(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	// Temporary files alone (a run killed while writing run.json) do not
	// make the folder an output folder.
	fresh := !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !isTemp(e.Name()) })
	switch {
	case fresh:
		removeTemps(out, false)
	case st.cfg.Force:
		for _, n := range outputNames {
			if err := os.RemoveAll(st.path(n)); err != nil {
				return false, err
			}
		}
		removeTemps(out, false)
		fresh = true
	case st.cfg.Resume:
		have, err := readRunInfo(st.path(RunFile))
		if errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("%s is not empty but has no %s, so it was not written by vcr generate; choose another output folder", out, RunFile)
		}
		if err != nil {
			return false, err
		}
		if d := diffRunInfo(have, &st.info, "dataset.root", "dataset.root_abs", "dataset.root_rel"); len(d) > 0 {
			return false, &MismatchError{Path: st.path(RunFile), Diffs: d}
		}
		var stat Status
		if readJSON(st.path(StatusFile), &stat) == nil && stat.Complete {
			return true, nil
		}
		if err := os.Remove(st.path(StatusFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	default:
		return false, fmt.Errorf("%s: %w", out, ErrExists)
	}
	if fresh {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return false, err
		}
		if err := writeJSON(st.path(RunFile), &st.info); err != nil {
			return false, err
		}
	}
	for _, c := range st.cs {
		if err := st.mkdir(filepath.Join(ImagesDir, c.Name)); err != nil {
			return false, err
		}
	}
	return false, nil
}

// mkdir creates Out/rel once.
func (st *runState) mkdir(rel string) error {
	if _, ok := st.dirs.Load(rel); ok {
		return nil
	}
	if err := os.MkdirAll(st.path(rel), 0o755); err != nil {
		return err
	}
	st.dirs.Store(rel, true)
	return nil
}

// writeHeader creates the CSV file at path holding only header, atomically.
func writeHeader(path string, header []string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(header)
		cw.Flush()
		return cw.Error()
	})
}

// Flush policy: rows are appended and synced in batches of flushRows draws
// or every flushEvery, whichever comes first.
const (
	flushRows  = 64
	flushEvery = time.Second
)

// appendLog is an append-only CSV file whose rows are buffered and written
// with one write and one fsync per batch.
type appendLog struct {
	f   *os.File
	buf bytes.Buffer
	cw  *csv.Writer
}

func openLog(path string) (*appendLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	l := &appendLog{f: f}
	l.cw = csv.NewWriter(&l.buf)
	return l, nil
}

func (l *appendLog) write(rec []string) { l.cw.Write(rec) }

// pending reports whether rows wait to be written.
func (l *appendLog) pending() bool {
	l.cw.Flush()
	return l.buf.Len() > 0
}

// sync writes the buffered rows and syncs the file.
func (l *appendLog) sync() error {
	l.cw.Flush()
	if l.buf.Len() == 0 {
		return nil
	}
	if _, err := l.f.Write(l.buf.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", l.f.Name(), err)
	}
	l.buf.Reset()
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", l.f.Name(), err)
	}
	return nil
}

// generate processes the shard's draws from position start on, with
// Workers goroutines, and appends their rows in order.
func (st *runState) generate(parent context.Context, start int) error {
	mlog, err := openLog(st.path(ManifestFile))
	if err != nil {
		return err
	}
	defer mlog.f.Close()
	flog, err := openLog(st.path(FailuresFile))
	if err != nil {
		return err
	}
	defer flog.f.Close()
	// flush makes the batch's images durable before the rows that list
	// them, and keeps failures.csv at least as far as manifest.csv: resume
	// trusts the manifest and cuts failures back to it.
	flush := func() error {
		if mlog.pending() {
			if err := syncImages(st.cfg.Out); err != nil {
				return err
			}
		}
		if err := flog.sync(); err != nil {
			return err
		}
		return mlog.sync()
	}

	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	workers := st.cfg.Workers
	// The draws handed out but not yet written: enough that the workers
	// keep going while this goroutine flushes a batch (a syncfs and two
	// fsyncs, 10–50 ms measured on ext4, as long as 5–25 draws of 224×224
	// at 500 images per second); a result holds only its rows.
	window := 4*workers + 2*flushRows
	tokens := make(chan struct{}, window) // one per draw handed out but not yet written
	jobs := make(chan task)
	results := make(chan result, window)
	go func() {
		defer close(jobs)
		for pos := start; pos < st.shardDraws; pos++ {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- task{pos: pos, draw: st.cfg.Shard.draw(pos)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := st.newWorker(ctx)
			defer w.drop()
			for {
				t, ok := receive(w, jobs)
				if !ok {
					break
				}
				if ctx.Err() != nil {
					results <- result{pos: t.pos, skipped: true}
					continue
				}
				results <- w.process(t)
				w.yield()
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	total := st.shardDraws * st.perDraw
	done := start * st.perDraw
	if st.cfg.Progress != nil {
		st.cfg.Progress(done, total)
	}
	pending := map[int]result{}
	next := start
	stopped := false
	var fatal error
	unsynced := 0
	lastSync := time.Now()
	for r := range results {
		if stopped {
			continue // drain so that the workers finish
		}
		pending[r.pos] = r
		for !stopped {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if p.skipped || p.err != nil {
				stopped = true
				fatal = p.err
				cancel()
				break
			}
			for i := range p.fails {
				flog.write(p.fails[i].record())
			}
			for i := range p.rows {
				mlog.write(p.rows[i].record(st.dvMethods))
			}
			next++
			<-tokens
			done += st.perDraw
			unsynced++
			if unsynced >= flushRows || time.Since(lastSync) >= flushEvery {
				if err := flush(); err != nil {
					fatal, stopped = err, true
					cancel()
					break
				}
				unsynced, lastSync = 0, time.Now()
			}
			if st.cfg.Progress != nil {
				st.cfg.Progress(done, total)
			}
		}
	}
	if err := flush(); err != nil && fatal == nil {
		fatal = err
	}
	if err := mlog.f.Close(); err != nil && fatal == nil {
		fatal = err
	}
	if err := flog.f.Close(); err != nil && fatal == nil {
		fatal = err
	}
	if fatal != nil {
		return fatal
	}
	if err := parent.Err(); err != nil {
		return err
	}
	return nil
}

// Status is status.json, written when a run (or shard) is complete.
type Status struct {
	Complete bool `json:"complete"`
	Rows     int  `json:"rows"`
	Failures int  `json:"failures"`
}

// finish computes the coverage report from the manifest and writes
// coverage.json and status.json.
func (st *runState) finish(sum *Summary) (*Summary, error) {
	rep, err := coverageFromManifest(st.path(ManifestFile), sum.Corruptions, string(st.cfg.Method), st.cfg.Sampling, st.cfg.Bins, st.cfg.MinPerBin)
	if err != nil {
		return nil, err
	}
	nf := 0
	if err := readRecords(st.path(FailuresFile), FailureColumns, func([]string) error { nf++; return nil }); err != nil {
		return nil, err
	}
	if err := writeJSON(st.path(CoverageFile), rep); err != nil {
		return nil, err
	}
	if st.cfg.CoveragePlots != nil {
		if err := st.cfg.CoveragePlots(rep, st.path(CoverageDir)); err != nil {
			return nil, err
		}
	}
	sum.Rows, sum.Failures, sum.Coverage = rep.Overall.N, nf, rep
	if err := writeJSON(st.path(StatusFile), Status{Complete: true, Rows: sum.Rows, Failures: nf}); err != nil {
		return nil, err
	}
	return sum, nil
}
