//go:build amd64 && !purego

package jpeg

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestYccToRGBVector checks the assembly colour conversion against
// yccToRGBGo on random rows of every length around the 8-pixel groups, with
// samples near the clamping limits, and that it never writes past
// 3·len(yr) bytes. (TestYccToRGBTables checks every (Y, Cb, Cr) through the
// assembly against libjpeg's tables.)
func TestYccToRGBVector(t *testing.T) {
	if !yccVector {
		t.Skip("no AVX2: the pure-Go conversion is in use")
	}
	rng := rand.New(rand.NewPCG(3, 8))
	sample := func() uint8 {
		switch rng.IntN(4) {
		case 0:
			return uint8(rng.IntN(8))
		case 1:
			return uint8(248 + rng.IntN(8))
		default:
			return uint8(rng.IntN(256))
		}
	}
	for n := 0; n <= 70; n++ {
		for range 20 {
			yr, cb, cr := make([]uint8, n), make([]uint8, n), make([]uint8, n)
			for i := range n {
				yr[i], cb[i], cr[i] = sample(), sample(), sample()
			}
			got := bytes.Repeat([]byte{0xAA}, 3*n+32)
			yccToRGB(got[:3*n], yr, cb, cr)
			want := make([]uint8, 3*n)
			yccToRGBGo(want, yr, cb, cr)
			if !bytes.Equal(got[:3*n], want) {
				t.Fatalf("%d pixels: assembly differs from yccToRGBGo", n)
			}
			for i, v := range got[3*n:] {
				if v != 0xAA {
					t.Fatalf("%d pixels: byte %d past the row written", n, 3*n+i)
				}
			}
		}
	}
}

// TestFancyH2V2Vector checks the assembly upsampling against fancyH2V2Go
// on random rows of every length around the 16-sample groups, with
// extreme samples, and that it never writes past 2·len(near) bytes.
func TestFancyH2V2Vector(t *testing.T) {
	if !yccVector {
		t.Skip("no AVX2: the pure-Go upsampling is in use")
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for n := 2; n <= 90; n++ {
		for it := range 20 {
			near, far := make([]uint8, n), make([]uint8, n)
			for i := range n {
				near[i], far[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
				if it == 0 {
					near[i], far[i] = 255, 255
				}
			}
			got := bytes.Repeat([]byte{0xAA}, 2*n+32)
			fancyH2V2(got[:2*n], near, far)
			want := make([]uint8, 2*n)
			fancyH2V2Go(want, near, far)
			if !bytes.Equal(got[:2*n], want) {
				t.Fatalf("%d samples: assembly differs from fancyH2V2Go", n)
			}
			for i, v := range got[2*n:] {
				if v != 0xAA {
					t.Fatalf("%d samples: byte %d past the row written", n, 2*n+i)
				}
			}
		}
	}
}

// TestRgbToYccVector checks the assembly RGB → YCbCr conversion against
// rgbToYccGo on random rows of every length around the 8-pixel groups,
// with samples near 0 and 255 and all eight corners of the RGB cube, and
// that it never writes past len(src)/3 samples.
func TestRgbToYccVector(t *testing.T) {
	if !yccVector {
		t.Skip("no AVX2: the pure-Go conversion is in use")
	}
	rng := rand.New(rand.NewPCG(13, 2))
	for n := 0; n <= 70; n++ {
		for it := range 20 {
			src := make([]uint8, 3*n)
			for i := range src {
				switch {
				case it < 8: // corner it of the RGB cube
					src[i] = uint8(255 * (it >> (i % 3) & 1))
				case rng.IntN(3) == 0:
					src[i] = uint8(255 * rng.IntN(2))
				default:
					src[i] = uint8(rng.IntN(256))
				}
			}
			var got, want [3][]uint8
			for c := range got {
				got[c] = bytes.Repeat([]byte{0xAA}, n+32)
				want[c] = make([]uint8, n)
			}
			rgbToYcc(got[0][:n], got[1][:n], got[2][:n], src)
			rgbToYccGo(want[0], want[1], want[2], src)
			for c := range got {
				if !bytes.Equal(got[c][:n], want[c]) {
					t.Fatalf("%d pixels, component %d: assembly differs from rgbToYccGo", n, c)
				}
				if bytes.Count(got[c][n:], []byte{0xAA}) != 32 {
					t.Fatalf("%d pixels, component %d: written past the row", n, c)
				}
			}
		}
	}
}

// TestDownsampleH2V2Vector checks the assembly 2×2 downsampling against
// downsampleH2V2Go on random rows of every length around the 16-output
// groups, with extreme samples, and that it never writes past len(o).
func TestDownsampleH2V2Vector(t *testing.T) {
	if !yccVector {
		t.Skip("no AVX2: the pure-Go downsampling is in use")
	}
	rng := rand.New(rand.NewPCG(17, 3))
	for n := 0; n <= 80; n++ {
		for it := range 20 {
			r0, r1 := make([]uint8, 2*n+it%3), make([]uint8, 2*n+it%3)
			for i := range r0 {
				r0[i], r1[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
				if it == 0 {
					r0[i], r1[i] = 255, 255
				}
			}
			got := bytes.Repeat([]byte{0xAA}, n+32)
			downsampleH2V2(got[:n], r0, r1)
			want := make([]uint8, n)
			downsampleH2V2Go(want, r0, r1)
			if !bytes.Equal(got[:n], want) {
				t.Fatalf("%d outputs: assembly differs from downsampleH2V2Go", n)
			}
			if bytes.Count(got[n:], []byte{0xAA}) != 32 {
				t.Fatalf("%d outputs: written past the row", n)
			}
		}
	}
}
