package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
)

func sources(d dataset.Dataset) []string {
	var s []string
	for i := range d.Len() {
		s = append(s, d.Item(i).Source)
	}
	return s
}

func TestImageFolderClasses(t *testing.T) {
	root := t.TempDir()
	writeImage(t, root, "cat/z.png", 20, 16, 1)
	writeImage(t, root, "cat/a.png", 16, 20, 2)
	writeImage(t, root, "cat/sub/b.jpg", 24, 18, 3)
	writeImage(t, root, "cat/sub-x/c.png", 10, 10, 4)
	writeImage(t, root, "cat/sub/deeper/d.png", 12, 9, 5)
	writeGray(t, root, "dog/gray.png", 13, 11)
	writeImage(t, root, "dog/UPPER.JPG", 17, 12, 6)
	writeFile(t, root, "dog/broken.png", "\x89PNG\r\n\x1a\n this is not a PNG")
	writeFile(t, root, "dog/notes.txt", "not an image")
	writeImage(t, root, "dog/.hidden.png", 8, 8, 7)
	writeImage(t, root, ".ipynb_checkpoints/x.png", 8, 8, 8)
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "README.txt", "top-level non-image files are fine")

	d, err := dataset.Open(dataset.Spec{Path: root})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "imagefolder" || d.Root() != root {
		t.Errorf("Name, Root = %q, %q", d.Name(), d.Root())
	}
	if got, want := d.Classes(), []string{"cat", "dog", "empty"}; !slices.Equal(got, want) {
		t.Errorf("Classes = %q, want %q", got, want)
	}
	// torchvision order: sorted(os.walk(class dir)) by folder path, then file
	// name; "cat/sub-x" sorts before "cat/sub/deeper" ('-' < '/').
	want := []string{"cat/a.png", "cat/z.png", "cat/sub/b.jpg", "cat/sub-x/c.png", "cat/sub/deeper/d.png",
		"dog/UPPER.JPG", "dog/broken.png", "dog/gray.png"}
	if got := sources(d); !slices.Equal(got, want) {
		t.Fatalf("sources = %q, want %q", got, want)
	}
	for i := range d.Len() {
		it := d.Item(i)
		wantLabel := 0
		if i >= 5 {
			wantLabel = 1
		}
		if it.Index != i || it.Label != wantLabel || it.LabelName != d.Classes()[wantLabel] {
			t.Errorf("Item(%d) = %+v", i, it)
		}
	}
	m, err := d.Load(2)
	if err != nil {
		t.Fatal(err)
	}
	if m.Width != 24 || m.Height != 18 {
		t.Errorf("cat/sub/b.jpg loaded as %dx%d", m.Width, m.Height)
	}
	g, err := d.Load(7)
	if err != nil {
		t.Fatal(err)
	}
	if !g.IsGray() || g.Width != 13 || g.Ch[0][1] != imageio.From8(7) {
		t.Errorf("gray.png: gray %v, size %dx%d, sample %v", g.IsGray(), g.Width, g.Height, g.Ch[0][1])
	}
	_, err = d.Load(6)
	wantErr(t, "broken image", err, filepath.Join(root, "dog", "broken.png"))
}

func TestImageFolderFlat(t *testing.T) {
	root := t.TempDir()
	for i, n := range []string{"b.png", "a.jpeg", "c.PNG"} {
		writeImage(t, root, n, 9, 7, uint64(i))
	}
	// A sub-folder without images does not turn the folder into classes.
	if err := os.Mkdir(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Open(dataset.Spec{Kind: "imagefolder", Path: root})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sources(d), []string{"a.jpeg", "b.png", "c.PNG"}; !slices.Equal(got, want) {
		t.Errorf("sources = %q, want %q", got, want)
	}
	if len(d.Classes()) != 0 || d.Item(0).Label != -1 || d.Item(0).LabelName != "" {
		t.Errorf("flat folder: classes %q, item %+v", d.Classes(), d.Item(0))
	}
	if _, err := d.Load(1); err != nil {
		t.Error(err)
	}
}

func TestImageFolderErrors(t *testing.T) {
	mixed := t.TempDir()
	writeImage(t, mixed, "loose.png", 8, 8, 1)
	writeImage(t, mixed, "cls/a.png", 8, 8, 2)
	_, err := dataset.Open(dataset.Spec{Path: mixed})
	wantErr(t, "mixed folder", err, "loose.png", "cls/a.png")

	empty := t.TempDir()
	writeFile(t, empty, "x/readme.txt", "")
	_, err = dataset.Open(dataset.Spec{Path: empty})
	wantErr(t, "no images", err, "no images", empty)

	_, err = dataset.Open(dataset.Spec{Path: filepath.Join(empty, "missing")})
	wantErr(t, "missing folder", err, "missing")

	_, err = dataset.Open(dataset.Spec{Path: empty, Kind: "imagenet"})
	wantErr(t, "unknown kind", err, `"imagenet"`, "imagenet-val")

	_, err = dataset.Open(dataset.Spec{Path: mixed, Kind: "imagefolder", Labels: "x.txt"})
	wantErr(t, "labels with imagefolder", err, "x.txt", "ImageNet")
	_, err = dataset.Open(dataset.Spec{Path: mixed, Synsets: "s.txt"})
	wantErr(t, "synsets with imagefolder", err, "s.txt", `"imagefolder"`)
	_, err = dataset.Open(dataset.Spec{Path: mixed, Split: "train"})
	wantErr(t, "split with imagefolder", err, `"train"`, "CIFAR")
}

func TestImageFolderFollowsSymlinks(t *testing.T) {
	elsewhere := t.TempDir()
	writeImage(t, elsewhere, "pics/p.png", 8, 8, 1)
	root := t.TempDir()
	writeImage(t, root, "a/x.png", 8, 8, 2)
	if err := os.Symlink(filepath.Join(elsewhere, "pics"), filepath.Join(root, "b")); err != nil {
		t.Skip("no symlinks:", err)
	}
	d, err := dataset.Open(dataset.Spec{Path: root})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sources(d), []string{"a/x.png", "b/p.png"}; !slices.Equal(got, want) {
		t.Errorf("sources = %q, want %q", got, want)
	}
	// A link loop must end in an error, not run forever.
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "a", "loop")); err != nil {
		t.Fatal(err)
	}
	_, err = dataset.Open(dataset.Spec{Path: root})
	wantErr(t, "symlink loop", err, "symbolic link loop", filepath.Join(root, "a", "loop"))
}

func BenchmarkOpenImageFolder5000(b *testing.B) {
	root := b.TempDir()
	for c := range 10 {
		dir := filepath.Join(root, fmt.Sprintf("class%02d", c))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 500 {
			// Opening decodes nothing, so the files' content does not matter.
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("img_%05d.JPEG", i)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := dataset.Open(dataset.Spec{Path: root})
		if err != nil || d.Len() != 5000 {
			b.Fatal(err)
		}
	}
}
