package corrupt_test

import (
	"fmt"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
)

// ExampleNewFrost builds a frost corruption from user textures (here one
// flat bluish-white texture; the CLI loads ImageNet-C's files with
// --frost-textures) and applies ImageNet-C severity 3: out = 0.7·x + 0.7·F.
func ExampleNewFrost() {
	tex := imageio.New(300, 200)
	for c, v := range []float32{0.8, 0.85, 0.9} {
		for i := range tex.Ch[c] {
			tex.Ch[c][i] = v
		}
	}
	frost, err := corrupt.NewFrost([]*imageio.Image{tex})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := imageio.New(4, 4) // black
	dst := imageio.New(4, 4)
	frost.Apply(dst, src, frost.Severities[2], corrupt.NewRand(1, 0))
	fmt.Println(frost.Name, frost.ParamNames())
	fmt.Printf("%.2f %.3f %.2f\n", dst.Ch[0][0], dst.Ch[1][0], dst.Ch[2][0])
	// Output:
	// frost [scale constant]
	// 0.56 0.595 0.63
}
