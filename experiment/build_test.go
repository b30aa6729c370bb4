package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/testset"
)

func TestBuildRecognition(t *testing.T) {
	dir := fixture(t)
	cfg := testConfig(t, dir)
	d, sum := build(t, cfg)

	// Counts.
	if len(d.Practice) != 1 || len(d.Qualification) != 2 || len(d.Sanity) != 2 {
		t.Errorf("practice/qualification/sanity = %d/%d/%d, want 1/2/2", len(d.Practice), len(d.Qualification), len(d.Sanity))
	}
	if len(d.Batches) == 0 {
		t.Fatal("no batches")
	}
	if sum.Batches != len(d.Batches) {
		t.Errorf("summary batches %d, design %d", sum.Batches, len(d.Batches))
	}
	// 5 classes × 6 images × 2 corruptions × 40 draws: tench (n01440764)
	// is outside the 16 categories.
	if sum.Rows != 80 {
		t.Errorf("rows = %d, want 80", sum.Rows)
	}
	if sum.SkippedLabel == 0 || sum.SkippedLabel == sum.Rows {
		t.Errorf("skipped label = %d of %d, want some (the tench images)", sum.SkippedLabel, sum.Rows)
	}

	reserved := map[string]bool{}
	for _, id := range slices.Concat(d.Practice, d.Qualification, d.Sanity) {
		s := d.Stimulus(id)
		if s == nil {
			t.Fatalf("reserved stimulus %s missing", id)
		}
		if !s.IsOriginal || s.Corruption != "" {
			t.Errorf("reserved stimulus %s is not a clean original: %+v", id, s)
		}
		if reserved[s.SourceID] {
			t.Errorf("source %s reserved twice", s.SourceID)
		}
		reserved[s.SourceID] = true
	}
	corrs := map[string]int{}
	for _, b := range d.Batches {
		if len(b.Stimuli) != cfg.TrialsPerBatch {
			t.Errorf("batch %d has %d stimuli, want %d", b.ID, len(b.Stimuli), cfg.TrialsPerBatch)
		}
		seen := map[string]bool{}
		clean := 0
		for _, id := range b.Stimuli {
			s := d.Stimulus(id)
			if s == nil {
				t.Fatalf("batch %d: stimulus %s missing", b.ID, id)
			}
			if seen[s.SourceID] {
				t.Errorf("batch %d: source %s twice", b.ID, s.SourceID)
			}
			seen[s.SourceID] = true
			if reserved[s.SourceID] {
				t.Errorf("batch %d: source %s is also reserved for practice/qualification/sanity", b.ID, s.SourceID)
			}
			if s.Role != RoleMain {
				t.Errorf("batch %d: stimulus %s has role %s", b.ID, id, s.Role)
			}
			if s.IsOriginal {
				clean++
			} else {
				corrs[s.Corruption]++
				if s.DV < 0 || s.DV > 1 || s.VIFMethod == "" || s.TestSetID < 0 {
					t.Errorf("corrupted stimulus %s: %+v", id, s)
				}
			}
			if s.GroundTruth == "n01440764" || !slices.ContainsFunc(d.Categories, func(c Category) bool { return c.Name == s.GroundTruth }) {
				t.Errorf("stimulus %s has ground truth %q, not a category", id, s.GroundTruth)
			}
			// The image is in the cache, readable.
			if _, err := imageio.Load(filepath.Join(d.Root, filepath.FromSlash(s.Path)), imageio.Options{}); err != nil {
				t.Errorf("stimulus %s: %v", id, err)
			}
		}
		if clean != 2 {
			t.Errorf("batch %d has %d clean stimuli, want 2", b.ID, clean)
		}
	}
	// Spread over corruptions: both used, neither more than twice the other.
	a, b := corrs["gaussian_noise"], corrs["gaussian_blur"]
	if a == 0 || b == 0 || a > 2*b || b > 2*a {
		t.Errorf("corrupted stimuli per corruption %v: not spread", corrs)
	}
	// Every participant's whole plan (practice, qualification, main,
	// sanity) shows each source image at most once.
	for _, b := range d.Batches {
		for seq := range int64(3) {
			seen := map[string]int{}
			for _, tr := range d.Plan(b.ID, seq) {
				s := d.Stimulus(tr.StimulusID)
				if j, dup := seen[s.SourceID]; dup {
					t.Errorf("batch %d participant %d: source %s in trials %d and %d", b.ID, seq, s.SourceID, j, tr.Index)
				}
				seen[s.SourceID] = tr.Index
			}
		}
	}
	if len(d.Categories) != 16 || d.Categories[0].Name != "airplane" {
		t.Errorf("categories %v", d.Categories)
	}
	if d.Hash == "" || d.Hash != d.ComputeHash() {
		t.Error("design not frozen")
	}
}

