package dataset

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// CIFAR record layout (Krizhevsky, "Learning Multiple Layers of Features
// from Tiny Images", 2009; the "binary version" on the CIFAR page): each
// record is the label byte(s) followed by a 32×32 colour image as 3072
// bytes, the 1024 red samples first, then 1024 green, then 1024 blue, each
// plane row-major.
const (
	cifarSide   = 32
	cifarPixels = cifarSide * cifarSide * 3
	// CIFAR10Record is the size of a CIFAR-10 record: 1 label byte + 3072.
	CIFAR10Record = 1 + cifarPixels
	// CIFAR100Record is the size of a CIFAR-100 record: coarse and fine
	// label bytes + 3072.
	CIFAR100Record = 2 + cifarPixels
)

// CIFAR10Classes are the CIFAR-10 class names in label order, used when the
// folder has no batches.meta.txt.
var CIFAR10Classes = []string{"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"}

// CIFAR100Classes are the 100 fine CIFAR-100 class names in label order
// (alphabetical, as in the distribution's fine_label_names.txt), used when
// the folder has no fine_label_names.txt.
var CIFAR100Classes = []string{
	"apple", "aquarium_fish", "baby", "bear", "beaver", "bed", "bee", "beetle", "bicycle", "bottle",
	"bowl", "boy", "bridge", "bus", "butterfly", "camel", "can", "castle", "caterpillar", "cattle",
	"chair", "chimpanzee", "clock", "cloud", "cockroach", "couch", "crab", "crocodile", "cup", "dinosaur",
	"dolphin", "elephant", "flatfish", "forest", "fox", "girl", "hamster", "house", "kangaroo", "keyboard",
	"lamp", "lawn_mower", "leopard", "lion", "lizard", "lobster", "man", "maple_tree", "motorcycle", "mountain",
	"mouse", "mushroom", "oak_tree", "orange", "orchid", "otter", "palm_tree", "pear", "pickup_truck", "pine_tree",
	"plain", "plate", "poppy", "porcupine", "possum", "rabbit", "raccoon", "ray", "road", "rocket",
	"rose", "sea", "seal", "shark", "shrew", "skunk", "skyscraper", "snail", "snake", "spider",
	"squirrel", "streetcar", "sunflower", "sweet_pepper", "table", "tank", "telephone", "television", "tiger", "tractor",
	"train", "trout", "tulip", "turtle", "wardrobe", "whale", "willow_tree", "wolf", "woman", "worm",
}

// cifarCoarseClasses is the number of CIFAR-100 superclasses.
const cifarCoarseClasses = 20

// CIFAR is a CIFAR-10 or CIFAR-100 binary dataset. Records are read on
// demand with ReadAt; only the labels (one or two bytes per record) are kept
// in memory.
type CIFAR struct {
	kind    string
	root    string
	files   []cifarFile
	classes []string
	fine    []uint8 // label (CIFAR-10) or fine label (CIFAR-100) of every record
	coarse  []uint8 // CIFAR-100 coarse labels; nil for CIFAR-10
}

type cifarFile struct {
	name  string // base name, used in Item.Source
	path  string
	first int // index of its first record in the dataset
	n     int // records
}

var dataBatch = regexp.MustCompile(`^data_batch_([0-9]+)\.bin$`)

