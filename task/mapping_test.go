package task

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
)

func logits(n int, set map[int]float32) []float32 {
	s := make([]float32, n)
	for i, v := range set {
		s[i] = v
	}
	return s
}

func setAll(set map[int]float32, idx []int, v float32) map[int]float32 {
	for _, i := range idx {
		set[i] = v
	}
	return set
}

func classOf(t *testing.T, m Mapping, name string) int {
	t.Helper()
	c := slices.Index(m.Classes(), name)
	if c < 0 {
		t.Fatalf("mapping %s has no class %q", m.Name(), name)
	}
	return c
}

// TestImageNet16Facts checks the mapping against mapping.json's facts
// (shared/data/imagenet16/README.md): 16 alphabetical categories, 207
// member indices, airplane = {404}, knife = {499}, car = {436, 511, 817}.
func TestImageNet16Facts(t *testing.T) {
	m := ImageNet16Mapping(false)
	want := []string{"airplane", "bear", "bicycle", "bird", "boat", "bottle", "car", "cat", "chair", "clock", "dog", "elephant", "keyboard", "knife", "oven", "truck"}
	if !slices.Equal(m.Classes(), want) {
		t.Fatalf("classes %v", m.Classes())
	}
	n := 0
	for i := range 1000 {
		if _, ok := MapIndex(m, i); ok {
			n++
		}
	}
	if n != 207 {
		t.Errorf("%d indices map to a category, want 207", n)
	}
	for _, tc := range []struct {
		index int
		cat   string
	}{{404, "airplane"}, {499, "knife"}, {436, "car"}, {511, "car"}, {817, "car"}, {281, "cat"}, {766, "oven"}} {
		if c, ok := MapIndex(m, tc.index); !ok || m.Classes()[c] != tc.cat {
			t.Errorf("MapIndex(%d) = %d, %v; want %s", tc.index, c, ok, tc.cat)
		}
	}
	// Ambulance (407) is a car in the car / not-car task but in none of the 16 categories.
	if _, ok := MapIndex(m, 407); ok {
		t.Error("407 ambulance maps to a 16-class category")
	}
}

func TestImageNet16Map(t *testing.T) {
	m := ImageNet16Mapping(false)
	cat := dataset.ImageNet16Indices("cat") // 281…286
	// The 1000-way arg-max is goldfish (1, in no category), but the cat
	// category's mean probability beats every other category's.
	s := logits(1000, setAll(map[int]float32{1: 3}, cat, 2.9))
	c, conf := m.Map(s)
	if argmax(s) != 1 || m.Classes()[c] != "cat" {
		t.Fatalf("Map = %s (1000-way arg-max %d), want cat", m.Classes()[c], argmax(s))
	}
	// Hand computation: p_i = e^{s_i}/Z, Z = e^3 + 6·e^2.9 + 993·e^0; the cat mean is e^2.9/Z.
	z := math.Exp(3) + 6*math.Exp(2.9) + 993
	if want := math.Exp(2.9) / z; math.Abs(float64(conf)-want) > 1e-6 {
		t.Errorf("confidence %v, want %v", conf, want)
	}

	// Mean, not sum: 109 dog classes at logit 1 and knife (499) at 2. The
	// summed dog probability 109e/Z beats knife's e²/Z, but the means are
	// e/Z for dog and e²/Z for knife.
	s = logits(1000, setAll(map[int]float32{499: 2}, dataset.ImageNet16Indices("dog"), 1))
	if c, _ := m.Map(s); m.Classes()[c] != "knife" {
		t.Errorf("Map = %s, want knife (mean aggregation)", m.Classes()[c])
	}

	// Probabilities versus logits: bicycle = {444: 0.9, 671: 0}, airplane
	// = {404: 0.46}. As probabilities, bicycle's mean 0.45 < 0.46; read as
	// logits, mean(e^0.9, e^0) = 1.7298 > e^0.46 = 1.5841.
	s = logits(1000, map[int]float32{444: 0.9, 404: 0.46})
	if c, conf := ImageNet16Mapping(true).Map(s); m.Classes()[c] != "airplane" || conf != 0.46 {
		t.Errorf("probabilities: Map = %s, %v; want airplane, 0.46", m.Classes()[c], conf)
	}
	if c, _ := m.Map(s); m.Classes()[c] != "bicycle" {
		t.Errorf("logits: Map = %s, want bicycle", m.Classes()[c])
	}
	if a := testing.AllocsPerRun(10, func() { m.Map(s) }); a != 0 {
		t.Errorf("Map allocates %v times", a)
	}
}

