package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CheckWritable checks, before any long work, that Write can create path:
// its folder is created (with its parents) if missing and must accept new
// files, and path must not be a folder. Errors name path or its folder,
// never the probe file's temporary name.
func CheckWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder; give a file name, e.g. %s", path, filepath.Join(path, "out"+filepath.Ext(path)))
	}
	return CheckWritableDir(filepath.Dir(path))
}

// CheckWritableDir creates the folder dir (with its parents) if missing
// and checks that it accepts new files.
func CheckWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		if file := fileAbove(dir); file != "" {
			return fmt.Errorf("cannot create the folder %s: %w (%s is a file, not a folder)", dir, reason(err), file)
		}
		return fmt.Errorf("cannot create the folder %s: %w", dir, reason(err))
	}
	f, err := os.CreateTemp(dir, ".vcr-check.tmp-*") // a name generate's resume ignores
	if err != nil {
		return fmt.Errorf("cannot write in the folder %s: %w", dir, reason(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// reason drops the *os.PathError wrapper (whose path may be a temporary
// name) and keeps why the operation failed.
func reason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileAbove returns dir itself or the nearest of its parents that exists
// when that is not a folder (the reason a folder cannot be created there),
// or "".
func fileAbove(dir string) string {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return ""
			}
			return p
		}
		if filepath.Dir(p) == p {
			return ""
		}
	}
}
