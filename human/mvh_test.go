package human

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShortImageName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// model-vs-human's get_short_imagename: the last two parts after an n0 synset…
		{"0001_cop_s01_c30_knife_10_n03041632_7380.png", "n03041632_7380.png"},
		// …else the last part.
		{"0003_sketch_dnn_bird_10_ILSVRC2012_val_00000004.png", "00000004.png"},
		{"plain.png", "plain.png"},
	} {
		if got := ShortImageName(tc.in); got != tc.want {
			t.Errorf("ShortImageName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReadMVH(t *testing.T) {
	in := "subj,Session,trial,rt,object_response,category,condition,imagename\n" +
		"subject-01,1,1,1.05363798141479,knife,knife,c30,0001_cop_s01_c30_knife_10_n03041632_7380.png\n" +
		"subject-01,1,3,1.01556706428528,airplane,bird,c01,0003_cop_s01_c01_bird_10_n01601694_10802.png\n"
	got, err := ReadMVH(strings.NewReader(in), "x.csv")
	if err != nil || len(got) != 2 {
		t.Fatalf("ReadMVH: %v, %v", got, err)
	}
	if !got[0].Correct() || got[1].Correct() || got[1].Trial != 3 || got[1].RT != 1.01556706428528 || got[1].Condition != "c01" {
		t.Errorf("rows %+v", got)
	}
	// Some datasets (sketch) spell the column "session".
	if got, err := ReadMVH(strings.NewReader(strings.Replace(in, "Session", "session", 1)), "s.csv"); err != nil || got[0].Session != "1" {
		t.Errorf("lower-case session: %v, %v", got, err)
	}
	for _, bad := range []string{
		"subj,Session,trial,rt,object_response,category,condition\n",                            // no imagename
		"subj,Session,trial,rt,object_response,category,condition,imagename\ns,1,x,1,a,a,c,i\n", // trial
		"subj,Session,trial,rt,object_response,category,condition,imagename\ns,1,1,1,a,a,c\n",   // short row
	} {
		if _, err := ReadMVH(strings.NewReader(bad), "bad.csv"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad.csv") {
			t.Errorf("ReadMVH(%q): %v, want an ErrFormat naming the file", bad, err)
		}
	}
}

// TestOpenMVH reads every embedded model-vs-human dataset (17, 85,120
// trials in 90 files, counted with wc -l on the copied files) and refuses
// unknown names.
func TestOpenMVH(t *testing.T) {
	names := MVHBuiltinNames()
	if len(names) != 17 || names[1] != "mvh-contrast" {
		t.Fatalf("built-in names %v", names)
	}
	total := 0
	for _, n := range names {
		tr, err := OpenMVH("builtin:" + n)
		if err != nil {
			t.Fatal(err)
		}
		total += len(tr)
	}
	if total != 85120 {
		t.Errorf("%d trials, want 85120", total)
	}
	tr, err := OpenMVH("mvh-contrast")
	if err != nil || len(tr) != 4*1280 || tr[0].Subject != "subject-01" || tr[0].Condition != "c30" {
		t.Errorf("mvh-contrast: %d trials, %v", len(tr), err)
	}
	for _, bad := range []string{"builtin:mvh-nothing", "builtin:contrast", "mvh-nothing", filepath.Join(t.TempDir(), "absent")} {
		if _, err := OpenMVH(bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("OpenMVH(%q): %v, want ErrNotFound", bad, err)
		}
	}
	// A folder and a file.
	dir := t.TempDir()
	in := "subj,Session,trial,rt,object_response,category,condition,imagename\nm,1,1,NaN,cat,cat,0,0001_x_n02123045_1.png\n"
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte(in), 0o644)
	if tr, err := OpenMVH(dir); err != nil || len(tr) != 1 {
		t.Errorf("folder: %v, %v", tr, err)
	}
	if tr, err := OpenMVH(filepath.Join(dir, "a.csv")); err != nil || len(tr) != 1 || !tr[0].Correct() {
		t.Errorf("file: %v, %v", tr, err)
	}
}
