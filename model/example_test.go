package model_test

import (
	"fmt"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/model"
)

func ExamplePreset() {
	p, _ := model.Preset("imagenet")
	t, _ := p.Apply(imageio.New(500, 375))
	fmt.Println(t.Shape, t.Data[0]) // a black pixel: (0 − 0.485) / 0.229
	fmt.Println(p.Validate(model.Info{Name: "resnet20", Layout: model.NCHW, Channels: 3, Height: 32, Width: 32}))
	// Output:
	// [3 224 224] -2.117904
	// model: preprocessing gives 1×3×224×224 (NCHW) but resnet20 takes 1×3×32×32 (NCHW) (size differs); choose a preset or config whose layout and input size match the model
}

func ExampleParsePredictions() {
	csv := "id,path,source,kind,pred,confidence\n" +
		"0,images/gaussian_noise/000000.png,n01/a.JPEG,,dog,0.8\n" +
		",,n01/a.JPEG,clean,cat,0.9\n"
	p, err := model.ParsePredictions(strings.NewReader(csv), "preds.csv", []string{"cat", "dog"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := p.Lookup(0)
	c, _ := p.Clean("n01/a.JPEG")
	fmt.Println(r.Class, r.Confidence, c.Class)
	// Output:
	// 1 0.8 0
}
