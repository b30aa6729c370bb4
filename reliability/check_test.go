package reliability

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/model"
)

// memSet is an in-memory dataset of 8-bit generated images, all of class 0.
type memSet struct{ imgs []*imageio.Image }

func newMemSet(n, size int) *memSet {
	d := &memSet{}
	for i := range n {
		m := testimg.Natural(size, size, uint64(i+1))
		m.Quantize(imageio.Round)
		d.imgs = append(d.imgs, m)
	}
	return d
}

func (d *memSet) Name() string { return "mem" }
func (d *memSet) Len() int     { return len(d.imgs) }
func (d *memSet) Item(i int) dataset.Item {
	return dataset.Item{Index: i, Source: "img" + string(rune('a'+i%26)) + ".png", Label: 0, LabelName: "zero"}
}
func (d *memSet) Load(i int) (*imageio.Image, error) { return d.imgs[i].Clone(), nil }
func (d *memSet) Classes() []string                  { return []string{"zero", "one"} }
func (d *memSet) Root() string                       { return "mem" }

func tensorHash(t model.Tensor) uint64 {
	h := fnv.New64a()
	b := make([]byte, 4)
	for _, v := range t.Data {
		u := math.Float32bits(v)
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		h.Write(b)
	}
	return h.Sum64()
}

// fakeModel predicts class 0 for the originals it knows (or for every
// image when known is nil) and class 1 otherwise; fail makes it fail.
type fakeModel struct {
	known map[uint64]bool
	fail  bool
	calls int
}

func (f *fakeModel) Info() model.Info { return model.Info{Name: "fake", Classes: 2} }
func (f *fakeModel) Close() error     { return nil }
func (f *fakeModel) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	f.calls++
	if f.fail {
		return nil, errors.New("out of memory")
	}
	out := make([][]float32, len(batch))
	for i, t := range batch {
		if f.known == nil || f.known[tensorHash(t)] {
			out[i] = []float32{1, 0}
		} else {
			out[i] = []float32{0, 1}
		}
	}
	return out, nil
}

func fragile(t *testing.T, d *memSet, pre model.Preprocess) *fakeModel {
	f := &fakeModel{known: map[uint64]bool{}}
	for _, m := range d.imgs {
		tn, err := pre.Apply(m)
		if err != nil {
			t.Fatal(err)
		}
		f.known[tensorHash(tn)] = true
	}
	return f
}

func labelTruth(it dataset.Item) (int, error) { return it.Label, nil }

func testOptions(d *memSet, c model.Classifier) CheckOptions {
	pre, _ := model.Preset("none")
	return CheckOptions{Images: d, Classifier: c, Preprocess: pre, Truth: labelTruth,
		Batches: 4, BatchSize: 5, Seed: 1, MaxAttempts: 200, Workers: 2, ModelBatch: 7}
}

var testReq = Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0.6, TP: 0.5}