// TestBuildCleanPairs checks that clean originals show sources that other
// batches show corrupted, so that human.ReadTrials can pair them.
func TestBuildCleanPairs(t *testing.T) {
	d, _ := build(t, testConfig(t, fixture(t)))
	corruptedIn := map[string][]int{}
	for _, b := range d.Batches {
		for _, id := range b.Stimuli {
			if s := d.Stimulus(id); !s.IsOriginal {
				corruptedIn[s.SourceID] = append(corruptedIn[s.SourceID], b.ID)
			}
		}
	}
	for _, b := range d.Batches {
		for _, id := range b.Stimuli {
			s := d.Stimulus(id)
			if s.IsOriginal && len(corruptedIn[s.SourceID]) == 0 {
				t.Errorf("clean stimulus %s (source %s) has no corrupted counterpart", id, s.SourceID)
			}
		}
	}
}

func TestBuildDeterministic(t *testing.T) {
	dir := fixture(t)
	cfg := testConfig(t, dir)
	d1, s1 := build(t, cfg)
	d2, s2 := build(t, cfg) // second run: the cache is warm
	if d1.Hash != d2.Hash {
		t.Errorf("same config, hashes %s and %s", d1.Hash, d2.Hash)
	}
	if s1.CleanWritten == 0 || s2.CleanWritten != 0 || s2.CleanCached != s1.CleanWritten {
		t.Errorf("cache: first run wrote %d, second wrote %d and found %d", s1.CleanWritten, s2.CleanWritten, s2.CleanCached)
	}
	// A fresh cache elsewhere gives the same design.
	cfg3 := testConfig(t, dir)
	d3, _ := build(t, cfg3)
	if d3.Hash != d1.Hash {
		t.Error("another cache folder changed the design")
	}
	// Another seed gives another design.
	cfg4 := testConfig(t, dir)
	cfg4.Seed = 12
	d4, _ := build(t, cfg4)
	if d4.Hash == d1.Hash {
		t.Error("another seed gave the same design")
	}
	// A corrupted cache file is rewritten.
	var clean *Stimulus
	for i := range d1.Stimuli {
		if d1.Stimuli[i].IsOriginal {
			clean = &d1.Stimuli[i]
			break
		}
	}
	p := filepath.Join(d1.Root, filepath.FromSlash(clean.Path))
	if err := os.WriteFile(p, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, s5 := build(t, cfg)
	if s5.CleanWritten != 1 {
		t.Errorf("after corrupting one cached file, %d rewritten, want 1", s5.CleanWritten)
	}
	if _, err := imageio.Load(p, imageio.Options{}); err != nil {
		t.Errorf("rewritten clean original: %v", err)
	}
}

func TestBuildExplicitBatches(t *testing.T) {
	cfg := testConfig(t, fixture(t))
	cfg.Batches = 3
	d, _ := build(t, cfg)
	if len(d.Batches) != 3 {
		t.Errorf("%d batches, want 3", len(d.Batches))
	}
	cfg.Batches = 10000
	_, err := Build(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "batches") {
		t.Errorf("10000 batches: err = %v, want an error naming batches", err)
	}
}

func TestBuildBrokenSource(t *testing.T) {
	dir := copyFixture(t)
	// Delete most dataset images of one class after generating: their
	// clean originals cannot be loaded.
	for i := range fixturePerClass - 1 {
		if err := os.Remove(filepath.Join(dir, "data", "cat", "img"+string(rune('0'+i))+".png")); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(t, dir)
	cfg.DatasetRoot = filepath.Join(dir, "data") // run.json records the original folder
	d, sum := build(t, cfg)
	if len(sum.BrokenSources) == 0 {
		t.Fatal("no broken sources reported")
	}
	for _, s := range d.Stimuli {
		if s.IsOriginal && slices.Contains(sum.BrokenSources, s.SourceID) {
			t.Errorf("clean stimulus %s of broken source %s", s.ID, s.SourceID)
		}
	}
	if len(sum.Warnings) == 0 {
		t.Error("no warnings")
	}
}

func TestBuildCustomCategories(t *testing.T) {
	dir := fixture(t)
	cfg := testConfig(t, dir)
	cfg.Task = TaskConfig{Categories: []CategoryConfig{
		{Name: "animal", Labels: []string{"bird", "cat", "dog"}},
		{Name: "vehicle", Labels: []string{"car"}, Key: "v"},
	}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	d, sum := build(t, cfg)
	if got := len(d.Categories); got != 2 || d.Categories[1].Key != "v" || d.Categories[0].Label != "animal" {
		t.Errorf("categories %+v", d.Categories)
	}
	for _, s := range d.Stimuli {
		if s.GroundTruth != "animal" && s.GroundTruth != "vehicle" {
			t.Errorf("stimulus %s: ground truth %q", s.ID, s.GroundTruth)
		}
	}
	if sum.SkippedLabel == 0 {
		t.Error("the tench rows were not skipped")
	}
}

func TestBuildCarPreset(t *testing.T) {
	cfg := testConfig(t, fixture(t))
	cfg.Task = TaskConfig{Preset: PresetCar}
	d, sum := build(t, cfg)
	truths := map[string]int{}
	for _, s := range d.Stimuli {
		truths[s.GroundTruth]++
	}
	// "car" is a car; bird, cat, dog and the tench WordNet ID are not.
	if truths["car"] == 0 || truths["not car"] == 0 || len(truths) != 2 {
		t.Errorf("ground truths %v", truths)
	}
	if sum.SkippedLabel != 0 {
		t.Errorf("car task skipped %d rows; every label is car or not car", sum.SkippedLabel)
	}
}

func TestBuildCorruptionSubset(t *testing.T) {
	cfg := testConfig(t, fixture(t))
	cfg.Corruptions = []string{"gaussian_blur"}
	d, sum := build(t, cfg)
	if sum.SkippedCorruption != 40 {
		t.Errorf("skipped %d rows of other corruptions, want 40", sum.SkippedCorruption)
	}
	for _, s := range d.Stimuli {
		if s.Corruption != "" && s.Corruption != "gaussian_blur" {
			t.Errorf("stimulus %s has corruption %s", s.ID, s.Corruption)
		}
	}
	cfg.Corruptions = []string{"frost"}
	_, err := Build(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "corruptions[0]") || !strings.Contains(err.Error(), "gaussian_blur") {
		t.Errorf("unknown corruption: err = %v, want one naming corruptions[0] and the test set's corruptions", err)
	}
}

func TestBuildDistinguish(t *testing.T) {
	dir := fixture(t)
	yaml := `
name: dist
kind: distinguish
seed: 5
testset: ` + filepath.Join(dir, "ts") + `
cache: ` + t.TempDir() + `
trials_per_batch: 4
practice: 2
distinguish:
  pairs: [[gaussian_noise, gaussian_blur]]
  same_fraction: 0.5
`
	cfg, err := ParseConfig([]byte(yaml), "dist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := build(t, cfg)
	if len(d.Batches) == 0 || len(d.Practice) != 2 {
		t.Fatalf("%d batches, %d practice", len(d.Batches), len(d.Practice))
	}
	practiceSrc := map[string]bool{}
	for _, id := range d.Practice {
		s := d.Stimulus(id)
		practiceSrc[s.SourceID], practiceSrc[s.SourceID2] = true, true
	}
	used := map[int]bool{}
	truths := map[string]int{}
	for _, b := range d.Batches {
		seen := map[string]bool{}
		for _, id := range b.Stimuli {
			s := d.Stimulus(id)
			for _, src := range []string{s.SourceID, s.SourceID2} {
				if seen[src] {
					t.Errorf("batch %d: source %s twice", b.ID, src)
				}
				seen[src] = true
				if practiceSrc[src] {
					t.Errorf("batch %d: source %s also in practice", b.ID, src)
				}
			}
			if used[s.TestSetID] {
				t.Errorf("test-set image %d used twice", s.TestSetID)
			}
			used[s.TestSetID] = true
			same := s.Corruption == s.Corruption2
			if same != (s.GroundTruth == AnswerSame) {
				t.Errorf("stimulus %s: corruptions %s/%s, ground truth %s", id, s.Corruption, s.Corruption2, s.GroundTruth)
			}
			if s.Pair != "gaussian_noise|gaussian_blur" || s.Path2 == "" {
				t.Errorf("stimulus %s: pair %q path2 %q", id, s.Pair, s.Path2)
			}
			truths[s.GroundTruth]++
		}
	}
	if truths[AnswerSame] == 0 || truths[AnswerDifferent] == 0 {
		t.Errorf("ground truths %v", truths)
	}
	if d.Categories[0].Name != AnswerSame || d.Categories[1].Name != AnswerDifferent {
		t.Errorf("categories %v", d.Categories)
	}
}

// TestBuildTestSetFixture guards the fixture itself.
func TestBuildTestSetFixture(t *testing.T) {
	ri, err := testset.ReadRunInfo(filepath.Join(fixture(t), "ts"))
	if err != nil {
		t.Fatal(err)
	}
	if ri.Rows != 80 {
		t.Errorf("fixture has %d rows", ri.Rows)
	}
}

func TestBuildErrors(t *testing.T) {
	dir := fixture(t)
	// A button image is copied into the cache; a missing one is an error
	// naming the field.
	cfg := testConfig(t, dir)
	img := filepath.Join(dir, "data", "car", "img0.png")
	cfg.Task = TaskConfig{Preset: PresetImageNet16, Categories: []CategoryConfig{{Name: "car", Image: img, Key: "c"}}}
	d, _ := build(t, cfg)
	var car Category
	for _, c := range d.Categories {
		if c.Name == "car" {
			car = c
		}
	}
	if car.Key != "c" || car.Image == "" || filepath.IsAbs(car.Image) {
		t.Fatalf("car category %+v", car)
	}
	if _, err := os.Stat(filepath.Join(d.Root, filepath.FromSlash(car.Image))); err != nil {
		t.Errorf("button image not in the cache: %v", err)
	}
	cfg.Task.Categories[0].Image = filepath.Join(dir, "nothing.png")
	if _, err := Build(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "task.categories[0].image") {
		t.Errorf("missing button image: err = %v", err)
	}

	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"no test set", func(c *Config) { c.TestSet = filepath.Join(dir, "nothing") }, "testset"},
		{"moved dataset", func(c *Config) { c.DatasetRoot = filepath.Join(dir, "nothing") }, "dataset_root"},
		{"too many reserved", func(c *Config) { c.Practice = intp(40) }, "practice"},
		{"too many clean", func(c *Config) { c.TrialsPerBatch = 40; c.CleanPerBatch = intp(39) }, "clean_per_batch"},
		{"batch too big", func(c *Config) { c.TrialsPerBatch = 500; c.CleanPerBatch = intp(0) }, "trials_per_batch"},
	} {
		cfg := testConfig(t, dir)
		tc.edit(cfg)
		_, err := Build(context.Background(), cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%s: err = %v, want a ConfigError for %s", tc.name, err, tc.field)
		}
	}
}

// TestBuildPools: qualification and sanity stimuli are pools from which
// each participant's trials are drawn (finding 2 of issue 15); a small
// pool is warned about, one the test set cannot fill is an error naming
// the field.
func TestBuildPools(t *testing.T) {
	dir := fixture(t)
	cfg := testConfig(t, dir)
	cfg.QualificationPool, cfg.SanityPool = 4, 5
	d, sum := build(t, cfg)
	if len(d.Qualification) != 4 || len(d.Sanity) != 5 || d.QualificationTrials != 2 || d.SanityTrials != 2 {
		t.Errorf("pools %d/%d, trials %d/%d; want pools 4/5, trials 2/2", len(d.Qualification), len(d.Sanity), d.QualificationTrials, d.SanityTrials)
	}
	if sum.Qualification != 4 || sum.Sanity != 5 {
		t.Errorf("summary pools %d/%d, want 4/5", sum.Qualification, sum.Sanity)
	}
	for _, f := range []string{"qualification_pool: 4 qualification images, 2 drawn", "sanity_pool: 5 sanity images, 2 drawn"} {
		if !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, f) }) {
			t.Errorf("no warning %q among %q", f, sum.Warnings)
		}
	}
	used := map[string]bool{}
	for seq := range int64(40) {
		n := map[Role]int{}
		seen := map[string]bool{}
		for _, tr := range d.Plan(0, seq) {
			s := d.Stimulus(tr.StimulusID)
			if seen[s.SourceID] {
				t.Errorf("participant %d: source %s twice", seq, s.SourceID)
			}
			seen[s.SourceID] = true
			n[tr.Role]++
			used[tr.StimulusID] = true
		}
		if n[RoleQualification] != 2 || n[RoleSanity] != 2 {
			t.Errorf("participant %d: %d qualification and %d sanity trials, want 2 and 2", seq, n[RoleQualification], n[RoleSanity])
		}
	}
	for _, id := range slices.Concat(d.Qualification, d.Sanity) {
		if !used[id] {
			t.Errorf("pool stimulus %s shown to none of 40 participants", id)
		}
	}

	// A pool larger than the test set allows.
	cfg = testConfig(t, dir)
	cfg.SanityPool = 100
	var ce *ConfigError
	if _, err := Build(context.Background(), cfg); !errors.As(err, &ce) || ce.Field != "sanity_pool" {
		t.Errorf("sanity_pool 100 on 24 sources: err = %v, want a ConfigError for sanity_pool", err)
	}
}

