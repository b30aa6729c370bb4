package iqa

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Slow, obvious versions of the kernels, written straight from vif.md §2.6:
// pad explicitly with reflect1, then correlate and subsample.

// mirror is numpy's pad mode 'reflect' for one index (single reflection).
func mirror(i, n int) int {
	for i < 0 || i >= n {
		if i < 0 {
			i = -i
		}
		if i >= n {
			i = 2*n - 2 - i
		}
	}
	return i
}

// corrDnSlow is pyrtools' corrDn(img, filt, 'reflect1', step, start 0).
func corrDnSlow(img []float64, w, h int, filt [][]float64, step int) (out []float64, ow, oh int) {
	fh, fw := len(filt), len(filt[0])
	ph, pw := fh/2, fw/2
	P := make([][]float64, h+2*ph)
	for i := range P {
		P[i] = make([]float64, w+2*pw)
		for j := range P[i] {
			P[i][j] = img[mirror(i-ph, h)*w+mirror(j-pw, w)]
		}
	}
	ow, oh = (w+step-1)/step, (h+step-1)/step
	out = make([]float64, ow*oh)
	for r := range oh {
		for c := range ow {
			var s float64
			for i := range fh {
				for j := range fw {
					s += filt[i][j] * P[r*step+i][c*step+j]
				}
			}
			out[r*ow+c] = s
		}
	}
	return out, ow, oh
}

func randImage(rng *rand.Rand, w, h int) []float64 {
	x := make([]float64, w*h)
	for i := range x {
		x[i] = 255 * rng.Float64()
	}
	return x
}

func maxDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

var kernelSizes = [][2]int{{9, 9}, {9, 14}, {13, 17}, {20, 31}, {31, 20}, {64, 45}, {100, 77}}

func TestLo0FilterMatchesCorrDn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range kernelSizes {
		w, h := sz[0], sz[1]
		x := randImage(rng, w, h)
		want, _, _ := corrDnSlow(x, w, h, rows5(&sp5Lo0), 1)
		ws := newWaveWorkspace(w, h, PyramidHeight(w, h))
		got := make([]float64, w*h)
		lo0Filter(got, x, w, h, ws.xp, ws.tmp)
		if d := maxDiff(got, want); d > 1e-11 {
			t.Errorf("%d×%d: max |fast − slow| = %g", w, h, d)
		}
	}
}

func TestBandFiltersMatchCorrDn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range kernelSizes {
		w, h := sz[0], sz[1]
		x := randImage(rng, w, h)
		ws := newWaveWorkspace(w, h, PyramidHeight(w, h))
		for _, crop := range [][2]int{{w, h}, {w / 3 * 3, h / 3 * 3}} {
			cw, ch := crop[0], crop[1]
			b0 := make([]float64, cw*ch)
			b3 := make([]float64, cw*ch)
			bandFilters(b0, b3, x, w, h, cw, ch, ws.xp, ws.tmp)
			for k, got := range [][]float64{b0, b3} {
				full, _, _ := corrDnSlow(x, w, h, rows7(&sp5Bands[3*k]), 1)
				want := make([]float64, cw*ch)
				for r := range ch {
					copy(want[r*cw:(r+1)*cw], full[r*w:])
				}
				// The folded formulation (bandFiltersGo) sums in another
				// order than the direct 7×7 correlation: a few ulps of the
				// largest output (measured: at most 7.7e-16 of it).
				scale := 0.0
				for _, v := range want {
					scale = max(scale, math.Abs(v))
				}
				if d := maxDiff(got, want); d > 2e-15*scale {
					t.Errorf("%d×%d crop %d×%d band %d: max |fast − slow| = %g (%.3g of max |slow|)", w, h, cw, ch, 3*k, d, d/scale)
				}
			}
		}
	}
}

func TestLowpassDownMatchesCorrDn(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range kernelSizes {
		w, h := sz[0], sz[1]
		x := randImage(rng, w, h)
		want, ow, oh := corrDnSlow(x, w, h, rows9(&sp5Lo), 2)
		if ow != (w+1)/2 || oh != (h+1)/2 {
			t.Fatalf("slow corrDn size %d×%d", ow, oh)
		}
		ws := newWaveWorkspace(w, h, PyramidHeight(w, h))
		got := make([]float64, ow*oh)
		lowpassDown(got, x, w, h, ws.xp, ws.tmp)
		if d := maxDiff(got, want); d > 1e-11 {
			t.Errorf("%d×%d: max |fast − slow| = %g", w, h, d)
		}
	}
}

