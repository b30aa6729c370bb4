package dataset_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
)

// TestHeader checks that every kind Open returns reads an element's size
// from its header without decoding it, including a file that declares
// 50000×50000 pixels and holds none.
func TestHeader(t *testing.T) {
	root := t.TempDir()
	writeImage(t, root, "a/x.png", 40, 30, 1)
	writeGray(t, root, "a/y.png", 17, 9)
	writeFile(t, root, "b/text.jpg", "not an image")
	// A PNG signature and IHDR (with its CRC) declaring 50000×50000, no pixels.
	ihdr := []byte("IHDR\x00\x00\xc3\x50\x00\x00\xc3\x50\x08\x02\x00\x00\x00")
	bomb := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d"), ihdr...)
	writeFile(t, root, "b/bomb.png", string(binary.BigEndian.AppendUint32(bomb, crc32.ChecksumIEEE(ihdr))))
	writeFile(t, root, "list.csv", "path,label\na/x.png,0\nb/bomb.png,1\n")
	cifar := filepath.Join(root, "cifar", "test_batch.bin")
	writeCIFAR(t, cifar, 0, labels10(3, 0))

	folder, err := dataset.Open(dataset.Spec{Path: root, Kind: dataset.KindImageFolder})
	if err != nil {
		t.Fatal(err)
	}
	list, err := dataset.Open(dataset.Spec{Path: filepath.Join(root, "list.csv")})
	if err != nil {
		t.Fatal(err)
	}
	cf, err := dataset.Open(dataset.Spec{Path: cifar})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]imageio.Header{
		"a/x.png":    {Width: 40, Height: 30, Format: "png"},
		"a/y.png":    {Width: 17, Height: 9, Format: "png"},
		"b/bomb.png": {Width: 50000, Height: 50000, Format: "png", FileSize: 33},
	}
	for _, d := range []dataset.Dataset{folder, list, cf} {
		hr, ok := d.(dataset.HeaderReader)
		if !ok {
			t.Fatalf("%s dataset does not implement dataset.HeaderReader", d.Name())
		}
		for i := range d.Len() {
			it := d.Item(i)
			h, err := hr.Header(i)
			switch {
			case d.Name() == "cifar10":
				if err != nil || h.Width != 32 || h.Height != 32 {
					t.Errorf("cifar %s: %+v, %v; want 32×32", it.Source, h, err)
				}
			case it.Source == "b/text.jpg":
				if !errors.Is(err, imageio.ErrFormat) {
					t.Errorf("%s: error %v, want ErrFormat", it.Source, err)
				}
			default:
				w, ok := want[it.Source]
				if !ok {
					t.Fatalf("unexpected element %s", it.Source)
				}
				fi, _ := os.Stat(filepath.Join(root, filepath.FromSlash(it.Source)))
				w.FileSize = fi.Size()
				if err != nil || h != w {
					t.Errorf("%s %s: Header = %+v, %v; want %+v", d.Name(), it.Source, h, err, w)
				}
			}
		}
	}
}
