// Package localpath is the one check of paths that vcr reads from files
// (a manifest's path and source columns, run.json): a path that such a file
// names must stay inside the folder it is relative to, so that a crafted
// test set cannot make a command read, serve, embed or write a file
// elsewhere.
package localpath

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by the errors of Check and Join.
var ErrOutside = errors.New("not a path inside the folder")

// Check returns an error wrapping ErrOutside unless rel, a slash-separated
// path, names a file inside the folder it is relative to: it must be
// non-empty, relative, clean (path.Clean leaves it unchanged, so no "."
// or empty elements), and hold no ".." element, backslash, colon-prefixed
// volume or NUL byte.
func Check(rel string) error {
	why := ""
	switch {
	case rel == "":
		why = "it is empty"
	case strings.ContainsRune(rel, 0):
		why = "it holds a NUL byte"
	case strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		why = "it is absolute"
	case strings.ContainsRune(rel, '\\'):
		why = "it holds a backslash"
	case rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/.."):
		why = `it climbs out with ".."`
	case path.Clean(rel) != rel:
		why = "it is not clean (\"./\", \"//\" or a trailing slash)"
	case !filepath.IsLocal(filepath.FromSlash(rel)):
		why = "it is a reserved name"
	}
	if why != "" {
		return fmt.Errorf("%q is %w: %s", rel, ErrOutside, why)
	}
	return nil
}

// Join returns dir joined with rel (Check), and checks that the file, if it
// exists, is inside dir also after symbolic links are followed. A missing
// file is not an error here: the caller reports it as it would any missing
// file.
func Join(dir, rel string) (string, error) {
	if err := Check(rel); err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return "", err
	}
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.Rel(base, real); err != nil || !filepath.IsLocal(r) {
		return "", fmt.Errorf("%q is %w: a symbolic link leads it to %s", rel, ErrOutside, real)
	}
	return p, nil
}
