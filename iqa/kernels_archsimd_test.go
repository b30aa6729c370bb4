//go:build goexperiment.simd && amd64 && !purego

package iqa

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Kernels that only the GOEXPERIMENT=simd build vectorises (the default
// build's assembly leaves them scalar).

func TestSIMDKernelsPatchCore1(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for B := 5; B <= 23; B++ {
		r0, r1, r2 := randSlice(rng, B), randSlice(rng, B), randSlice(rng, B)
		for _, rows := range [][2][]float64{{r1, r2}, {r1, nil}, {nil, nil}} {
			var got, want [13]float64
			sg := patchCoreAVX2(&got, r0, rows[0], rows[1])
			sw := patchCoreGo(&want, r0, rows[0], rows[1])
			sameBits(t, "patchCore", append(got[:], sg), append(want[:], sw))
		}
	}
}

func TestSIMDKernelsChannelBlocks(t *testing.T) {
	needAVX2(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, p := range []waveParams{paramsVCRPy, paramsVIFVec, {sigmaNSq: 0.4, tol: 1e-12, vifvec: true, strictClamp: true}} {
		for _, nc := range []int{1, 3, 4, 7, 8, 13, 37} {
			ww := 25.0
			top, bot := make([]float64, 5*nc), make([]float64, 5*nc)
			for c := range nc {
				u := bot[5*c:][:5]
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
			}
			buf := make([]float64, 5*nc)
			gg, gs := make([]float64, nc), make([]float64, nc)
			wg, ws := make([]float64, nc), make([]float64, nc)
			channelBlocksAVX2(gg, gs, top, bot, ww, p, buf)
			channelBlocksGo(wg, ws, top, bot, ww, p, buf)
			sameBits(t, "channelBlocks g", gg, wg)
			sameBits(t, "channelBlocks sv", gs, ws)
		}
	}
}

func TestSIMDKernelsPixelFactors(t *testing.T) {
	needAVX2(t)
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
		pixelFactorsRowAVX2(ga, gb, gd)
		pixelFactorsRowGo(a, b, d)
		sameBits(t, "pixelFactors a", ga, a)
		sameBits(t, "pixelFactors b", gb, b)
		sameBits(t, "pixelFactors d", gd, d)
	}
}
