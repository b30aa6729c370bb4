package jpeg

import (
	"errors"
	"fmt"
	"math/bits"
)

// MaxSize is the largest width or height a baseline JPEG frame header can
// declare.
const MaxSize = 65535

// DefaultQuality is libjpeg's (and so Pillow's) default quality.
const DefaultQuality = 75

// ErrSize is returned (wrapped) by the encoders for an empty image or one
// wider or taller than MaxSize.
var ErrSize = errors.New("jpeg: image size out of range")

// Encoder encodes baseline JPEG files byte for byte as libjpeg-turbo does
// with the settings Pillow's Image.save uses by default (see the package
// documentation). An Encoder reuses its buffers between calls; it is not
// safe for concurrent use. The zero value is ready to use.
type Encoder struct {
	y, cb, cr  []uint8 // padded component planes
	rowCb      []uint8 // two full-resolution chroma rows
	rowCr      []uint8
	quality    int
	qtab       [2][64]uint16 // natural order
	div        [2]divisors
	huff       [4]huffEnc
	haveTables bool
	w          bitWriter
	// restart, when positive, writes a restart marker every restart MCUs
	// (a DRI segment and RSTn markers, as libjpeg's restart_interval).
	// Pillow's defaults write none; the tests use it to exercise the
	// decoder's restart handling.
	restart int
	rstN    int
	mcus    int
}

// divisors are libjpeg-turbo's reciprocal-multiplication quantiser
// parameters for one table (jcdctmgr.c, compute_reciprocal), for 16-bit
// DCTELEM as in its SIMD builds (Debian's and Pillow's wheels).
type divisors struct {
	corr [64]uint32
	// mul is libjpeg's reciprocal times 2^(32−shift), so that
	// (|v| + corr)·mul >> 32 equals its (|v| + corr)·recip >> shift exactly
	// (the product stays below 2^48).
	mul [64]uint64
	// recip and shift are the reciprocal itself and the shift, for the
	// vector quantiser (fdctQuantAsm), whose (|v| + corr)·recip stays
	// below 2^32.
	recip, shift [64]uint32
}

// huffEnc is a derived encoding table: code and length per symbol.
type huffEnc struct {
	code [256]uint16
	size [256]uint8
}

// qualityScale is libjpeg's jpeg_quality_scaling: quality 1…100 (clamped)
// to a percentage scale of the standard tables.
func qualityScale(q int) int {
	q = min(max(q, 1), 100)
	if q < 50 {
		return 5000 / q
	}
	return 200 - q*2
}

// scaledQuant is jpeg_add_quant_table with force_baseline: the standard
// table scaled by scale percent, rounded, clamped to 1…255.
func scaledQuant(t int, scale int) (q [64]uint16) {
	for i, b := range stdQuant[t] {
		v := (int(b)*scale + 50) / 100
		q[i] = uint16(min(max(v, 1), 255))
	}
	return q
}

// setDivisors is compute_reciprocal for divisor = 8·q (the islow DCT's
// outputs are scaled by 8).
func (d *divisors) set(q *[64]uint16) {
	for i, qv := range q {
		div := uint32(qv) << 3
		b := uint(bits.Len32(div)) - 1
		r := 16 + b
		fq := (uint32(1) << r) / div
		fr := (uint32(1) << r) % div
		c := div / 2
		switch {
		case fr == 0:
			fq >>= 1
			r--
		case fr <= div/2:
			c++
		default:
			fq++
		}
		d.corr[i] = c & 0xffff
		d.mul[i] = uint64(fq&0xffff) << (32 - r)
		d.recip[i], d.shift[i] = fq&0xffff, uint32(r)
	}
}

func (e *Encoder) setup(quality int) {
	if !e.haveTables {
		for i := range e.huff {
			e.huff[i].derive(&stdHuff[i])
		}
		e.haveTables = true
	} else if e.quality == quality {
		return
	}
	s := qualityScale(quality)
	for t := range 2 {
		e.qtab[t] = scaledQuant(t, s)
		e.div[t].set(&e.qtab[t])
	}
	e.quality = quality
}

// derive is jpeg_make_c_derived_tbl: canonical codes in order of length.
func (h *huffEnc) derive(s *huffSpec) {
	code, k := uint16(0), 0
	for l := 1; l <= 16; l++ {
		for range s.bits[l-1] {
			v := s.vals[k]
			h.code[v], h.size[v] = code, uint8(l)
			code++
			k++
		}
		code <<= 1
	}
}

