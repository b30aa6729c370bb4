package human

import (
	"errors"
	"strings"
	"testing"
)

// TestMalformedRows: rows with missing or extra fields, or a NUL byte, are
// refused with the file and line by every CSV reader of the package
// (issue 15, finding 12: ReadRecords took them silently).
func TestMalformedRows(t *testing.T) {
	head := strings.Join(Columns, ",") + "\n"
	good := "p,s,1,i,src,fog,,0.5,vifvec,dog,dog,300,0,,car\n"
	icse := "image_link,transformation,ground_truth,human_label,IQA\n"
	bins := "IQA,Accuracy,Count,Num_Accs\n"
	for _, tc := range []struct {
		name, body, line string
		read             func(string) error
	}{
		{"trials missing field", head + good + "p,s,2,i,src,fog,,0.5,vifvec,dog,dog,300,0\n", "line 3", readTrials},
		{"trials extra field", head + good + "p,s,2,i,src,fog,,0.5,vifvec,dog,dog,300,0,,car,extra\n", "line 3", readTrials},
		{"trials NUL", head + good + "p\x00,s,2,i,src,fog,,0.5,vifvec,dog,dog,300,0,,car\n", "line 3", readTrials},
		{"trials multi-line field then short", head + "p,s,1,i,src,fog,\"a\nb\",0.5,vifvec,dog,dog,300,0,,car\np,s\n", "line 4", readTrials},
		{"icse missing field", icse + "a/batch_1_2.png,frost,car,car,0.5\na/batch_1_3.png,frost,car,car\n", "line 3", readICSE},
		{"icse NUL", icse + "a/batch_1_2.png,frost,car,car\x00,0.5\n", "line 2", readICSE},
		{"bins extra field", bins + "0.01,0.5,10,5\n0.02,0.5,10,5,9\n", "line 3", readBins},
		{"bins NUL", bins + "0.01,0.5,10,5\x00\n", "line 2", readBins},
	} {
		err := tc.read(tc.body)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "x.csv "+tc.line) {
			t.Errorf("%s: %v, want ErrFormat naming x.csv %s", tc.name, err, tc.line)
		}
	}
	if _, err := ReadRecords(strings.NewReader(head+good), "x.csv"); err != nil {
		t.Errorf("a well-formed file: %v", err)
	}
}

func readTrials(s string) error { _, err := ReadRecords(strings.NewReader(s), "x.csv"); return err }
func readICSE(s string) error {
	_, err := ReadICSETrials(strings.NewReader(s), "x.csv", VIFVec)
	return err
}
func readBins(s string) error { _, err := ReadICSEBins(strings.NewReader(s), "x.csv"); return err }
