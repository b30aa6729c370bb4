//go:build amd64 && !purego

package iqa

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// The vector kernels (kernels_amd64.go, assembly) must give bit-identical
// results to the scalar ones: every test here compares with ==, on random
// data of every length around the vector width.

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64() * 50
	}
	return s
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %v (%x), scalar %v (%x)", what, i, got[i],
				math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

func needAVX(t *testing.T) {
	if !haveAVX {
		t.Skip("no AVX on this CPU: the scalar kernels are in use")
	}
}

func TestSIMDKernelsRows(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 23; n++ {
		got, want := make([]float64, n), make([]float64, n)
		a, b := randSlice(rng, n), randSlice(rng, n)
		for _, sign := range []float64{+1, -1} {
			foldRowsAVX(got, a, b, sign)
			foldRowsGo(want, a, b, sign)
			sameBits(t, "foldRows", got, want)
		}
	}
}

func TestSIMDKernelsLowpass(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, w := range []int{5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 23, 37} {
		for _, h := range []int{5, 8, 13} {
			src := randSlice(rng, w*h)
			ow, oh := (w+1)/2, (h+1)/2
			got, want := make([]float64, ow*oh), make([]float64, ow*oh)
			xp, tmp := make([]float64, (w+8)*(h+8)), make([]float64, 10*(w+8))
			lowpassDownAVX(got, src, w, h, xp, tmp)
			lowpassDownGo(want, src, w, h, xp, tmp)
			sameBits(t, "lowpassDown", got, want)
		}
	}
}

func TestSIMDKernelsLo0(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, w := range []int{3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 23, 37} {
		for _, h := range []int{3, 4, 5, 8, 13} {
			src := randSlice(rng, w*h)
			got, want := make([]float64, w*h), make([]float64, w*h)
			xp, tmp := make([]float64, (w+4)*(h+4)), make([]float64, 3*(w+4))
			lo0FilterAVX(got, src, w, h, xp, tmp)
			lo0FilterGo(want, src, w, h, xp, tmp)
			sameBits(t, fmt.Sprintf("lo0Filter %d×%d", w, h), got, want)
		}
	}
}

func TestSIMDKernelsPatchCore(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for B := 5; B <= 23; B++ {
		r0, r1, r2, r3 := randSlice(rng, B), randSlice(rng, B), randSlice(rng, B), randSlice(rng, B)
		for _, rows := range [][3][]float64{{r1, r2, r3}, {r1, r2, nil}, {r1, nil, nil}, {nil, nil, nil}} {
			var ga, gb, wa, wb [13]float64
			sa, sb := patchCore2(&ga, &gb, r0, rows[0], rows[1], rows[2])
			simdKernels = false
			ta, tb := patchCore2(&wa, &wb, r0, rows[0], rows[1], rows[2])
			simdKernels = true
			sameBits(t, "patchCore2 a", append(ga[:], sa), append(wa[:], ta))
			sameBits(t, "patchCore2 b", append(gb[:], sb), append(wb[:], tb))
		}
	}
}

// TestSIMDScoreBitIdentical scores whole pairs with the vectorised and the
// scalar kernels and requires the same bits.
func TestSIMDScoreBitIdentical(t *testing.T) {
	needAVX(t)
	defer func() { simdKernels = haveAVX }()
	for _, sz := range [][2]int{{9, 9}, {32, 32}, {37, 50}, {73, 71}, {101, 130}, {224, 224}} {
		w, h := sz[0], sz[1]
		m := testimg.Natural(w, h, uint64(w+h))
		ref, dist := GrayFrom(m), noisy(m, 0.05, 7)
		for _, meth := range []Method{VCRPy, VIFVec, Pixel, PixelMS} {
			if min(w, h) <= pixelK && (meth == Pixel || meth == PixelMS) {
				continue // too small for the pixel-domain VIF
			}
			simdKernels = true
			got, err1 := NewScorer(meth).Score(ref, dist)
			simdKernels = false
			want, err2 := NewScorer(meth).Score(ref, dist)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s %d×%d: %v, %v", meth, w, h, err1, err2)
			}
			if math.Float64bits(got.VIF) != math.Float64bits(want.VIF) {
				t.Errorf("%s %d×%d: VIF %.17g with AVX, %.17g scalar", meth, w, h, got.VIF, want.VIF)
			}
		}
	}
}

