package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// simModel is a simulated model: its true accuracy and consistency curves
// over Δv and its clean accuracy.
type simModel struct {
	name       string
	acc, cons  func(v float64) float64
	clean      float64
	corruption string
}

// area is ∫₀¹ f by the midpoint rule on 100,000 points (exact to ~1e-10 for
// these smooth curves).
func area(f func(float64) float64) float64 {
	const n = 100000
	s := 0.0
	for i := range n {
		s += f((float64(i) + 0.5) / n)
	}
	return s / n
}

var simModels = []simModel{
	{name: "steady", corruption: "gaussian_blur", clean: 0.9,
		acc:  func(v float64) float64 { return 0.9 * (1 - 0.7*v*v) },
		cons: func(v float64) float64 { return 1 - 0.6*v }},
	{name: "fragile", corruption: "gaussian_blur", clean: 0.85,
		acc:  func(v float64) float64 { return 0.85 * math.Exp(-2.5*v) },
		cons: func(v float64) float64 { return 1 - 0.9*v*(2-v) }},
}

// writeSimResults writes a results.csv in vcr eval's format with n rows of
// model m: Δv uniform on [0, 1], correctness and consistency Bernoulli
// draws from the true curves, 400 clean sources with Bernoulli(clean)
// clean correctness. It returns the path and the plain mean accuracy.
func writeSimResults(t *testing.T, dir string, m simModel, n int, seed uint64) (string, float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	const sources = 400
	clean := make([]bool, sources)
	for i := range clean {
		clean[i] = r.Float64() < m.clean
	}
	bit := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	var b strings.Builder
	b.WriteString("id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n")
	correct := 0
	for i := range n {
		src := r.IntN(sources)
		v := r.Float64()
		if i%97 == 0 {
			v = 1 // Δv = 1 exactly is valid
		}
		ok := r.Float64() < m.acc(v)
		cons := r.Float64() < m.cons(v)
		if ok {
			correct++
		}
		fmt.Fprintf(&b, "%d,img%d.png,%s,,\"{\"\"sigma\"\":1}\",%.6f,vcr-py,car,car,car,car,%s,%s,%s,,,\n",
			i, src, m.corruption, v, bit(clean[src]), bit(ok), bit(cons))
	}
	p := filepath.Join(dir, m.name, "results.csv")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, float64(correct) / float64(n)
}

// summaryJSON is the part of summary.json the tests read.
type summaryJSON struct {
	VIFMethod   string `json:"vif_method"`
	Bootstrap   int    `json:"bootstrap"`
	Seed        uint64 `json:"seed"`
	VIFMismatch string `json:"vif_mismatch_warning"`
	Models      []map[string]any
	Humans      []map[string]any
}

