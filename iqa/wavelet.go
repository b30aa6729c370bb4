package iqa

import (
	"errors"
	"fmt"
	"math"
)

// Steerable-pyramid (wavelet-domain) VIF, in the two published flavours
// (docs/vif.md, and vif.md §2–3 of the reference notes):
//
//   - VCRPy: the Python port used by the VCR toolbox (A. Kumar's vif_utils.py):
//     σn² = 0.1, natural logs, means over blocks, Cu divided by N − 1 with
//     eigenvalues floored at 1e-15, VIF = mean(num+1e-4)/mean(den+1e-4).
//   - VIFVec: Sheikh's MATLAB vifvec: σn² = 0.4, sums over blocks, window
//     sums instead of variances, Cu divided by N, no floor, VIF = Σnum/Σden.

const (
	// blockM is the side of the non-overlapping blocks (M = 3).
	blockM = 3
	// maxHeight is the pyramid height of the reference.
	maxHeight = 4
	// minSide is the shortest side for which a pyramid of height 1 exists
	// (pyrtools: the image must be at least as large as lofilt, 9×9).
	minSide = 9
)

// waveParams holds one flavour's constants.
type waveParams struct {
	sigmaNSq float64
	tol      float64
	// vifvec selects the MATLAB formulas (window sums, sums over blocks,
	// Cu/N, no floor, σv² := ss_y in the degenerate branches, vv <= tol).
	vifvec bool
	// strictClamp makes the final σv² clamp `vv < tol` (pyiqa) instead of
	// MATLAB's `vv <= tol`. Only tests set it.
	strictClamp bool
}

var (
	paramsVCRPy = waveParams{sigmaNSq: 0.1, tol: 1e-15}
	// MATLAB vifvec: sigma_nsq = 0.4, tol = 1e-15.
	paramsVIFVec = waveParams{sigmaNSq: 0.4, tol: 1e-15, vifvec: true}
)

// PyramidHeight returns the steerable-pyramid height the wavelet methods use
// for a w×h image: 4 (the reference's), or fewer when the image is too small —
// the number of times the shorter side can be halved (integer division) while
// staying ≥ 9, pyrtools' rule. It returns 0 when either side is below 9.
func PyramidHeight(w, h int) int {
	n := 0
	for s := min(w, h); s >= minSide && n < maxHeight; s /= 2 {
		n++
	}
	return n
}

// waveWorkspace owns every buffer of the wavelet VIF, sized for one image
// size; scoring further pairs of that size allocates nothing.
type waveWorkspace struct {
	w, h   int
	height int

	xp   []float64    // reflect-padded copy of the image being filtered
	tmp  []float64    // kernel scratch (folded rows; the vectorised kernels' planes)
	lo   [2][]float64 // the lowpass of ref and dist at level 0
	next [2][]float64 // the downsampled lowpass; lo and next alternate by level
	band [2][]float64 // the distorted image's bands 0 and 3 of the current level
	// ref holds the reference's bands and models when the workspace
	// scores pairs (vifs); a Reference brings its own.
	ref *waveRef

	pre  []float64  // per-row prefix sums at j = 3t, 5 interleaved quantities (×4 rows)
	pre2 []float64  // the same at j = 3t+2
	vert []float64  // vertical prefix of window row sums, 5 interleaved
	g    []float64  // per kept block gain
	sv   []float64  // per kept block σv²
	pn   []float64  // per block of a row: the product Π_j (1 + g²·s·λj/(σv²+σn²))
	pd   []float64  // per block of a row: the product Π_j (1 + s·λj/σn²)
	tab  blockTable // the block kernels' constants for the current subband
	// shared holds, per GSM kind, s = yᵀ·Cu⁻¹·y/9 of every block of the
	// current subband when several flavours of that kind score it
	// (levels); allocated on first use.
	shared [2][]float64
}