func TestSIMDKernelsBlockProducts(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(7, 8))
	// A random symmetric positive definite Cu⁻¹ (upper triangle doubled, as
	// subband passes it) and positive eigenvalues.
	var inv [9][9]float64
	var lam [9]float64
	for i := range 9 {
		lam[i] = rng.Float64() * 30
		for j := i; j < 9; j++ {
			inv[i][j] = rng.NormFloat64() * 0.01
			if j == i {
				inv[i][j] = 0.1 + rng.Float64()
			}
		}
	}
	for nc := 1; nc <= 13; nc++ {
		cw := 3*nc + 4
		r0, r1, r2 := randSlice(rng, cw), randSlice(rng, cw), randSlice(rng, cw)
		g, sv := make([]float64, nc), make([]float64, nc)
		for c := range g {
			g[c], sv[c] = rng.Float64()*2, rng.Float64()*10
		}
		gn, gd := make([]float64, nc), make([]float64, nc)
		wn, wd := make([]float64, nc), make([]float64, nc)
		var tab [232]float64
		blockTab(&tab, &inv, &lam, 0.1)
		blockProductsAVX(gn, gd, r0, r1, r2, 2, g, sv, &inv, &lam, 0.1, &tab)
		blockProductsGo(wn, wd, r0, r1, r2, 2, g, sv, &inv, &lam, 0.1)
		sameBits(t, "blockProducts pn", gn, wn)
		sameBits(t, "blockProducts pd", gd, wd)
		// The split kernels: s first, then the products from s, must give
		// the same s and products as the scalar kernels and as blockProducts.
		gs, ws := make([]float64, nc), make([]float64, nc)
		blockSAVX(gs, r0, r1, r2, 2, &inv, &tab)
		blockSGo(ws, r0, r1, r2, 2, &inv)
		sameBits(t, "blockS", gs, ws)
		blockProductsSAVX(gn, gd, gs, g, sv, &lam, 0.1, &tab)
		sameBits(t, "blockProductsS pn", gn, wn)
		sameBits(t, "blockProductsS pd", gd, wd)
		blockProductsSGo(gn, gd, ws, g, sv, &lam, 0.1)
		sameBits(t, "blockProductsSGo pn", gn, wn)
		sameBits(t, "blockProductsSGo pd", gd, wd)
	}
}

func TestSIMDKernelsWindowRows(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, win := range []int{3, 5, 9, 17} {
		m, two := win/blockM, win%blockM == 2
		for nc := 1; nc <= 9; nc++ {
			cols := (nc-1)*blockM + win
			cw := cols + 3
			x, y := randSlice(rng, 6*cw), randSlice(rng, 6*cw)
			T := cols / blockM
			run := func(f func(vert, x, y []float64, xoff, cw, n, cols, m int, two bool, p3, p2 []float64)) []float64 {
				vert := randSlice(rng, 5*5*nc)
				for i := 5 * nc; i < len(vert); i++ {
					vert[i] = 0
				}
				f(vert, x, y, cw+1, cw, 4, cols, m, two, make([]float64, 20*(T+1)), make([]float64, 20*(T+1)))
				return vert
			}
			rng = rand.New(rand.NewPCG(uint64(nc), uint64(win)))
			got := run(func(vert, x, y []float64, xoff, cw, n, cols, m int, two bool, p3, p2 []float64) {
				windowRowsAVX(vert, x, y, xoff, cw, cols, m, two, p3, p2)
			})
			rng = rand.New(rand.NewPCG(uint64(nc), uint64(win)))
			want := run(windowRowsGo)
			sameBits(t, "windowRows", got, want)
		}
	}
}

// TestSIMDWindowSumsBitIdentical compares the whole window sums and
// channel estimates of the vector and scalar kernels on bands of every
// small height and width (rows not a multiple of the 4-row groups, ragged
// block columns, one kept block row or column) for each window side.
func TestSIMDWindowSumsBitIdentical(t *testing.T) {
	needAVX(t)
	defer func() { simdKernels = haveAVX }()
	rng := rand.New(rand.NewPCG(23, 24))
	for _, win := range []int{3, 5, 9, 17} {
		off := (win/2 + blockM - 1) / blockM
		for a := 2*off + 1; a <= 2*off+6; a++ {
			for b := 2*off + 1; b <= 2*off+9; b++ {
				cw, ch := blockM*b, blockM*a
				x, y := randImage(rng, cw, ch), randImage(rng, cw, ch)
				ws := newWaveWorkspace(cw, ch, 1)
				_, _, rows, _, nr, nc := ws.windowGeometry(cw, ch, win)
				var got [2][]float64
				for i, simd := range []bool{true, false} {
					simdKernels = simd
					ws.windowSums(x, y, cw, ch, win)
					ws.channel(cw, ch, win, paramsVCRPy)
					got[i] = append(append(append([]float64(nil), ws.vert[:5*(rows+1)*nc]...), ws.g[:nr*nc]...), ws.sv[:nr*nc]...)
				}
				for i := range got[0] {
					if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
						t.Fatalf("%s: [%d] = %v with the vector kernels, %v scalar", fmt.Sprintf("%d×%d win %d", cw, ch, win), i, got[0][i], got[1][i])
					}
				}
			}
		}
	}
}

