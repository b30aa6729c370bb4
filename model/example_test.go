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

func ExampleImageNet16Mapping() {
	m := model.ImageNet16Mapping(false)
	scores := make([]float32, 1000)
	scores[1] = 3 // goldfish: the 1000-way arg-max, in no category
	for i := 281; i <= 286; i++ {
		scores[i] = 2.9 // the six cat classes
	}
	c, conf := m.Map(scores)
	fmt.Printf("%s %.4f\n", m.Classes()[c], conf)
	_, err := model.LabelToTask(m, 1, "")
	fmt.Println(err)
	// Output:
	// cat 0.0162
	// label is outside the task's classes
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
