package task

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/dataset"
)

// A Mapping turns a model's score vector into a class of the task the test
// set is scored on (the model's own classes, Geirhos et al.'s 16
// categories, car / not car, or a user's classes). Implementations are
// immutable and safe for concurrent use.
type Mapping interface {
	// Name is the task's name: one of Names, or MappingPrefix and the
	// mapping file's base name ("mapping:my-classes.csv").
	Name() string
	// Classes returns the task's class names; Map returns indices into it.
	// The caller must not modify it.
	Classes() []string
	// Map returns the task class of one score vector and the confidence of
	// that decision (see each mapping). It panics if scores is shorter than
	// the mapping needs (see CheckOutputs).
	Map(scores []float32) (class int, conf float32)
}

// TaskLabeler is implemented by mappings that know how a dataset's labels
// map into their task classes; see LabelToTask.
type TaskLabeler interface {
	// TaskLabel returns the task class of a dataset label given by index
	// (−1 if unknown) and name ("" if unknown).
	TaskLabel(index int, name string) (class int, err error)
}

// IndexMapper is implemented by mappings that can map a single predicted
// model class (a hard prediction without scores, as in a predictions file)
// to a task class; see MapIndex.
type IndexMapper interface {
	// MapIndex returns the task class of model output index i, and false
	// when it has none.
	MapIndex(i int) (class int, ok bool)
}

// Outputser is implemented by mappings that need a fixed number of model
// outputs; see CheckOutputs.
type Outputser interface {
	// Outputs is the number of scores Map needs; 0 means any.
	Outputs() int
}

func unknownLabel(m Mapping, index int, name string) error {
	return fmt.Errorf("task: label %s is not a class of mapping %q (%d classes)", describeLabel(index, name), m.Name(), len(m.Classes()))
}

func describeLabel(index int, name string) string {
	switch {
	case name != "" && index >= 0:
		return fmt.Sprintf("%q (index %d)", name, index)
	case name != "":
		return strconv.Quote(name)
	case index >= 0:
		return fmt.Sprintf("index %d", index)
	}
	return "(none)"
}

// MapIndex maps a hard prediction, model output index i, to a task class.
// It returns false when the mapping has no class for i (a 16-class
// prediction of one of the 793 other ImageNet classes) or cannot map single
// indices; such a prediction matches no ground truth.
func MapIndex(m Mapping, i int) (class int, ok bool) {
	if im, ok := m.(IndexMapper); ok {
		return im.MapIndex(i)
	}
	return -1, false
}

// CheckOutputs returns an error when a model with the given number of
// outputs cannot be used with mapping m.
func CheckOutputs(m Mapping, outputs int) error {
	if g, ok := m.(*groups); ok && g.label == nil && outputs > 0 && outputs < g.need() {
		return fmt.Errorf("task: label mapping %q maps model output %d, but the model has only %d outputs", m.Name(), g.need()-1, outputs)
	}
	o, ok := m.(Outputser)
	if !ok || o.Outputs() == 0 || outputs <= 0 {
		return nil
	}
	if n := o.Outputs(); n != outputs {
		return fmt.Errorf("task: label mapping %q needs a model with %d outputs, but the model has %d; use a mapping for this model's classes (--task identity or a mapping file)", m.Name(), n, outputs)
	}
	return nil
}

// softmaxStats returns the maximum of s and Σ exp(s_i − max), in float64,
// so that softmax(s)_i = exp(s_i − max) / sum without storing it.
func softmaxStats(s []float32) (maxv, sum float64) {
	maxv = math.Inf(-1)
	for _, v := range s {
		if float64(v) > maxv {
			maxv = float64(v)
		}
	}
	for _, v := range s {
		sum += math.Exp(float64(v) - maxv)
	}
	return maxv, sum
}

// argmax returns the index of the largest score (the first on ties; NaNs
// never win) or 0 when there is none.
func argmax(s []float32) int {
	best, bi := float32(math.Inf(-1)), 0
	for i, v := range s {
		if v > best {
			best, bi = v, i
		}
	}
	return bi
}

// topProb returns the probability of class i: s[i] when s holds
// probabilities, its softmax otherwise.
func topProb(s []float32, i int, probabilities bool) float32 {
	if probabilities {
		return s[i]
	}
	maxv, sum := softmaxStats(s)
	return float32(math.Exp(float64(s[i])-maxv) / sum)
}

