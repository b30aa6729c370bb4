package testset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
)

// TestResumeOtherFrostTextures checks that run.json records frost's texture
// set and that a resume with another set is refused, naming the key.
func TestResumeOtherFrostTextures(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	out := t.TempDir()
	cfg := testConfig(t, data, out)
	cfg.N = 2
	cfg.Corruptions = lookup(t, "gaussian_noise", "frost")
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	ri, err := readRunInfo(filepath.Join(out, RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(ri.Textures) != 1 || ri.Textures["frost"] != corrupt.FrostImageNetC {
		t.Fatalf("run.json textures = %v, want frost=%s only", ri.Textures, corrupt.FrostImageNetC)
	}
	cfg.Resume = true
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatalf("resume with the same textures: %v", err)
	}
	cfg.Corruptions[1] = corrupt.NewProceduralFrost()
	_, err = Generate(context.Background(), cfg)
	var me *MismatchError
	if !errors.As(err, &me) || len(me.Diffs) != 1 || me.Diffs[0].Key != "textures" {
		t.Fatalf("resume with procedural frost: %v, want a mismatch in textures only", err)
	}
	if !strings.Contains(err.Error(), "textures: frost=imagenet-c there, frost=procedural here") {
		t.Errorf("message %q", err)
	}
}

// TestRunInfoWithoutTextures checks that a run.json written before textures
// were recorded reads as frost = procedural when it lists frost.
func TestRunInfoWithoutTextures(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		corruptions string
		want        map[string]string
	}{
		{`["gaussian_noise","frost"]`, map[string]string{"frost": corrupt.FrostProcedural}},
		{`["gaussian_noise"]`, nil},
	} {
		p := filepath.Join(dir, RunFile)
		if err := os.WriteFile(p, []byte(`{"tool":"vcr generate","corruptions":`+tc.corruptions+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		ri, err := readRunInfo(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ri.Textures, tc.want) {
			t.Errorf("corruptions %s: textures %v, want %v", tc.corruptions, ri.Textures, tc.want)
		}
	}
}
