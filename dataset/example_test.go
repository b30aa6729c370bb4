package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

func ExampleOpen() {
	root, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(root)
	for _, name := range []string{"dog/b.png", "cat/a.png", "dog/a.png"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		imageio.Save(p, testimg.Natural(300, 200, 1), imageio.EncodeOptions{})
	}

	d, err := dataset.Open(dataset.Spec{Path: root}) // "auto": class folders
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name(), d.Len(), d.Classes())
	for i := range d.Len() {
		it := d.Item(i)
		m, err := d.Load(i)
		if err != nil {
			fmt.Println(err)
			continue
		}
		m = imageio.Preprocess(m, 256, 224) // ImageNet evaluation: resize 256, crop 224
		fmt.Println(it.Index, it.Source, it.Label, it.LabelName, m.Width, m.Height)
	}
	// Output:
	// imagefolder 3 [cat dog]
	// 0 cat/a.png 0 cat 224 224
	// 1 dog/a.png 1 dog 224 224
	// 2 dog/b.png 1 dog 224 224
}

func ExampleImageNet16() {
	for _, i := range []int{404, 817, 0} {
		c, ok := dataset.ImageNet16(i)
		fmt.Printf("%d %q %v car=%v\n", i, c, ok, dataset.IsCar(i))
	}
	// Output:
	// 404 "airplane" true car=false
	// 817 "car" true car=true
	// 0 "" false car=false
}

// Datasets are used from several workers at once; run with -race.
func TestConcurrentLoad(t *testing.T) {
	root := t.TempDir()
	for i := range 8 {
		writeImage(t, root, fmt.Sprintf("c%d/x.png", i%2), 16, 12, uint64(i))
		writeImage(t, root, fmt.Sprintf("c%d/y%d.png", i%2, i), 16, 12, uint64(i))
	}
	writeCIFAR(t, filepath.Join(root, "cifar", "test_batch.bin"), 0, labels10(16, 0))
	for _, spec := range []dataset.Spec{{Path: root, Kind: "imagefolder"}, {Path: filepath.Join(root, "cifar")}} {
		d, err := dataset.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < d.Len(); i += 2 {
					if _, err := d.Load(i); err != nil {
						t.Error(err)
					}
					_ = d.Item(i)
				}
			})
		}
		wg.Wait()
	}
}