func newWaveWorkspace(w, h, height int) *waveWorkspace {
	ws := &waveWorkspace{w: w, h: h, height: height}
	n := w * h
	ws.xp = make([]float64, (w+8)*(h+8))
	ws.tmp = make([]float64, max(w+8, 48*w))
	for i := range 2 {
		ws.lo[i] = make([]float64, n)
		ws.next[i] = make([]float64, ((w+1)/2)*((h+1)/2))
		ws.band[i] = make([]float64, n)
	}
	ws.pre = make([]float64, 20*(w/blockM+1))
	ws.pre2 = make([]float64, 20*(w/blockM+1))
	ws.vert = make([]float64, 5*(h+1)*(w/blockM))
	ws.g = make([]float64, (h/blockM)*(w/blockM))
	ws.sv = make([]float64, len(ws.g))
	ws.pn = make([]float64, w/blockM)
	ws.pd = make([]float64, w/blockM)
	return ws
}

func (s *Scorer) scoreWavelet(ref, dist *Gray) (Result, error) {
	w, h := ref.Width, ref.Height
	if PyramidHeight(w, h) == 0 {
		return Result{}, fmt.Errorf("image is %d×%d; the steerable-pyramid VIF needs both sides ≥ %d pixels", w, h, minSide)
	}
	f := [1]waveFlavour{newWaveFlavour(s.method, w, h)}
	if s.wave == nil || s.wave.w != w || s.wave.h != h || s.wave.height != f[0].height {
		s.wave = newWaveWorkspace(w, h, f[0].height)
	}
	s.wave.vifs(ref.Pix, dist.Pix, f[:])
	v := f[0].vif()
	if math.IsNaN(v) {
		return Result{}, fmt.Errorf("%s VIF of a %d×%d pair: %w", s.method, w, h, ErrNoDetail)
	}
	return Result{VIF: v, Levels: f[0].height}, nil
}

// ErrNoDetail is returned (wrapped) when VIF is undefined because the
// reference carries no information: vifvec divides by Σden = 0 for a flat
// reference (MATLAB returns NaN). It is also returned for inputs containing
// NaN. The vcr-py flavour returns 1 for a flat reference, as the VCR
// toolbox does (its 1e-4 terms make the ratio 1).
var ErrNoDetail = errors.New("the reference image has no detail (or contains NaN), so VIF is undefined")

// waveFlavour is one flavour's share of a wavelet VIF computation: its
// constants, the pyramid levels it uses and its per-subband terms.
type waveFlavour struct {
	p        waveParams
	height   int // pyramid levels used, ≤ the workspace's height
	num, den [2 * maxHeight]float64
}

// newWaveFlavour returns the flavour of the wavelet method m for a w×h
// image (PyramidHeight(w, h) > 0).
func newWaveFlavour(m Method, w, h int) waveFlavour {
	f := waveFlavour{p: paramsVCRPy, height: PyramidHeight(w, h)}
	switch m {
	case VIFVec:
		f.p = paramsVIFVec
	case VIFVec2Layers:
		f.p = paramsVIFVec
		f.height = min(f.height, 2)
	}
	return f
}

// vif computes the wavelet VIF of the pair (ref, dist), both w×h, with the
// constants p on all ws.height levels.
func (ws *waveWorkspace) vif(ref, dist []float64, p waveParams) float64 {
	f := [1]waveFlavour{{p: p, height: ws.height}}
	ws.vifs(ref, dist, f[:])
	return f[0].vif()
}

// vifs computes the subband terms of every flavour in fl (each with height
// ≤ ws.height) for the pair (ref, dist), both w×h, from one pyramid
// decomposition of each image: it prepares the workspace's own waveRef from
// ref and scores dist against it, level by level.
func (ws *waveWorkspace) vifs(ref, dist []float64, fl []waveFlavour) {
	if ws.ref == nil {
		ws.ref = newWaveRef(ws.w, ws.h, ws.height, true)
	}
	r := ws.ref
	r.kinds = flavourKinds(fl)
	ws.levels(r, ref, dist, fl)
}

// flavourKinds returns which GSM models (gsmKind) the flavours fl need.
func flavourKinds(fl []waveFlavour) (k [2]bool) {
	for i := range fl {
		k[gsmKind(fl[i].p)] = true
	}
	return k
}

