package iqa

import "math"

// Gaussian scale mixture model of a reference subband (Sheikh & Bovik 2006,
// §III): the 9×9 covariance Cu of all overlapping 3×3 patches, its
// eigendecomposition, and per block s = yᵀ·Cu⁻¹·y / 9.

// patchDisp lists the 13 displacements d = v − u between two positions of a
// 3×3 patch with d "non-negative" (dr > 0, or dr = 0 and dc ≥ 0); every
// other pair is the transpose of one of these.
var patchDisp = [13][2]int{
	{0, 0}, {0, 1}, {0, 2},
	{1, -2}, {1, -1}, {1, 0}, {1, 1}, {1, 2},
	{2, -2}, {2, -1}, {2, 0}, {2, 1}, {2, 2},
}

// dispIndex[dr][dc+2] is the index in patchDisp of (dr, dc), dr ≥ 0.
var dispIndex = [3][5]int{
	{-1, -1, 0, 1, 2},
	{3, 4, 5, 6, 7},
	{8, 9, 10, 11, 12},
}

// patchMoments returns, for the A×B band x (stride B, A, B ≥ 5), the sums
// over all overlapping 3×3 patches p of y_p (m, 9 entries, patch row-major)
// and of y_p·y_pᵀ (S), and the number of patches N = (A−2)(B−2).
//
// Instead of 45 products per patch it forms 13 products per pixel: S[u][v]
// is the sum of x(q)·x(q+v−u) over the patch-origin rectangle shifted by u.
// Each row's sums are split into a core (columns 2 … B−3, shared by every
// column shift) plus two edge samples, and rows into rows 0, 1, the core
// rows 2 … A−3, and rows A−2, A−1, so every S[u][v] is a sum of a few
// partial sums.
func patchMoments(x []float64, A, B int, S *[9][9]float64, m *[9]float64) (N int) {
	// acc[class][d][uc]: row class (0: row 0, 1: row 1, 2: core rows,
	// 3: row A−2, 4: row A−1), displacement, column shift uc of u.
	var acc [5][13][3]float64
	var sum [5][3]float64 // plain sums of x over the same column ranges
	var cores [2][13]float64
	var sums [2]float64
	for i := range A {
		cls := 2
		switch i {
		case 0:
			cls = 0
		case 1:
			cls = 1
		case A - 2:
			cls = 3
		case A - 1:
			cls = 4
		}
		r0 := x[i*B:][:B]
		if i%2 == 0 { // the core sums of rows i and i+1 together
			row := func(j int) []float64 {
				if j < A {
					return x[j*B:][:B]
				}
				return nil
			}
			sums[0], sums[1] = patchCore2(&cores[0], &cores[1], r0, row(i+1), row(i+2), row(i+3))
		}
		core := &cores[i%2]
		s := sums[i%2]
		t := &sum[cls]
		t[0] += s + r0[0] + r0[1]
		t[1] += s + r0[1] + r0[B-2]
		t[2] += s + r0[B-2] + r0[B-1]
		// Add the core and edge products for each displacement and valid
		// column shift uc: displacements 0…2 (patchDisp) pair the row with
		// itself, 3…7 with the next row and 8…12 with the one after.
		x0, x1, xm2, xm1 := r0[0], r0[1], r0[B-2], r0[B-1]
		a := &acc[cls]
		edgeRow3((*[3][3]float64)(a[0:3]), (*[3]float64)(core[0:3]), r0, x0, x1, xm2, xm1)
		if i+1 < A {
			edgeRow5((*[5][3]float64)(a[3:8]), (*[5]float64)(core[3:8]), x[(i+1)*B:][:B], x0, x1, xm2, xm1)
		}
		if i+2 < A {
			edgeRow5((*[5][3]float64)(a[8:13]), (*[5]float64)(core[8:13]), x[(i+2)*B:][:B], x0, x1, xm2, xm1)
		}
	}
	// Row classes covered by a patch-origin rectangle shifted down by ur.
	rowsOf := [3][3]int{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}}
	for ui := range 9 {
		ur, uc := ui/3, ui%3
		var t float64
		for _, c := range rowsOf[ur] {
			t += sum[c][uc]
		}
		m[ui] = t
		for vi := ui; vi < 9; vi++ {
			vr, vc := vi/3, vi%3
			a, b := ur, uc // the patch position the displacement starts from
			dr, dc := vr-ur, vc-uc
			if dr < 0 || (dr == 0 && dc < 0) {
				a, b, dr, dc = vr, vc, -dr, -dc
			}
			d := dispIndex[dr][dc+2]
			var s float64
			for _, c := range rowsOf[a] {
				s += acc[c][d][b]
			}
			S[ui][vi] = s
			S[vi][ui] = s
		}
	}
	return (A - 2) * (B - 2)
}

