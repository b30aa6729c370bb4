//go:build amd64 && !purego

package corrupt

// The vector kernels of amd64 (filter_amd64.go, assembly) must give the
// pure-Go kernels' bits.

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simdModes runs f with the assembly kernels (AVX2), or skips when the
// CPU lacks AVX2.
func simdModes(t testing.TB, f func(name string)) {
	if !simdKernels {
		t.Skip("CPU lacks AVX2: the vectorised kernels are not used")
	}
	f("avx2")
}

func randPlane(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.Float64()*3 - 1)
	}
	return s
}

// testKernel returns random taps of length n, symmetric if sym.
func testKernel(rng *rand.Rand, n int, sym bool) []float32 {
	k := randPlane(rng, n)
	if sym {
		for i := range n / 2 {
			k[n-1-i] = k[i]
		}
	}
	return k
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: out[%d] = %v (%#x), pure Go %v (%#x)", what, i,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestSIMDCorrRowExact checks that corrRow's vector path is bit-identical to
// corrRowGo for symmetric and asymmetric kernels and lengths that exercise
// every block size and the scalar tail.
func TestSIMDCorrRowExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	simdModes(t, func(mode string) {
		for _, w := range []int{1, 7, 8, 9, 15, 16, 31, 32, 33, 47, 63, 64, 65, 100, 120, 127, 224, 227} {
			for _, n := range []int{1, 2, 3, 4, 5, 7, 9, 15, 21, 41} {
				for _, sym := range []bool{true, false} {
					k := testKernel(rng, n, sym)
					pad := randPlane(rng, w+n-1)
					got, want := make([]float32, w), make([]float32, w)
					corrRow(got, pad, k)
					corrRowGo(want, pad, k)
					sameBits(t, mode+" corrRow", got, want)
				}
			}
		}
	})
}

// TestSIMDCombineRowsExact is TestSIMDCorrRowExact for combineRows.
func TestSIMDCombineRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	simdModes(t, func(mode string) {
		for _, w := range []int{1, 7, 8, 9, 12, 31, 32, 33, 63, 64, 65, 120, 127, 224, 227, 500} {
			for _, n := range []int{1, 2, 3, 4, 5, 7, 9, 15, 21, 41} {
				for _, sym := range []bool{true, false} {
					wts := testKernel(rng, n, sym)
					rows := make([][]float32, n)
					for i := range rows {
						rows[i] = randPlane(rng, w+rng.IntN(3))
					}
					buf := make([]float32, w+8) // guards past the outputs
					for i := w; i < len(buf); i++ {
						buf[i] = 7
					}
					got, want := buf[:w], make([]float32, w)
					combineRows(got, rows, wts)
					combineRowsGo(want, rows, wts)
					sameBits(t, mode+" combineRows", got, want)
					for _, v := range buf[w:] {
						if v != 7 {
							t.Fatalf("%s: w %d, n %d: combineRows wrote past its outputs", mode, w, n)
						}
					}
				}
			}
		}
	})
}

// TestSIMDSparseRowsExact checks that sparseRows (combineOffAsm for weights
// that are not symmetric, combineOffClampAsm when it clamps) gives the bits
// of sparseRowsGo (and clampPlaneGo), for widths that use
// every block size and the scalar tail, and that it refuses an offset that
// reads past the padded plane.
func TestSIMDSparseRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	simdModes(t, func(mode string) {
		for _, w := range []int{1, 7, 8, 9, 33, 63, 64, 65, 120, 127, 224, 227} {
			for _, n := range []int{1, 2, 3, 5, 21, 51} {
				for _, sym := range []bool{true, false} {
					const h, ex = 5, 11 // rows, padding on each side
					pw := w + 2*ex
					pad := randPlane(rng, pw*(h+2*ex))
					wts := testKernel(rng, n, sym)
					offs := make([]int, n)
					for k := range offs {
						offs[k] = rng.IntN(2*ex+1)*pw + rng.IntN(2*ex+1)
					}
					rows := make([][]float32, n)
					for _, clamp := range []bool{false, true} {
						got, want := make([]float32, w*h), make([]float32, w*h)
						sparseRows(got, w, pad, pw, offs, wts, rows, clamp)
						sparseRowsGo(want, w, pad, pw, offs, wts, rows, false)
						if clamp {
							clampPlaneGo(want)
						}
						sameBits(t, mode+" sparseRows", got, want)
					}
				}
			}
		}
		defer func() {
			if recover() == nil {
				t.Errorf("sparseRows accepted an offset past the padded plane")
			}
		}()
		w, pw, h := 16, 20, 3
		pad := make([]float32, pw*h)
		dst := make([]float32, w*h)
		sparseRows(dst, w, pad, pw, []int{0, 5}, []float32{1, 2}, make([][]float32, 2), false)
	})
}