// levels runs the pyramid levels 0 … ws.height−1. With ref non-nil it
// computes r's bands and GSM models (for the kinds r.kinds) from ref; with
// dist non-nil it decomposes dist and computes the subband terms of every
// flavour in fl from it and r. Each image's pyramid is computed by the same
// operations whether the other image is given or not, so the terms are
// bit-identical however the work is split.
//
// What the flavours share is computed once per subband: the bands
// themselves, the reference's GSM model per kind, s = yᵀ·Cu⁻¹·y/9 of every
// block for flavours of the same kind, and the window sums of the channel
// estimate for flavours with the same window. Each flavour's terms
// are bit-identical to computing it alone: the same operations run on the
// same operands in the same order.
func (ws *waveWorkspace) levels(r *waveRef, ref, dist []float64, fl []waveFlavour) {
	w, h, H := ws.w, ws.h, ws.height
	// A flavour equal to an earlier one (vifvec2-layers is vifvec where
	// the image allows only two levels, e.g. 32×32) is computed once.
	dupOf := make([]int, len(fl), 8) // on the stack for up to 8 flavours
	for i := range fl {
		dupOf[i] = -1
		for j := range i {
			if fl[j].p == fl[i].p && fl[j].height == fl[i].height {
				dupOf[i] = j
				break
			}
		}
	}
	// lo and next take turns holding the current lowpass of ref (index 0)
	// and dist (index 1): each level's is smaller than both buffers.
	lo, next := ws.lo, ws.next
	img := [2][]float64{ref, dist}
	for i, x := range img {
		if x != nil {
			lo0Filter(lo[i], x, w, h, ws.xp, ws.tmp)
		}
	}
	lw, lh := w, h
	for lev := range H {
		cw, ch := lw/blockM*blockM, lh/blockM*blockM
		if ref != nil {
			ws.refLevel(r, lev, lo[0], lw, lh)
		}
		if dist != nil {
			bandFilters(ws.band[0], ws.band[1], lo[1], lw, lh, cw, ch, ws.xp, ws.tmp)
			// Subband index k counts from the coarsest level, orientation 3
			// before 0 (vif.md §2.2); lev_k = ⌈(k+1)/2⌉ = height − lev.
			for o, b := range [2]int{1, 0} {
				x, y := r.band[lev][b], ws.band[b][:cw*ch]
				// Flavours of one GSM kind share s of every block: where two
				// or more of them score this subband (vifvec and
				// vifvec2-layers), s is computed once for all blocks (as a
				// prepared reference stores it) unless the reference
				// already holds it.
				var sAll [2][]float64
				var nKind [2]int
				for i := range fl {
					if lev < fl[i].height && dupOf[i] < 0 {
						nKind[gsmKind(fl[i].p)]++
					}
				}
				for kind := range sAll {
					sAll[kind] = r.s[lev][b][kind]
					if sAll[kind] == nil && nKind[kind] >= 2 {
						p := kindParams[kind]
						sAll[kind] = ws.blockSAll(kind, x, cw, ch, r.model(lev, b, p), p)
					}
				}
				sumsWin := 0 // the window ws.vert holds the sums of
				for i := range fl {
					f := &fl[i]
					if lev >= f.height || dupOf[i] >= 0 {
						continue
					}
					win := 1<<(f.height-lev) + 1
					if win != sumsWin {
						ws.windowSums(x, y, cw, ch, win)
						sumsWin = win
					}
					k := 2*(f.height-1-lev) + o
					kind := gsmKind(f.p)
					f.num[k], f.den[k] = ws.subband(x, cw, ch, win, r.model(lev, b, f.p), sAll[kind], f.p)
				}
			}
		}
		if lev < H-1 {
			for i, x := range img {
				if x == nil {
					continue
				}
				nn := ((lw + 1) / 2) * ((lh + 1) / 2)
				lowpassDown(next[i][:nn], lo[i], lw, lh, ws.xp, ws.tmp)
				lo[i], next[i] = next[i], lo[i]
			}
			lw, lh = (lw+1)/2, (lh+1)/2
		}
	}
	for i := range fl {
		if j := dupOf[i]; j >= 0 {
			fl[i].num, fl[i].den = fl[j].num, fl[j].den
		}
	}
}