// edgeRow5 adds, for the displacements (dr, dc), dc = −2 … 2, between a
// row with edge samples x0, x1 (columns 0, 1), xm2, xm1 (columns B−2, B−1)
// and the row rn dr rows below it, the core sums cd[dc+2] plus the edge
// products to a[dc+2][uc] for each valid column shift uc of u: the core
// plus the products at columns 0, 1 (uc = 0), 1, B−2 (uc = 1) or B−2, B−1
// (uc = 2), for uc ∈ [max(0, −dc), min(2, 2−dc)].
func edgeRow5(a *[5][3]float64, cd *[5]float64, rn []float64, x0, x1, xm2, xm1 float64) {
	B := len(rn)
	h := (*[4]float64)(rn[:4]) // B ≥ 5
	t := (*[4]float64)(rn[B-4:])
	// dc = −2: uc = 2 only; t[k] is rn[B−4+k].
	a[0][2] += cd[0] + (xm2*t[0] + xm1*t[1])
	// dc = −1: uc = 1, 2.
	e1, em2 := x1*h[0], xm2*t[1]
	a[1][1] += cd[1] + (e1 + em2)
	a[1][2] += cd[1] + (em2 + xm1*t[2])
	edgeRow3((*[3][3]float64)(a[2:5]), (*[3]float64)(cd[2:5]), rn, x0, x1, xm2, xm1)
}

// edgeRow3 is edgeRow5 for dc = 0, 1, 2 only (as for dr = 0).
func edgeRow3(a *[3][3]float64, cd *[3]float64, rn []float64, x0, x1, xm2, xm1 float64) {
	B := len(rn)
	h := (*[4]float64)(rn[:4])
	t := (*[4]float64)(rn[B-4:])
	// dc = 0: uc = 0, 1, 2.
	e1, em2 := x1*h[1], xm2*t[2]
	a[0][0] += cd[0] + (x0*h[0] + e1)
	a[0][1] += cd[0] + (e1 + em2)
	a[0][2] += cd[0] + (em2 + xm1*t[3])
	// dc = 1: uc = 0, 1.
	e1 = x1 * h[2]
	a[1][0] += cd[1] + (x0*h[1] + e1)
	a[1][1] += cd[1] + (e1 + xm2*t[3])
	// dc = 2: uc = 0 only.
	a[2][0] += cd[2] + (x0*h[2] + x1*h[3])
}

// patchCoreGo returns the sum of the core samples c = r0[2 … B−3] of a row
// (B = len(r0) ≥ 5) and writes the core products of patchMoments into core:
// core[dc] = Σ_k c[k]·r0[2+k+dc] for dc = 0…2, and, for the next rows r1
// and r2 (nil past the band's last row, whose entries are 0),
// core[5·dr−2+j] = Σ_k c[k]·r_dr[k+j] for j = 0…4 (column displacement
// j − 2). Every sum is formed as the vector kernel forms it, in four
// interleaved partial sums (patchLanesGo) combined by patchCoreFinish.
func patchCoreGo(core *[13]float64, r0, r1, r2 []float64) (s float64) {
	var q [14][4]float64
	n4 := (len(r0) - 4) &^ 3
	patchLanesGo(&q, r0, orRow(r1, r0), orRow(r2, r0), n4)
	var t [14]float64
	for i := range t {
		t[i] = (q[i][0] + q[i][1]) + (q[i][2] + q[i][3])
	}
	return patchCoreFinish(core, &t, r0, r1, r2, n4)
}

