package imageio

import (
	"encoding/binary"
	"errors"
	"sync"
)

// inflate decodes the zlib stream src (RFC 1950 around RFC 1951 deflate)
// into dst, which must be exactly the decompressed size (a PNG's size is
// known from its header), and checks the Adler-32 checksum. It is a
// table-driven decoder over an in-memory stream, several times faster than
// compress/zlib, whose reader decodes Huffman codes bit by bit through an
// io.ByteReader. Errors: errInflate for malformed data, errShort when the
// stream ends before dst is full, errLong when it holds more data.
func inflate(dst, src []byte) error {
	if len(src) < 6 {
		return errShort
	}
	cmf, flg := src[0], src[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0 || flg&0x20 != 0 {
		return errInflate
	}
	d := inflaters.Get().(*inflater)
	defer inflaters.Put(d)
	d.in, d.pos, d.bits, d.nbits, d.over = src[2:], 0, 0, 0, 0
	n, err := d.run(dst)
	if err != nil {
		return err
	}
	if n < len(dst) {
		return errShort
	}
	// The checksum follows the deflate data, byte aligned.
	d.align()
	start := d.pos - int(d.nbits/8)
	if d.overrun() || start+4 > len(d.in) {
		return errShort
	}
	if binary.BigEndian.Uint32(d.in[start:]) != adler32Update(1, dst) {
		return errChecksum
	}
	return nil
}

var (
	errInflate  = errors.New("zlib: invalid deflate data")
	errShort    = errors.New("unexpected EOF")
	errLong     = errors.New("png: invalid format: too much pixel data")
	errChecksum = errors.New("zlib: invalid checksum")
)

// A huffman code decodes through a table indexed by the next tableBits
// input bits, whose entry holds symbol<<4 | code length; codes longer than
// tableBits (rare) and invalid codes have entry 0 and go to the canonical
// bit-by-bit decoder (Mark Adler's puff.c).
const tableBits = 10

type huffman struct {
	table  [1 << tableBits]uint16
	count  [16]uint16  // codes of each length
	symbol [288]uint16 // symbols ordered by code
}

// A fastTable is a huffman table for codes' fast loop, indexed like
// huffman.table, whose entries say what the code means without further
// lookups: the length in bits 0–3 (0: a long or invalid code, which the
// careful loop decodes). A literal entry (fastLiteral) holds one or, where
// the next code is a literal too and both fit in tableBits bits, two
// literals: their bytes in bits 8–15 and 16–23, their number in bits
// 24–25, the length being that of both codes. A length or distance entry
// holds the number of extra bits in bits 8–11 and the base from bit 16;
// fastEnd marks the end-of-block code. Symbols that no valid stream holds
// (literal/length 286 and 287, distances 30 and 31) have entry 0, so that
// the careful loop reports them.
type fastTable [1 << tableBits]uint32

const (
	fastLiteral = 1 << 31
	fastEnd     = 1 << 30
)

// setLit fills t from the literal/length code h.
func (t *fastTable) setLit(h *huffman) {
	for k, e := range h.table {
		l, s := uint32(e&15), int(e>>4)
		switch {
		case l == 0 || s > 285:
			t[k] = 0
		case s < 256:
			t[k] = fastLiteral | 1<<24 | uint32(s)<<8 | l
			// The bits after this code, as far as the index holds them:
			// a second literal whose code fits in them joins the entry.
			if e2 := h.table[k>>l]; e2&15 != 0 && uint32(e2&15) <= tableBits-l && e2>>4 < 256 {
				t[k] = fastLiteral | 2<<24 | uint32(e2>>4)<<16 | uint32(s)<<8 | (l + uint32(e2&15))
			}
		case s == 256:
			t[k] = fastEnd | l
		default:
			t[k] = uint32(lengthBase[s-257])<<16 | uint32(lengthExtra[s-257])<<8 | l
		}
	}
}

// setDist fills t from the distance code h.
func (t *fastTable) setDist(h *huffman) {
	for k, e := range h.table {
		l, s := uint32(e&15), int(e>>4)
		if l == 0 || s >= 30 {
			t[k] = 0
			continue
		}
		t[k] = distBase[s]<<16 | uint32(distExtra[s])<<8 | l
	}
}

type inflater struct {
	in                []byte
	pos               int
	bits              uint64
	nbits             uint
	over              int // bytes read past the end of in (as zeros)
	lit               huffman
	dist              huffman
	litFast, distFast fastTable
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// refill tops the bit buffer up to at least 56 bits, reading zeros past the
// end of the input (counted in over).
func (d *inflater) refill() {
	if d.pos+8 <= len(d.in) {
		// Load 8 bytes and keep the whole ones that fit; the bits above
		// nbits are the next input bits, so loading them again later is
		// harmless (libdeflate's refill).
		d.bits |= binary.LittleEndian.Uint64(d.in[d.pos:]) << d.nbits
		d.pos += int(63-d.nbits) >> 3
		d.nbits |= 56
		return
	}
	for d.nbits <= 56 {
		var b byte
		if d.pos < len(d.in) {
			b = d.in[d.pos]
		} else {
			d.over++
		}
		d.pos++
		d.bits |= uint64(b) << d.nbits
		d.nbits += 8
	}
}

// take consumes n ≤ 32 bits (after a refill).
func (d *inflater) take(n uint) uint32 {
	v := uint32(d.bits & (1<<n - 1))
	d.bits >>= n
	d.nbits -= n
	return v
}

// align drops the bits up to the next byte boundary.
func (d *inflater) align() { d.take(d.nbits % 8) }

// overrun reports whether more bits were consumed than the input holds.
func (d *inflater) overrun() bool { return d.over*8 > int(d.nbits) }

var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder     = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// build makes h the canonical Huffman code with the given code lengths
// (RFC 1951 §3.2.2). It rejects over-subscribed codes; incomplete codes
// are allowed, and their missing codes decode as errors.
func (h *huffman) build(lengths []uint8) error {
	h.count = [16]uint16{}
	for _, l := range lengths {
		h.count[l]++
	}
	h.count[0] = 0
	var offs, next [16]int
	code, left := 0, 1
	for l := 1; l < 16; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return errInflate
		}
		code = (code + int(h.count[l-1])) << 1
		next[l] = code
		offs[l] = offs[l-1] + int(h.count[l-1])
	}
	clear(h.table[:])
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		h.symbol[offs[l]] = uint16(sym)
		offs[l]++
		c := next[l]
		next[l]++
		if l > tableBits {
			continue
		}
		// Codes are stored most significant bit first; the bit buffer
		// delivers bits least significant first, so reverse.
		r := 0
		for i := 0; i < int(l); i++ {
			r = r<<1 | (c>>i)&1
		}
		e := uint16(sym)<<4 | uint16(l)
		for k := r; k < 1<<tableBits; k += 1 << l {
			h.table[k] = e
		}
	}
	return nil
}