// refLevel computes level lev of r from the reference's lowpass lo (lw×lh):
// the bands 0 and 3, cropped to a multiple of 3, and their GSM models.
func (ws *waveWorkspace) refLevel(r *waveRef, lev int, lo []float64, lw, lh int) {
	cw, ch := lw/blockM*blockM, lh/blockM*blockM
	b0, b3 := r.band[lev][0], r.band[lev][1]
	bandFilters(b0, b3, lo, lw, lh, cw, ch, ws.xp, ws.tmp)
	for b, x := range [2][]float64{b0, b3} {
		var S [9][9]float64
		var m [9]float64
		N := patchMoments(x, ch, cw, &S, &m)
		for k, p := range kindParams {
			if !r.kinds[k] {
				continue
			}
			g := &r.gsm[lev][b][k]
			g.fit(&S, &m, N, p)
			if s := r.s[lev][b][k]; s != nil {
				// s of every block, for scoring many distorted images.
				ws.blockSInto(s, x, cw, ch, g, p)
			}
		}
	}
}

// blockSInto writes s = yᵀ·Cu⁻¹·y/9 of every block of the cw×ch band x
// (row-major, cw/3 blocks per row) for the GSM model g of x into s.
func (ws *waveWorkspace) blockSInto(s, x []float64, cw, ch int, g *gsmModel, p waveParams) {
	nb := cw / blockM
	setBlockTable(&ws.tab, &g.inv, &g.lam, p.sigmaNSq)
	for R := range ch / blockM {
		row := x[R*blockM*cw:]
		blockS(s[R*nb:][:nb], row[:cw], row[cw:][:cw], row[2*cw:][:cw], 0, &g.inv, &ws.tab)
	}
}

// blockSAll returns s of every block of the cw×ch band x for the model g of
// GSM kind kind (blockSInto), in the workspace's buffer for that kind.
func (ws *waveWorkspace) blockSAll(kind int, x []float64, cw, ch int, g *gsmModel, p waveParams) []float64 {
	if ws.shared[kind] == nil {
		ws.shared[kind] = make([]float64, (ws.h/blockM)*(ws.w/blockM))
	}
	s := ws.shared[kind][:(ch/blockM)*(cw/blockM)]
	ws.blockSInto(s, x, cw, ch, g, p)
	return s
}

// vif combines the flavour's subband terms into VIF.
func (f *waveFlavour) vif() float64 {
	n := 2 * f.height
	var num, den float64
	if f.p.vifvec {
		for i := range n {
			num += f.num[i]
			den += f.den[i]
		}
		return num / den
	}
	for i := range n {
		num += f.num[i] + 1e-4
		den += f.den[i] + 1e-4
	}
	return (num / float64(n)) / (den / float64(n))
}