// identity maps a model's outputs to themselves.
type identity struct {
	name          string
	names         []string
	named         bool
	probabilities bool
}

// NewIdentity returns the mapping of a model with the given number of
// outputs onto its own classes: the class is the arg-max of the scores,
// the confidence its probability (the softmax of the logits, or the score
// itself when probabilities is set). names, if given, names the outputs
// (len(names) must equal outputs when both are given); otherwise the
// classes are called "0", "1", …. Ground-truth labels (TaskLabel) are
// matched by name when the outputs are named and the label has a name
// (a name that is no output is an error), else by index.
func NewIdentity(outputs int, names []string, probabilities bool) (Mapping, error) {
	if names != nil && outputs > 0 && len(names) != outputs {
		return nil, fmt.Errorf("task: the class list names %d classes but the model has %d outputs", len(names), outputs)
	}
	m := &identity{name: NameIdentity, names: slices.Clone(names), named: names != nil, probabilities: probabilities}
	if names == nil {
		if outputs <= 0 {
			return nil, errors.New("task: the identity mapping needs the number of model outputs or a class list")
		}
		m.names = make([]string, outputs)
		for i := range m.names {
			m.names[i] = strconv.Itoa(i)
		}
	}
	return m, nil
}

func (m *identity) Name() string      { return m.name }
func (m *identity) Classes() []string { return m.names }
func (m *identity) Outputs() int      { return len(m.names) }

func (m *identity) Map(s []float32) (int, float32) {
	s = s[:len(m.names)]
	i := argmax(s)
	return i, topProb(s, i, m.probabilities)
}

func (m *identity) MapIndex(i int) (int, bool) { return i, i >= 0 && i < len(m.names) }

func (m *identity) TaskLabel(index int, name string) (int, error) {
	if m.named && name != "" {
		if i := slices.Index(m.names, name); i >= 0 {
			return i, nil
		}
		return -1, unknownLabel(m, index, name)
	}
	if index >= 0 && index < len(m.names) {
		return index, nil
	}
	return -1, unknownLabel(m, index, name)
}

// groups maps model outputs to task classes by averaging the probabilities
// of each class's member outputs (Geirhos et al., 2018).
type groups struct {
	name          string
	classes       []string
	members       [][]int // members[c]: the model outputs of class c, ascending
	classOf       []int   // classOf[i]: the class of output i, or −1
	probabilities bool
	// label resolves a ground-truth label, for the built-in 16-class
	// mapping; nil for mapping files.
	label func(index int, name string) (int, error)
}

// ImageNet16Mapping returns Geirhos et al.'s ImageNet → 16-class decision
// mapping ("Generalisation in humans and deep neural networks", NeurIPS
// 2018; bethgelab/model-vs-human): the 1000 logits become softmax
// probabilities (unless probabilities says the scores already are), each
// of the 16 categories scores the arithmetic mean of its member classes'
// probabilities, and the class is the arg-max over the 16 means (the first
// category on ties). The confidence is the winning mean. The categories are
// dataset.ImageNet16Categories (alphabetical).
//
// A hard prediction (MapIndex) maps to its category when it is one of the
// 207 member classes and to none otherwise, as the VCR toolbox's notebooks
// map a 1000-way arg-max. Ground truth (TaskLabel): a WordNet ID or an
// ImageNet-1k index maps to its category, or to ErrOutsideTask when it is
// none of the 207 classes; a label named after one of the 16 categories
// (a 16-class image folder) is that category.
func ImageNet16Mapping(probabilities bool) Mapping {
	cats := dataset.ImageNet16Categories()
	g := &groups{name: NameImageNet16, classes: cats, members: make([][]int, len(cats)), classOf: make([]int, 1000), probabilities: probabilities}
	for i := range g.classOf {
		g.classOf[i] = -1
	}
	for c, name := range cats {
		g.members[c] = dataset.ImageNet16Indices(name)
		for _, i := range g.members[c] {
			g.classOf[i] = c
		}
	}
	g.label = func(index int, name string) (int, error) {
		if name != "" {
			if dataset.IsWNID(name) {
				cat, ok := dataset.ImageNet16OfWNID(name)
				if !ok {
					return -1, ErrOutsideTask
				}
				return slices.Index(g.classes, cat), nil
			}
			if c := slices.Index(g.classes, name); c >= 0 {
				return c, nil
			}
			return -1, fmt.Errorf("%w: label %s is neither an ImageNet WordNet ID nor one of the 16 categories (%s)", ErrOutsideTask, describeLabel(index, name), strings.Join(g.classes, ", "))
		}
		if index >= 0 && index < 1000 {
			if c := g.classOf[index]; c >= 0 {
				return c, nil
			}
			return -1, ErrOutsideTask
		}
		return -1, fmt.Errorf("task: label %s is not an ImageNet-1k class index (0…999)", describeLabel(index, name))
	}
	return g
}

