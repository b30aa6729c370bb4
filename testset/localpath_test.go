package testset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/internal/localpath"
)

// TestReadManifestConfinesPaths: a manifest row whose path column leaves
// the test-set folder is an error naming the file and row (issue 15,
// finding 5), for every reader of ReadManifest.
func TestReadManifestConfinesPaths(t *testing.T) {
	row := func(path string) string {
		return strings.Join([]string{"0", "car/a.png", "car", "blur", `"{""sigma"":1}"`, "1", "0.9", "0.1", path, "0", "car", "0", "", "uniform", "vcr-py", "8", "8"}, ",") + "\n"
	}
	dir := t.TempDir()
	for _, p := range []string{"../x.png", "/etc/passwd", "images/../../x.png", "images//x.png", ""} {
		m := filepath.Join(dir, ManifestFile)
		os.WriteFile(m, []byte(strings.Join(Columns, ",")+"\n"+row("images/0.png")+row(p)), 0o644)
		n := 0
		err := ReadManifest(m, func(*Record) error { n++; return nil })
		if !errors.Is(err, localpath.ErrOutside) || !strings.Contains(err.Error(), m+" row 3") || !strings.Contains(err.Error(), "column path") {
			t.Errorf("path %q: %v, want an error naming %s row 3, column path", p, err, m)
		}
		if n != 1 {
			t.Errorf("path %q: %d rows before the error, want 1", p, n)
		}
	}
	if p, err := LocalPath(dir, "images/0.png"); err != nil || p != filepath.Join(dir, "images", "0.png") {
		t.Errorf("LocalPath(images/0.png) = %q, %v", p, err)
	}
}