// subband returns the information terms (num, den) of one subband: x is the
// reference band, cw×ch (multiples of 3), win the statistics window side,
// g the GSM model of x for p's kind (gsmModel.fit), and ws.vert the window
// sums of x and the distorted band for win (windowSums). For VCRPy they are
// means over the kept blocks of Σ_j ln(1 + g²·s·λj/(σv²+σn²)) and
// Σ_j ln(1 + s·λj/σn²); for VIFVec sums.
//
// sAll, when not nil, holds s = yᵀ·Cu⁻¹·y/9 of every block of x for g
// (row-major, cw/3 blocks per row; waveRef.s), which the block products
// then read instead of computing it.
func (ws *waveWorkspace) subband(x []float64, cw, ch, win int, g *gsmModel, sAll []float64, p waveParams) (num, den float64) {
	a, b := ch/blockM, cw/blockM
	half := (win - 1) / 2
	off := (half + blockM - 1) / blockM // ⌈((w−1)/2)/M⌉
	nr, nc := a-2*off, b-2*off
	ws.channel(cw, ch, win, p)

	lam, inv := &g.lam, &g.inv
	setBlockTable(&ws.tab, inv, lam, p.sigmaNSq)

	var logNum, logDen float64
	prodNum, prodDen := 1.0, 1.0
	var expNum, expDen int
	for r := range nr {
		row := (r + off) * blockM
		gr := ws.g[r*nc:][:nc]
		vr := ws.sv[r*nc:][:nc]
		r0 := x[row*cw:][:cw]
		r1 := x[(row+1)*cw:][:cw]
		r2 := x[(row+2)*cw:][:cw]
		pns, pds := ws.pn[:nc], ws.pd[:nc]
		if sAll != nil {
			blockProductsS(pns, pds, sAll[(r+off)*b+off:][:nc], gr, vr, lam, p.sigmaNSq, &ws.tab)
		} else {
			blockProducts(pns, pds, r0, r1, r2, off*blockM, gr, vr, inv, lam, p.sigmaNSq, &ws.tab)
		}
		for c := range nc {
			pn, pd := pns[c], pds[c]
			if pn > 0x1p498 || pd > 0x1p498 || pn <= 0 || pd <= 0 {
				// Fall back to the sum of logs where a block's product is
				// huge (or a negative eigenvalue makes a factor ≤ 0).
				gn, sd := blockGainTerms(r0, r1, r2, (c+off)*blockM, gr[c], vr[c], inv, p.sigmaNSq)
				for _, l := range lam {
					logNum += math.Log(1 + gn*l)
					logDen += math.Log(1 + sd*l)
				}
				continue
			}
			// Σ ln = ln Π: accumulate the products, rescaling exactly by
			// 2⁻⁵⁰⁰ to stay finite, and take two logs per subband.
			prodNum *= pn
			prodDen *= pd
			if prodNum > 0x1p500 {
				prodNum *= 0x1p-500
				expNum++
			}
			if prodDen > 0x1p500 {
				prodDen *= 0x1p-500
				expDen++
			}
		}
	}
	const ln2x500 = 500 * math.Ln2
	sumNum := logNum + math.Log(prodNum) + float64(expNum)*ln2x500
	sumDen := logDen + math.Log(prodDen) + float64(expDen)*ln2x500
	if p.vifvec {
		return sumNum, sumDen
	}
	k := float64(nr * nc)
	return sumNum / k, sumDen / k
}

// vertAccGo writes prev[q·nc+c] + (hi[5c+q] − lo[5c+q]) into cur[q·nc+c]
// for the 5 quantities q and blocks c < nc: the prefixes hi and lo hold the
// quantities of a position together, the vertical prefixes cur and prev
// one plane of nc blocks per quantity.
func vertAccGo(cur, prev, hi, lo []float64, nc int) {
	cur, prev, hi, lo = cur[:5*nc], prev[:5*nc], hi[:5*nc], lo[:5*nc]
	for q := range 5 {
		for c := range nc {
			cur[q*nc+c] = prev[q*nc+c] + (hi[5*c+q] - lo[5*c+q])
		}
	}
}

// blockGainTerms returns, for the block whose top-left sample is column col
// of the rows r0, r1, r2, the factors gn = g²·s/(σv²+σn²) and sd = s/σn² of
// its eigenvalues, where s = yᵀ·Cu⁻¹·y/9; inv holds Cu⁻¹ with its upper
// triangle doubled.
func blockGainTerms(r0, r1, r2 []float64, col int, g, sv float64, inv *[9][9]float64, sigmaNSq float64) (gn, sd float64) {
	v := [9]float64{
		r0[col], r0[col+1], r0[col+2],
		r1[col], r1[col+1], r1[col+2],
		r2[col], r2[col+1], r2[col+2],
	}
	// yᵀ·Cu⁻¹·y = Σ_i y_i·(Cu⁻¹_ii·y_i + Σ_{j>i} 2·Cu⁻¹_ij·y_j).
	var q float64
	for i := range 9 {
		t := inv[i][i] * v[i]
		for j := i + 1; j < 9; j++ {
			t += inv[i][j] * v[j]
		}
		q += t * v[i]
	}
	s := q / 9
	return g * g * s / (sv + sigmaNSq), s / sigmaNSq
}

