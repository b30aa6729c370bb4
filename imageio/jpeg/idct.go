package jpeg

// rangeLimit is libjpeg's post-IDCT range-limit table (jdmaster.c
// prepare_range_limit_table) indexed by (x & 1023) for an output x before
// the +128 level shift: x in [−128, 127] maps to x + 128, larger x up to 383
// to 255, smaller x down to −512 to 0; beyond that it wraps as libjpeg's
// table does for corrupt data.
var rangeLimit = func() (t [1024]uint8) {
	for i := range t {
		switch {
		case i < 128:
			t[i] = uint8(i + 128)
		case i < 512:
			t[i] = 255
		case i < 896:
			t[i] = 0
		default:
			t[i] = uint8(i - 896)
		}
	}
	return t
}()

// The inverse DCTs below read a block of dequantised coefficients stored
// transposed, in[8·col+row] = coef[row][col]·q[row][col], so that a column of
// the first pass lies in consecutive entries. A product of a 16-bit
// coefficient and a 16-bit quantiser always fits in an int32.

// idctIslow is libjpeg's accurate integer inverse DCT (jidctint.c,
// jpeg_idct_islow) of one block (transposed, dequantised), written as 8×8
// samples at out[0:], rows stride apart.
func idctIslow(out []uint8, stride int, in *[64]int32) {
	var ws [64]int32
	for c := range 8 {
		col := (*[8]int32)(in[8*c : 8*c+8])
		if col[1]|col[2]|col[3]|col[4]|col[5]|col[6]|col[7] == 0 {
			dc := col[0] << pass1Bits
			for r := range 8 {
				ws[8*r+c] = dc
			}
			continue
		}
		z2 := int(col[2])
		z3 := int(col[6])
		z1 := (z2 + z3) * fix0541196100
		tmp2 := z1 - z3*fix1847759065
		tmp3 := z1 + z2*fix0765366865
		z2 = int(col[0])
		z3 = int(col[4])
		tmp0 := (z2 + z3) << constBits
		tmp1 := (z2 - z3) << constBits
		tmp10 := tmp0 + tmp3
		tmp13 := tmp0 - tmp3
		tmp11 := tmp1 + tmp2
		tmp12 := tmp1 - tmp2

		tmp0 = int(col[7])
		tmp1 = int(col[5])
		tmp2 = int(col[3])
		tmp3 = int(col[1])
		z1 = tmp0 + tmp3
		z2 = tmp1 + tmp2
		z3 = tmp0 + tmp2
		z4 := tmp1 + tmp3
		z5 := (z3 + z4) * fix1175875602
		tmp0 *= fix0298631336
		tmp1 *= fix2053119869
		tmp2 *= fix3072711026
		tmp3 *= fix1501321110
		z1 *= -fix0899976223
		z2 *= -fix2562915447
		z3 = z3*-fix1961570560 + z5
		z4 = z4*-fix0390180644 + z5
		tmp0 += z1 + z3
		tmp1 += z2 + z4
		tmp2 += z2 + z3
		tmp3 += z1 + z4

		const s1, h1 = constBits - pass1Bits, 1 << (constBits - pass1Bits - 1)
		ws[c] = int32((tmp10 + tmp3 + h1) >> s1)
		ws[56+c] = int32((tmp10 - tmp3 + h1) >> s1)
		ws[8+c] = int32((tmp11 + tmp2 + h1) >> s1)
		ws[48+c] = int32((tmp11 - tmp2 + h1) >> s1)
		ws[16+c] = int32((tmp12 + tmp1 + h1) >> s1)
		ws[40+c] = int32((tmp12 - tmp1 + h1) >> s1)
		ws[24+c] = int32((tmp13 + tmp0 + h1) >> s1)
		ws[32+c] = int32((tmp13 - tmp0 + h1) >> s1)
	}
	idctRows(out, stride, &ws)
}

