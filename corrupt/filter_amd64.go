//go:build amd64 && !purego

package corrupt

import "golang.org/x/sys/cpu"

//go:generate go -C ../internal/asmgen run ./corrupt -out ../../corrupt/filter_amd64.s -stubs ../../corrupt/filter_amd64_decl.go -pkg corrupt

// This file is the amd64 kernel dispatch (the default build and
// GOEXPERIMENT=simd alike): the vector loops
// of the separable filters (corrRow, combineRows, combineRowsSym2), of the
// sparse correlation (sparseRows), of the
// disk blur's rows and fold corrections (addRows, addRow), of glass blur's
// 8-bit truncation and source offsets (glassOffs), of the noise mix, of the
// ziggurat's fast path of the normal draws (zigFast) and of the clamp are
// AVX2 assembly (filter_amd64.s, generated
// by internal/asmgen/corrupt with avo), used when the CPU has AVX2; every
// lane does exactly the float32 (or integer) operations of the pure-Go kernel in the
// same order, so the results are bit-identical (filter_amd64_test.go). The
// other kernels are pure Go. The build tag purego selects filter_nosimd.go.
// (Until 2026-11-26 GOEXPERIMENT=simd selected archsimd kernels instead;
// they had become 30 % slower than this assembly and were removed.)

// simdKernels reports whether the assembly kernels are in use. Tests switch
// it off to compare both paths in one binary.
var simdKernels = cpu.X86.HasAVX2

// corrRow writes out[x] = Σ_k k[i]·pad[x+i] for x < len(out); pad must hold
// len(out)+len(k)−1 samples.
func corrRow(out, pad, k []float32) {
	corrRowSym(out, pad, k, len(k)%2 == 1 && isSymmetric(k))
}

// corrRowSym is corrRow for a caller that knows whether k is symmetric:
// sym must be len(k)%2 == 1 && isSymmetric(k) (separable checks it once
// per plane instead of once per row).
func corrRowSym(out, pad, k []float32, sym bool) {
	if simdKernels {
		corrRowAVX2(out, pad, k, sym)
		return
	}
	corrRowGo(out, pad, k)
}

// corrRowAVX2 is corrRowGo with the whole vectors in assembly; sym as for
// corrRowSym.
func corrRowAVX2(out, pad, k []float32, sym bool) {
	n := len(k)
	if n == 0 {
		corrRowGo(out, pad, k)
		return
	}
	pad = pad[:len(out)+n-1]
	x := len(out) &^ 7
	if x < len(out) && x > 0 {
		// The last vector overlaps the one before: its first outputs are
		// computed twice, with the same operations, instead of in Go.
		t := len(out) - 8
		asmCorrRow(out[t:], pad[t:], k, sym)
	} else if x < len(out) {
		corrRowGo(out[x:], pad[x:], k)
	}
	asmCorrRow(out[:x], pad, k, sym)
}

func asmCorrRow(out, pad, k []float32, sym bool) {
	if sym {
		corrRowSymAsm(out, pad, k)
	} else {
		corrRowGenAsm(out, pad, k)
	}
}

// combineRows writes out[x] = Σ_k wts[k]·rows[k][x]. Every row must hold at
// least len(out) samples.
func combineRows(out []float32, rows [][]float32, wts []float32) {
	if simdKernels {
		combineRowsAVX2(out, rows, wts, len(wts) >= 3 && len(wts)%2 == 1 && isSymmetric(wts))
		return
	}
	combineRowsGo(out, rows, wts)
}

// combineRowsAVX2 is combineRowsGo with the whole vectors in assembly; sym
// must be len(wts) >= 3 && len(wts)%2 == 1 && isSymmetric(wts).
func combineRowsAVX2(out []float32, rows [][]float32, wts []float32, sym bool) {
	n := len(out)
	rows = rows[:len(wts)]
	for _, r := range rows {
		_ = r[:n]
	}
	if n >= 8 {
		// The assembly computes the last n mod 8 outputs itself, as one
		// more vector overlapping the one before.
		asmCombineRows(out, rows, wts, sym)
		return
	}
	combineRowsGo(out, rows, wts) // shorter than a vector
}

func asmCombineRows(out []float32, rows [][]float32, wts []float32, sym bool) {
	if sym {
		combineRowsSymAsm(out, rows, wts)
	} else {
		combineRowsGenAsm(out, rows, wts)
	}
}