// blockProductsGo writes, for the blocks c of one block row (top-left
// sample at column col0 + 3c of the rows r0, r1, r2; gain g[c], noise
// sv[c]), the products pn[c] = Π_j (1 + gn·λj) and pd[c] = Π_j (1 + sd·λj)
// with gn, sd from blockGainTerms.
func blockProductsGo(pn, pd, r0, r1, r2 []float64, col0 int, g, sv []float64, inv *[9][9]float64, lam *[9]float64, sigmaNSq float64) {
	g, sv, pd = g[:len(pn)], sv[:len(pn)], pd[:len(pn)]
	for c := range pn {
		// blockGainTerms, inlined by hand (the compiler does not).
		col := col0 + c*blockM
		v := [9]float64{
			r0[col], r0[col+1], r0[col+2],
			r1[col], r1[col+1], r1[col+2],
			r2[col], r2[col+1], r2[col+2],
		}
		var q float64
		for i := range 9 {
			t := inv[i][i] * v[i]
			for j := i + 1; j < 9; j++ {
				t += inv[i][j] * v[j]
			}
			q += t * v[i]
		}
		s := q / 9
		gn, sd := g[c]*g[c]*s/(sv[c]+sigmaNSq), s/sigmaNSq
		// Two shorter product chains each, for instruction-level parallelism.
		p := (1 + gn*lam[0]) * (1 + gn*lam[1]) * (1 + gn*lam[2]) * (1 + gn*lam[3]) * (1 + gn*lam[4])
		pn[c] = p * ((1 + gn*lam[5]) * (1 + gn*lam[6]) * (1 + gn*lam[7]) * (1 + gn*lam[8]))
		p = (1 + sd*lam[0]) * (1 + sd*lam[1]) * (1 + sd*lam[2]) * (1 + sd*lam[3]) * (1 + sd*lam[4])
		pd[c] = p * ((1 + sd*lam[5]) * (1 + sd*lam[6]) * (1 + sd*lam[7]) * (1 + sd*lam[8]))
	}
}

// blockSGo writes, for the blocks c of one block row (top-left sample at
// column col0 + 3c of the rows r0, r1, r2), s[c] = yᵀ·Cu⁻¹·y/9 as
// blockProductsGo computes it.
func blockSGo(s, r0, r1, r2 []float64, col0 int, inv *[9][9]float64) {
	for c := range s {
		col := col0 + c*blockM
		v := [9]float64{
			r0[col], r0[col+1], r0[col+2],
			r1[col], r1[col+1], r1[col+2],
			r2[col], r2[col+1], r2[col+2],
		}
		var q float64
		for i := range 9 {
			t := inv[i][i] * v[i]
			for j := i + 1; j < 9; j++ {
				t += inv[i][j] * v[j]
			}
			q += t * v[i]
		}
		s[c] = q / 9
	}
}

// blockProductsSGo is blockProductsGo with s of each block given (blockSGo)
// instead of computed from its samples: the same operations follow.
func blockProductsSGo(pn, pd, s, g, sv []float64, lam *[9]float64, sigmaNSq float64) {
	s, g, sv, pd = s[:len(pn)], g[:len(pn)], sv[:len(pn)], pd[:len(pn)]
	for c := range pn {
		gn, sd := g[c]*g[c]*s[c]/(sv[c]+sigmaNSq), s[c]/sigmaNSq
		p := (1 + gn*lam[0]) * (1 + gn*lam[1]) * (1 + gn*lam[2]) * (1 + gn*lam[3]) * (1 + gn*lam[4])
		pn[c] = p * ((1 + gn*lam[5]) * (1 + gn*lam[6]) * (1 + gn*lam[7]) * (1 + gn*lam[8]))
		p = (1 + sd*lam[0]) * (1 + sd*lam[1]) * (1 + sd*lam[2]) * (1 + sd*lam[3]) * (1 + sd*lam[4])
		pd[c] = p * ((1 + sd*lam[5]) * (1 + sd*lam[6]) * (1 + sd*lam[7]) * (1 + sd*lam[8]))
	}
}

