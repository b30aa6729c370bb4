package demo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
)

func TestImageDeterministic(t *testing.T) {
	for c := range Classes {
		a, b := Image(c, 64, 7), Image(c, 64, 7)
		if imageio.MaxAbsDiff(a, b) != 0 {
			t.Errorf("class %d: two draws with one seed differ", c)
		}
		if imageio.MaxAbsDiff(a, Image(c, 64, 8)) == 0 {
			t.Errorf("class %d: seeds 7 and 8 draw the same image", c)
		}
	}
}

// TestImageStatistics checks that the images are varied and have the
// falling power spectrum of natural images: more gradient energy at a
// coarse scale than at a fine one, but texture at both.
func TestImageStatistics(t *testing.T) {
	var means []float64
	for i := range 8 {
		m := Image(ItemClass(i), 96, ItemSeed(3, i))
		g := make([]float64, 96*96)
		m.LumaFloat(g)
		mean := 0.0
		for _, v := range g {
			mean += float64(v)
		}
		means = append(means, mean/float64(len(g)))
		fine, coarse := 0.0, 0.0
		for y := 0; y < 96; y++ {
			for x := 0; x+4 < 96; x++ {
				d1 := float64(g[y*96+x+1]) - float64(g[y*96+x])
				d4 := float64(g[y*96+x+4]) - float64(g[y*96+x])
				fine += d1 * d1
				coarse += d4 * d4
			}
		}
		if fine == 0 || coarse <= fine {
			t.Errorf("image %d: squared differences at lag 1 %.3g, lag 4 %.3g; want 0 < lag 1 < lag 4", i, fine, coarse)
		}
	}
	lo, hi := means[0], means[0]
	for _, v := range means {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi-lo < 0.05 {
		t.Errorf("mean luma of 8 images spans only %.3f", hi-lo)
	}
}

func TestDatasetFolder(t *testing.T) {
	dir := t.TempDir()
	if err := Dataset(context.Background(), dir, 10, 32, 4); err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Open(dataset.Spec{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 10 || len(d.Classes()) != len(Classes) {
		t.Fatalf("%d images, %d classes; want 10, %d", d.Len(), len(d.Classes()), len(Classes))
	}
	for i := range d.Len() {
		it := d.Item(i)
		m, err := d.Load(i)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if _, err := fmt.Sscanf(filepath.Base(it.Source), "img_%06d.png", &n); err != nil {
			t.Fatal(err)
		}
		if it.LabelName != Classes[ItemClass(n)] || imageio.MaxAbsDiff(m, Image(ItemClass(n), 32, ItemSeed(4, n))) > 1e-6 {
			t.Errorf("%s: label %q or pixels differ from Image", it.Source, it.LabelName)
		}
	}
	// The same arguments write the same bytes.
	dir2 := t.TempDir()
	if err := Dataset(context.Background(), dir2, 10, 32, 4); err != nil {
		t.Fatal(err)
	}
	for i := range d.Len() {
		s := d.Item(i).Source
		if fileHash(t, filepath.Join(dir, s)) != fileHash(t, filepath.Join(dir2, s)) {
			t.Errorf("%s differs between two runs", s)
		}
	}
}

func fileHash(t *testing.T, p string) [32]byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestFeaturesOrientation checks the orientation histogram on images whose
// gradient direction is known.
func TestFeaturesOrientation(t *testing.T) {
	const s = 64
	grey := make([]float64, featSide*featSide)
	f := make([]float64, NumFeatures)
	for _, tc := range []struct {
		name string
		v    func(x, y int) float32
		bins []int // bins that must hold all the mass
	}{
		{"horizontal ramp", func(x, y int) float32 { return float32(x) / s }, []int{0, featBins - 1}},
		{"vertical ramp", func(x, y int) float32 { return float32(y) / s }, []int{featBins/2 - 1, featBins / 2}},
	} {
		rgb := make([]float32, 3*s*s)
		for c := range 3 {
			for y := range s {
				for x := range s {
					rgb[c*s*s+y*s+x] = tc.v(x, y)
				}
			}
		}
		Features(f, rgb, s, s, grey)
		in, total := 0.0, 0.0
		for i := range featBins {
			total += f[i]
		}
		for _, b := range tc.bins {
			in += f[b]
		}
		if math.Abs(total-1) > 1e-9 || math.Abs(in-1) > 1e-9 {
			t.Errorf("%s: histogram %v sums to %v with %v in bins %v; want all in those bins", tc.name, f[:featBins], total, in, tc.bins)
		}
	}
}

func TestEmbeddedWeights(t *testing.T) {
	w, err := EmbeddedWeights()
	if err != nil {
		t.Fatal(err)
	}
	if w.Train != DefaultTrain {
		t.Errorf("embedded weights were fitted with %+v, DefaultTrain is %+v; run go run ./internal/demo/cmd/train", w.Train, DefaultTrain)
	}
	bad := *w
	bad.Std = append([]float64{0}, w.Std[1:]...)
	if bad.Validate() == nil {
		t.Error("a zero standard deviation passed Validate")
	}
	if _, err := ParseWeights([]byte(`{"classes":["disc"]}`)); err == nil {
		t.Error("a truncated weights file parsed")
	}
}

// TestWeightsReproducible refits the weights as go run ./internal/demo/cmd/train
// does and compares them with the embedded file.
func TestWeightsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("refits the model (seconds)")
	}
	w, err := EmbeddedWeights()
	if err != nil {
		t.Fatal(err)
	}
	got := Train(DefaultTrain)
	// Platforms that fuse multiply-adds (arm64) may differ in the last bits.
	const tol = 1e-6
	cmp := func(name string, a, b []float64) {
		for i := range a {
			if math.Abs(a[i]-b[i]) > tol*math.Max(1, math.Abs(b[i])) {
				t.Fatalf("%s[%d]: refitted %v, embedded %v; regenerate with go run ./internal/demo/cmd/train", name, i, a[i], b[i])
			}
		}
	}
	cmp("mean", got.Mean, w.Mean)
	cmp("std", got.Std, w.Std)
	cmp("b", got.B, w.B)
	for c := range got.W {
		cmp("w", got.W[c], w.W[c])
	}
}

// TestAccuracy checks the demonstration model on held-out images: accurate
// when clean, worse under strong noise and blur.
func TestAccuracy(t *testing.T) {
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	held := TrainConfig{N: 400, Size: 96, Seed: 77}
	acc := Accuracy(c, held)
	if acc < 0.8 {
		t.Errorf("held-out accuracy %.3f, want ≥ 0.8", acc)
	}
	for _, tc := range []struct {
		name   string
		params string
	}{
		{"gaussian_noise", "sigma=0.6"},
		{"defocus_blur", "radius=8,alias=0.5"},
	} {
		cr, err := corrupt.Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := cr.ParseParams(strings.Split(tc.params, ","), nil)
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for i := range 200 {
			cl := ItemClass(i)
			src := Image(cl, 96, ItemSeed(held.Seed, i))
			dst := imageio.New(96, 96)
			cr.Apply(dst, src, p, corrupt.NewRand(1, uint64(i)))
			if c.Predict(dst) == cl {
				right++
			}
		}
		a := float64(right) / 200
		t.Logf("held-out accuracy: clean %.3f, %s %s %.3f", acc, tc.name, tc.params, a)
		if a > acc-0.2 {
			t.Errorf("%s %s: accuracy %.3f, clean %.3f; want a drop of at least 0.2", tc.name, tc.params, a, acc)
		}
	}
}

// TestClassify checks the model.Classifier path against Predict and its
// determinism.
func TestClassify(t *testing.T) {
	c, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	var batch []model.Tensor
	var want []int
	for i := range 8 {
		m := Image(ItemClass(i), 64, ItemSeed(9, i))
		tn, err := Preprocess{}.Apply(m)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, tn)
		want = append(want, c.Predict(m))
	}
	a, err := c.Classify(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Classify(context.Background(), batch)
	for i, s := range a {
		if len(s) != len(Classes) {
			t.Fatalf("%d scores, want %d", len(s), len(Classes))
		}
		best := 0
		for k, v := range s {
			if v > s[best] {
				best = k
			}
			if v != b[i][k] {
				t.Errorf("image %d: two calls differ", i)
			}
		}
		if best != want[i] {
			t.Errorf("image %d: Classify says %d, Predict %d", i, best, want[i])
		}
	}
	if _, err := c.Classify(context.Background(), []model.Tensor{{Data: make([]float32, 5), Shape: []int64{1, 5}}}); err == nil {
		t.Error("a (1, 5) tensor was accepted")
	}
	if info := c.Info(); info.Classes != len(Classes) || info.Layout != model.NCHW {
		t.Errorf("Info %+v", info)
	}
}