func TestCheckAlwaysRightSatisfied(t *testing.T) {
	d := newMemSet(6, 24)
	v, err := Check(context.Background(), testReq, testOptions(d, &fakeModel{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []Distance{v.Correctness, v.Preservation} {
		if x.Delta != 0 || x.Sigma != 0 || x.Bound != 0 || !x.Satisfied {
			t.Errorf("%s: %+v, want Δ = σ = 0, satisfied", x.Kind, x)
		}
		if x.Images != 20 || x.Attempts < 20 {
			t.Errorf("%s: %d images in %d attempts", x.Kind, x.Images, x.Attempts)
		}
	}
	if !v.Satisfied || len(v.Failures) != 0 {
		t.Errorf("verdict %+v", v)
	}
	if math.Abs(v.Z-1.6449) > 1e-4 {
		t.Errorf("z = %v", v.Z)
	}
}

func TestCheckFragileViolated(t *testing.T) {
	d := newMemSet(6, 24)
	opt := testOptions(d, nil)
	opt.Classifier = fragile(t, d, opt.Preprocess.(model.Preprocess))
	v, err := Check(context.Background(), testReq, opt)
	if err != nil {
		t.Fatal(err)
	}
	c := v.Correctness
	if c.Baseline != 1 || c.Transformed != 0 || c.Delta != 1 || c.Satisfied {
		t.Errorf("correctness %+v: want m0 = 1, m_tc = 0, violated", c)
	}
	// Its predictions change even for Δv ≤ ε, so s0 = s_tp = 0: prediction
	// preservation is relative to the model's own baseline and holds.
	p := v.Preservation
	if p.Baseline != 0 || p.Transformed != 0 || !p.Satisfied || v.Satisfied {
		t.Errorf("preservation %+v, verdict %v: want s0 = s_tp = 0, overall violated", p, v.Satisfied)
	}
	// Every draw's Δv is within its threshold and ε is among them.
	if !(v.Epsilon >= 0 && v.Epsilon <= testReq.TP) {
		t.Errorf("ε = %v", v.Epsilon)
	}
}

func TestCheckDeterministic(t *testing.T) {
	d := newMemSet(5, 24)
	run := func(workers, modelBatch int) *Verdict {
		opt := testOptions(d, nil)
		opt.Classifier = fragile(t, d, opt.Preprocess.(model.Preprocess))
		opt.Workers, opt.ModelBatch = workers, modelBatch
		opt.Mapping = argMapper{}
		v, err := Check(context.Background(), testReq, opt)
		if err != nil {
			t.Fatal(err)
		}
		if v.Timing.Wall <= 0 || v.Timing.VIF <= 0 {
			t.Errorf("timing %+v", v.Timing)
		}
		v.Timing = Timing{}
		return v
	}
	a, b := run(1, 1), run(3, 64)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("results depend on workers/model batch:\n%+v\n%+v", a, b)
	}
}

// argMapper is the arg-max, used to exercise the Mapping path.
type argMapper struct{}

func (argMapper) Map(s []float32) (int, float32) {
	if s[0] >= s[1] {
		return 0, s[0]
	}
	return 1, s[1]
}

func TestCheckRepro(t *testing.T) {
	d := newMemSet(6, 24)
	opt := testOptions(d, &fakeModel{})
	opt.ReproTolerance = 0.01
	var calls []int
	opt.Progress = func(done, total int) { calls = append(calls, done*100+total) }
	v, err := Check(context.Background(), testReq, opt)
	if err != nil {
		t.Fatal(err)
	}
	if v.Repro == nil || v.Repro.Seed != 2 || v.Repro.Exceeded || strings.Contains(strings.Join(v.Warnings, "\n"), "seed") {
		t.Errorf("repro %+v, warnings %q", v.Repro, v.Warnings)
	}
	if len(calls) != 8 || calls[7] != 808 {
		t.Errorf("progress %v", calls)
	}
}

func TestCheckErrors(t *testing.T) {
	d := newMemSet(4, 24)
	ctx := context.Background()
	cases := []struct {
		name string
		req  Requirement
		mod  func(*CheckOptions)
		want string
	}{
		{"unknown transformation", Requirement{Transformation: "sepia", VIFMethod: "vcr-py", TC: 0.1, TP: 0.1}, nil, "sepia"},
		{"vif mismatch", testReq, func(o *CheckOptions) { o.VIFMethod = "vifvec" }, "not comparable"},
		{"model fails", testReq, func(o *CheckOptions) { o.Classifier = &fakeModel{fail: true} }, "out of memory"},
		{"unreachable", Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 0, TP: 0.4},
			func(o *CheckOptions) { o.MaxAttempts = 3 }, "unreachable"},
		{"threshold", Requirement{Transformation: "gaussian_noise", VIFMethod: "vcr-py", TC: 1.5, TP: 0.4}, nil, "t_c"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opt := testOptions(d, &fakeModel{})
			if tc.mod != nil {
				tc.mod(&opt)
			}
			_, err := Check(ctx, tc.req, opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.name == "model fails" && !strings.Contains(err.Error(), ".png") {
				t.Errorf("error %v does not name the images", err)
			}
			if tc.name == "unreachable" && !errors.Is(err, ErrUnreachable) {
				t.Errorf("error %v is not ErrUnreachable", err)
			}
		})
	}
	// The override accepts another VIF method.
	opt := testOptions(d, &fakeModel{})
	opt.VIFMethod, opt.OverrideVIF = "vifvec", true
	if v, err := Check(ctx, testReq, opt); err != nil || v.VIFMethod != "vifvec" {
		t.Errorf("override: %v", err)
	}
}

func TestStatistics(t *testing.T) {
	// numpy.quantile([3, 1, 4, 1, 5], q) for q = 0.1, 0.5, 0.9, 1.
	x := []float64{3, 1, 4, 1, 5}
	for _, c := range []struct{ q, want float64 }{{0.1, 1}, {0.5, 3}, {0.9, 4.6}, {1, 5}, {0.3, 1.4}} {
		if g := quantile(x, c.q); math.Abs(g-c.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, g, c.want)
		}
	}
	m, s := meanSD([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if m != 5 || math.Abs(s-math.Sqrt(32.0/7)) > 1e-12 {
		t.Errorf("meanSD = %v, %v", m, s)
	}
	for _, c := range []struct{ a, z float64 }{{0.05, 1.6448536269514722}, {0.025, 1.959963984540054}, {0.01, 2.3263478740408408}} {
		if g := ZAlpha(c.a); math.Abs(g-c.z) > 1e-9 {
			t.Errorf("ZAlpha(%v) = %v, want %v", c.a, g, c.z)
		}
	}
	var d Distance
	fill(&d, []float64{0.9, 0.8, 1}, []float64{0.7, 0.8, 0.9}, 1.645)
	if math.Abs(d.Delta-0.1) > 1e-12 || math.Abs(d.Sigma-math.Sqrt(0.02)) > 1e-12 || d.Satisfied {
		t.Errorf("fill: %+v", d)
	}
}

// nearModel predicts class 0 when the image is within mean squared
// distance tau of one of the originals, else class 1: it tolerates small
// changes only.
type nearModel struct {
	origs [][]float32
	tau   float64
}

func (f *nearModel) Info() model.Info { return model.Info{Name: "near", Classes: 2} }
func (f *nearModel) Close() error     { return nil }
func (f *nearModel) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	out := make([][]float32, len(batch))
	for i, t := range batch {
		out[i] = []float32{0, 1}
		for _, o := range f.origs {
			var d float64
			for j, v := range o {
				d += float64(v-t.Data[j]) * float64(v-t.Data[j])
			}
			if d/float64(len(o)) <= f.tau {
				out[i] = []float32{1, 0}
			}
		}
	}
	return out, nil
}

func TestCheckPreservationViolated(t *testing.T) {
	d := newMemSet(6, 24)
	opt := testOptions(d, nil)
	nm := &nearModel{tau: 0.002}
	for _, m := range d.imgs {
		tn, _ := opt.Preprocess.Apply(m)
		nm.origs = append(nm.origs, tn.Data)
	}
	opt.Classifier = nm
	opt.Batches, opt.BatchSize = 6, 8
	v, err := Check(context.Background(), testReq, opt)
	if err != nil {
		t.Fatal(err)
	}
	p := v.Preservation
	if !(p.Baseline > p.Transformed) || p.Satisfied || v.Satisfied {
		t.Errorf("preservation %+v (ε %v): want s0 > s_tp, violated", p, v.Epsilon)
	}
	if v.Correctness.Baseline != 1 {
		t.Errorf("m0 = %v", v.Correctness.Baseline)
	}
}

func TestCheckReproWarns(t *testing.T) {
	d := newMemSet(6, 24)
	opt := testOptions(d, nil)
	nm := &nearModel{tau: 0.002}
	for _, m := range d.imgs {
		tn, _ := opt.Preprocess.Apply(m)
		nm.origs = append(nm.origs, tn.Data)
	}
	opt.Classifier = nm
	opt.ReproTolerance = 1e-9
	v, err := Check(context.Background(), testReq, opt)
	if err != nil {
		t.Fatal(err)
	}
	if v.Repro == nil || !v.Repro.Exceeded || !strings.Contains(strings.Join(v.Warnings, "\n"), "seeds 1 and 2") {
		t.Errorf("repro %+v, warnings %q", v.Repro, v.Warnings)
	}
}