// windowRowsGo adds n ≤ 4 rows of window row sums to the vertical prefix
// vert (rows of 5·nc entries, one plane of nc blocks per quantity; row 0
// is the sum so far, rows 1…n are written). Input row i is
// x[xoff + i·cw:][:cols] (likewise y). Per row it
// forms horizontal prefix sums of x, y, x², y², xy, kept only where a window
// starts or ends — at columns 3t (p3) and, when two (w ≡ 2 mod 3), 3t+2
// (p2) — and adds each block's window row sums hi − lo, the window of
// block c spanning columns [3c, 3c+w), w = 3m (+2 when two). p3 and p2
// hold at least 5·(cols/3+1) samples (20·(cols/3+1) for the vectorised
// version).
func windowRowsGo(vert, x, y []float64, xoff, cw, n, cols, m int, two bool, p3, p2 []float64) {
	T := cols / blockM
	nc := len(vert) / (5 * (n + 1))
	p3 = p3[:5*(T+1)]
	p2 = p2[:5*(T+1)]
	for i := range 5 {
		p3[i] = 0
	}
	for rr := range n {
		xr := x[xoff+rr*cw:][:cols]
		yr := y[xoff+rr*cw:][:cols]
		var s1, s2, s3, s4, s5 float64
		for t := range T {
			xs := xr[3*t : 3*t+3 : 3*t+3]
			ys := yr[3*t : 3*t+3 : 3*t+3]
			x0, x1, x2 := xs[0], xs[1], xs[2]
			y0, y1, y2 := ys[0], ys[1], ys[2]
			s1 += x0
			s2 += y0
			s3 += x0 * x0
			s4 += y0 * y0
			s5 += x0 * y0
			s1 += x1
			s2 += y1
			s3 += x1 * x1
			s4 += y1 * y1
			s5 += x1 * y1
			if two {
				q := p2[5*t:][:5]
				q[0], q[1], q[2], q[3], q[4] = s1, s2, s3, s4, s5
			}
			s1 += x2
			s2 += y2
			s3 += x2 * x2
			s4 += y2 * y2
			s5 += x2 * y2
			q := p3[5*(t+1):][:5]
			q[0], q[1], q[2], q[3], q[4] = s1, s2, s3, s4, s5
		}
		if two {
			for j := 3 * T; j < cols; j++ {
				xv, yv := xr[j], yr[j]
				s1 += xv
				s2 += yv
				s3 += xv * xv
				s4 += yv * yv
				s5 += xv * yv
			}
			q := p2[5*T:][:5]
			q[0], q[1], q[2], q[3], q[4] = s1, s2, s3, s4, s5
		}
		hiArr := p3
		if two {
			hiArr = p2
		}
		prev := vert[5*rr*nc:][:5*nc]
		cur := vert[5*(rr+1)*nc:][:5*nc]
		// Window row sums hi − lo of block c: the prefixes are stored 5
		// per position, so the window of block c ends 5·m entries after
		// it starts.
		vertAccGo(cur, prev, hiArr[5*m:][:5*nc], p3[:5*nc], nc)
	}
}

// channelBlocksGo estimates the distortion channel of the blocks of one
// block row: gain gs[c] and noise variance svs[c] from the window sums
// bot[q·st+c] − top[q·st+c] of the quantities q = x, y, x², y², xy over ww
// samples.
func channelBlocksGo(gs, svs, top, bot []float64, st int, ww float64, p waveParams) {
	n := len(gs)
	svs = svs[:n]
	_, _ = top[4*st+n-1], bot[4*st+n-1]
	tol := p.tol
	for c := range gs {
		sx, sy := bot[c]-top[c], bot[st+c]-top[st+c]
		sxx, syy, sxy := bot[2*st+c]-top[2*st+c], bot[3*st+c]-top[3*st+c], bot[4*st+c]-top[4*st+c]
		muX, muY := sx/ww, sy/ww
		var g, sv float64
		if p.vifvec {
			// MATLAB vifvec: window sums (ss = Σx² − w²·μ²).
			cov := sxy - ww*muX*muY
			ssX := max(sxx-ww*muX*muX, 0)
			ssY := max(syy-ww*muY*muY, 0)
			g = cov / (ssX + tol)
			sv = (ssY - g*cov) / ww
			if ssX < tol {
				g, sv = 0, ssY
			}
			if ssY < tol {
				g, sv = 0, 0
			}
			if g < 0 {
				g, sv = 0, ssY
			}
			if sv < tol || (!p.strictClamp && sv == tol) {
				sv = tol
			}
		} else {
			varX := sxx/ww - muX*muX
			varY := syy/ww - muY*muY
			cov := sxy/ww - muX*muY
			if varX < 0 || varY < 0 {
				cov = 0
			}
			varX = max(varX, 0)
			varY = max(varY, 0)
			g = cov / (varX + tol)
			sv = varY - g*cov
			if varX < tol {
				g, sv = 0, varY
			}
			if varY < tol {
				g, sv = 0, 0
			}
			if g < 0 {
				g, sv = 0, varY
			}
			if sv < tol {
				sv = tol
			}
		}
		gs[c], svs[c] = g, sv
	}
}