// slowGeirhos is the 16-class decision straight from the definition:
// materialise the softmax, average each category's members, take the arg-max.
func slowGeirhos(s []float32) (int, float64) {
	mx := math.Inf(-1)
	for _, v := range s {
		mx = math.Max(mx, float64(v))
	}
	p := make([]float64, len(s))
	var z float64
	for i, v := range s {
		p[i] = math.Exp(float64(v) - mx)
		z += p[i]
	}
	best, bc := -1.0, -1
	for c, name := range dataset.ImageNet16Categories() {
		var sum float64
		idx := dataset.ImageNet16Indices(name)
		for _, i := range idx {
			sum += p[i] / z
		}
		if mean := sum / float64(len(idx)); mean > best {
			best, bc = mean, c
		}
	}
	return bc, best
}

func TestImageNet16MatchesSlow(t *testing.T) {
	m := ImageNet16Mapping(false)
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float32, 1000)
	for range 200 {
		for i := range s {
			s[i] = float32(rng.NormFloat64() * 4)
		}
		c, conf := m.Map(s)
		wc, wconf := slowGeirhos(s)
		if c != wc || math.Abs(float64(conf)-wconf) > 1e-6*wconf {
			t.Fatalf("Map = %d, %v; slow gives %d, %v", c, conf, wc, wconf)
		}
	}
}

func TestCarMapping(t *testing.T) {
	m := CarMapping(dataset.KindImageNetVal, false)
	if !slices.Equal(m.Classes(), []string{"car", "not car"}) {
		t.Fatalf("classes %v", m.Classes())
	}
	for _, tc := range []struct {
		name string
		s    []float32
		want int
	}{
		{"sports car top-1", logits(1000, map[int]float32{817: 5}), Car},
		{"ambulance top-1", logits(1000, map[int]float32{407: 5}), Car},
		{"goldfish top-1", logits(1000, map[int]float32{1: 5}), NotCar},
		// The study decides by the top-1 class only: ten car classes at 2
		// (car-set probability 10e²/Z) lose to one non-car class at 2.5.
		{"top-1 decides, not the car-set mass", logits(1000, setAll(map[int]float32{5: 2.5}, dataset.CarIndices(), 2)), NotCar},
	} {
		c, conf := m.Map(tc.s)
		if c != tc.want {
			t.Errorf("%s: Map = %d, want %d", tc.name, c, tc.want)
		}
		if want := topProb(tc.s, argmax(tc.s), false); conf != want {
			t.Errorf("%s: confidence %v, want top-1 probability %v", tc.name, conf, want)
		}
	}
	cf := CarMapping(dataset.KindCIFAR10, true)
	if c, conf := cf.Map([]float32{0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0.9}); c != Car || conf != 0.9 {
		t.Errorf("CIFAR-10 truck: %d, %v", c, conf)
	}
	if c, _ := cf.Map([]float32{0, 0, 0, 0.6, 0, 0, 0, 0, 0, 0.4}); c != NotCar {
		t.Errorf("CIFAR-10 cat: %d", c)
	}
}