func checkSize(width, height int) error {
	if width <= 0 || height <= 0 || width > MaxSize || height > MaxSize {
		return fmt.Errorf("%w: %dx%d (each side must be 1…%d)", ErrSize, width, height, MaxSize)
	}
	return nil
}

// EncodeRGB appends to dst the JPEG encoding of an 8-bit RGB image of the
// given size whose row y starts at pix[y·stride] with 3 bytes per pixel, at
// the given quality (values outside 1…100 are clamped, as libjpeg does). The
// output equals Pillow's Image.save(f, "JPEG", quality=quality) of the same
// RGB image: JFIF 1.01 header, 4:2:0 chroma subsampling, the standard
// tables. It returns ErrSize (wrapped) for an empty image or a side over
// MaxSize, and panics if pix is too short for the size and stride.
func (e *Encoder) EncodeRGB(dst []byte, pix []uint8, width, height, stride, quality int) ([]byte, error) {
	if err := checkSize(width, height); err != nil {
		return dst, err
	}
	if stride < 3*width || len(pix) < (height-1)*stride+3*width {
		panic("jpeg: EncodeRGB: pix too short for the size and stride")
	}
	e.setup(quality)
	mx, my := (width+15)/16, (height+15)/16
	yw, cw := mx*16, mx*8
	yh, ch := my*16, my*8
	e.y = grow(e.y, yw*yh)
	e.cb = grow(e.cb, cw*ch)
	e.cr = grow(e.cr, cw*ch)
	e.rowCb = grow(e.rowCb, 2*yw)
	e.rowCr = grow(e.rowCr, 2*yw)
	e.convertRGB(pix, width, height, stride, yw, yh, cw, ch)

	e.w.reset(dst)
	e.writeHeaders(width, height, 3)
	e.mcus, e.rstN = 0, 0
	e.encode420(width, height, mx, my, yw, cw)
	return e.w.finish(), nil
}

// EncodeGray appends to dst the JPEG encoding of an 8-bit grayscale image
// (one byte per pixel, row y at pix[y·stride]), equal to Pillow's save of an
// "L" image at that quality: one component, the luminance tables. Errors and
// panics as EncodeRGB.
func (e *Encoder) EncodeGray(dst []byte, pix []uint8, width, height, stride, quality int) ([]byte, error) {
	if err := checkSize(width, height); err != nil {
		return dst, err
	}
	if stride < width || len(pix) < (height-1)*stride+width {
		panic("jpeg: EncodeGray: pix too short for the size and stride")
	}
	e.setup(quality)
	bw, bh := (width+7)/8, (height+7)/8
	yw, yh := bw*8, bh*8
	e.y = grow(e.y, yw*yh)
	for y := range yh {
		src := pix[min(y, height-1)*stride:][:width]
		d := e.y[y*yw:][:yw]
		copy(d, src)
		last := src[width-1]
		for x := width; x < yw; x++ {
			d[x] = last
		}
	}
	e.w.reset(dst)
	e.writeHeaders(width, height, 1)
	e.mcus, e.rstN = 0, 0
	var blk [64]int32
	var dc int32
	for by := range bh {
		for bx := range bw {
			if e.restartDue() {
				dc = 0
			}
			nz := e.block(&blk, e.y, yw, bx*8, by*8, 0)
			dc = e.emitBlock(&blk, dc, 0, nz)
		}
	}
	return e.w.finish(), nil
}

// grow returns b resized to n elements, reallocated only when its capacity
// is too small (the contents are then not kept).
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// libjpeg's rgb_ycc_convert constants (jccolor.c): 16-bit fixed point,
// Y rounded with ½, Cb and Cr with ½ − 2^-16 and offset by 128.
const (
	fixRY   = 19595 // FIX(0.29900)
	fixGY   = 38470 // FIX(0.58700)
	fixBY   = 7471  // FIX(0.11400)
	fixRCb  = 11059 // FIX(0.16874)
	fixGCb  = 21709 // FIX(0.33126)
	fixHalf = 32768 // FIX(0.5)
	fixGCr  = 27439 // FIX(0.41869)
	fixBCr  = 5329  // FIX(0.08131)
	oneHalf = 1 << 15
	cbcrOff = 128 << 16
)

