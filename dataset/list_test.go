package dataset_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
)

func TestListIntegerLabels(t *testing.T) {
	root := t.TempDir()
	writeImage(t, root, "imgs/a.png", 10, 8, 1)
	writeImage(t, root, "b.jpg", 8, 10, 2)
	abs := filepath.Join(t.TempDir(), "abs.png")
	writeImage(t, filepath.Dir(abs), "abs.png", 6, 6, 3)
	csv := writeFile(t, root, "list.csv", "\ufeffid,Path,label\n1,imgs/a.png,3\n2,./b.jpg,\n3,"+abs+",-1\n4,missing.png,0\n")
	d, err := dataset.Open(dataset.Spec{Path: csv})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "list" || d.Root() != root || len(d.Classes()) != 0 {
		t.Errorf("%s, root %s, classes %q", d.Name(), d.Root(), d.Classes())
	}
	for i, want := range []dataset.Item{{0, "imgs/a.png", 3, ""}, {1, "b.jpg", -1, ""}, {2, abs, -1, ""}, {3, "missing.png", 0, ""}} {
		if it := d.Item(i); it != want {
			t.Errorf("Item(%d) = %+v, want %+v", i, it, want)
		}
	}
	for i := range 3 {
		if _, err := d.Load(i); err != nil {
			t.Errorf("Load(%d): %v", i, err)
		}
	}
	_, err = d.Load(3)
	wantErr(t, "missing file", err, filepath.Join(root, "missing.png"))
	if p := dataset.FilePath(d, 0); p != filepath.Join(root, "imgs", "a.png") {
		t.Errorf("FilePath(0) = %s", p)
	}
	if p := dataset.FilePath(d, 2); p != abs {
		t.Errorf("FilePath(2) = %s, want %s", p, abs)
	}
}

func TestListNamedLabels(t *testing.T) {
	root := t.TempDir()
	csv := writeFile(t, root, "l.csv", "path,label\nx.png,dog\ny.png,cat\nz.png,\"dog\"\nw.png,7\n")
	d, err := dataset.Open(dataset.Spec{Kind: "list", Path: csv})
	if err != nil {
		t.Fatal(err)
	}
	// Any non-integer label makes every label a name, numbered in sorted order.
	if want := []string{"7", "cat", "dog"}; !slices.Equal(d.Classes(), want) {
		t.Errorf("Classes = %q, want %q", d.Classes(), want)
	}
	for i, want := range []int{2, 1, 2, 0} {
		if it := d.Item(i); it.Label != want || it.LabelName != d.Classes()[want] {
			t.Errorf("Item(%d) = %+v, want label %d", i, it, want)
		}
	}

	// With a class list, names and indices refer to it.
	classes := writeFile(t, root, "classes.txt", "n01440764 tench, Tinca tinca\nn01443537 goldfish\nsports car\n")
	csv2 := writeFile(t, root, "l2.csv", "path,label\na.png,n01443537\nb.png,sports car\nc.png,0\nd.png\n")
	d, err = dataset.Open(dataset.Spec{Path: csv2, Synsets: classes})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []dataset.Item{{0, "a.png", 1, "n01443537"}, {1, "b.png", 2, "sports car"}, {2, "c.png", 0, "n01440764"}, {3, "d.png", -1, ""}} {
		if it := d.Item(i); it != want {
			t.Errorf("Item(%d) = %+v, want %+v", i, it, want)
		}
	}
}

func TestListErrors(t *testing.T) {
	root := t.TempDir()
	classes := writeFile(t, root, "classes.txt", "cat\ndog\n")
	for _, tc := range []struct {
		name, content string
		withClasses   bool
		parts         []string
	}{
		{"nopath", "file,label\na.png,1\n", false, []string{"nopath.csv:1", `"path"`}},
		{"emptypath", "path,label\na.png,1\n ,2\n", false, []string{"emptypath.csv:3", "empty path"}},
		{"negative", "path,label\na.png,1\nb.png,-2\n", false, []string{"negative.csv:3", "-2"}},
		{"range", "path,label\na.png,1\nb.png,2\n", true, []string{"range.csv:3", "0…1"}},
		{"unknown", "path,label\na.png,cat\nb.png,bird\n", true, []string{"unknown.csv:3", `"bird"`}},
		{"quote", "path,label\n\"a.png,1\n", false, []string{"quote.csv"}},
		{"header only", "path,label\n", false, []string{"lists no images"}},
		{"empty", "", false, []string{"empty"}},
		{"twopath", "path,PATH\na,b\n", false, []string{"two path columns"}},
	} {
		spec := dataset.Spec{Path: writeFile(t, root, tc.name+".csv", tc.content)}
		if tc.withClasses {
			spec.Synsets = classes
		}
		_, err := dataset.Open(spec)
		wantErr(t, tc.name, err, tc.parts...)
	}
	_, err := dataset.Open(dataset.Spec{Path: filepath.Join(root, "none.csv")})
	wantErr(t, "missing csv", err, "none.csv")
}

// FuzzParseList checks that any input either fails with an error or gives
// items with consistent indices and labels.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{
		"path,label\na.png,1\nb.png,\n",
		"path,label\na.png,cat\nb.png,dog\n",
		"label,path,x\n3,a/b.png,y\n-1,c.png,z\n",
		"path\n\"a,b.png\"\n",
	} {
		f.Add(s)
	}
	space, err := dataset.NewLabelSpace([]string{"cat", "dog", "7"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sp := range []*dataset.LabelSpace{nil, space} {
			l, err := dataset.ParseList(strings.NewReader(s), "fuzz.csv", sp)
			if err != nil {
				continue
			}
			if len(l.Items) == 0 {
				t.Fatal("no items without an error")
			}
			for i, it := range l.Items {
				if it.Index != i || it.Source == "" || it.Label < -1 {
					t.Fatalf("item %d = %+v", i, it)
				}
				if l.Classes != nil && it.Label >= 0 && (it.Label >= len(l.Classes) || l.Classes[it.Label] != it.LabelName) {
					t.Fatalf("item %d = %+v, classes %q", i, it, l.Classes)
				}
			}
		}
	})
}
