package evaluate

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/testset"
)

// makeTestSet writes an image-folder dataset (3 classes × 3 images of
// 40×32) and a test set generated from it with the given crop, and returns
// the test set's folder and the dataset's.
func makeTestSet(t testing.TB, n, crop int) (out, root string) {
	t.Helper()
	root = t.TempDir()
	for c, class := range []string{"car", "tree", "boat"} {
		os.MkdirAll(filepath.Join(root, class), 0o755)
		for i := range 3 {
			p := filepath.Join(root, class, fmt.Sprintf("%d.png", i))
			if err := imageio.Save(p, testimg.Natural(40, 32, uint64(10*c+i)), imageio.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ds, err := dataset.OpenImageFolder(root, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cs []*corrupt.Corruption
	for _, name := range []string{"gaussian_noise", "brightness"} {
		c, err := corrupt.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	out = filepath.Join(t.TempDir(), "ts")
	cfg := testset.Config{Source: ds, Corruptions: cs, N: n, Seed: 7, Out: out, Workers: 2, Crop: crop}
	if crop > 0 {
		cfg.Preprocess = func(m *imageio.Image) *imageio.Image { return imageio.Preprocess(m, 0, crop) }
	}
	if _, err := testset.Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return out, root
}

// planar is a Preprocessor that lays an image out as CHW floats.
type planar struct{}

func (planar) Apply(m *imageio.Image) (model.Tensor, error) {
	n := m.Width * m.Height
	d := make([]float32, 3*n)
	for c := range 3 {
		copy(d[c*n:], m.Ch[c][:n])
	}
	return model.Tensor{Data: d, Shape: []int64{3, int64(m.Height), int64(m.Width)}}, nil
}

// fakeModel is a deterministic 3-class classifier: score k is minus the
// squared distance of the image's mean red value from 0.3, 0.45, 0.6. It
// counts the images it sees by content hash.
type fakeModel struct {
	maxBatch int
	mu       sync.Mutex
	seen     map[uint64]int
	calls    atomic.Int64
	images   atomic.Int64
	failAt   int64 // > 0: the call with this number fails
	cancelAt int64 // > 0: the call with this number cancels cancel
	cancel   context.CancelFunc
}

func (f *fakeModel) Info() model.Info {
	return model.Info{Name: "fake", Layout: model.NCHW, Channels: 3, Classes: 3, MaxBatch: f.maxBatch}
}

func fakeScores(t model.Tensor) []float32 {
	n := len(t.Data) / 3
	var s float64
	for _, v := range t.Data[:n] {
		s += float64(v)
	}
	mean := s / float64(n)
	out := make([]float32, 3)
	for k, c := range []float64{0.3, 0.45, 0.6} {
		out[k] = float32(-(mean - c) * (mean - c))
	}
	return out
}

func tensorHash(t model.Tensor) uint64 {
	h := fnv.New64a()
	for _, v := range t.Data {
		b := math.Float32bits(v)
		h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
	}
	return h.Sum64()
}

func (f *fakeModel) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	call := f.calls.Add(1)
	if call == f.failAt {
		return nil, errors.New("fake model failed")
	}
	if call == f.cancelAt {
		f.cancel()
		return nil, context.Canceled
	}
	if f.maxBatch > 0 && len(batch) > f.maxBatch {
		return nil, fmt.Errorf("batch of %d > max %d", len(batch), f.maxBatch)
	}
	out := make([][]float32, len(batch))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[uint64]int{}
	}
	for i, t := range batch {
		out[i] = fakeScores(t)
		f.seen[tensorHash(t)]++
	}
	f.images.Add(int64(len(batch)))
	return out, nil
}

func (f *fakeModel) Close() error { return nil }

func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func manifestRows(t testing.TB, dir string) []*testset.Record {
	t.Helper()
	var rows []*testset.Record
	if err := testset.ReadManifest(filepath.Join(dir, testset.ManifestFile), func(r *testset.Record) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

var classes = []string{"boat", "car", "tree"}

func TestRunClassifier(t *testing.T) {
	for _, crop := range []int{0, 24} {
		t.Run(fmt.Sprintf("crop%d", crop), func(t *testing.T) {
			ts, root := makeTestSet(t, 6, crop)
			rows := manifestRows(t, ts)
			fm := &fakeModel{maxBatch: 5}
			out := filepath.Join(t.TempDir(), "results.csv")
			var last [2]int
			sum, err := Run(context.Background(), Config{
				TestSet: ts, Out: out, Classifier: fm, Preprocess: planar{}, Classes: classes,
				Batch: 8, Workers: 3, Concurrency: 2,
				Progress: func(done, total int) { last = [2]int{done, total} },
			})
			if err != nil {
				t.Fatal(err)
			}
			sources := map[string]bool{}
			for _, r := range rows {
				sources[r.Source] = true
			}
			if sum.CleanEvaluated != len(sources) || sum.CorruptedEvaluated != len(rows) || int(fm.images.Load()) != len(sources)+len(rows) {
				t.Errorf("scored %d clean + %d corrupted images (model saw %d), want %d + %d", sum.CleanEvaluated, sum.CorruptedEvaluated, fm.images.Load(), len(sources), len(rows))
			}
			if last != [2]int{len(rows), len(rows)} {
				t.Errorf("last progress %v, want %d of %d", last, len(rows), len(rows))
			}
			if _, err := os.Stat(Partial(out)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s left behind", Partial(out))
			}
			// Every row, checked against the model applied independently to
			// the files: the corrupted image the manifest lists and the
			// source image with the recorded crop.
			recs := readCSV(t, out)
			if len(recs) != len(rows)+1 {
				t.Fatalf("%d result rows, want %d", len(recs)-1, len(rows))
			}
			argmax := func(s []float32) string { c, _ := ArgMax{}.Map(s); return classes[c] }
			correct := 0
			for i, r := range rows {
				rec := recs[i+1]
				get := func(col string) string { return rec[indexOf(recs[0], col)] }
				if get("id") != strconv.Itoa(r.ID) || get("corruption") != r.Corruption || get("label") != r.Label || get("target") != r.Label {
					t.Fatalf("row %d = %v, manifest %+v", i, rec, r)
				}
				cm, err := imageio.Load(filepath.Join(ts, r.Path), imageio.Options{})
				if err != nil {
					t.Fatal(err)
				}
				sm, err := imageio.Load(filepath.Join(root, r.Source), imageio.Options{})
				if err != nil {
					t.Fatal(err)
				}
				sm = imageio.Preprocess(sm, 0, crop)
				ct, _ := planar{}.Apply(cm)
				st, _ := planar{}.Apply(sm)
				wantCor, wantClean := argmax(fakeScores(ct)), argmax(fakeScores(st))
				if get("pred_corrupted") != wantCor || get("pred_clean") != wantClean {
					t.Errorf("row %d: pred %s/%s, want %s/%s", i, get("pred_clean"), get("pred_corrupted"), wantClean, wantCor)
				}
				if get("correct_corrupted") != bit(wantCor == r.Label) || get("correct_clean") != bit(wantClean == r.Label) || get("consistent") != bit(wantCor == wantClean) {
					t.Errorf("row %d: flags %v", i, rec)
				}
				if wantCor == r.Label {
					correct++
				}
				fm.mu.Lock()
				if n := fm.seen[tensorHash(st)]; n != 1 {
					t.Errorf("row %d: clean image %s scored %d times, want 1", i, r.Source, n)
				}
				fm.mu.Unlock()
			}
			if sum.Correct != correct {
				t.Errorf("Summary.Correct = %d, want %d", sum.Correct, correct)
			}

			// Existing output: refused, then accepted with Resume (complete)
			// and Force.
			cfg := Config{TestSet: ts, Out: out, Classifier: fm, Preprocess: planar{}, Classes: classes}
			if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrExists) {
				t.Errorf("second run: %v, want ErrExists", err)
			}
			cfg.Resume = true
			if s, err := Run(context.Background(), cfg); err != nil || !s.WasComplete || s.Rows != len(rows) {
				t.Errorf("resume of a complete run: %+v, %v", s, err)
			}
			cfg.Resume, cfg.Force = false, true
			before := readFile(t, out)
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, readFile(t, out)) {
				t.Error("forced rerun wrote other bytes")
			}
		})
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	panic(v)
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResume interrupts runs at several points (a cancelled context, a
// failing model, a torn last line) and checks that resuming writes the
// bytes of an uninterrupted run without scoring a clean image twice.
func TestResume(t *testing.T) {
	ts, _ := makeTestSet(t, 8, 0)
	rows := manifestRows(t, ts)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.csv")
	if _, err := Run(context.Background(), Config{TestSet: ts, Out: ref, Classifier: &fakeModel{}, Preprocess: planar{}, Classes: classes, Batch: 4}); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, ref)
	for _, tc := range []struct {
		name   string
		failAt int64
		cancel int64
		tear   bool
	}{
		{"cancel", 0, 3, false}, {"fail", 5, 0, false}, {"tear", 4, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.csv")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fm := &fakeModel{failAt: tc.failAt, cancelAt: tc.cancel, cancel: cancel}
			cfg := Config{TestSet: ts, Out: out, Classifier: fm, Preprocess: planar{}, Classes: classes, Batch: 4, Workers: 1}
			if _, err := Run(ctx, cfg); err == nil {
				t.Fatal("interrupted run succeeded")
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s exists after an interrupted run", out)
			}
			part := readFile(t, Partial(out))
			if !bytes.HasPrefix(want, part) || len(part) >= len(want) {
				t.Fatalf("partial file (%d bytes) is not a proper prefix of the full result", len(part))
			}
			if tc.tear {
				// A torn last line, as a crash mid-write leaves.
				os.WriteFile(Partial(out), append(part, want[len(part):len(part)+7]...), 0o644)
			}
			if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrExists) {
				t.Errorf("run without Resume on a partial file: %v, want ErrExists", err)
			}
			fm2 := &fakeModel{}
			cfg.Classifier, cfg.Resume = fm2, true
			sum, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, out); !bytes.Equal(got, want) {
				t.Errorf("resumed result differs from an uninterrupted run")
			}
			if sum.Resumed == 0 || sum.Resumed+sum.CorruptedEvaluated != len(rows) {
				t.Errorf("resumed %d rows and scored %d, want a total of %d", sum.Resumed, sum.CorruptedEvaluated, len(rows))
			}
			// Clean images scored before the interruption are taken from
			// the kept rows, not scored again.
			if want := countSources(rows) - countSourcesBefore(rows, sum.Resumed); sum.CleanEvaluated != want {
				t.Errorf("resumed run scored %d clean images, want %d", sum.CleanEvaluated, want)
			}
		})
	}
}

func countSources(rows []*testset.Record) int { return countSourcesBefore(rows, len(rows)) }

func countSourcesBefore(rows []*testset.Record, n int) int {
	m := map[string]bool{}
	for _, r := range rows[:n] {
		m[r.Source] = true
	}
	return len(m)
}

// mapPredictions are predictions held in maps.
type mapPredictions struct {
	cor   map[int]Prediction
	clean map[string]Prediction
}

func (p *mapPredictions) Corrupted(r *testset.Record) (Prediction, error) {
	pr, ok := p.cor[r.ID]
	if !ok {
		return pr, fmt.Errorf("no row for id %d", r.ID)
	}
	return pr, nil
}

func (p *mapPredictions) Clean(source string) (Prediction, error) {
	pr, ok := p.clean[source]
	if !ok {
		return pr, fmt.Errorf("no clean row for %s", source)
	}
	return pr, nil
}

// TestRunPredictions evaluates imported predictions on a task that leaves
// out one class ("boat"): those rows keep consistency but have no target.
func TestRunPredictions(t *testing.T) {
	ts, _ := makeTestSet(t, 5, 0)
	rows := manifestRows(t, ts)
	task := []string{"car", "tree"}
	p := &mapPredictions{cor: map[int]Prediction{}, clean: map[string]Prediction{}}
	for _, r := range rows {
		p.cor[r.ID] = Prediction{Class: r.ID % 2, Conf: float32(math.NaN())}
		p.clean[r.Source] = Prediction{Class: len(r.Source) % 2, Conf: 0.5}
	}
	out := filepath.Join(t.TempDir(), "res.csv")
	missing := &mapPredictions{cor: map[int]Prediction{}, clean: p.clean}
	for id, pr := range p.cor {
		if id != rows[3].ID {
			missing.cor[id] = pr
		}
	}
	_, err := Run(context.Background(), Config{TestSet: ts, Out: out, Predictions: missing, Classes: task})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("predictions for row %d (%s): no row for id %d", rows[3].ID, rows[3].Path, rows[3].ID)) {
		t.Errorf("missing row: %v", err)
	}
	if _, err := os.Stat(Partial(out)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a predictions file missing rows left a partial results file")
	}
	sum, err := Run(context.Background(), Config{TestSet: ts, Out: out, Predictions: p, Classes: task})
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, out)
	excluded := 0
	for i, r := range rows {
		rec := recs[i+1]
		get := func(col string) string { return rec[indexOf(recs[0], col)] }
		pc, pk := p.clean[r.Source].Class, p.cor[r.ID].Class
		if get("pred_clean") != task[pc] || get("pred_corrupted") != task[pk] || get("consistent") != bit(pc == pk) {
			t.Errorf("row %d: %v", i, rec)
		}
		if get("conf_clean") != "0.5" || get("conf_corrupted") != "" {
			t.Errorf("row %d confidences: %v", i, rec)
		}
		if r.Label == "boat" {
			excluded++
			if get("target") != "" || get("correct_clean") != "" || get("correct_corrupted") != "" {
				t.Errorf("row %d (boat, outside the task): %v", i, rec)
			}
			continue
		}
		if get("target") != r.Label || get("correct_corrupted") != bit(task[pk] == r.Label) || get("correct_clean") != bit(task[pc] == r.Label) {
			t.Errorf("row %d: %v", i, rec)
		}
	}
	if excluded == 0 || sum.Excluded != excluded {
		t.Errorf("Summary.Excluded = %d, want %d (> 0)", sum.Excluded, excluded)
	}
}

