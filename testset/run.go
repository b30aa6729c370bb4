package testset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// RunInfo is run.json: everything that determines the bytes a run writes.
// A folder is resumed only by a command with the same RunInfo, and shards
// merge only when their RunInfo differs in Shard.Index alone.
type RunInfo struct {
	Tool        string      `json:"tool"`
	Version     string      `json:"version"`
	Seed        uint64      `json:"seed"`
	N           int         `json:"n"`
	Corruptions []string    `json:"corruptions"`
	Dataset     DatasetInfo `json:"dataset"`
	VIFMethod   string      `json:"vif_method"`
	Sampling    string      `json:"sampling"`
	Pilot       int         `json:"pilot,omitempty"`
	ImageNetC   bool        `json:"imagenet_c"`
	Rounding    string      `json:"rounding"`
	Layout      string      `json:"layout"`
	Format      string      `json:"format"`
	JPEGQuality int         `json:"jpeg_quality,omitempty"`
	Rows        int         `json:"rows"`
	Shard       Shard       `json:"shard"`
}

// DatasetInfo identifies the source dataset. Fingerprint is the SHA-256 of
// every item's source, label and label name in order, so two machines that
// mount the same data at different paths agree, and a changed dataset is
// noticed.
type DatasetInfo struct {
	Kind        string `json:"kind"`
	Root        string `json:"root"`
	Len         int    `json:"len"`
	Fingerprint string `json:"fingerprint"`
	Resize      int    `json:"resize,omitempty"`
	Crop        int    `json:"crop,omitempty"`
}

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

// readRunInfo reads run.json at path.
func readRunInfo(path string) (*RunInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ri RunInfo
	if err := json.Unmarshal(data, &ri); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
	case []string:
		return strings.Join(x, ",")
	case string:
		if x == "" {
			return `""`
		}
	}
	return fmt.Sprint(v)
}