func TestTruth(t *testing.T) {
	in16 := ImageNet16Mapping(false)
	imCar := CarMapping(dataset.KindImageNetVal, false)
	cfCar := CarMapping(dataset.KindCIFAR10, false)
	named, _ := NewIdentity(3, []string{"a", "b", "c"}, false)
	unnamed, _ := NewIdentity(3, nil, false)
	user, err := ParseMapping([]byte("model_index,class_name\n5,dog\n7,cat\n6,dog\n"), "animals.csv", "csv", false)
	if err != nil {
		t.Fatal(err)
	}
	const outside, bad = -2, -3
	for _, tc := range []struct {
		m     Mapping
		index int
		name  string
		want  int // class, outside or bad
	}{
		{in16, 404, "", 0},               // airplane by index
		{in16, 1, "", outside},           // goldfish: no category
		{in16, -1, "n02690373", 0},       // airplane by WordNet ID
		{in16, 7, "n03041632", 13},       // knife by WordNet ID (the name wins over the index)
		{in16, 0, "n01440764", outside},  // tench
		{in16, 3, "knife", 13},           // a 16-class folder
		{in16, 0, "tench", outside},      // neither: outside the 16 categories
		{in16, 1000, "", bad},            // no such index
		{imCar, 817, "", Car},            // sports car
		{imCar, 1, "", NotCar},           // goldfish
		{imCar, -1, "n02701002", Car},    // ambulance
		{imCar, -1, "n01440764", NotCar}, // tench
		{imCar, -1, "not car", NotCar},   // human-study answer
		{imCar, -1, "automobile", Car},   // CIFAR-10 car class, whatever the model
		{cfCar, 1, "automobile", Car},    // CIFAR-10
		{cfCar, 3, "cat", NotCar},        //
		{cfCar, 9, "", Car},              // truck by index
		{cfCar, -1, "tench", NotCar},     // any other class folder is not a car
		{cfCar, -1, "", outside},         // no label
		{cfCar, 10, "", bad},             // no CIFAR-10 index
		{imCar, -1, "Car", Car},          // a class folder "Car"
		{named, 0, "c", 2},               // by name
		{named, 0, "d", bad},             // unknown name
		{named, 1, "", 1},                // by index when no name
		{unnamed, 2, "x", 2},             // unnamed outputs: index
		{unnamed, 3, "", bad},            // out of range
		{user, -1, "cat", 1},             // a task class by name
		{user, 6, "n02085620", 0},        // else model output 6 → dog
		{user, 0, "", outside},           // output 0 is in no class
		{user, -1, "horse", bad},         // neither
	} {
		c, err := Truth(tc.m, tc.index, tc.name)
		switch {
		case tc.want == outside:
			if !errors.Is(err, ErrOutsideTask) {
				t.Errorf("%s (%d, %q): %d, %v; want ErrOutsideTask", tc.m.Name(), tc.index, tc.name, c, err)
			}
		case tc.want == bad:
			if err == nil || errors.Is(err, ErrOutsideTask) {
				t.Errorf("%s (%d, %q): %d, %v; want an error", tc.m.Name(), tc.index, tc.name, c, err)
			}
		case err != nil || c != tc.want:
			t.Errorf("%s (%d, %q): %d, %v; want %d", tc.m.Name(), tc.index, tc.name, c, err, tc.want)
		}
	}
}

