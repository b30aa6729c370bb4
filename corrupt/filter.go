package corrupt

import (
	"fmt"
	"math"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
)

// Border says how a filter extends an image beyond its edges.
type Border int

const (
	// Replicate repeats the edge sample: a a a | a b c (scipy/skimage
	// "nearest", ImageMagick "edge", OpenCV BORDER_REPLICATE).
	Replicate Border = iota
	// Reflect101 mirrors without repeating the edge sample: c b | a b c
	// (OpenCV's default BORDER_REFLECT_101, pyrtools "reflect1", numpy "reflect").
	Reflect101
	// Symmetric mirrors repeating the edge sample: b a | a b c (scipy.ndimage
	// "reflect", numpy "symmetric", OpenCV BORDER_REFLECT).
	Symmetric
	// Wrap is periodic: b c | a b c.
	Wrap
)

// borderIndex maps any integer i to a valid index in [0, n) under border b.
// n must be positive.
func borderIndex(i, n int, b Border) int {
	if i >= 0 && i < n {
		return i
	}
	if n == 1 {
		return 0
	}
	switch b {
	case Replicate:
		if i < 0 {
			return 0
		}
		return n - 1
	case Reflect101:
		period := 2 * (n - 1)
		i %= period
		if i < 0 {
			i += period
		}
		if i >= n {
			i = period - i
		}
		return i
	case Symmetric:
		period := 2 * n
		i %= period
		if i < 0 {
			i += period
		}
		if i >= n {
			i = period - 1 - i
		}
		return i
	case Wrap:
		i %= n
		if i < 0 {
			i += n
		}
		return i
	}
	panic(fmt.Sprintf("corrupt: unknown border %d", b))
}

// padRow writes into dst (len n+2r) the samples src[-r … n+r) extended with
// border b.
func padRow(dst, src []float32, r int, b Border) {
	n := len(src)
	copy(dst[r:r+n], src)
	if r < n {
		// Closed forms of borderIndex for a border narrower than the row.
		lo, hi := dst[:r], dst[r+n:r+n+r]
		switch b {
		case Replicate:
			for i := range lo {
				lo[i] = src[0]
				hi[i] = src[n-1]
			}
			return
		case Reflect101: // dst[r−i] = src[i], dst[r+n−1+i] = src[n−1−i]
			for i := 1; i <= r; i++ {
				lo[r-i] = src[i]
				hi[i-1] = src[n-1-i]
			}
			return
		case Symmetric: // dst[r−i] = src[i−1], dst[r+n−1+i] = src[n−i]
			for i := 1; i <= r; i++ {
				lo[r-i] = src[i-1]
				hi[i-1] = src[n-i]
			}
			return
		}
	}
	for i := 1; i <= r; i++ {
		dst[r-i] = src[borderIndex(-i, n, b)]
		dst[r+n-1+i] = src[borderIndex(n-1+i, n, b)]
	}
}

// separable correlates plane src (w×h, row-major) with kx along rows and ky
// along columns (both odd-length, origin at the centre), extending borders
// with b, and writes the result to dst. dst may equal src. tmp must hold
// w*h samples and line at least max(w, h)+len(kx), and neither may alias
// src or dst.
func separable(dst, src []float32, w, h int, kx, ky []float32, b Border, tmp, line []float32) {
	separableClamp(dst, src, w, h, kx, ky, b, false, tmp, line)
}

