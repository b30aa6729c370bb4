package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/evaluate"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/testset"
)

// truthClasses are class folders named as ImageNet WordNet IDs (car and
// non-car synsets), CIFAR-10 classes (automobile, truck) and 16-class
// categories; want gives each one's class under each task, written down
// from the task definitions: the ICSE 2022 car set (ImageNet 407
// ambulance n02701002, 817 sports car n04285008; CIFAR-10 automobile and
// truck) and Geirhos et al.'s 16-class mapping (sports car 817 is "car",
// tabby 281 is "cat", ambulance 407 and tench 0 are in no category).
var truthClasses = []struct {
	folder   string
	car, i16 string // "" = outside the task
}{
	{"automobile", "car", ""},
	{"bird", "not car", "bird"},
	{"car", "car", "car"},
	{"cat", "not car", "cat"},
	{"truck", "car", "truck"},
	{"n01440764", "not car", ""},    // tench
	{"n02123045", "not car", "cat"}, // tabby cat
	{"n02701002", "car", ""},        // ambulance
	{"n04285008", "car", "car"},     // sports car
}

// TestStimulusTruthEqualsEvalTarget checks that, for the same test-set
// rows, the ground truth of the experiment's stimuli equals the target
// column vcr eval writes, for every task both support, and that both equal
// the task definitions.
func TestStimulusTruthEqualsEvalTarget(t *testing.T) {
	dir := t.TempDir()
	data, ts := filepath.Join(dir, "data"), filepath.Join(dir, "ts")
	for c, tc := range truthClasses {
		cd := filepath.Join(data, tc.folder)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := imageio.Save(filepath.Join(cd, fmt.Sprintf("img%d.png", i)), testimg.Natural(32, 32, uint64(100*c+i)), imageio.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	src, err := dataset.Open(dataset.Spec{Path: data})
	if err != nil {
		t.Fatal(err)
	}
	c, err := corrupt.Lookup("gaussian_noise")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testset.Generate(context.Background(), testset.Config{
		Source: src, Corruptions: []*corrupt.Corruption{c}, N: 60, Seed: 9, Method: iqa.Pixel,
		Out: ts, Workers: 2, Version: "test",
	}); err != nil {
		t.Fatal(err)
	}
	// Predictions of class 0 for every image: eval needs some; the targets
	// do not depend on them.
	var preds strings.Builder
	preds.WriteString("id,source,kind,pred\n")
	sources := map[string]bool{}
	labelOf := map[int]string{}
	err = testset.ReadManifest(filepath.Join(ts, testset.ManifestFile), func(r *testset.Record) error {
		fmt.Fprintf(&preds, "%d,,,0\n", r.ID)
		if !sources[r.Source] {
			sources[r.Source] = true
			fmt.Fprintf(&preds, ",%s,clean,0\n", r.Source)
		}
		labelOf[r.ID] = r.LabelName
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	predFile := filepath.Join(dir, "preds.csv")
	if err := os.WriteFile(predFile, []byte(preds.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{PresetCar, PresetImageNet16} {
		want := map[string]string{}
		for _, tc := range truthClasses {
			want[tc.folder] = tc.car
			if name == PresetImageNet16 {
				want[tc.folder] = tc.i16
			}
		}
		// vcr eval's targets.
		out := filepath.Join(dir, name, "results.csv")
		if _, err := evaluate.Eval(context.Background(), evaluate.Options{
			TestSet: ts, Out: out, Model: evaluate.ModelSpec{Predictions: predFile, Task: name},
		}); err != nil {
			t.Fatalf("%s: eval: %v", name, err)
		}
		target := readTargets(t, out)
		outside := 0
		for id, got := range target {
			if got == "" {
				outside++
			}
			if w := want[labelOf[id]]; got != w {
				t.Errorf("%s: eval target of row %d (%s) = %q, want %q", name, id, labelOf[id], got, w)
			}
		}
		// The experiment's stimuli.
		cfg := testConfig(t, dir)
		cfg.Task = TaskConfig{Preset: name}
		d, sum := build(t, cfg)
		if sum.SkippedLabel != outside {
			t.Errorf("%s: the experiment skipped %d rows as outside the task, eval left %d without a target", name, sum.SkippedLabel, outside)
		}
		n := 0
		for _, s := range d.Stimuli {
			if s.TestSetID < 0 {
				continue
			}
			n++
			if got, ok := target[s.TestSetID]; !ok || s.GroundTruth != got {
				t.Errorf("%s: stimulus %s (row %d, %s) ground truth %q, eval target %q", name, s.ID, s.TestSetID, labelOf[s.TestSetID], s.GroundTruth, got)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no stimuli from test-set rows", name)
		}
		var truths []string
		for _, s := range d.Stimuli {
			if !slices.Contains(truths, s.GroundTruth) {
				truths = append(truths, s.GroundTruth)
			}
		}
		if name == PresetCar && len(truths) != 2 {
			t.Errorf("car: stimuli ground truths %v, want both classes", truths)
		}
	}
}

// readTargets returns the target column of a results file by row id.
func readTargets(t *testing.T, path string) map[int]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	id, tg := slices.Index(recs[0], "id"), slices.Index(recs[0], "target")
	out := map[int]string{}
	for _, r := range recs[1:] {
		i, err := strconv.Atoi(r[id])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r[tg]
	}
	return out
}
