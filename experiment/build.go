package experiment

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/task"
	"github.com/vcr-bench/vcr/testset"
)

// Cache layout (below Config.CacheDir, which becomes Design.Root).
const (
	// CacheTestSets holds the test-set images the design uses, hard-linked
	// (or copied) from the test set: testsets/<run id>/<manifest path>.
	CacheTestSets = "testsets"
	// CacheClean holds the clean originals as PNG:
	// clean/<dataset id>/<source index>.png, with index.json recording each
	// file's source and SHA-256.
	CacheClean = "clean"
	// CacheCategories holds copies of the category button images.
	CacheCategories = "categories"
)

// dvBins is the number of Δv strata main stimuli are spread over.
const dvBins = 10

// BuildSummary counts what Build used and skipped.
type BuildSummary struct {
	Rows int // manifest rows read
	// Skipped rows: of corruptions not selected, whose label maps to no
	// category, whose image file is missing.
	SkippedCorruption, SkippedLabel, SkippedMissing int
	// Stimuli by role (clean originals of the main batches counted in
	// Clean, corrupted ones in Corrupted).
	Corrupted, Clean, Practice, Qualification, Sanity int
	Batches                                           int
	// CleanWritten is the number of clean originals written now,
	// CleanCached the number found in the cache with the right hash.
	CleanWritten, CleanCached int
	// BrokenSources are sources whose clean original could not be loaded;
	// they were skipped.
	BrokenSources []string
	Warnings      []string
}

// Build makes the Design described by cfg from its test set (see
// BuildSummary for what it reports). See BuildWithSummary.
func Build(ctx context.Context, cfg *Config) (*Design, error) {
	d, _, err := BuildWithSummary(ctx, cfg)
	return d, err
}

// BuildWithSummary makes the Design described by cfg: it reads the test
// set (run.json and manifest.csv), maps its labels to the task's
// categories (skipping rows whose label belongs to none), writes the clean
// originals it needs as PNG into the cache (skipping those already there
// with the recorded SHA-256; a source that cannot be loaded is reported and
// skipped), links the corrupted images it uses into the cache, reserves
// source images that no main batch uses for the practice, qualification and
// sanity trials (clean originals), forms the batches and freezes the
// design. Every choice is a pure function of the config (Seed) and the test
// set. Design.Root is the cache folder.
//
// Recognition batches hold TrialsPerBatch stimuli: CleanPerBatch clean
// originals of sources that other batches show corrupted (so that the
// consistency of answers can be paired), the rest corrupted images spread
// evenly over the corruptions and over dvBins Δv strata; no two stimuli of
// a batch share a SourceID. Distinguish batches hold pairs of corrupted
// images (see docs/experiment.md).
func BuildWithSummary(ctx context.Context, cfg *Config) (*Design, *BuildSummary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	b := &builder{cfg: cfg, ctx: ctx, sum: &BuildSummary{}}
	if err := b.open(); err != nil {
		return nil, b.sum, err
	}
	d := b.design()
	var err error
	if cfg.Kind == KindDistinguish {
		err = b.distinguish(d)
	} else {
		err = b.recognition(d)
	}
	if err != nil {
		return nil, b.sum, err
	}
	slices.Sort(b.sum.BrokenSources)
	if err := b.saveCleanIndex(); err != nil {
		return nil, b.sum, err
	}
	d.Freeze()
	return d, b.sum, nil
}

type builder struct {
	mu   sync.Mutex // guards sum, cleanIdx, cleanDone, srcs during prefetch
	cfg  *Config
	ctx  context.Context
	sum  *BuildSummary
	dir  string // test-set folder
	ri   *testset.RunInfo
	root string // cache folder = Design.Root
	// runID names the test set (hash of run.json), dsID its source dataset
	// as preprocessed (kind, fingerprint, resize, crop, rounding).
	runID, dsID string
	rows        []*testset.Record // eligible rows (selected corruption, mapped label, file present)
	catOf       map[*testset.Record]string
	srcs        *dataset.SourceImages
	srcErr      error
	rounding    imageio.Rounding
	// clean originals: index.json of clean/<dsID>/
	cleanIdx   map[string]cleanEntry
	cleanDirty bool
	cleanDone  map[string]string // source → path relative to root ("" = broken)
}

type cleanEntry struct {
	Source string `json:"source"`
	SHA256 string `json:"sha256"`
}

func (b *builder) warn(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sum.Warnings = append(b.sum.Warnings, msg)
	if b.cfg.Warn != nil {
		b.cfg.Warn(msg)
	}
}