// separableClamp is separable whose result is clipped as clampPlane does if
// clamp (in the column pass's stores where the kernels allow).
func separableClamp(dst, src []float32, w, h int, kx, ky []float32, b Border, clamp bool, tmp, line []float32) {
	rx, ry := len(kx)/2, len(ky)/2
	// Row pass into tmp.
	symx := len(kx)%2 == 1 && isSymmetric(kx)
	for y := range h {
		pad := line[:w+2*rx]
		padRow(pad, src[y*w:(y+1)*w], rx, b)
		corrRowSym(tmp[y*w:(y+1)*w], pad, kx, symx)
	}
	// Column pass: accumulate whole rows so that the inner loop runs along x.
	// Rows are gathered per output row into a fixed-size array of slices
	// (no allocation for kernels up to 64 taps).
	var rowsBuf [64][]float32
	var rows [][]float32
	if len(ky) <= len(rowsBuf) {
		rows = rowsBuf[:len(ky)]
	} else {
		rows = make([][]float32, len(ky))
	}
	if len(ky) < len(rowsBuf) && len(ky) >= 3 && len(ky)%2 == 1 && isSymmetric(ky) {
		// Two output rows at a time: they share all but one input row,
		// which combineRowsSym2 exploits.
		rows2 := rowsBuf[:len(ky)+1]
		y := 0
		for ; y+2 <= h; y += 2 {
			for k := range rows2 {
				yy := y + k - ry
				if uint(yy) >= uint(h) {
					yy = borderIndex(yy, h, b)
				}
				rows2[k] = tmp[yy*w : (yy+1)*w]
			}
			combineRowsSym2(dst[y*w:(y+1)*w], dst[(y+1)*w:(y+2)*w], rows2, ky, clamp)
		}
		if y < h { // odd height: the last row alone
			for k := range ky {
				yy := borderIndex(y+k-ry, h, b)
				rows[k] = tmp[yy*w : (yy+1)*w]
			}
			combineRows(dst[y*w:(y+1)*w], rows, ky)
			if clamp {
				clampPlane(dst[y*w : (y+1)*w])
			}
		}
		return
	}
	for y := range h {
		for k := range ky {
			yy := borderIndex(y+k-ry, h, b)
			rows[k] = tmp[yy*w : (yy+1)*w]
		}
		combineRows(dst[y*w:(y+1)*w], rows, ky)
	}
	if clamp {
		clampPlane(dst[:w*h])
	}
}