// orRow returns r, or alt where r is nil: a stand-in row whose sums are
// computed and then discarded.
func orRow(r, alt []float64) []float64 {
	if r == nil {
		return alt
	}
	return r
}

// patchLanesGo forms the lane sums of patchCoreGo for k < n4 (a multiple
// of 4, ≤ len(r0) − 4): q[i][l] sums the terms k ≡ l (mod 4) in increasing
// k, for i = 0 the core samples c[k] = r0[2+k], for i = 1 + dc the products
// c[k]·r0[2+k+dc] (dc = 0…2), for i = 4 + j and 9 + j the products
// c[k]·r1[k+j] and c[k]·r2[k+j] (j = 0…4). patchLanesAsm computes the same
// with one lane per l.
func patchLanesGo(q *[14][4]float64, r0, r1, r2 []float64, n4 int) {
	B := len(r0)
	r1, r2 = r1[:B], r2[:B]
	c := r0[2:][:n4]
	for l := range 4 {
		var s, a0, a1, a2 float64
		for k := l; k < n4; k += 4 {
			v := c[k]
			s += v
			a0 += v * r0[2+k]
			a1 += v * r0[3+k]
			a2 += v * r0[4+k]
		}
		q[0][l], q[1][l], q[2][l], q[3][l] = s, a0, a1, a2
		for dr, rn := range [2][]float64{r1, r2} {
			var a0, a1, a2, a3, a4 float64
			for k := l; k < n4; k += 4 {
				v := c[k]
				p := rn[k : k+5 : k+5]
				a0 += v * p[0]
				a1 += v * p[1]
				a2 += v * p[2]
				a3 += v * p[3]
				a4 += v * p[4]
			}
			o := 4 + 5*dr
			q[o][l], q[o+1][l], q[o+2][l], q[o+3][l], q[o+4][l] = a0, a1, a2, a3, a4
		}
	}
}

// patchCoreFinish completes patchCoreGo from the sums q of its first n4
// terms (each the lane sums (l0 + l1) + (l2 + l3) of patchLanesGo) by
// adding the terms k = n4 … B−5 in order. It writes core (0 for the
// entries of nil rows) and returns the sum of the core samples.
func patchCoreFinish(core *[13]float64, q *[14]float64, r0, r1, r2 []float64, n4 int) (s float64) {
	B := len(r0)
	ra, rb := orRow(r1, r0)[:B], orRow(r2, r0)[:B]
	s = q[0]
	t := [13]float64(q[1:])
	for k := n4; k < B-4; k++ {
		p0 := r0[2+k : 5+k : 5+k]
		pa := ra[k : k+5 : k+5]
		pb := rb[k : k+5 : k+5]
		v := p0[0]
		s += v
		t[0] += v * p0[0]
		t[1] += v * p0[1]
		t[2] += v * p0[2]
		t[3] += v * pa[0]
		t[4] += v * pa[1]
		t[5] += v * pa[2]
		t[6] += v * pa[3]
		t[7] += v * pa[4]
		t[8] += v * pb[0]
		t[9] += v * pb[1]
		t[10] += v * pb[2]
		t[11] += v * pb[3]
		t[12] += v * pb[4]
	}
	if r1 == nil {
		clear(t[3:8])
	}
	if r2 == nil {
		clear(t[8:13])
	}
	*core = t
	return s
}

// patchCore2 is patchCore for two consecutive rows: row r0 (next rows
// r1, r2) into coreA and, unless r1 is nil, row r1 (next rows r2, r3) into
// coreB (0 otherwise, with sB = 0).
func patchCore2(coreA, coreB *[13]float64, r0, r1, r2, r3 []float64) (sA, sB float64) {
	sA = patchCore(coreA, r0, r1, r2)
	*coreB = [13]float64{}
	if r1 != nil {
		sB = patchCore(coreB, r1, r2, r3)
	}
	return sA, sB
}