// TestSIMDCombineRowsSym2Exact checks the two-row symmetric column kernel
// against two calls of combineRowsGo, and its clamping variant against
// them followed by clampPlaneGo; the assembly's own last vector (widths
// not a multiple of 8) must leave the samples past the outputs alone.
func TestSIMDCombineRowsSym2Exact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	simdModes(t, func(mode string) {
		for _, w := range []int{1, 7, 8, 9, 12, 16, 31, 32, 33, 63, 64, 65, 96, 224, 227, 500} {
			for _, n := range []int{3, 5, 7, 9, 15, 21, 41} {
				wts := testKernel(rng, n, true)
				rows := make([][]float32, n+1)
				for i := range rows {
					rows[i] = randPlane(rng, w+rng.IntN(3))
				}
				for _, clamp := range []bool{false, true} {
					buf0, buf1 := make([]float32, w+8), make([]float32, w+8)
					for i := w; i < w+8; i++ {
						buf0[i], buf1[i] = 7, 7
					}
					got0, got1 := buf0[:w], buf1[:w]
					want0, want1 := make([]float32, w), make([]float32, w)
					combineRowsSym2(got0, got1, rows, wts, clamp)
					for i := w; i < w+8; i++ {
						if buf0[i] != 7 || buf1[i] != 7 {
							t.Fatalf("%s: w %d, n %d: combineRowsSym2 wrote past its outputs", mode, w, n)
						}
					}
					combineRowsGo(want0, rows[:n], wts)
					combineRowsGo(want1, rows[1:], wts)
					if clamp {
						clampPlaneGo(want0)
						clampPlaneGo(want1)
					}
					sameBits(t, mode+" combineRowsSym2 row 0", got0, want0)
					sameBits(t, mode+" combineRowsSym2 row 1", got1, want1)
				}
			}
		}
	})
}

// TestSIMDSeparableExact checks whole separable filters (both passes, the
// two-row column path, odd and even heights, all borders) against the same
// call with the vector kernels switched off.
func TestSIMDSeparableExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	simdModes(t, func(mode string) {
		for _, sz := range [][2]int{{1, 1}, {7, 5}, {33, 9}, {80, 64}, {67, 41}, {224, 3}} {
			w, h := sz[0], sz[1]
			src := randPlane(rng, w*h)
			for _, sigma := range []float64{0.5, 1, 2.5, 5} {
				taps := gaussianTaps(sigma, skimageRadius(sigma))
				asym := testKernel(rng, 5, false)
				for _, b := range []Border{Replicate, Reflect101, Symmetric, Wrap} {
					for _, k := range [][2][]float32{{taps, taps}, {asym, taps}, {taps, asym}} {
						for _, clamp := range []bool{false, true} {
							got, want := make([]float32, w*h), make([]float32, w*h)
							tmp, line := make([]float32, w*h), make([]float32, max(w, h)+len(k[0]))
							separableClamp(got, src, w, h, k[0], k[1], b, clamp, tmp, line)
							s := simdKernels
							simdKernels = false
							separable(want, src, w, h, k[0], k[1], b, tmp, line)
							simdKernels = s
							if clamp {
								clampPlaneGo(want)
							}
							sameBits(t, mode+" separable", got, want)
						}
					}
				}
			}
		}
	})
}

