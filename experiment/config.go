package experiment

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/task"
)

// Task presets (Config.Task.Preset).
const (
	// PresetImageNet16 is Geirhos et al.'s 16-class task (NeurIPS 2018):
	// the categories of dataset.ImageNet16Categories; ImageNet labels (WordNet
	// IDs or ImageNet-1k indices) map to them as task.ImageNet16Mapping
	// maps ground truth, and a label that is one of the 16 names is that
	// category.
	PresetImageNet16 = task.NameImageNet16
	// PresetCar is the binary car / not-car task of the ICSE 2022 study
	// (categories "car" and "not car"; labels map as task.CarTruth maps
	// ground truth: CIFAR-10 automobile and truck, or the ten ImageNet car
	// classes, are cars; every other label is "not car").
	PresetCar = task.NameCar
)

// Platforms (Config.Completion.Platform).
const (
	PlatformProlific = "prolific"
	PlatformMTurk    = "mturk"
)

// ProlificCompletionURL is Prolific's completion URL; CODE is replaced by
// the completion code.
const ProlificCompletionURL = "https://app.prolific.com/submissions/complete?cc=CODE"

// Config is an experiment config file: the design settings, from which
// Build makes a Design, and the Server section. LoadConfig reads it from
// YAML or JSON. Zero values mean "default" (see Validate and
// docs/experiment.md); fields whose zero is a meaningful setting are
// pointers.
type Config struct {
	// Name names the experiment (required).
	Name string `json:"name"`
	// Kind is KindRecognition (default) or KindDistinguish.
	Kind string `json:"kind,omitempty"`
	// Seed seeds every random choice of Build and of the participants'
	// trial orders.
	Seed uint64 `json:"seed"`
	// TestSet is the folder written by vcr generate (relative to the
	// config file).
	TestSet string `json:"testset"`
	// DatasetRoot replaces the dataset root that the test set's run.json
	// records, for the clean originals (relative to the config file).
	DatasetRoot string `json:"dataset_root,omitempty"`
	// Cache is the folder Build writes the clean originals and the
	// prepared stimuli to; the server serves images from it (relative to
	// the config file; default: the config file's name with extension
	// ".cache", beside it).
	Cache string `json:"cache,omitempty"`
	// Task gives the answer categories of a recognition experiment.
	Task TaskConfig `json:"task"`
	// Corruptions selects the test set's corruptions used (default all).
	Corruptions []string `json:"corruptions,omitempty"`

	// TrialsPerBatch is the number of main trials of a participant, the
	// batch size (default 20, as in the ICSE 2022 study).
	TrialsPerBatch int `json:"trials_per_batch,omitempty"`
	// ViewsPerBatch is how many different participants complete each batch
	// (default 5, as in the ICSE 2022 study).
	ViewsPerBatch int `json:"views_per_batch,omitempty"`
	// Batches is the number of batches; 0 (or "all" in the file) makes as
	// many as the test set fills.
	Batches BatchCount `json:"batches,omitempty"`
	// CleanPerBatch is how many of a batch's main trials show clean
	// originals, the human baseline (default TrialsPerBatch/4; 0 for
	// distinguish).
	CleanPerBatch *int `json:"clean_per_batch,omitempty"`
	// Practice, Qualification and Sanity are the numbers of practice,
	// qualification and sanity trials (defaults 3, 5, 2).
	Practice      *int `json:"practice,omitempty"`
	Qualification *int `json:"qualification,omitempty"`
	Sanity        *int `json:"sanity,omitempty"`
	// QualificationPool and SanityPool are the numbers of distinct
	// qualification and sanity images set aside; each participant's
	// Qualification and Sanity trials are drawn from them (default: 20
	// images per trial, at most a tenth of the test set's usable source
	// images, never fewer than the trials; see DefaultPoolFactor). 0 means
	// the default.
	QualificationPool int `json:"qualification_pool,omitempty"`
	SanityPool        int `json:"sanity_pool,omitempty"`
	// QualificationMinCorrect is how many qualification trials must be
	// answered correctly (default all but one, at least 1 when there are
	// qualification trials).
	QualificationMinCorrect *int `json:"qualification_min_correct,omitempty"`
	// SanityMaxFailures is the most failed sanity trials allowed (default 0).
	SanityMaxFailures *int `json:"sanity_max_failures,omitempty"`
	// ExcludeTimingMisses marks trials whose stimulus timing missed its
	// target excluded in the export.
	ExcludeTimingMisses bool `json:"exclude_timing_misses,omitempty"`

	Timing TimingConfig `json:"timing,omitempty"`
	// Masks is the number of distinct noise masks (default 20).
	Masks int `json:"masks,omitempty"`
	// Abandon frees the batch of a participant silent this long (a Go
	// duration, default "30m").
	Abandon string `json:"abandon,omitempty"`

	Completion CompletionConfig `json:"completion,omitempty"`

	// Distinguish configures a distinguishability experiment.
	Distinguish *DistinguishConfig `json:"distinguish,omitempty"`

	Server ServerConfig `json:"server,omitempty"`

	// Path is the config file (set by LoadConfig); relative paths in the
	// config are relative to its folder (the working directory when empty).
	Path string `json:"-"`
	// Warn, if not nil, receives Build's warnings as they happen.
	Warn func(msg string) `json:"-"`
}

