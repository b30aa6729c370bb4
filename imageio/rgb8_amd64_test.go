//go:build amd64 && !purego

package imageio

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTo8RGBVector checks the assembly conversion against To8 on
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
		m := New(n, 1)
		for c := range m.Ch {
			for i := range m.Ch[c] {
				m.Ch[c][i] = sample()
			}
		}
		for _, r := range []Rounding{Round, Truncate} {
			got := make([]byte, 3*n+8)
			for i := range got {
				got[i] = 0xAA
			}
			toRGB8(got[:3*n], m, r)
			want := make([]byte, 3*n)
			for i := range n {
				for c := range 3 {
					want[3*i+c] = To8(m.Ch[c][i], r)
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

// TestTo8RGBLumaVector checks toRGB8Luma's assembly: its bytes against
// To8 and its grey levels against Image.Luma (rounded
// samples) or OpenCV's fixed-point formula on the truncated bytes, on the
// samples of TestTo8RGBVector's kinds for every length around the 4-pixel
// groups, and that it writes nothing past 3·pixels bytes and pixels grey
// levels.
func TestTo8RGBLumaVector(t *testing.T) {
	if !to8Vector {
		t.Skip("no AVX: the pure-Go conversion is in use")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		0, float32(math.Copysign(0, -1)), 1, math.Nextafter32(1, 2), -0.3, 1.7, 254.5 / 255}
	sample := func() float32 {
		k := float32(rng.IntN(256))
		switch rng.IntN(5) {
		case 0:
			return k / 255
		case 1:
			return math.Nextafter32((k+0.5)/255, float32(rng.IntN(3)-1))
		case 2:
			return special[rng.IntN(len(special))]
		default:
			return float32(rng.Float64()*1.2 - 0.1)
		}
	}
	for n := 0; n <= 41; n++ {
		for rep := range 20 {
			m := New(n, 1)
			for c := range m.Ch {
				for i := range m.Ch[c] {
					m.Ch[c][i] = sample()
				}
			}
			if rep == 0 { // the extremes of the weighted sum
				for c := range m.Ch {
					for i := range m.Ch[c] {
						m.Ch[c][i] = float32(i % 2)
					}
				}
			}
			for _, r := range []Rounding{Round, Truncate} {
				got := bytes.Repeat([]byte{0xAA}, 3*n+8)
				grey := make([]float64, n+4)
				for i := range grey {
					grey[i] = -1
				}
				toRGB8Luma(got[:3*n], grey[:n], m, r)
				want := make([]float64, n)
				if r == Round {
					m.Luma(want)
				}
				for i := range n {
					var px [3]uint32
					for c := range 3 {
						b := To8(m.Ch[c][i], r)
						if got[3*i+c] != b {
							t.Fatalf("n = %d, rounding %v: byte %d = %d, want %d", n, r, 3*i+c, got[3*i+c], b)
						}
						px[c] = uint32(b)
					}
					if r == Truncate {
						want[i] = float64((9798*px[0] + 19235*px[1] + 3735*px[2] + 16384) >> 15)
					}
					if grey[i] != want[i] {
						t.Fatalf("n = %d, rounding %v: grey %d = %v, want %v", n, r, i, grey[i], want[i])
					}
				}
				for i := 3 * n; i < len(got); i++ {
					if got[i] != 0xAA {
						t.Fatalf("n = %d: byte %d past the end was written", n, i)
					}
				}
				for i := n; i < len(grey); i++ {
					if grey[i] != -1 {
						t.Fatalf("n = %d: grey level %d past the end was written", n, i)
					}
				}
			}
		}
	}
}
