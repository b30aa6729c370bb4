// Command train regenerates internal/demo/weights.json, the embedded weights of the
// demonstration model of 'vcr demo', from the procedurally generated demo
// images (demo.DefaultTrain). Run it from the repository root:
//
//	go run ./internal/demo/cmd/train [-out internal/demo/weights.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/vcr-bench/vcr/internal/demo"
)

func main() {
	out := flag.String("out", "internal/demo/weights.json", "weights `file` to write")
	flag.Parse()
	w := demo.Train(demo.DefaultTrain)
	b, err := json.MarshalIndent(w, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
	held := demo.TrainConfig{N: 1000, Size: demo.DefaultTrain.Size, Seed: 99}
	fmt.Printf("wrote %s; training accuracy %.3f, held-out accuracy %.3f (%d images, seed %d)\n",
		*out, demo.Accuracy(demo.New(w), demo.DefaultTrain), demo.Accuracy(demo.New(w), held), held.N, held.Seed)
}
