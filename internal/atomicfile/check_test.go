package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckWritableDirNamesTheFile checks that an output folder that is, or
// lies under, an existing file is refused with a message naming that file
// and saying to give a folder, and that a fresh folder is created.
func TestCheckWritableDirNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "req.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{file, filepath.Join(file, "sub"), filepath.Join(file, "a", "b")} {
		err := CheckWritableDir(d)
		if err == nil {
			t.Fatalf("CheckWritableDir(%s): no error", d)
		}
		for _, want := range []string{"cannot create the folder " + d, "(" + file + " is a file, not a folder)"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("CheckWritableDir(%s) = %q, lacks %q", d, err, want)
			}
		}
	}
	fresh := filepath.Join(dir, "new", "out")
	if err := CheckWritableDir(fresh); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(fresh); err != nil || !st.IsDir() {
		t.Errorf("%s not created: %v", fresh, err)
	}
	if err := CheckWritable(file); err != nil {
		t.Errorf("CheckWritable of an existing file's path: %v", err)
	}
}