func TestPyramidHeight(t *testing.T) {
	// pyrtools max_pyr_height: halvings (integer division) while ≥ 9, capped at 4.
	for _, tc := range []struct{ w, h, want int }{
		{8, 100, 0}, {100, 8, 0}, {9, 9, 1}, {17, 40, 1}, {18, 18, 2}, {32, 32, 2},
		{35, 90, 2}, {36, 36, 3}, {71, 71, 3}, {72, 72, 4}, {224, 224, 4}, {1000, 700, 4},
	} {
		if got := PyramidHeight(tc.w, tc.h); got != tc.want {
			t.Errorf("PyramidHeight(%d, %d) = %d, want %d", tc.w, tc.h, got, tc.want)
		}
	}
}

// channelSlow is the distortion channel of vif.md §2.3 (and vifvec's window
// sums, §3): explicit reflect padding by (w−3)/2, window statistics at every
// block, then the border offset removed.
func channelSlow(x, y []float64, cw, ch, win int, p waveParams) (g, sv []float64) {
	a, b := ch/3, cw/3
	pad := (win - 3) / 2
	off := int(math.Ceil(float64(win-1) / 2 / 3))
	at := func(z []float64, i, j int) float64 { return z[mirror(i-pad, ch)*cw+mirror(j-pad, cw)] }
	for r := off; r < a-off; r++ {
		for c := off; c < b-off; c++ {
			var sx, sy, sxx, syy, sxy float64
			for i := 3 * r; i < 3*r+win; i++ {
				for j := 3 * c; j < 3*c+win; j++ {
					xv, yv := at(x, i, j), at(y, i, j)
					sx += xv
					sy += yv
					sxx += xv * xv
					syy += yv * yv
					sxy += xv * yv
				}
			}
			n := float64(win * win)
			mx, my := sx/n, sy/n
			var gg, vv float64
			if p.vifvec {
				cov := sxy - n*mx*my
				ssx := math.Max(sxx-n*mx*mx, 0)
				ssy := math.Max(syy-n*my*my, 0)
				gg = cov / (ssx + p.tol)
				vv = (ssy - gg*cov) / n
				if ssx < p.tol {
					gg, vv = 0, ssy
				}
				if ssy < p.tol {
					gg, vv = 0, 0
				}
				if gg < 0 {
					gg, vv = 0, ssy
				}
				if vv <= p.tol {
					vv = p.tol
				}
			} else {
				vx, vy, cov := sxx/n-mx*mx, syy/n-my*my, sxy/n-mx*my
				if vx < 0 || vy < 0 {
					cov = 0
				}
				vx, vy = math.Max(vx, 0), math.Max(vy, 0)
				gg = cov / (vx + p.tol)
				vv = vy - gg*cov
				if vx < p.tol {
					gg, vv = 0, vy
				}
				if vy < p.tol {
					gg, vv = 0, 0
				}
				if gg < 0 {
					gg, vv = 0, vy
				}
				if vv < p.tol {
					vv = p.tol
				}
			}
			g = append(g, gg)
			sv = append(sv, vv)
		}
	}
	return g, sv
}

func TestChannelMatchesSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][2]int{{9, 9}, {18, 27}, {36, 33}, {60, 51}, {99, 72}} {
		cw, ch := sz[0], sz[1]
		x := randImage(rng, cw, ch)
		y := make([]float64, len(x))
		for i := range y {
			// A mix of gain, negative gain and noise so that every branch runs.
			switch (i / 37) % 3 {
			case 0:
				y[i] = 0.5*x[i] + 20*rng.NormFloat64()
			case 1:
				y[i] = -0.7 * x[i]
			default:
				y[i] = 3
			}
		}
		ws := newWaveWorkspace(cw, ch, PyramidHeight(cw, ch))
		for _, win := range []int{3, 5, 9, 17} {
			off := int(math.Ceil(float64(win-1) / 2 / 3))
			if ch/3-2*off < 1 || cw/3-2*off < 1 {
				continue
			}
			for _, p := range []waveParams{paramsVCRPy, paramsVIFVec} {
				wantG, wantV := channelSlow(x, y, cw, ch, win, p)
				ws.windowSums(x, y, cw, ch, win)
				ws.channel(cw, ch, win, p)
				n := len(wantG)
				name := fmt.Sprintf("%d×%d win %d vifvec=%v", cw, ch, win, p.vifvec)
				if d := maxDiff(ws.g[:n], wantG); d > 1e-9 {
					t.Errorf("%s: max |Δg| = %g", name, d)
				}
				if d := maxDiff(ws.sv[:n], wantV); d > 1e-7 {
					t.Errorf("%s: max |Δσv²| = %g", name, d)
				}
			}
		}
	}
}