func readSummary(t *testing.T, dir string) summaryJSON {
	t.Helper()
	var s summaryJSON
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func field(t *testing.T, m map[string]any, name string) float64 {
	t.Helper()
	v, ok := m[name].(float64)
	if !ok {
		t.Fatalf("%v/%v: field %s = %v, want a number", m["model"], m["corruption"], name, m[name])
	}
	return v
}

func interval(t *testing.T, m map[string]any, name string) [2]float64 {
	t.Helper()
	v, ok := m[name].([]any)
	if !ok || len(v) != 2 {
		t.Fatalf("%v/%v: field %s = %v, want [lo, hi]", m["model"], m["corruption"], name, m[name])
	}
	return [2]float64{v[0].(float64), v[1].(float64)}
}

func TestAnalyzeContract(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	var means []float64
	for i, m := range simModels {
		p, mean := writeSimResults(t, dir, m, 6000, uint64(i+1))
		paths = append(paths, p)
		means = append(means, mean)
	}
	out := filepath.Join(dir, "report")
	stdout := mustRun(t, "analyze", "--results", strings.Join(paths, ","), "--out", out, "--bootstrap", "200", "--seed", "3")
	s := readSummary(t, out)
	if s.VIFMethod != "vcr-py" || s.Bootstrap != 200 || s.Seed != 3 || len(s.Models) != 2 || len(s.Humans) != 0 {
		t.Fatalf("summary: %+v", s)
	}
	// Models sorted by name: fragile, steady.
	for i, m := range []simModel{simModels[1], simModels[0]} {
		got := s.Models[i]
		if got["model"] != m.name || got["corruption"] != m.corruption || field(t, got, "n") != 6000 {
			t.Errorf("model %d: %v/%v n %v, want %s/%s 6000", i, got["model"], got["corruption"], got["n"], m.name, m.corruption)
		}
		for _, p := range []struct {
			key  string
			true float64
		}{{"ra", area(m.acc)}, {"rp", area(m.cons)}} {
			est := field(t, got, p.key)
			ci95 := interval(t, got, p.key+"_ci95")
			ci83 := interval(t, got, p.key+"_ci83")
			// 6000 rows: the bootstrap standard error of R̂ is about 0.005,
			// so 0.02 is 4 standard errors.
			if math.Abs(est-p.true) > 0.02 {
				t.Errorf("%s %s = %.4f, true %.4f", m.name, p.key, est, p.true)
			}
			if !(ci95[0] <= ci83[0] && ci83[0] <= est && est <= ci83[1] && ci83[1] <= ci95[1]) {
				t.Errorf("%s %s = %.4f: intervals 83%% %v, 95%% %v not nested around it", m.name, p.key, est, ci83, ci95)
			}
			if w := ci95[1] - ci95[0]; w < 0.005 || w > 0.06 {
				t.Errorf("%s %s: 95%% interval %v has implausible width %.4f", m.name, p.key, ci95, w)
			}
		}
		if d := field(t, got, "mean_accuracy") - means[1-i]; math.Abs(d) > 1e-12 {
			t.Errorf("%s mean_accuracy off by %v", m.name, d)
		}
		if c := field(t, got, "clean_accuracy"); math.Abs(c-m.clean) > 0.05 {
			t.Errorf("%s clean_accuracy %v, true %v", m.name, c, m.clean)
		}
		if _, ok := got["hmri_a"]; ok {
			t.Errorf("hmri_a present without --human")
		}
	}
	// The robust model has the larger R̂a, and the terminal table shows both.
	if field(t, s.Models[1], "ra") <= field(t, s.Models[0], "ra") {
		t.Error("steady should have a larger R̂a than fragile")
	}
	if !strings.Contains(stdout, "steady") || !strings.Contains(stdout, "fragile") || !strings.Contains(stdout, "R̂a") {
		t.Errorf("table:\n%s", stdout)
	}
	// CSV tables.
	rows := readCSV(t, filepath.Join(out, "summary.csv"))
	if len(rows) != 3 || rows[1][0] != "fragile" || rows[2][0] != "steady" {
		t.Errorf("summary.csv: %v", rows)
	}
	curves := readCSV(t, filepath.Join(out, "curves.csv"))
	if want := 1 + 2*2*101; len(curves) != want {
		t.Errorf("curves.csv has %d rows, want %d", len(curves), want)
	}
	for _, r := range curves[1:] {
		if r[6] == "" || r[9] == "" {
			t.Fatalf("curves.csv row without bands: %v", r)
		}
	}
	if bins := readCSV(t, filepath.Join(out, "bins.csv")); len(bins) != 1+2*2*40 {
		t.Errorf("bins.csv has %d rows, want %d", len(bins), 1+2*2*40)
	}
	// Plots.
	for _, f := range []string{"curves_gaussian_blur_accuracy", "curves_gaussian_blur_consistency", "coverage_gaussian_blur"} {
		svg := readFile(t, filepath.Join(out, f+".svg"))
		if !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s.svg is not SVG", f)
		}
		if _, err := png.Decode(bytes.NewReader(readFile(t, filepath.Join(out, f+".png")))); err != nil {
			t.Errorf("%s.png: %v", f, err)
		}
	}
	if n := bytes.Count(readFile(t, filepath.Join(out, "curves_gaussian_blur_accuracy.svg")), []byte(`class="curve"`)); n != 2 {
		t.Errorf("accuracy plot has %d curves, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(out, "hmri_gaussian_blur_accuracy.svg")); err == nil {
		t.Error("HMRI plot written without --human")
	}

	// Same command, same bytes; --model-name renames.
	out2 := filepath.Join(dir, "report2")
	mustRun(t, "analyze", "--results", paths[0], "--results", paths[1], "--out", out2, "--bootstrap", "200", "--seed", "3")
	if !bytes.Equal(readFile(t, filepath.Join(out, "summary.json")), readFile(t, filepath.Join(out2, "summary.json"))) {
		t.Error("summary.json differs between identical runs")
	}
	// One family, one colour.
	out4 := filepath.Join(dir, "report4")
	mustRun(t, "analyze", "--results", strings.Join(paths, ","), "--model-family", "steady=cnn,fragile=cnn", "--out", out4, "--bootstrap", "0")
	svg := string(readFile(t, filepath.Join(out4, "curves_gaussian_blur_accuracy.svg")))
	var strokes []string
	for _, part := range strings.Split(svg, `class="curve"`)[1:] {
		_, after, _ := strings.Cut(part, `stroke="`)
		col, _, _ := strings.Cut(after, `"`)
		strokes = append(strokes, col)
	}
	if len(strokes) != 2 || strokes[0] != strokes[1] {
		t.Errorf("--model-family: curve colours %v, want two alike", strokes)
	}
	out3 := filepath.Join(dir, "report3")
	mustRun(t, "analyze", "--results", paths[0], "--model-name", "A", "--out", out3, "--bootstrap", "0")
	s3 := readSummary(t, out3)
	if len(s3.Models) != 1 || s3.Models[0]["model"] != "A" {
		t.Errorf("--model-name: %v", s3.Models)
	}
	if _, ok := s3.Models[0]["ra_ci95"]; ok {
		t.Error("--bootstrap 0 still reports intervals")
	}
}

func TestAnalyzeErrors(t *testing.T) {
	dir := t.TempDir()
	good, _ := writeSimResults(t, dir, simModels[0], 300, 1)
	header := "id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.csv", header)
	badDV := write("baddv.csv", header+"0,a,blur,,{},0.5,vcr-py,x,x,x,x,1,1,1,,,\n1,a,blur,,{},1.25,vcr-py,x,x,x,x,1,1,1,,,\n")
	other := write("other.csv", strings.ReplaceAll(string(readFile(t, good)), "vcr-py", "vifvec"))
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  []string
	}{
		{"no rows", []string{"--results", empty}, exitFailure, []string{"empty.csv", "no rows"}},
		{"dv out of range", []string{"--results", badDV}, exitFailure, []string{"baddv.csv", "line 3", "1.25", "[0, 1]"}},
		{"mixed vif", []string{"--results", good + "," + other}, exitFailure, []string{"vifvec", "vcr-py", "other.csv"}},
		{"missing file", []string{"--results", filepath.Join(dir, "nope.csv")}, exitFailure, []string{"nope.csv"}},
		{"no results", nil, exitUsage, []string{"--results is required"}},
		{"names count", []string{"--results", good, "--model-name", "a,b"}, exitUsage, []string{"2 --model-name values for 1"}},
		{"bad lambda", []string{"--results", good, "--lambda", "-1"}, exitUsage, []string{"positive"}},
		{"bad bins", []string{"--results", good, "--bins", "-1"}, exitUsage, []string{"--bins"}},
		{"bad family", []string{"--results", good, "--model-family", "resnet"}, exitUsage, []string{"MODEL=FAMILY"}},
	} {
		args := append([]string{"analyze", "--out", filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))}, tc.args...)
		code, _, errOut := runCmd(t, args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, tc.code, errOut)
			continue
		}
		for _, m := range tc.msg {
			if !strings.Contains(errOut, m) {
				t.Errorf("%s: stderr %q does not mention %q", tc.name, errOut, m)
			}
		}
	}
}

