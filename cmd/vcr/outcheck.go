package main

import (
	"os"
	"path/filepath"
)

// checkOutDir creates the output folder dir (with its parents) and checks
// that a file can be written in it, before any long work; a failure is a
// usage error naming the flag.
func checkOutDir(flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("%s %s: cannot create the folder (%v)", flag, dir, pathCause(err))
	}
	f, err := os.CreateTemp(dir, ".vcr-write-check-*")
	if err != nil {
		return usagef("%s %s: the folder is not writable", flag, dir)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// checkOutFile checks that the output file path can be written: its folder
// is created if missing and must be writable, and path must not be a
// folder.
func checkOutFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s is a folder; name the file to write", flag, path)
	}
	return checkOutDir(flag, filepath.Dir(path))
}

// pathCause returns the cause of a path error without the path, which the
// message already names.
func pathCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
