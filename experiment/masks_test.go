package experiment

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"math/cmplx"
	"testing"
)

// TestFFT2 checks the 2-D FFT against the DFT written from its definition,
// X[ky,kx] = Σ x[y,x]·exp(−2πi(kx·x/w + ky·y/h)).
func TestFFT2(t *testing.T) {
	const w, h = 6, 5
	x := make([]complex128, w*h)
	for k := range x {
		x[k] = complex(math.Sin(float64(3*k+1)), math.Cos(float64(k*k)))
	}
	got := append([]complex128(nil), x...)
	fft2(got, w, h, false)
	for ky := range h {
		for kx := range w {
			var want complex128
			for y := range h {
				for xx := range w {
					want += x[y*w+xx] * cmplx.Exp(complex(0, -2*math.Pi*(float64(kx*xx)/w+float64(ky*y)/h)))
				}
			}
			if cmplx.Abs(got[ky*w+kx]-want) > 1e-9 {
				t.Errorf("X[%d,%d] = %v, want %v", ky, kx, got[ky*w+kx], want)
			}
		}
	}
	// Inverse without normalisation: w·h·x.
	fft2(got, w, h, true)
	for k := range x {
		if cmplx.Abs(got[k]/(w*h)-x[k]) > 1e-9 {
			t.Fatalf("inverse[%d] = %v, want %v", k, got[k]/(w*h), x[k])
		}
	}
}

func decodeMask(t *testing.T, b []byte) *image.Gray {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := m.(*image.Gray)
	if !ok {
		t.Fatalf("mask is %T, want greyscale", m)
	}
	return g
}

// TestMaskSpectrum checks the 1/f amplitude spectrum: the radially averaged
// amplitude of the 8-bit mask falls with slope −1 on log-log axes.
func TestMaskSpectrum(t *testing.T) {
	const n = 256
	d := &Design{MaskSeed: 42}
	for i := range 3 {
		g := decodeMask(t, MaskPNG(d, i, n, n))
		lo, hi := uint8(255), uint8(0)
		c := make([]complex128, n*n)
		for k, v := range g.Pix {
			lo, hi = min(lo, v), max(hi, v)
			c[k] = complex(float64(v), 0)
		}
		if lo != 0 || hi != 255 {
			t.Errorf("mask %d spans [%d, %d], want full contrast [0, 255]", i, lo, hi)
		}
		fft2(c, n, n, false)
		sum := make([]float64, n)
		cnt := make([]float64, n)
		for ky := range n {
			for kx := range n {
				fy, fx := min(ky, n-ky), min(kx, n-kx)
				r := int(math.Round(math.Hypot(float64(fx), float64(fy))))
				if r < n {
					sum[r] += cmplx.Abs(c[ky*n+kx])
					cnt[r]++
				}
			}
		}
		// Least-squares slope of log amplitude against log frequency over
		// radii 4…64 (frequencies 1/64…1/4 cycles per pixel).
		var sx, sy, sxx, sxy, m float64
		for r := 4; r <= 64; r++ {
			lx, ly := math.Log(float64(r)), math.Log(sum[r]/cnt[r])
			sx, sy, sxx, sxy, m = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly, m+1
		}
		slope := (m*sxy - sx*sy) / (m*sxx - sx*sx)
		if math.Abs(slope+1) > 0.1 {
			t.Errorf("mask %d: amplitude spectrum slope %.3f, want −1 ± 0.1", i, slope)
		}
	}
}

func TestMaskDeterministic(t *testing.T) {
	d := &Design{MaskSeed: 7}
	a := MaskPNG(d, 3, 64, 48)
	if !bytes.Equal(a, MaskPNG(d, 3, 64, 48)) {
		t.Error("same mask twice differs")
	}
	if bytes.Equal(a, MaskPNG(d, 4, 64, 48)) {
		t.Error("masks 3 and 4 are equal")
	}
	if bytes.Equal(a, MaskPNG(&Design{MaskSeed: 8}, 3, 64, 48)) {
		t.Error("another MaskSeed gave the same mask")
	}
	g := decodeMask(t, a)
	if g.Rect.Dx() != 64 || g.Rect.Dy() != 48 {
		t.Errorf("mask is %v, want 64×48", g.Rect)
	}
	for _, sz := range [][2]int{{0, 5}, {5, -1}, {5000, 5000}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MaskPNG(%d×%d) did not panic", sz[0], sz[1])
				}
			}()
			MaskPNG(d, 0, sz[0], sz[1])
		}()
	}
}

func BenchmarkMaskPNG224(b *testing.B) {
	d := &Design{MaskSeed: 1}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		MaskPNG(d, i, 224, 224)
		i++
	}
}
