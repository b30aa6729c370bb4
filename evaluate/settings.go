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

// checkSettings compares want with the settings recorded for out, if any.
func checkSettings(out string, want map[string]string) error {
	path := SettingsFile(out)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var have map[string]string
	if err := json.Unmarshal(data, &have); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
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

// writeSettings records settings for out (keys sorted, so equal settings
// give equal bytes).
func writeSettings(out string, settings map[string]string) error {
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(SettingsFile(out), func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}
