package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// runCLI runs the command line and returns exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeTestImage saves a generated natural-looking image and returns its path.
func writeTestImage(t *testing.T, dir, name string, w, h int, seed uint64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := imageio.Save(p, testimg.Natural(w, h, seed), imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCorruptionsJSON(t *testing.T) {
	code, out, errs := runCLI(t, "corruptions", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var list []struct {
		Name   string `json:"name"`
		Family string `json:"family"`
		Params []struct {
			Name     string   `json:"name"`
			Min, Max *float64 `json:"-"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	var raw []map[string]any
	json.Unmarshal([]byte(out), &raw)
	names := map[string]bool{}
	for i, c := range raw {
		names[list[i].Name] = true
		if list[i].Family == "" {
			t.Errorf("%s has no family", list[i].Name)
		}
		for _, p := range c["params"].([]any) {
			pm := p.(map[string]any)
			for _, k := range []string{"name", "min", "max"} {
				if _, ok := pm[k]; !ok {
					t.Errorf("%s: param %v lacks %q", list[i].Name, pm["name"], k)
				}
			}
		}
	}
	for _, n := range strings.Fields(`gaussian_noise shot_noise impulse_noise uniform_noise blur median_blur
		gaussian_blur glass_blur defocus_blur motion_blur brightness frost hue_saturation_value
		color_jitter rgb_shift contrast jpeg_compression`) {
		if !names[n] {
			t.Errorf("corruptions --json lacks %s", n)
		}
	}
}

func TestCorruptionsTable(t *testing.T) {
	code, out, _ := runCLI(t, "corruptions")
	if code != 0 || !strings.Contains(out, "gaussian_noise") || !strings.Contains(out, "FAMILY") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// Parameters come last, so a line is as long as its own list: the
	// longest list (snow's) no longer pads every line past 160 columns.
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing padding: %q", l)
		}
		if strings.HasPrefix(l, "gaussian_noise ") && len([]rune(l)) > 80 {
			t.Errorf("gaussian_noise line has %d columns:\n%s", len([]rune(l)), l)
		}
	}
	if code, _, errs := runCLI(t, "corruptions", "--family", "nope"); code != 2 || !strings.Contains(errs, "families are") {
		t.Errorf("unknown family: exit %d, %s", code, errs)
	}
}

func TestCorruptDeterministic(t *testing.T) {
	dir := t.TempDir()
	in := writeTestImage(t, dir, "in.png", 90, 70, 1)
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	for _, out := range []string{a, b} {
		if code, _, errs := runCLI(t, "corrupt", "--corruption", "gaussian_noise", "--seed", "7", in, out); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Error("two runs with --seed 7 wrote different files")
	}
	img, err := imageio.Load(a, imageio.Options{})
	if err != nil || img.Width != 90 || img.Height != 70 {
		t.Errorf("output: %v, size %dx%d", err, img.Width, img.Height)
	}
	// A different seed gives a different image.
	c := filepath.Join(dir, "c.png")
	runCLI(t, "corrupt", "--corruption", "gaussian_noise", "--seed", "8", in, c)
	bc, _ := os.ReadFile(c)
	if bytes.Equal(ba, bc) {
		t.Error("--seed 7 and --seed 8 wrote identical files")
	}
}

func TestCorruptJSONAndParams(t *testing.T) {
	dir := t.TempDir()
	in := writeTestImage(t, dir, "in.png", 40, 40, 2)
	out := filepath.Join(dir, "out.jpg")
	code, stdout, errs := runCLI(t, "corrupt", "--json", "--corruption", "contrast", "--param", "c=0.5", in, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec struct {
		Corruption string             `json:"corruption"`
		Params     map[string]float64 `json:"params"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil || rec.Corruption != "contrast" || rec.Params["c"] != 0.5 {
		t.Errorf("json %q: %v %+v", stdout, err, rec)
	}
}

func TestCorruptBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeTestImage(t, dir, "good.png", 32, 32, 3)
	data, _ := os.ReadFile(good)
	trunc := filepath.Join(dir, "trunc.png")
	os.WriteFile(trunc, data[:len(data)/2], 0o644)
	text := filepath.Join(dir, "notes.png")
	os.WriteFile(text, []byte("this is not an image\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"truncated", []string{"--corruption", "gaussian_noise", trunc}, "trunc.png"},
		{"not an image", []string{"--corruption", "gaussian_noise", text}, "not a supported image"},
		{"missing", []string{"--corruption", "gaussian_noise", filepath.Join(dir, "nope.png")}, "does not exist"},
		{"unknown corruption", []string{"--corruption", "gausian_nois", good}, "gaussian_noise"},
		{"outside domain", []string{"--corruption", "gaussian_noise", "--param", "sigma=7", good}, "[0.0001, 1]"},
		{"unknown param", []string{"--corruption", "gaussian_noise", "--param", "radius=2", good}, "sigma"},
		{"bad output ext", []string{"--corruption", "gaussian_noise", good}, ".gif"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "_")+".png")
			if tc.name == "bad output ext" {
				out = filepath.Join(dir, "out.gif")
			}
			code, _, errs := runCLI(t, append(append([]string{"corrupt"}, tc.args...), out)...)
			if code == 0 {
				t.Fatal("exit 0, want failure")
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q does not mention %q", errs, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output file %s left behind", out)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func TestUsage(t *testing.T) {
	if code, _, _ := runCLI(t, "nope"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, out, _ := runCLI(t, "help"); code != 0 || !strings.Contains(out, "corrupt") {
		t.Errorf("help: exit %d", code)
	}
	if code, _, errs := runCLI(t, "corrupt", "--help"); code != 0 || !strings.Contains(errs, "Usage: vcr corrupt") {
		t.Errorf("corrupt --help: exit %d, %q", code, errs)
	}
	if code, _, _ := runCLI(t, "corrupt", "--bogus"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
}

// TestCatalogueDocUpToDate keeps docs/corruptions.md equal to the catalogue.
// Regenerate with: go run ./cmd/vcr corruptions --markdown > docs/corruptions.md
func TestCatalogueDocUpToDate(t *testing.T) {
	code, out, errs := runCLI(t, "corruptions", "--markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "corruptions.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != out {
		t.Error("docs/corruptions.md is stale; regenerate with: go run ./cmd/vcr corruptions --markdown > docs/corruptions.md")
	}
}

func TestCorruptFrostTextures(t *testing.T) {
	dir := t.TempDir()
	in := writeTestImage(t, dir, "in.png", 48, 40, 1)
	tex := filepath.Join(dir, "tex")
	os.Mkdir(tex, 0o755)
	for i := range 6 {
		writeTestImage(t, tex, fmt.Sprintf("frost%d.png", i+1), 60+i, 50, uint64(10+i))
	}
	out := filepath.Join(dir, "out.png")
	code, stdout, errs := runCLI(t, "corrupt", "--corruption", "frost", "--frost-textures", tex, "--seed", "3", "--json", in, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "frost6.png") || !strings.Contains(stdout, "frost1.png") {
		t.Errorf("expected the sixth texture to be reported as ignored and the used ones listed; stderr %q stdout %q", errs, stdout)
	}
	// Same seed, built-in textures: a different image.
	out2 := filepath.Join(dir, "out2.png")
	if code, _, errs := runCLI(t, "corrupt", "--corruption", "frost", "--seed", "3", in, out2); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out2)
	if bytes.Equal(a, b) {
		t.Error("user textures gave the same output as the built-in ones")
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--corruption", "frost", "--frost-textures", empty}, "no image files"},
		{[]string{"--corruption", "gaussian_noise", "--frost-textures", tex}, "only applies to --corruption frost"},
		{[]string{"--corruption", "frost", "--frost-textures", filepath.Join(dir, "nope")}, "nope"},
	} {
		o := filepath.Join(dir, "bad.png")
		code, _, errs := runCLI(t, append(append([]string{"corrupt"}, tc.args...), in, o)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want mention of %q", tc.args, code, errs, tc.want)
		}
		if _, err := os.Stat(o); err == nil {
			t.Errorf("%v: output left behind", tc.args)
		}
	}
}

// TestCorruptExtended: a value in shot noise's target range but outside its
// published domain is refused unless --extended, and 'vcr corruptions
// --json' shows the target range.
func TestCorruptExtended(t *testing.T) {
	dir := t.TempDir()
	in := writeTestImage(t, dir, "in.png", 40, 40, 2)
	out := filepath.Join(dir, "out.png")
	if code, _, errs := runCLI(t, "corrupt", "--corruption", "shot_noise", "--param", "lambda=20000", in, out); code != 2 || !strings.Contains(errs, "outside its domain") {
		t.Errorf("lambda=20000 without --extended: exit %d, %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "corrupt", "--json", "--extended", "--corruption", "shot_noise", "--param", "lambda=20000", in, out)
	if code != 0 {
		t.Fatalf("--extended: exit %d: %s", code, errs)
	}
	var rec struct {
		Params map[string]float64 `json:"params"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil || rec.Params["lambda"] != 20000 {
		t.Errorf("json %q: %v", stdout, err)
	}
	_, js, _ := runCLI(t, "corruptions", "--json", "--family", "noise")
	var list []struct {
		Name   string `json:"name"`
		Params []struct {
			Min       float64 `json:"min"`
			Max       float64 `json:"max"`
			TargetMax float64 `json:"target_max"`
			TargetLog bool    `json:"target_log"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if c.Name == "shot_noise" && (c.Params[0].Max != 5 || c.Params[0].TargetMax != 1e6 || !c.Params[0].TargetLog) {
			t.Errorf("shot_noise JSON params %+v", c.Params)
		}
	}
}
