package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
)

// imagenetVal writes n tiny validation images ILSVRC2012_val_00000001.JPEG … into a new folder.
func imagenetVal(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for k := 1; k <= n; k++ {
		writeImage(t, root, fmt.Sprintf("ILSVRC2012_val_%08d.JPEG", k), 12, 9, uint64(k))
	}
	return root
}

// devkitSynsets returns 1000 made-up WordNet IDs in a fixed non-sorted
// order, as a devkit-order synsets list is: ID k is n(7919·k mod 1000 + 1000).
func devkitSynsets() []string {
	s := make([]string, 1000)
	for k := range s {
		s[k] = fmt.Sprintf("n%08d", (7919*(k+1))%1000+1000)
	}
	return s
}

func TestImageNetValGroundTruth(t *testing.T) {
	root := imagenetVal(t, 5)
	lab := t.TempDir()
	gt := writeFile(t, lab, "ILSVRC2012_validation_ground_truth.txt", "490\n361\n171\n822\n297\n")
	d, err := dataset.Open(dataset.Spec{Path: root, Labels: gt})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "imagenet-val" || d.Len() != 5 || len(d.Classes()) != 0 {
		t.Fatalf("%s, %d items, classes %d", d.Name(), d.Len(), len(d.Classes()))
	}
	// Without synsets, Label is the devkit ID − 1.
	for i, id := range []int{490, 361, 171, 822, 297} {
		want := dataset.Item{Index: i, Source: fmt.Sprintf("ILSVRC2012_val_%08d.JPEG", i+1), Label: id - 1}
		if it := d.Item(i); it != want {
			t.Errorf("Item(%d) = %+v, want %+v", i, it, want)
		}
	}
	if m, err := d.Load(3); err != nil || m.Width != 12 {
		t.Errorf("Load: %v", err)
	}

	// With devkit-order synsets, Label is the rank of the WordNet ID in sorted order.
	syn := devkitSynsets()
	sp := writeFile(t, lab, "synsets.txt", strings.Join(syn, "\n")+"\n")
	d, err = dataset.Open(dataset.Spec{Kind: "imagenet-val", Path: root, Labels: gt, Synsets: sp})
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Sorted(slices.Values(syn))
	if !slices.Equal(d.Classes(), sorted) {
		t.Error("Classes is not the sorted synsets list")
	}
	for i, id := range []int{490, 361, 171, 822, 297} {
		it := d.Item(i)
		wnid := syn[id-1]
		if it.LabelName != wnid || sorted[it.Label] != wnid {
			t.Errorf("Item(%d) = %+v, want WordNet ID %s at its sorted index", i, it, wnid)
		}
	}
	// ID 490 is n(7919·490 mod 1000 + 1000) = n00001310; the made-up IDs are
	// n00001000…n00001999, so the sorted index is 310.
	if it := d.Item(0); it.LabelName != "n00001310" || it.Label != 310 {
		t.Errorf("Item(0) = %+v, want n00001310, 310", it)
	}

	// A sorted synsets list (LOC_synset_mapping.txt) cannot be in devkit order.
	sortedPath := writeFile(t, lab, "LOC_synset_mapping.txt", "n01440764 tench, Tinca tinca\nn01443537 goldfish, Carassius auratus\n")
	_, err = dataset.Open(dataset.Spec{Path: root, Labels: gt, Synsets: sortedPath})
	wantErr(t, "sorted synsets", err, sortedPath, "meta.mat order")
}

func TestImageNetValGroundTruthErrors(t *testing.T) {
	root := imagenetVal(t, 3)
	lab := t.TempDir()
	for _, tc := range []struct {
		name, content string
		parts         []string
	}{
		{"word", "1\nfoo\n3\n", []string{"word.txt:2", `"foo"`}},
		{"zero", "1\n2\n0\n", []string{"zero.txt:3", `"0"`, "1…1000"}},
		{"big", "1001\n2\n3\n", []string{"big.txt:1"}},
		{"blank", "1\n\n3\n", []string{"blank.txt:2", "blank line"}},
		{"missing", "1\n2\n3\n4\n", []string{"missing.txt:4", "ILSVRC2012_val_00000004"}},
		{"short", "1\n2\n", []string{"3 images", "only 2", "ILSVRC2012_val_00000003.JPEG"}},
		{"empty", "", []string{"empty.txt", "no labels"}},
	} {
		p := writeFile(t, lab, tc.name+".txt", tc.content)
		_, err := dataset.Open(dataset.Spec{Path: root, Labels: p})
		wantErr(t, tc.name, err, tc.parts...)
	}
	_, err := dataset.Open(dataset.Spec{Kind: "imagenet-val", Path: root})
	wantErr(t, "no labels file", err, "labels file")
	_, err = dataset.Open(dataset.Spec{Path: root, Labels: filepath.Join(lab, "nope.txt")})
	wantErr(t, "missing labels file", err, "nope.txt")
	syn := writeFile(t, lab, "few.txt", "n00000002\nn00000001\n")
	_, err = dataset.Open(dataset.Spec{Path: root, Labels: writeFile(t, lab, "gt.txt", "1\n2\n3\n"), Synsets: syn})
	wantErr(t, "ID beyond synsets", err, "gt.txt:3", "only 2 synsets")
}

