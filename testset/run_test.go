package testset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
)

// sameDir reports whether a and b name the same existing folder.
func sameDir(t *testing.T, a, b string) bool {
	t.Helper()
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// TestResolveImages generates a test set in work/ts from work/imgs given
// relatively (as a user in work/ types it), then finds the dataset from
// another working directory, after moving both folders together, from the
// absolute path when only the test set is copied elsewhere, as typed when
// neither recorded path exists, and reports what it tried otherwise.
func TestResolveImages(t *testing.T) {
	base := t.TempDir()
	work := filepath.Join(base, "work")
	makeDataset(t, filepath.Join(work, "imgs"))
	t.Chdir(work)
	src, err := dataset.Open(dataset.Spec{Path: "imgs"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Source: src, Corruptions: lookup(t, "gaussian_blur"), N: 2, Out: "ts", Workers: 1, Version: "test"}
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	ri, err := ReadRunInfo("ts")
	if err != nil {
		t.Fatal(err)
	}
	if d := ri.Dataset; d.Root != "imgs" || d.RootAbs != filepath.Join(work, "imgs") || d.RootRel != "../imgs" {
		t.Fatalf("run.json dataset root %q, root_abs %q, root_rel %q; want imgs, %s, ../imgs", d.Root, d.RootAbs, d.RootRel, filepath.Join(work, "imgs"))
	}

	check := func(ts, override, wantDir, wantHow string) {
		t.Helper()
		p, how, err := ResolveImages(ts, override)
		if err != nil || how != wantHow || !sameDir(t, p, wantDir) {
			t.Errorf("ResolveImages(%s, %q) = %s, %q, %v; want %s %q", ts, override, p, how, err, wantDir, wantHow)
		}
	}
	t.Chdir(base) // another working directory
	check("work/ts", "", filepath.Join(work, "imgs"), ResolvedRelative)
	check("work/ts", "work/imgs", filepath.Join(work, "imgs"), ResolvedOverride)

	// A copy of the test set elsewhere: the relative path misses, the
	// absolute one (the data did not move) finds it.
	os.MkdirAll(filepath.Join(base, "copy", "ts"), 0o755)
	data, _ := os.ReadFile(filepath.Join(work, "ts", RunFile))
	os.WriteFile(filepath.Join(base, "copy", "ts", RunFile), data, 0o644)
	check("copy/ts", "", filepath.Join(work, "imgs"), ResolvedAbsolute)

	// Both folders moved together.
	moved := filepath.Join(base, "moved")
	if err := os.Rename(work, moved); err != nil {
		t.Fatal(err)
	}
	check("moved/ts", "", filepath.Join(moved, "imgs"), ResolvedRelative)

	// Only the copy's recorded paths are gone: "imgs" as typed, from a
	// working directory that has it.
	t.Chdir(moved)
	check("../copy/ts", "", filepath.Join(moved, "imgs"), ResolvedAsTyped)

	// Nothing found: every candidate is named, and --images suggested.
	t.Chdir(base)
	_, _, err = ResolveImages("copy/ts", "")
	if err == nil || !strings.Contains(err.Error(), "--images") || !strings.Contains(err.Error(), filepath.Join(work, "imgs")) || !strings.Contains(err.Error(), filepath.Join("copy", "ts", "..", "imgs")) {
		t.Errorf("ResolveImages with no dataset: %v", err)
	}
	if _, _, err := ResolveImages("moved/ts", "nowhere"); err == nil || !strings.Contains(err.Error(), "--images nowhere") {
		t.Errorf("ResolveImages with a missing override: %v", err)
	}
}