// patchMomentsSlow forms every overlapping 3×3 patch explicitly (im2col).
func patchMomentsSlow(x []float64, A, B int) (S [9][9]float64, m [9]float64, N int) {
	for pr := 0; pr+3 <= A; pr++ {
		for pc := 0; pc+3 <= B; pc++ {
			var v [9]float64
			for k := range 9 {
				v[k] = x[(pr+k/3)*B+pc+k%3]
			}
			for i := range 9 {
				m[i] += v[i]
				for j := range 9 {
					S[i][j] += v[i] * v[j]
				}
			}
			N++
		}
	}
	return S, m, N
}

func TestPatchMomentsMatchSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][2]int{{5, 5}, {9, 9}, {9, 12}, {21, 15}, {30, 33}} {
		A, B := sz[0], sz[1]
		x := randImage(rng, B, A)
		wantS, wantM, wantN := patchMomentsSlow(x, A, B)
		var S [9][9]float64
		var m [9]float64
		N := patchMoments(x, A, B, &S, &m)
		if N != wantN {
			t.Fatalf("%d×%d: N = %d, want %d", A, B, N, wantN)
		}
		for i := range 9 {
			if math.Abs(m[i]-wantM[i]) > 1e-9*math.Abs(wantM[i]) {
				t.Errorf("%d×%d: m[%d] = %g, want %g", A, B, i, m[i], wantM[i])
			}
			for j := range 9 {
				if math.Abs(S[i][j]-wantS[i][j]) > 1e-11*math.Abs(wantS[i][i]) {
					t.Errorf("%d×%d: S[%d][%d] = %g, want %g", A, B, i, j, S[i][j], wantS[i][j])
				}
			}
		}
	}
}

func TestEigSym9(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := map[string]func() [9][9]float64{
		"random SPD": func() (a [9][9]float64) {
			var b [9][9]float64
			for i := range 9 {
				for j := range 9 {
					b[i][j] = rng.NormFloat64()
				}
			}
			for i := range 9 {
				for j := range 9 {
					for k := range 9 {
						a[i][j] += b[i][k] * b[j][k]
					}
				}
			}
			return a
		},
		"indefinite": func() (a [9][9]float64) {
			for i := range 9 {
				for j := i; j < 9; j++ {
					a[i][j] = rng.NormFloat64()
					a[j][i] = a[i][j]
				}
			}
			return a
		},
		"repeated eigenvalues": func() (a [9][9]float64) {
			for i := range 9 {
				a[i][i] = float64(1 + i/3)
			}
			return a
		},
		"rank one": func() (a [9][9]float64) {
			for i := range 9 {
				for j := range 9 {
					a[i][j] = float64((i + 1) * (j + 1))
				}
			}
			return a
		},
	}
	for name, mk := range cases {
		a := mk()
		work := a
		var lam [9]float64
		var V [9][9]float64
		eigSym9(&work, &lam, &V)
		scale := 0.0
		for i := range 9 {
			scale = max(scale, math.Abs(lam[i]))
		}
		for i := 1; i < 9; i++ {
			if lam[i] < lam[i-1] {
				t.Errorf("%s: eigenvalues not ascending: %v", name, lam)
			}
		}
		for k := range 9 {
			// A·v_k = λ_k·v_k and VᵀV = I.
			for i := range 9 {
				var av float64
				for j := range 9 {
					av += a[i][j] * V[j][k]
				}
				if math.Abs(av-lam[k]*V[i][k]) > 1e-12*scale {
					t.Errorf("%s: residual %g for eigenpair %d", name, av-lam[k]*V[i][k], k)
				}
			}
			for l := range 9 {
				var d float64
				for i := range 9 {
					d += V[i][k] * V[i][l]
				}
				want := 0.0
				if k == l {
					want = 1
				}
				if math.Abs(d-want) > 1e-13 {
					t.Errorf("%s: VᵀV[%d][%d] = %g", name, k, l, d)
				}
			}
		}
		if name == "random SPD" {
			var inv [9][9]float64
			inverseFromEig(&inv, &lam, &V, -1)
			for i := range 9 {
				for j := range 9 {
					var s float64
					for k := range 9 {
						s += inv[i][k] * a[k][j]
					}
					want := 0.0
					if i == j {
						want = 1
					}
					if math.Abs(s-want) > 1e-10 {
						t.Errorf("inverse: (A⁻¹A)[%d][%d] = %g", i, j, s)
					}
				}
			}
		}
	}
}
