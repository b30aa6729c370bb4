package dataset

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/vcr-bench/vcr/internal/localpath"
)

// TestSourceFile: sources of folder, ImageNet and CIFAR datasets stay
// inside the dataset folder (issue 15, finding 5); a list CSV's may be
// anywhere.
func TestSourceFile(t *testing.T) {
	root := filepath.FromSlash("/data/set")
	for _, tc := range []struct {
		kind, source, want string // want "": refused
	}{
		{KindImageFolder, "car/a.png", "/data/set/car/a.png"},
		{KindImageFolder, "/etc/passwd", ""},
		{KindImageFolder, "../x.png", ""},
		{KindImageNetVal, "ILSVRC2012_val_00000001.JPEG", "/data/set/ILSVRC2012_val_00000001.JPEG"},
		{KindImageNetVal, "a/../../x.JPEG", ""},
		{KindCIFAR10, "data_batch_1.bin#7", "/data/set/data_batch_1.bin"},
		{KindCIFAR10, "../../etc/x.bin#7", ""},
		{"", "/abs.png", ""}, // an unknown kind is confined too
		{KindList, "/elsewhere/a.png", "/elsewhere/a.png"},
		{KindList, "../b.png", "/data/b.png"},
	} {
		got, err := SourceFile(tc.kind, root, tc.source)
		if tc.want == "" {
			if !errors.Is(err, localpath.ErrOutside) {
				t.Errorf("SourceFile(%s, %q) = %q, %v; want ErrOutside", tc.kind, tc.source, got, err)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("SourceFile(%s, %q) = %q, %v; want %s", tc.kind, tc.source, got, err, tc.want)
		}
	}
}