// OpenCIFAR opens CIFAR binary batches; kind is "cifar10" or "cifar100".
// path is one batch file, or a folder holding the batches (or holding the
// distribution's cifar-10-batches-bin / cifar-100-binary folder). For a
// folder, split "test" (or "") reads test_batch.bin (CIFAR-10) or test.bin
// (CIFAR-100), and "train" reads data_batch_1.bin … data_batch_5.bin in
// numeric order, or train.bin. Elements are numbered across files in that
// order.
//
// Label is the CIFAR-10 label or, for CIFAR-100, the fine label (0…99; the
// coarse label is available from CoarseLabel). Class names come from
// batches.meta.txt (CIFAR-10) or fine_label_names.txt (CIFAR-100) beside the
// batches when present, otherwise from CIFAR10Classes / CIFAR100Classes.
//
// It returns an error when a file's size is not a multiple of the record
// size or a label byte is out of range; all errors name the file (and the
// record).
func OpenCIFAR(path, kind, split string) (*CIFAR, error) {
	if kind != KindCIFAR10 && kind != KindCIFAR100 {
		return nil, fmt.Errorf("dataset: OpenCIFAR kind %q; use %q or %q", kind, KindCIFAR10, KindCIFAR100)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var paths []string
	if fi.IsDir() {
		if paths, err = cifarSplit(path, kind, split); err != nil {
			return nil, err
		}
	} else {
		if split != "" {
			return nil, fmt.Errorf("dataset: %s is a single CIFAR batch file; a split (%q) applies only to a folder of batches", path, split)
		}
		paths = []string{path}
	}
	d := &CIFAR{kind: kind, root: filepath.Dir(paths[0])}
	if d.classes, err = cifarClassNames(d.root, kind); err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := d.scan(p); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// findCIFARDir looks for CIFAR batches in dir, or in the distribution's
// sub-folder of dir. It returns the kind and the folder holding the batches,
// or "" when there are none.
func findCIFARDir(dir string) (kind, batches string, err error) {
	for _, d := range []string{dir, filepath.Join(dir, "cifar-10-batches-bin"), filepath.Join(dir, "cifar-100-binary")} {
		entries, err := os.ReadDir(d)
		if err != nil {
			if d == dir {
				return "", "", fmt.Errorf("dataset: %w", err)
			}
			continue
		}
		for _, e := range entries {
			switch n := e.Name(); {
			case n == "test_batch.bin" || dataBatch.MatchString(n):
				return KindCIFAR10, d, nil
			case n == "test.bin" || n == "train.bin":
				return KindCIFAR100, d, nil
			}
		}
	}
	return "", "", nil
}

// cifarSplit lists the batch files of a split in dir.
func cifarSplit(dir, kind, split string) ([]string, error) {
	found, batches, err := findCIFARDir(dir)
	if err != nil {
		return nil, err
	}
	if found == "" {
		return nil, fmt.Errorf("dataset: %s holds no CIFAR batches (test_batch.bin, data_batch_N.bin, test.bin or train.bin)", dir)
	}
	if found != kind {
		return nil, fmt.Errorf("dataset: %s holds %s batches, not %s", batches, found, kind)
	}
	var names []string
	switch split {
	case "", "test":
		names = []string{"test_batch.bin"}
		if kind == KindCIFAR100 {
			names = []string{"test.bin"}
		}
	case "train":
		if kind == KindCIFAR100 {
			names = []string{"train.bin"}
			break
		}
		entries, err := os.ReadDir(batches)
		if err != nil {
			return nil, fmt.Errorf("dataset: %w", err)
		}
		type batch struct {
			n    int
			name string
		}
		var bs []batch
		for _, e := range entries {
			if m := dataBatch.FindStringSubmatch(e.Name()); m != nil {
				n, _ := strconv.Atoi(m[1])
				bs = append(bs, batch{n, e.Name()})
			}
		}
		slices.SortFunc(bs, func(a, b batch) int { return cmp.Compare(a.n, b.n) })
		for _, b := range bs {
			names = append(names, b.name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("dataset: %s has no data_batch_N.bin files for the train split", batches)
		}
	default:
		return nil, fmt.Errorf("dataset: unknown CIFAR split %q; use \"train\" or \"test\"", split)
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(batches, n)
		if _, err := os.Stat(paths[i]); err != nil {
			return nil, fmt.Errorf("dataset: %s split: %w", cmp.Or(split, "test"), err)
		}
	}
	return paths, nil
}

// cifarKindOfFile decides whether a .bin file is CIFAR-10 or CIFAR-100: by
// its distribution name, else by which record size divides its size.
func cifarKindOfFile(path string, size int64) (string, error) {
	switch n := filepath.Base(path); {
	case n == "test_batch.bin" || dataBatch.MatchString(n):
		return KindCIFAR10, nil
	case n == "test.bin" || n == "train.bin":
		return KindCIFAR100, nil
	}
	ten, hundred := size > 0 && size%CIFAR10Record == 0, size > 0 && size%CIFAR100Record == 0
	switch {
	case ten && !hundred:
		return KindCIFAR10, nil
	case hundred && !ten:
		return KindCIFAR100, nil
	}
	return "", fmt.Errorf("dataset: cannot tell whether %s (%d bytes) is a CIFAR-10 (%d-byte records) or CIFAR-100 (%d-byte records) batch; set the kind explicitly",
		path, size, CIFAR10Record, CIFAR100Record)
}

// cifarClassNames reads the class-name file beside the batches, if any.
func cifarClassNames(dir, kind string) ([]string, error) {
	name, std := "batches.meta.txt", CIFAR10Classes
	if kind == KindCIFAR100 {
		name, std = "fine_label_names.txt", CIFAR100Classes
	}
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return std, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var names []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	if len(names) != len(std) {
		return nil, fmt.Errorf("dataset: %s lists %d class names, want %d", p, len(names), len(std))
	}
	return names, nil
}

func (d *CIFAR) recordSize() int {
	if d.kind == KindCIFAR100 {
		return CIFAR100Record
	}
	return CIFAR10Record
}

// scan adds the records of one batch file, reading only their label bytes.
func (d *CIFAR) scan(path string) error {
	rec := d.recordSize()
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if fi.Size() == 0 || fi.Size()%int64(rec) != 0 {
		return fmt.Errorf("dataset: %s is %d bytes, not a positive multiple of the %d-byte %s record (%d label byte(s) + 3072 pixel bytes); is it a %s batch?",
			path, fi.Size(), rec, d.kind, rec-cifarPixels, d.kind)
	}
	n := int(fi.Size() / int64(rec))
	cf := cifarFile{name: filepath.Base(path), path: path, first: len(d.fine), n: n}
	br := bufio.NewReaderSize(f, 1<<20)
	var lab [2]byte
	for r := range n {
		if _, err := io.ReadFull(br, lab[:rec-cifarPixels]); err != nil {
			return fmt.Errorf("dataset: %s#%d: %w", cf.name, r, err)
		}
		fine := lab[0]
		if d.kind == KindCIFAR100 {
			if lab[0] >= cifarCoarseClasses {
				return fmt.Errorf("dataset: %s#%d: coarse label %d out of range 0…%d; is this a CIFAR-100 batch?", cf.name, r, lab[0], cifarCoarseClasses-1)
			}
			d.coarse = append(d.coarse, lab[0])
			fine = lab[1]
		}
		if int(fine) >= len(d.classes) {
			return fmt.Errorf("dataset: %s#%d: label %d out of range 0…%d; is this a %s batch?", cf.name, r, fine, len(d.classes)-1, d.kind)
		}
		d.fine = append(d.fine, fine)
		if _, err := br.Discard(cifarPixels); err != nil {
			return fmt.Errorf("dataset: %s#%d: %w", cf.name, r, err)
		}
	}
	d.files = append(d.files, cf)
	return nil
}

// Name returns "cifar10" or "cifar100".
func (d *CIFAR) Name() string { return d.kind }

// Len returns the number of records.
func (d *CIFAR) Len() int { return len(d.fine) }

// Classes returns the class names (fine classes for CIFAR-100).
func (d *CIFAR) Classes() []string { return d.classes }

// Root returns the folder of the batch files.
func (d *CIFAR) Root() string { return d.root }

// locate returns the file and record number of element i.
func (d *CIFAR) locate(i int) (*cifarFile, int) {
	if i < 0 || i >= len(d.fine) {
		panic(fmt.Sprintf("dataset: index %d out of range [0, %d)", i, len(d.fine)))
	}
	k, found := slices.BinarySearchFunc(d.files, i, func(f cifarFile, i int) int { return cmp.Compare(f.first, i) })
	if !found {
		k--
	}
	return &d.files[k], i - d.files[k].first
}

// Item returns element i; Source is "<batch file>#<record>".
func (d *CIFAR) Item(i int) Item {
	f, r := d.locate(i)
	l := int(d.fine[i])
	return Item{Index: i, Source: f.name + "#" + strconv.Itoa(r), Label: l, LabelName: d.classes[l]}
}

// CoarseLabel returns the CIFAR-100 coarse label (0…19) of element i, or −1
// for CIFAR-10.
func (d *CIFAR) CoarseLabel(i int) int {
	d.locate(i)
	if d.coarse == nil {
		return -1
	}
	return int(d.coarse[i])
}

// Header returns the size of record i: every CIFAR image is 32×32, read
// as one record of a few kilobytes.
func (d *CIFAR) Header(i int) (imageio.Header, error) {
	d.Item(i) // range check
	return imageio.Header{Width: cifarSide, Height: cifarSide, Format: "cifar", FileSize: int64(d.recordSize())}, nil
}

// Load reads record i from its batch file and returns it as a 32×32 image.
func (d *CIFAR) Load(i int) (*imageio.Image, error) {
	f, r := d.locate(i)
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s#%d: %w", f.name, r, err)
	}
	defer fh.Close()
	rec := d.recordSize()
	buf := make([]byte, rec)
	if _, err := fh.ReadAt(buf, int64(r)*int64(rec)); err != nil {
		return nil, fmt.Errorf("dataset: %s#%d: %w", f.name, r, err)
	}
	return DecodeCIFARRecord(buf, rec-cifarPixels)
}

// DecodeCIFARRecord converts one CIFAR record (labelBytes label bytes, then
// 3072 pixel bytes in R, G, B planes) to a 32×32 image. It returns an error
// if rec has the wrong length.
func DecodeCIFARRecord(rec []byte, labelBytes int) (*imageio.Image, error) {
	if labelBytes < 0 || len(rec) != labelBytes+cifarPixels {
		return nil, fmt.Errorf("dataset: CIFAR record is %d bytes, want %d", len(rec), labelBytes+cifarPixels)
	}
	m := imageio.New(cifarSide, cifarSide)
	px := rec[labelBytes:]
	const plane = cifarSide * cifarSide
	for c := range 3 {
		src, dst := px[c*plane:][:plane], m.Ch[c][:plane]
		for j, v := range src {
			dst[j] = imageio.From8(v)
		}
	}
	return m, nil
}
