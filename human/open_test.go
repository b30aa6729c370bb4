package human

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestOpenBuiltin(t *testing.T) {
	for _, spec := range []string{"builtin:icse2022-imagenet", "icse2022-imagenet"} {
		d, err := Open(spec, "")
		if err != nil {
			t.Fatalf("Open(%q): %v", spec, err)
		}
		// The published ImageNet data: 8 transformations, vifvec, car / not car.
		if d.Name != "icse2022-imagenet" || len(d.Series) != 8 || d.VIFMethod != VIFVec || d.Task != TaskCar {
			t.Errorf("Open(%q) = %s, %d series, %q, task %q", spec, d.Name, len(d.Series), d.VIFMethod, d.Task)
		}
	}
	for _, spec := range []string{"builtin:icse2099", "icse2099", "no/such/file.csv"} {
		_, err := Open(spec, "")
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "icse2022-imagenet") {
			t.Errorf("Open(%q): err = %v, want ErrNotFound listing the built-ins", spec, err)
		}
	}
}

// TestOpenFolder: a folder of the study's per-bin files reads as the
// built-in dataset made from the same files.
func TestOpenFolder(t *testing.T) {
	dir := t.TempDir()
	src := path.Join(icseRoot, "imagenet")
	ents, err := icseFS.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.Contains(e.Name(), "frost") && !strings.Contains(e.Name(), "RGB") {
			continue
		}
		b, _ := icseFS.ReadFile(path.Join(src, e.Name()))
		os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
	}
	got, err := Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Builtin("icse2022-imagenet")
	if len(got.Series) != 2 || got.Task != TaskCar || got.VIFMethod != VIFVec {
		t.Fatalf("folder: %d series, task %q, %q", len(got.Series), got.Task, got.VIFMethod)
	}
	for _, s := range got.Series {
		w, err := want.Lookup(s.Corruption)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Binned.Accuracy.N, w.Binned.Accuracy.N) || !slices.Equal(s.Binned.Consistency.K, w.Binned.Consistency.K) ||
			s.CleanAccuracy != w.CleanAccuracy {
			t.Errorf("%s differs from the built-in series", s.Corruption)
		}
	}
	// A lone preservation file names the missing accuracy file.
	os.WriteFile(filepath.Join(dir, "imagenet_p_p_snow.csv"), []byte("IQA,Preserved,Count,Num_Pre\n"), 0o644)
	if _, err := Open(dir, ""); err == nil || !strings.Contains(err.Error(), "imagenet_c_p_snow.csv") {
		t.Errorf("missing accuracy file: err = %v", err)
	}
}

func TestOpenICSEFileNeedsFlavour(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trials.csv")
	os.WriteFile(p, []byte("image_link,transformation,ground_truth,human_label,IQA\nx/a.png,original,car,car,1\nx/a.png,frost,car,car,0.5\n"), 0o644)
	if _, err := Open(p, ""); !errors.Is(err, ErrNeedVIFMethod) || !strings.Contains(err.Error(), "--human-vif-method") {
		t.Errorf("err = %v", err)
	}
	d, err := Open(p, VIFVec)
	if err != nil || d.VIFMethod != VIFVec || d.Task != TaskCar {
		t.Fatalf("Open with flavour: %v, %+v", err, d)
	}
}

func TestReadTrialsTask(t *testing.T) {
	head := "participant,image_id,corruption,dv,vif_method,ground_truth,response,is_original,task\n"
	d, err := ReadTrials(strings.NewReader(head+"p,a,,0,,car,car,1,imagenet16\np,a,frost,0.3,vifvec,car,car,0,imagenet16\n"), "t.csv")
	if err != nil || d.Task != "imagenet16" {
		t.Errorf("task %q, err %v", d.Task, err)
	}
	_, err = ReadTrials(strings.NewReader(head+"p,a,,0,,car,car,1,car\np,a,frost,0.3,vifvec,car,car,0,imagenet16\n"), "t.csv")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("mixed tasks: err = %v", err)
	}
}

func TestCanonicalCorruption(t *testing.T) {
	for in, want := range map[string]string{"RGB": "rgb_shift", "Color_jitter": "color_jitter", "frost": "frost", "Gaussian-Noise": "gaussian_noise"} {
		if got := CanonicalCorruption(in); got != want {
			t.Errorf("CanonicalCorruption(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadTrialsAllExcluded checks that an export whose corrupted trials
// are all excluded (every participant screened out) says so with the counts,
// while a file that never had corrupted trials keeps the plain message.
func TestReadTrialsAllExcluded(t *testing.T) {
	head := "participant,role,source_id,corruption,dv,vif_method,ground_truth,response,is_original,excluded,exclusion_reason\n"
	rows := "1,qualification,a,frost,0.2,vcr-py,car,cat,0,1,screened_out\n" +
		"1,main,b,frost,0.4,vcr-py,car,car,0,1,screened_out\n" +
		"1,main,c,,0,vcr-py,car,car,1,1,screened_out\n" +
		"2,practice,a,,0,vcr-py,car,car,1,0,\n"
	_, err := ReadTrials(strings.NewReader(head+rows), "trials.csv")
	want := "trials.csv has no included judgements of corrupted images: 3 rows are excluded (its excluded and exclusion_reason columns say why"
	if !errors.Is(err, ErrFormat) || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "and 1 are practice, qualification or sanity trials") {
		t.Errorf("all excluded: err = %v, want %q…", err, want)
	}
	_, err = ReadTrials(strings.NewReader(head+"1,main,c,,0,vcr-py,car,car,1,0,\n"), "clean.csv")
	if err == nil || !strings.Contains(err.Error(), "clean.csv has no judgements of corrupted images") {
		t.Errorf("only originals: err = %v", err)
	}
}
