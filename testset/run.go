package testset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/internal/localpath"
)

// RunInfo is run.json: everything that determines the bytes a run writes.
// A folder is resumed only by a command with the same RunInfo, and shards
// merge only when their RunInfo differs in Shard.Index alone.
type RunInfo struct {
	Tool        string   `json:"tool"`
	Version     string   `json:"version"`
	Seed        uint64   `json:"seed"`
	N           int      `json:"n"`
	Corruptions []string `json:"corruptions"`
	// Textures maps each corruption of the run that draws from a texture
	// set to that set's name (corrupt.Corruption.Textures), e.g. frost to
	// "imagenet-c" (the default), "procedural" or a fingerprint of the
	// user's files; absent when no corruption has one. run.json written
	// before it existed reads as frost = "procedural" when it lists frost
	// (readRunInfo): those were frost's only textures then.
	Textures  map[string]string `json:"textures,omitempty"`
	Dataset   DatasetInfo       `json:"dataset"`
	VIFMethod string            `json:"vif_method"`
	// DVMethods are the flavours of the manifest's per-flavour Δv columns,
	// in column order (absent in run.json written before they existed).
	DVMethods   []string         `json:"dv_methods,omitempty"`
	Sampling    string           `json:"sampling"`
	Coverage    CoverageSettings `json:"coverage"`
	Pilot       int              `json:"pilot,omitempty"`
	ImageNetC   bool             `json:"imagenet_c"`
	Rounding    string           `json:"rounding"`
	Layout      string           `json:"layout"`
	Format      string           `json:"format"`
	JPEGQuality int              `json:"jpeg_quality,omitempty"`
	Rows        int              `json:"rows"`
	Shard       Shard            `json:"shard"`
}

// DatasetInfo identifies the source dataset. Fingerprint is the SHA-256 of
// every item's source, label and label name in order, so two machines that
// mount the same data at different paths agree, and a changed dataset is
// noticed.
//
// The dataset's folder or file is recorded three ways so that a test set
// can be used from any working directory and after being moved together
// with its data (ResolveImages): Root as it was given (relative to the
// working directory of vcr generate, or absolute), RootAbs made absolute,
// and RootRel relative to the test-set folder, slash-separated.
type DatasetInfo struct {
	Kind        string `json:"kind"`
	Root        string `json:"root"`
	RootAbs     string `json:"root_abs,omitempty"`
	RootRel     string `json:"root_rel,omitempty"`
	Len         int    `json:"len"`
	Fingerprint string `json:"fingerprint"`
	Resize      int    `json:"resize,omitempty"`
	Crop        int    `json:"crop,omitempty"`
}

// CoverageSettings are the coverage definition of coverage.json: Δv in
// Bins equal bins, a bin covered with ≥ MinPerBin rows.
type CoverageSettings struct {
	Bins      int `json:"bins"`
	MinPerBin int `json:"min_per_bin"`
}

// setRoot records the dataset root as given, absolute, and relative to the
// test-set folder out.
func (d *DatasetInfo) setRoot(root, out string) error {
	d.Root, d.RootAbs, d.RootRel = root, "", ""
	if root == "" {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("dataset path %s: %w", root, err)
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("output folder %s: %w", out, err)
	}
	d.RootAbs = abs
	if rel, err := filepath.Rel(outAbs, abs); err == nil {
		d.RootRel = filepath.ToSlash(rel)
	}
	return nil
}

// How ResolveImages found the source dataset.
const (
	ResolvedOverride = "as given (--images)"
	ResolvedRelative = "relative to the test set (run.json dataset.root_rel)"
	ResolvedAbsolute = "absolute path (run.json dataset.root_abs)"
	ResolvedAsTyped  = "as typed at generation, from the working directory (run.json dataset.root)"
)