// TestSIMDKernelsBandFilters compares the strip sweep of the band
// filters (bandFiltersAVX) with bandFiltersGo on images of every width
// around the vector width and the strip width of 64 columns (ragged
// columns, one strip, several strips, a ragged strip after whole ones),
// odd and even crops, crops as tall as the image (the sweep reads the last
// padded row), the pyramid levels of a 224×224 image and crops narrower
// than one vector.
func TestSIMDKernelsBandFilters(t *testing.T) {
	needAVX(t)
	if !haveFMA {
		t.Skip("no FMA on this CPU: the scalar band filters are in use")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	type size struct{ w, h int }
	var sizes []size
	for _, w := range []int{9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 26, 37} {
		for _, h := range []int{9, 10, 11, 12, 15, 16, 17, 25, 26, 34} {
			sizes = append(sizes, size{w, h})
		}
	}
	for _, w := range []int{63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 127, 128, 131, 133, 135, 196, 197, 260} {
		sizes = append(sizes, size{w, 9 + w%7}, size{w, 14})
	}
	for w := 224; w >= 9; w /= 2 { // the levels of a 224×224 pair
		sizes = append(sizes, size{w, w})
	}
	for _, sz := range sizes {
		w, h := sz.w, sz.h
		for crop := range 3 {
			cw, ch := w, h
			switch crop {
			case 1:
				cw, ch = w/blockM*blockM, h/blockM*blockM
			case 2: // fewer than 4 columns: the scalar path alone
				cw = 1 + w%3
			}
			src := randSlice(rng, w*h)
			var got, want [2][]float64
			for i := range 2 {
				got[i] = randSlice(rng, w*h)
				want[i] = append([]float64(nil), got[i]...)
			}
			xp, tmp := make([]float64, (w+8)*(h+8)), make([]float64, 48*w)
			bandFiltersAVX(got[0], got[1], src, w, h, cw, ch, xp, tmp)
			bandFiltersGo(want[0], want[1], src, w, h, cw, ch, xp, tmp)
			for i := range 2 {
				sameBits(t, fmt.Sprintf("bandFilters %d×%d crop %d×%d band %d", w, h, cw, ch, 3*i), got[i], want[i])
			}
		}
	}
}

// TestAsmRegisters checks that the generated assembly names only the 16
// vector registers of AVX2: avo's register allocator, out of those, goes
// on to Y16 … Y31 (AVX-512 encodings) instead of failing, and
// bandStripAsm keeps 12 taps and 4 working vectors live.
func TestAsmRegisters(t *testing.T) {
	src, err := os.ReadFile("kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`\b[XYZ](1[6-9]|2[0-9]|3[01])\b|\bZ[0-9]+\b|\bK[1-7]\b`).Find(src); m != nil {
		t.Errorf("kernels_amd64.s uses %s, which needs AVX-512", m)
	}
}

// BenchmarkSIMDScore times Score with the scalar and the AVX kernels in
// one binary, so both can be compared under the same machine load:
//
//	go test -run '^$' -bench SIMDScore -count 10 -cpu 1 ./iqa > k.txt
//	benchstat -col /kernels k.txt
func BenchmarkSIMDScore(b *testing.B) {
	if !haveAVX {
		b.Skip("no AVX")
	}
	defer func() { simdKernels = haveAVX }()
	for _, n := range []int{32, 224, 512} {
		m := testimg.Natural(n, n, 1)
		ref, dist := GrayFrom(m), noisy(m, 0.05, 2)
		for _, meth := range []Method{VCRPy, VIFVec} {
			for _, on := range []bool{false, true} {
				kernels := "scalar"
				if on {
					kernels = "avx"
				}
				name := fmt.Sprintf("method=%s/size=%d/kernels=%s", meth, n, kernels)
				b.Run(name, func(b *testing.B) {
					simdKernels = on
					s := NewScorer(meth)
					if _, err := s.Score(ref, dist); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						s.Score(ref, dist)
					}
				})
			}
		}
	}
}