func (b *builder) bad(field, format string, a ...any) error {
	return &ConfigError{File: b.cfg.Path, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// open reads the test set and selects the eligible rows.
func (b *builder) open() error {
	cfg := b.cfg
	b.dir = cfg.Resolve(cfg.TestSet)
	ri, err := testset.ReadRunInfo(b.dir)
	if err != nil {
		return b.bad("testset", "%s is not a vcr generate output folder: %v", b.dir, err)
	}
	b.ri = ri
	if st, err := testset.ReadStatus(b.dir); err == nil && !st.Complete {
		b.warn("the test set in %s is not complete (vcr generate has not finished or was interrupted); the design uses the rows written so far", b.dir)
	}
	runJSON, err := os.ReadFile(filepath.Join(b.dir, testset.RunFile))
	if err != nil {
		return err
	}
	b.runID = shortHash(runJSON)
	b.rounding = imageio.Round
	if ri.Rounding == "truncate" {
		b.rounding = imageio.Truncate
	}
	b.dsID = shortHash([]byte(fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", ri.Dataset.Kind, ri.Dataset.Fingerprint, ri.Dataset.Resize, ri.Dataset.Crop, ri.Rounding)))
	if b.root, err = filepath.Abs(cfg.CacheDir()); err != nil {
		return err
	}
	if err := os.MkdirAll(b.root, 0o755); err != nil {
		return b.bad("cache", "cannot create the cache folder: %v", err)
	}

	// Corruptions used.
	use := map[string]bool{}
	switch {
	case cfg.Kind == KindDistinguish:
		for i, p := range cfg.Distinguish.Pairs {
			for _, c := range p {
				if !slices.Contains(ri.Corruptions, c) {
					return b.bad(fmt.Sprintf("distinguish.pairs[%d]", i), "the test set has no corruption %q (it has %s)", c, strings.Join(ri.Corruptions, ", "))
				}
				use[c] = true
			}
		}
	case len(cfg.Corruptions) > 0:
		for i, c := range cfg.Corruptions {
			if !slices.Contains(ri.Corruptions, c) {
				return b.bad(fmt.Sprintf("corruptions[%d]", i), "the test set has no corruption %q (it has %s)", c, strings.Join(ri.Corruptions, ", "))
			}
			use[c] = true
		}
	default:
		for _, c := range ri.Corruptions {
			use[c] = true
		}
	}

	label, err := b.labeler()
	if err != nil {
		return err
	}
	b.catOf = map[*testset.Record]string{}
	var firstBadLabel error
	err = testset.ReadManifest(filepath.Join(b.dir, testset.ManifestFile), func(r *testset.Record) error {
		b.sum.Rows++
		if !use[r.Corruption] {
			b.sum.SkippedCorruption++
			return nil
		}
		cat := ""
		if label != nil {
			var err error
			if cat, err = label(r); err != nil {
				if firstBadLabel == nil && !errors.Is(err, task.ErrOutsideTask) {
					firstBadLabel = err
				}
				b.sum.SkippedLabel++
				return nil
			}
		}
		// Paths a crafted manifest names outside the test set (or its
		// dataset) are refused, not served (testset.LocalPath).
		img, err := testset.LocalPath(b.dir, r.Path)
		if err == nil {
			_, err = dataset.SourceFile(b.ri.Dataset.Kind, "", r.Source)
		}
		if err != nil {
			return fmt.Errorf("%s row with id %d: %w", filepath.Join(b.dir, testset.ManifestFile), r.ID, err)
		}
		if _, err := os.Stat(img); err != nil {
			b.sum.SkippedMissing++
			return nil
		}
		rc := *r
		b.rows = append(b.rows, &rc)
		b.catOf[&rc] = cat
		return nil
	})
	if err != nil {
		return fmt.Errorf("testset: %w", err)
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	if b.sum.SkippedLabel > 0 {
		msg := fmt.Sprintf("%d of %d manifest rows skipped: their label belongs to no category of the task", b.sum.SkippedLabel, b.sum.Rows)
		if firstBadLabel != nil {
			msg += fmt.Sprintf(" (e.g. %v)", firstBadLabel)
		}
		b.warn("%s", msg)
	}
	if b.sum.SkippedMissing > 0 {
		b.warn("%d manifest rows skipped: their image file is missing from %s", b.sum.SkippedMissing, b.dir)
	}
	if len(b.rows) == 0 {
		return b.bad("testset", "%s has no usable rows (%d rows: %d of other corruptions, %d with labels outside the task, %d missing files)",
			b.dir, b.sum.Rows, b.sum.SkippedCorruption, b.sum.SkippedLabel, b.sum.SkippedMissing)
	}
	return b.loadCleanIndex()
}

func shortHash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:6])
}

// labeler returns the function mapping a manifest row to its category, or
// nil for distinguish experiments (no categories).
func (b *builder) labeler() (func(r *testset.Record) (string, error), error) {
	cfg := b.cfg
	if cfg.Kind == KindDistinguish {
		return nil, nil
	}
	var m task.Mapping
	switch cfg.Task.Preset {
	case PresetImageNet16, PresetCar:
		// The same task and ground-truth rule as vcr eval --task.
		var err error
		m, err = task.New(task.Spec{Name: cfg.Task.Preset, DatasetKind: b.ri.Dataset.Kind})
		if err != nil {
			return nil, b.bad("task", "%v", err)
		}
	}
	if m != nil {
		classes := m.Classes()
		return func(r *testset.Record) (string, error) {
			c, err := task.Truth(m, r.LabelIndex, r.LabelName)
			if err != nil {
				return "", err
			}
			return classes[c], nil
		}, nil
	}
	catOf := map[string]string{}
	for i, c := range cfg.Task.Categories {
		labels := c.Labels
		if len(labels) == 0 {
			labels = []string{c.Name}
		}
		for j, l := range labels {
			if other, dup := catOf[l]; dup {
				return nil, b.bad(fmt.Sprintf("task.categories[%d].labels[%d]", i, j), "label %q already belongs to category %q", l, other)
			}
			catOf[l] = c.Name
		}
	}
	return func(r *testset.Record) (string, error) {
		for _, l := range []string{r.LabelName, r.Label} {
			if c, ok := catOf[l]; ok && l != "" {
				return c, nil
			}
		}
		return "", task.ErrOutsideTask
	}, nil
}

// design returns the Design's fixed settings.
func (b *builder) design() *Design {
	cfg := b.cfg
	t, _ := cfg.timing()
	ab, _ := cfg.abandon()
	d := &Design{
		Name: cfg.Name, Kind: cfg.Kind, Seed: cfg.Seed, Root: b.root,
		Timing: t, ViewsPerBatch: cfg.ViewsPerBatch,
		QualificationMinCorrect: *cfg.QualificationMinCorrect, SanityMaxFailures: *cfg.SanityMaxFailures,
		ExcludeTimingMisses: cfg.ExcludeTimingMisses, Abandon: ab, Masks: cfg.Masks,
		MaskSeed:   rand.New(rand.NewPCG(cfg.Seed, 0x6d61736b)).Uint64(),
		Completion: cfg.completion(),
		Practice:   []string{}, Qualification: []string{}, Sanity: []string{},
	}
	if cfg.Kind == KindDistinguish {
		d.Categories = []Category{{Name: AnswerSame, Label: "Same", Key: "s"}, {Name: AnswerDifferent, Label: "Different", Key: "d"}}
	} else {
		d.Categories = cfg.categories()
	}
	return d
}

// rng returns the generator of one purpose (stream) of Build.
func (b *builder) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(b.cfg.Seed, 0xb17d0000+stream))
}