func TestParseMappingCSV(t *testing.T) {
	m, err := ParseMapping([]byte("\ufeffmodel_index,class_name\n# comment\n5,dog\n7, cat\n6,dog\n"), "dir/animals.csv", "csv", false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "mapping:animals.csv" || !slices.Equal(m.Classes(), []string{"dog", "cat"}) {
		t.Fatalf("%s %v", m.Name(), m.Classes())
	}
	// Outputs 5, 6 (dog) at logit 2 and 0; 7 (cat) at 1.5; 8 (none) at 9.
	// Means: dog (e²+1)/2Z = 4.19/Z, cat e^1.5/Z = 4.48/Z → cat. The softmax
	// runs over all nine outputs, though only 0…7 are mapped.
	s := []float32{0, 0, 0, 0, 0, 2, 0, 1.5, 9}
	c, conf := m.Map(s)
	z := 5 + math.Exp(2) + 1 + math.Exp(1.5) + math.Exp(9)
	if c != 1 || math.Abs(float64(conf)-math.Exp(1.5)/z) > 1e-7 {
		t.Errorf("Map = %d, %v; want 1, %v", c, conf, math.Exp(1.5)/z)
	}
	if err := CheckOutputs(m, 7); err == nil || !strings.Contains(err.Error(), "output 7") {
		t.Errorf("CheckOutputs(7): %v", err)
	}
	if err := CheckOutputs(m, 8); err != nil {
		t.Errorf("CheckOutputs(8): %v", err)
	}
	for _, tc := range []struct{ text, want string }{
		{"1,a\n1,b\n", "m.csv: line 2: model output 1 is already mapped (line 1)"},
		{"1,a\n-1,b\n", "line 2: model output index -1 is negative"},
		{"1,a\nx,b\n", "line 2, column 1"},
		{"1,a,b\n", "line 1: want 2 columns"},
		{"1,\n", "line 1: empty class name"},
		{"model_index,class_name\n", "maps no model outputs"},
	} {
		_, err := ParseMapping([]byte(tc.text), "m.csv", "csv", false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestParseMappingJSON(t *testing.T) {
	m, err := ParseMapping([]byte(`{"classes": ["dog", "cat"], "outputs": {"cat": [7], "dog": [6, 5]}}`), "a.json", "json", true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Classes(), []string{"dog", "cat"}) {
		t.Fatalf("classes %v", m.Classes())
	}
	if c, conf := m.Map([]float32{0, 0, 0, 0, 0, 0.3, 0.3, 0.35}); c != 1 || conf != 0.35 {
		t.Errorf("Map = %d, %v", c, conf)
	}
	// Geirhos et al.'s own file format gives the built-in mapping.
	data, err := os.ReadFile("../dataset/imagenet16.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseMapping(data, "imagenet16.json", "json", false)
	if err != nil {
		t.Fatal(err)
	}
	ref := ImageNet16Mapping(false)
	if !slices.Equal(g.Classes(), ref.Classes()) {
		t.Fatalf("classes %v", g.Classes())
	}
	rng := rand.New(rand.NewPCG(3, 4))
	s := make([]float32, 1000)
	for range 50 {
		for i := range s {
			s[i] = float32(rng.NormFloat64() * 3)
		}
		c1, p1 := g.Map(s)
		c2, p2 := ref.Map(s)
		if c1 != c2 || p1 != p2 {
			t.Fatalf("file mapping %d %v, built-in %d %v", c1, p1, c2, p2)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{`{"outputs": {"a": [1], "b": [1]}}`, "already mapped"},
		{`{"classes": ["a", "b"], "outputs": {"a": [1]}}`, `class "b" has no outputs`},
		{`{"classes": ["a"], "outputs": {"a": [1], "b": [2]}}`, `class "b" has outputs but is not in the class list`},
		{`{"outputs": {"a": [1, -3]}}`, "negative"},
		{`{"classes": ["a"]}`, `no "outputs"`},
		{`{"outputs": {"a": "1"}}`, `field "outputs"`},
	} {
		_, err := ParseMapping([]byte(tc.text), "m.json", "json", false)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "m.json") {
			t.Errorf("%s: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestNewMapping(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		outputs int
		names   []string
		wantErr string
		classes int
	}{
		{"", 10, nil, "", 10},
		{"identity", 0, []string{"x", "y"}, "", 2},
		{"identity", 3, []string{"x", "y"}, "names 2 classes but the model has 3 outputs", 0},
		{"identity", 0, nil, "needs the number of model outputs", 0},
		{"imagenet", 0, nil, "", 1000},
		{"imagenet", 10, nil, "needs a model with 1000 outputs", 0},
		{"imagenet16", 1000, nil, "", 16},
		{"IMAGENET16", 0, nil, "", 16},
		{"imagenet16", 10, nil, `"imagenet16" needs a model with 1000 outputs, but the model has 10`, 0},
		{"imagenet-car", 1000, nil, "", 2},
		{"cifar10-car", 10, nil, "", 2},
		{"cifar10-car", 1000, nil, "needs a model with 10 outputs", 0},
		{"no-such-mapping.csv", 10, nil, "no-such-mapping.csv", 0},
		{"imagnet16", 1000, nil, `"imagnet16" is neither a task (identity, imagenet1k, imagenet16, car, cifar10, cifar100) nor a mapping file`, 0},
		{"imagenet1k", 1000, nil, "", 1000},
		{"car", 1000, nil, "", 2},
		{"car", 10, nil, "", 2},
		{"car", 0, nil, "", 2},
		{"car", 5, nil, "needs an ImageNet-1k model (1000 outputs) or a CIFAR-10 model (10 outputs), but the model has 5", 0},
		{"cifar10", 10, nil, "", 10},
		{"cifar10", 0, nil, "", 10},
		{"cifar10", 100, nil, "cifar10 needs a model with 10 outputs, but the model has 100", 0},
		{"cifar100", 100, nil, "", 100},
	} {
		m, err := New(Spec{Name: tc.spec, Outputs: tc.outputs, OutputNames: tc.names, Probabilities: false})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("New(%q, %d): error %v, want %q", tc.spec, tc.outputs, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(m.Classes()) != tc.classes {
			t.Errorf("New(%q, %d): %v, err %v; want %d classes", tc.spec, tc.outputs, m, err, tc.classes)
		}
	}
	// A mapping file through NewMapping and LoadMappingFile.
	p := writeFile(t, t.TempDir(), "m.json", `{"outputs": {"b": [2], "a": [0, 1]}}`)
	m, err := New(Spec{Name: p, Outputs: 3, OutputNames: nil, Probabilities: false})
	if err != nil || !slices.Equal(m.Classes(), []string{"a", "b"}) || m.Name() != "mapping:m.json" {
		t.Errorf("mapping file: %v, %v", m, err)
	}
	m, err = New(Spec{Name: MappingPrefix + p, Outputs: 3})
	if err != nil || m.Name() != "mapping:m.json" {
		t.Errorf("mapping:FILE: %v, %v", m, err)
	}
}

// TestTaskNames checks the names results record (the task contract).
func TestTaskNames(t *testing.T) {
	for _, tc := range []struct {
		spec    Spec
		name    string
		classes []string
	}{
		{Spec{Outputs: 2}, "identity", []string{"0", "1"}},
		{Spec{Name: "imagenet"}, "imagenet1k", nil},
		{Spec{Name: "imagenet16"}, "imagenet16", dataset.ImageNet16Categories()},
		{Spec{Name: "imagenet-car"}, "car", []string{"car", "not car"}},
		{Spec{Name: "cifar10-car"}, "car", []string{"car", "not car"}},
		{Spec{Name: "car", Outputs: 10}, "car", []string{"car", "not car"}},
		{Spec{Name: "cifar10"}, "cifar10", dataset.CIFAR10Classes},
		{Spec{Name: "cifar100"}, "cifar100", dataset.CIFAR100Classes},
	} {
		m, err := New(tc.spec)
		if err != nil {
			t.Fatalf("%+v: %v", tc.spec, err)
		}
		if m.Name() != tc.name || tc.classes != nil && !slices.Equal(m.Classes(), tc.classes) {
			t.Errorf("%+v: name %q classes %v, want %q %v", tc.spec, m.Name(), m.Classes(), tc.name, tc.classes)
		}
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIdentity(t *testing.T) {
	m, _ := NewIdentity(4, nil, false)
	c, conf := m.Map([]float32{0, 2, 2, float32(math.NaN())})
	// Ties go to the first index; NaN never wins. Softmax over (0, 2, 2, NaN)
	// is NaN for every entry, so compare the class only.
	if c != 1 || !slices.Equal(m.Classes(), []string{"0", "1", "2", "3"}) {
		t.Errorf("Map = %d, %v; classes %v", c, conf, m.Classes())
	}
	c, conf = m.Map([]float32{0, 1, 0, 0})
	if want := math.E / (3 + math.E); c != 1 || math.Abs(float64(conf)-want) > 1e-7 {
		t.Errorf("Map = %d, %v; want 1, %v", c, conf, want)
	}
}

func BenchmarkImageNet16Map(b *testing.B) {
	m := ImageNet16Mapping(false)
	rng := rand.New(rand.NewPCG(1, 1))
	s := make([]float32, 1000)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Map(s)
	}
}

func FuzzParseMapping(f *testing.F) {
	f.Add([]byte("model_index,class_name\n5,dog\n7,cat\n6,dog\n"), false)
	f.Add([]byte(`{"classes": ["dog", "cat"], "outputs": {"cat": [7], "dog": [6, 5]}}`), true)
	f.Fuzz(func(t *testing.T, data []byte, json bool) {
		format := "csv"
		if json {
			format = "json"
		}
		m, err := ParseMapping(data, "fuzz", format, false)
		if err != nil {
			return
		}
		g := m.(*groups)
		s := make([]float32, g.need())
		c, _ := m.Map(s)
		if c < 0 || c >= len(m.Classes()) {
			t.Fatalf("class %d of %d", c, len(m.Classes()))
		}
		for i := range g.need() {
			if c, ok := MapIndex(m, i); ok && (c < 0 || c >= len(m.Classes())) {
				t.Fatalf("MapIndex(%d) = %d", i, c)
			}
		}
	})
}
