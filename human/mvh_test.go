package human

import (
	"errors"
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
