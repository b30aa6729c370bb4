package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// copyICSEFolder copies one of the repository's published per-bin folders
// (human/data/icse2022/estimating/…) into a temporary folder.
func copyICSEFolder(t *testing.T, rel string) string {
	t.Helper()
	src := filepath.Join("..", "..", "human", "data", "icse2022", "estimating", rel)
	dst := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return dst
}

// reqJSON is the part of a requirements file the tests read.
type reqJSON struct {
	Tool         string `json:"tool"`
	Version      string `json:"version"`
	Format       int    `json:"format"`
	Requirements []struct {
		Transformation string   `json:"transformation"`
		Dataset        string   `json:"dataset"`
		VIFMethod      string   `json:"vif_method"`
		TC             *float64 `json:"t_c"`
		TP             *float64 `json:"t_p"`
		HumanAccuracy  float64  `json:"human_accuracy"`
		HumanPres      float64  `json:"human_preservation"`
		Rule           string   `json:"rule"`
		Source         string   `json:"source"`
		Details        struct {
			Weighted    bool `json:"weighted"`
			Correctness struct {
				X []float64 `json:"x"`
				P []float64 `json:"p"`
			} `json:"correctness"`
		} `json:"details"`
	} `json:"requirements"`
}

func readReq(t *testing.T, path string) reqJSON {
	t.Helper()
	var r reqJSON
	if err := json.Unmarshal(readFile(t, path), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRequirementsEstimateContract(t *testing.T) {
	imagenet := copyICSEFolder(t, "imagenet")
	cifar := copyICSEFolder(t, "cifar10")
	out := t.TempDir()
	for _, c := range []struct {
		human, tr, wantTr, ds, vif string
		m0                         float64
		weighted                   bool
	}{
		{imagenet, "frost", "frost", "icse2022-imagenet", "vifvec", 0.970, false},
		{imagenet, "RGB", "rgb_shift", "icse2022-imagenet", "vifvec", 0.970, false},
		{"builtin:icse2022-imagenet", "Color_jitter", "color_jitter", "icse2022-imagenet", "vifvec", 0.970, false},
		{cifar, "frost", "frost", "icse2022-cifar10", "vifvec2-layers", 0.967, true},
		{"icse2022-cifar10-bins", "jpeg_compression", "jpeg_compression", "icse2022-cifar10-bins", "vifvec2-layers", 0.967, true},
	} {
		var tcs []float64
		for _, rule := range []string{"", "script", "intended", "first"} {
			p := filepath.Join(out, "req.json")
			args := []string{"requirements", "estimate", "--human", c.human, "--transformation", c.tr, "--out", p}
			if rule != "" {
				args = append(args, "--rule", rule)
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			if !strings.Contains(stdout, c.wantTr) {
				t.Errorf("table lacks %s: %s", c.wantTr, stdout)
			}
			r := readReq(t, p)
			if r.Tool != "vcr requirements estimate" || r.Version == "" || r.Format != 1 || len(r.Requirements) != 1 {
				t.Fatalf("%+v", r)
			}
			q := r.Requirements[0]
			if q.TC == nil || q.TP == nil || !(*q.TC >= 0 && *q.TC <= 1) || !(*q.TP >= 0 && *q.TP <= 1) {
				t.Errorf("%v: t_c %v t_p %v", args, q.TC, q.TP)
			}
			wantRule := rule
			if wantRule == "" {
				wantRule = "script"
			}
			if q.Transformation != c.wantTr || q.Dataset != c.ds || !strings.HasPrefix(q.VIFMethod, c.vif) || q.Rule != wantRule ||
				q.HumanAccuracy != c.m0 || !(q.HumanPres > 0.5 && q.HumanPres <= 1) || q.Source == "" || q.Details.Weighted != c.weighted {
				t.Errorf("%v: %+v", args, q)
			}
			if len(q.Details.Correctness.P) != len(q.Details.Correctness.X) || len(q.Details.Correctness.X) < 4 {
				t.Errorf("details: %d x, %d p", len(q.Details.Correctness.X), len(q.Details.Correctness.P))
			}
			tcs = append(tcs, *q.TC)
		}
		if tcs[0] != tcs[1] {
			t.Errorf("default rule is not script: %v", tcs)
		}
	}
	// The built-in and the folder give the same thresholds.
	a, b := filepath.Join(out, "a.json"), filepath.Join(out, "b.json")
	runCLI(t, "requirements", "estimate", "--human", imagenet, "--transformation", "all", "--out", a)
	runCLI(t, "requirements", "estimate", "--human", "icse2022-imagenet", "--transformation", "all", "--out", b)
	ra, rb := readReq(t, a), readReq(t, b)
	if len(ra.Requirements) != 8 || len(rb.Requirements) != 8 {
		t.Fatalf("all: %d and %d requirements", len(ra.Requirements), len(rb.Requirements))
	}
	for i := range ra.Requirements {
		x, y := ra.Requirements[i], rb.Requirements[i]
		if x.Transformation != y.Transformation || *x.TC != *y.TC || *x.TP != *y.TP {
			t.Errorf("folder %s %v %v, built-in %s %v %v", x.Transformation, *x.TC, *x.TP, y.Transformation, *y.TC, *y.TP)
		}
	}
}

func TestRequirementsEstimatePlot(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "requirements", "estimate", "--human", "builtin:icse2022-imagenet", "--transformation", "frost",
		"--out", filepath.Join(dir, "r.json"), "--plot", filepath.Join(dir, "r.svg"))
	if code != exitOK {
		t.Fatal(stderr)
	}
	svg := string(readFile(t, filepath.Join(dir, "r.svg")))
	for _, s := range []string{"<svg", "t_c = ", "t_p = ", "preservation"} {
		if !strings.Contains(svg, s) {
			t.Errorf("plot lacks %q", s)
		}
	}
	code, _, stderr = runCLI(t, "requirements", "estimate", "--human", "builtin:icse2022-cifar10-bins", "--transformation", "all",
		"--out", filepath.Join(dir, "c.json"), "--plot", filepath.Join(dir, "c.png"))
	if code != exitOK {
		t.Fatal(stderr)
	}
	for _, tr := range []string{"brightness", "contrast", "frost", "jpeg_compression"} {
		b := readFile(t, filepath.Join(dir, "c_"+tr+".png"))
		if len(b) < 8 || string(b[1:4]) != "PNG" {
			t.Errorf("c_%s.png is not a PNG", tr)
		}
		// The files are not the name --plot gave, so stderr names them.
		if p := filepath.Join(dir, "c_"+tr+".png"); !strings.Contains(stderr, p) {
			t.Errorf("stderr does not name %s: %q", p, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c.png")); err == nil {
		t.Errorf("c.png written though there are several transformations")
	}
}

func TestRequirementsEstimateTrials(t *testing.T) {
	dir := t.TempDir()
	f := writeSimHumans(t, dir, "gaussian_noise", "vcr-py", 5)
	p := filepath.Join(dir, "r.json")
	code, _, stderr := runCLI(t, "requirements", "estimate", "--human", f, "--transformation", "gaussian_noise", "--out", p)
	if code != exitOK {
		t.Fatal(stderr)
	}
	q := readReq(t, p).Requirements[0]
	// Simulated accuracy 0.97 − 0.5·Δv³: m0 measured near 0.97; the drop
	// becomes detectable with ~40 trials per bin well inside (0.3, 0.95).
	if !(q.HumanAccuracy > 0.93 && q.HumanAccuracy < 1) || !(*q.TC > 0.3 && *q.TC < 0.95) || q.VIFMethod != "vcr-py" {
		t.Errorf("%+v, t_c %v", q, *q.TC)
	}
	for _, x := range q.Details.Correctness.X {
		if d := x*100 - float64(int(x*100+0.5)); d > 1e-9 || d < -1e-9 {
			t.Errorf("bin label %v is not a multiple of 0.01", x)
		}
	}
}

func TestRequirementsEstimateErrors(t *testing.T) {
	imagenet := copyICSEFolder(t, "imagenet")
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	// A folder whose preservation file for frost is missing.
	broken := copyICSEFolder(t, "imagenet")
	if err := os.Remove(filepath.Join(broken, "imagenet_p_p_frost.csv")); err != nil {
		t.Fatal(err)
	}
	broken2 := copyICSEFolder(t, "imagenet")
	if err := os.Remove(filepath.Join(broken2, "imagenet_c_p_contrast.csv")); err != nil {
		t.Fatal(err)
	}
	// A folder with a file of too few trials (bins of 10 trials or 3 bins).
	few := filepath.Join(dir, "few")
	os.MkdirAll(few, 0o755)
	os.WriteFile(filepath.Join(few, "imagenet_c_p_frost.csv"), []byte("IQA,Accuracy,Count,Num_Accs\n0.1,1.0,20,20\n0.2,1.0,20,20\n0.3,0.9,20,18\n"), 0o644)
	os.WriteFile(filepath.Join(few, "imagenet_p_p_frost.csv"), []byte("IQA,Preserved,Count,Num_Pre\n0.1,1.0,20,20\n0.2,1.0,20,20\n0.3,0.9,20,18\n0.4,0.9,20,18\n"), 0o644)
	// Too few trials in the project's format: 30 trials in 30 bins.
	var b strings.Builder
	b.WriteString("participant,image_id,corruption,dv,vif_method,ground_truth,response,is_original\n")
	b.WriteString("p,img0,,0,,car,car,1\n")
	for i := range 30 {
		b.WriteString("p,img0,frost," + strconv.FormatFloat(float64(i)/30, 'f', 4, 64) + ",vifvec,car,car,0\n")
	}
	trials := filepath.Join(dir, "t.csv")
	os.WriteFile(trials, []byte(b.String()), 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  []string
	}{
		{"unknown transformation", []string{"--human", imagenet, "--transformation", "frots"}, exitUsage, []string{"frots", "frost", "rgb_shift"}},
		{"not in data", []string{"--human", "icse2022-cifar10-bins", "--transformation", "gaussian_noise"}, exitUsage, []string{"gaussian_noise", "jpeg_compression"}},
		{"missing file", []string{"--human", broken, "--transformation", "frost"}, exitFailure, []string{"imagenet_p_p_frost.csv"}},
		{"missing c_p file", []string{"--human", broken2, "--transformation", "all"}, exitFailure, []string{"imagenet_c_p_contrast.csv"}},
		{"too few bins", []string{"--human", few, "--transformation", "frost"}, exitFailure, []string{"frost", "too few", "3 Δv bins"}},
		{"too few trials", []string{"--human", trials, "--transformation", "frost"}, exitFailure, []string{"frost", "too few", "more than 10"}},
		{"no human", []string{"--transformation", "frost"}, exitUsage, []string{"--human is required"}},
		{"no such human", []string{"--human", filepath.Join(dir, "nope"), "--transformation", "frost"}, exitUsage, []string{"nope", "built-in"}},
		{"bad builtin", []string{"--human", "builtin:icse2099", "--transformation", "frost"}, exitUsage, []string{"icse2099"}},
		{"bad rule", []string{"--human", imagenet, "--transformation", "frost", "--rule", "last"}, exitUsage, []string{"--rule"}},
		{"bad p0", []string{"--human", imagenet, "--transformation", "frost", "--p0", "1.5"}, exitUsage, []string{"--p0"}},
		{"bad flavour", []string{"--human", imagenet, "--transformation", "frost", "--human-vif-method", "vifvec3"}, exitUsage, []string{"--human-vif-method", "vifvec3"}},
	} {
		args := append([]string{"requirements", "estimate", "--out", out}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.code, stderr)
		}
		for _, m := range c.msg {
			if !strings.Contains(stderr, m) {
				t.Errorf("%s: stderr lacks %q: %s", c.name, m, stderr)
			}
		}
	}
	if code, _, _ := runCLI(t, "requirements", "bogus"); code != exitUsage {
		t.Errorf("unknown subcommand: exit %d", code)
	}
}

// TestRequirementsEstimateOutputs: --out and --plot create missing folders;
// paths that cannot be written are usage errors naming the flag and no
// temporary file, reported before any estimation.
func TestRequirementsEstimateOutputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "missing", "dir", "x.json")
	plot := filepath.Join(dir, "plots", "x.svg")
	code, _, stderr := runCLI(t, "requirements", "estimate", "--human", "icse2022-imagenet", "--transformation", "frost", "--out", out, "--plot", plot)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := readReq(t, out); len(r.Requirements) != 1 {
		t.Errorf("%+v", r)
	}
	readFile(t, plot)
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", filepath.Join(file, "x.json")}, "--out " + filepath.Join(file, "x.json") + ": cannot create the folder " + file},
		{[]string{"--out", out, "--plot", filepath.Join(file, "p.svg")}, "--plot " + filepath.Join(file, "p.svg") + ": cannot create the folder"},
		{[]string{"--out", out, "--plot", filepath.Join(dir, "p.pdf")}, "--plot " + filepath.Join(dir, "p.pdf") + ": want a file name ending in .svg or .png"},
		{[]string{"--out", dir}, "--out " + dir + ": " + dir + " is a folder; give a file name"},
	} {
		// The human data does not exist: an output error must come first.
		args := append([]string{"requirements", "estimate", "--human", filepath.Join(dir, "nope"), "--transformation", "frost"}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Contains(stderr, ".tmp") || strings.Contains(stderr, "probe") || strings.Contains(stderr, "nope") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
