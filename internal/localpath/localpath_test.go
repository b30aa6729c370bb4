package localpath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"a.png", "images/blur/000001.png", "a..b/c", "..a", "data_batch_1.bin"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "../x.png", "images/../../x", "a/..", "..", "./a", "a//b", "a/", `a\..\b`, "a\x00b", "images/./a"} {
		if err := Check(bad); !errors.Is(err, ErrOutside) {
			t.Errorf("Check(%q) = %v, want ErrOutside", bad, err)
		}
	}
}

func TestJoinSymlink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.png")
	os.WriteFile(secret, []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "images"), 0o755)
	os.WriteFile(filepath.Join(dir, "images", "in.png"), []byte("x"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "images", "out.png")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	os.Symlink("in.png", filepath.Join(dir, "images", "alias.png"))
	if p, err := Join(dir, "images/in.png"); err != nil || p != filepath.Join(dir, "images", "in.png") {
		t.Errorf("Join(in.png) = %q, %v", p, err)
	}
	if _, err := Join(dir, "images/alias.png"); err != nil {
		t.Errorf("a link inside the folder: %v", err)
	}
	if _, err := Join(dir, "images/missing.png"); err != nil {
		t.Errorf("a missing file: %v (the caller reports it)", err)
	}
	if _, err := Join(dir, "images/out.png"); !errors.Is(err, ErrOutside) {
		t.Errorf("a link out of the folder: %v, want ErrOutside", err)
	}
}