func TestSIMDKernelsChannelBlocks(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, p := range []waveParams{paramsVCRPy, paramsVIFVec, {sigmaNSq: 0.4, tol: 1e-12, vifvec: true, strictClamp: true}} {
		for _, nc := range []int{1, 3, 4, 7, 8, 13, 37} {
			ww := 25.0
			// Planes of nc blocks at stride st, as in a row of ws.vert
			// (st = nc) or wider.
			st := nc + rng.IntN(3)
			top, bot := randSlice(rng, 5*st), randSlice(rng, 5*st)
			for c := range nc {
				var u [5]float64
				// Window sums of a random window, or a degenerate one.
				switch rng.IntN(6) {
				case 0: // flat windows: zero variances, σv² clamped to tol
					v := rng.NormFloat64()
					u[0], u[1], u[2], u[3], u[4] = ww*v, ww*v, ww*v*v, ww*v*v, ww*v*v
				case 1: // negative variance by rounding, negative zero
					u[0], u[1], u[2], u[3], u[4] = 1, math.Copysign(0, -1), 0.03, 0, 0
				case 2: // a NaN
					u[0], u[1], u[2], u[3], u[4] = math.NaN(), 1, 2, 3, 4
				default:
					x, y := randSlice(rng, 25), randSlice(rng, 25)
					for i := range x {
						y[i] = y[i]*rng.Float64() + x[i]*rng.NormFloat64()
						u[0] += x[i]
						u[1] += y[i]
						u[2] += x[i] * x[i]
						u[3] += y[i] * y[i]
						u[4] += x[i] * y[i]
					}
				}
				for q := range u {
					if rng.IntN(2) == 0 {
						top[q*st+c] = 0 // a window sum from the first row
					}
					bot[q*st+c] = top[q*st+c] + u[q]
				}
			}
			gg, gs := make([]float64, nc), make([]float64, nc)
			wg, ws := make([]float64, nc), make([]float64, nc)
			channelBlocksAVX(gg, gs, top, bot, st, ww, p)
			channelBlocksGo(wg, ws, top, bot, st, ww, p)
			sameBits(t, "channelBlocks g", gg, wg)
			sameBits(t, "channelBlocks sv", gs, ws)
		}
	}
}

func TestSIMDKernelsPixelFactors(t *testing.T) {
	needAVX(t)
	rng := rand.New(rand.NewPCG(15, 16))
	for n := 1; n <= 41; n++ {
		a, b, d := make([]float64, n), make([]float64, n), make([]float64, n)
		for j := range a {
			// Variances around the tolerance, negative ones, identical
			// windows (σv² = 0), negative covariances and NaN.
			vx, vy := rng.Float64()*100, rng.Float64()*100
			cov := rng.NormFloat64() * math.Sqrt(vx*vy)
			switch rng.IntN(8) {
			case 0:
				vx = rng.Float64() * 2 * pixelTol
			case 1:
				vy = -rng.Float64()
			case 2:
				vy, cov = vx, vx
			case 3:
				cov = math.Copysign(0, -1)
			case 4:
				vx = math.NaN()
			}
			a[j], b[j], d[j] = vx, vy, cov
		}
		ga, gb, gd := append([]float64(nil), a...), append([]float64(nil), b...), append([]float64(nil), d...)
		pixelFactorsRowAVX(ga, gb, gd)
		pixelFactorsRowGo(a, b, d)
		sameBits(t, "pixelFactors a", ga, a)
		sameBits(t, "pixelFactors b", gb, b)
		sameBits(t, "pixelFactors d", gd, d)
	}
}

// BenchmarkSIMDBandFilters times the level-0 band filters of a 224×224
// image with the scalar and the AVX kernels.
func BenchmarkSIMDBandFilters(b *testing.B) {
	if !haveAVX {
		b.Skip("no AVX")
	}
	const w, h = 224, 224
	cw, ch := w/blockM*blockM, h/blockM*blockM
	src := randSlice(rand.New(rand.NewPCG(1, 2)), w*h)
	b0, b3 := make([]float64, w*h), make([]float64, w*h)
	xp, tmp := make([]float64, (w+8)*(h+8)), make([]float64, 48*w)
	for _, avx := range []bool{false, true} {
		b.Run(fmt.Sprintf("avx=%v", avx), func(b *testing.B) {
			for b.Loop() {
				if avx {
					bandFiltersAVX(b0, b3, src, w, h, cw, ch, xp, tmp)
				} else {
					bandFiltersGo(b0, b3, src, w, h, cw, ch, xp, tmp)
				}
			}
		})
	}
}
