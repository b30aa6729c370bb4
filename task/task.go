package task

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/dataset"
)

// Task names: the strings that name a task on the command line, in model
// and experiment configs, and in results files.
const (
	// NameIdentity is the model's (or dataset's) own classes.
	NameIdentity = "identity"
	// NameImageNet1k is the 1000 ImageNet-1k classes of a 1000-output model.
	NameImageNet1k = "imagenet1k"
	// NameImageNet16 is Geirhos et al.'s 16 entry-level categories.
	NameImageNet16 = "imagenet16"
	// NameCar is the binary car / not-car task of the ICSE 2022 study.
	NameCar = "car"
	// NameCIFAR10 is the ten CIFAR-10 classes of a 10-output model.
	NameCIFAR10 = "cifar10"
	// NameCIFAR100 is the 100 fine CIFAR-100 classes of a 100-output model.
	NameCIFAR100 = "cifar100"
	// MappingPrefix starts the name of a task given by a user mapping file:
	// "mapping:" and the file's base name.
	MappingPrefix = "mapping:"
)

// Names lists the built-in task names New accepts, besides a mapping file.
var Names = []string{NameIdentity, NameImageNet1k, NameImageNet16, NameCar, NameCIFAR10, NameCIFAR100}

// aliases are older or more specific spellings New accepts: "imagenet" for
// imagenet1k, and the car task with its model's label space fixed.
var aliases = map[string]string{"imagenet": NameImageNet1k, "imagenet-car": NameCar, "cifar10-car": NameCar}

// IsName reports whether s names a built-in task (or an alias of one), as
// opposed to a mapping file. The empty string is the identity task.
func IsName(s string) bool {
	s = strings.ToLower(s)
	_, alias := aliases[s]
	return s == "" || alias || slices.Contains(Names, s)
}

// ErrOutsideTask reports a ground-truth label that has no class in the
// task, e.g. an ImageNet image of none of the 207 classes of the 16-class
// task, or a row without a label. Such images are excluded from scoring;
// they are not errors.
var ErrOutsideTask = errors.New("label is outside the task's classes")

// Spec says which task to build for which model.
type Spec struct {
	// Name is a task name (Names, or an alias: "imagenet", "imagenet-car",
	// "cifar10-car"), a mapping file path, or MappingPrefix and a mapping
	// file path. "" is NameIdentity.
	Name string
	// Outputs is the model's number of outputs (0 = not known, as for a
	// predictions file without scores).
	Outputs int
	// OutputNames names the model's outputs in order (nil = unnamed).
	OutputNames []string
	// Probabilities says the model's scores are probabilities; otherwise
	// they are logits and mappings apply a softmax first.
	Probabilities bool
	// DatasetKind is the kind of the dataset the images come from
	// (dataset.KindImageNetVal, dataset.KindCIFAR10, …). The car task uses
	// it when Outputs does not tell an ImageNet-1k model from a CIFAR-10
	// one; "" means ImageNet-1k.
	DatasetKind string
}