func (g *groups) Name() string      { return g.name }
func (g *groups) Classes() []string { return g.classes }
func (g *groups) Outputs() int {
	if g.label != nil {
		return len(g.classOf)
	}
	return 0
}

// need is the number of scores Map reads.
func (g *groups) need() int { return len(g.classOf) }

func (g *groups) Map(s []float32) (int, float32) {
	if len(s) < g.need() {
		panic(fmt.Sprintf("task: mapping %q needs %d scores, got %d", g.name, g.need(), len(s)))
	}
	maxv, sum := 0.0, 1.0
	if !g.probabilities {
		maxv, sum = softmaxStats(s)
	}
	best, bc := math.Inf(-1), 0
	for c, mem := range g.members {
		var acc float64
		for _, i := range mem {
			if g.probabilities {
				acc += float64(s[i])
			} else {
				acc += math.Exp(float64(s[i]) - maxv)
			}
		}
		if mean := acc / sum / float64(len(mem)); mean > best {
			best, bc = mean, c
		}
	}
	return bc, float32(best)
}

func (g *groups) MapIndex(i int) (int, bool) {
	if i < 0 || i >= len(g.classOf) || g.classOf[i] < 0 {
		return -1, false
	}
	return g.classOf[i], true
}

func (g *groups) TaskLabel(index int, name string) (int, error) {
	if g.label != nil {
		return g.label(index, name)
	}
	// A mapping file: a task class by name, else the model output index.
	if name != "" {
		if c := slices.Index(g.classes, name); c >= 0 {
			return c, nil
		}
	}
	if index >= 0 {
		if c, ok := g.MapIndex(index); ok {
			return c, nil
		}
		return -1, ErrOutsideTask
	}
	return -1, unknownLabel(g, index, name)
}

// LoadMappingFile reads a user mapping from model outputs to task classes
// (see ParseMapping); the format follows the extension: .json is JSON,
// anything else CSV.
func LoadMappingFile(path string, probabilities bool) (Mapping, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("task: label mapping: %w", err)
	}
	format := "csv"
	if strings.EqualFold(filepath.Ext(path), ".json") {
		format = "json"
	}
	return ParseMapping(data, path, format, probabilities)
}

