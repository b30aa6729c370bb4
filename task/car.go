package task

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/dataset"
)

// Car and NotCar are the class indices of the car task's classes
// ("car", "not car", the answers of the ICSE 2022 human study).
const (
	Car    = 0
	NotCar = 1
)

// CarClasses are the car task's class names, in class-index order.
var CarClasses = []string{"car", "not car"}

// carNames are the label names that are cars besides the WordNet IDs of
// dataset.IsCarWNID: the car task's own class, and CIFAR-10's automobile
// and truck (dataset.IsCIFAR10Car).
var carNames = []string{"car", "automobile", "truck"}

// CarTruth is the car / not-car rule of the ICSE 2022 requirements study
// ("If a Human Can See It, So Should Your System",
// carolineeeeeee/automating_requirements, checking/src/evaluate.py) for a
// dataset label given by index (−1 if unknown) and name ("" if unknown):
// the image is a car when its class is in the car set and not a car
// otherwise, so every labelled image is in the task. By name first:
//
//   - an ImageNet WordNet ID is a car when it is one of the ten car classes
//     (dataset.IsCarWNID);
//   - "car", CIFAR-10's "automobile" and "truck" (case-insensitive) are
//     cars, as is the task's own class name; "not car" (or "not_car",
//     "not-car") is not;
//   - any other name (a class folder such as "cat", a CIFAR-10 class) is
//     not a car.
//
// Without a name, the index is a CIFAR-10 class index
// (dataset.IsCIFAR10Car) when kind is dataset.KindCIFAR10 and an
// ImageNet-1k class index (dataset.IsCar) otherwise; an index out of range
// is an error. Without either the image is outside the task.
func CarTruth(kind string, index int, name string) (class int, err error) {
	if name != "" {
		n := strings.ToLower(strings.TrimSpace(name))
		switch {
		case dataset.IsWNID(n):
			if dataset.IsCarWNID(n) {
				return Car, nil
			}
			return NotCar, nil
		case slices.Contains(carNames, n):
			return Car, nil
		}
		return NotCar, nil
	}
	switch {
	case index < 0:
		return -1, fmt.Errorf("%w: the image has no label", ErrOutsideTask)
	case kind == dataset.KindCIFAR10 && index < len(dataset.CIFAR10Classes):
		if dataset.IsCIFAR10Car(index) {
			return Car, nil
		}
		return NotCar, nil
	case kind != dataset.KindCIFAR10 && index < 1000:
		if dataset.IsCar(index) {
			return Car, nil
		}
		return NotCar, nil
	}
	return -1, fmt.Errorf("task: label index %d is not a class index of %s", index, carSpace(kind))
}

func carSpace(kind string) string {
	if kind == dataset.KindCIFAR10 {
		return "CIFAR-10 (0…9)"
	}
	return "ImageNet-1k (0…999)"
}

// car is the binary car / not-car task.
type car struct {
	kind          string // dataset.KindImageNetVal or dataset.KindCIFAR10: the model's label space
	outputs       int
	isCar         func(int) bool
	probabilities bool
}

// CarMapping returns the car / not-car mapping of the ICSE 2022
// requirements study (see CarTruth) for a model trained on kind,
// dataset.KindImageNetVal (1000 ImageNet-1k outputs; cars are the ten
// classes of dataset.IsCar) or dataset.KindCIFAR10 (10 outputs; cars are
// automobile and truck, dataset.IsCIFAR10Car). As the study does, the
// model's prediction is the arg-max of its scores and the image is
// predicted "car" when that class is in the car set, else "not car". The
// confidence is the arg-max class's probability (softmax of the logits
// unless probabilities is set).
//
// Its name is "car" and its classes are CarClasses. Ground truth
// (TaskLabel) is CarTruth, with label indices read in kind's label space.
// It panics for another kind.
func CarMapping(kind string, probabilities bool) Mapping {
	switch kind {
	case dataset.KindImageNetVal:
		return &car{kind: kind, outputs: 1000, isCar: dataset.IsCar, probabilities: probabilities}
	case dataset.KindCIFAR10:
		return &car{kind: kind, outputs: 10, isCar: dataset.IsCIFAR10Car, probabilities: probabilities}
	}
	panic(fmt.Sprintf("task: CarMapping of kind %q", kind))
}

func (m *car) Name() string      { return NameCar }
func (m *car) Classes() []string { return CarClasses }
func (m *car) Outputs() int      { return m.outputs }

func (m *car) Map(s []float32) (int, float32) {
	s = s[:m.outputs]
	i := argmax(s)
	c, _ := m.MapIndex(i)
	return c, topProb(s, i, m.probabilities)
}

func (m *car) MapIndex(i int) (int, bool) {
	if i < 0 || i >= m.outputs {
		return -1, false
	}
	if m.isCar(i) {
		return Car, true
	}
	return NotCar, true
}

func (m *car) TaskLabel(index int, name string) (int, error) { return CarTruth(m.kind, index, name) }
