package iqa

import (
	"fmt"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// eigJacobiSlow is an independent check of eigSym9: the cyclic Jacobi
// method (Golub & Van Loan, Alg. 8.5.1) with full row and column updates,
// swept until the off-diagonal part is negligible, its eigenvalues sorted
// ascending with their vectors (columns of V); a is destroyed.
func eigJacobiSlow(a *[9][9]float64, lam *[9]float64, V *[9][9]float64) {
	const n = 9
	*V = [9][9]float64{}
	for i := range n {
		V[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off, diag float64
		for p := range n {
			diag += a[p][p] * a[p][p]
			for q := p + 1; q < n; q++ {
				off += a[p][q] * a[p][q]
			}
		}
		if off == 0 || off <= 1e-34*diag {
			break
		}
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p][q]
				if apq == 0 {
					continue
				}
				// Rotation that annihilates a[p][q] (Golub & Van Loan, Alg. 8.5.1).
				theta := (a[q][q] - a[p][p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				if math.IsInf(theta, 0) {
					t = 0
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					akp, akq := a[k][p], a[k][q]
					a[k][p] = c*akp - s*akq
					a[k][q] = s*akp + c*akq
				}
				for k := range n {
					apk, aqk := a[p][k], a[q][k]
					a[p][k] = c*apk - s*aqk
					a[q][k] = s*apk + c*aqk
				}
				for k := range n {
					vkp, vkq := V[k][p], V[k][q]
					V[k][p] = c*vkp - s*vkq
					V[k][q] = s*vkp + c*vkq
				}
			}
		}
	}
	for i := range n {
		lam[i] = a[i][i]
	}
	// Insertion sort, ascending, permuting the eigenvector columns along.
	for i := 1; i < n; i++ {
		for j := i; j > 0 && lam[j] < lam[j-1]; j-- {
			lam[j], lam[j-1] = lam[j-1], lam[j]
			for k := range n {
				V[k][j], V[k][j-1] = V[k][j-1], V[k][j]
			}
		}
	}
}

// TestEigSym9MatchesJacobi compares eigSym9 with the Jacobi method on
// degenerate matrices (zero, as a flat band's Cu; diagonal with repeated
// and zero entries; rank one) and on the Cu of every subband of natural test
// images: eigenvalues agree to 1e-13 of the largest, and Cu⁻¹ (VCRPy's
// floored inverse) to 1e-9 relative where Cu is well conditioned.
func TestEigSym9MatchesJacobi(t *testing.T) {
	mats := map[string][9][9]float64{"zero": {}}
	var diag, rank1 [9][9]float64
	for i := range 9 {
		diag[i][i] = float64(i % 3) // 0, 1, 2 three times each
		for j := range 9 {
			rank1[i][j] = float64((i%4 + 1) * (j%4 + 1))
		}
	}
	mats["diagonal, repeated"] = diag
	mats["rank one"] = rank1
	// Cu of every subband of natural images and of a flat image.
	for _, n := range []int{32, 75, 224} {
		for seed := range uint64(3) {
			ref := GrayFrom(testimg.Natural(n, n, seed))
			r := newWaveRef(n, n, PyramidHeight(n, n), false)
			ws := newWaveWorkspace(n, n, r.height)
			lo0Filter(ws.lo[0], ref.Pix, n, n, ws.xp, ws.tmp)
			l, lw, lh := ws.lo[0], n, n
			for lev := range r.height {
				cw, ch := lw/blockM*blockM, lh/blockM*blockM
				b0, b3 := r.band[lev][0], r.band[lev][1]
				bandFilters(b0, b3, l, lw, lh, cw, ch, ws.xp, ws.tmp)
				for b, x := range [2][]float64{b0, b3} {
					var S [9][9]float64
					var m [9]float64
					N := patchMoments(x, ch, cw, &S, &m)
					var cu [9][9]float64
					for i := range 9 {
						for j := range 9 {
							cu[i][j] = (S[i][j] - m[i]*m[j]/float64(N)) / float64(N-1)
						}
					}
					mats[fmt.Sprintf("natural %d×%d seed %d level %d band %d", n, n, seed, lev, 3*(1-b))] = cu
				}
				nn := ((lw + 1) / 2) * ((lh + 1) / 2)
				lowpassDown(ws.next[0][:nn], l, lw, lh, ws.xp, ws.tmp)
				l = ws.next[0][:nn:nn]
				ws.next[0], ws.lo[0] = ws.lo[0], ws.next[0]
				lw, lh = (lw+1)/2, (lh+1)/2
			}
		}
	}
	for name, a := range mats {
		w1, w2 := a, a
		var l1, l2 [9]float64
		var V1, V2 [9][9]float64
		eigSym9(&w1, &l1, &V1)
		eigJacobiSlow(&w2, &l2, &V2)
		scale := max(math.Abs(l2[0]), math.Abs(l2[8]))
		for k := range 9 {
			if math.IsNaN(l1[k]) || math.Abs(l1[k]-l2[k]) > 1e-13*scale {
				t.Errorf("%s: λ%d = %.17g, Jacobi %.17g", name, k, l1[k], l2[k])
			}
		}
		if scale == 0 {
			for i := range 9 {
				for j := range 9 {
					if V1[i][j] != float64(b2i(i == j)) {
						t.Errorf("%s: V[%d][%d] = %g, want the identity", name, i, j, V1[i][j])
					}
				}
			}
			continue
		}
		if l2[0] < 1e-8*scale {
			continue // ill conditioned: the inverse is not comparable
		}
		var i1, i2 [9][9]float64
		inverseFromEig(&i1, &l1, &V1, -1)
		inverseFromEig(&i2, &l2, &V2, -1)
		for i := range 9 {
			for j := range 9 {
				if d := math.Abs(i1[i][j] - i2[i][j]); d > 1e-9/l2[0] {
					t.Errorf("%s: Cu⁻¹[%d][%d] = %.17g, Jacobi %.17g", name, i, j, i1[i][j], i2[i][j])
				}
			}
		}
	}
}

// TestEigSym9NaN checks that a NaN in the matrix ends in NaN eigenvalues
// (no endless loop, no index out of range).
func TestEigSym9NaN(t *testing.T) {
	var a [9][9]float64
	for i := range 9 {
		a[i][i] = float64(i + 1)
	}
	a[4][3], a[3][4] = math.NaN(), math.NaN()
	var lam [9]float64
	var V [9][9]float64
	eigSym9(&a, &lam, &V)
	nan := false
	for _, l := range lam {
		nan = nan || math.IsNaN(l)
	}
	if !nan {
		t.Errorf("eigenvalues %v of a matrix with NaN entries, want some NaN", lam)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkEigSym9 times one eigendecomposition of a subband's Cu.
func BenchmarkEigSym9(b *testing.B) {
	var a [9][9]float64
	for i := range 9 {
		for j := range 9 {
			a[i][j] = math.Exp(-math.Abs(float64(i-j))/2) * (1 + 0.1*float64((i*j)%3))
		}
	}
	for i := range 9 {
		for j := range i {
			a[j][i] = a[i][j]
		}
	}
	var lam [9]float64
	var V [9][9]float64
	for b.Loop() {
		w := a
		eigSym9(&w, &lam, &V)
	}
}