// convertRGB fills the Y plane (yw×yh, edges replicated) and the 2×2
// downsampled chroma planes (cw×ch) as libjpeg's colour converter,
// h2v2_downsample (bias 1, 2, 1, 2, … along a row) and edge expansion do.
func (e *Encoder) convertRGB(pix []uint8, width, height, stride, yw, yh, cw, ch int) {
	crows := (height + 1) / 2
	for cy := range crows {
		for k := range 2 {
			y := min(2*cy+k, height-1)
			src := pix[y*stride:][: 3*width : 3*width]
			yr := e.y[min(2*cy+k, yh-1)*yw:][:yw]
			cbr := e.rowCb[k*yw:][:yw]
			crr := e.rowCr[k*yw:][:yw]
			for x := rgbToYccVec(yr, cbr, crr, src); x < width; x++ {
				p := src[3*x : 3*x+3 : 3*x+3]
				r, g, b := int32(p[0]), int32(p[1]), int32(p[2])
				yr[x] = uint8((fixRY*r + fixGY*g + fixBY*b + oneHalf) >> 16)
				cbr[x] = uint8((-fixRCb*r - fixGCb*g + fixHalf*b + cbcrOff + oneHalf - 1) >> 16)
				crr[x] = uint8((fixHalf*r - fixGCr*g - fixBCr*b + cbcrOff + oneHalf - 1) >> 16)
			}
			ly, lb, lr := yr[width-1], cbr[width-1], crr[width-1]
			for x := width; x < yw; x++ {
				yr[x], cbr[x], crr[x] = ly, lb, lr
			}
		}
		for k, rows := range [2][]uint8{e.rowCb, e.rowCr} {
			out := e.cb
			if k == 1 {
				out = e.cr
			}
			r0, r1 := rows[:yw], rows[yw:][:yw]
			o := out[cy*cw:][:cw]
			for x := downsampleH2V2Vec(o, r0, r1); x < len(o); x++ {
				bias := int32(1 + x&1)
				o[x] = uint8((int32(r0[2*x]) + int32(r0[2*x+1]) + int32(r1[2*x]) + int32(r1[2*x+1]) + bias) >> 2)
			}
		}
	}
	// Rows below the image repeat the last one (jcprepct.c expand_bottom_edge).
	for y := height; y < yh; y++ {
		copy(e.y[y*yw:][:yw], e.y[(height-1)*yw:][:yw])
	}
	for y := crows; y < ch; y++ {
		copy(e.cb[y*cw:][:cw], e.cb[(crows-1)*cw:][:cw])
		copy(e.cr[y*cw:][:cw], e.cr[(crows-1)*cw:][:cw])
	}
}

// encode420 writes the single interleaved scan: per MCU four Y blocks, one
// Cb, one Cr. Blocks of the last MCU column or row that lie wholly outside
// the image's block grid are libjpeg's dummy blocks (jccoefct.c): AC zero,
// DC equal to the previous block's in the MCU.
func (e *Encoder) encode420(width, height, mx, my, yw, cw int) {
	bw, bh := (width+7)/8, (height+7)/8
	var blk [4][64]int32
	var nz [4]uint64 // the blocks' nonzero masks (see block)
	var cblk [64]int32
	var dcY, dcCb, dcCr int32
	for mcuy := range my {
		for mcux := range mx {
			if e.restartDue() {
				dcY, dcCb, dcCr = 0, 0, 0
			}
			for j := range 2 {
				for i := range 2 {
					n := 2*j + i
					bx, by := 2*mcux+i, 2*mcuy+j
					switch {
					case by >= bh:
						blk[n] = [64]int32{}
						blk[n][0] = blk[n-1][0]
						nz[n] = 0
					case bx >= bw:
						blk[n] = [64]int32{}
						blk[n][0] = blk[n-1][0]
						nz[n] = 0
					default:
						nz[n] = e.block(&blk[n], e.y, yw, bx*8, by*8, 0)
					}
				}
			}
			for n := range 4 {
				dcY = e.emitBlock(&blk[n], dcY, 0, nz[n])
			}
			cnz := e.block(&cblk, e.cb, cw, mcux*8, mcuy*8, 1)
			dcCb = e.emitBlock(&cblk, dcCb, 1, cnz)
			cnz = e.block(&cblk, e.cr, cw, mcux*8, mcuy*8, 1)
			dcCr = e.emitBlock(&cblk, dcCr, 1, cnz)
		}
	}
}

// restartDue counts an MCU and, at the start of a new restart interval,
// pads the bits to a byte and writes the next RSTn marker; it reports
// whether it did (the DC predictions then restart from 0).
func (e *Encoder) restartDue() bool {
	n := e.mcus
	e.mcus++
	if e.restart <= 0 || n == 0 || n%e.restart != 0 {
		return false
	}
	e.w.flushBits()
	e.w.buf = append(e.w.buf, 0xff, byte(0xd0+e.rstN))
	e.rstN = (e.rstN + 1) & 7
	return true
}