// windowSums fills ws.vert with the vertical prefix sums of the window row
// sums of x, y, x², y², xy (per row one plane of nc blocks per quantity) (x the reference band, y the distorted one, both
// cw×ch) for the win×win windows of the kept blocks, which channel reads.
// The window of a kept block is centred on its centre pixel and never leaves
// the band, so the reflect padding of the reference never comes into play.
func (ws *waveWorkspace) windowSums(x, y []float64, cw, ch, win int) {
	r0, c0, rows, cols, _, nc := ws.windowGeometry(cw, ch, win)
	// Horizontal prefix sums of the 5 quantities, stored only where a
	// window starts or ends: at j = 3t (p3) and, for w ≡ 2 (mod 3), at
	// j = 3t+2 (p2). Window c spans [3c, 3c+w).
	m := win / blockM
	two := win%blockM == 2
	vert := ws.vert[:5*(rows+1)*nc]
	for i := range 5 * nc {
		vert[i] = 0
	}
	for rr := 0; rr < rows; rr += 4 {
		n := min(4, rows-rr)
		if simdKernels && n < 4 && rows >= 4 {
			// The vector kernel takes 4 rows: the last 4 once more. Rows
			// computed twice get the same values, from the same prefix
			// row before them.
			rr, n = rows-4, 4
		}
		windowRows(vert[5*rr*nc:][:5*(n+1)*nc], x, y, (r0+rr)*cw+c0, cw, n, cols, m, two, ws.pre, ws.pre2)
	}
}

// windowGeometry returns, for the win×win windows of the kept blocks of a
// cw×ch band, the first row r0 and column c0 of the first window, the rows
// and columns the windows span, and the number of kept block rows nr and
// columns nc.
func (ws *waveWorkspace) windowGeometry(cw, ch, win int) (r0, c0, rows, cols, nr, nc int) {
	a, b := ch/blockM, cw/blockM
	half := (win - 1) / 2
	off := (half + blockM - 1) / blockM // ⌈((w−1)/2)/M⌉
	nr, nc = a-2*off, b-2*off
	r0 = off*blockM + 1 - half
	c0 = off*blockM + 1 - half
	return r0, c0, (nr-1)*blockM + win, (nc-1)*blockM + win, nr, nc
}

// channel estimates the distortion channel (gain g and noise variance σv²)
// of the kept blocks r, c ∈ [off, a−off) × [off, b−off) of a cw×ch band
// into ws.g and ws.sv, from the window sums windowSums left in ws.vert for
// the window side win.
func (ws *waveWorkspace) channel(cw, ch, win int, p waveParams) {
	_, _, rows, _, nr, nc := ws.windowGeometry(cw, ch, win)
	vert := ws.vert[:5*(rows+1)*nc]
	ww := float64(win * win)
	for r := range nr {
		top := vert[5*blockM*r*nc:][:5*nc]
		bot := vert[5*(blockM*r+win)*nc:][:5*nc]
		channelBlocks(ws.g[r*nc:][:nc], ws.sv[r*nc:][:nc], top, bot, nc, ww, p)
	}
}
