package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const header = "id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n"

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	// Model A (from the folder name): two corruptions; source s1 appears
	// twice (its clean result counts once), one error row, one unlabelled row.
	a := write(t, dir, "modelA/results.csv", header+
		`0,s1,blur,,{},0.1,vcr-py,car,car,car,car,1,1,1,,,`+"\n"+
		`1,s2,blur,,{},0.5,vcr-py,car,car,boat,car,0,1,0,,,`+"\n"+
		`2,s1,blur,,{},1,vcr-py,car,car,car,boat,1,0,0,,,`+"\n"+
		`3,s3,blur,,{},0.7,vcr-py,car,car,,,,,,,,bad image`+"\n"+
		`4,s4,blur,,{},0.2,vcr-py,cat,,x,y,,,0,,,`+"\n"+
		`5,s1,frost,,{},0,vcr-py,car,car,car,car,1,1,1,,,`+"\n")
	// A file with a model column, in another column order, without source.
	b := write(t, dir, "b.csv", "model,corruption,dv,vif_method,id,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent\n"+
		"vit,blur,0.3,vcr-py,0,a,a,1,1,1\n"+
		"vit,blur,0.4,vcr-py,1,a,b,1,0,0\n"+
		"vit,blur,0.9,vcr-py,2,b,b,0,0,1\n"+
		",blur,0.9,vcr-py,3,b,b,0,0,1\n") // empty model cell: the file's name
	tab, err := Read([]File{{Path: a}, {Path: b}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.VIFMethod != "vcr-py" || tab.Rows != 10 || tab.Skipped != 1 || tab.Unlabelled != 1 || len(tab.Warnings) != 2 {
		t.Errorf("table: vif %q, rows %d, skipped %d, unlabelled %d, warnings %v", tab.VIFMethod, tab.Rows, tab.Skipped, tab.Unlabelled, tab.Warnings)
	}
	type want struct {
		model, corruption string
		n, correct, cons  int
		clean             float64
		cleanN            int
	}
	wants := []want{
		{"b", "blur", 1, 0, 1, 0, 1},
		// s1 (1) and s2 (0): 1/2.
		{"modelA", "blur", 3, 2, 1, 0.5, 2},
		{"modelA", "frost", 1, 1, 1, 1, 1},
		{"vit", "blur", 3, 1, 2, 2.0 / 3, 3},
	}
	if len(tab.Series) != len(wants) {
		t.Fatalf("%d series, want %d", len(tab.Series), len(wants))
	}
	for i, w := range wants {
		s := tab.Series[i]
		nc, np := 0, 0
		for _, tr := range s.Trials {
			if tr.Correct {
				nc++
			}
			if tr.Consistent {
				np++
			}
		}
		if s.Subject != w.model || s.Corruption != w.corruption || len(s.Trials) != w.n || nc != w.correct || np != w.cons ||
			s.CleanAccuracy != w.clean || s.CleanN != w.cleanN || s.CleanConsistency != 1 || s.VIFMethod != "vcr-py" {
			t.Errorf("series %d = %s/%s n %d correct %d consistent %d clean %v (N %d) cons %v, want %+v",
				i, s.Subject, s.Corruption, len(s.Trials), nc, np, s.CleanAccuracy, s.CleanN, s.CleanConsistency, w)
		}
	}
	if dv := tab.Series[1].Trials[2].DV; dv != 1 {
		t.Errorf("Δv of the third modelA blur row = %v, want 1", dv)
	}
	// An explicit model name overrides the file's.
	tab, err = Read([]File{{Path: a, Model: "resnet"}})
	if err != nil || tab.Series[0].Subject != "resnet" {
		t.Errorf("explicit model name: %v, %v", tab, err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	good := `0,s1,blur,,{},0.1,vcr-py,car,car,car,car,1,1,1,,,` + "\n"
	for _, tc := range []struct {
		name, body string
		err        error
		msg        []string // substrings of the message
	}{
		{"empty", "", ErrEmpty, []string{"empty.csv"}},
		{"header only", header, ErrEmpty, []string{"header only.csv"}},
		{"dv above 1", header + good + `1,s2,blur,,{},1.5,vcr-py,car,car,car,car,1,1,1,,,` + "\n", ErrValue, []string{"line 3", "id 1", "dv", "1.5", "[0, 1]"}},
		{"dv negative", header + `7,s2,blur,,{},-0.01,vcr-py,car,car,car,car,1,1,1,,,` + "\n", ErrValue, []string{"line 2", "id 7"}},
		{"dv NaN", header + `1,s2,blur,,{},NaN,vcr-py,car,car,car,car,1,1,1,,,` + "\n", ErrValue, []string{"NaN"}},
		{"dv text", header + `1,s2,blur,,{},abc,vcr-py,car,car,car,car,1,1,1,,,` + "\n", ErrValue, []string{"abc"}},
		{"bad consistent", header + `1,s2,blur,,{},0.2,vcr-py,car,car,car,car,1,1,2,,,` + "\n", ErrValue, []string{"consistent"}},
		{"missing columns", "id,corruption,dv\n0,blur,0.1\n", ErrColumns, []string{"vif_method", "correct_corrupted", "consistent"}},
		{"mixed vif", header + good + `1,s2,blur,,{},0.2,vifvec,car,car,car,car,1,1,1,,,` + "\n", ErrVIFMixed, []string{"vifvec", "vcr-py", "line 3", "line 2"}},
		{"only errors", header + `3,s3,blur,,{},0.7,vcr-py,car,car,,,,,,,,bad image` + "\n", ErrEmpty, nil},
		// Issue 15: two evaluations appending to one file repeat ids.
		{"duplicate id", header + good + `1,s2,blur,,{},0.2,vcr-py,car,car,car,car,1,1,1,,,` + "\n" + good, ErrDuplicate, []string{"lines 2 and 4", "id 0", "--force"}},
		{"duplicate error row", header + `3,s3,blur,,{},0.7,vcr-py,car,car,,,,,,,,bad image` + "\n" + good + `3,s3,blur,,{},0.7,vcr-py,car,car,,,,,,,,bad image` + "\n", ErrDuplicate, []string{"lines 2 and 4", "id 3"}},
		{"NUL byte", header + good + "1,s2\x00,blur,,{},0.2,vcr-py,car,car,car,car,1,1,1,,,\n", ErrValue, []string{"line 3", "source", "NUL"}},
	} {
		p := write(t, dir, tc.name+".csv", tc.body)
		_, err := Read([]File{{Path: p}})
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
			continue
		}
		for _, m := range tc.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, m)
			}
		}
	}
	// Mixed flavours across files name both files.
	p1 := write(t, dir, "one.csv", header+good)
	p2 := write(t, dir, "two.csv", header+`1,s2,blur,,{},0.2,vifvec,car,car,car,car,1,1,1,,,`+"\n")
	if _, err := Read([]File{{Path: p1}, {Path: p2}}); !errors.Is(err, ErrVIFMixed) || !strings.Contains(err.Error(), "one.csv") || !strings.Contains(err.Error(), "two.csv") {
		t.Errorf("mixed flavours across files: %v", err)
	}
	// The same id under two models of one combined file is no duplicate.
	pm := write(t, dir, "models.csv", "model,"+header+"a,"+good+"b,"+good)
	if _, err := Read([]File{{Path: pm}}); err != nil {
		t.Errorf("one id under two models: %v", err)
	}
	if _, err := Read([]File{{Path: filepath.Join(dir, "nope.csv")}}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestDefaultModel(t *testing.T) {
	for path, want := range map[string]string{
		"runs/resnet50/results.csv": "resnet50",
		"resnet50.csv":              "resnet50",
		"results.csv":               "results",
		"/a/b/vit-b_results.csv":    "vit-b_results",
	} {
		if got := DefaultModel(path); got != want {
			t.Errorf("DefaultModel(%q) = %q, want %q", path, got, want)
		}
	}
}

// FuzzRead checks that Read never panics and that every series it returns
// holds valid trials.
func FuzzRead(f *testing.F) {
	f.Add(header + `0,s1,blur,,{},0.1,vcr-py,car,car,car,car,1,1,1,,,` + "\n")
	f.Add("model,corruption,dv,vif_method,id,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent\nvit,blur,0.3,vcr-py,0,a,a,1,1,1\n")
	f.Add(header + `1,s2,blur,,{},1.5,vcr-py,car,car,car,car,1,1,1,,,` + "\n")
	f.Add("\ufeff" + header + "\"unterminated")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		p := filepath.Join(dir, "fuzz.csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := Read([]File{{Path: p}})
		if err != nil {
			return
		}
		for _, s := range tab.Series {
			if len(s.Trials) == 0 || !(s.CleanAccuracy >= 0 && s.CleanAccuracy <= 1) {
				t.Fatalf("series %s/%s: %d trials, clean %v", s.Subject, s.Corruption, len(s.Trials), s.CleanAccuracy)
			}
			for _, tr := range s.Trials {
				if !(tr.DV >= 0 && tr.DV <= 1) {
					t.Fatalf("Δv %v accepted", tr.DV)
				}
			}
		}
	})
}