// sym decodes one symbol of h (the bit buffer holds at least 15 bits).
func (d *inflater) sym(h *huffman) (int, error) {
	e := h.table[d.bits&(1<<tableBits-1)]
	if l := uint(e & 15); l != 0 {
		d.bits >>= l
		d.nbits -= l
		return int(e >> 4), nil
	}
	// A long or invalid code: decode canonically, one bit at a time.
	code, first, index := 0, 0, 0
	for l := 1; l < 16; l++ {
		code |= int(d.take(1))
		count := int(h.count[l])
		if code-count < first {
			return int(h.symbol[index+code-first]), nil
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, errInflate
}

var fixedOnce sync.Once
var fixedLit, fixedDist huffman
var fixedLitFast, fixedDistFast fastTable

func fixedTables() {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	fixedLit.build(l[:])
	var dl [30]uint8
	for i := range dl {
		dl[i] = 5
	}
	fixedDist.build(dl[:])
	fixedLitFast.setLit(&fixedLit)
	fixedDistFast.setDist(&fixedDist)
}

// run decodes deflate blocks into dst and returns the bytes written.
func (d *inflater) run(dst []byte) (int, error) {
	n := 0
	for {
		d.refill()
		final := d.take(1)
		switch d.take(2) {
		case 0: // stored
			d.align()
			d.refill()
			ln, nln := d.take(16), d.take(16)
			if ln != ^nln&0xffff {
				return n, errInflate
			}
			// Copy from the bit buffer, then straight from the input.
			for ln > 0 && d.nbits >= 8 {
				if n >= len(dst) {
					return n, errLong
				}
				dst[n] = byte(d.take(8))
				n++
				ln--
			}
			if d.overrun() {
				return n, errShort
			}
			if ln > 0 {
				d.bits = 0 // drop the look-ahead bits: the input is read directly
				if d.pos+int(ln) > len(d.in) {
					return n, errShort
				}
				if n+int(ln) > len(dst) {
					return n, errLong
				}
				n += copy(dst[n:], d.in[d.pos:d.pos+int(ln)])
				d.pos += int(ln)
			}
		case 1: // fixed Huffman
			fixedOnce.Do(fixedTables)
			var err error
			if n, err = d.codes(dst, n, &fixedLit, &fixedDist, &fixedLitFast, &fixedDistFast); err != nil {
				return n, err
			}
		case 2: // dynamic Huffman
			if err := d.dynamic(); err != nil {
				return n, err
			}
			d.litFast.setLit(&d.lit)
			d.distFast.setDist(&d.dist)
			var err error
			if n, err = d.codes(dst, n, &d.lit, &d.dist, &d.litFast, &d.distFast); err != nil {
				return n, err
			}
		default:
			return n, errInflate
		}
		if d.overrun() {
			return n, errShort
		}
		if final == 1 {
			return n, nil
		}
	}
}

// dynamic reads a dynamic block's code lengths into d.lit and d.dist.
func (d *inflater) dynamic() error {
	d.refill()
	nlit, ndist, ncl := int(d.take(5))+257, int(d.take(5))+1, int(d.take(4))+4
	if nlit > 286 || ndist > 30 {
		return errInflate
	}
	var cl [19]uint8
	for i := range ncl {
		if i%8 == 0 {
			d.refill()
		}
		cl[clOrder[i]] = uint8(d.take(3))
	}
	if err := d.lit.build(cl[:]); err != nil { // d.lit holds the code-length code for now
		return err
	}
	var lengths [286 + 30]uint8
	for i := 0; i < nlit+ndist; {
		d.refill()
		s, err := d.sym(&d.lit)
		if err != nil {
			return err
		}
		rep, val := 1, uint8(s)
		switch s {
		case 16:
			if i == 0 {
				return errInflate
			}
			rep, val = 3+int(d.take(2)), lengths[i-1]
		case 17:
			rep, val = 3+int(d.take(3)), 0
		case 18:
			rep, val = 11+int(d.take(7)), 0
		}
		if i+rep > nlit+ndist {
			return errInflate
		}
		for range rep {
			lengths[i] = val
			i++
		}
	}
	if lengths[256] == 0 {
		return errInflate
	}
	if err := d.lit.build(lengths[:nlit]); err != nil {
		return err
	}
	return d.dist.build(lengths[nlit : nlit+ndist])
}

// codes decodes literal/length and distance codes into dst from n on, up
// to the end-of-block code.
func (d *inflater) codes(dst []byte, n int, lit, dist *huffman, litFast, distFast *fastTable) (int, error) {
	for {
		if d.pos+8 <= len(d.in) && n+258+8 <= len(dst) {
			var done bool
			var err error
			if n, done, err = d.fastCodes(dst, n, dist, litFast, distFast); done || err != nil {
				return n, err
			}
		}
		// 56 bits cover a literal/length code (15), its extra bits (5), a
		// distance code (15) and its extra bits (13).
		d.refill()
		if d.overrun() {
			return n, errShort
		}
		s, err := d.sym(lit)
		if err != nil {
			return n, err
		}
		if s < 256 {
			if n >= len(dst) {
				return n, errLong
			}
			dst[n] = byte(s)
			n++
			continue
		}
		if s == 256 {
			return n, nil
		}
		s -= 257
		if s >= 29 {
			return n, errInflate
		}
		length := int(lengthBase[s]) + int(d.take(uint(lengthExtra[s])))
		ds, err := d.sym(dist)
		if err != nil {
			return n, err
		}
		if ds >= 30 {
			return n, errInflate
		}
		distance := int(distBase[ds]) + int(d.take(uint(distExtra[ds])))
		if distance > n {
			return n, errInflate
		}
		if n+length > len(dst) {
			return n, errLong
		}
		if distance >= length {
			copy(dst[n:n+length], dst[n-distance:])
		} else {
			for i := range length {
				dst[n+i] = dst[n-distance+i]
			}
		}
		n += length
	}
}

// fastCodes is codes' fast loop: it decodes symbols while the input holds
// 8 more bytes and dst has room for a longest match (258 bytes) and 8 bytes
// of slack, with the bit buffer in local variables (registers) rather than
// in d, the meaning of each code (literal, length or distance base and
// extra bits) read from the same entry as its length (litFast, distFast),
// two literals per refill where the second's code is in the table, and no
// checks for the ends of input and output. It returns done at the end of
// the block, an error for invalid data, and otherwise, with d's state at a
// symbol boundary, when those conditions fail or the next literal/length
// code is longer than tableBits (or invalid): codes then takes that
// symbol. The bytes written and the errors are those of codes' careful
// loop.
func (d *inflater) fastCodes(dst []byte, n int, dist *huffman, litFast, distFast *fastTable) (int, bool, error) {
	in, pos, bits, nbits := d.in, d.pos, d.bits, d.nbits
	done := false
	var err error
	for pos+8 <= len(in) && n+258+8 <= len(dst) {
		// The common symbols through the assembly where there is one
		// (inflateFast); the loop's body takes the next symbol.
		if n, pos, bits, nbits = inflateFast(dst, n, in, pos, bits, nbits, litFast, distFast); pos+8 > len(in) || n+258+8 > len(dst) {
			break
		}
		// refill, as d.refill: at least 56 bits
		bits |= binary.LittleEndian.Uint64(in[pos:]) << nbits
		pos += int(63-nbits) >> 3
		nbits |= 56
		e := litFast[bits&(1<<tableBits-1)]
		l := uint(e & 15)
		if e&fastLiteral != 0 {
			// One or two literals; two bytes are written either way (dst
			// has the slack), the count says how many are kept.
			bits >>= l
			nbits -= l
			binary.LittleEndian.PutUint16(dst[n:], uint16(e>>8))
			n += int(e>>24) & 3
			// ≥ 46 bits left: another entry needs at most tableBits.
			if e = litFast[bits&(1<<tableBits-1)]; e&fastLiteral != 0 {
				l = uint(e & 15)
				bits >>= l
				nbits -= l
				binary.LittleEndian.PutUint16(dst[n:], uint16(e>>8))
				n += int(e>>24) & 3
			}
			continue
		}
		if l == 0 {
			break // a long or invalid code: codes decodes it
		}
		if e&fastEnd != 0 {
			bits >>= l
			nbits -= l
			done = true
			break
		}
		// ≥ 46 bits left: length extra bits (≤ 5), a distance code (≤ 15)
		// and its extra bits (≤ 13).
		le := uint(e>>8) & 15
		length := int(e>>16) + int(uint32(bits>>l)&(1<<le-1))
		bits >>= l + le
		nbits -= l + le
		var distance int
		e = distFast[bits&(1<<tableBits-1)]
		if l = uint(e & 15); l != 0 {
			de := uint(e>>8) & 15
			distance = int(e>>16) + int(uint32(bits>>l)&(1<<de-1))
			bits >>= l + de
			nbits -= l + de
		} else {
			d.bits, d.nbits = bits, nbits
			var ds int
			if ds, err = d.sym(dist); err != nil {
				break
			}
			bits, nbits = d.bits, d.nbits
			if ds >= 30 {
				err = errInflate
				break
			}
			de := uint(distExtra[ds])
			distance = int(distBase[ds]) + int(uint32(bits)&(1<<de-1))
			bits >>= de
			nbits -= de
		}
		if distance > n {
			err = errInflate
			break
		}
		if distance >= 8 {
			// 8 bytes at a time, each read from bytes already final (the
			// distance is at least 8); the last word may write up to 7
			// bytes past the match, inside dst's slack of 8 and
			// overwritten by what follows.
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(dst[n+i:], binary.LittleEndian.Uint64(dst[n-distance+i:]))
			}
		} else {
			for i := range length {
				dst[n+i] = dst[n-distance+i]
			}
		}
		n += length
	}
	if err == nil {
		d.pos, d.bits, d.nbits = pos, bits, nbits
	}
	return n, done, err
}

// adlerMod is Adler-32's modulus, the largest prime below 2¹⁶.
const adlerMod = 65521

// adler32Go is adler32Update in pure Go (RFC 1950 §9), reducing every
// 5552 bytes (the most that cannot overflow 32 bits, zlib's NMAX).
func adler32Go(adler uint32, p []byte) uint32 {
	s1, s2 := adler&0xffff, adler>>16
	for len(p) > 0 {
		q := p[:min(len(p), 5552)]
		p = p[len(q):]
		for _, b := range q {
			s1 += uint32(b)
			s2 += s1
		}
		s1 %= adlerMod
		s2 %= adlerMod
	}
	return s2<<16 | s1
}