// block loads the 8×8 block at (x0, y0) of plane, transforms and quantises
// it with table t; the result is in natural order. With the assembly
// (dctVector) it returns the mask of nonzero coefficients (bit i for
// blk[i]) for emitBlock; otherwise 0.
func (e *Encoder) block(blk *[64]int32, plane []uint8, stride, x0, y0, t int) uint64 {
	dv := &e.div[t]
	if dctVector { // a constant false in builds without the assembly
		return fdctVec(blk, plane[y0*stride+x0:], stride, dv)
	}
	for r := range 8 {
		s := plane[(y0+r)*stride+x0:][:8]
		d := (*[8]int32)(blk[r*8 : r*8+8])
		for c, v := range s {
			d[c] = int32(v) - 128
		}
	}
	fdctIslow(blk)
	for i := range blk {
		// jcdctmgr.c quantize on |v|, sign restored (branch-free).
		v := blk[i]
		sign := v >> 31
		a := uint32((v ^ sign) - sign)
		q := int32((uint64(a+dv.corr[i]) * dv.mul[i]) >> 32)
		blk[i] = (q ^ sign) - sign
	}
	return 0
}

// emitBlock Huffman-codes one quantised block (jchuff.c encode_one_block)
// with the DC and AC tables of class t (0 luminance, 1 chrominance) and
// returns its DC for the next block's prediction. With the assembly
// (dctVector), nz is the block's mask of nonzero coefficients from block
// (0 for a block whose AC terms are all zero) and emitBlockNZ does the
// work; otherwise nz is ignored.
func (e *Encoder) emitBlock(blk *[64]int32, lastDC int32, t int, nz uint64) int32 {
	if dctVector { // a constant false in builds without the assembly
		return e.emitBlockNZ(blk, lastDC, t, nz)
	}
	w := &e.w
	dct, act := &e.huff[2*t], &e.huff[2*t+1]
	d := blk[0] - lastDC
	nb, v := magnitude(d)
	w.put(uint64(dct.code[nb])<<nb|uint64(v), uint(dct.size[nb])+uint(nb))
	run := 0
	for k := 1; k < 64; k++ {
		c := blk[zigzag[k]]
		if c == 0 {
			run++
			continue
		}
		for run > 15 {
			w.put(uint64(act.code[0xf0]), uint(act.size[0xf0]))
			run -= 16
		}
		nb, v := magnitude(c)
		sym := uint8(run<<4) | nb
		w.put(uint64(act.code[sym])<<nb|uint64(v), uint(act.size[sym])+uint(nb))
		run = 0
	}
	if run > 0 {
		w.put(uint64(act.code[0]), uint(act.size[0]))
	}
	return blk[0]
}

// emitBlockNZ is emitBlock visiting only the nonzero AC coefficients,
// found from nz (bit i set where blk[i] ≠ 0, natural order) turned into
// zig-zag order by zzOfNatural: the same codes, without a test per
// coefficient.
func (e *Encoder) emitBlockNZ(blk *[64]int32, lastDC int32, t int, nz uint64) int32 {
	w := &e.w
	dct, act := &e.huff[2*t], &e.huff[2*t+1]
	d := blk[0] - lastDC
	nb, v := magnitude(d)
	w.put(uint64(dct.code[nb])<<nb|uint64(v), uint(dct.size[nb])+uint(nb))
	var m uint64
	for j := range zzOfNatural {
		m |= zzOfNatural[j][nz>>(4*j)&15]
	}
	m &^= 1 // the DC
	last := 0
	for m != 0 {
		k := bits.TrailingZeros64(m)
		m &= m - 1
		run := k - last - 1
		last = k
		for run > 15 {
			w.put(uint64(act.code[0xf0]), uint(act.size[0xf0]))
			run -= 16
		}
		nb, v := magnitude(blk[zigzag[k&63]])
		sym := uint8(run<<4) | nb
		w.put(uint64(act.code[sym])<<nb|uint64(v), uint(act.size[sym])+uint(nb))
	}
	if last < 63 {
		w.put(uint64(act.code[0]), uint(act.size[0]))
	}
	return blk[0]
}

