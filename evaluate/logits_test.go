package evaluate

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/task"
)

// Config.Logits writes every scored image's raw scores: checked against the
// fake model applied independently to the files, and read back as a
// predictions file, which must give the same results file.
func TestRunLogits(t *testing.T) {
	ts, root := makeTestSet(t, 6, 0)
	rows := manifestRows(t, ts)
	dir := t.TempDir()
	out, logits := filepath.Join(dir, "results.csv"), filepath.Join(dir, "logits.csv")
	fm := &fakeModel{maxBatch: 4}
	if _, err := Run(context.Background(), Config{
		TestSet: ts, Out: out, Classifier: fm, Preprocess: planar{}, Classes: classes,
		Batch: 4, Workers: 2, Concurrency: 2, Logits: logits,
	}); err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, logits)
	want := []string{"id", "path", "source", "kind", "logit_0", "logit_1", "logit_2"}
	if len(recs[0]) != len(want) {
		t.Fatalf("header %v, want %v", recs[0], want)
	}
	for i, h := range want {
		if recs[0][i] != h {
			t.Fatalf("header %v, want %v", recs[0], want)
		}
	}
	sources := map[string]bool{}
	for _, r := range rows {
		sources[r.Source] = true
	}
	if len(recs)-1 != len(rows)+len(sources) {
		t.Fatalf("%d logits rows, want %d corrupted + %d clean", len(recs)-1, len(rows), len(sources))
	}
	byID := map[string]int{}
	for i, r := range rows {
		byID[strconv.Itoa(r.ID)] = i
	}
	clean := 0
	for _, rec := range recs[1:] {
		var m *imageio.Image
		var err error
		switch rec[3] {
		case "clean":
			clean++
			if rec[0] != "" || rec[1] != "" || !sources[rec[2]] {
				t.Fatalf("clean row %v", rec)
			}
			m, err = imageio.Load(filepath.Join(root, rec[2]), imageio.Options{})
		case "corrupted":
			r := rows[byID[rec[0]]]
			if rec[1] != r.Path || rec[2] != r.Source {
				t.Fatalf("row %v, manifest %+v", rec, r)
			}
			m, err = imageio.Load(filepath.Join(ts, r.Path), imageio.Options{})
		default:
			t.Fatalf("kind %q", rec[3])
		}
		if err != nil {
			t.Fatal(err)
		}
		tn, _ := planar{}.Apply(m)
		for k, w := range fakeScores(tn) {
			got, err := strconv.ParseFloat(rec[4+k], 32)
			if err != nil || float32(got) != w {
				t.Errorf("%v: logit_%d = %s, want %v (exactly)", rec[:4], k, rec[4+k], w)
			}
		}
	}
	if clean != len(sources) {
		t.Errorf("%d clean rows, want one per source (%d)", clean, len(sources))
	}

	// The logits file is a predictions file giving the same results.
	p, err := model.LoadPredictions(logits, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.SetRoot(ts)
	mp, err := task.New(task.Spec{Outputs: 3, OutputNames: classes})
	if err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "results2.csv")
	if _, err := Run(context.Background(), Config{TestSet: ts, Out: out2, Predictions: predictionsFile{p: p, m: mp}, Classes: classes}); err != nil {
		t.Fatal(err)
	}
	a, b := readCSV(t, out), readCSV(t, out2)
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] && a[0][j] != "conf_clean" && a[0][j] != "conf_corrupted" {
				t.Errorf("row %d column %s: %q from the model, %q from its logits file", i, a[0][j], a[i][j], b[i][j])
			}
		}
	}

	// Refused with Resume and with a predictions file; nothing is written.
	for _, cfg := range []Config{
		{TestSet: ts, Out: filepath.Join(dir, "r3.csv"), Classifier: fm, Preprocess: planar{}, Classes: classes, Resume: true, Logits: filepath.Join(dir, "l3.csv")},
		{TestSet: ts, Out: filepath.Join(dir, "r4.csv"), Predictions: predictionsFile{p: p, m: mp}, Classes: classes, Logits: filepath.Join(dir, "l4.csv")},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("Run with Logits, Resume %v, predictions %v: no error", cfg.Resume, cfg.Predictions != nil)
		}
		if _, err := os.Stat(cfg.Logits); err == nil {
			t.Errorf("%s written", cfg.Logits)
		}
	}
}
