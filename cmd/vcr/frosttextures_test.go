package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/testset"
)

// TestCorruptAcceptsImageNetCManifest generates an ImageNet-C test set of
// every corruption with severities ('vcr generate --imagenet-c'), then
// re-applies every row's parameters, as the manifest records them, with
// 'vcr corrupt --extended --param name=value …': each must be accepted
// (before, glass_blur iterations 2–3, fog decay 1.4, snow blur_sigma 4 and
// gaussian_blur sigma 6 were refused even with --extended).
func TestCorruptAcceptsImageNetCManifest(t *testing.T) {
	dir := t.TempDir()
	data, ts := filepath.Join(dir, "data"), filepath.Join(dir, "ts")
	mustRun(t, "synth", "--out", data, "--n", "2", "--size", "32", "--classes", "2", "--seed", "4")
	var names []string
	for _, c := range corrupt.All() {
		if len(c.Severities) == 5 {
			names = append(names, c.Name)
		}
	}
	mustRun(t, "generate", "--images", data, "--corruptions", strings.Join(names, ","), "--n", "1", "--imagenet-c",
		"--vif-method", "pixel", "--dv-methods", "pixel", "--out", ts, "--progress", "never")
	in := writeTestImage(t, dir, "in.png", 40, 32, 1)
	rows := 0
	err := testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(r *testset.Record) error {
		var p map[string]float64
		if err := json.Unmarshal([]byte(r.Params), &p); err != nil {
			return fmt.Errorf("row %d params %s: %w", r.ID, r.Params, err)
		}
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		args := []string{"corrupt", "--corruption", r.Corruption, "--extended"}
		for _, k := range keys {
			args = append(args, "--param", fmt.Sprintf("%s=%v", k, p[k]))
		}
		out := filepath.Join(dir, "out.png")
		if code, _, errs := runCLI(t, append(args, in, out)...); code != 0 {
			t.Errorf("%s (manifest params %s): exit %d: %s", r.Corruption, r.Params, code, errs)
		}
		rows++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 5*len(names) {
		t.Errorf("%d manifest rows, want 5 severities × %d corruptions", rows, len(names))
	}
}

// TestFrostTextureSets checks --frost-textures imagenet-c (the default) and
// procedural in vcr corrupt, and that vcr generate records the set in
// run.json and refuses to resume with another.
func TestFrostTextureSets(t *testing.T) {
	dir := t.TempDir()
	in := writeTestImage(t, dir, "in.png", 48, 40, 1)
	outs := map[string][]byte{}
	for _, set := range []string{"", "imagenet-c", "procedural"} {
		out := filepath.Join(dir, "out-"+set+".png")
		args := []string{"corrupt", "--corruption", "frost", "--seed", "3", "--json"}
		if set != "" {
			args = append(args, "--frost-textures", set)
		}
		code, stdout, errs := runCLI(t, append(args, in, out)...)
		if code != 0 {
			t.Fatalf("--frost-textures %q: exit %d: %s", set, code, errs)
		}
		want := set
		if want == "" {
			want = "imagenet-c"
		}
		if !strings.Contains(stdout, `"textures": "`+want+`"`) {
			t.Errorf("--frost-textures %q: JSON %s does not record textures %s", set, stdout, want)
		}
		outs[set], _ = os.ReadFile(out)
	}
	if !bytes.Equal(outs[""], outs["imagenet-c"]) || bytes.Equal(outs[""], outs["procedural"]) {
		t.Error("default must equal imagenet-c and differ from procedural")
	}

	data, ts := filepath.Join(dir, "data"), filepath.Join(dir, "ts")
	mustRun(t, "synth", "--out", data, "--n", "2", "--size", "32", "--classes", "2", "--seed", "4")
	base := []string{"generate", "--images", data, "--corruptions", "frost", "--n", "2", "--vif-method", "pixel", "--dv-methods", "pixel", "--out", ts, "--progress", "never"}
	mustRun(t, append(base, "--frost-textures", "procedural")...)
	ri, err := testset.ReadRunInfo(ts)
	if err != nil || ri.Textures["frost"] != "procedural" {
		t.Fatalf("run.json textures %v (%v), want frost=procedural", ri.Textures, err)
	}
	mustRun(t, append(base, "--frost-textures", "procedural", "--resume")...)
	code, _, errs := runCLI(t, append(base, "--resume")...)
	if code == 0 || !strings.Contains(errs, "textures: frost=procedural in the folder, frost=imagenet-c now") {
		t.Errorf("resume with the default textures: exit %d, stderr %q, want a textures mismatch", code, errs)
	}
	code, _, errs = runCLI(t, "generate", "--images", data, "--corruptions", "gaussian_noise", "--n", "2", "--out", filepath.Join(dir, "ts2"), "--frost-textures", "procedural")
	if code != 2 || !strings.Contains(errs, "only applies when --corruptions includes frost") {
		t.Errorf("--frost-textures without frost: exit %d, stderr %q", code, errs)
	}
}