// eigSym9 computes the eigenvalues lam and eigenvectors (columns of V) of the
// symmetric matrix a, whose lower triangle it reads; a is destroyed. The
// eigenvalues are sorted in ascending order, like numpy.linalg.eigh. It
// reduces a to tridiagonal form by Householder reflections and then runs
// the implicit QL method (EISPACK's tred2 and
// tql2, in the form of the public-domain JAMA library), the same route as
// LAPACK's dsyev behind numpy.linalg.eigh: about a fifth of the work of a
// cyclic Jacobi method for a 9×9 matrix.
func eigSym9(a *[9][9]float64, lam *[9]float64, V *[9][9]float64) {
	*V = *a
	d, e := lam, [9]float64{}
	tred2(V, d, &e)
	tql2(V, d, &e)
}

// tred2 reduces the symmetric matrix in V (lower triangle read) to
// tridiagonal form: on return d holds the diagonal, e[1…8] the subdiagonal
// and V the orthogonal transformation.
func tred2(V *[9][9]float64, d, e *[9]float64) {
	const n = 9
	for j := range n {
		d[j] = V[n-1][j]
	}
	for i := n - 1; i > 0; i-- {
		// Scale to avoid under- and overflow.
		var scale, h float64
		for k := range i {
			scale += math.Abs(d[k])
		}
		if scale == 0 {
			e[i] = d[i-1]
			for j := range i {
				d[j] = V[i-1][j]
				V[i][j] = 0
				V[j][i] = 0
			}
		} else {
			// The Householder vector.
			for k := range i {
				d[k] /= scale
				h += d[k] * d[k]
			}
			f := d[i-1]
			g := math.Sqrt(h)
			if f > 0 {
				g = -g
			}
			e[i] = scale * g
			h -= f * g
			d[i-1] = f - g
			for j := range i {
				e[j] = 0
			}
			// The similarity transformation of the remaining columns.
			for j := range i {
				f = d[j]
				V[j][i] = f
				g = e[j] + V[j][j]*f
				for k := j + 1; k < i; k++ {
					g += V[k][j] * d[k]
					e[k] += V[k][j] * f
				}
				e[j] = g
			}
			f = 0
			for j := range i {
				e[j] /= h
				f += e[j] * d[j]
			}
			hh := f / (h + h)
			for j := range i {
				e[j] -= hh * d[j]
			}
			for j := range i {
				f, g = d[j], e[j]
				for k := j; k < i; k++ {
					V[k][j] -= f*e[k] + g*d[k]
				}
				d[j] = V[i-1][j]
				V[i][j] = 0
			}
		}
		d[i] = h
	}
	// Accumulate the transformations.
	for i := range n - 1 {
		V[n-1][i] = V[i][i]
		V[i][i] = 1
		if h := d[i+1]; h != 0 {
			for k := 0; k <= i; k++ {
				d[k] = V[k][i+1] / h
			}
			for j := 0; j <= i; j++ {
				var g float64
				for k := 0; k <= i; k++ {
					g += V[k][i+1] * V[k][j]
				}
				for k := 0; k <= i; k++ {
					V[k][j] -= g * d[k]
				}
			}
		}
		for k := 0; k <= i; k++ {
			V[k][i+1] = 0
		}
	}
	for j := range n {
		d[j] = V[n-1][j]
		V[n-1][j] = 0
	}
	V[n-1][n-1] = 1
	e[0] = 0
}

// hypot returns √(a² + b²) without undue overflow or underflow, as
// math.Hypot does for finite arguments (tql2 spends a third of its time in
// math.Hypot's assembly otherwise).
func hypot(a, b float64) float64 {
	a, b = math.Abs(a), math.Abs(b)
	if a < b {
		a, b = b, a
	}
	if a == 0 {
		return 0
	}
	b /= a
	return a * math.Sqrt(1+b*b)
}