// sparseRows writes every row y of dst (width w) as combineRows of the rows
// pad[y·pw+offs[k]:][:w] with weights wts (sparseCorr's rows); rows is
// scratch of len(wts); if clamp, dst is clipped as clampPlane does. With AVX2 and weights that are not symmetric (the
// symmetric ones take combineRows' folded path) the rows are read through
// their offsets by combineOffAsm, without building slices per row; the
// offsets are checked against pad once per plane.
func sparseRows(dst []float32, w int, pad []float32, pw int, offs []int, wts []float32, rows [][]float32, clamp bool) {
	nk := len(wts)
	if !simdKernels || len(dst) == 0 || nk == 0 || (nk >= 3 && nk%2 == 1 && isSymmetric(wts)) {
		sparseRowsGo(dst, w, pad, pw, offs, wts, rows, clamp)
		return
	}
	h := len(dst) / w
	offs = offs[:nk]
	last := (h-1)*pw + w // one past the last sample row h−1 reads, from offset 0
	for _, o := range offs {
		if o < 0 || o > len(pad)-last {
			panic("corrupt: sparseRows offset outside the padded plane")
		}
	}
	x8 := w &^ 7
	for y := range h {
		row := dst[y*w : (y+1)*w]
		base := pad[y*pw:]
		if x8 > 0 {
			offAsm(row[:x8], base, offs, wts, clamp)
			if x8 < w {
				// One more vector, overlapping the one before (its first
				// outputs are computed twice, with the same operations).
				offAsm(row[w-8:], base[w-8:], offs, wts, clamp)
			}
			continue
		}
		// Rows narrower than a vector: combineRowsGo's scalar tail.
		for x := x8; x < w; x++ {
			var s float32
			for k, v := range wts {
				s += v * base[offs[k]+x]
			}
			row[x] = s
		}
	}
	if clamp && x8 == 0 {
		clampPlane(dst)
	}
}

// combineRowsSym2 writes two output rows of a symmetric column filter
// (odd len(wts) ≥ 3): out0 from rows[:len(wts)] and out1 from rows[1:],
// both clipped as clampPlane does if clamp.
func combineRowsSym2(out0, out1 []float32, rows [][]float32, wts []float32, clamp bool) {
	n := len(wts)
	if !simdKernels || n < 3 || n%2 == 0 || !isSymmetric(wts) {
		combineRows(out0, rows[:n], wts)
		combineRows(out1, rows[1:n+1], wts)
		if clamp {
			clampPlane(out0)
			clampPlane(out1)
		}
		return
	}
	w := len(out0)
	out1 = out1[:w]
	rows = rows[:n+1]
	for _, r := range rows {
		_ = r[:w]
	}
	if w >= 8 {
		// The assembly computes the last w mod 8 outputs itself, as one
		// more vector overlapping the one before.
		sym2Asm(out0, out1, rows, wts, clamp)
		return
	}
	// Rows shorter than a vector: Go.
	combineRowsGo(out0, rows[:n], wts)
	combineRowsGo(out1, rows[1:], wts)
	if clamp {
		clampPlane(out0)
		clampPlane(out1)
	}
}

// diskRows is diskRowsGo (see there).
func diskRows(out, S []float32, sw, jy, fr int, ws []int) {
	if !simdKernels || fr >= 63 {
		diskRowsGo(out, S, sw, jy, fr, ws)
		return
	}
	diskRowsAVX2(out, S, sw, jy, fr, ws)
}

// diskRowsAVX2 is diskRowsGo with the whole vectors in assembly: the start
// offsets in S of the rows each output reads are computed here and checked
// against len(S).
func diskRowsAVX2(out, S []float32, sw, jy, fr int, ws []int) {
	n := len(out)
	x := n &^ 7
	ws = ws[:fr+1]
	var buf [2 + 4*62]int
	offs := buf[:0]
	row := func(o int) {
		_ = S[o : o+n] // every read lies in S
		offs = append(offs, o)
	}
	c := (jy + fr) * sw
	_ = S[c : c+sw]
	row(c + fr + ws[0] + 1)
	row(c + fr - ws[0])
	for j := 1; j <= fr; j++ {
		wj := ws[j]
		a, b := (jy+fr+j)*sw, (jy+fr-j)*sw
		_, _ = S[a:a+sw], S[b:b+sw]
		row(a + fr + wj + 1)
		row(b + fr + wj + 1)
		row(a + fr - wj)
		row(b + fr - wj)
	}
	diskRowsAsm(out[:x], S, offs)
	for ; x < n; x++ { // diskRowsGo's scalar tail
		s := S[offs[0]+x] - S[offs[1]+x]
		for j := 1; j <= fr; j++ {
			o := offs[4*j-2:][:4]
			s += (S[o[0]+x] + S[o[1]+x]) - (S[o[2]+x] + S[o[3]+x])
		}
		out[x] = s
	}
}