// idctRows is the second (row) pass of idctIslow over the workspace ws.
func idctRows(out []uint8, stride int, ws *[64]int32) {
	for r := range 8 {
		w := (*[8]int32)(ws[8*r : 8*r+8])
		o := (*[8]uint8)(out[r*stride : r*stride+8])
		if w[1]|w[2]|w[3]|w[4]|w[5]|w[6]|w[7] == 0 {
			const s, h = pass1Bits + 3, 1 << (pass1Bits + 2)
			v := rangeLimit[((int(w[0])+h)>>s)&1023]
			*o = [8]uint8{v, v, v, v, v, v, v, v}
			continue
		}
		z2 := int(w[2])
		z3 := int(w[6])
		z1 := (z2 + z3) * fix0541196100
		tmp2 := z1 - z3*fix1847759065
		tmp3 := z1 + z2*fix0765366865
		tmp0 := (int(w[0]) + int(w[4])) << constBits
		tmp1 := (int(w[0]) - int(w[4])) << constBits
		tmp10 := tmp0 + tmp3
		tmp13 := tmp0 - tmp3
		tmp11 := tmp1 + tmp2
		tmp12 := tmp1 - tmp2

		tmp0 = int(w[7])
		tmp1 = int(w[5])
		tmp2 = int(w[3])
		tmp3 = int(w[1])
		z1 = tmp0 + tmp3
		z2 = tmp1 + tmp2
		z3 = tmp0 + tmp2
		z4 := tmp1 + tmp3
		z5 := (z3 + z4) * fix1175875602
		tmp0 *= fix0298631336
		tmp1 *= fix2053119869
		tmp2 *= fix3072711026
		tmp3 *= fix1501321110
		z1 *= -fix0899976223
		z2 *= -fix2562915447
		z3 = z3*-fix1961570560 + z5
		z4 = z4*-fix0390180644 + z5
		tmp0 += z1 + z3
		tmp1 += z2 + z4
		tmp2 += z2 + z3
		tmp3 += z1 + z4

		const s2, h2 = constBits + pass1Bits + 3, 1 << (constBits + pass1Bits + 2)
		o[0] = rangeLimit[((tmp10+tmp3+h2)>>s2)&1023]
		o[7] = rangeLimit[((tmp10-tmp3+h2)>>s2)&1023]
		o[1] = rangeLimit[((tmp11+tmp2+h2)>>s2)&1023]
		o[6] = rangeLimit[((tmp11-tmp2+h2)>>s2)&1023]
		o[2] = rangeLimit[((tmp12+tmp1+h2)>>s2)&1023]
		o[5] = rangeLimit[((tmp12-tmp1+h2)>>s2)&1023]
		o[3] = rangeLimit[((tmp13+tmp0+h2)>>s2)&1023]
		o[4] = rangeLimit[((tmp13-tmp0+h2)>>s2)&1023]
	}
}

// idctDC is idctIslow for a block whose AC coefficients are all zero, from
// the dequantised DC term dcq: every sample goes through the same
// fixed-point steps (column pass dcq·2^2, row pass descaled by 2^5), so the
// result is identical.
func idctDC(out []uint8, stride int, dcq int32) {
	v := rangeLimit[((int(dcq)<<pass1Bits+1<<(pass1Bits+2))>>(pass1Bits+3))&1023]
	row := [8]uint8{v, v, v, v, v, v, v, v}
	for r := range 8 {
		*(*[8]uint8)(out[r*stride : r*stride+8]) = row
	}
}

