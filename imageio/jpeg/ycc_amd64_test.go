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
// libjpeg's formulas (jccolor.c rgb_ycc_convert with its FIX constants,
// written out here) on random rows of every length around the 8-pixel
// groups, with samples at 0 and 255 and all eight corners of the RGB cube,
// and that it writes nothing past the pixels it reports.
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
			var got [3][]uint8
			for c := range got {
				got[c] = bytes.Repeat([]byte{0xAA}, n+32)
			}
			done := rgbToYccVec(got[0][:n], got[1][:n], got[2][:n], src)
			if wantDone := max(0, (3*n-4)/24*8); n >= 8 && done != wantDone || n < 8 && done != 0 {
				t.Fatalf("%d pixels: did %d", n, done)
			}
			for x := range done {
				r, g, b := int32(src[3*x]), int32(src[3*x+1]), int32(src[3*x+2])
				want := [3]int32{
					(19595*r + 38470*g + 7471*b + 32768) >> 16,
					(-11059*r - 21709*g + 32768*b + 128<<16 + 32767) >> 16,
					(32768*r - 27439*g - 5329*b + 128<<16 + 32767) >> 16,
				}
				for c := range got {
					if int32(got[c][x]) != want[c] {
						t.Fatalf("%d pixels: pixel %d component %d = %d, want %d", n, x, c, got[c][x], want[c])
					}
				}
			}
			for c := range got {
				if bytes.Count(got[c][done:], []byte{0xAA}) != n+32-done {
					t.Fatalf("%d pixels, component %d: written past pixel %d", n, c, done)
				}
			}
		}
	}
}

// TestDownsampleH2V2Vector checks the assembly 2×2 downsampling against
// jcsample.c h2v2_downsample's formula, written out here, on random rows of
// every length around the 16-output groups, with extreme samples, and that
// it writes nothing past the outputs it reports.
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
			done := downsampleH2V2Vec(got[:n], r0, r1)
			if done != n/16*16 {
				t.Fatalf("%d outputs: did %d", n, done)
			}
			for x := range done {
				want := (int(r0[2*x]) + int(r0[2*x+1]) + int(r1[2*x]) + int(r1[2*x+1]) + 1 + x%2) / 4
				if int(got[x]) != want {
					t.Fatalf("%d outputs: output %d = %d, want %d", n, x, got[x], want)
				}
			}
			if bytes.Count(got[done:], []byte{0xAA}) != n+32-done {
				t.Fatalf("%d outputs: written past output %d", n, done)
			}
		}
	}
}

// TestConvertRGBVector checks Encoder.convertRGB's planes (Y, downsampled
// Cb and Cr, edges replicated) with the assembly against the pure-Go loops
// (yccVector off) for every width 1…70 and a few heights, on random images
// with extreme samples.
func TestConvertRGBVector(t *testing.T) {
	if !yccVector {
		t.Skip("no AVX2: the pure-Go conversion is in use")
	}
	defer func() { yccVector = true }()
	rng := rand.New(rand.NewPCG(19, 5))
	for w := 1; w <= 70; w++ {
		for _, h := range []int{1, 2, 3, 8, 17} {
			pix := make([]uint8, 3*w*h)
			for i := range pix {
				pix[i] = uint8(rng.IntN(256))
				if rng.IntN(4) == 0 {
					pix[i] = uint8(255 * rng.IntN(2))
				}
			}
			var planes [2][3][]uint8
			var files [2][]byte
			for v, on := range []bool{true, false} {
				yccVector = on
				var e Encoder
				var err error
				if files[v], err = e.EncodeRGB(nil, pix, w, h, 3*w, 75); err != nil {
					t.Fatal(err)
				}
				planes[v] = [3][]uint8{e.y, e.cb, e.cr}
			}
			for c := range 3 {
				if !bytes.Equal(planes[0][c], planes[1][c]) {
					t.Fatalf("%d×%d: plane %d differs between the assembly and Go", w, h, c)
				}
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Fatalf("%d×%d: files differ", w, h)
			}
		}
	}
}
