package task_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/task"
)

func ExampleImageNet16Mapping() {
	m := task.ImageNet16Mapping(false)
	scores := make([]float32, 1000)
	scores[1] = 3 // goldfish: the 1000-way arg-max, in no category
	for i := 281; i <= 286; i++ {
		scores[i] = 2.9 // the six cat classes
	}
	c, conf := m.Map(scores)
	fmt.Printf("%s %.4f\n", m.Classes()[c], conf)
	_, err := task.Truth(m, 1, "")
	fmt.Println(err)
	// Output:
	// cat 0.0162
	// label is outside the task's classes
}

func ExampleCarTruth() {
	for _, label := range []string{"n04285008", "n01440764", "automobile", "truck", "cat", "car"} {
		c, _ := task.CarTruth("", -1, label)
		fmt.Printf("%s: %s\n", label, task.CarClasses[c])
	}
	// Output:
	// n04285008: car
	// n01440764: not car
	// automobile: car
	// truck: car
	// cat: not car
	// car: car
}

func ExampleNew() {
	m, err := task.New(task.Spec{Name: "car", Outputs: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	scores := make([]float32, 10)
	scores[9] = 4 // truck: a CIFAR-10 car class
	c, _ := m.Map(scores)
	gt, _ := task.Truth(m, -1, "automobile")
	fmt.Println(m.Name(), m.Classes(), m.Classes()[c], m.Classes()[gt])
	// Output:
	// car [car not car] car car
}