// TestReadDVMethod: the per-flavour Δv columns give the series another
// flavour's axis; rows whose vif_method is that flavour keep their dv.
func TestReadDVMethod(t *testing.T) {
	dir := t.TempDir()
	h := "id,source,corruption,dv,vif_method,dv_vcr_py,dv_vifvec,dv_vifvec2_layers,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent\n"
	a := write(t, dir, "a/results.csv", h+
		"0,s1,frost,0.30,vcr-py,0.30,0.25,0.20,car,car,1,1,1\n"+
		"1,s2,frost,0.60,vcr-py,0.60,0.55,0.50,car,dog,1,0,0\n")
	b := write(t, dir, "b/results.csv", h+
		"0,s1,frost,0.45,vifvec,0.40,0.45,0.35,car,car,1,1,1\n")
	if _, err := Read([]File{{Path: a}, {Path: b}}); !errors.Is(err, ErrVIFMixed) {
		t.Errorf("default options on mixed flavours: err = %v, want ErrVIFMixed", err)
	}
	tab, err := ReadOptions([]File{{Path: a}, {Path: b}}, Options{DVMethod: "vifvec"})
	if err != nil {
		t.Fatal(err)
	}
	if tab.VIFMethod != "vifvec" || tab.RecordedVIFMethod != "vcr-py" || strings.Join(tab.DVMethods, ",") != "vcr-py,vifvec,vifvec2-layers" {
		t.Errorf("VIFMethod %q, RecordedVIFMethod %q, DVMethods %v", tab.VIFMethod, tab.RecordedVIFMethod, tab.DVMethods)
	}
	var got []float64
	for _, s := range tab.Series {
		for _, tr := range s.Trials {
			got = append(got, tr.DV)
		}
	}
	// a: its dv_vifvec cells; b: vif_method vifvec, its dv cell.
	if want := []float64{0.25, 0.55, 0.45}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Δv %v, want %v", got, want)
	}
	tab, err = ReadOptions([]File{{Path: a}}, Options{DVMethod: "vifvec2-layers"})
	if err != nil || tab.Series[0].Trials[0].DV != 0.20 {
		t.Errorf("dv_vifvec2_layers: %v, %v", err, tab)
	}
	// A flavour without a column: ErrNoDVColumn naming the file and the columns it has.
	_, err = ReadOptions([]File{{Path: a}}, Options{DVMethod: "pixel"})
	if !errors.Is(err, ErrNoDVColumn) || !strings.Contains(err.Error(), "dv_pixel") || !strings.Contains(err.Error(), "dv_vcr_py, dv_vifvec, dv_vifvec2_layers") {
		t.Errorf("missing column: err = %v", err)
	}
	// An empty cell in the flavour's column names the column.
	c := write(t, dir, "c/results.csv", h+"0,s1,frost,0.30,vcr-py,0.30,,0.20,car,car,1,1,1\n")
	if _, err := ReadOptions([]File{{Path: c}}, Options{DVMethod: "vifvec"}); !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), "dv_vifvec") {
		t.Errorf("empty cell: err = %v", err)
	}
}

