package human

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"path"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/robustness"
)

// icseBinCounts bins trials as the ICSE script did (human-data.md §3):
// bin i = k/100 holds i − 0.01 < Δv ≤ i; kept when it has more than 10 trials.
func icseBinCounts(trials []robustness.Trial, consistency bool) map[int][2]int {
	out := map[int][2]int{}
	for k := 0; k <= 100; k++ {
		i := float64(k) / 100
		n, c := 0, 0
		for _, t := range trials {
			if consistency && t.Unpaired {
				continue
			}
			if i-0.01 < t.DV && t.DV <= i {
				n++
				if (!consistency && t.Correct) || (consistency && t.Consistent) {
					c++
				}
			}
		}
		if n > 10 {
			out[k] = [2]int{n, c}
		}
	}
	return out
}

// TestICSETrialsReproducePublishedBins: the per-trial loader (Δv, correctness,
// pairing with the originals' majority answer) reproduces every count of the
// eight published CIFAR-10 per-bin files.
func TestICSETrialsReproducePublishedBins(t *testing.T) {
	d, err := Builtin("icse2022-cifar10")
	if err != nil {
		t.Fatal(err)
	}
	// human-data.md §2: 10,046 of 10,386 original judgements correct.
	if s := d.Series[0]; s.CleanAccuracy != 10046.0/10386 || s.CleanN != 10386 || d.VIFMethod != VIFVec2Layers {
		t.Errorf("clean accuracy %v (N %d), flavour %q", s.CleanAccuracy, s.CleanN, d.VIFMethod)
	}
	want := map[string]int{"brightness": 2737, "contrast": 2512, "frost": 2674, "jpeg_compression": 2692}
	for _, tr := range icseTransforms["cifar10"] {
		s, err := d.Lookup(tr)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Trials) != want[tr] {
			t.Errorf("%s: %d trials, want %d", tr, len(s.Trials), want[tr])
		}
		for _, kind := range []string{"c_p", "p_p"} {
			b, err := icseFS.ReadFile(path.Join(icseRoot, "cifar10", "cifar10_"+kind+"_"+tr+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			pub, err := ReadICSEBins(bytes.NewReader(b), kind)
			if err != nil {
				t.Fatal(err)
			}
			got := icseBinCounts(s.Trials, kind == "p_p")
			if len(got) != len(pub.X) {
				t.Errorf("%s %s: %d bins, published %d", tr, kind, len(got), len(pub.X))
			}
			for i, x := range pub.X {
				k := int(math.Round((x + 0.005) * 100))
				if g := got[k]; g != [2]int{pub.N[i], pub.K[i]} {
					t.Errorf("%s %s bin %.2f: (n, k) = %v, published (%d, %d)", tr, kind, float64(k)/100, g, pub.N[i], pub.K[i])
				}
			}
		}
	}
}

func TestBuiltins(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		vif  string
	}{
		{"icse2022-cifar10", 4, VIFVec2Layers}, {"icse2022-cifar10-bins", 4, VIFVec2Layers},
		{"icse2022-imagenet", 8, VIFVec}, {"icse2022-imagenet-sixty1", 8, VIFVec}, {"icse2022-imagenet-sixty2", 8, VIFVec},
	} {
		d, err := Builtin(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Series) != tc.n || d.VIFMethod != tc.vif {
			t.Errorf("%s: %d series, flavour %q", tc.name, len(d.Series), d.VIFMethod)
		}
	}
	// human-data.md §4: Σ Count of imagenet_c_p_gaussian_noise = 6,421, Σ Num_Accs 6,017;
	// p_p RGB: 2,964 / 2,851.
	d, _ := Builtin("icse2022-imagenet")
	g, _ := d.Lookup("gaussian_noise")
	r, _ := d.Lookup("rgb_shift")
	if n, k := sum(g.Binned.Accuracy.N), sum(g.Binned.Accuracy.K); n != 6421 || k != 6017 {
		t.Errorf("gaussian_noise c_p sums (%d, %d), want (6421, 6017)", n, k)
	}
	if n, k := sum(r.Binned.Consistency.N), sum(r.Binned.Consistency.K); n != 2964 || k != 2851 {
		t.Errorf("RGB p_p sums (%d, %d), want (2964, 2851)", n, k)
	}
	if _, err := d.Lookup("fog"); err == nil || !strings.Contains(err.Error(), "rgb_shift") {
		t.Errorf("Lookup(fog): %v", err)
	}
	if _, err := Builtin("nope"); err == nil {
		t.Error("unknown builtin accepted")
	}
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

func TestTrialCSVRoundTrip(t *testing.T) {
	recs := []Record{
		{Participant: "p1", ImageID: "img1", Source: "imagenet16", IsOriginal: true, GroundTruth: "dog", Response: "dog", RTms: 512},
		{Participant: "p2", ImageID: "img1", Source: "imagenet16", IsOriginal: true, GroundTruth: "dog", Response: "cat", RTms: math.NaN()},
		{Participant: "p3", ImageID: "img1", Source: "imagenet16", IsOriginal: true, GroundTruth: "dog", Response: "dog"},
		{Participant: "p4", ImageID: "img1", Source: "imagenet16", Corruption: "fog", Params: "t=0.3", DV: 0.4, VIFMethod: "vifvec", GroundTruth: "dog", Response: "cat", Trial: 3},
		{Participant: "p5", ImageID: "img1", Source: "imagenet16", Corruption: "fog", DV: 0.2, VIFMethod: "vifvec", GroundTruth: "dog", Response: "dog"},
		{Participant: "p5", ImageID: "img2", Source: "imagenet16", Corruption: "fog", DV: 1, VIFMethod: "vifvec", GroundTruth: "car", Response: "car"},
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := WriteHeader(w); err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := recs[i].Write(w); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	got, err := ReadRecords(bytes.NewReader(buf.Bytes()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		a, b := recs[i], got[i]
		if math.IsNaN(a.RTms) != math.IsNaN(b.RTms) || (!math.IsNaN(a.RTms) && a.RTms != b.RTms) {
			t.Errorf("row %d rt %v → %v", i, a.RTms, b.RTms)
		}
		a.RTms, b.RTms = 0, 0
		if a != b {
			t.Errorf("row %d: %+v → %+v", i, a, b)
		}
	}
	d, err := ReadTrials(bytes.NewReader(buf.Bytes()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Lookup("fog")
	if err != nil {
		t.Fatal(err)
	}
	// Originals of img1: dog, cat, dog → majority dog. Leave-one-out: p1 vs {cat, dog} → tie, first = cat (disagree);
	// p2 vs {dog, dog} → dog (disagree); p3 vs {dog, cat} → dog (agree): 1/3.
	want := []robustness.Trial{{DV: 0.4}, {DV: 0.2, Correct: true, Consistent: true}, {DV: 1, Correct: true, Unpaired: true}}
	if len(s.Trials) != 3 || s.Trials[0] != want[0] || s.Trials[1] != want[1] || s.Trials[2] != want[2] {
		t.Errorf("trials %+v, want %+v", s.Trials, want)
	}
	if s.CleanAccuracy != 2.0/3 || s.CleanConsistency != 1.0/3 || s.CleanN != 3 || s.VIFMethod != "vifvec" {
		t.Errorf("clean %v / %v (N %d), flavour %q", s.CleanAccuracy, s.CleanConsistency, s.CleanN, s.VIFMethod)
	}
}

// TestTrialCSVExperimentExport checks the reading of vcr experiment's
// export: source_id for image_id, excluded rows and non-main roles skipped.
func TestTrialCSVExperimentExport(t *testing.T) {
	body := "participant,trial,role,source_id,corruption,dv,vif_method,ground_truth,response,is_original,excluded,extra\n" +
		"1,0,practice,a,,0,vcr-py,dog,cat,1,0,x\n" + // practice: skipped
		"1,1,qualification,b,,0,vcr-py,dog,dog,1,0,x\n" + // qualification: skipped
		"1,2,main,c,fog,0.3,vcr-py,dog,dog,0,0,x\n" +
		"1,3,sanity,d,,0,vcr-py,dog,dog,1,0,x\n" + // sanity: skipped
		"1,4,main,e,,0,vcr-py,dog,cat,1,0,x\n" +
		"2,2,main,e,fog,0.5,vcr-py,dog,dog,0,1,x\n" + // excluded participant: skipped
		"2,3,main,c,,0,vcr-py,dog,dog,1,true,x\n" + // excluded: skipped
		"3,2,main,c,,0,vcr-py,dog,dog,1,0,x\n" +
		"3,3,,f,fog,0.9,vcr-py,car,dog,0,,x\n" // empty role and excluded: kept
	recs, err := ReadRecords(strings.NewReader(body), "export.csv")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.Participant+"/"+r.ImageID)
	}
	if want := "1/c 1/e 3/c 3/f"; strings.Join(ids, " ") != want {
		t.Errorf("rows read %v, want %s", ids, want)
	}
	d, err := ReadTrials(strings.NewReader(body), "export.csv")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Lookup("fog")
	if err != nil {
		t.Fatal(err)
	}
	// c at 0.3: correct, original c judged "dog" by participant 3 → consistent;
	// f at 0.9: wrong, no original → unpaired.
	want := []robustness.Trial{{DV: 0.3, Correct: true, Consistent: true}, {DV: 0.9, Unpaired: true}}
	if len(s.Trials) != 2 || s.Trials[0] != want[0] || s.Trials[1] != want[1] {
		t.Errorf("trials %+v, want %+v", s.Trials, want)
	}
	if s.CleanN != 2 || s.CleanAccuracy != 0.5 {
		t.Errorf("clean N %d accuracy %v, want 2 and 0.5", s.CleanN, s.CleanAccuracy)
	}
	// Both image_id and source_id: image_id wins.
	both := "participant,image_id,source_id,corruption,dv,vif_method,ground_truth,response,is_original\n1,img,src,fog,0.5,v,a,a,0\n"
	if r, err := ReadRecords(strings.NewReader(both), "b.csv"); err != nil || r[0].ImageID != "img" {
		t.Errorf("image_id and source_id: %v, %v", r, err)
	}
	if _, err := ReadRecords(strings.NewReader("participant,corruption,dv,vif_method,ground_truth,response,is_original\n"), "n.csv"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "image_id") {
		t.Errorf("neither image_id nor source_id: err = %v", err)
	}
	bad := "participant,source_id,corruption,dv,vif_method,ground_truth,response,is_original,excluded\n1,a,fog,0.5,v,a,a,0,maybe\n"
	if _, err := ReadRecords(strings.NewReader(bad), "x.csv"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "excluded") {
		t.Errorf("excluded maybe: err = %v", err)
	}
}

func TestTrialCSVErrors(t *testing.T) {
	head := strings.Join(Columns, ",") + "\n"
	for _, tc := range []struct{ name, body string }{
		{"missing column", "participant,image_id\np,i\n"},
		{"dv out of range", head + "p,s,1,i,src,fog,,1.5,vifvec,dog,dog,,0,\n"},
		{"bad is_original", head + "p,s,1,i,src,fog,,0.5,vifvec,dog,dog,,yes,\n"},
		{"no vif", head + "p,s,1,i,src,fog,,0.5,,dog,dog,,0,\n"},
		{"mixed vif", head + "p,s,1,i,src,fog,,0.5,vifvec,dog,dog,,0,\np,s,2,j,src,fog,,0.5,vifp,dog,dog,,0,\n"},
	} {
		if _, err := ReadTrials(strings.NewReader(tc.body), "x.csv"); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", tc.name, err)
		}
	}
}

func FuzzReadTrials(f *testing.F) {
	head := strings.Join(Columns, ",") + "\n"
	f.Add(head + "p,s,1,i,src,fog,,0.5,vifvec,dog,dog,300,0,\np,s,2,i,src,,,0,vifvec,dog,dog,,1,\n")
	f.Add("image_link,transformation,ground_truth,human_label,IQA\na/batch_1_2.png,frost,car,car,0.5\n")
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ReadTrials(strings.NewReader(s), "f"); err == nil {
			for _, se := range d.Series {
				for _, tr := range se.Trials {
					if !(tr.DV >= 0 && tr.DV <= 1) {
						t.Fatalf("Δv %v accepted", tr.DV)
					}
				}
			}
		}
		_, _ = ReadICSETrials(strings.NewReader(s), "f", VIFVec)
		_, _ = ReadICSEBins(strings.NewReader(s), "f")
	})
}