// clampPlane clips every sample of p to [0, 1], NaN to 0, as
// imageio.Image.Clamp does.
func clampPlane(p []float32) {
	if !simdKernels {
		clampPlaneGo(p)
		return
	}
	x := len(p) &^ 7
	clampPlaneAsm(p[:x])
	clampPlaneGo(p[x:])
}

// glassQuantize truncates glass blur's work plane to 8 bit (see
// glassQuantizeGo). The vector path turns level k into
// float32(float64(k)·(1/255)), which equals imageio.From8's float32(k)/255
// for every k (TestSIMDGlassQuantizeExact).
func glassQuantize(d []float32) {
	if !simdKernels {
		glassQuantizeGo(d)
		return
	}
	x := len(d) &^ 3
	c := [3]float64{255, 1e-3, 1.0 / 255}
	glassQuantizeAsm(d[:x], &c)
	glassQuantizeGo(d[x:])
}

// noiseMix applies normal noise draws z to s (see noiseMixGo).
func noiseMix(d, s, z []float32, a, b float32) {
	if !simdKernels {
		noiseMixGo(d, s, z, a, b)
		return
	}
	n := len(s)
	d, z = d[:n], z[:n]
	x := n &^ 7
	c := [2]float32{a, b}
	switch {
	case b == 0:
		noiseMixAAsm(d[:x], s, z, &c)
	case a == 0:
		noiseMixBAsm(d[:x], s, z, &c)
	default:
		noiseMixABAsm(d[:x], s, z, &c)
	}
	noiseMixGo(d[x:], s[x:], z[x:], a, b)
}

// offAsm calls combineOffAsm, or combineOffClampAsm (the clamp fused into
// the stores) if clamp. (Direct calls: a function value would make the
// slices escape.)
func offAsm(out, base []float32, offs []int, wts []float32, clamp bool) {
	if clamp {
		combineOffClampAsm(out, base, offs, wts)
	} else {
		combineOffAsm(out, base, offs, wts)
	}
}

// sym2Asm calls combineRowsSym2Asm, or combineRowsSym2ClampAsm if clamp.
func sym2Asm(out0, out1 []float32, rows [][]float32, wts []float32, clamp bool) {
	if clamp {
		combineRowsSym2ClampAsm(out0, out1, rows, wts)
	} else {
		combineRowsSym2Asm(out0, out1, rows, wts)
	}
}

// zigFast fills z (len(z) even, at most noiseChunk) with the ziggurat's
// fast-path draws from generator state st and queues the rejected ones in
// rej (see zigFastGo, from = 0, nr = 0); it returns how many it queued.
func zigFast(z []float32, rej *[noiseChunk]uint64, st uint64) int {
	if !simdKernels {
		return zigFastGo(z, 0, rej, 0, st)
	}
	x := len(z) &^ 7
	nr := zigNormalsAsm(z[:x], rej[:], st, &zigWK)
	return zigFastGo(z, x, rej, nr, st+uint64(x/2)*noiseWyInc)
}

// glassOffs writes glass blur's source offsets of one row (see
// glassOffsGo), four at a time in assembly.
func glassOffs(offs []int, st uint64, n uint64, w, base int) {
	if !simdKernels || n >= 1<<32 || uint64(w) >= 1<<32 {
		glassOffsGo(offs, st, n, w, base)
		return
	}
	x := len(offs) &^ 3
	c := [3]uint64{n, uint64(w), uint64(base)}
	glassOffsAsm(offs[:x], st, &c)
	glassOffsGo(offs[x:], st+uint64(x)*wyInc, n, w, base)
}

// addRows adds a[x] + b[x] to out[x] (see addRowsGo).
func addRows(out, a, b []float32) {
	a, b = a[:len(out)], b[:len(out)]
	if !simdKernels {
		addRowsGo(out, a, b)
		return
	}
	x := len(out) &^ 7
	addRowsAsm(out[:x], a, b)
	addRowsGo(out[x:], a[x:], b[x:])
}

// addRow adds a[x] to out[x] (see addRowGo).
func addRow(out, a []float32) {
	a = a[:len(out)]
	if !simdKernels {
		addRowGo(out, a)
		return
	}
	x := len(out) &^ 7
	addRowAsm(out[:x], a)
	addRowGo(out[x:], a[x:])
}