const locHeader = "ImageId,PredictionString\n"

func TestImageNetValLOC(t *testing.T) {
	root := imagenetVal(t, 4)
	lab := t.TempDir()
	// Rows in arbitrary order, as in Kaggle's file; PredictionString holds boxes too.
	csv := writeFile(t, lab, "LOC_val_solution.csv", locHeader+
		"ILSVRC2012_val_00000003,n01443537 10 20 30 40 n01443537 1 2 3 4 \n"+
		"ILSVRC2012_val_00000001,n01751748 1 2 3 4\n"+
		"ILSVRC2012_val_00000004,n01440764 5 6 7 8\n"+
		"ILSVRC2012_val_00000002,n01751748 5 6 7 8\n")
	d, err := dataset.Open(dataset.Spec{Path: root, Labels: csv})
	if err != nil {
		t.Fatal(err)
	}
	// Without synsets: indices among the sorted distinct WordNet IDs seen.
	if want := []string{"n01440764", "n01443537", "n01751748"}; !slices.Equal(d.Classes(), want) {
		t.Errorf("Classes = %q, want %q", d.Classes(), want)
	}
	for i, want := range []dataset.Item{
		{0, "ILSVRC2012_val_00000001.JPEG", 2, "n01751748"},
		{1, "ILSVRC2012_val_00000002.JPEG", 2, "n01751748"},
		{2, "ILSVRC2012_val_00000003.JPEG", 1, "n01443537"},
		{3, "ILSVRC2012_val_00000004.JPEG", 0, "n01440764"},
	} {
		if it := d.Item(i); it != want {
			t.Errorf("Item(%d) = %+v, want %+v", i, it, want)
		}
	}
	// With LOC_synset_mapping.txt: the line index of the WordNet ID.
	syn := writeFile(t, lab, "LOC_synset_mapping.txt",
		"n01440764 tench, Tinca tinca\nn01443537 goldfish, Carassius auratus\nn01484850 great white shark\nn01751748 sea snake\n")
	d, err = dataset.Open(dataset.Spec{Path: root, Labels: csv, Synsets: syn})
	if err != nil {
		t.Fatal(err)
	}
	if it := d.Item(0); it.Label != 3 || it.LabelName != "n01751748" || len(d.Classes()) != 4 {
		t.Errorf("with synsets Item(0) = %+v, %d classes", it, len(d.Classes()))
	}

	for _, tc := range []struct {
		name, content string
		parts         []string
	}{
		{"badwnid", locHeader + "ILSVRC2012_val_00000001,tench 1 2 3 4\n", []string{"badwnid.csv:2", "WordNet ID"}},
		{"dup", locHeader + "ILSVRC2012_val_00000001,n01440764\nILSVRC2012_val_00000001,n01440764\n", []string{"dup.csv:3", "line 2"}},
		{"noid", locHeader + ",n01440764\n", []string{"noid.csv:2", "empty ImageId"}},
		{"header", "Id,Label\nx,n01440764\n", []string{"header.csv:1", "ImageId"}},
		{"missing", locHeader + "ILSVRC2012_val_00000001,n01440764\nILSVRC2012_val_00000002,n01440764\nILSVRC2012_val_00000003,n01440764\nILSVRC2012_val_00000004,n01440764\nILSVRC2012_val_00000009,n01440764\n",
			[]string{"missing.csv:6", "ILSVRC2012_val_00000009"}},
		{"extra", locHeader + "ILSVRC2012_val_00000001,n01440764\n", []string{"4 images", "only 1", "ILSVRC2012_val_00000002.JPEG"}},
		{"quote", locHeader + "ILSVRC2012_val_00000001,\"n01440764\n", []string{"quote.csv"}},
	} {
		_, err := dataset.Open(dataset.Spec{Path: root, Labels: writeFile(t, lab, tc.name+".csv", tc.content)})
		wantErr(t, tc.name, err, tc.parts...)
	}
	unknown := writeFile(t, lab, "unknown.csv", locHeader+"ILSVRC2012_val_00000001,n09999999\n")
	_, err = dataset.Open(dataset.Spec{Path: root, Labels: unknown, Synsets: syn})
	wantErr(t, "not in synsets", err, "unknown.csv:2", "n09999999")

	// Two files for the same image are refused.
	writeImage(t, root, "ILSVRC2012_val_00000001.png", 4, 4, 1)
	_, err = dataset.Open(dataset.Spec{Path: root, Labels: csv})
	wantErr(t, "duplicate image", err, "ILSVRC2012_val_00000001.JPEG", "ILSVRC2012_val_00000001.png")
	if err := os.Remove(filepath.Join(root, "ILSVRC2012_val_00000001.png")); err != nil {
		t.Fatal(err)
	}
}
