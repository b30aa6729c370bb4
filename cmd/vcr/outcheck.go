package main

import (
	"bytes"
	"io"
	"os"
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

// checkNotForeign refuses an existing, non-empty file at path that does not
// look like the command's own output (ours inspects the file's first 64 KiB):
// a slip such as --out preds.csv would otherwise replace a user's data
// without a word. The command's own earlier output is replaced, as before.
// what names the expected content, e.g. "a requirements file".
func checkNotForeign(flag, path, what string, ours func(head []byte) bool) error {
	if path == "" || path == "-" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // missing; an unreadable path is reported by the write
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	if n == 0 || ours(head[:n]) {
		return nil
	}
	return usagef("%s %s: the file exists and is not %s, so it is not replaced; give a new file name (or delete the file first)", flag, path, what)
}

// jsonOfTool reports whether head is a JSON file that vcr's tool wrote
// (its "tool" field, which vcr writes first).
func jsonOfTool(tool string) func(head []byte) bool {
	return func(head []byte) bool {
		return bytes.Contains(head, []byte(`"tool": "`+tool+`"`)) || bytes.Contains(head, []byte(`"tool":"`+tool+`"`))
	}
}