// New returns the mapping of spec:
//
//   - "" or "identity": the model's own classes (NewIdentity).
//   - "imagenet1k" (alias "imagenet"): identity for a 1000-output model.
//   - "imagenet16": ImageNet16Mapping.
//   - "car": CarMapping for an ImageNet-1k model (1000 outputs) or a
//     CIFAR-10 model (10 outputs); with Outputs unknown, DatasetKind decides.
//     "imagenet-car" and "cifar10-car" fix the model's label space.
//   - "cifar10", "cifar100": identity for a 10- or 100-output model whose
//     outputs are the CIFAR classes in label order (dataset.CIFAR10Classes,
//     dataset.CIFAR100Classes), so labels match by name.
//   - "mapping:FILE" or any other value: a mapping file (LoadMappingFile).
//
// It returns an error when the task does not fit the model's outputs.
func New(spec Spec) (Mapping, error) {
	name := strings.ToLower(spec.Name)
	outputs := spec.Outputs
	var m Mapping
	var err error
	switch name {
	case "", NameIdentity:
		m, err = NewIdentity(outputs, spec.OutputNames, spec.Probabilities)
	case NameImageNet1k, "imagenet":
		if outputs == 0 {
			outputs = 1000
		}
		if outputs != 1000 {
			return nil, fmt.Errorf("task: %s needs a model with 1000 outputs, but the model has %d", NameImageNet1k, outputs)
		}
		m, err = newNamedIdentity(NameImageNet1k, outputs, spec.OutputNames, spec.Probabilities)
	case NameCIFAR10, NameCIFAR100:
		names := dataset.CIFAR10Classes
		if name == NameCIFAR100 {
			names = dataset.CIFAR100Classes
		}
		if outputs != 0 && outputs != len(names) {
			return nil, fmt.Errorf("task: %s needs a model with %d outputs, but the model has %d", name, len(names), outputs)
		}
		m, err = newNamedIdentity(name, len(names), names, spec.Probabilities)
	case NameImageNet16:
		m = ImageNet16Mapping(spec.Probabilities)
	case "imagenet-car":
		m = CarMapping(dataset.KindImageNetVal, spec.Probabilities)
	case "cifar10-car":
		m = CarMapping(dataset.KindCIFAR10, spec.Probabilities)
	case NameCar:
		switch {
		case outputs == 1000, outputs == 0 && spec.DatasetKind != dataset.KindCIFAR10:
			m = CarMapping(dataset.KindImageNetVal, spec.Probabilities)
		case outputs == 10, outputs == 0:
			m = CarMapping(dataset.KindCIFAR10, spec.Probabilities)
		default:
			return nil, fmt.Errorf("task: %s needs an ImageNet-1k model (1000 outputs) or a CIFAR-10 model (10 outputs), but the model has %d; for other models give a mapping file of their outputs to car and not car", NameCar, outputs)
		}
	default:
		m, err = LoadMappingFile(strings.TrimPrefix(spec.Name, MappingPrefix), spec.Probabilities)
		if errors.Is(err, os.ErrNotExist) && !strings.HasPrefix(spec.Name, MappingPrefix) && !strings.ContainsAny(spec.Name, `/\.`) {
			return nil, fmt.Errorf("task: %q is neither a task (%s) nor a mapping file", spec.Name, strings.Join(Names, ", "))
		}
	}
	if err != nil {
		return nil, err
	}
	if err := CheckOutputs(m, outputs); err != nil {
		return nil, err
	}
	return m, nil
}

// Truth returns the task class of a dataset image's ground-truth label,
// given as a test-set manifest records it: the class index in the
// dataset's label space (−1 if unknown) and the class name ("" if
// unknown). It is the one rule both model results (vcr eval) and human
// experiment stimuli (package experiment) take their ground truth from.
//
// A row without a label, or a label that belongs to no task class,
// returns an error wrapping ErrOutsideTask; a label the mapping cannot
// interpret returns another error naming it. Mappings implementing
// TaskLabeler decide (see each mapping's documentation); for others the
// name is looked up in Classes(), then the index is used as a class index.
func Truth(m Mapping, index int, name string) (class int, err error) {
	if index < 0 && name == "" {
		return -1, fmt.Errorf("%w: the image has no label", ErrOutsideTask)
	}
	if t, ok := m.(TaskLabeler); ok {
		return t.TaskLabel(index, name)
	}
	classes := m.Classes()
	if name != "" {
		if i := slices.Index(classes, name); i >= 0 {
			return i, nil
		}
	}
	if index >= 0 && index < len(classes) {
		return index, nil
	}
	return -1, unknownLabel(m, index, name)
}

// newNamedIdentity is NewIdentity under another task name.
func newNamedIdentity(name string, outputs int, names []string, probabilities bool) (Mapping, error) {
	m, err := NewIdentity(outputs, names, probabilities)
	if err != nil {
		return nil, err
	}
	m.(*identity).name = name
	return m, nil
}