// TestResumeOtherSettings refuses to continue results of another model.
func TestResumeOtherSettings(t *testing.T) {
	ts, _ := makeTestSet(t, 4, 0)
	out := filepath.Join(t.TempDir(), "r.csv")
	ctx, cancel := context.WithCancel(context.Background())
	fm := &fakeModel{cancelAt: 2, cancel: cancel}
	cfg := Config{TestSet: ts, Out: out, Classifier: fm, Preprocess: planar{}, Classes: classes, Batch: 3, Workers: 1,
		Settings: map[string]string{"model": "a.onnx"}}
	if _, err := Run(ctx, cfg); err == nil {
		t.Fatal("interrupted run succeeded")
	}
	cfg.Classifier, cfg.Resume = &fakeModel{}, true
	cfg.Settings = map[string]string{"model": "b.onnx"}
	var se *SettingsError
	if _, err := Run(context.Background(), cfg); !errors.As(err, &se) || !strings.Contains(err.Error(), `model: "a.onnx" there, "b.onnx" here`) {
		t.Errorf("resume with another model: %v", err)
	}
	cfg.Settings = map[string]string{"model": "a.onnx"}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Errorf("resume with the same model: %v", err)
	}
	if !strings.Contains(string(readFile(t, SettingsFile(out))), `"model": "a.onnx"`) {
		t.Errorf("settings file:\n%s", readFile(t, SettingsFile(out)))
	}
}
