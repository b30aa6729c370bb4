package jpeg

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// refIdctIslow is libjpeg-turbo 2.1.5's jidctint.c jpeg_idct_islow written
// out plainly: coefficients in natural order, dequantised on the fly
// (DEQUANTIZE), JLONG arithmetic in int64, the int workspace, and both of
// libjpeg's zero tests (AC-zero columns, AC-zero rows).
func refIdctIslow(in *[64]int16, q *[64]int32) (out [64]uint8) {
	var ws [64]int32
	for c := range 8 {
		deq := func(r int) int64 { return int64(in[8*r+c]) * int64(q[8*r+c]) }
		acZero := true
		for r := 1; r < 8; r++ {
			acZero = acZero && in[8*r+c] == 0
		}
		if acZero {
			dc := int32(deq(0)) << pass1Bits
			for r := range 8 {
				ws[8*r+c] = dc
			}
			continue
		}
		// Even part.
		z2, z3 := deq(2), deq(6)
		z1 := (z2 + z3) * fix0541196100
		tmp2 := z1 + z3*-fix1847759065
		tmp3 := z1 + z2*fix0765366865
		z2, z3 = deq(0), deq(4)
		tmp0 := (z2 + z3) << constBits
		tmp1 := (z2 - z3) << constBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		// Odd part.
		tmp0, tmp1, tmp2, tmp3 = deq(7), deq(5), deq(3), deq(1)
		z1, z2, z3 = tmp0+tmp3, tmp1+tmp2, tmp0+tmp2
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
		desc := func(x int64) int32 { return int32((x + 1<<(constBits-pass1Bits-1)) >> (constBits - pass1Bits)) }
		ws[8*0+c], ws[8*7+c] = desc(tmp10+tmp3), desc(tmp10-tmp3)
		ws[8*1+c], ws[8*6+c] = desc(tmp11+tmp2), desc(tmp11-tmp2)
		ws[8*2+c], ws[8*5+c] = desc(tmp12+tmp1), desc(tmp12-tmp1)
		ws[8*3+c], ws[8*4+c] = desc(tmp13+tmp0), desc(tmp13-tmp0)
	}
	for r := range 8 {
		w := func(c int) int64 { return int64(ws[8*r+c]) }
		o := out[8*r : 8*r+8]
		limit := func(x int64, shift uint) uint8 {
			return rangeLimit[int((x+1<<(shift-1))>>shift)&1023]
		}
		acZero := true
		for c := 1; c < 8; c++ {
			acZero = acZero && ws[8*r+c] == 0
		}
		if acZero {
			v := limit(w(0), pass1Bits+3)
			for c := range o {
				o[c] = v
			}
			continue
		}
		z2, z3 := w(2), w(6)
		z1 := (z2 + z3) * fix0541196100
		tmp2 := z1 + z3*-fix1847759065
		tmp3 := z1 + z2*fix0765366865
		tmp0 := (w(0) + w(4)) << constBits
		tmp1 := (w(0) - w(4)) << constBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		tmp0, tmp1, tmp2, tmp3 = w(7), w(5), w(3), w(1)
		z1, z2, z3 = tmp0+tmp3, tmp1+tmp2, tmp0+tmp2
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
		const s = constBits + pass1Bits + 3
		o[0], o[7] = limit(tmp10+tmp3, s), limit(tmp10-tmp3, s)
		o[1], o[6] = limit(tmp11+tmp2, s), limit(tmp11-tmp2, s)
		o[2], o[5] = limit(tmp12+tmp1, s), limit(tmp12-tmp1, s)
		o[3], o[4] = limit(tmp13+tmp0, s), limit(tmp13-tmp0, s)
	}
	return out
}

// TestIdctMatchesReference checks idctBlock, on transposed dequantised
// blocks as the decoder builds them and with each shortcut it picks (DC
// only, 2×2, 4×4, full), against the plain transcription of libjpeg's
// jpeg_idct_islow above: random coefficients up to the last zig-zag
// position kmax, any 16-bit value (what a Huffman-coded size ≤ 15 gives)
// with mostly small ones, quantisers 1…255, and blocks with zero columns
// and rows. (Where int has 32 bits, smaller values: see below.)
func TestIdctMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 18))
	var out [8 * 16]uint8
	for it := range 200000 {
		kmax := []int{0, 1, 2, 3, 5, 9, 10, 20, 35, 63}[it%10]
		var b [64]int16
		var q [64]int32
		for i := range q {
			q[i] = 1 + rng.Int32N(255)
			if strconv.IntSize == 32 {
				// With 32-bit int, as with libjpeg's 32-bit JLONG, only
				// dequantised values of real 8-bit data (|coef·q| ≤ 2^11)
				// stay clear of overflow; keep them there.
				q[i] = 1 + rng.Int32N(8)
			}
		}
		for k := 0; k <= kmax; k++ {
			if rng.IntN(3) == 0 && k != kmax {
				continue // zero
			}
			var v int32
			switch rng.IntN(8) {
			case 0:
				v = rng.Int32N(65535) - 32767
				if strconv.IntSize == 32 {
					v = rng.Int32N(511) - 255
				}
			case 1, 2:
				v = rng.Int32N(511) - 255
			default:
				v = rng.Int32N(9) - 4
			}
			b[zigzag[k]] = int16(v)
		}
		if it%7 == 0 { // clear a column or a row
			i := rng.IntN(8)
			for j := range 8 {
				if it%2 == 0 {
					b[8*j+i] = 0
				} else {
					b[8*i+j] = 0
				}
			}
		}
		want := refIdctIslow(&b, &q)
		var tb [64]int32
		dequantT(&tb, &b, &q)
		idctBlock(out[3:], 16, &tb, kmax)
		for r := range 8 {
			for c := range 8 {
				if got := out[3+16*r+c]; got != want[8*r+c] {
					t.Fatalf("block %d (kmax %d): sample (%d,%d) = %d, want %d\ncoefs %v\nquant %v", it, kmax, r, c, got, want[8*r+c], b, q)
				}
			}
		}
	}
}

// dequantT writes the coefficients b (natural order) dequantised with q
// and transposed into t, the layout idctBlock reads.
func dequantT(t *[64]int32, b *[64]int16, q *[64]int32) {
	for r := range 8 {
		for c := range 8 {
			t[8*c+r] = int32(b[8*r+c]) * q[8*r+c]
		}
	}
}
