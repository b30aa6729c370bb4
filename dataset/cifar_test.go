package dataset_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
)

// cifarPixel is the byte the test batches store for record r, plane c
// (0 = R, 1 = G, 2 = B) and position j = 32·y + x.
func cifarPixel(file, r, c, j int) byte { return byte(file*37 + r*11 + c*85 + j*3) }

// writeCIFAR writes a batch of labels.len records; labels[r] holds the
// label byte(s) of record r (one for CIFAR-10, coarse and fine for CIFAR-100).
func writeCIFAR(t testing.TB, path string, file int, labels [][]byte) {
	t.Helper()
	var buf []byte
	for r, lab := range labels {
		buf = append(buf, lab...)
		for c := range 3 {
			for j := range 1024 {
				buf = append(buf, cifarPixel(file, r, c, j))
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func labels10(n, start int) [][]byte {
	l := make([][]byte, n)
	for r := range l {
		l[r] = []byte{byte((start + r) % 10)}
	}
	return l
}

func checkCIFARImage(t *testing.T, m *imageio.Image, file, r int) {
	t.Helper()
	if m.Width != 32 || m.Height != 32 {
		t.Fatalf("size %dx%d", m.Width, m.Height)
	}
	for c := range 3 {
		for j := range 1024 {
			if got, want := m.Ch[c][j], imageio.From8(cifarPixel(file, r, c, j)); got != want {
				t.Fatalf("file %d record %d channel %d sample %d = %v, want %v", file, r, c, j, got, want)
			}
		}
	}
}

func TestCIFAR10(t *testing.T) {
	dir := t.TempDir()
	writeCIFAR(t, filepath.Join(dir, "test_batch.bin"), 0, labels10(7, 0))
	writeCIFAR(t, filepath.Join(dir, "data_batch_1.bin"), 1, labels10(3, 1))
	writeCIFAR(t, filepath.Join(dir, "data_batch_2.bin"), 2, labels10(4, 2))
	writeCIFAR(t, filepath.Join(dir, "data_batch_10.bin"), 10, labels10(2, 3))

	test, err := dataset.Open(dataset.Spec{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if test.Name() != "cifar10" || test.Len() != 7 || test.Root() != dir {
		t.Fatalf("test split: %s, %d records, root %s", test.Name(), test.Len(), test.Root())
	}
	if !slices.Equal(test.Classes(), dataset.CIFAR10Classes) {
		t.Errorf("classes %q", test.Classes())
	}
	if it := test.Item(5); it != (dataset.Item{Index: 5, Source: "test_batch.bin#5", Label: 5, LabelName: "dog"}) {
		t.Errorf("Item(5) = %+v", it)
	}
	m, err := test.Load(5)
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARImage(t, m, 0, 5)
	if p := dataset.FilePath(test, 5); p != "" {
		t.Errorf("FilePath of a CIFAR record = %q", p)
	}

	// Train split: data_batch_N in numeric order (1, 2, 10).
	train, err := dataset.Open(dataset.Spec{Kind: "cifar10", Path: dir, Split: "train"})
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 9 {
		t.Fatalf("train has %d records, want 9", train.Len())
	}
	for i, want := range []struct {
		src  string
		file int
		rec  int
	}{{"data_batch_1.bin#0", 1, 0}, {"data_batch_1.bin#2", 1, 2}, {"data_batch_2.bin#0", 2, 0}, {"data_batch_2.bin#3", 2, 3}, {"data_batch_10.bin#1", 10, 1}} {
		idx := []int{0, 2, 3, 6, 8}[i]
		it := train.Item(idx)
		if it.Source != want.src || it.Index != idx {
			t.Errorf("train Item(%d) = %+v, want source %s", idx, it, want.src)
		}
		m, err := train.Load(idx)
		if err != nil {
			t.Fatal(err)
		}
		checkCIFARImage(t, m, want.file, want.rec)
	}

	// A single file, with class names from batches.meta.txt beside it.
	names := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	writeFile(t, dir, "batches.meta.txt", "a0\na1\na2\na3\na4\na5\na6\na7\na8\na9\n\n")
	one, err := dataset.Open(dataset.Spec{Path: filepath.Join(dir, "data_batch_2.bin")})
	if err != nil {
		t.Fatal(err)
	}
	if one.Len() != 4 || !slices.Equal(one.Classes(), names) || one.Item(1).LabelName != "a3" {
		t.Errorf("single file: %d records, classes %q, item %+v", one.Len(), one.Classes(), one.Item(1))
	}
}

func TestCIFAR100(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cifar-100-binary") // the distribution's folder
	writeCIFAR(t, filepath.Join(dir, "train.bin"), 4, [][]byte{{19, 99}, {0, 0}, {3, 42}})
	writeCIFAR(t, filepath.Join(dir, "test.bin"), 5, [][]byte{{1, 7}})
	d, err := dataset.Open(dataset.Spec{Path: root, Split: "train"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "cifar100" || d.Len() != 3 || d.Root() != dir {
		t.Fatalf("%s, %d records, root %s", d.Name(), d.Len(), d.Root())
	}
	c := d.(*dataset.CIFAR)
	// The fine label is the second byte; the coarse label the first.
	if it := d.Item(0); it.Label != 99 || it.LabelName != "worm" || c.CoarseLabel(0) != 19 {
		t.Errorf("Item(0) = %+v, coarse %d", it, c.CoarseLabel(0))
	}
	if it := d.Item(2); it.Label != 42 || it.LabelName != "leopard" || c.CoarseLabel(2) != 3 || it.Source != "train.bin#2" {
		t.Errorf("Item(2) = %+v, coarse %d", it, c.CoarseLabel(2))
	}
	m, err := d.Load(2)
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARImage(t, m, 4, 2)
	test, err := dataset.Open(dataset.Spec{Kind: "cifar100", Path: root})
	if err != nil || test.Len() != 1 || test.Item(0).Label != 7 {
		t.Errorf("test split: %v", err)
	}
}

func TestCIFARClassLists(t *testing.T) {
	for _, tc := range []struct {
		names []string
		n     int
	}{{dataset.CIFAR10Classes, 10}, {dataset.CIFAR100Classes, 100}} {
		if len(tc.names) != tc.n {
			t.Errorf("%d names, want %d", len(tc.names), tc.n)
		}
		if _, err := dataset.NewLabelSpace(tc.names); err != nil {
			t.Error(err)
		}
	}
	// The CIFAR-100 fine names are alphabetical in the distribution's file.
	if !slices.IsSorted(dataset.CIFAR100Classes) {
		t.Error("CIFAR100Classes not sorted")
	}
}

func TestCIFARErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "short/test_batch.bin", string(make([]byte, 3073*2+5)))
	_, err := dataset.Open(dataset.Spec{Path: bad})
	wantErr(t, "size", err, bad, "6151 bytes", "3073-byte")

	writeCIFAR(t, filepath.Join(dir, "label/test_batch.bin"), 0, [][]byte{{3}, {10}})
	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(dir, "label")})
	wantErr(t, "label range", err, "test_batch.bin#1", "label 10")

	writeCIFAR(t, filepath.Join(dir, "c100/train.bin"), 0, [][]byte{{20, 3}})
	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(dir, "c100/train.bin")})
	wantErr(t, "coarse range", err, "train.bin#0", "coarse label 20")

	writeCIFAR(t, filepath.Join(dir, "ok/data_batch_1.bin"), 0, labels10(2, 0))
	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(dir, "ok"), Kind: "cifar10"})
	wantErr(t, "missing test batch", err, "test_batch.bin")
	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(dir, "ok"), Kind: "cifar10", Split: "val"})
	wantErr(t, "bad split", err, `"val"`)
	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(dir, "ok"), Kind: "cifar100"})
	wantErr(t, "wrong kind", err, "cifar10 batches")
	_, err = dataset.Open(dataset.Spec{Path: t.TempDir(), Kind: "cifar10"})
	wantErr(t, "no batches", err, "no CIFAR batches")

	writeFile(t, dir, "ok/batches.meta.txt", "a\nb\n")
	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(dir, "ok"), Split: "train"})
	wantErr(t, "meta", err, "batches.meta.txt", "2 class names, want 10")

	// An unnamed .bin whose size fits CIFAR-10 records only is detected as CIFAR-10;
	// an unnamed one that fits neither is refused.
	writeCIFAR(t, filepath.Join(dir, "x.bin"), 0, labels10(2, 0))
	if d, err := dataset.Open(dataset.Spec{Path: filepath.Join(dir, "x.bin")}); err != nil || d.Name() != "cifar10" {
		t.Errorf("x.bin: %v", err)
	}
	_, err = dataset.Open(dataset.Spec{Path: writeFile(t, dir, "y.bin", "xyz")})
	wantErr(t, "unknown bin", err, "y.bin", "set the kind")
}