// source is one source image of the test set and its eligible rows.
type source struct {
	name  string
	index int
	cat   string
	label string
	rows  []*testset.Record
}

func (b *builder) sources() []*source {
	bySrc := map[string]*source{}
	var out []*source
	for _, r := range b.rows {
		s, ok := bySrc[r.Source]
		if !ok {
			s = &source{name: r.Source, index: r.SourceIndex, cat: b.catOf[r]}
			bySrc[r.Source] = s
			out = append(out, s)
		}
		s.rows = append(s.rows, r)
	}
	slices.SortFunc(out, func(x, y *source) int { return cmp.Compare(x.name, y.name) })
	b.rng(1).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (b *builder) recognition(d *Design) error {
	cfg := b.cfg
	if err := b.categoryImages(d); err != nil {
		return err
	}
	srcs := b.sources()

	// Reserve sources for practice and the qualification and sanity pools:
	// round-robin over the categories (so that the pools spread over the
	// answers), within a category the sources with the fewest rows first
	// (they cost the main batches least).
	qPool, sPool := b.pools(len(srcs))
	nRes := *cfg.Practice + qPool + sPool
	reserved := map[string]bool{}
	if nRes > 0 {
		byCat := map[string][]*source{}
		for _, s := range srcs {
			byCat[s.cat] = append(byCat[s.cat], s)
		}
		var cats []string
		for _, c := range d.Categories {
			if len(byCat[c.Name]) > 0 {
				cats = append(cats, c.Name)
				slices.SortStableFunc(byCat[c.Name], func(x, y *source) int { return cmp.Compare(len(x.rows), len(y.rows)) })
			}
		}
		var picked []*source
		for len(picked) < nRes {
			progress := false
			for _, c := range cats {
				for len(byCat[c]) > 0 && len(picked) < nRes {
					s := byCat[c][0]
					byCat[c] = byCat[c][1:]
					reserved[s.name] = true // a broken one is not used in main batches either
					p, err := b.clean(s)
					if err != nil {
						return err
					}
					if p == "" {
						continue
					}
					picked = append(picked, s)
					progress = true
					break
				}
			}
			if !progress {
				field := "practice"
				switch {
				case cfg.SanityPool > 0:
					field = "sanity_pool"
				case cfg.QualificationPool > 0:
					field = "qualification_pool"
				}
				return b.bad(field, "the test set has too few usable source images for %d practice + %d qualification (pool) + %d sanity (pool) images (found %d)",
					*cfg.Practice, qPool, sPool, len(picked))
			}
		}
		for i, s := range picked {
			role, prefix, list := RolePractice, "p", &d.Practice
			switch {
			case i >= *cfg.Practice+qPool:
				role, prefix, list = RoleSanity, "s", &d.Sanity
			case i >= *cfg.Practice:
				role, prefix, list = RoleQualification, "q", &d.Qualification
			}
			st := b.cleanStimulus(s, fmt.Sprintf("%s%04d", prefix, len(*list)), role)
			d.Stimuli = append(d.Stimuli, st)
			*list = append(*list, st.ID)
		}
		b.sum.Practice, b.sum.Qualification, b.sum.Sanity = len(d.Practice), len(d.Qualification), len(d.Sanity)
		// 0 (the whole pool) when the pool is no larger than the draw, so
		// that such a design is the one earlier versions made.
		if qPool > *cfg.Qualification {
			d.QualificationTrials = *cfg.Qualification
		}
		if sPool > *cfg.Sanity {
			d.SanityTrials = *cfg.Sanity
		}
	}

	// Main corrupted rows in a balanced order: per corruption, round-robin
	// over Δv strata (each shuffled); then round-robin over corruptions.
	corrs := b.ri.Corruptions
	if len(cfg.Corruptions) > 0 {
		corrs = cfg.Corruptions
	}
	strata := map[string][][]*testset.Record{}
	for _, c := range corrs {
		strata[c] = make([][]*testset.Record, dvBins)
	}
	for _, s := range srcs {
		if reserved[s.name] {
			continue
		}
		for _, r := range s.rows {
			k := min(int(r.DV*dvBins), dvBins-1)
			strata[r.Corruption][k] = append(strata[r.Corruption][k], r)
		}
	}
	rng := b.rng(2)
	perCorr := make([][]*testset.Record, len(corrs))
	for i, c := range corrs {
		for _, st := range strata[c] {
			slices.SortFunc(st, func(x, y *testset.Record) int { return cmp.Compare(x.ID, y.ID) })
			rng.Shuffle(len(st), func(i, j int) { st[i], st[j] = st[j], st[i] })
		}
		perCorr[i] = interleave(strata[c])
	}
	order := interleave(perCorr)

	nCorr := cfg.TrialsPerBatch - *cfg.CleanPerBatch
	nb := int(cfg.Batches)
	all := nb == 0
	if all {
		nb = len(order) / nCorr
	}
	if nb == 0 {
		return b.bad("trials_per_batch", "the test set has %d usable corrupted images, too few for one batch of %d corrupted stimuli", len(order), nCorr)
	}
	batches := make([][]*testset.Record, nb)
	inBatch := make([]map[string]bool, nb)
	for i := range inBatch {
		inBatch[i] = map[string]bool{}
	}
	// Deal the rows in order: each to the next open batch (in turn) that
	// does not hold its source yet.
	open := make([]int, nb)
	for i := range open {
		open[i] = i
	}
	pos := 0
	for _, r := range order {
		if len(open) == 0 {
			break
		}
		for k := range len(open) {
			j := (pos + k) % len(open)
			i := open[j]
			if inBatch[i][r.Source] {
				continue
			}
			batches[i] = append(batches[i], r)
			inBatch[i][r.Source] = true
			pos = j + 1
			if len(batches[i]) == nCorr {
				open = slices.Delete(open, j, j+1)
				pos = j
			}
			if len(open) > 0 {
				pos %= len(open)
			}
			break
		}
	}
	{
		full := nb - len(open)
		if full < nb {
			if !all {
				return b.bad("batches", "the test set fills only %d batches of %d corrupted stimuli with distinct source images (asked for %d); use fewer batches or \"all\"", full, nCorr, nb)
			}
			kept := batches[:0]
			keptIn := inBatch[:0]
			for i, bt := range batches {
				if len(bt) == nCorr {
					kept = append(kept, bt)
					keptIn = append(keptIn, inBatch[i])
				}
			}
			b.warn("%d incomplete batches dropped", nb-len(kept))
			batches, inBatch, nb = kept, keptIn, len(kept)
		}
	}

	// Corrupted stimuli.
	for i, bt := range batches {
		d.Batches = append(d.Batches, Batch{ID: i, Stimuli: []string{}})
		for _, r := range bt {
			rel, err := b.linkTestSetImage(r)
			if err != nil {
				return err
			}
			st := Stimulus{ID: fmt.Sprintf("m%06d", b.sum.Corrupted), Role: RoleMain, SourceID: r.Source, Dataset: b.ri.Dataset.Kind,
				Path: rel, Corruption: r.Corruption, Params: r.Params, TestSetID: r.ID, DV: r.DV, VIFMethod: r.Method,
				GroundTruth: b.catOf[r]}
			b.sum.Corrupted++
			d.Stimuli = append(d.Stimuli, st)
			d.Batches[i].Stimuli = append(d.Batches[i].Stimuli, st.ID)
		}
		if err := b.ctx.Err(); err != nil {
			return err
		}
	}

	// Clean originals: sources shown corrupted in other batches, taken in
	// turn so that as many sources as possible get a clean judgement.
	if k := *cfg.CleanPerBatch; k > 0 {
		var pool []*source
		used := map[string]bool{}
		for _, bt := range batches {
			for _, r := range bt {
				used[r.Source] = true
			}
		}
		for _, s := range srcs {
			if used[s.name] {
				pool = append(pool, s)
			}
		}
		if err := b.prefetch(pool[:min(len(pool), nb*k+nCorr+16)]); err != nil {
			return err
		}
		ids := map[string]string{}
		cursor := 0
		for i := range nb {
			got := 0
			for tries := 0; got < k && tries < len(pool); tries++ {
				s := pool[cursor]
				cursor = (cursor + 1) % len(pool)
				if inBatch[i][s.name] {
					continue
				}
				id, ok := ids[s.name]
				if !ok {
					p, err := b.clean(s)
					if err != nil {
						return err
					}
					if p == "" {
						continue
					}
					st := b.cleanStimulus(s, fmt.Sprintf("c%06d", len(ids)), RoleMain)
					d.Stimuli = append(d.Stimuli, st)
					id = st.ID
					ids[s.name] = id
				}
				inBatch[i][s.name] = true
				d.Batches[i].Stimuli = append(d.Batches[i].Stimuli, id)
				got++
			}
			if got < k {
				return b.bad("clean_per_batch", "batch %d: only %d source images are available for %d clean trials", i, got, k)
			}
			if err := b.ctx.Err(); err != nil {
				return err
			}
		}
		b.sum.Clean = len(ids)
	}
	b.sum.Batches = len(d.Batches)
	return nil
}

// pools returns the sizes of the qualification and sanity pools for a test
// set with nSrc usable source images: the configured ones, else
// DefaultPoolFactor images per trial, the two together at most
// DefaultPoolShare of nSrc, never fewer than the trials. It warns about a
// pool smaller than SmallPoolFactor images per trial.
func (b *builder) pools(nSrc int) (q, s int) {
	cfg := b.cfg
	nq, ns := *cfg.Qualification, *cfg.Sanity
	share := int(DefaultPoolShare * float64(nSrc))
	def := func(n int) int {
		if n == 0 {
			return 0
		}
		return max(n, min(DefaultPoolFactor*n, share*n/(nq+ns)))
	}
	q, s = cfg.QualificationPool, cfg.SanityPool
	if q == 0 {
		q = def(nq)
	}
	if s == 0 {
		s = def(ns)
	}
	for _, p := range []struct {
		name, role string
		pool, n    int
	}{{"qualification_pool", "qualification", q, nq}, {"sanity_pool", "sanity", s, ns}} {
		if p.n > 0 && p.pool < SmallPoolFactor*p.n {
			b.warn("%s: %d %s images, %d drawn per participant: participants share most of them, and one who returns for another study from this test set likely sees one again; %d (%d per trial) or more avoid that (set %s, or use a test set with more source images: %d are usable)",
				p.name, p.pool, p.role, p.n, SmallPoolFactor*p.n, SmallPoolFactor, p.name, nSrc)
		}
	}
	return q, s
}

// interleave takes one element of each list in turn until all are empty.
func interleave[T any](lists [][]T) []T {
	var out []T
	for i := 0; ; i++ {
		any := false
		for _, l := range lists {
			if i < len(l) {
				out = append(out, l[i])
				any = true
			}
		}
		if !any {
			return out
		}
	}
}

// cleanStimulus returns the clean-original stimulus of s (whose clean file
// must exist: b.clean returned its path).
func (b *builder) cleanStimulus(s *source, id string, role Role) Stimulus {
	return Stimulus{ID: id, Role: role, SourceID: s.name, Dataset: b.ri.Dataset.Kind, Path: b.cleanDone[s.name],
		TestSetID: -1, VIFMethod: b.ri.VIFMethod, GroundTruth: s.cat, IsOriginal: true}
}

// categoryImages copies the button images into the cache and points the
// categories at the copies.
func (b *builder) categoryImages(d *Design) error {
	for i := range d.Categories {
		c := &d.Categories[i]
		if c.Image == "" {
			continue
		}
		field := "task.categories"
		for j, cc := range b.cfg.Task.Categories {
			if cc.Name == c.Name {
				field = fmt.Sprintf("task.categories[%d].image", j)
			}
		}
		src := b.cfg.Resolve(c.Image)
		data, err := os.ReadFile(src)
		if err != nil {
			return b.bad(field, "cannot read the button image: %v", err)
		}
		if _, _, err := imageio.DecodeBytes(data, imageio.Options{}); err != nil {
			return b.bad(field, "%s is not an image vcr can read: %v", src, err)
		}
		ext := strings.ToLower(filepath.Ext(src))
		rel := path.Join(CacheCategories, fmt.Sprintf("%02d-%s%s", i, shortHash(data), ext))
		if err := writeIfChanged(filepath.Join(b.root, filepath.FromSlash(rel)), data); err != nil {
			return err
		}
		c.Image = rel
	}
	return nil
}

// writeIfChanged writes data to p unless p already holds exactly data.
func writeIfChanged(p string, data []byte) error {
	if old, err := os.ReadFile(p); err == nil && string(old) == string(data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// linkTestSetImage makes the row's image available under the cache and
// returns its path relative to the root: a hard link to the test set's
// file, or a copy where links are impossible.
func (b *builder) linkTestSetImage(r *testset.Record) (string, error) {
	rel := path.Join(CacheTestSets, b.runID, r.Path)
	dst := filepath.Join(b.root, filepath.FromSlash(rel))
	src := filepath.Join(b.dir, filepath.FromSlash(r.Path))
	si, err := os.Stat(src)
	if err != nil {
		return "", fmt.Errorf("testset: %w", err)
	}
	if di, err := os.Stat(dst); err == nil {
		if os.SameFile(si, di) {
			return rel, nil
		}
		if di.Size() == si.Size() {
			a, err1 := fileHash(src)
			c, err2 := fileHash(dst)
			if err1 == nil && err2 == nil && a == c {
				return rel, nil
			}
		}
		os.Remove(dst)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if err := os.Link(src, dst); err == nil {
		return rel, nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("testset: %w", err)
	}
	return rel, writeIfChanged(dst, data)
}

func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (b *builder) cleanDir() string { return filepath.Join(b.root, CacheClean, b.dsID) }

func (b *builder) loadCleanIndex() error {
	b.cleanIdx = map[string]cleanEntry{}
	b.cleanDone = map[string]string{}
	data, err := os.ReadFile(filepath.Join(b.cleanDir(), "index.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &b.cleanIdx); err != nil {
		b.warn("cache index %s is unreadable (%v); the clean originals are checked again", filepath.Join(b.cleanDir(), "index.json"), err)
		b.cleanIdx = map[string]cleanEntry{}
	}
	return nil
}

func (b *builder) saveCleanIndex() error {
	if !b.cleanDirty {
		return nil
	}
	data, err := json.MarshalIndent(b.cleanIdx, "", " ")
	if err != nil {
		return err
	}
	return writeIfChanged(filepath.Join(b.cleanDir(), "index.json"), append(data, '\n'))
}

// clean makes sure the clean original of s is in the cache and returns its
// path relative to the root, or "" when the source cannot be loaded (it is
// reported in the summary and skipped). Errors are for the cache only.
func (b *builder) clean(s *source) (string, error) {
	b.mu.Lock()
	p, ok := b.cleanDone[s.name]
	e, indexed := b.cleanIdx[strconv.Itoa(s.index)+".png"]
	b.mu.Unlock()
	if ok {
		return p, nil
	}
	if err := b.ctx.Err(); err != nil {
		return "", err
	}
	name := strconv.Itoa(s.index) + ".png"
	rel := path.Join(CacheClean, b.dsID, name)
	abs := filepath.Join(b.root, filepath.FromSlash(rel))
	if indexed && e.Source == s.name {
		if h, err := fileHash(abs); err == nil && h == e.SHA256 {
			b.mu.Lock()
			b.cleanDone[s.name] = rel
			b.sum.CleanCached++
			b.mu.Unlock()
			return rel, nil
		}
	}
	srcs, err := b.openSources()
	if err != nil {
		return "", err
	}
	m, err := srcs.Load(s.name)
	if err != nil {
		b.mu.Lock()
		b.cleanDone[s.name] = ""
		b.sum.BrokenSources = append(b.sum.BrokenSources, s.name)
		b.mu.Unlock()
		b.warn("not shown as a clean original: %v", err)
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	if err := imageio.Save(abs, m, imageio.EncodeOptions{Rounding: b.rounding}); err != nil {
		return "", err
	}
	h, err := fileHash(abs)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.cleanIdx[name] = cleanEntry{Source: s.name, SHA256: h}
	b.cleanDirty = true
	b.cleanDone[s.name] = rel
	b.sum.CleanWritten++
	b.mu.Unlock()
	return rel, nil
}

// openSources opens the dataset the clean originals are read from, once.
func (b *builder) openSources() (*dataset.SourceImages, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.srcs == nil && b.srcErr == nil {
		// The clean originals: the config's dataset_root, else the dataset
		// the test set's run.json records, found from wherever the server
		// runs (testset.ResolveImages).
		override := ""
		if b.cfg.DatasetRoot != "" {
			override = b.cfg.Resolve(b.cfg.DatasetRoot)
		}
		root, _, err := testset.ResolveImages(b.dir, override)
		if err == nil {
			b.srcs, err = dataset.OpenSourceImages(b.ri.Dataset.Kind, root, b.ri.Dataset.Resize, b.ri.Dataset.Crop, imageio.Options{})
		}
		if err != nil {
			field := "testset"
			if b.cfg.DatasetRoot != "" {
				field = "dataset_root"
			}
			b.srcErr = b.bad(field, "cannot read the clean originals: %v (set dataset_root to the dataset's folder)", err)
		}
	}
	return b.srcs, b.srcErr
}

// prefetch makes the clean originals of srcs in parallel (GOMAXPROCS
// workers), so that the sequential choices after it find them ready.
func (b *builder) prefetch(srcs []*source) error {
	workers := min(runtime.GOMAXPROCS(0), len(srcs))
	if workers <= 1 {
		return nil // the sequential choices load them
	}
	jobs := make(chan *source)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				if _, err := b.clean(s); err != nil {
					errs <- err
					for range jobs { // drain
					}
					return
				}
			}
		}()
	}
	for _, s := range srcs {
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return <-errs
}

// distinguish forms the batches of a distinguishability experiment. Each
// stimulus tests one configured pair (A, B): a "different" stimulus shows
// an image corrupted by A and one corrupted by B; a "same" stimulus two
// images corrupted by A (or, alternately, by B). The second image is the
// unused one with the Δv closest to the first's, so that the amount of
// degradation does not give the answer away. The two images are of
// different sources; every test-set image is used at most once.
func (b *builder) distinguish(d *Design) error {
	cfg := b.cfg
	pairs := cfg.Distinguish.Pairs
	frac := *cfg.Distinguish.SameFraction
	rng := b.rng(3)
	pool := map[string][]*testset.Record{}
	for _, r := range b.rows {
		pool[r.Corruption] = append(pool[r.Corruption], r)
	}
	for c := range pool {
		l := pool[c]
		slices.SortFunc(l, func(x, y *testset.Record) int { return cmp.Compare(x.ID, y.ID) })
		rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	}
	used := map[*testset.Record]bool{}
	banned := map[string]bool{} // sources of practice stimuli
	count := make([]int, len(pairs))
	sameCount := make([]int, len(pairs))
	// next returns the k-th stimulus of pair p avoiding the sources in
	// avoid, or ok false when the pool is exhausted.
	next := func(p int, avoid map[string]bool) (st Stimulus, ok bool) {
		k := count[p]
		same := math.Floor(float64(k+1)*frac) > math.Floor(float64(k)*frac)
		a, c := pairs[p][0], pairs[p][1]
		if same {
			if sameCount[p]%2 == 1 {
				a = c
			}
			c = a
		}
		var first *testset.Record
		for _, r := range pool[a] {
			if !used[r] && !avoid[r.Source] && !banned[r.Source] {
				first = r
				break
			}
		}
		if first == nil {
			return st, false
		}
		var second *testset.Record
		for _, r := range pool[c] {
			if r == first || used[r] || avoid[r.Source] || banned[r.Source] || r.Source == first.Source {
				continue
			}
			if second == nil || math.Abs(r.DV-first.DV) < math.Abs(second.DV-first.DV) {
				second = r
			}
		}
		if second == nil {
			return st, false
		}
		used[first], used[second] = true, true
		count[p]++
		truth := AnswerDifferent
		if same {
			sameCount[p]++
			truth = AnswerSame
		}
		// Show the two images in a random order.
		if rng.IntN(2) == 1 {
			first, second = second, first
		}
		return Stimulus{Role: RoleMain, SourceID: first.Source, Dataset: b.ri.Dataset.Kind,
			Corruption: first.Corruption, Params: first.Params, TestSetID: first.ID, DV: first.DV, VIFMethod: first.Method,
			GroundTruth: truth, SourceID2: second.Source, Corruption2: second.Corruption, Params2: second.Params, DV2: second.DV,
			Pair: pairs[p][0] + "|" + pairs[p][1], Path: first.Path, Path2: second.Path}, true
	}
	link := func(st *Stimulus) error {
		for _, p := range []*string{&st.Path, &st.Path2} {
			r := &testset.Record{Path: *p}
			rel, err := b.linkTestSetImage(r)
			if err != nil {
				return err
			}
			*p = rel
		}
		return nil
	}
	// Practice stimuli first; their sources are kept out of the batches.
	for i := range *cfg.Practice {
		st, ok := next(i%len(pairs), banned)
		if !ok {
			return b.bad("practice", "the test set has too few images of the pairs' corruptions for %d practice trials", *cfg.Practice)
		}
		banned[st.SourceID], banned[st.SourceID2] = true, true
		st.Role = RolePractice
		st.ID = fmt.Sprintf("p%04d", i)
		if err := link(&st); err != nil {
			return err
		}
		d.Stimuli = append(d.Stimuli, st)
		d.Practice = append(d.Practice, st.ID)
	}
	b.sum.Practice = len(d.Practice)
	for i := range count {
		count[i], sameCount[i] = 0, 0
	}
	n := 0
	for bi := 0; cfg.Batches == 0 || bi < int(cfg.Batches); bi++ {
		avoid := map[string]bool{}
		var sts []Stimulus
		for j := range cfg.TrialsPerBatch {
			st, ok := next((bi*cfg.TrialsPerBatch+j)%len(pairs), avoid)
			if !ok {
				break
			}
			avoid[st.SourceID], avoid[st.SourceID2] = true, true
			sts = append(sts, st)
		}
		if len(sts) < cfg.TrialsPerBatch {
			if cfg.Batches != 0 {
				return b.bad("batches", "the test set fills only %d batches of %d image pairs (asked for %d); use fewer batches or \"all\"", bi, cfg.TrialsPerBatch, cfg.Batches)
			}
			if bi == 0 {
				return b.bad("trials_per_batch", "the test set has too few images of the pairs' corruptions for one batch of %d pairs", cfg.TrialsPerBatch)
			}
			break
		}
		bt := Batch{ID: bi, Stimuli: []string{}}
		for _, st := range sts {
			st.ID = fmt.Sprintf("d%06d", n)
			n++
			if err := link(&st); err != nil {
				return err
			}
			d.Stimuli = append(d.Stimuli, st)
			bt.Stimuli = append(bt.Stimuli, st.ID)
		}
		d.Batches = append(d.Batches, bt)
		if err := b.ctx.Err(); err != nil {
			return err
		}
	}
	b.sum.Corrupted = n
	b.sum.Batches = len(d.Batches)
	return nil
}