// TestBuildDefaultPools: the default pools are DefaultPoolFactor images
// per trial, together at most DefaultPoolShare of the usable sources,
// never fewer than the trials.
func TestBuildDefaultPools(t *testing.T) {
	for _, tc := range []struct {
		nSrc, q, s   int
		wantQ, wantS int
		warnQ, warnS bool
	}{
		// Enough sources: 20 per trial.
		{nSrc: 10000, q: 5, s: 2, wantQ: 100, wantS: 40},
		// 1000 sources: 100 for both pools, split 5:2 (71, 28).
		{nSrc: 1000, q: 5, s: 2, wantQ: 71, wantS: 28},
		// 200 sources: 20 for both, split 5:2 (14, 5): below 10 per trial.
		{nSrc: 200, q: 5, s: 2, wantQ: 14, wantS: 5, warnQ: true, warnS: true},
		// The fixture's 24 sources: the pools are the trials.
		{nSrc: 24, q: 2, s: 2, wantQ: 2, wantS: 2, warnQ: true, warnS: true},
		// No sanity trials: no pool, no warning.
		{nSrc: 10000, q: 5, s: 0, wantQ: 100, wantS: 0},
	} {
		cfg := &Config{Qualification: intp(tc.q), Sanity: intp(tc.s)}
		var warned []string
		cfg.Warn = func(msg string) { warned = append(warned, msg) }
		b := &builder{cfg: cfg, sum: &BuildSummary{}}
		q, s := b.pools(tc.nSrc)
		if q != tc.wantQ || s != tc.wantS {
			t.Errorf("%d sources, %d+%d trials: pools %d, %d; want %d, %d", tc.nSrc, tc.q, tc.s, q, s, tc.wantQ, tc.wantS)
		}
		has := func(f string) bool {
			return slices.ContainsFunc(warned, func(w string) bool { return strings.HasPrefix(w, f) })
		}
		if has("qualification_pool") != tc.warnQ || has("sanity_pool") != tc.warnS {
			t.Errorf("%d sources, %d+%d trials: warnings %q, want qualification %v, sanity %v", tc.nSrc, tc.q, tc.s, warned, tc.warnQ, tc.warnS)
		}
	}
}