// TestReadTask: the task comes from the settings file beside the results.
func TestReadTask(t *testing.T) {
	dir := t.TempDir()
	h := "id,corruption,dv,vif_method,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent\n"
	a := write(t, dir, "a/results.csv", h+"0,frost,0.3,vcr-py,car,car,1,1,1\n")
	b := write(t, dir, "b/results.csv", h+"0,frost,0.3,vcr-py,car,car,1,1,1\n")
	write(t, dir, "a/results.csv.json", `{"tool":"vcr eval","task":{"name":"car","classes":["car","not car"]}}`)
	tab, err := Read([]File{{Path: a}, {Path: b}})
	if err != nil {
		t.Fatal(err)
	}
	if task, ok := tab.Tasks["a"]; !ok || task.Name != "car" || strings.Join(task.Classes, "|") != "car|not car" {
		t.Errorf("task of a: %+v", tab.Tasks)
	}
	if _, ok := tab.Tasks["b"]; ok {
		t.Errorf("b has no settings file but a task: %+v", tab.Tasks)
	}
	write(t, dir, "b/results.csv.json", `{not json`)
	if _, err := Read([]File{{Path: b}}); err == nil || !strings.Contains(err.Error(), "results.csv.json") {
		t.Errorf("bad settings file: err = %v", err)
	}
}

