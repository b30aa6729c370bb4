package experiment

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/testset"
)

// editManifest rewrites the test set's manifest.csv in ts, setting column
// col of the first data row to v, and returns that row's id.
func editManifest(t *testing.T, ts, col, v string) string {
	t.Helper()
	p := filepath.Join(ts, testset.ManifestFile)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	recs[1][slices.Index(recs[0], col)] = v
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.WriteAll(recs)
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return recs[1][0]
}

// TestBuildConfinesManifestPaths builds designs on test sets whose manifest
// names files outside the test set or the dataset (issue 15, finding 5:
// such a test set made the server serve a file from outside it, write
// outside its cache, and show an absolute source as a qualification
// image). Every such row is refused with an error naming the manifest and
// the row, and nothing is written outside the cache.
func TestBuildConfinesManifestPaths(t *testing.T) {
	for _, tc := range []struct {
		name, col string
		value     func(dir string) string // the crafted cell
		symlink   bool                    // make the first row's image a link out instead
	}{
		{"path climbs out", "path", func(string) string { return "../outside.png" }, false},
		{"path deep climb", "path", func(string) string { return "images/../../outside.png" }, false},
		{"path absolute", "path", func(dir string) string { return filepath.ToSlash(filepath.Join(dir, "outside.png")) }, false},
		{"path symlink out", "path", nil, true},
		{"source absolute", "source", func(dir string) string { return filepath.ToSlash(filepath.Join(dir, "outside.png")) }, false},
		{"source climbs out", "source", func(string) string { return "../outside.png" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t)
			ts := filepath.Join(dir, "ts")
			// A real image outside the test set and the dataset ("../outside.png"
			// from the test set's folder).
			data, err := os.ReadFile(filepath.Join(dir, "data", "car", "img0.png"))
			if err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(dir, "outside.png")
			if err := os.WriteFile(outside, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var id string
			if tc.symlink {
				var rel string
				testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(r *testset.Record) error {
					if rel == "" {
						rel, id = r.Path, "0"
					}
					return nil
				})
				img := filepath.Join(ts, filepath.FromSlash(rel))
				os.Remove(img)
				if err := os.Symlink(outside, img); err != nil {
					t.Skip("no symbolic links:", err)
				}
			} else {
				id = editManifest(t, ts, tc.col, tc.value(dir))
			}
			cfg := testConfig(t, dir)
			cfg.DatasetRoot = filepath.Join(dir, "data")
			_, err = Build(context.Background(), cfg)
			if err == nil {
				t.Fatal("the design was built from a manifest naming a file outside")
			}
			// The manifest's own reader names the line ("row 2"), the
			// build's check of links and sources the row's id.
			for _, want := range []string{testset.ManifestFile, "row", "not a path inside the folder"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if !strings.Contains(err.Error(), "row 2") && !strings.Contains(err.Error(), "id "+id) {
				t.Errorf("error %q names neither line 2 nor id %s", err, id)
			}
		})
	}
}
