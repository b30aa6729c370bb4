package spline

import (
	"math"
	"sort"
)

// This file holds the cubic B-spline machinery shared by the smoothing and
// the monotone fits: interval search, the four non-zero basis functions and
// their second derivatives at a point (de Boor, 1978, A Practical Guide to
// Splines, BSPLVB), the penalty matrix Ω_jl = ∫ B_j″ B_l″ and symmetric
// banded matrices of half-bandwidth 3 with a Cholesky factorisation.

// order is the B-spline order (cubic splines have order 4).
const order = 4

// findInterval returns left with t[left] ≤ x < t[left+1], restricted to the
// basis range [order-1, nb-1] of a knot vector t with nb = len(t)-order basis
// functions, so that x at (or beyond) the last knot uses the last interval.
func findInterval(t []float64, x float64) int {
	nb := len(t) - order
	lo, hi := order-1, nb-1
	if x >= t[hi] {
		// Walk back over repeated knots so the interval has positive length
		// whenever possible (x equal to the right end).
		for hi > lo && t[hi] >= t[hi+1] {
			hi--
		}
		return hi
	}
	if x < t[lo+1] {
		return lo
	}
	// t[lo+1] ≤ x < t[hi]: largest i with t[i] ≤ x.
	i := sort.Search(hi-lo, func(k int) bool { return t[lo+1+k] > x })
	return lo + i
}

// basisAt writes the values of the four B-splines B_{left-3…left} that may be
// non-zero at x (left from findInterval) into b, and if d2 is not nil their
// second derivatives. It uses de Boor's triangular recurrence (BSPLVB) and the
// derivative formula c'_i = (k−1)(c_i − c_{i−1})/(t_{i+k−1} − t_i).
func basisAt(t []float64, left int, x float64, b, d2 *[order]float64) {
	var dl, dr [order - 1]float64
	b[0] = 1
	var b2 [2]float64 // order-2 values B_{left-1,2}, B_{left,2}
	for j := 0; j < order-1; j++ {
		dr[j] = t[left+j+1] - x
		dl[j] = x - t[left-j]
		saved := 0.0
		for r := 0; r <= j; r++ {
			den := dr[r] + dl[j-r]
			term := 0.0
			if den != 0 {
				term = b[r] / den
			}
			b[r] = saved + dr[r]*term
			saved = dl[j-r] * term
		}
		b[j+1] = saved
		if j == 0 {
			b2[0], b2[1] = b[0], b[1]
		}
	}
	if d2 == nil {
		return
	}
	// c1(i, m): first-derivative coefficient of B_{m,4} on B_{i,3}.
	c1 := func(i, m int) float64 {
		v := 0.0
		if i == m {
			v = 1
		} else if i-1 == m {
			v = -1
		} else {
			return 0
		}
		den := t[i+3] - t[i]
		if den == 0 {
			return 0
		}
		return 3 * v / den
	}
	for k := 0; k < order; k++ {
		m := left - 3 + k
		s := 0.0
		for q := 0; q < 2; q++ {
			i := left - 1 + q
			den := t[i+2] - t[i]
			if den == 0 {
				continue
			}
			s += b2[q] * 2 * (c1(i, m) - c1(i-1, m)) / den
		}
		d2[k] = s
	}
}

// band is a symmetric n×n matrix of half-bandwidth 3: d[k][j] = A(j, j+k).
type band struct {
	n int
	d [order][]float64
}

func newBand(n int) *band {
	b := &band{n: n}
	buf := make([]float64, order*n)
	for k := range b.d {
		b.d[k] = buf[k*n : (k+1)*n : (k+1)*n]
	}
	return b
}

func (b *band) reset() {
	for k := range b.d {
		clear(b.d[k])
	}
}

// at returns A(i, j) (zero outside the band).
func (b *band) at(i, j int) float64 {
	if i > j {
		i, j = j, i
	}
	if j-i >= order {
		return 0
	}
	return b.d[j-i][i]
}

// penalty fills om with Ω_jl = ∫ B_j″(t) B_l″(t) dt over the knot vector t,
// integrating interval by interval from α = B″(a) and δ = B″(b⁻) − B″(a) as
// h·(α_j α_l + (α_j δ_l + δ_j α_l)/2 + c3·δ_j δ_l). The exact integral has
// c3 = 1/3; R's smooth.spline (Fortran sgram) uses c3 = 0.3330.
func penalty(om *band, t []float64, c3 float64) {
	om.reset()
	nb := len(t) - order
	var v, a, e [order]float64
	for left := order - 1; left < nb; left++ {
		h := t[left+1] - t[left]
		if h <= 0 {
			continue
		}
		basisAt(t, left, t[left], &v, &a)
		basisAt(t, left, t[left+1], &v, &e)
		for k := range e {
			e[k] -= a[k]
		}
		for i := 0; i < order; i++ {
			for j := i; j < order; j++ {
				om.d[j-i][left-3+i] += h * (a[i]*a[j] + (a[i]*e[j]+e[i]*a[j])*0.5 + c3*e[i]*e[j])
			}
		}
	}
}

// cholesky factors the positive definite band a into L·Lᵀ, storing
// L(j+k, j) in l.d[k][j]. It returns false if a pivot is not positive.
func cholesky(l, a *band) bool {
	n := a.n
	for j := 0; j < n; j++ {
		s := a.d[0][j]
		for k := 1; k < order && j-k >= 0; k++ {
			v := l.d[k][j-k]
			s -= v * v
		}
		if !(s > 0) {
			return false
		}
		djj := math.Sqrt(s)
		l.d[0][j] = djj
		for i := j + 1; i < n && i-j < order; i++ {
			// L(i,j) = (A(i,j) − Σ_m L(i,m) L(j,m)) / L(j,j), m < j within band of i.
			s := a.d[i-j][j]
			for m := i - order + 1; m < j; m++ {
				if m < 0 {
					continue
				}
				s -= l.d[i-m][m] * l.d[j-m][m]
			}
			l.d[i-j][j] = s / djj
		}
	}
	return true
}

// solve overwrites z with (L·Lᵀ)⁻¹ z.
func (l *band) solve(z []float64) {
	n := l.n
	for i := 0; i < n; i++ {
		s := z[i]
		for k := 1; k < order && i-k >= 0; k++ {
			s -= l.d[k][i-k] * z[i-k]
		}
		z[i] = s / l.d[0][i]
	}
	for i := n - 1; i >= 0; i-- {
		s := z[i]
		for k := 1; k < order && i+k < n; k++ {
			s -= l.d[k][i] * z[i+k]
		}
		z[i] = s / l.d[0][i]
	}
}

// inverseBand writes the band of (L·Lᵀ)⁻¹ into s by the Hutchinson & de Hoog
// (1985) recurrence, which needs only elements inside the band.
func (l *band) inverseBand(s *band) {
	n := l.n
	for i := n - 1; i >= 0; i-- {
		inv := 1 / l.d[0][i]
		for j := min(i+order-1, n-1); j > i; j-- {
			v := 0.0
			for k := i + 1; k < n && k-i < order; k++ {
				v += l.d[k-i][i] * s.at(k, j)
			}
			s.d[j-i][i] = -inv * v
		}
		v := 0.0
		for k := i + 1; k < n && k-i < order; k++ {
			v += l.d[k-i][i] * s.d[k-i][i]
		}
		s.d[0][i] = inv*inv - inv*v
	}
}