// ParseMapping parses a user mapping from model outputs to task classes;
// name names the input in errors and becomes the mapping's Name (its base
// name without extension). Formats:
//
//   - "csv": rows "model_index,class_name", with an optional header row;
//     the classes are numbered in order of first appearance.
//   - "json": {"classes": ["cat", "dog"], "outputs": {"cat": [281, 282],
//     "dog": [151]}}, where "classes" (optional; default: the class names
//     sorted) fixes the order; the file format of Geirhos et al.'s mapping,
//     {"categories": […], "category_to_imagenet_indices": {…}}, is read too.
//
// Model outputs not listed belong to no class. An output listed twice, a
// negative index, or a class without outputs is an error naming the line or
// class. Map aggregates as ImageNet16Mapping does: the mean of the member
// outputs' probabilities (softmax of all outputs unless probabilities is
// set), arg-max over the classes; it needs as many scores as the largest
// listed index + 1. Ground truth (TaskLabel): a label whose name is a task
// class is that class; otherwise its index is taken as a model output
// index and mapped through the file (ErrOutsideTask when not listed).
func ParseMapping(data []byte, name, format string, probabilities bool) (Mapping, error) {
	g := &groups{name: MappingPrefix + filepath.Base(name), probabilities: probabilities}
	classIdx := map[string]int{}
	classOf := map[int]int{}
	lineOf := map[int]string{}
	add := func(out int, class, where string) error {
		if out < 0 {
			return fmt.Errorf("task: label mapping %s: %s: model output index %d is negative", name, where, out)
		}
		if out >= 1<<20 {
			return fmt.Errorf("task: label mapping %s: %s: model output index %d is implausibly large", name, where, out)
		}
		if class == "" {
			return fmt.Errorf("task: label mapping %s: %s: empty class name", name, where)
		}
		if prev, dup := lineOf[out]; dup {
			return fmt.Errorf("task: label mapping %s: %s: model output %d is already mapped (%s)", name, where, out, prev)
		}
		lineOf[out] = where
		c, ok := classIdx[class]
		if !ok {
			c = len(g.classes)
			classIdx[class] = c
			g.classes = append(g.classes, class)
			g.members = append(g.members, nil)
		}
		classOf[out] = c
		g.members[c] = append(g.members[c], out)
		return nil
	}
	switch format {
	case "csv":
		r := csv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		r.Comment = '#'
		for row := 0; ; row++ {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("task: label mapping %s: %w", name, err)
			}
			line, _ := r.FieldPos(0)
			where := fmt.Sprintf("line %d", line)
			if row == 0 && len(rec) > 0 {
				rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
			}
			if len(rec) != 2 {
				return nil, fmt.Errorf("task: label mapping %s: %s: want 2 columns model_index,class_name, got %d", name, where, len(rec))
			}
			idx, err := strconv.Atoi(strings.TrimSpace(rec[0]))
			if err != nil {
				if row == 0 { // a header
					continue
				}
				return nil, fmt.Errorf("task: label mapping %s: %s, column 1: model_index %q is not an integer", name, where, rec[0])
			}
			if err := add(idx, strings.TrimSpace(rec[1]), where); err != nil {
				return nil, err
			}
		}
	case "json":
		var f struct {
			Classes    []string         `json:"classes"`
			Outputs    map[string][]int `json:"outputs"`
			Categories []string         `json:"categories"`
			Geirhos    map[string][]int `json:"category_to_imagenet_indices"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("task: label mapping %s: %w", name, jsonError(data, err))
		}
		order, outs := f.Classes, f.Outputs
		if outs == nil {
			order, outs = f.Categories, f.Geirhos
		}
		if outs == nil {
			return nil, fmt.Errorf("task: label mapping %s: no \"outputs\" object mapping class names to model output indices", name)
		}
		if order == nil {
			for c := range outs {
				order = append(order, c)
			}
			slices.Sort(order)
		}
		for _, c := range order {
			if _, ok := outs[c]; !ok {
				return nil, fmt.Errorf("task: label mapping %s: class %q has no outputs", name, c)
			}
			if _, dup := classIdx[c]; dup {
				return nil, fmt.Errorf("task: label mapping %s: class %q is listed twice", name, c)
			}
			for _, i := range outs[c] {
				if err := add(i, c, fmt.Sprintf("class %q", c)); err != nil {
					return nil, err
				}
			}
		}
		if len(order) != len(outs) {
			for c := range outs {
				if !slices.Contains(order, c) {
					return nil, fmt.Errorf("task: label mapping %s: class %q has outputs but is not in the class list", name, c)
				}
			}
		}
	default:
		return nil, fmt.Errorf("task: label mapping %s: unknown format %q (csv or json)", name, format)
	}
	if len(g.classes) == 0 {
		return nil, fmt.Errorf("task: label mapping %s maps no model outputs", name)
	}
	for c, mem := range g.members {
		if len(mem) == 0 {
			return nil, fmt.Errorf("task: label mapping %s: class %q has no outputs", name, g.classes[c])
		}
		slices.Sort(mem)
	}
	n := 0
	for i := range classOf {
		n = max(n, i+1)
	}
	g.classOf = make([]int, n)
	for i := range g.classOf {
		g.classOf[i] = -1
	}
	for i, c := range classOf {
		g.classOf[i] = c
	}
	return g, nil
}

// jsonError names the line of a JSON syntax error.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("line %d: %v", 1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")), syn)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("field %q must be a JSON %s (got %s)", typ.Field, typ.Type, typ.Value)
	}
	return err
}