// humanAcc is the simulated humans' true accuracy curve; their clean
// accuracy is humanAcc(0).
func humanAcc(v float64) float64 { return 0.97 - 0.5*v*v*v }

// writeSimHumans writes a human trial CSV (the experiment app's format):
// 300 source images, each original judged by 3 participants (correct with
// probability humanAcc(0)), and 4000 corrupted trials on corruption with Δv
// uniform on [0, 1], correct with probability humanAcc(Δv); car / not car.
func writeSimHumans(t *testing.T, dir, corruption, vif string, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	const images = 300
	truth := make([]string, images)
	for i := range truth {
		truth[i] = []string{"car", "not car"}[r.IntN(2)]
	}
	answer := func(gt string, p float64) string {
		if r.Float64() < p {
			return gt
		}
		if gt == "car" {
			return "not car"
		}
		return "car"
	}
	var b strings.Builder
	b.WriteString("participant,session,trial,image_id,source,corruption,params,dv,vif_method,ground_truth,response,rt_ms,is_original,timestamp\n")
	for i := range images {
		for p := range 3 {
			fmt.Fprintf(&b, "p%d,s%d,%d,img%d,sim,,,0,,%s,%s,450,1,\n", 100+p+3*(i%50), p, i, i, truth[i], answer(truth[i], humanAcc(0)))
		}
	}
	for k := range 4000 {
		i := r.IntN(images)
		v := r.Float64()
		fmt.Fprintf(&b, "q%d,t%d,%d,img%d,sim,%s,,%.6f,%s,%s,%s,,0,\n", k%400, k%400, k, i, corruption, v, vif, truth[i], answer(truth[i], humanAcc(v)))
	}
	p := filepath.Join(dir, "humans_"+corruption+".csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAnalyzeHuman(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, m := range simModels {
		p, _ := writeSimResults(t, dir, m, 4000, uint64(i+10))
		paths = append(paths, p)
	}
	hum := writeSimHumans(t, dir, "gaussian_blur", "vcr-py", 5)
	out := filepath.Join(dir, "report")
	stdout := mustRun(t, "analyze", "--results", strings.Join(paths, ","), "--human", hum, "--out", out, "--bootstrap", "100")
	s := readSummary(t, out)
	if len(s.Humans) != 1 || s.Humans[0]["corruption"] != "gaussian_blur" || s.VIFMismatch != "" {
		t.Fatalf("humans %v, mismatch %q", s.Humans, s.VIFMismatch)
	}
	if hr := field(t, s.Humans[0], "ra"); math.Abs(hr-area(humanAcc)) > 0.03 {
		t.Errorf("human R̂a = %.4f, true %.4f", hr, area(humanAcc))
	}
	for i, m := range []simModel{simModels[1], simModels[0]} {
		got := s.Models[i]
		// True HMRI and MRSI of accuracy from the true curves.
		ah, am := area(humanAcc), area(m.acc)
		ahm := area(func(v float64) float64 { return max(0, humanAcc(v)-m.acc(v)) })
		amh := area(func(v float64) float64 { return max(0, m.acc(v)-humanAcc(v)) })
		for _, p := range []struct {
			key  string
			true float64
		}{{"hmri_a", 1 - ahm/ah}, {"mrsi_a", amh / am}} {
			est := field(t, got, p.key)
			ci := interval(t, got, p.key+"_ci95")
			interval(t, got, p.key+"_ci83")
			if math.Abs(est-p.true) > 0.04 || ci[0] > est || est > ci[1] {
				t.Errorf("%s %s = %.4f (95%% %v), true %.4f", m.name, p.key, est, ci, p.true)
			}
		}
		for _, k := range []string{"hmri_p", "mrsi_p"} {
			if v := field(t, got, k); v < 0 || v > 1 {
				t.Errorf("%s %s = %v outside [0, 1]", m.name, k, v)
			}
			interval(t, got, k+"_ci95")
		}
		if got["human_corruption"] != "gaussian_blur" {
			t.Errorf("%s human_corruption %v", m.name, got["human_corruption"])
		}
	}
	if !strings.Contains(stdout, "HMRI_a") || !strings.Contains(stdout, "humans") {
		t.Errorf("table:\n%s", stdout)
	}
	for _, f := range []string{"hmri_gaussian_blur_accuracy", "mrsi_gaussian_blur_accuracy", "hmri_gaussian_blur_consistency", "mrsi_gaussian_blur_consistency"} {
		svg := readFile(t, filepath.Join(out, f+".svg"))
		if n := bytes.Count(svg, []byte(`class="bar"`)); n != 2 {
			t.Errorf("%s.svg has %d bars, want 2", f, n)
		}
		if _, err := png.Decode(bytes.NewReader(readFile(t, filepath.Join(out, f+".png")))); err != nil {
			t.Errorf("%s.png: %v", f, err)
		}
	}
	curves := readFile(t, filepath.Join(out, "curves_gaussian_blur_accuracy.svg"))
	if n := bytes.Count(curves, []byte(`class="curve"`)); n != 3 || !bytes.Contains(curves, []byte("humans")) {
		t.Errorf("accuracy plot has %d curves, want 2 models and humans", n)
	}

	// Human data of another VIF flavour: refused, or compared with a
	// warning recorded in summary.json.
	other := writeSimHumans(t, dir, "gaussian_blur", "vifvec", 5)
	code, _, errOut := runCmd(t, "analyze", "--results", paths[0], "--human", other, "--out", filepath.Join(dir, "r2"), "--bootstrap", "0")
	if code != exitFailure || !strings.Contains(errOut, "vifvec") || !strings.Contains(errOut, "--allow-vif-mismatch") {
		t.Errorf("VIF mismatch: exit %d, %s", code, errOut)
	}
	_, _, errOut = runCmd(t, "analyze", "--results", paths[0], "--human", other, "--out", filepath.Join(dir, "r3"), "--bootstrap", "0", "--allow-vif-mismatch")
	if s := readSummary(t, filepath.Join(dir, "r3")); !strings.Contains(s.VIFMismatch, "vifvec") || s.Models[0]["hmri_a"] == nil {
		t.Errorf("allowed VIF mismatch: warning %q, hmri_a %v", s.VIFMismatch, s.Models[0]["hmri_a"])
	}
	if !strings.Contains(errOut, "WARNING") {
		t.Errorf("allowed VIF mismatch not warned on stderr: %s", errOut)
	}

	// Human data for another corruption only: a clear error naming both.
	frost := writeSimHumans(t, dir, "frost", "vcr-py", 6)
	code, _, errOut = runCmd(t, "analyze", "--results", paths[0], "--human", frost, "--out", filepath.Join(dir, "r4"))
	if code != exitFailure || !strings.Contains(errOut, "(gaussian_blur)") || !strings.Contains(errOut, "it has frost") {
		t.Errorf("corruption mismatch: exit %d, %s", code, errOut)
	}
	// Unknown built-in / missing file: a usage error listing the built-ins.
	code, _, errOut = runCmd(t, "analyze", "--results", paths[0], "--human", "icse2099", "--out", filepath.Join(dir, "r5"))
	if code != exitUsage || !strings.Contains(errOut, "icse2022-imagenet") {
		t.Errorf("unknown human data: exit %d, %s", code, errOut)
	}
}

