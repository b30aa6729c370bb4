package corrupt

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

func TestSnowWithoutFlakesIsTheWhitening(t *testing.T) {
	// loc = scale = 0: the field is 0 everywhere, so the output is
	// mix·u + (1 − mix)·max(u, 1.5·grey + 0.5) with grey = 0.299R + 0.587G + 0.114B
	// (ImageNet-C snow, corruptions.md §2.22).
	src := testimg.Natural(30, 20, 1)
	c, _ := Lookup("snow")
	const mix = 0.7
	got := apply(c, src, []float64{0, 0, 2, 0.5, 10, 5, mix}, 1, 0)
	for i := range src.Ch[0] {
		r, g, b := float64(src.Ch[0][i]), float64(src.Ch[1][i]), float64(src.Ch[2][i])
		white := 1.5*(0.299*r+0.587*g+0.114*b) + 0.5
		for ch, u := range []float64{r, g, b} {
			want := math.Min(1, mix*u+(1-mix)*math.Max(u, white))
			if d := math.Abs(float64(got.Ch[ch][i]) - want); d > 1e-6 {
				t.Fatalf("sample %d ch %d: got %v, want %v", i, ch, got.Ch[ch][i], want)
			}
		}
	}
}

func TestSnowLayerIsRotationSymmetric(t *testing.T) {
	// On a black image with mix = 1 the output is the clipped layer plus its
	// 180° rotation, which is itself symmetric under a 180° rotation.
	src := imageio.New(37, 26)
	c, _ := Lookup("snow")
	for _, zoom := range []float64{0.2, 0.7, 1, 3} {
		got := apply(c, src, []float64{0.4, 0.3, zoom, 0.6, 12, 8, 1}, 5, 1)
		n := len(got.Ch[0])
		lit := 0
		for i, v := range got.Ch[0] {
			if v != got.Ch[0][n-1-i] || v != got.Ch[1][i] {
				t.Fatalf("zoom %v: not symmetric at %d", zoom, i)
			}
			if v > 0 {
				lit++
			}
		}
		if lit == 0 {
			t.Errorf("zoom %v: no snow at all", zoom)
		}
	}
}
