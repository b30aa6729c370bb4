//go:build amd64 && !purego

package testset

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
)

// TestTo8RGBVector checks the assembly conversion against imageio.To8 on
// random samples, the exact 8-bit levels and their float32 neighbours, the
// rounding boundaries (k ± ½)/255 and special values (NaN, ±Inf, −0, values
// out of [0, 1]), for every length around the 4-pixel groups, and that it
// never writes past 3·pixels bytes.
func TestTo8RGBVector(t *testing.T) {
	if !to8Vector {
		t.Skip("no AVX: the pure-Go conversion is in use")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		0, float32(math.Copysign(0, -1)), 1, math.Nextafter32(1, 2), -0.3, 1.7, 1e-9, 254.5 / 255}
	sample := func() float32 {
		k := float32(rng.IntN(256))
		switch rng.IntN(6) {
		case 0:
			return k / 255
		case 1:
			return math.Nextafter32(k/255, float32(rng.IntN(3)-1))
		case 2:
			return math.Nextafter32((k+0.5)/255, float32(rng.IntN(3)-1))
		case 3:
			return special[rng.IntN(len(special))]
		default:
			return float32(rng.Float64()*1.2 - 0.1)
		}
	}
	for n := 0; n <= 41; n++ {
		m := imageio.New(n, 1)
		for c := range m.Ch {
			for i := range m.Ch[c] {
				m.Ch[c][i] = sample()
			}
		}
		for _, r := range []imageio.Rounding{imageio.Round, imageio.Truncate} {
			got := make([]byte, 3*n+8)
			for i := range got {
				got[i] = 0xAA
			}
			to8RGB(got[:3*n], m, r)
			want := make([]byte, 3*n)
			for i := range n {
				for c := range 3 {
					want[3*i+c] = imageio.To8(m.Ch[c][i], r)
				}
			}
			if !bytes.Equal(got[:3*n], want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("n = %d, rounding %v: byte %d = %d, want %d (sample %v)", n, r, i, got[i], want[i], m.Ch[i%3][i/3])
					}
				}
			}
			for i := 3 * n; i < len(got); i++ {
				if got[i] != 0xAA {
					t.Fatalf("n = %d: byte %d past the end was written", n, i)
				}
			}
		}
	}
}
