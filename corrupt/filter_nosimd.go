//go:build !amd64 || purego

package corrupt

// This file is the pure-Go kernel dispatch (every architecture but amd64,
// or the build tag purego): every kernel is the pure-Go version. On amd64
// filter_amd64.go selects assembly kernels, which give bit-identical
// results.

// corrRow writes out[x] = Σ_k k[i]·pad[x+i] for x < len(out); pad must hold
// len(out)+len(k)−1 samples.
func corrRow(out, pad, k []float32) { corrRowGo(out, pad, k) }

// corrRowSym is corrRow for a caller that knows whether k is symmetric (sym,
// unused by the pure-Go kernel).
func corrRowSym(out, pad, k []float32, _ bool) { corrRowGo(out, pad, k) }

// combineRows writes out[x] = Σ_k wts[k]·rows[k][x]. Every row must hold at
// least len(out) samples.
func combineRows(out []float32, rows [][]float32, wts []float32) { combineRowsGo(out, rows, wts) }

// diskRows is diskRowsGo (see there).
func diskRows(out, S []float32, sw, jy, fr int, ws []int) { diskRowsGo(out, S, sw, jy, fr, ws) }

// clampPlane clips every sample of p to [0, 1], NaN to 0, as
// imageio.Image.Clamp does.
func clampPlane(p []float32) { clampPlaneGo(p) }

// glassQuantize truncates glass blur's work plane to 8 bit (see
// glassQuantizeGo).
func glassQuantize(d []float32) { glassQuantizeGo(d) }

// combineRowsSym2 writes two output rows of a symmetric column filter:
// out0 from rows[:len(wts)] and out1 from rows[1:], both clipped as
// clampPlane does if clamp.
func combineRowsSym2(out0, out1 []float32, rows [][]float32, wts []float32, clamp bool) {
	combineRowsGo(out0, rows[:len(wts)], wts)
	combineRowsGo(out1, rows[1:], wts)
	if clamp {
		clampPlaneGo(out0)
		clampPlaneGo(out1)
	}
}

// noiseMix applies normal noise draws z to s (see noiseMixGo).
func noiseMix(d, s, z []float32, a, b float32) { noiseMixGo(d, s, z, a, b) }

// addRows adds a[x] + b[x] to out[x] (see addRowsGo).
func addRows(out, a, b []float32) { addRowsGo(out, a, b) }

// addRow adds a[x] to out[x] (see addRowGo).
func addRow(out, a []float32) { addRowGo(out, a) }

// glassOffs writes glass blur's source offsets of one row (see glassOffsGo).
func glassOffs(offs []int, st uint64, n uint64, w, base int) { glassOffsGo(offs, st, n, w, base) }

// zigFast fills z with the ziggurat's fast-path draws (see zigFastGo).
func zigFast(z []float32, rej *[noiseChunk]uint64, st uint64) int {
	return zigFastGo(z, 0, rej, 0, st)
}

// sparseRows is sparseRowsGo (see there).
func sparseRows(dst []float32, w int, pad []float32, pw int, offs []int, wts []float32, rows [][]float32, clamp bool) {
	sparseRowsGo(dst, w, pad, pw, offs, wts, rows, clamp)
}