// idct4x4 is idctIslow for a block whose nonzero coefficients all lie in
// the top-left 4×4 corner (zig-zag positions 0…9): the same arithmetic with
// the terms of the zero inputs left out, so the result is identical.
func idct4x4(out []uint8, stride int, in *[64]int32) {
	var ws [64]int32
	for c := range 4 {
		col := (*[4]int32)(in[8*c : 8*c+4])
		if col[1]|col[2]|col[3] == 0 {
			dc := col[0] << pass1Bits
			for r := range 8 {
				ws[8*r+c] = dc
			}
			continue
		}
		z2 := int(col[2])
		z1 := z2 * fix0541196100
		tmp2 := z1
		tmp3 := z1 + z2*fix0765366865
		tmp0 := int(col[0]) << constBits
		tmp10 := tmp0 + tmp3
		tmp13 := tmp0 - tmp3
		tmp11 := tmp0 + tmp2
		tmp12 := tmp0 - tmp2

		o2 := int(col[3])
		o3 := int(col[1])
		z5 := (o2 + o3) * fix1175875602
		z1 = o3 * -fix0899976223
		z2 = o2 * -fix2562915447
		z3 := o2*-fix1961570560 + z5
		z4 := o3*-fix0390180644 + z5
		tmp0 = z1 + z3
		tmp1 := z2 + z4
		tmp2 = o2*fix3072711026 + z2 + z3
		tmp3 = o3*fix1501321110 + z1 + z4

		const s1, h1 = constBits - pass1Bits, 1 << (constBits - pass1Bits - 1)
		ws[c] = int32((tmp10 + tmp3 + h1) >> s1)
		ws[56+c] = int32((tmp10 - tmp3 + h1) >> s1)
		ws[8+c] = int32((tmp11 + tmp2 + h1) >> s1)
		ws[48+c] = int32((tmp11 - tmp2 + h1) >> s1)
		ws[16+c] = int32((tmp12 + tmp1 + h1) >> s1)
		ws[40+c] = int32((tmp12 - tmp1 + h1) >> s1)
		ws[24+c] = int32((tmp13 + tmp0 + h1) >> s1)
		ws[32+c] = int32((tmp13 - tmp0 + h1) >> s1)
	}
	for r := range 8 {
		w := (*[4]int32)(ws[8*r : 8*r+4])
		o := (*[8]uint8)(out[r*stride : r*stride+8])
		if w[1]|w[2]|w[3] == 0 {
			const s, h = pass1Bits + 3, 1 << (pass1Bits + 2)
			v := rangeLimit[((int(w[0])+h)>>s)&1023]
			*o = [8]uint8{v, v, v, v, v, v, v, v}
			continue
		}
		z2 := int(w[2])
		z1 := z2 * fix0541196100
		tmp2 := z1
		tmp3 := z1 + z2*fix0765366865
		tmp0 := int(w[0]) << constBits
		tmp10 := tmp0 + tmp3
		tmp13 := tmp0 - tmp3
		tmp11 := tmp0 + tmp2
		tmp12 := tmp0 - tmp2

		o2 := int(w[3])
		o3 := int(w[1])
		z5 := (o2 + o3) * fix1175875602
		z1 = o3 * -fix0899976223
		z2 = o2 * -fix2562915447
		z3 := o2*-fix1961570560 + z5
		z4 := o3*-fix0390180644 + z5
		tmp0 = z1 + z3
		tmp1 := z2 + z4
		tmp2 = o2*fix3072711026 + z2 + z3
		tmp3 = o3*fix1501321110 + z1 + z4

		const s2, h2 = constBits + pass1Bits + 3, 1 << (constBits + pass1Bits + 2)
		o[0] = rangeLimit[((tmp10+tmp3+h2)>>s2)&1023]
		o[7] = rangeLimit[((tmp10-tmp3+h2)>>s2)&1023]
		o[1] = rangeLimit[((tmp11+tmp2+h2)>>s2)&1023]
		o[6] = rangeLimit[((tmp11-tmp2+h2)>>s2)&1023]
		o[2] = rangeLimit[((tmp12+tmp1+h2)>>s2)&1023]
		o[5] = rangeLimit[((tmp12-tmp1+h2)>>s2)&1023]
		o[3] = rangeLimit[((tmp13+tmp0+h2)>>s2)&1023]
		o[4] = rangeLimit[((tmp13-tmp0+h2)>>s2)&1023]
	}
}

