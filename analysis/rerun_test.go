package analysis

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRerunRemovesStaleOutputs analyses two corruptions into a folder, then
// one: the second run removes the first's files of the corruption it no
// longer has (its plots), keeps every file it wrote again and a file the
// user put there, and lists exactly its own files in OutputList.
func TestRerunRemovesStaleOutputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "A")
	o := testOptions(resultsCSV(t, dir, "m", []string{"frost", "gaussian_noise"}, true))
	o.Out = out
	first, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(out, "notes.txt")
	os.WriteFile(user, []byte("mine"), 0o644)
	o2 := testOptions(resultsCSV(t, dir, "m2", []string{"frost"}, true))
	o2.Out = out
	second, err := Run(context.Background(), o2)
	if err != nil {
		t.Fatal(err)
	}
	var stale int
	for _, f := range first.Files {
		if filepath.Dir(f) != out {
			t.Fatalf("%s is not directly in the analysis folder", f)
		}
		_, err := os.Stat(f)
		again := slices.Contains(second.Files, f)
		switch {
		case again && err != nil:
			t.Errorf("%s written again but missing: %v", f, err)
		case !again && err == nil:
			t.Errorf("%s of the first analysis left beside the second's", f)
		case !again:
			stale++
		}
	}
	if stale == 0 {
		t.Fatal("the first analysis wrote nothing the second did not: the test proves nothing")
	}
	if _, err := os.Stat(user); err != nil {
		t.Errorf("the user's file was removed: %v", err)
	}
	list, err := os.ReadFile(filepath.Join(out, OutputList))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, f := range second.Files {
		want += filepath.Base(f) + "\n"
	}
	if string(list) != want {
		t.Errorf("%s:\n%s\nwant\n%s", OutputList, list, want)
	}
	// A crafted list cannot reach outside the folder.
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(out, OutputList), []byte("../victim.txt\n"+victim+"\n"), 0o644)
	if _, err := Run(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("a crafted %s removed a file outside the folder: %v", OutputList, err)
	}
}