func TestReadSeverities(t *testing.T) {
	dir := t.TempDir()
	// Source s1 at severities 1 and 2 of fog and severity 1 of snow (its
	// clean result counts once per model); s2 clean-wrong; a sampled row
	// (empty severity) and an error row are not counted.
	a := write(t, dir, "m/results.csv", header+
		`0,s1,fog,1,{},0.1,vcr-py,car,car,car,car,1,1,1,,,`+"\n"+
		`1,s1,fog,2,{},0.2,vcr-py,car,car,car,boat,1,0,0,,,`+"\n"+
		`2,s2,fog,1,{},0.3,vcr-py,car,car,boat,boat,0,0,1,,,`+"\n"+
		`3,s1,snow,1,{},0.3,vcr-py,car,car,car,car,1,1,1,,,`+"\n"+
		`4,s3,snow,,{},0.3,vcr-py,car,car,boat,boat,0,0,1,,,`+"\n"+
		`5,s4,snow,2,{},0.7,vcr-py,car,car,,,,,,,,bad image`+"\n")
	tab, err := Read([]File{{Path: a}})
	if err != nil {
		t.Fatal(err)
	}
	want := []SeverityCount{
		{"m", "fog", 1, 2, 1}, {"m", "fog", 2, 1, 0}, {"m", "snow", 1, 1, 1},
	}
	if len(tab.Severities) != len(want) {
		t.Fatalf("severities %+v, want %+v", tab.Severities, want)
	}
	for i, w := range want {
		if tab.Severities[i] != w {
			t.Errorf("severity count %d = %+v, want %+v", i, tab.Severities[i], w)
		}
	}
	// s1 (correct) and s2 (wrong); s3 has no severity.
	if c := tab.SeverityClean["m"]; c != (CleanCount{N: 2, Correct: 1}) {
		t.Errorf("clean %+v, want 1 of 2", c)
	}

	// Without severities: nil.
	b := write(t, dir, "b/results.csv", header+`0,s1,fog,,{},0.1,vcr-py,car,car,car,car,1,1,1,,,`+"\n")
	if tab, err := Read([]File{{Path: b}}); err != nil || tab.Severities != nil || tab.SeverityClean != nil {
		t.Errorf("no severity: %v, %v, %v", err, tab.Severities, tab.SeverityClean)
	}
	for _, bad := range []string{"6", "0", "x", "1.5"} {
		p := write(t, dir, "bad/results.csv", header+`7,s1,fog,`+bad+`,{},0.1,vcr-py,car,car,car,car,1,1,1,,,`+"\n")
		_, err := Read([]File{{Path: p}})
		if !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), "line 2 (id 7)") || !strings.Contains(err.Error(), "severity") {
			t.Errorf("severity %q: %v, want an ErrValue naming line 2 and the severity", bad, err)
		}
	}
}