// tql2 diagonalises the symmetric tridiagonal matrix (diagonal d,
// subdiagonal e[1…8]) by the implicit QL method, accumulating the rotations
// into V, and sorts the eigenvalues d ascending with their vectors.
func tql2(V *[9][9]float64, d, e *[9]float64) {
	const n = 9
	const eps = 0x1p-52
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	e[n-1] = 0
	var f, tst1 float64
	for l := range n {
		// Find a small subdiagonal element.
		tst1 = max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		m := l
		for m < n-1 && !(math.Abs(e[m]) <= eps*tst1) {
			m++
		}
		// If m == l, d[l] is an eigenvalue; otherwise iterate (30
		// iterations suffice by far; a NaN stops at once).
		if m > l {
			for iter := 0; iter < 30; iter++ {
				// The implicit shift.
				g := d[l]
				p := (d[l+1] - g) / (2 * e[l])
				r := hypot(p, 1)
				if p < 0 {
					r = -r
				}
				d[l] = e[l] / (p + r)
				d[l+1] = e[l] * (p + r)
				dl1 := d[l+1]
				h := g - d[l]
				for i := l + 2; i < n; i++ {
					d[i] -= h
				}
				f += h
				// The implicit QL transformation.
				p = d[m]
				c, c2, c3 := 1.0, 1.0, 1.0
				el1 := e[l+1]
				var s, s2 float64
				for i := m - 1; i >= l; i-- {
					c3 = c2
					c2 = c
					s2 = s
					g = c * e[i]
					h = c * p
					r = hypot(p, e[i])
					e[i+1] = s * r
					s = e[i] / r
					c = p / r
					p = c*d[i] - s*g
					d[i+1] = h + s*(c*g+s*d[i])
					// Accumulate the transformation.
					for k := range n {
						vk := &V[k]
						h = vk[i+1]
						vk[i+1] = s*vk[i] + c*h
						vk[i] = c*vk[i] - s*h
					}
				}
				p = -s * s2 * c3 * el1 * e[l] / dl1
				e[l] = s * p
				d[l] = c * p
				if !(math.Abs(e[l]) > eps*tst1) {
					break
				}
			}
		}
		d[l] += f
		e[l] = 0
	}
	// Selection sort, ascending, permuting the eigenvector columns along.
	for i := range n - 1 {
		k, p := i, d[i]
		for j := i + 1; j < n; j++ {
			if d[j] < p {
				k, p = j, d[j]
			}
		}
		if k != i {
			d[k], d[i] = d[i], p
			for j := range n {
				V[j][i], V[j][k] = V[j][k], V[j][i]
			}
		}
	}
}

// inverseFromEig writes V·diag(1/λ)·Vᵀ into inv. Eigenvalues with
// |λ| ≤ cut contribute nothing (a pseudo-inverse); pass cut < 0 to invert all.
func inverseFromEig(inv *[9][9]float64, lam *[9]float64, V *[9][9]float64, cut float64) {
	for i := range 9 {
		for j := i; j < 9; j++ {
			var s float64
			for k := range 9 {
				if math.Abs(lam[k]) <= cut {
					continue
				}
				s += V[i][k] * V[j][k] / lam[k]
			}
			inv[i][j] = s
			inv[j][i] = s
		}
	}
}

// gsmModel is the reference side of one subband's GSM for one kind of
// flavour (gsmKind): the eigenvalues λ of Cu (floored at tol for the VCRPy
// constants) and Cu⁻¹ (a pseudo-inverse for vifvec) with its upper triangle
// doubled, as blockProducts reads it.
type gsmModel struct {
	lam [9]float64
	inv [9][9]float64
}

// gsmKind returns the index of the GSM model the constants p use: 0 for
// the VCRPy formulas (Cu divided by N − 1, eigenvalues floored at tol), 1
// for vifvec's (Cu divided by N, pseudo-inverse). Models of one kind are
// the same for every p of that kind; waveRef.model checks the tolerance.
func gsmKind(p waveParams) int {
	if p.vifvec {
		return 1
	}
	return 0
}

