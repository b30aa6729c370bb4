package experiment

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLoadConfigExamples(t *testing.T) {
	c, err := LoadConfig("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "car-pilot" || c.Task.Preset != PresetCar || c.TrialsPerBatch != 20 || c.ViewsPerBatch != 5 || c.Batches != 0 ||
		*c.CleanPerBatch != 5 || *c.QualificationMinCorrect != 4 || !c.ExcludeTimingMisses || c.Server.MinWidth != 800 {
		t.Errorf("example.yaml read as %+v", c)
	}
	tm, err := c.timing()
	if err != nil {
		t.Fatal(err)
	}
	want := Timing{Fixation: 300 * time.Millisecond, Stimulus: 200 * time.Millisecond, Mask: 200 * time.Millisecond,
		InterTrial: 300 * time.Millisecond, ToleranceFrames: 1}
	if tm != want {
		t.Errorf("timing %+v, want %+v", tm, want)
	}
	comp := c.completion()
	if comp.RedirectURL != "https://app.prolific.com/submissions/complete?cc=C1A2B3C4" ||
		comp.ScreenOutURL != "https://app.prolific.com/submissions/complete?cc=SCREENED1" {
		t.Errorf("completion %+v", comp)
	}
	if got := c.CacheDir(); got != "testdata/example.cache" {
		t.Errorf("cache dir %q", got)
	}
	if c.Resolve("car-testset") != "testdata/car-testset" {
		t.Errorf("testset resolves to %q", c.Resolve("car-testset"))
	}

	d, err := LoadConfig("testdata/distinguish.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d.Kind != KindDistinguish || len(d.Distinguish.Pairs) != 2 || *d.Distinguish.SameFraction != 0.5 ||
		*d.Qualification != 0 || *d.Sanity != 0 || *d.CleanPerBatch != 0 {
		t.Errorf("distinguish.yaml read as %+v", d)
	}
}

// TestConfigDefaults checks the defaults of a minimal config (JSON, the
// YAML subset).
func TestConfigDefaults(t *testing.T) {
	c, err := ParseConfig([]byte(`{"name": "x", "testset": "ts", "task": "imagenet16"}`), "min.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != KindRecognition || c.TrialsPerBatch != 20 || c.ViewsPerBatch != 5 || *c.CleanPerBatch != 5 ||
		*c.Practice != 3 || *c.Qualification != 5 || *c.QualificationMinCorrect != 4 || *c.Sanity != 2 ||
		*c.SanityMaxFailures != 0 || c.Masks != 20 {
		t.Errorf("defaults: %+v", c)
	}
	if ab, _ := c.abandon(); ab != 30*time.Minute {
		t.Errorf("abandon %v", ab)
	}
	cats := c.categories()
	if len(cats) != 16 || cats[0].Key != "" || cats[15].Name != "truck" || cats[15].Label != "truck" {
		t.Errorf("imagenet16 categories %+v", cats)
	}
	c2, err := ParseConfig([]byte("name: x\ntestset: ts\ntask: car\n"), "car.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cats := c2.categories(); len(cats) != 2 || cats[0].Key != "1" || cats[1].Name != "not car" {
		t.Errorf("car categories %+v", cats)
	}
}

// TestConfigErrors checks that bad configs fail with an error naming the
// file, the field and what is allowed.
func TestConfigErrors(t *testing.T) {
	base := "name: x\ntestset: ts\ntask: imagenet16\n"
	for _, tc := range []struct {
		yaml string
		want []string // substrings of the error
	}{
		{"testset: ts\ntask: car\n", []string{"bad.yaml", "name", "required"}},
		{"name: x\ntask: car\n", []string{"testset", "required"}},
		{base + "colour: red\n", []string{"bad.yaml", `unknown field "colour"`}},
		{base + "timing:\n  stimulus: 200ms\n  flash: 1s\n", []string{`unknown field "flash"`}},
		{base + "kind: survey\n", []string{"kind", "recognition", "distinguish"}},
		{base + "trials_per_batch: 5000\n", []string{"trials_per_batch", "[1, 1000]", "5000"}},
		{base + "trials_per_batch: ten\n", []string{"trials_per_batch"}},
		{base + "views_per_batch: -2\n", []string{"views_per_batch", "[1, 10000]"}},
		{base + "batches: some\n", []string{"batches", `"all"`}},
		{base + "trials_per_batch: 10\nclean_per_batch: 10\n", []string{"clean_per_batch", "[0, trials_per_batch−1 = 9]"}},
		{base + "practice: 101\n", []string{"practice", "[0, 100]"}},
		{base + "qualification: 3\nqualification_min_correct: 4\n", []string{"qualification_min_correct", "[0, qualification = 3]"}},
		{base + "sanity: 2\nsanity_max_failures: 3\n", []string{"sanity_max_failures", "[0, sanity = 2]"}},
		{base + "timing:\n  stimulus: 200\n", []string{"timing.stimulus", "duration", `"200"`}},
		{base + "timing:\n  stimulus: 0s\n", []string{"timing.stimulus", "[1ms, 10s]"}},
		{base + "timing:\n  fixation: -1s\n", []string{"timing.fixation"}},
		{base + "timing:\n  tolerance_frames: 0\n", []string{"timing.tolerance_frames", "(0, 10]"}},
		{base + "masks: 0\nmasks: 2000\n", []string{"masks"}},
		{base + "abandon: 10s\n", []string{"abandon", "[1m, 168h]"}},
		{base + "completion:\n  platform: mechanical\n", []string{"completion.platform", "prolific", "mturk"}},
		{base + "completion:\n  platform: prolific\n", []string{"completion.code", "required"}},
		{base + "completion:\n  code: 'a b'\n", []string{"completion.code", "letters"}},
		{base + "completion:\n  redirect_url: ftp://x\n", []string{"completion.redirect_url", "http"}},
		{base + "completion:\n  platform: mturk\n  redirect_url: https://x.org\n", []string{"completion.redirect_url", "mturk"}},
		{"name: x\ntestset: ts\ntask: cars\n", []string{"task.preset", "imagenet16", "car"}},
		{"name: x\ntestset: ts\n", []string{"task", "at least two categories"}},
		{"name: x\ntestset: ts\ntask:\n  categories:\n    - {name: a}\n    - {name: a}\n", []string{"task.categories[1].name", "twice"}},
		{"name: x\ntestset: ts\ntask:\n  categories:\n    - {name: a, key: k}\n    - {name: b, key: K}\n", []string{"task.categories[1].key", "also the key"}},
		{"name: x\ntestset: ts\ntask:\n  categories:\n    - {name: a, key: ab}\n    - {name: b}\n", []string{"task.categories[0].key", "one character"}},
		{"name: x\ntestset: ts\ntask:\n  preset: imagenet16\n  categories:\n    - {name: cow}\n", []string{"task.categories[0].name", "not a category of preset imagenet16"}},
		{"name: x\ntestset: ts\ntask:\n  preset: car\n  colour: x\n", []string{`unknown field "colour"`}},
		{base + "corruptions: [a, a]\n", []string{"corruptions[1]", "repeated"}},
		{"name: x\ntestset: ts\nkind: distinguish\n", []string{"distinguish.pairs", "at least one"}},
		{"name: x\ntestset: ts\nkind: distinguish\ndistinguish:\n  pairs: [[a, a]]\n", []string{"distinguish.pairs[0]", "two different"}},
		{"name: x\ntestset: ts\nkind: distinguish\ndistinguish:\n  pairs: [[a, b]]\n  same_fraction: 2\n", []string{"distinguish.same_fraction", "[0, 1]"}},
		{"name: x\ntestset: ts\nkind: distinguish\nqualification: 3\ndistinguish:\n  pairs: [[a, b]]\n", []string{"qualification", "distinguish"}},
		{"name: x\ntestset: ts\nkind: distinguish\ntask: car\ndistinguish:\n  pairs: [[a, b]]\n", []string{"task", "empty for kind distinguish"}},
		{base + "distinguish:\n  pairs: [[a, b]]\n", []string{"distinguish", "only for kind distinguish"}},
		{"name: x\ntestset: [ts\n", []string{"bad.yaml"}},
	} {
		_, err := ParseConfig([]byte(tc.yaml), "bad.yaml")
		if err == nil {
			t.Errorf("config\n%s\nwas accepted", tc.yaml)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("config\n%s\nerror %q does not contain %q", tc.yaml, err, w)
			}
		}
	}
	_, err := ParseConfig([]byte(base+"practice: 200\n"), "bad.yaml")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "practice" || ce.File != "bad.yaml" {
		t.Errorf("error %v is not a *ConfigError for practice", err)
	}
	if _, err := LoadConfig("testdata/no-such-file.yaml"); err == nil {
		t.Error("missing file accepted")
	}
}

func TestConfigPools(t *testing.T) {
	for _, tc := range []struct {
		extra, field string
	}{
		{"sanity: 2\nsanity_pool: 1\n", "sanity_pool"},
		{"qualification: 0\nqualification_pool: 5\n", "qualification_pool"},
		{"qualification: 5\nqualification_pool: 10001\n", "qualification_pool"},
		{"sanity: 2\nsanity_pool: 2\nqualification: 5\nqualification_pool: 100\n", ""},
	} {
		_, err := ParseConfig([]byte("name: x\ntestset: ts\ntask: car\n"+tc.extra), "exp.yaml")
		var ce *ConfigError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%q: %v", tc.extra, err)
		case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
			t.Errorf("%q: err = %v, want a ConfigError for %s", tc.extra, err, tc.field)
		}
	}
}
