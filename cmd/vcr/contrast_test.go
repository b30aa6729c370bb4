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
	"github.com/vcr-bench/vcr/report"
)

// contrastPairs are one pair per ordered group (low … high) and others.
var contrastPairs = [][2]string{{"red", "red"}, {"green", "blue"}, {"blue", "white"}, {"white", "black"}, {"others", "red"}}

// writeContrastInputs writes colors.csv (10 images per group) and, per
// model, a results.csv in vcr eval's format with severities 1…3. Model
// "steep" answers image k of group g correctly when k < 4 + 2g (clean)
// and k < 4 + 2g − s (severity s); "flat" when k < 6 (clean) and k < 6 − s.
func writeContrastInputs(t *testing.T, dir string) (labels string, res []string) {
	t.Helper()
	var l strings.Builder
	l.WriteString("id,background,foreground\n")
	for g, p := range contrastPairs {
		for k := range 10 {
			fmt.Fprintf(&l, "img/%d_%d.png,%s,%s\n", g, k, p[0], p[1])
		}
	}
	labels = filepath.Join(dir, "colors.csv")
	if err := os.WriteFile(labels, []byte(l.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bit := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	for _, m := range []string{"steep", "flat"} {
		var b strings.Builder
		b.WriteString("id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n")
		id := 0
		for g := range contrastPairs {
			for k := range 10 {
				lim := 6
				if m == "steep" {
					lim = 4 + 2*min(g, 3)
				}
				for s := 1; s <= 3; s++ {
					id++
					fmt.Fprintf(&b, "%06d,img/%d_%d.png,gaussian_noise,%d,sigma=0.1,0.3,vec,1,cat,cat,cat,%s,%s,1,,,\n",
						id, g, k, s, bit(k < lim), bit(k < lim-s))
				}
			}
		}
		p := filepath.Join(dir, m, "results.csv")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		res = append(res, p)
	}
	return labels, res
}

func TestContrastCLI(t *testing.T) {
	dir := t.TempDir()
	labels, res := writeContrastInputs(t, dir)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCmd(t, "contrast", "--color-labels", labels, "--results", strings.Join(res, ","), "--out", out, "--bootstrap", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var f struct {
		LevelKind string   `json:"level_kind"`
		Levels    []string `json:"levels"`
		Models    []struct {
			Model string `json:"model"`
			Clean struct {
				Groups []struct {
					Group    string   `json:"group"`
					Accuracy *float64 `json:"accuracy"`
				} `json:"groups"`
				Slope       *float64    `json:"slope"`
				SlopeCI     *[2]float64 `json:"slope_ci"`
				WeightedStd *float64    `json:"weighted_std"`
			} `json:"clean"`
			Pooled struct {
				SeverityStd *float64 `json:"severity_std"`
			} `json:"pooled"`
		} `json:"models"`
		Comparisons []struct {
			SlopeDelta [2]*float64 `json:"slope_delta"`
		} `json:"comparisons"`
	}
	data, err := os.ReadFile(filepath.Join(out, "contrast.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != 2 || f.Models[0].Model != "steep" || f.Models[1].Model != "flat" || f.LevelKind != "severity" || len(f.Levels) != 3 {
		t.Fatalf("contrast.json: %s", data)
	}
	st := f.Models[0].Clean
	// Clean accuracies 0.4, 0.6, 0.8, 1.0 → slope 0.2; equal weights 10:
	// the sample standard deviation of (0.4, 0.6, 0.8, 1) = sqrt(0.2/3).
	if st.Slope == nil || abs(*st.Slope-0.2) > 1e-12 || st.WeightedStd == nil || abs(*st.WeightedStd-0.2581988897471611) > 1e-12 {
		t.Errorf("steep clean slope %v std %v", st.Slope, st.WeightedStd)
	}
	if st.SlopeCI == nil || st.SlopeCI[0] > 0.2 || st.SlopeCI[1] < 0.2 {
		t.Errorf("steep slope CI %v", st.SlopeCI)
	}
	if len(st.Groups) != 5 || st.Groups[4].Group != "others" || *st.Groups[4].Accuracy != 1 {
		t.Errorf("groups %+v", st.Groups)
	}
	if fl := f.Models[1].Clean; fl.Slope == nil || abs(*fl.Slope) > 1e-12 {
		t.Errorf("flat slope %v", fl.Slope)
	}
	if d := f.Comparisons[0].SlopeDelta[0]; d == nil || abs(*d+0.2) > 1e-12 {
		t.Errorf("slope delta %v, want -0.2", d)
	}
	for _, name := range []string{"groups.csv", "measures.csv", "comparisons.csv", "groups_clean.svg", "groups_corrupted.png", "sensitivity.svg", "sensitivity.png", "heatmap_steep.svg", "heatmap_flat.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("missing %s", name)
		}
	}
	if !strings.Contains(stdout, "slope") || !strings.Contains(stdout, "0.200") {
		t.Errorf("table:\n%s", stdout)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestContrastCLIErrors(t *testing.T) {
	dir := t.TempDir()
	labels, res := writeContrastInputs(t, dir)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("id,background,foreground\nimg/0_0.png,red,red\nimg/0_1.png,purple,red\n"), 0o644)
	partial := filepath.Join(dir, "partial.csv")
	os.WriteFile(partial, []byte("id,background,foreground\nimg/0_0.png,red,red\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--color-labels", bad, "--results", res[0], "--out", dir + "/o1"}, 1, "bad.csv:3: background: contrast: unknown colour \"purple\" (allowed: red, green, blue, brown, gray, white, black, others)"},
		{[]string{"--color-labels", partial, "--results", res[0], "--out", dir + "/o2"}, 1, "49 image(s) of model steep (147 rows) have no colour label"},
		{[]string{"--results", res[0], "--out", dir + "/o3"}, 2, "--color-labels is required"},
		{[]string{"--labels", labels, "--results", res[0], "--out", dir + "/o3"}, 2, "-labels"},
		// Outputs are checked before any work: a folder below a file.
		{[]string{"--color-labels", labels, "--results", res[0], "--out", bad + "/o9"}, 2, "--out " + bad + "/o9: cannot create the folder"},
		{[]string{"--estimate-colors", "--images", dir, "--out", bad + "/x/colors.csv"}, 2, "--out " + bad + "/x/colors.csv: cannot create the folder " + bad + "/x"},
		{[]string{"--color-labels", labels, "--out", dir + "/o4"}, 2, "--results is required"},
		{[]string{"--color-labels", labels, "--results", res[0], "--out", dir + "/o5", "--by", "grade"}, 2, "--by must be"},
		{[]string{"--estimate-colors", "--out", dir + "/o6.csv"}, 2, "needs --images"},
		{[]string{"--color-labels", labels, "--results", res[0] + "," + res[0], "--out", dir + "/o7"}, 2, "name them with --model-name"},
	} {
		code, _, stderr := runCmd(t, append([]string{"contrast"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	// Skipping unlabelled images works, and empty groups are warnings.
	code, _, stderr := runCmd(t, "contrast", "--color-labels", partial, "--results", res[0], "--out", dir+"/o8", "--skip-unlabelled", "--bootstrap", "0")
	if code != 0 || !strings.Contains(stderr, "contrast group high has no clean images") || !strings.Contains(stderr, "no slope") {
		t.Errorf("skip-unlabelled: exit %d, stderr %q", code, stderr)
	}
}

func TestContrastEstimateCLI(t *testing.T) {
	dir := t.TempDir()
	imgs := filepath.Join(dir, "images")
	os.MkdirAll(filepath.Join(imgs, "sub"), 0o755)
	colour := map[string][3]float32{"red": {0.8, 0.12, 0.12}, "blue": {0.2, 0.3, 0.8}, "white": {0.95, 0.95, 0.95}, "black": {0.05, 0.05, 0.05}, "green": {0.2, 0.55, 0.2}}
	var ref strings.Builder
	ref.WriteString("id,background,foreground\n")
	for i, p := range [][2]string{{"blue", "white"}, {"white", "black"}, {"green", "red"}, {"black", "blue"}, {"red", "red"}} {
		m := imageio.New(32, 32)
		for y := range 32 {
			for x := range 32 {
				c := colour[p[0]]
				if x >= 6 && x < 26 && y >= 6 && y < 26 {
					c = colour[p[1]]
				}
				for k := range 3 {
					m.Ch[k][y*32+x] = c[k]
				}
			}
		}
		name := fmt.Sprintf("sub/%d.png", i)
		writeImage(t, imgs, name, m)
		fmt.Fprintf(&ref, "%s,%s,%s\n", name, p[0], p[1])
	}
	refPath := filepath.Join(dir, "ref.csv")
	os.WriteFile(refPath, []byte(ref.String()), 0o644)
	out := filepath.Join(dir, "est.csv")
	code, stdout, stderr := runCmd(t, "contrast", "--estimate-colors", "--images", imgs, "--out", out, "--color-labels", refPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "agreement with") || !strings.Contains(stdout, "both 1.000") {
		t.Errorf("stdout %q", stdout)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), "sub/0.png,blue,white,high-mid,1,") {
		t.Errorf("estimated labels:\n%s", data)
	}
	if _, err := os.Stat(out + ".agreement.json"); err != nil {
		t.Error(err)
	}
	// The estimates serve as labels; outputs say they are estimates.
	var res strings.Builder
	res.WriteString("id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n")
	for i := range 5 {
		fmt.Fprintf(&res, "%06d,sub/%d.png,gaussian_noise,,,0.%d,vec,1,cat,cat,cat,1,%d,1,,,\n", i+1, i, i+2, i%2)
	}
	rp := filepath.Join(dir, "m", "results.csv")
	os.MkdirAll(filepath.Dir(rp), 0o755)
	os.WriteFile(rp, []byte(res.String()), 0o644)
	code, stdout, stderr = runCmd(t, "contrast", "--color-labels", out, "--results", rp, "--out", filepath.Join(dir, "o"))
	if code != 0 || !strings.Contains(stdout, "ESTIMATED") {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "o", "contrast.json"))
	if !strings.Contains(string(data), `"labels_estimated": true`) || !strings.Contains(string(data), `"level_kind": "dv"`) {
		t.Errorf("contrast.json does not mark estimates or Δv levels")
	}
	// In one go: estimate into DIR/colors_estimated.csv, then analyse.
	o2 := filepath.Join(dir, "o2")
	code, _, stderr = runCmd(t, "contrast", "--estimate-colors", "--images", imgs, "--results", rp, "--out", o2, "--bootstrap", "0")
	if code != 0 {
		t.Fatalf("estimate and analyse: exit %d: %s", code, stderr)
	}
	data, _ = os.ReadFile(filepath.Join(o2, "contrast.json"))
	if !strings.Contains(string(data), `"labels_estimated": true`) || !strings.Contains(string(data), "colors_estimated.csv") {
		t.Errorf("one-go contrast.json:\n%s", data)
	}
}

func TestContrastCLIModelColumn(t *testing.T) {
	dir := t.TempDir()
	labels, res := writeContrastInputs(t, dir)
	// One table holding both models, told apart by a model column.
	var b strings.Builder
	for i, p := range res {
		data, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if i == 0 {
			b.WriteString("model," + lines[0] + "\n")
		}
		for _, l := range lines[1:] {
			b.WriteString([]string{"steep", "flat"}[i] + "," + l + "\n")
		}
	}
	all := filepath.Join(dir, "all.csv")
	os.WriteFile(all, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCmd(t, "contrast", "--color-labels", labels, "--results", all, "--out", out, "--bootstrap", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(out, "measures.csv"))
	for _, want := range []string{"steep,clean,,,", "flat,clean,,,"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("measures.csv lacks %q", want)
		}
	}
	// The steep model: clean accuracy (4+6+8+10+10)/50 = 0.76 (others
	// included), slope 0.2, intercept 0.4, weighted std sqrt(0.2/3).
	if !strings.Contains(string(data), "steep,clean,,,0.76,0.2,,,0.4,0.258199,") {
		t.Errorf("measures.csv:\n%s", data)
	}
}

// TestContrastThenReport: the form contrast's help names,
// 'vcr report DIR --out report.html', shows a contrast folder.
func TestContrastThenReport(t *testing.T) {
	dir := t.TempDir()
	labels, res := writeContrastInputs(t, dir)
	out := filepath.Join(dir, "out")
	mustRun(t, "contrast", "--color-labels", labels, "--results", strings.Join(res, ","), "--out", out, "--bootstrap", "0")
	page := filepath.Join(dir, "report.html")
	mustRun(t, "report", out, "--out", page)
	if !bytes.Contains(readFile(t, page), []byte(`id="`+report.ContrastSection+`"`)) {
		t.Errorf("the report has no colour-contrast section")
	}
	var b bytes.Buffer
	if code := run(context.Background(), []string{"contrast", "--help"}, &b, &b); code != exitOK || !strings.Contains(b.String(), "'vcr report DIR --out report.html'") {
		t.Errorf("contrast --help: exit %d, lacks the report form", code)
	}
}
