package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/internal/atomicfile"
)

// SettingsFile returns the file beside the results out that records the
// settings they were made with (Config.Settings and the test set).
func SettingsFile(out string) string { return out + ".json" }

// SettingsError is returned when Resume meets results made with other
// settings.
type SettingsError struct {
	Path string
	// Diffs lists "key: value there, value here" per differing setting.
	Diffs []string
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("%s records other settings:\n  %s", e.Path, strings.Join(e.Diffs, "\n  "))
}

// Tool is the "tool" value of the settings file: the command that makes
// results.
const Tool = "vcr eval"

// Record is the settings file beside results (SettingsFile): which build
// of vcr made them from which test set with which model, preprocessing and
// task. The model fields are those of ModelRecord, at the top level.
type Record struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	// TestSet is the test set's folder as given.
	TestSet string `json:"testset"`
	ModelRecord
	// PreprocessingNotes say what the preprocessing adapted to the test set.
	PreprocessingNotes []string `json:"preprocessing_notes,omitempty"`
	// DVColumns are the manifest's dv_* columns copied into the results.
	DVColumns []string `json:"dv_columns,omitempty"`
	// Settings are the settings that decide the predictions (Config.Settings
	// and the test set); Resume continues only results with equal Settings.
	Settings map[string]string `json:"settings"`
}

// ReadRecord reads the settings file of the results out. Files of earlier
// versions, a flat object of settings, read as a Record with only Settings.
func ReadRecord(out string) (*Record, error) {
	path := SettingsFile(out)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil || rec.Tool == "" {
		var flat map[string]string
		if ferr := json.Unmarshal(data, &flat); ferr != nil {
			if err == nil {
				err = ferr
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &Record{Settings: flat}, nil
	}
	return &rec, nil
}

// checkSettings compares want with the settings recorded for out, if any.
func checkSettings(out string, want map[string]string) error {
	path := SettingsFile(out)
	rec, err := ReadRecord(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	have := rec.Settings
	var keys []string
	for k := range have {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := have[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		if have[k] != want[k] {
			diffs = append(diffs, fmt.Sprintf("%s: %q there, %q here", k, have[k], want[k]))
		}
	}
	if len(diffs) > 0 {
		return &SettingsError{Path: path, Diffs: diffs}
	}
	return nil
}

// writeRecord writes rec as the settings file of out (map keys sorted, so
// equal settings give equal bytes).
func writeRecord(out string, rec *Record) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(SettingsFile(out), func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}