// ResolveImages returns the path of the source dataset of the test set in
// testsetDir, and how it was found (one of the Resolved constants). The
// candidates, in order: override (a user's --images) if not empty, which
// must exist; the path recorded relative to the test set (so a test set
// moved together with its data still finds it); the recorded absolute path;
// the path as typed at generation, relative to the working directory. It
// returns an error listing what was tried, and telling to pass --images,
// when none exists.
func ResolveImages(testsetDir, override string) (path, how string, err error) {
	if override != "" {
		if _, err := os.Stat(override); err != nil {
			return "", "", fmt.Errorf("--images %s: %w", override, err)
		}
		return override, ResolvedOverride, nil
	}
	ri, err := ReadRunInfo(testsetDir)
	if err != nil {
		return "", "", err
	}
	d := ri.Dataset
	type cand struct{ path, how string }
	var cands []cand
	if d.RootRel != "" {
		cands = append(cands, cand{filepath.Join(testsetDir, filepath.FromSlash(d.RootRel)), ResolvedRelative})
	}
	if d.RootAbs != "" {
		cands = append(cands, cand{d.RootAbs, ResolvedAbsolute})
	}
	if d.Root != "" {
		cands = append(cands, cand{d.Root, ResolvedAsTyped})
	}
	var tried []string
	for _, c := range cands {
		if _, err := os.Stat(c.path); err == nil {
			return c.path, c.how, nil
		}
		tried = append(tried, fmt.Sprintf("%s (%s)", c.path, c.how))
	}
	if len(tried) == 0 {
		return "", "", fmt.Errorf("%s records no dataset path; pass --images with the source dataset", filepath.Join(testsetDir, RunFile))
	}
	return "", "", fmt.Errorf("cannot find the source dataset of the test set %s; tried:\n  %s\npass --images with the dataset's new location", testsetDir, strings.Join(tried, "\n  "))
}

// ImagePath returns the file of a manifest row's corrupted image: its path
// column, which is relative to the test-set folder dir (LocalPath).
func ImagePath(dir string, r *Record) (string, error) { return LocalPath(dir, r.Path) }

// LocalPath is the one check of a path that a test set's files name (a
// manifest's path column): it returns dir joined with rel, the
// slash-separated path, or an error when rel is empty, absolute, not
// clean, climbs out with "..", or leads out of dir through a symbolic
// link. Every reader that opens, serves, embeds or copies a file a
// manifest names goes through it (ReadManifest checks the path column as
// it reads, without following links). The error names rel; callers add
// the file and row.
func LocalPath(dir, rel string) (string, error) { return localpath.Join(dir, rel) }

// fingerprint hashes the items of src.
func fingerprint(src Source) string {
	h := sha256.New()
	var buf []byte
	for i := range src.Len() {
		it := src.Item(i)
		buf = buf[:0]
		buf = append(buf, it.Source...)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, int64(it.Label), 10)
		buf = append(buf, '\t')
		buf = append(buf, it.LabelName...)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readRunInfo reads run.json at path. A run.json without textures that
// lists frost was written when frost's only textures were the procedural
// ones: its Textures is set to frost = corrupt.FrostProcedural, so that
// such a folder resumes with '--frost-textures procedural' and is refused
// with the (now default) ImageNet-C textures.
func readRunInfo(path string) (*RunInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ri RunInfo
	if err := json.Unmarshal(data, &ri); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ri.Textures == nil && slices.Contains(ri.Corruptions, "frost") {
		ri.Textures = map[string]string{"frost": corrupt.FrostProcedural}
	}
	return &ri, nil
}

// Difference is one setting in which two runs differ.
type Difference struct {
	// Key is the run.json key, e.g. "seed" or "dataset.fingerprint".
	Key string
	// Have is the value recorded in the folder, Want the command's.
	Have, Want string
}

// MismatchError is returned when --resume meets a folder written with other
// settings, or merge meets shards of different runs.
type MismatchError struct {
	Path  string // the run.json that differs
	Diffs []Difference
}

func (e *MismatchError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s was written with other settings:", e.Path)
	for _, d := range e.Diffs {
		fmt.Fprintf(&sb, "\n  %s: %s there, %s here", d.Key, d.Have, d.Want)
	}
	return sb.String()
}

// diffRunInfo lists the settings in which have and want differ, by run.json
// key, skipping the keys in ignore.
func diffRunInfo(have, want *RunInfo, ignore ...string) []Difference {
	var diffs []Difference
	var walk func(prefix string, a, b reflect.Value)
	walk = func(prefix string, a, b reflect.Value) {
		t := a.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if prefix != "" {
				key = prefix + "." + key
			}
			skip := false
			for _, ig := range ignore {
				skip = skip || ig == key
			}
			if skip {
				continue
			}
			fa, fb := a.Field(i), b.Field(i)
			if f.Type.Kind() == reflect.Struct {
				walk(key, fa, fb)
				continue
			}
			if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
				diffs = append(diffs, Difference{Key: key, Have: show(fa.Interface()), Want: show(fb.Interface())})
			}
		}
	}
	walk("", reflect.ValueOf(*have), reflect.ValueOf(*want))
	return diffs
}

func show(v any) string {
	switch x := v.(type) {
	case map[string]string:
		if len(x) == 0 {
			return "(none)"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + x[k]
		}
		return strings.Join(keys, ",")
	case []string:
		if len(x) == 0 {
			return "(none)"
		}
		return strings.Join(x, ",")
	case string:
		if x == "" {
			return `""`
		}
	}
	return fmt.Sprint(v)
}