// corrRowGo is the pure-Go corrRow: out[x] = Σ_k k[i]·pad[x+i] for
// x < len(out); pad must hold len(out)+len(k)−1 samples. Symmetric kernels
// take a folded path with half the multiplications. The assembly kernels
// (filter_amd64.s) reproduce its per-output operation order exactly.
func corrRowGo(out, pad, k []float32) {
	n := len(k)
	pad = pad[:len(out)+n-1]
	if n%2 == 1 && isSymmetric(k) {
		r := n / 2
		c := k[r]
		x := 0
		for ; x+8 <= len(out); x += 8 {
			p := pad[x : x+n+7]
			m := p[r : r+8 : r+8]
			s0, s1, s2, s3 := c*m[0], c*m[1], c*m[2], c*m[3]
			s4, s5, s6, s7 := c*m[4], c*m[5], c*m[6], c*m[7]
			for i := 1; i <= r; i++ {
				v := k[r+i]
				lo := p[r-i : r-i+8 : r-i+8]
				hi := p[r+i : r+i+8 : r+i+8]
				s0 += v * (lo[0] + hi[0])
				s1 += v * (lo[1] + hi[1])
				s2 += v * (lo[2] + hi[2])
				s3 += v * (lo[3] + hi[3])
				s4 += v * (lo[4] + hi[4])
				s5 += v * (lo[5] + hi[5])
				s6 += v * (lo[6] + hi[6])
				s7 += v * (lo[7] + hi[7])
			}
			o := out[x : x+8 : x+8]
			o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
		for ; x < len(out); x++ {
			p := pad[x : x+n]
			s := c * p[r]
			for i := 1; i <= r; i++ {
				s += k[r+i] * (p[r-i] + p[r+i])
			}
			out[x] = s
		}
		return
	}
	for x := range out {
		win := pad[x : x+n]
		var s float32
		for i, v := range k {
			s += v * win[i]
		}
		out[x] = s
	}
}

// combineRowsGo is the pure-Go combineRows: out[x] = Σ_k wts[k]·rows[k][x].
// Every row must hold at least len(out) samples. An odd number of symmetric
// weights takes a folded path.
func combineRowsGo(out []float32, rows [][]float32, wts []float32) {
	if len(wts) >= 3 && len(wts)%2 == 1 && isSymmetric(wts) {
		combineRowsSymGo(out, rows, wts)
		return
	}
	n := len(out)
	x := 0
	for ; x+8 <= n; x += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for k, v := range wts {
			r := rows[k][x : x+8 : x+8]
			s0 += v * r[0]
			s1 += v * r[1]
			s2 += v * r[2]
			s3 += v * r[3]
			s4 += v * r[4]
			s5 += v * r[5]
			s6 += v * r[6]
			s7 += v * r[7]
		}
		o := out[x : x+8 : x+8]
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; x < n; x++ {
		var s float32
		for k, v := range wts {
			s += v * rows[k][x]
		}
		out[x] = s
	}
}

// combineRowsSymGo is combineRowsGo for symmetric weights (odd count): rows
// k and n−1−k are added before the multiplication.
func combineRowsSymGo(out []float32, rows [][]float32, wts []float32) {
	n := len(out)
	r := len(wts) / 2
	c := wts[r]
	mid := rows[r][:n]
	x := 0
	for ; x+8 <= n; x += 8 {
		m := mid[x : x+8 : x+8]
		s0, s1, s2, s3 := c*m[0], c*m[1], c*m[2], c*m[3]
		s4, s5, s6, s7 := c*m[4], c*m[5], c*m[6], c*m[7]
		for k := 0; k < r; k++ {
			v := wts[k]
			a := rows[k][x : x+8 : x+8]
			b := rows[len(rows)-1-k][x : x+8 : x+8]
			s0 += v * (a[0] + b[0])
			s1 += v * (a[1] + b[1])
			s2 += v * (a[2] + b[2])
			s3 += v * (a[3] + b[3])
			s4 += v * (a[4] + b[4])
			s5 += v * (a[5] + b[5])
			s6 += v * (a[6] + b[6])
			s7 += v * (a[7] + b[7])
		}
		o := out[x : x+8 : x+8]
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; x < n; x++ {
		s := c * mid[x]
		for k := 0; k < r; k++ {
			s += wts[k] * (rows[k][x] + rows[len(rows)-1-k][x])
		}
		out[x] = s
	}
}

func isSymmetric(k []float32) bool {
	for i, j := 0, len(k)-1; i < j; i, j = i+1, j-1 {
		if k[i] != k[j] {
			return false
		}
	}
	return true
}

// tap is one nonzero kernel entry of a sparse correlation: out(x, y) +=
// w·in(x+dx, y+dy).
type tap struct {
	dx, dy int
	w      float32
}

// sparseCorr correlates plane src (w×h) with the sparse kernel taps, extending
// borders with b, and writes dst (which must not alias src), clipped as
// clampPlane does if clamp. pad is scratch of
// at least (w+px)·(h+py) samples where px = max dx − min dx over taps (≥ 0
// extent beyond the image, see sparsePadSize) and rows scratch of len(taps).
func sparseCorr(dst, src []float32, w, h int, taps []tap, b Border, clamp bool, pad []float32, rows [][]float32, wts []float32) {
	l, r, t, bt := tapExtent(taps)
	pw := w + l + r
	ph := h + t + bt
	pad = pad[:pw*ph]
	// The source columns of the border samples, the same on every row.
	var idxBuf [64]int
	lidx := idxBuf[:0]
	if l+r > len(idxBuf) {
		lidx = make([]int, 0, l+r)
	}
	for i := 1; i <= l; i++ {
		lidx = append(lidx, borderIndex(-i, w, b))
	}
	for i := 1; i <= r; i++ {
		lidx = append(lidx, borderIndex(w-1+i, w, b))
	}
	ridx := lidx[l:]
	lidx = lidx[:l]
	for py := range ph {
		sy := borderIndex(py-t, h, b)
		row := pad[py*pw : (py+1)*pw]
		srow := src[sy*w : (sy+1)*w]
		copy(row[l:l+w], srow)
		lo, hi := row[:l], row[l+w:]
		if b == Replicate { // every border index is 0 or w−1
			v0, v1 := srow[0], srow[w-1]
			for i := range lo {
				lo[i] = v0
			}
			for i := range hi {
				hi[i] = v1
			}
			continue
		}
		for i, j := range lidx {
			lo[l-1-i] = srow[j]
		}
		for i, j := range ridx {
			hi[i] = srow[j]
		}
	}
	rows, wts = rows[:len(taps)], wts[:len(taps)]
	var offsBuf [128]int
	offs := offsBuf[:0]
	if len(taps) > len(offsBuf) {
		offs = make([]int, 0, len(taps))
	}
	for i, tp := range taps {
		wts[i] = tp.w
		offs = append(offs, (t+tp.dy)*pw+l+tp.dx)
	}
	sparseRows(dst[:w*h], w, pad, pw, offs, wts, rows, clamp)
}

// sparseRowsGo writes every row y of dst (width w) as combineRows of the
// rows pad[y·pw+offs[k]:][:w] with weights wts, then clamps dst
// (clampPlane) if clamp; rows is scratch of len(wts).
func sparseRowsGo(dst []float32, w int, pad []float32, pw int, offs []int, wts []float32, rows [][]float32, clamp bool) {
	for y := range len(dst) / w {
		for k, o := range offs {
			o += y * pw
			rows[k] = pad[o : o+w]
		}
		combineRows(dst[y*w:(y+1)*w], rows, wts)
	}
	if clamp {
		clampPlane(dst)
	}
}

// tapExtent returns how far the taps reach left, right, up and down (≥ 0).
func tapExtent(taps []tap) (l, r, t, b int) {
	for _, tp := range taps {
		l = max(l, -tp.dx)
		r = max(r, tp.dx)
		t = max(t, -tp.dy)
		b = max(b, tp.dy)
	}
	return
}

// sparsePadSize is the pad scratch size sparseCorr needs.
func sparsePadSize(w, h int, taps []tap) int {
	l, r, t, b := tapExtent(taps)
	return (w + l + r) * (h + t + b)
}

// f32Pool recycles per-call float32 scratch buffers.
var f32Pool sync.Pool

// getF32 returns a scratch slice of length n (contents undefined); return it
// with putF32.
func getF32(n int) *[]float32 {
	if p, ok := f32Pool.Get().(*[]float32); ok {
		if cap(*p) >= n {
			*p = (*p)[:n]
			return p
		}
	}
	s := make([]float32, n)
	return &s
}

func putF32(p *[]float32) { f32Pool.Put(p) }

// gaussianTaps returns the normalised 1-D Gaussian taps exp(−k²/(2σ²)),
// k = −r…r, as float32.
func gaussianTaps(sigma float64, r int) []float32 {
	t := make([]float64, 2*r+1)
	var s float64
	for k := -r; k <= r; k++ {
		v := 1.0
		if sigma > 0 {
			v = math.Exp(-float64(k*k) / (2 * sigma * sigma))
		} else if k != 0 {
			v = 0
		}
		t[k+r] = v
		s += v
	}
	out := make([]float32, len(t))
	for i, v := range t {
		out[i] = float32(v / s)
	}
	return out
}

// skimageRadius is scikit-image/scipy's Gaussian truncation radius
// int(4σ + 0.5) (corruptions.md §2.6).
func skimageRadius(sigma float64) int { return int(4*sigma + 0.5) }

// i32Pool recycles per-call int32 scratch buffers.
var i32Pool sync.Pool

// getI32 returns a scratch slice of length n (contents undefined); return it
// with putI32.
func getI32(n int) *[]int32 {
	if p, ok := i32Pool.Get().(*[]int32); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]int32, n)
	return &s
}

func putI32(p *[]int32) { i32Pool.Put(p) }

// clampImage clips every sample of m to [0, 1], NaN to 0, as
// imageio.Image.Clamp does, with the vector kernels where this build has
// them.
func clampImage(m *imageio.Image) {
	for c := range m.Ch {
		clampPlane(m.Ch[c])
	}
}

// clampPlaneGo is the pure-Go clampPlane, the loop of imageio.Image.Clamp.
func clampPlaneGo(p []float32) {
	for i, v := range p {
		if !(v > 0) {
			p[i] = 0
		} else if v > 1 {
			p[i] = 1
		}
	}
}
