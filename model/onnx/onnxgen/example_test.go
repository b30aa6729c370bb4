package onnxgen_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
)

func ExampleNew() {
	n, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Conv, Classes: 1000, Height: 224, Width: 224, Softmax: true, Seed: 1})
	if err != nil {
		panic(err)
	}
	// n.WriteFile("tiny.onnx") writes the model; n.Forward computes its
	// output in Go.
	x := make([]float32, 3*224*224)
	probs := n.Forward(x, 224, 224)
	fmt.Println(n.InputShape(), n.OutputName(), len(probs), len(n.ConvW), len(n.GemmW))
	// Output: [-1 3 224 224] probs 1000 108 4000
}