// FuzzCIFARRecord writes arbitrary bytes as a CIFAR-10 or CIFAR-100 batch:
// opening must either fail with an error or give records whose labels and
// pixels are exactly the file's bytes.
func FuzzCIFARRecord(f *testing.F) {
	rec := make([]byte, dataset.CIFAR10Record)
	rec[0] = 9
	f.Add(rec, false)
	f.Add(append(slices.Clone(rec), rec...), false)
	rec100 := make([]byte, dataset.CIFAR100Record)
	rec100[0], rec100[1] = 19, 99
	f.Add(rec100, true)
	f.Add([]byte("short"), true)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, hundred bool) {
		kind, size, lb := "cifar10", dataset.CIFAR10Record, 1
		if hundred {
			kind, size, lb = "cifar100", dataset.CIFAR100Record, 2
		}
		p := filepath.Join(dir, "batch.bin")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := dataset.OpenCIFAR(p, kind, "")
		if err != nil {
			return
		}
		if d.Len()*size != len(data) {
			t.Fatalf("%d records from %d bytes", d.Len(), len(data))
		}
		for i := range d.Len() {
			r := data[i*size : (i+1)*size]
			if it := d.Item(i); it.Label != int(r[lb-1]) {
				t.Fatalf("record %d label %d, byte %d", i, it.Label, r[lb-1])
			}
			m, err := d.Load(i)
			if err != nil {
				t.Fatal(err)
			}
			for c := range 3 {
				for j := range 1024 {
					if m.Ch[c][j] != imageio.From8(r[lb+c*1024+j]) {
						t.Fatalf("record %d channel %d sample %d differs", i, c, j)
					}
				}
			}
		}
	})
}