// TaskConfig is the task section: a preset, or a list of categories, or a
// preset whose categories' labels, keys and button images are customised
// (then each category must name a preset category). In the file, a plain
// string is a preset: `task: imagenet16`.
type TaskConfig struct {
	Preset     string           `json:"preset,omitempty"`
	Categories []CategoryConfig `json:"categories,omitempty"`
}

// UnmarshalJSON accepts a preset name as a plain string.
func (t *TaskConfig) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return err
		}
		*t = TaskConfig{Preset: s}
		return nil
	}
	type plain TaskConfig
	var p plain
	if err := strictJSON(b, &p); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	*t = TaskConfig(p)
	return nil
}

// CategoryConfig is one answer category of the task.
type CategoryConfig struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
	Key   string `json:"key,omitempty"`
	// Image is a button image file, relative to the config file.
	Image string `json:"image,omitempty"`
	// Labels are the test set's labels (the manifest's label column: class
	// names, WordNet IDs, or indices of unnamed classes) that belong to
	// this category; default: the label equal to Name.
	Labels []string `json:"labels,omitempty"`
}

// TimingConfig is the trial timeline, as Go durations ("200ms", "1.5s").
// Empty fields take their defaults.
type TimingConfig struct {
	Fixation        string   `json:"fixation,omitempty"`
	Stimulus        string   `json:"stimulus,omitempty"`
	Mask            string   `json:"mask,omitempty"`
	Response        string   `json:"response,omitempty"`
	InterTrial      string   `json:"inter_trial,omitempty"`
	ToleranceFrames *float64 `json:"tolerance_frames,omitempty"`
}

// CompletionConfig says where participants go at the end.
type CompletionConfig struct {
	// Platform is "prolific", "mturk" or empty. With "prolific" the
	// redirect URLs default to ProlificCompletionURL with the codes; with
	// "mturk" the web app submits the assignment (no redirect URL).
	Platform      string `json:"platform,omitempty"`
	Code          string `json:"code,omitempty"`
	RedirectURL   string `json:"redirect_url,omitempty"`
	ScreenOutCode string `json:"screen_out_code,omitempty"`
	ScreenOutURL  string `json:"screen_out_url,omitempty"`
}

// DistinguishConfig configures a distinguishability experiment: each
// trial shows two corrupted images, corrupted by the same or by different
// corruptions, and asks whether the corruption was the same.
type DistinguishConfig struct {
	// Pairs are the corruption pairs compared, e.g. [[gaussian_noise,
	// shot_noise]]. A batch cycles through them.
	Pairs [][]string `json:"pairs"`
	// SameFraction is the share of trials whose two images have the same
	// corruption (default 0.5).
	SameFraction *float64 `json:"same_fraction,omitempty"`
}

// BatchCount is a number of batches; 0 means all the test set fills. In a
// file it is a whole number or "all".
type BatchCount int

// UnmarshalJSON accepts a whole number ≥ 0 or "all".
func (n *BatchCount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == `"all"` || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return fmt.Errorf(`batches must be a whole number ≥ 1 or "all" (got %s)`, s)
	}
	*n = BatchCount(v)
	return nil
}

