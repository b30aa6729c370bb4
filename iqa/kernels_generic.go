//go:build !amd64 || purego

package iqa

// The pure-Go build (every architecture but amd64, or any with the build
// tag purego): every hot kernel is its scalar version (pyramid.go, gsm.go,
// wavelet.go, pixel.go). On amd64, kernels_amd64.go replaces these by
// vector versions in assembly with the same results.

// simdKernels reports whether the vectorised kernels are in use.
const simdKernels = false

func lo0Filter(dst, src []float64, w, h int, xp, tmp []float64) {
	lo0FilterGo(dst, src, w, h, xp, tmp)
}

func bandFilters(b0, b3, src []float64, w, h, cw, ch int, xp, tmp []float64) {
	bandFiltersGo(b0, b3, src, w, h, cw, ch, xp, tmp)
}

func lowpassDown(dst, src []float64, w, h int, xp, tmp []float64) {
	lowpassDownGo(dst, src, w, h, xp, tmp)
}

func patchCore(core *[13]float64, r0, r1, r2 []float64) float64 {
	return patchCoreGo(core, r0, r1, r2)
}

// blockTable holds nothing here: the scalar block kernels read their
// constants directly.
type blockTable struct{}

func setBlockTable(*blockTable, *[9][9]float64, *[9]float64, float64) {}

func blockProducts(pn, pd, r0, r1, r2 []float64, col0 int, g, sv []float64, inv *[9][9]float64, lam *[9]float64, sigmaNSq float64, _ *blockTable) {
	blockProductsGo(pn, pd, r0, r1, r2, col0, g, sv, inv, lam, sigmaNSq)
}

func blockS(s, r0, r1, r2 []float64, col0 int, inv *[9][9]float64, _ *blockTable) {
	blockSGo(s, r0, r1, r2, col0, inv)
}

func blockProductsS(pn, pd, s, g, sv []float64, lam *[9]float64, sigmaNSq float64, _ *blockTable) {
	blockProductsSGo(pn, pd, s, g, sv, lam, sigmaNSq)
}

func windowRows(vert, x, y []float64, xoff, cw, n, cols, m int, two bool, p3, p2 []float64) {
	windowRowsGo(vert, x, y, xoff, cw, n, cols, m, two, p3, p2)
}

func channelBlocks(gs, svs, top, bot []float64, st int, ww float64, p waveParams) {
	channelBlocksGo(gs, svs, top, bot, st, ww, p)
}

func pixelFactorsRow(a, b, d []float64) { pixelFactorsRowGo(a, b, d) }