// zzOfNatural[j][b] is the zig-zag-order mask of the natural positions
// 4j … 4j+3 whose bits are set in b.
var zzOfNatural = func() (t [16][16]uint64) {
	var zz [64]int // natural position → zig-zag index
	for k, n := range zigzag[:64] {
		zz[n] = k
	}
	for j := range t {
		for b := range t[j] {
			for i := range 4 {
				if b>>i&1 != 0 {
					t[j][b] |= 1 << zz[4*j+i]
				}
			}
		}
	}
	return t
}()

// magnitude returns the JPEG size category of v and its additional bits
// (v, or v − 1 in the low bits for negative v).
func magnitude(v int32) (uint8, uint32) {
	a := v
	if v < 0 {
		a = -v
		v--
	}
	n := uint8(bits.Len32(uint32(a)))
	return n, uint32(v) & (1<<n - 1)
}

// bitWriter packs Huffman codes MSB first and stuffs a zero byte after
// every 0xFF (T.81 F.1.2.3).
type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) reset(dst []byte) {
	w.buf, w.acc, w.nbits = dst, 0, 0
}

// put appends the n low bits of code (n ≤ 32).
func (w *bitWriter) put(code uint64, n uint) {
	w.acc = w.acc<<n | code
	w.nbits += n
	if w.nbits >= 32 {
		w.nbits -= 32
		v := uint32(w.acc >> w.nbits)
		if !hasFF(v) {
			w.buf = append(w.buf, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		} else {
			for s := 24; s >= 0; s -= 8 {
				b := byte(v >> uint(s))
				w.buf = append(w.buf, b)
				if b == 0xff {
					w.buf = append(w.buf, 0)
				}
			}
		}
	}
}

// hasFF reports whether any byte of v is 0xFF.
func hasFF(v uint32) bool {
	x := ^v // 0xFF bytes become zero bytes
	return (x-0x01010101)&^x&0x80808080 != 0
}

// finish pads the last byte with 1 bits (jchuff.c flush_bits), appends EOI
// and returns the file.
func (w *bitWriter) finish() []byte {
	w.flushBits()
	w.buf = append(w.buf, 0xff, 0xd9)
	return w.buf
}

// flushBits pads the bits written so far with 1 bits to a whole byte and
// writes them out.
func (w *bitWriter) flushBits() {
	if pad := (8 - w.nbits%8) % 8; pad > 0 {
		w.acc = w.acc<<pad | (1<<pad - 1)
		w.nbits += pad
	}
	for w.nbits >= 8 {
		w.nbits -= 8
		b := byte(w.acc >> w.nbits)
		w.buf = append(w.buf, b)
		if b == 0xff {
			w.buf = append(w.buf, 0)
		}
	}
	w.acc, w.nbits = 0, 0
}

// writeHeaders writes SOI through SOS in the order and form libjpeg's
// jcmarker.c does for these settings: JFIF APP0 (version 1.01, no density
// units, 1:1), one DQT marker per table, SOF0, one DHT marker per table
// (DC before AC, luminance before chrominance) and SOS.
func (e *Encoder) writeHeaders(width, height, ncomp int) {
	b := e.w.buf
	b = append(b, 0xff, 0xd8)
	b = append(b, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0)
	ntab := 1
	if ncomp == 3 {
		ntab = 2
	}
	for t := range ntab {
		b = append(b, 0xff, 0xdb, 0, 67, byte(t))
		for k := range 64 {
			b = append(b, byte(e.qtab[t][zigzag[k]]))
		}
	}
	l := 8 + 3*ncomp
	b = append(b, 0xff, 0xc0, byte(l>>8), byte(l), 8, byte(height>>8), byte(height), byte(width>>8), byte(width), byte(ncomp))
	if ncomp == 1 {
		b = append(b, 1, 0x11, 0)
	} else {
		b = append(b, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
	}
	for t := range ntab {
		for class := range 2 {
			s := &stdHuff[2*t+class]
			l := 2 + 1 + 16 + len(s.vals)
			b = append(b, 0xff, 0xc4, byte(l>>8), byte(l), byte(class<<4|t))
			b = append(b, s.bits[:]...)
			b = append(b, s.vals...)
		}
	}
	if e.restart > 0 {
		b = append(b, 0xff, 0xdd, 0, 4, byte(e.restart>>8), byte(e.restart))
	}
	l = 6 + 2*ncomp
	b = append(b, 0xff, 0xda, 0, byte(l), byte(ncomp))
	if ncomp == 1 {
		b = append(b, 1, 0x00)
	} else {
		b = append(b, 1, 0x00, 2, 0x11, 3, 0x11)
	}
	b = append(b, 0, 63, 0)
	e.w.buf = b
}
