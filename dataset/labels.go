package dataset

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// LabelSpace is an ordered list of distinct class names: index i is class
// Name(i). It is immutable and safe for concurrent use.
type LabelSpace struct {
	names []string
	desc  []string
	index map[string]int
}

// NewLabelSpace returns the label space with the given names in order. It
// returns an error for an empty or duplicate name.
func NewLabelSpace(names []string) (*LabelSpace, error) {
	s := &LabelSpace{names: slices.Clone(names), desc: make([]string, len(names)), index: make(map[string]int, len(names))}
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("dataset: class %d has an empty name", i)
		}
		if j, dup := s.index[n]; dup {
			return nil, fmt.Errorf("dataset: class %q appears twice (indices %d and %d)", n, j, i)
		}
		s.index[n] = i
	}
	return s, nil
}

// ReadSynsets reads a class list file; see ParseSynsets.
func ReadSynsets(path string) (*LabelSpace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	return ParseSynsets(f, path)
}

// ParseSynsets reads a class list, one class per line, in index order;
// name names the input in errors. A line that starts with a WordNet ID, as in
// LOC_synset_mapping.txt ("n01440764 tench, Tinca tinca"), gives that ID as
// the class name and the rest of the line as its description; any other
// line gives its trimmed text (so "aquarium_fish" or "sports car" lists work
// too). Blank lines are skipped. Duplicates are an error naming both lines.
func ParseSynsets(r io.Reader, name string) (*LabelSpace, error) {
	s := &LabelSpace{index: map[string]int{}}
	sc := bufio.NewScanner(r)
	line := 0
	lineOf := map[string]int{}
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if line == 1 {
			t = strings.TrimPrefix(t, "\ufeff")
		}
		if t == "" {
			continue
		}
		n, desc := t, ""
		if id, rest, _ := strings.Cut(t, " "); IsWNID(id) {
			n, desc = id, strings.TrimSpace(rest)
		} else if id, rest, _ := strings.Cut(t, "\t"); IsWNID(id) {
			n, desc = id, strings.TrimSpace(rest)
		}
		if prev, dup := lineOf[n]; dup {
			return nil, fmt.Errorf("dataset: %s:%d: class %q already listed on line %d", name, line, n, prev)
		}
		lineOf[n] = line
		s.index[n] = len(s.names)
		s.names = append(s.names, n)
		s.desc = append(s.desc, desc)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	if len(s.names) == 0 {
		return nil, fmt.Errorf("dataset: %s lists no classes", name)
	}
	return s, nil
}

// Len returns the number of classes.
func (s *LabelSpace) Len() int { return len(s.names) }

// Name returns the name of class i. It panics if i is out of range.
func (s *LabelSpace) Name(i int) string { return s.names[i] }

// Description returns the text after the WordNet ID on class i's line
// ("tench, Tinca tinca"), or "". It panics if i is out of range.
func (s *LabelSpace) Description(i int) string { return s.desc[i] }

// Names returns a copy of the class names in index order.
func (s *LabelSpace) Names() []string { return slices.Clone(s.names) }

// Index returns the index of the class called name.
func (s *LabelSpace) Index(name string) (int, bool) {
	i, ok := s.index[name]
	return i, ok
}

