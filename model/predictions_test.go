package model

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func parsePreds(t *testing.T, text string, classes []string) *Predictions {
	t.Helper()
	p, err := ParsePredictions(strings.NewReader(text), "p.csv", classes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPredictionsIDs(t *testing.T) {
	classes := []string{"cat", "dog", "car"}
	p := parsePreds(t, "\ufeffID, Pred ,confidence,top5,extra\n0,dog,0.9,1;0;2,x\n1,2,,2 1,y\n7,cat,0.25,,z\n", classes)
	if p.Len() != 3 || p.CleanLen() != 0 {
		t.Fatalf("Len %d, CleanLen %d", p.Len(), p.CleanLen())
	}
	for _, tc := range []struct {
		id    int
		class int
		conf  float32
		has   bool
		top   []int
	}{{0, 1, 0.9, true, []int{1, 0, 2}}, {1, 2, 0, false, []int{2, 1}}, {7, 0, 0.25, true, nil}} {
		got, ok := p.Lookup(tc.id)
		if !ok || got.Class != tc.class || got.Confidence != tc.conf || got.HasConfidence != tc.has || !slices.Equal(got.Top, tc.top) || got.Scores != nil {
			t.Errorf("Lookup(%d) = %+v, %v", tc.id, got, ok)
		}
	}
	if _, ok := p.Lookup(2); ok {
		t.Error("Lookup(2) found a row")
	}
}

func TestPredictionsPathsAndClean(t *testing.T) {
	text := "path,source,kind,prediction\n" +
		"images/gaussian_noise/000001.png,n01/a.JPEG,,3\n" +
		`.\images\blur\000002.png,n01/a.JPEG,corrupted,4` + "\n" +
		"/data/out/images/x.png,,,5\n" +
		"out/images/y.png,,,6\n" +
		",n01/a.JPEG,clean,1\n" +
		",./n02//b.JPEG,CLEAN,2\n"
	p := parsePreds(t, text, nil)
	p.SetRoot("out")
	for _, tc := range []struct {
		path  string
		class int
	}{{"images/gaussian_noise/000001.png", 3}, {"images/blur/000002.png", 4}, {"images/y.png", 6}, {"./images/y.png", 6}} {
		if got, ok := p.LookupPath(tc.path); !ok || got.Class != tc.class {
			t.Errorf("LookupPath(%q) = %+v, %v; want class %d", tc.path, got, ok, tc.class)
		}
	}
	if got, ok := p.LookupPath("/data/out/images/x.png"); !ok || got.Class != 5 {
		t.Errorf("absolute LookupPath = %+v, %v", got, ok)
	}
	p.SetRoot("/data/out")
	if got, ok := p.LookupPath("images/x.png"); !ok || got.Class != 5 {
		t.Errorf("LookupPath under absolute root = %+v, %v", got, ok)
	}
	if got, ok := p.Clean("n01/a.JPEG"); !ok || got.Class != 1 {
		t.Errorf("Clean(n01/a.JPEG) = %+v, %v", got, ok)
	}
	if got, ok := p.Clean("n02/b.JPEG"); !ok || got.Class != 2 {
		t.Errorf("Clean(n02/b.JPEG) = %+v, %v", got, ok)
	}
	if _, ok := p.Clean("images/y.png"); ok {
		t.Error("a corrupted row answered Clean")
	}
	if p.Len() != 4 || p.CleanLen() != 2 {
		t.Errorf("Len %d, CleanLen %d", p.Len(), p.CleanLen())
	}
}

func TestPredictionsLogitsAndMerge(t *testing.T) {
	p := parsePreds(t, "id,logit_1,logit_0,logit_2\n0,0.5,0.1,0.2\n1,1,2,3\n", []string{"a", "b", "c"})
	if p.NumScores != 3 {
		t.Fatalf("NumScores %d", p.NumScores)
	}
	got, _ := p.Lookup(0)
	if got.Class != 1 || !slices.Equal(got.Scores, []float32{0.1, 0.5, 0.2}) {
		t.Errorf("row 0: %+v (class from the arg-max of the logits)", got)
	}
	got, _ = p.Lookup(1)
	if got.Class != 2 {
		t.Errorf("row 1: %+v", got)
	}
	// The clean predictions in a second file: source column, no id or path.
	q := parsePreds(t, "source,pred\nn01/a.JPEG,0\nn01/b.JPEG,c\n", []string{"a", "b", "c"})
	if q.Len() != 0 || q.CleanLen() != 2 {
		t.Fatalf("clean file: Len %d, CleanLen %d", q.Len(), q.CleanLen())
	}
	if err := p.Merge(q); err != nil {
		t.Fatal(err)
	}
	if c, ok := p.Clean("n01/b.JPEG"); !ok || c.Class != 2 {
		t.Errorf("merged Clean = %+v, %v", c, ok)
	}
	if r, ok := p.Lookup(1); !ok || r.Class != 2 {
		t.Errorf("merged Lookup = %+v, %v", r, ok)
	}
	err := p.Merge(parsePreds(t, "source,pred\nn01/a.JPEG,1\n", nil))
	if err == nil || !strings.Contains(err.Error(), "p.csv:2") {
		t.Errorf("duplicate clean source across files: %v", err)
	}
}

func TestPredictionsErrors(t *testing.T) {
	classes := []string{"cat", "dog"}
	for _, tc := range []struct{ text, want string }{
		{"", "p.csv is empty"},
		{"id,label\n0,1\n", "line 1: no prediction column"},
		{"pred\n1\n", "line 1: no key column"},
		{"id,pred\n0,1\n0,0\n", "line 3, column 1 (id): id 0 already given at p.csv:2"},
		{"path,pred\na/b.png,1\n./a//b.png,0\n", `line 3, column 1 (path): path "./a//b.png" already given at p.csv:2`},
		{"id,pred\n0,horse\n", `line 2, column 2 (pred): unknown class "horse"`},
		{"id,pred\n0,2\n", "line 2, column 2 (pred): class index 2 is outside 0…1"},
		{"id,pred\n-1,1\n", "line 2, column 1 (id): id \"-1\" is not a non-negative integer"},
		{"id,pred,confidence\n0,1,high\n", `line 2, column 3 (confidence): confidence "high" is not a number`},
		{"id,top5\n0,1;x\n", `line 2, column 2 (top5): unknown class "x"`},
		{"id,logit_0,logit_2\n0,1,2\n", "logit_1 is missing"},
		{"id,logit_0,logit_1,logit_2\n0,1,2,3\n", "3 logit_ columns, but 2 classes to score ("},
		{"id,logit_0,logit_1\n0,1,x\n", `line 2, column 3 (logit_1): "x" is not a number`},
		{"id,pred\n0\n", "line 2: 1 fields, but the header has 2"},
		{"id,pred\n0,\n", "line 2, column 2 (pred): no prediction"},
		{"id,pred,pred\n0,1,1\n", `column "pred" appears twice`},
		{"id,pred,class\n0,1,1\n", "columns pred and class mean the same"},
		{"id,source,kind,pred\n,,clean,1\n", "a clean row needs a source"},
		{"id,source,kind,pred\n0,a,bogus,1\n", `kind "bogus" is neither clean nor corrupted`},
		{"id,path,pred\n,,1\n", "line 2: neither id nor path given"},
		{"id,source,kind,pred\n,a,clean,1\n,a,clean,0\n", `clean source "a" already given at p.csv:2`},
		{"id,pred\n\"0,1\n", "p.csv"},
	} {
		_, err := ParsePredictions(strings.NewReader(tc.text), "p.csv", classes)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	// Names need a class list.
	if _, err := ParsePredictions(strings.NewReader("id,pred\n0,cat\n"), "p.csv", nil); err == nil || !strings.Contains(err.Error(), "no class list") {
		t.Errorf("name without classes: %v", err)
	}
}

func TestLoadPredictions(t *testing.T) {
	path := writeFile(t, t.TempDir(), "preds.csv", "id,pred\n0,1\n")
	p, err := LoadPredictions(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := p.Lookup(0); !ok || r.Class != 1 || p.Files[0] != path {
		t.Errorf("%+v %v %v", r, ok, p.Files)
	}
	if _, err := LoadPredictions(filepath.Join(t.TempDir(), "none.csv"), nil); err == nil || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzParsePredictions(f *testing.F) {
	for _, s := range []string{
		"id,pred\n0,1\n1,cat\n",
		"path,source,kind,prediction,confidence,top5\na.png,s,,1,0.5,1;0\n,s,clean,dog,,\n",
		"id,logit_0,logit_1,logit_2\n0,1,2,3\n",
		"source,pred\nx,2\n",
	} {
		f.Add(s)
	}
	if data, err := os.ReadFile("testdata/predictions.csv"); err == nil {
		f.Add(string(data))
	}
	classes := []string{"cat", "dog", "car"}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParsePredictions(strings.NewReader(text), "fuzz.csv", classes)
		if err != nil {
			return
		}
		if p.Len()+p.CleanLen() != len(p.rows) {
			t.Fatalf("Len %d + CleanLen %d != %d rows", p.Len(), p.CleanLen(), len(p.rows))
		}
		for _, r := range p.rows {
			if r.Class < 0 || r.Class >= len(classes) {
				t.Fatalf("class %d out of range", r.Class)
			}
			for _, c := range r.Top {
				if c < 0 || c >= len(classes) {
					t.Fatalf("top class %d out of range", c)
				}
			}
			if r.Scores != nil && len(r.Scores) != p.NumScores {
				t.Fatalf("%d scores, NumScores %d", len(r.Scores), p.NumScores)
			}
		}
	})
}

// TestPredictionsErrClasses: errors of classes that do not fit the class
// list match ErrClasses; other format errors do not.
func TestPredictionsErrClasses(t *testing.T) {
	classes := []string{"cat", "dog"}
	for _, tc := range []struct {
		csv  string
		want bool
	}{
		{"id,pred\n0,cow\n", true},
		{"id,pred\n0,7\n", true},
		{"id,top5\n0,cat;cow\n", true},
		{"id,logit_0,logit_1,logit_2\n0,1,2,3\n", true},
		{"id,kind,pred\n0,clean,cat\n", false},
		{"id,nothing\n0,1\n", false},
	} {
		_, err := ParsePredictions(strings.NewReader(tc.csv), "p.csv", classes)
		if err == nil || errors.Is(err, ErrClasses) != tc.want {
			t.Errorf("%q: %v; matches ErrClasses %v, want %v", tc.csv, err, errors.Is(err, ErrClasses), tc.want)
		}
	}
}