// TestAnalyzeBuiltinHuman compares a vifvec-labelled model on frost with
// the embedded ICSE 2022 ImageNet human data.
func TestAnalyzeBuiltinHuman(t *testing.T) {
	dir := t.TempDir()
	m := simModels[0]
	m.corruption = "frost"
	p, _ := writeSimResults(t, dir, m, 3000, 21)
	data := strings.ReplaceAll(string(readFile(t, p)), "vcr-py", "vifvec")
	os.WriteFile(p, []byte(data), 0o644)
	out := filepath.Join(dir, "report")
	mustRun(t, "analyze", "--results", p, "--human", "icse2022-imagenet", "--out", out, "--bootstrap", "50")
	s := readSummary(t, out)
	if len(s.Humans) != 1 || s.Humans[0]["corruption"] != "frost" || s.Humans[0]["vif_method"] != "vifvec" {
		t.Fatalf("humans: %v", s.Humans)
	}
	// The published human frost accuracy (R̂a ≈ 0.92 from the per-bin
	// files) exceeds this model's (≈ 0.69) over most of Δv, so 0 < HMRI < 1.
	got := s.Models[0]
	if h := field(t, got, "hmri_a"); !(h > 0 && h < 1) {
		t.Errorf("hmri_a = %v, want in (0, 1)", h)
	}
	for _, k := range []string{"mrsi_a", "hmri_p", "mrsi_p"} {
		field(t, got, k)
	}
}