// MarshalJSON writes "all" for 0.
func (n BatchCount) MarshalJSON() ([]byte, error) {
	if n == 0 {
		return []byte(`"all"`), nil
	}
	return []byte(strconv.Itoa(int(n))), nil
}

// Defaults.
const (
	DefaultTrialsPerBatch = 20
	DefaultViewsPerBatch  = 5
	DefaultPractice       = 3
	DefaultQualification  = 5
	DefaultSanity         = 2
	DefaultMasks          = 20
	DefaultAbandon        = 30 * time.Minute
	// DefaultFixation is the fixation period of Geirhos et al. (2018),
	// whose protocol the VCR studies used: a fixation square for 300 ms,
	// the stimulus for 200 ms, a pink-noise mask for 200 ms.
	DefaultFixation = 300 * time.Millisecond
	// DefaultStimulus is the 200 ms presentation of the ICSE 2022 and VCR
	// studies.
	DefaultStimulus = 200 * time.Millisecond
	// DefaultMask is Geirhos et al.'s 200 ms noise mask.
	DefaultMask = 200 * time.Millisecond
	// DefaultInterTrial is our default pause between trials (no
	// reference states one).
	DefaultInterTrial = 300 * time.Millisecond
	// DefaultToleranceFrames is the timing tolerance of the issue: the
	// stimulus must stay on screen 200 ms ± one frame.
	DefaultToleranceFrames = 1.0
	DefaultSameFraction    = 0.5
	// DefaultPoolFactor is the default size of the qualification and
	// sanity pools per trial drawn from them: a returning participant sees
	// a given image of a study again with probability 1/20 when a later
	// study draws from the same pool.
	DefaultPoolFactor = 20
	// DefaultPoolShare is the largest share of the test set's usable
	// source images the default pools take together (those sources are not
	// used by the main batches).
	DefaultPoolShare = 0.1
	// SmallPoolFactor: Build warns when a pool holds fewer than this many
	// images per trial drawn from it.
	SmallPoolFactor = 10
	// MaxPool is the largest qualification_pool or sanity_pool.
	MaxPool = 10000
)

// ConfigError is an invalid config setting.
type ConfigError struct {
	File  string // the config file, or "" for a Config built in code
	Field string // the setting, e.g. "timing.stimulus"
	Msg   string // what is wrong and what is allowed
}

func (e *ConfigError) Error() string {
	f := e.File
	if f == "" {
		f = "config"
	}
	return fmt.Sprintf("%s: %s: %s", f, e.Field, e.Msg)
}

// LoadConfig reads an experiment config from a YAML or JSON file, applies
// the defaults and validates it (Validate). Unknown fields are errors that
// name the field and the file; invalid settings return a *ConfigError
// naming the field and the allowed range.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment config: %w", err)
	}
	return ParseConfig(data, path)
}

// ParseConfig parses a YAML or JSON config; path names it in errors and
// anchors its relative paths. See LoadConfig.
func ParseConfig(data []byte, path string) (*Config, error) {
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %s", path, cleanYAMLError(err))
	}
	c.Path = path
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// cleanYAMLError drops the decoder's layers of prefixes ("error unmarshaling
// JSON: while decoding JSON: json: ") so the message reads as one sentence
// naming the field.
func cleanYAMLError(err error) string {
	s := err.Error()
	for _, p := range []string{"error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

func strictJSON(b []byte, v any) error {
	return yaml.UnmarshalStrict(b, v)
}

// Dir returns the folder relative paths in c are relative to.
func (c *Config) Dir() string {
	if c.Path == "" {
		return "."
	}
	return filepath.Dir(c.Path)
}

// Resolve returns p relative to the config file's folder (p itself when
// absolute or empty).
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir(), filepath.FromSlash(p))
}

// CacheDir returns the cache folder (Cache, or the default beside the
// config file).
func (c *Config) CacheDir() string {
	if c.Cache != "" {
		return c.Resolve(c.Cache)
	}
	base := "experiment"
	if c.Path != "" {
		base = strings.TrimSuffix(filepath.Base(c.Path), filepath.Ext(c.Path))
	}
	return filepath.Join(c.Dir(), base+".cache")
}

