package testset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeInterrupted interrupts merges (a cancelled context in the
// middle of the manifest, and a kill after manifest.csv was in place but
// before status.json, with temporary files left behind) and runs the same
// merge again without Force: it continues, removes the temporary files,
// and writes what an undisturbed run writes (issue 15, finding 10: the
// rerun demanded --force and .tmp-* files stayed).
func TestMergeInterrupted(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	if _, err := Generate(context.Background(), testConfig(t, data, whole)); err != nil {
		t.Fatal(err)
	}
	shards := filepath.Join(root, "sharded")
	for i := range 2 {
		c := testConfig(t, data, "")
		c.Shard = Shard{i, 2}
		c.Out = c.Shard.Dir(shards)
		if _, err := Generate(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := ShardDirs(shards)
	if err != nil || len(dirs) != 2 {
		t.Fatalf("ShardDirs = %v, %v", dirs, err)
	}
	temps := func(out string) []string {
		var found []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), ".tmp-") {
				found = append(found, p)
			}
			return nil
		})
		return found
	}

	// Killed between manifest.csv and status.json.
	out := filepath.Join(root, "killed")
	if _, err := Merge(context.Background(), out, dirs, MergeOptions{Images: ImagesCopy}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, StatusFile))
	os.Remove(filepath.Join(out, CoverageFile))
	os.WriteFile(filepath.Join(out, "."+StatusFile+".tmp-9"), nil, 0o644)
	imgs, _ := filepath.Glob(filepath.Join(out, ImagesDir, "*", "*"))
	if len(imgs) == 0 {
		t.Fatal("no images merged")
	}
	os.WriteFile(filepath.Join(filepath.Dir(imgs[0]), ".x.png.tmp-5"), []byte("half an image"), 0o644)
	if _, err := Merge(context.Background(), out, dirs, MergeOptions{Images: ImagesCopy}); err != nil {
		t.Fatalf("rerun of a killed merge: %v", err)
	}
	if left := temps(out); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	sameFiles(t, whole, out)

	// A finished merge still needs Force, and so does another run's folder.
	if _, err := Merge(context.Background(), out, dirs, MergeOptions{Images: ImagesCopy}); !errors.Is(err, ErrExists) {
		t.Errorf("merge into a finished merge: %v, want ErrExists", err)
	}
	os.Remove(filepath.Join(out, StatusFile))
	ri, _ := ReadRunInfo(out)
	ri.Seed++
	writeJSON(filepath.Join(out, RunFile), ri)
	if _, err := Merge(context.Background(), out, dirs, MergeOptions{Images: ImagesCopy}); !errors.Is(err, ErrExists) {
		t.Errorf("merge into an unfinished folder of another run: %v, want ErrExists", err)
	}

	// Cancelled while moving images and writing the manifest (last: the
	// move empties the shards).
	out = filepath.Join(root, "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Merge(ctx, out, dirs, MergeOptions{Progress: func(done, total int) {
		if done == 17 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled merge: %v", err)
	}
	// What a kill at that moment leaves: atomicfile's temporary files.
	os.WriteFile(filepath.Join(out, "."+ManifestFile+".tmp-123"), []byte("id,source\n0,"), 0o644)
	if _, err := Merge(context.Background(), out, dirs, MergeOptions{}); err != nil {
		t.Fatalf("rerun of a cancelled merge: %v", err)
	}
	sameFiles(t, whole, out)

	if left := temps(out); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
