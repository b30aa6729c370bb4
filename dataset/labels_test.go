package dataset_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
)

func TestImageNet16(t *testing.T) {
	cats := dataset.ImageNet16Categories()
	// mapping.json: 16 categories, alphabetical, airplane … truck.
	if len(cats) != 16 || !slices.IsSorted(cats) || cats[0] != "airplane" || cats[15] != "truck" {
		t.Fatalf("categories %q", cats)
	}
	// Per-category counts from mapping.json's "counts" (207 indices in total).
	want := map[string]int{"airplane": 1, "bear": 4, "bicycle": 2, "bird": 49, "boat": 5, "bottle": 7, "car": 3,
		"cat": 6, "chair": 4, "clock": 3, "dog": 109, "elephant": 2, "keyboard": 2, "knife": 1, "oven": 1, "truck": 8}
	got := map[string]int{}
	total := 0
	for i := range 1000 {
		if c, ok := dataset.ImageNet16(i); ok {
			got[c]++
			total++
			if !slices.Contains(dataset.ImageNet16Indices(c), i) {
				t.Errorf("index %d → %s but not in ImageNet16Indices(%s)", i, c, c)
			}
		}
	}
	if total != 207 {
		t.Errorf("%d indices have a category, want 207", total)
	}
	for c, n := range want {
		if got[c] != n || len(dataset.ImageNet16Indices(c)) != n {
			t.Errorf("%s: %d indices (list %d), want %d", c, got[c], len(dataset.ImageNet16Indices(c)), n)
		}
	}
	for _, tc := range []struct {
		index int
		cat   string
		ok    bool
	}{
		// From mapping.json: airplane [404], knife [499], oven [766], car [436 511 817].
		{404, "airplane", true}, {499, "knife", true}, {766, "oven", true}, {436, "car", true},
		{817, "car", true}, {656, "truck", true},
		{0, "", false}, {407, "", false}, {-1, "", false}, {1000, "", false},
	} {
		if c, ok := dataset.ImageNet16(tc.index); c != tc.cat || ok != tc.ok {
			t.Errorf("ImageNet16(%d) = %q, %v, want %q, %v", tc.index, c, ok, tc.cat, tc.ok)
		}
	}
	// mapping.json: car WordNet IDs n02814533 n03100240 n04285008; airplane n02690373.
	for wnid, cat := range map[string]string{"n02814533": "car", "n04285008": "car", "n02690373": "airplane"} {
		if c, ok := dataset.ImageNet16OfWNID(wnid); !ok || c != cat {
			t.Errorf("ImageNet16OfWNID(%s) = %q, %v, want %q", wnid, c, ok, cat)
		}
	}
	// Listed by Geirhos et al. but not an ILSVRC-2012 class (wnids_not_in_ilsvrc2012).
	if _, ok := dataset.ImageNet16OfWNID("n03955296"); ok {
		t.Error("n03955296 is not an ILSVRC-2012 class")
	}
	if dataset.ImageNet16Indices("unicorn") != nil {
		t.Error("unknown category has indices")
	}
}

func TestIsCar(t *testing.T) {
	var cars []int
	for i := -5; i < 1005; i++ {
		if dataset.IsCar(i) {
			cars = append(cars, i)
		}
	}
	// requirements-method.md B.4: the ten car classes.
	want := []int{407, 436, 468, 511, 609, 627, 656, 661, 751, 817}
	if !slices.Equal(cars, want) || !slices.Equal(dataset.CarIndices(), want) {
		t.Errorf("cars %v, CarIndices %v, want %v", cars, dataset.CarIndices(), want)
	}
	// The 16-class "car" category is a subset of the car set.
	for _, i := range dataset.ImageNet16Indices("car") {
		if !dataset.IsCar(i) {
			t.Errorf("16-class car index %d is not a car", i)
		}
	}
	if !dataset.IsCarWNID("n02701002") || !dataset.IsCarWNID("n04285008") || dataset.IsCarWNID("n01440764") {
		t.Error("IsCarWNID")
	}
	if !dataset.IsCIFAR10Car(1) || !dataset.IsCIFAR10Car(9) || dataset.IsCIFAR10Car(0) {
		t.Error("IsCIFAR10Car")
	}
}

func TestParseSynsets(t *testing.T) {
	s, err := dataset.ParseSynsets(strings.NewReader("\ufeffn01440764 tench, Tinca tinca\n\nn01443537\tgoldfish, Carassius auratus\r\nsports car\n"), "syn.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !slices.Equal(got, []string{"n01440764", "n01443537", "sports car"}) {
		t.Errorf("Names = %q", got)
	}
	if s.Description(0) != "tench, Tinca tinca" || s.Description(1) != "goldfish, Carassius auratus" || s.Description(2) != "" {
		t.Errorf("descriptions %q %q %q", s.Description(0), s.Description(1), s.Description(2))
	}
	if i, ok := s.Index("n01443537"); !ok || i != 1 {
		t.Errorf("Index = %d, %v", i, ok)
	}
	if _, ok := s.Index("n99999999"); ok {
		t.Error("unknown ID found")
	}
	_, err = dataset.ParseSynsets(strings.NewReader("n01440764 a\nn01443537 b\nn01440764 c\n"), "dup.txt")
	wantErr(t, "duplicate", err, "dup.txt:3", "line 1")
	_, err = dataset.ParseSynsets(strings.NewReader("\n\n"), "blank.txt")
	wantErr(t, "empty", err, "blank.txt", "no classes")
	_, err = dataset.NewLabelSpace([]string{"a", "b", "a"})
	wantErr(t, "NewLabelSpace duplicate", err, `"a"`, "0 and 2")
	_, err = dataset.ReadSynsets("/nonexistent/synsets.txt")
	wantErr(t, "missing synsets", err, "/nonexistent/synsets.txt")

	for s, want := range map[string]bool{"n01440764": true, "n0144076": false, "x01440764": false, "n0144076a": false, "n014407640": false} {
		if dataset.IsWNID(s) != want {
			t.Errorf("IsWNID(%q) = %v", s, !want)
		}
	}
}