// IsWNID reports whether s has the form of a WordNet noun ID: "n" and eight
// digits, e.g. n01440764.
func IsWNID(s string) bool {
	if len(s) != 9 || s[0] != 'n' {
		return false
	}
	for _, c := range []byte(s[1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// imagenet16JSON is Geirhos et al.'s 16-class ImageNet mapping ("Generalisation
// in humans and deep neural networks", NeurIPS 2018), as published in
// bethgelab/model-vs-human (modelvshuman/helper/human_categories.py); the VCR
// reference toolbox (HuakunShen/VCR) carries the same WordNet-ID lists. The
// file records its origin in its "source" field.
//
//go:embed imagenet16.json
var imagenet16JSON []byte

type imagenet16Data struct {
	Categories []string            `json:"categories"`
	Indices    map[string][]int    `json:"category_to_imagenet_indices"`
	WNIDs      map[string][]string `json:"category_to_imagenet_wnids"`
}

var imagenet16 = sync.OnceValue(func() (m struct {
	categories []string
	byIndex    [1000]int8 // category number + 1; 0 = no category
	indices    map[string][]int
	wnids      map[string]string
}) {
	var d imagenet16Data
	if err := json.Unmarshal(imagenet16JSON, &d); err != nil {
		panic("dataset: embedded imagenet16.json: " + err.Error())
	}
	m.categories = d.Categories
	m.indices = d.Indices
	m.wnids = map[string]string{}
	for c, name := range d.Categories {
		ws := d.WNIDs[name]
		if len(ws) != len(d.Indices[name]) {
			panic("dataset: embedded imagenet16.json: index and WordNet ID lists differ for " + name)
		}
		for k, i := range d.Indices[name] {
			if m.byIndex[i] != 0 {
				panic(fmt.Sprintf("dataset: embedded imagenet16.json: index %d in two categories", i))
			}
			m.byIndex[i] = int8(c + 1)
			m.wnids[ws[k]] = name
		}
	}
	return m
})

// ImageNet16Categories returns the 16 entry-level categories of Geirhos et
// al. (NeurIPS 2018) in their decision-vector order (alphabetical: airplane,
// bear, …, truck).
func ImageNet16Categories() []string { return slices.Clone(imagenet16().categories) }

// ImageNet16 returns the 16-class category of ImageNet-1k class index (sorted
// WordNet-ID order), and false for the 793 classes that belong to none.
// 207 indices have a category.
func ImageNet16(index int) (category string, ok bool) {
	m := imagenet16()
	if index < 0 || index >= len(m.byIndex) || m.byIndex[index] == 0 {
		return "", false
	}
	return m.categories[m.byIndex[index]-1], true
}

// ImageNet16Indices returns the ImageNet-1k indices of a 16-class category,
// ascending, or nil for an unknown category.
func ImageNet16Indices(category string) []int { return slices.Clone(imagenet16().indices[category]) }

// ImageNet16OfWNID returns the 16-class category of an ILSVRC-2012 WordNet
// ID, and false when it belongs to none.
func ImageNet16OfWNID(wnid string) (category string, ok bool) {
	c, ok := imagenet16().wnids[wnid]
	return c, ok
}

// carIndices are the ten ImageNet-1k classes of the ICSE 2022 requirements
// study's car / not-car task (ambulance, station wagon, cab, convertible,
// jeep, limousine, minivan, Model T, race car, sports car), with their
// WordNet IDs.
var carIndices = [...]struct {
	index int
	wnid  string
}{
	{407, "n02701002"}, {436, "n02814533"}, {468, "n02930766"}, {511, "n03100240"}, {609, "n03594945"},
	{627, "n03670208"}, {656, "n03770679"}, {661, "n03777568"}, {751, "n04037443"}, {817, "n04285008"},
}

// IsCar reports whether ImageNet-1k class index is one of the ten car
// classes of the car / not-car task: 407 ambulance, 436 station wagon,
// 468 cab, 511 convertible, 609 jeep, 627 limousine, 656 minivan,
// 661 Model T, 751 race car, 817 sports car.
func IsCar(index int) bool {
	for _, c := range carIndices {
		if c.index == index {
			return true
		}
	}
	return false
}

// CarIndices returns the ten ImageNet-1k indices IsCar accepts, ascending.
func CarIndices() []int {
	out := make([]int, len(carIndices))
	for i, c := range carIndices {
		out[i] = c.index
	}
	return out
}

// IsCarWNID reports whether an ImageNet WordNet ID is one of the car
// classes of IsCar.
func IsCarWNID(wnid string) bool {
	for _, c := range carIndices {
		if c.wnid == wnid {
			return true
		}
	}
	return false
}

// IsCIFAR10Car reports whether a CIFAR-10 class index is a car in the car /
// not-car task: 1 automobile or 9 truck.
func IsCIFAR10Car(index int) bool { return index == 1 || index == 9 }
