package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CheckWritable checks, before any long work, that Write can create path:
// it creates path's folder if missing and makes sure a file can be created
// in it. Errors name the folder or path and the reason, never a temporary
// file's name. A path that is an existing folder is an error.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the folder %s: %w", dir, reason(err))
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder; give a file name", path)
	}
	f, err := os.CreateTemp(dir, ".vcr-check-*")
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