// idctBlock runs the cheapest exact inverse DCT for a block (transposed,
// dequantised) whose last nonzero coefficient is at zig-zag position kmax
// or before.
func idctBlock(out []uint8, stride int, in *[64]int32, kmax int) {
	switch {
	case kmax == 0:
		idctDC(out, stride, in[0])
	case idctVec(out, stride, in, kmax):
		// The vector inverse DCT did it (AVX2; see idctVec).
	case kmax <= 2:
		idct2x2(out, stride, in)
	case kmax <= 9:
		idct4x4(out, stride, in)
	default:
		idctIslow(out, stride, in)
	}
}

// idct2x2 is idctIslow for a block whose nonzero coefficients are among
// the first three in zig-zag order (natural 0, 1 and 8: the top-left 2×2
// corner), with the terms of the zero inputs left out: identical results.
func idct2x2(out []uint8, stride int, in *[64]int32) {
	var ws [16]int32 // columns 0 and 1 of the workspace, 8 rows each
	for c := range 2 {
		t := int(in[8*c]) << constBits
		o3 := int(in[8*c+1])
		const s1, h1 = constBits - pass1Bits, 1 << (constBits - pass1Bits - 1)
		col := (*[8]int32)(ws[8*c : 8*c+8])
		if o3 == 0 {
			v := int32((t + h1) >> s1)
			*col = [8]int32{v, v, v, v, v, v, v, v}
			continue
		}
		z5 := o3 * fix1175875602
		z1 := o3 * -fix0899976223
		z4 := o3*-fix0390180644 + z5
		tmp0 := z1 + z5
		tmp1 := z4
		tmp2 := z5
		tmp3 := o3*fix1501321110 + z1 + z4
		col[0] = int32((t + tmp3 + h1) >> s1)
		col[7] = int32((t - tmp3 + h1) >> s1)
		col[1] = int32((t + tmp2 + h1) >> s1)
		col[6] = int32((t - tmp2 + h1) >> s1)
		col[2] = int32((t + tmp1 + h1) >> s1)
		col[5] = int32((t - tmp1 + h1) >> s1)
		col[3] = int32((t + tmp0 + h1) >> s1)
		col[4] = int32((t - tmp0 + h1) >> s1)
	}
	for r := range 8 {
		o := (*[8]uint8)(out[r*stride : r*stride+8])
		w0, w1 := int(ws[r]), int(ws[8+r])
		if w1 == 0 {
			const s, h = pass1Bits + 3, 1 << (pass1Bits + 2)
			v := rangeLimit[((w0+h)>>s)&1023]
			*o = [8]uint8{v, v, v, v, v, v, v, v}
			continue
		}
		t := w0 << constBits
		z5 := w1 * fix1175875602
		z1 := w1 * -fix0899976223
		z4 := w1*-fix0390180644 + z5
		tmp0 := z1 + z5
		tmp1 := z4
		tmp2 := z5
		tmp3 := w1*fix1501321110 + z1 + z4
		const s2, h2 = constBits + pass1Bits + 3, 1 << (constBits + pass1Bits + 2)
		o[0] = rangeLimit[((t+tmp3+h2)>>s2)&1023]
		o[7] = rangeLimit[((t-tmp3+h2)>>s2)&1023]
		o[1] = rangeLimit[((t+tmp2+h2)>>s2)&1023]
		o[6] = rangeLimit[((t-tmp2+h2)>>s2)&1023]
		o[2] = rangeLimit[((t+tmp1+h2)>>s2)&1023]
		o[5] = rangeLimit[((t-tmp1+h2)>>s2)&1023]
		o[3] = rangeLimit[((t+tmp0+h2)>>s2)&1023]
		o[4] = rangeLimit[((t-tmp0+h2)>>s2)&1023]
	}
}