// TestAnalyzeICSETrialFile reads human data in the ICSE 2022 per-trial
// format, which needs --human-vif-method.
func TestAnalyzeICSETrialFile(t *testing.T) {
	dir := t.TempDir()
	m := simModels[0]
	m.corruption = "frost"
	p, _ := writeSimResults(t, dir, m, 3000, 4)
	r := rand.New(rand.NewPCG(9, 9))
	var b strings.Builder
	b.WriteString("image_link,transformation,ground_truth,human_label,IQA\n")
	flip := map[string]string{"car": "not car", "not car": "car"}
	for i := range 300 {
		gt := []string{"car", "not car"}[i%2]
		for range 3 {
			ans := gt
			if r.Float64() > humanAcc(0) {
				ans = flip[gt]
			}
			fmt.Fprintf(&b, "https://x/IMG_ORIGINAL/frost/batch_1_%d.png,original,%s,%s,1\n", i, gt, ans)
		}
	}
	for range 3000 {
		i := r.IntN(300)
		gt := []string{"car", "not car"}[i%2]
		v := r.Float64()
		ans := gt
		if r.Float64() > humanAcc(v) {
			ans = flip[gt]
		}
		fmt.Fprintf(&b, "https://x/IMG_TRANSFORMED/frost/batch_1_%d.png,frost,%s,%s,%.6f\n", i, gt, ans, 1-v)
	}
	hp := filepath.Join(dir, "icse_trials.csv")
	os.WriteFile(hp, []byte(b.String()), 0o644)
	code, _, errOut := runCmd(t, "analyze", "--results", p, "--human", hp, "--out", filepath.Join(dir, "r1"))
	if code != exitUsage || !strings.Contains(errOut, "--human-vif-method") {
		t.Errorf("ICSE file without flavour: exit %d, %s", code, errOut)
	}
	out := filepath.Join(dir, "r2")
	mustRun(t, "analyze", "--results", p, "--human", hp, "--human-vif-method", "vcr-py", "--out", out, "--bootstrap", "50")
	s := readSummary(t, out)
	if len(s.Humans) != 1 || math.Abs(field(t, s.Humans[0], "ra")-area(humanAcc)) > 0.04 {
		t.Errorf("humans from the ICSE-format file: %v (true R̂a %.4f)", s.Humans, area(humanAcc))
	}
	field(t, s.Models[0], "hmri_a")
}

