package main

import (
	"path/filepath"

	"github.com/vcr-bench/vcr/internal/atomicfile"
)

// The output checks of every command: run before any long work, so that a
// typo in an output path costs seconds, not hours. A failure is a usage
// error (exit 2) naming the flag.

// checkOutDir creates the output folder dir (with its parents) if missing
// and checks that it accepts new files.
func checkOutDir(flag, dir string) error {
	if err := atomicfile.CheckWritableDir(dir); err != nil {
		return usagef("%s %s: %v", flag, dir, err)
	}
	return nil
}

// checkOutFile checks that the output file path can be written: its folder
// is created if missing and must accept files, and path must not be a
// folder.
func checkOutFile(flag, path string) error {
	if err := atomicfile.CheckWritable(path); err != nil {
		return usagef("%s %s: %v", flag, path, err)
	}
	return nil
}

// checkOutFiles runs checkOutFile on every {flag, path} pair with a path,
// and refuses two flags that name the same file.
func checkOutFiles(outs ...[2]string) error {
	seen := map[string]string{}
	for _, o := range outs {
		flag, p := o[0], o[1]
		if p == "" {
			continue
		}
		abs, _ := filepath.Abs(p)
		if prev, ok := seen[abs]; ok {
			return usagef("%s and %s both name %s; give each output its own file", prev, flag, p)
		}
		seen[abs] = flag
		if err := checkOutFile(flag, p); err != nil {
			return err
		}
	}
	return nil
}