func intp(v int) *int { return &v }

// Validate applies the defaults to unset fields and checks every setting,
// returning a *ConfigError naming the first invalid one and its allowed
// range. It checks files only where that needs no test set (button images
// are checked by Build).
func (c *Config) Validate() error {
	bad := func(field, format string, a ...any) error {
		return &ConfigError{File: c.Path, Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if strings.TrimSpace(c.Name) == "" {
		return bad("name", "required: a name for the experiment, e.g. name: car-pilot")
	}
	if utf8.RuneCountInString(c.Name) > 200 {
		return bad("name", "at most 200 characters")
	}
	if c.Kind == "" {
		c.Kind = KindRecognition
	}
	if c.Kind != KindRecognition && c.Kind != KindDistinguish {
		return bad("kind", "must be %q or %q (got %q)", KindRecognition, KindDistinguish, c.Kind)
	}
	if c.TestSet == "" {
		return bad("testset", "required: the folder written by vcr generate")
	}
	if c.TrialsPerBatch == 0 {
		c.TrialsPerBatch = DefaultTrialsPerBatch
	}
	if c.TrialsPerBatch < 1 || c.TrialsPerBatch > 1000 {
		return bad("trials_per_batch", "must be in [1, 1000] (got %d)", c.TrialsPerBatch)
	}
	if c.ViewsPerBatch == 0 {
		c.ViewsPerBatch = DefaultViewsPerBatch
	}
	if c.ViewsPerBatch < 1 || c.ViewsPerBatch > 10000 {
		return bad("views_per_batch", "must be in [1, 10000] (got %d)", c.ViewsPerBatch)
	}
	if c.Batches < 0 || c.Batches > 1_000_000 {
		return bad("batches", `must be "all" or in [1, 1000000] (got %d)`, c.Batches)
	}
	if c.CleanPerBatch == nil {
		if c.Kind == KindDistinguish {
			c.CleanPerBatch = intp(0)
		} else {
			c.CleanPerBatch = intp(c.TrialsPerBatch / 4)
		}
	}
	if c.Kind == KindDistinguish && *c.CleanPerBatch != 0 {
		return bad("clean_per_batch", "must be 0 for kind distinguish (got %d)", *c.CleanPerBatch)
	}
	if n := *c.CleanPerBatch; n < 0 || n >= c.TrialsPerBatch {
		return bad("clean_per_batch", "must be in [0, trials_per_batch−1 = %d] (got %d)", c.TrialsPerBatch-1, n)
	}
	for _, f := range []struct {
		name string
		p    **int
		def  int
	}{{"practice", &c.Practice, DefaultPractice}, {"qualification", &c.Qualification, DefaultQualification}, {"sanity", &c.Sanity, DefaultSanity}} {
		if *f.p == nil {
			def := f.def
			if c.Kind == KindDistinguish && f.name != "practice" {
				def = 0
			}
			*f.p = intp(def)
		}
		if v := **f.p; v < 0 || v > 100 {
			return bad(f.name, "must be in [0, 100] (got %d)", v)
		}
	}
	for _, f := range []struct {
		name, count string
		v, n        int
	}{{"qualification_pool", "qualification", c.QualificationPool, *c.Qualification}, {"sanity_pool", "sanity", c.SanityPool, *c.Sanity}} {
		switch {
		case f.v == 0:
		case f.n == 0:
			return bad(f.name, "must be left out when %s is 0 (got %d)", f.count, f.v)
		case f.v < f.n || f.v > MaxPool:
			return bad(f.name, "must be in [%s = %d, %d] (got %d): each participant's %d %s trials are drawn from it, e.g. %s: %d",
				f.count, f.n, MaxPool, f.v, f.n, f.count, f.name, DefaultPoolFactor*f.n)
		}
	}
	if c.Kind == KindDistinguish {
		if *c.Qualification != 0 {
			return bad("qualification", "must be 0 for kind distinguish: qualification trials need clear recognition answers (got %d)", *c.Qualification)
		}
		if *c.Sanity != 0 {
			return bad("sanity", "must be 0 for kind distinguish (got %d)", *c.Sanity)
		}
	}
	if c.QualificationMinCorrect == nil {
		c.QualificationMinCorrect = intp(max(*c.Qualification-1, min(*c.Qualification, 1)))
	}
	if v := *c.QualificationMinCorrect; v < 0 || v > *c.Qualification {
		return bad("qualification_min_correct", "must be in [0, qualification = %d] (got %d)", *c.Qualification, v)
	}
	if c.SanityMaxFailures == nil {
		c.SanityMaxFailures = intp(0)
	}
	if v := *c.SanityMaxFailures; v < 0 || v > *c.Sanity {
		return bad("sanity_max_failures", "must be in [0, sanity = %d] (got %d)", *c.Sanity, v)
	}
	if _, err := c.timing(); err != nil {
		return err
	}
	if c.Masks == 0 {
		c.Masks = DefaultMasks
	}
	if c.Masks < 1 || c.Masks > 1000 {
		return bad("masks", "must be in [1, 1000] (got %d)", c.Masks)
	}
	if _, err := c.abandon(); err != nil {
		return err
	}
	if err := c.validateCompletion(); err != nil {
		return err
	}
	if err := c.validateJoin(); err != nil {
		return err
	}
	if err := c.validateTask(); err != nil {
		return err
	}
	for i, name := range c.Corruptions {
		if name == "" || slices.Index(c.Corruptions, name) != i {
			return bad(fmt.Sprintf("corruptions[%d]", i), "empty or repeated corruption name %q", name)
		}
	}
	if c.Kind == KindDistinguish {
		if c.Distinguish == nil || len(c.Distinguish.Pairs) == 0 {
			return bad("distinguish.pairs", "kind distinguish needs at least one corruption pair, e.g. pairs: [[gaussian_noise, shot_noise]]")
		}
		for i, p := range c.Distinguish.Pairs {
			if len(p) != 2 || p[0] == "" || p[1] == "" || p[0] == p[1] {
				return bad(fmt.Sprintf("distinguish.pairs[%d]", i), "must name two different corruptions (got %q)", p)
			}
		}
		if c.Distinguish.SameFraction == nil {
			v := DefaultSameFraction
			c.Distinguish.SameFraction = &v
		}
		if v := *c.Distinguish.SameFraction; !(v >= 0 && v <= 1) {
			return bad("distinguish.same_fraction", "must be in [0, 1] (got %v)", v)
		}
	} else if c.Distinguish != nil {
		return bad("distinguish", "only for kind distinguish (kind is %q)", c.Kind)
	}
	return nil
}

// timing returns the resolved Timing.
func (c *Config) timing() (Timing, error) {
	t := Timing{ToleranceFrames: DefaultToleranceFrames}
	for _, f := range []struct {
		name     string
		s        string
		dst      *time.Duration
		def      time.Duration
		min, max time.Duration
	}{
		{"fixation", c.Timing.Fixation, &t.Fixation, DefaultFixation, 0, 10 * time.Second},
		{"stimulus", c.Timing.Stimulus, &t.Stimulus, DefaultStimulus, time.Millisecond, 10 * time.Second},
		{"mask", c.Timing.Mask, &t.Mask, DefaultMask, 0, 10 * time.Second},
		{"response", c.Timing.Response, &t.Response, 0, 0, 10 * time.Minute},
		{"inter_trial", c.Timing.InterTrial, &t.InterTrial, DefaultInterTrial, 0, 10 * time.Second},
	} {
		*f.dst = f.def
		if f.s == "" {
			continue
		}
		d, err := parseDuration(f.s)
		if err != nil || d < f.min || d > f.max {
			return t, &ConfigError{File: c.Path, Field: "timing." + f.name,
				Msg: fmt.Sprintf("must be a duration in [%v, %v] such as \"200ms\" (got %q)", f.min, f.max, f.s)}
		}
		*f.dst = d
	}
	if c.Timing.ToleranceFrames != nil {
		v := *c.Timing.ToleranceFrames
		if !(v > 0 && v <= 10) {
			return t, &ConfigError{File: c.Path, Field: "timing.tolerance_frames", Msg: fmt.Sprintf("must be in (0, 10] frames (got %v)", v)}
		}
		t.ToleranceFrames = v
	}
	return t, nil
}

func parseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

func (c *Config) abandon() (time.Duration, error) {
	if c.Abandon == "" {
		return DefaultAbandon, nil
	}
	d, err := parseDuration(c.Abandon)
	if err != nil || d < time.Minute || d > 7*24*time.Hour {
		return 0, &ConfigError{File: c.Path, Field: "abandon", Msg: fmt.Sprintf("must be a duration in [1m, 168h] such as \"30m\" (got %q)", c.Abandon)}
	}
	return d, nil
}

// validCode reports whether s is a plausible completion code: 1–64 ASCII
// letters, digits, '-' or '_'.
func validCode(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (c *Config) validateCompletion() error {
	cc := &c.Completion
	bad := func(field, format string, a ...any) error {
		return &ConfigError{File: c.Path, Field: "completion." + field, Msg: fmt.Sprintf(format, a...)}
	}
	switch cc.Platform {
	case "", PlatformProlific, PlatformMTurk:
	default:
		return bad("platform", "must be %q, %q or empty (got %q)", PlatformProlific, PlatformMTurk, cc.Platform)
	}
	for _, f := range []struct{ name, v string }{{"code", cc.Code}, {"screen_out_code", cc.ScreenOutCode}} {
		if f.v != "" && !validCode(f.v) {
			return bad(f.name, "must be 1–64 letters, digits, '-' or '_' (got %q)", f.v)
		}
	}
	if cc.Platform == PlatformProlific && cc.Code == "" {
		return bad("code", "required with platform prolific: the study's completion code")
	}
	for _, f := range []struct{ name, v string }{{"redirect_url", cc.RedirectURL}, {"screen_out_url", cc.ScreenOutURL}} {
		if f.v == "" {
			continue
		}
		u, err := url.Parse(f.v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return bad(f.name, "must be an absolute http(s) URL (got %q)", f.v)
		}
	}
	if cc.Platform == PlatformMTurk && (cc.RedirectURL != "" || cc.ScreenOutURL != "") {
		return bad("redirect_url", "must be empty with platform mturk: the web app submits the assignment to Mechanical Turk")
	}
	return nil
}

// validateJoin checks the server's join limits and copies
// completion.platform to Server.Platform.
func (c *Config) validateJoin() error {
	sc := &c.Server
	bad := func(field, format string, a ...any) error {
		return &ConfigError{File: c.Path, Field: "server." + field, Msg: fmt.Sprintf(format, a...)}
	}
	sc.Platform = c.Completion.Platform
	if v := sc.MaxPlacesPerIP; v < -1 || v > 1_000_000 {
		return bad("max_places_per_ip", "must be in [1, 1000000], or -1 for no limit (got %d)", v)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"joins_per_minute", sc.JoinsPerMinute}, {"joins_per_minute_per_ip", sc.JoinsPerMinutePerIP}} {
		if !(f.v >= 0 && f.v <= 1e6) {
			return bad(f.name, "must be in [0, 1000000] joins per minute, 0 for the default (got %v)", f.v)
		}
	}
	if sc.AllowAnonymous && c.Completion.Platform == "" {
		return bad("allow_anonymous", "only with completion.platform (without a platform every participant may join with ?pid= or without an id)")
	}
	return nil
}

// completion returns the Design's Completion: the codes, and the redirect
// URLs with "CODE" replaced by the code (Prolific's URL by default).
func (c *Config) completion() Completion {
	cc := c.Completion
	out := Completion{Code: cc.Code, RedirectURL: cc.RedirectURL, ScreenOutCode: cc.ScreenOutCode, ScreenOutURL: cc.ScreenOutURL}
	if cc.Platform == PlatformProlific {
		if out.RedirectURL == "" {
			out.RedirectURL = ProlificCompletionURL
		}
		if out.ScreenOutURL == "" && cc.ScreenOutCode != "" {
			out.ScreenOutURL = ProlificCompletionURL
		}
	}
	out.RedirectURL = strings.ReplaceAll(out.RedirectURL, "CODE", url.QueryEscape(out.Code))
	out.ScreenOutURL = strings.ReplaceAll(out.ScreenOutURL, "CODE", url.QueryEscape(out.ScreenOutCode))
	return out
}

func (c *Config) validateTask() error {
	t := &c.Task
	bad := func(field, format string, a ...any) error {
		return &ConfigError{File: c.Path, Field: "task" + field, Msg: fmt.Sprintf(format, a...)}
	}
	if c.Kind == KindDistinguish {
		if t.Preset != "" || len(t.Categories) > 0 {
			return bad("", "must be empty for kind distinguish (the answers are %q and %q)", AnswerSame, AnswerDifferent)
		}
		return nil
	}
	var preset []string
	switch t.Preset {
	case "":
		if len(t.Categories) < 2 {
			return bad("", "give a preset (%q or %q) or at least two categories", PresetImageNet16, PresetCar)
		}
	case PresetImageNet16, PresetCar:
		preset = presetCategories(t.Preset)
	default:
		return bad(".preset", "must be %q or %q (got %q)", PresetImageNet16, PresetCar, t.Preset)
	}
	if len(t.Categories) > 100 {
		return bad(".categories", "at most 100 categories (got %d)", len(t.Categories))
	}
	names := map[string]bool{}
	keys := map[string]string{}
	for i, cat := range t.Categories {
		field := fmt.Sprintf(".categories[%d]", i)
		if cat.Name == "" || utf8.RuneCountInString(cat.Name) > 100 {
			return bad(field+".name", "required, at most 100 characters (got %q)", cat.Name)
		}
		if names[cat.Name] {
			return bad(field+".name", "category %q appears twice", cat.Name)
		}
		names[cat.Name] = true
		if preset != nil && !slices.Contains(preset, cat.Name) {
			return bad(field+".name", "%q is not a category of preset %s (%s)", cat.Name, t.Preset, strings.Join(preset, ", "))
		}
		if preset != nil && len(cat.Labels) > 0 {
			return bad(field+".labels", "the preset %s maps the labels itself; leave labels out", t.Preset)
		}
		if utf8.RuneCountInString(cat.Label) > 100 {
			return bad(field+".label", "at most 100 characters")
		}
		if cat.Key != "" {
			if utf8.RuneCountInString(cat.Key) != 1 || cat.Key == " " {
				return bad(field+".key", "must be one character other than space (got %q)", cat.Key)
			}
			k := strings.ToLower(cat.Key)
			if other, dup := keys[k]; dup {
				return bad(field+".key", "key %q is also the key of %q", cat.Key, other)
			}
			keys[k] = cat.Name
		}
		for j, l := range cat.Labels {
			if l == "" {
				return bad(fmt.Sprintf("%s.labels[%d]", field, j), "empty label")
			}
		}
	}
	return nil
}

// presetCategories returns a preset's category names.
func presetCategories(preset string) []string {
	switch preset {
	case PresetImageNet16:
		return dataset.ImageNet16Categories()
	case PresetCar:
		return []string{"car", "not car"}
	}
	return nil
}

// categories returns the Design's categories: the preset's or the
// configured ones, with the configured labels, keys and images (image paths
// as given; Build rewrites them). Categories without keys get the keys
// 1…9 when there are at most nine and none has a key.
func (c *Config) categories() []Category {
	var out []Category
	byName := map[string]CategoryConfig{}
	for _, cc := range c.Task.Categories {
		byName[cc.Name] = cc
	}
	if c.Task.Preset != "" {
		for _, n := range presetCategories(c.Task.Preset) {
			cc := byName[n]
			out = append(out, Category{Name: n, Label: cc.Label, Key: cc.Key, Image: cc.Image})
		}
	} else {
		for _, cc := range c.Task.Categories {
			out = append(out, Category{Name: cc.Name, Label: cc.Label, Key: cc.Key, Image: cc.Image})
		}
	}
	anyKey := false
	for i := range out {
		if out[i].Label == "" {
			out[i].Label = out[i].Name
		}
		anyKey = anyKey || out[i].Key != ""
	}
	if !anyKey && len(out) <= 9 {
		for i := range out {
			out[i].Key = strconv.Itoa(i + 1)
		}
	}
	return out
}