// TestSIMDClampExact checks clampPlane's vector path against clampPlaneGo,
// including NaN, ±0, ±Inf and values just outside [0, 1].
func TestSIMDClampExact(t *testing.T) {
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)),
		float32(math.Inf(1)), float32(math.Inf(-1)), 1, math.Nextafter32(1, 2),
		math.Nextafter32(0, -1), math.Nextafter32(0, 1), 0.5, -3, 7}
	rng := rand.New(rand.NewPCG(7, 8))
	simdModes(t, func(mode string) {
		for _, n := range []int{0, 5, 8, 13, 64, 101} {
			p := randPlane(rng, n)
			for i := range p {
				if rng.IntN(3) == 0 {
					p[i] = special[rng.IntN(len(special))]
				}
			}
			got, want := append([]float32(nil), p...), append([]float32(nil), p...)
			clampPlane(got)
			clampPlaneGo(want)
			sameBits(t, mode+" clampPlane", got, want)
		}
	})
}

// TestSIMDNoiseMixExact checks noiseMix's vector path against noiseMixGo for
// additive, multiplicative and mixed noise, with samples and draws that clip
// at both ends and special values.
func TestSIMDNoiseMixExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	simdModes(t, func(mode string) {
		for _, n := range []int{0, 3, 8, 13, 1024, 1027} {
			s := randPlane(rng, n)
			z := randPlane(rng, n)
			for i := range s {
				s[i] = (s[i] + 1) / 3
				z[i] *= 3
				if rng.IntN(20) == 0 {
					s[i] = []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 1, 0}[rng.IntN(4)]
				}
			}
			for _, ab := range [][2]float32{{0.08, 0}, {0, 0.35}, {0.05, 0.2}} {
				got, want := make([]float32, n), make([]float32, n)
				noiseMix(got, s, z, ab[0], ab[1])
				noiseMixGo(want, s, z, ab[0], ab[1])
				sameBits(t, mode+" noiseMix", got, want)
			}
		}
	})
}

// TestSIMDZigFastExact checks zigFast's vector path (zigNormalsAsm) against
// zigFastGo: the same draws, sign bits, rejected indices and draws queued in
// the same order, and the same generator state afterwards, over 4096 chunks
// of every even length up to noiseChunk from random states (each chunk of
// 1024 draws has about seven rejections), and whole noiseNormals chunks with
// their redraws.
func TestSIMDZigFastExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	simdModes(t, func(mode string) {
		var rejGot, rejWant [noiseChunk]uint64
		zGot, zWant := make([]float32, noiseChunk), make([]float32, noiseChunk)
		queued := 0
		for i := range 4096 {
			n := noiseChunk
			if i%4 != 0 {
				n = 2 * rng.IntN(noiseChunk/2+1)
			}
			st := rng.Uint64()
			ng := zigFast(zGot[:n], &rejGot, st)
			nw := zigFastGo(zWant[:n], 0, &rejWant, 0, st)
			if ng != nw {
				t.Fatalf("%s: n = %d, state %#x: %d draws queued, want %d", mode, n, st, ng, nw)
			}
			queued += nw
			sameBits(t, mode+" zigFast", zGot[:n], zWant[:n])
			for j := range nw {
				if rejGot[j] != rejWant[j] {
					t.Fatalf("%s: n = %d: queued draw %d = %#x, want %#x", mode, n, j, rejGot[j], rejWant[j])
				}
			}
			// Whole chunks, odd lengths included, with the redraws.
			rg, rw := noiseRand{st}, noiseRand{st}
			m := 1 + rng.IntN(noiseChunk)
			noiseNormals(zGot[:m], &rejGot, &rg)
			simdKernels = false
			noiseNormals(zWant[:m], &rejWant, &rw)
			simdKernels = true
			sameBits(t, mode+" noiseNormals", zGot[:m], zWant[:m])
			if rg != rw {
				t.Fatalf("%s: noiseNormals(%d) left state %#x, want %#x", mode, m, rg.s, rw.s)
			}
		}
		if queued < 4096*3 {
			t.Fatalf("only %d rejections in the test: the slow path is hardly exercised", queued)
		}
	})
}

