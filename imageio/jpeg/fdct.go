package jpeg

// fdctIslow is libjpeg's accurate integer forward DCT (jfdctint.c,
// jpeg_fdct_islow; Loeffler, Ligtenberg & Moschytz 1989) on one 8×8 block of
// level-shifted samples (sample − 128) in natural order, in place. The
// outputs are scaled up by 8 relative to a true DCT, as libjpeg's quantiser
// expects.
func fdctIslow(d *[64]int32) {
	for i := 0; i < 64; i += 8 {
		r := (*[8]int32)(d[i : i+8])
		tmp0 := r[0] + r[7]
		tmp7 := r[0] - r[7]
		tmp1 := r[1] + r[6]
		tmp6 := r[1] - r[6]
		tmp2 := r[2] + r[5]
		tmp5 := r[2] - r[5]
		tmp3 := r[3] + r[4]
		tmp4 := r[3] - r[4]

		tmp10 := tmp0 + tmp3
		tmp13 := tmp0 - tmp3
		tmp11 := tmp1 + tmp2
		tmp12 := tmp1 - tmp2
		r[0] = (tmp10 + tmp11) << pass1Bits
		r[4] = (tmp10 - tmp11) << pass1Bits
		z1 := (tmp12 + tmp13) * fix0541196100
		const s1, h1 = constBits - pass1Bits, 1 << (constBits - pass1Bits - 1)
		r[2] = (z1 + tmp13*fix0765366865 + h1) >> s1
		r[6] = (z1 - tmp12*fix1847759065 + h1) >> s1

		z1 = tmp4 + tmp7
		z2 := tmp5 + tmp6
		z3 := tmp4 + tmp6
		z4 := tmp5 + tmp7
		z5 := (z3 + z4) * fix1175875602
		tmp4 *= fix0298631336
		tmp5 *= fix2053119869
		tmp6 *= fix3072711026
		tmp7 *= fix1501321110
		z1 *= -fix0899976223
		z2 *= -fix2562915447
		z3 = z3*-fix1961570560 + z5
		z4 = z4*-fix0390180644 + z5
		r[7] = (tmp4 + z1 + z3 + h1) >> s1
		r[5] = (tmp5 + z2 + z4 + h1) >> s1
		r[3] = (tmp6 + z2 + z3 + h1) >> s1
		r[1] = (tmp7 + z1 + z4 + h1) >> s1
	}
	for c := range 8 {
		tmp0 := d[c] + d[56+c]
		tmp7 := d[c] - d[56+c]
		tmp1 := d[8+c] + d[48+c]
		tmp6 := d[8+c] - d[48+c]
		tmp2 := d[16+c] + d[40+c]
		tmp5 := d[16+c] - d[40+c]
		tmp3 := d[24+c] + d[32+c]
		tmp4 := d[24+c] - d[32+c]

		tmp10 := tmp0 + tmp3
		tmp13 := tmp0 - tmp3
		tmp11 := tmp1 + tmp2
		tmp12 := tmp1 - tmp2
		const s0, h0 = pass1Bits, 1 << (pass1Bits - 1)
		d[c] = (tmp10 + tmp11 + h0) >> s0
		d[32+c] = (tmp10 - tmp11 + h0) >> s0
		z1 := (tmp12 + tmp13) * fix0541196100
		const s2, h2 = constBits + pass1Bits, 1 << (constBits + pass1Bits - 1)
		d[16+c] = (z1 + tmp13*fix0765366865 + h2) >> s2
		d[48+c] = (z1 - tmp12*fix1847759065 + h2) >> s2

		z1 = tmp4 + tmp7
		z2 := tmp5 + tmp6
		z3 := tmp4 + tmp6
		z4 := tmp5 + tmp7
		z5 := (z3 + z4) * fix1175875602
		tmp4 *= fix0298631336
		tmp5 *= fix2053119869
		tmp6 *= fix3072711026
		tmp7 *= fix1501321110
		z1 *= -fix0899976223
		z2 *= -fix2562915447
		z3 = z3*-fix1961570560 + z5
		z4 = z4*-fix0390180644 + z5
		d[56+c] = (tmp4 + z1 + z3 + h2) >> s2
		d[40+c] = (tmp5 + z2 + z4 + h2) >> s2
		d[24+c] = (tmp6 + z2 + z3 + h2) >> s2
		d[8+c] = (tmp7 + z1 + z4 + h2) >> s2
	}
}