// kindParams holds, per gsmKind, the constants its GSM models are fitted
// with.
var kindParams = [2]waveParams{paramsVCRPy, paramsVIFVec}

// fit computes g from the patch moments S, m and N of a reference band
// (patchMoments) with the constants p.
func (g *gsmModel) fit(S *[9][9]float64, m *[9]float64, N int, p waveParams) {
	div := float64(N - 1)
	if p.vifvec {
		div = float64(N)
	}
	var cu [9][9]float64
	for i := range 9 {
		for j := range 9 {
			cu[i][j] = (S[i][j] - m[i]*m[j]/float64(N)) / div
		}
	}
	lam, inv := &g.lam, &g.inv
	var V [9][9]float64
	eigSym9(&cu, lam, &V)
	cut := -1.0
	if p.vifvec {
		// A pseudo-inverse for a singular Cu (pyiqa uses pinverse; MATLAB's
		// inv would return Inf). For a full-rank Cu it is the inverse.
		cut = 9 * 2.220446049250313e-16 * max(math.Abs(lam[0]), math.Abs(lam[8]))
	} else {
		for i := range lam {
			if lam[i] < p.tol {
				lam[i] = p.tol
			}
		}
	}
	inverseFromEig(inv, lam, &V, cut)
	for i := range 9 {
		for j := i + 1; j < 9; j++ {
			inv[i][j] *= 2 // the upper triangle stands for both halves below
		}
	}
}

// waveRef is what the wavelet VIF computes from the reference image alone,
// for one image size and pyramid height: per level the reference's bands 0
// and 3 (cropped to a multiple of 3, stride cw) and their GSM models for the
// kinds it was prepared for. It is read-only once prepared.
type waveRef struct {
	w, h, height int
	kinds        [2]bool // the gsmKind models computed
	band         [maxHeight][2][]float64
	gsm          [maxHeight][2][2]gsmModel // [level][band 0, 3][kind]
	// s holds, where not nil, s = yᵀ·Cu⁻¹·y/9 of every block of the
	// band for the kind's model ([level][band][kind], row-major, cw/3
	// blocks per row): a Reference keeps it, so that scoring a distorted
	// image needs no quadratic forms.
	s [maxHeight][2][2][]float64
}

// newWaveRef returns an unprepared waveRef for a w×h image with height
// levels. With oneLevel, the levels' bands share the memory of level 0's:
// enough for vifs, which uses each level's reference bands only while it
// computes that level.
func newWaveRef(w, h, height int, oneLevel bool) *waveRef {
	r := &waveRef{w: w, h: h, height: height}
	size := func(lw, lh int) int { return (lw / blockM * blockM) * (lh / blockM * blockM) }
	total := 0
	for lw, lh, lev := w, h, 0; lev < height; lev++ {
		total += 2 * size(lw, lh)
		lw, lh = (lw+1)/2, (lh+1)/2
	}
	if oneLevel {
		total = 2 * size(w, h)
	}
	buf := make([]float64, total)
	for lw, lh, lev := w, h, 0; lev < height; lev++ {
		n := size(lw, lh)
		r.band[lev][0], r.band[lev][1] = buf[:n:n], buf[n:2*n:2*n]
		if !oneLevel {
			buf = buf[2*n:]
		}
		lw, lh = (lw+1)/2, (lh+1)/2
	}
	return r
}

// model returns the GSM model of band b (0: band 0, 1: band 3) at level
// lev for the constants p. It panics if r was not prepared for p's kind.
func (r *waveRef) model(lev, b int, p waveParams) *gsmModel {
	k := gsmKind(p)
	if !r.kinds[k] || (k == 0 && p.tol != paramsVCRPy.tol) {
		panic("iqa: reference prepared without the GSM model these VIF constants need")
	}
	return &r.gsm[lev][b][k]
}
