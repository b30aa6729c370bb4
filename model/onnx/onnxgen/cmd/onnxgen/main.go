// Command onnxgen writes a small ONNX image classifier with pseudo-random
// weights (see package onnxgen), for trying `vcr eval` without downloading
// a model:
//
//	go run ./model/onnx/onnxgen/cmd/onnxgen -arch conv -classes 1000 -size 224 -o tiny.onnx
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("onnxgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	arch := fs.String("arch", "conv", "architecture: linear (GlobalAveragePool → Gemm) or conv (Conv 3×3 → Relu → GlobalAveragePool → Gemm)")
	classes := fs.Int("classes", 1000, "number of outputs")
	size := fs.Int("size", 224, "input height and width; 0 for dynamic")
	batch := fs.Int("batch", 0, "batch dimension; 0 for dynamic")
	layout := fs.String("layout", "NCHW", "input layout: NCHW or NHWC")
	filters := fs.Int("filters", 4, "convolution filters (conv)")
	softmax := fs.Bool("softmax", false, "end in a Softmax (probabilities instead of logits)")
	seed := fs.Uint64("seed", 1, "weights seed")
	out := fs.String("o", "", "output file (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "onnxgen: -o FILE is required, e.g. -o tiny.onnx")
		return 2
	}
	n, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Arch(*arch), Classes: *classes, Height: *size, Width: *size,
		Batch: *batch, Layout: model.Layout(*layout), Filters: *filters, Softmax: *softmax, Seed: *seed})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err := n.WriteFile(*out); err != nil {
		fmt.Fprintln(stderr, "onnxgen:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %s, input %q %v (%s), output %q (%d classes), seed %d\n",
		*out, *arch, onnxgen.InputName, n.InputShape(), n.Spec.Layout, n.OutputName(), *classes, *seed)
	return 0
}