// TestAnalyzeBuiltinFlavourColumn is the contract: results whose
// primary flavour is vcr-py (generate's default) but which carry a
// dv_vifvec column meet builtin:icse2022-imagenet on the vifvec axis; a
// corruption the humans lack is skipped with one warning.
func TestAnalyzeBuiltinFlavourColumn(t *testing.T) {
	dir := t.TempDir()
	var rows []string
	for _, c := range []string{"frost", "zoom_blur", "gaussian_noise", "shot_noise"} {
		m := simModels[0]
		m.corruption = c
		p, _ := writeSimResults(t, dir, m, 1500, 31)
		lines := strings.Split(strings.TrimSpace(string(readFile(t, p))), "\n")
		if rows == nil {
			rows = append(rows, lines[0]+",dv_vifvec")
		}
		for _, l := range lines[1:] {
			// dv_vifvec: the test's stand-in for the other flavour, Δv/2.
			f := strings.Split(l, ",")
			v, _ := strconv.ParseFloat(f[5], 64) // the dv cell
			f[0] = strconv.Itoa(len(rows) - 1)   // ids unique over the four corruptions
			rows = append(rows, strings.Join(f, ",")+","+strconv.FormatFloat(v/2, 'f', 6, 64))
		}
	}
	p := filepath.Join(dir, "simnet", "results.csv")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(strings.Join(rows, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "A")
	code, _, errOut := runCmd(t, "analyze", "--results", p, "--human", "builtin:icse2022-imagenet", "--out", out, "--bootstrap", "0")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	var s struct {
		DVMethod  string           `json:"dv_method"`
		VIFMethod string           `json:"vif_method"`
		Tool      string           `json:"tool"`
		Models    []map[string]any `json:"models"`
	}
	json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s)
	if s.DVMethod != "vifvec" || s.VIFMethod != "vifvec" || s.Tool != "vcr analyze" {
		t.Errorf("dv_method %q, vif_method %q, tool %q", s.DVMethod, s.VIFMethod, s.Tool)
	}
	hmri := map[string]bool{}
	for _, m := range s.Models {
		hmri[m["corruption"].(string)] = m["hmri_a"] != nil
		// Δv/2 ≤ 0.5: no data beyond the bin centre 0.4875 (40 bins).
		if c := interval(t, m, "dv_covered"); c != [2]float64{0, 0.4875} {
			t.Errorf("%s: dv_covered %v, want [0, 0.4875]", m["corruption"], c)
		}
	}
	if want := map[string]bool{"frost": true, "gaussian_noise": true, "shot_noise": false, "zoom_blur": false}; !maps.Equal(hmri, want) {
		t.Errorf("hmri_a present per corruption %v, want %v", hmri, want)
	}
	lines := strings.Split(errOut, "\n")
	count := func(sub string) (n int) {
		for _, l := range lines {
			if strings.Contains(l, sub) {
				n++
			}
		}
		return n
	}
	if n := count("has no series for 2 corruption(s): shot_noise, zoom_blur"); n != 1 {
		t.Errorf("%d lines about the missing corruptions, want 1:\n%s", n, errOut)
	}
	if n := count("taken from their dv_vifvec column"); n != 1 {
		t.Errorf("%d lines about the dv_vifvec column, want 1:\n%s", n, errOut)
	}
	// The rows at Δv = 1 (every 97th) make a sparse bin at dv_vifvec = 0.5
	// for 4 corruptions × 2 curves: one line.
	if n := count("left out of the fit"); n != 1 || count("left out of the fit: 8 curves") != 1 {
		t.Errorf("%d lines about sparse bins, want 1 grouping 8 curves:\n%s", n, errOut)
	}
}

// TestAnalyzeOutCheckedFirst: an unwritable --out is a usage error before
// any input is read.
func TestAnalyzeOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	code, _, errOut := runCmd(t, "analyze", "--results", filepath.Join(dir, "missing.csv"), "--out", filepath.Join(blocker, "A"))
	if code != exitUsage || !strings.Contains(errOut, "--out "+filepath.Join(blocker, "A")) || strings.Contains(errOut, "missing.csv") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