// TestSIMDGlassOffsExact checks glassOffs' vector path (glassOffsAsm)
// against glassOffsGo for every δ of the domain and beyond, row lengths
// around the 4-offset steps, widths up to 2³² − 1 and random states.
func TestSIMDGlassOffsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	simdModes(t, func(mode string) {
		for delta := 1; delta <= 40; delta++ {
			n := uint64(2 * delta)
			for _, w := range []int{2*delta + 1, 97, 224, 500, 4099, 1<<32 - 1} {
				base := -delta*w - delta
				for _, m := range []int{0, 1, 3, 4, 5, 8, 13, 64, 222, 498} {
					st := rng.Uint64()
					got, want := make([]int, m), make([]int, m)
					glassOffs(got, st, n, w, base)
					glassOffsGo(want, st, n, w, base)
					for j := range want {
						if got[j] != want[j] {
							t.Fatalf("%s: δ %d, w %d, m %d, state %#x: offs[%d] = %d, want %d", mode, delta, w, m, st, j, got[j], want[j])
						}
					}
				}
			}
		}
	})
}

// TestSIMDAddRowsExact checks addRows and addRow's vector paths against
// addRowsGo and addRowGo (the sum a + b first) on random rows of lengths
// around the vector steps, with values whose additions round.
func TestSIMDAddRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	simdModes(t, func(mode string) {
		for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 224, 501} {
			out, a, b := randPlane(rng, n), randPlane(rng, n), randPlane(rng, n)
			for i := range a {
				a[i] *= 1e-3 // sums that lose bits when added in another order
			}
			got, want := append([]float32(nil), out...), append([]float32(nil), out...)
			addRows(got, a, b)
			addRowsGo(want, a, b)
			sameBits(t, mode+" addRows", got, want)
			addRow(got, a)
			addRowGo(want, a)
			sameBits(t, mode+" addRow", got, want)
		}
	})
}

// TestSIMDDiskRowsExact checks diskRows' vector path against diskRowsGo on
// random prefix-sum planes and the disks of several radii.
func TestSIMDDiskRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	simdModes(t, func(mode string) {
		for _, r := range []float64{0, 1, 2.5, 5, 7.3, 10} {
			var wsBuf [64]int
			ws, _ := diskHalfWidths(wsBuf[:], r)
			fr := len(ws) - 1
			for _, w := range []int{1, 8, 9, 33, 64, 65, 226} {
				sw := w + 2*fr + 2
				jh := 4
				S := randPlane(rng, sw*(jh+2*fr))
				for jy := range jh {
					got, want := make([]float32, w), make([]float32, w)
					diskRows(got, S, sw, jy, fr, ws)
					diskRowsGo(want, S, sw, jy, fr, ws)
					sameBits(t, mode+" diskRows", got, want)
				}
			}
		}
	})
}

// TestSIMDGlassQuantizeExact checks glassQuantize's vector path against
// glassQuantizeGo on random samples, exact 8-bit levels, their neighbours
// and special values.
func TestSIMDGlassQuantizeExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	simdModes(t, func(mode string) {
		p := randPlane(rng, 4099)
		for i := range p {
			if i < 3*256 { // every level, and its neighbours below and above
				p[i] = float32(i/3) / 255
				if i%3 != 1 {
					p[i] = math.Nextafter32(p[i], float32(i%3-1)*2)
				}
				continue
			}
			switch rng.IntN(4) {
			case 0:
				p[i] = float32(rng.IntN(256)) / 255
			case 1:
				p[i] = math.Nextafter32(float32(rng.IntN(256))/255, float32(rng.IntN(3)-1))
			case 2:
				p[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
					0, float32(math.Copysign(0, -1)), 1, 254.999 / 255}[rng.IntN(7)]
			}
		}
		got, want := append([]float32(nil), p...), append([]float32(nil), p...)
		glassQuantize(got)
		glassQuantizeGo(want)
		sameBits(t, mode+" glassQuantize", got, want)
	})
}
