package jpeg

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// bitReader reads entropy-coded data MSB first, removing stuffed zero
// bytes. At a marker it feeds zero bits, as libjpeg does
// (jdhuff.c jpeg_fill_bit_buffer); past the end of the data it feeds zero
// bits too but remembers it, and the scan fails as truncated if it used them.
//
// The accumulator is left-aligned: its top nbits bits are the next bits of
// the data, so that peeking at them is a constant shift. The bits below may
// hold the data's following bits (never anything else), which a refill
// overwrites with the same values.
type bitReader struct {
	acc    uint64
	nbits  uint
	limit  int  // data[pos:limit] holds no 0xFF byte (no stuffing, no marker)
	marker bool // stopped at a marker
	eof    bool // ran out of data
	fake   uint // zero bits fed after the end of the data
}

// fill tops the accumulator up to at least 57 bits.
func (d *Decoder) fill() {
	br := &d.bits
	if d.pos+8 <= br.limit {
		// The next 8 bytes are plain data: as many whole bytes as fit go in
		// at once.
		br.acc |= binary.BigEndian.Uint64(d.data[d.pos:]) >> (br.nbits & 63)
		d.pos += int((63 - br.nbits) >> 3)
		br.nbits |= 56
		return
	}
	d.fillSlow()
}

// fillSlow is fill byte by byte, near a 0xFF byte or the end of the data.
func (d *Decoder) fillSlow() {
	br := &d.bits
	data := d.data
	br.acc &^= ^uint64(0) >> br.nbits // drop the following bits a fast fill left
	for br.nbits <= 56 {
		if br.marker || br.eof {
			br.nbits += 8
			if br.eof {
				br.fake += 8
			}
			continue
		}
		if d.pos >= len(data) {
			br.eof = true
			continue
		}
		c := data[d.pos]
		if c == 0xff {
			p := d.pos + 1
			for p < len(data) && data[p] == 0xff {
				p++
			}
			if p >= len(data) {
				br.eof = true
				continue
			}
			if data[p] != 0 {
				br.marker = true
				d.pos = p - 1 // at the marker's 0xFF
				continue
			}
			d.pos = p + 1
		} else {
			d.pos++
		}
		br.acc |= uint64(c) << (56 - br.nbits)
		br.nbits += 8
	}
	br.limit = 0
	if !br.marker && !br.eof {
		if i := bytes.IndexByte(data[d.pos:], 0xff); i >= 0 {
			br.limit = d.pos + i
		} else {
			br.limit = len(data)
		}
	}
}

// getBits returns the next n bits (n ≤ 16).
func (d *Decoder) getBits(n uint) int32 {
	if n == 0 {
		return 0
	}
	br := &d.bits
	if br.nbits < n {
		d.fill()
	}
	v := int32(br.acc >> ((64 - n) & 63))
	br.acc <<= n & 63
	br.nbits -= n
	return v
}

// bit returns the next bit.
func (d *Decoder) bit() bool {
	br := &d.bits
	if br.nbits == 0 {
		d.fill()
	}
	v := int64(br.acc) < 0
	br.acc <<= 1
	br.nbits--
	return v
}

// receiveExtend reads an s-bit magnitude and extends its sign (HUFF_EXTEND).
func (d *Decoder) receiveExtend(s uint) int32 {
	v := d.getBits(s)
	if s > 0 && v < 1<<(s-1) {
		v += -1<<s + 1
	}
	return v
}

// decodeHuff decodes one symbol. A code longer than 16 bits is corrupt
// data; like libjpeg it yields symbol 0.
func (d *Decoder) decodeHuff(h *huffDec) uint8 {
	br := &d.bits
	if br.nbits < 16 {
		d.fill()
	}
	sym, l := h.lookup(br.acc)
	br.acc <<= l & 63
	br.nbits -= l
	return sym
}

type scanComp struct {
	c      *component
	dc, ac *huffDec
}

// scan parses an SOS header and decodes the scan that follows.
func (d *Decoder) scan(seg []byte) error {
	if !d.sawSOF {
		return fmt.Errorf("%w: scan before the frame header", ErrFormat)
	}
	if len(seg) < 1 {
		return fmt.Errorf("%w: short SOS", ErrFormat)
	}
	ns := int(seg[0])
	if ns < 1 || ns > len(d.comps) || len(seg) < 4+2*ns {
		return fmt.Errorf("%w: bad SOS", ErrFormat)
	}
	var sc [4]scanComp
	blocksPerMCU := 0
	for i := range ns {
		id, tabs := int(seg[1+2*i]), seg[2+2*i]
		var c *component
		for j := range d.comps {
			if d.comps[j].id == id {
				c = &d.comps[j]
			}
		}
		if c == nil {
			return fmt.Errorf("%w: scan names component %d, not in the frame", ErrFormat, id)
		}
		c.dcTab, c.acTab = int(tabs>>4), int(tabs&15)
		if c.dcTab > 3 || c.acTab > 3 {
			return fmt.Errorf("%w: bad table in SOS", ErrFormat)
		}
		sc[i] = scanComp{c: c, dc: &d.dc[c.dcTab], ac: &d.ac[c.acTab]}
		blocksPerMCU += c.h * c.v
		if !c.latched { // jdinput.c latch_quant_tables
			if !d.qtSet[c.tq] {
				return fmt.Errorf("%w: quantisation table %d missing", ErrFormat, c.tq)
			}
			for k, q := range d.qt[c.tq] {
				c.quant[k] = int32(q)
			}
			for k, n := range zigzag {
				c.qzz[k] = c.quant[n]
			}
			c.latched = true
		}
		c.dcPred = 0
	}
	if ns > 1 && blocksPerMCU > 10 {
		return fmt.Errorf("%w: %d blocks per MCU", ErrFormat, blocksPerMCU)
	}
	p := seg[1+2*ns:]
	ss, se, ah, al := int(p[0]), int(p[1]), int32(p[2]>>4), int32(p[2]&15)
	d.bits = bitReader{}
	d.eobrun = 0
	comps := sc[:ns]

	if d.progressive {
		if ss > se || se > 63 || (ss == 0) != (se == 0) || (ss > 0 && ns != 1) || al > 13 || ah > 13 {
			return fmt.Errorf("%w: bad progression parameters", ErrFormat)
		}
		for _, s := range comps {
			for k := ss; k <= se && k < 10; k++ {
				s.c.coefBits[k] = al
			}
		}
	} else if ss != 0 || se != 63 || ah != 0 || al != 0 {
		// libjpeg ignores these in sequential files; so do we.
		ss, se = 0, 63
	}
	for _, s := range comps {
		if (ss == 0 && ah == 0 && !s.dc.present) || (se > 0 && !s.ac.present) {
			return fmt.Errorf("%w: Huffman table missing", ErrFormat)
		}
		if ss == 0 && ah == 0 && s.dc.maxSym > 15 {
			// jdhuff.c jpeg_make_d_derived_tbl rejects a DC table whose
			// symbols (magnitude sizes) exceed 15.
			return fmt.Errorf("%w: bad Huffman table (DC symbol %d)", ErrFormat, s.dc.maxSym)
		}
	}

	// The MCU grid: interleaved scans use the frame's MCUs; a one-component
	// scan goes block by block over that component's blocks.
	var nx, ny int
	if ns == 1 {
		nx, ny = comps[0].c.bw, comps[0].c.bh
	} else {
		nx, ny = d.mcusX, d.mcusY
	}
	var blk [64]int32
	left := d.restart
	for my := range ny {
		for mx := range nx {
			if d.restart > 0 {
				if left == 0 {
					if err := d.processRestart(); err != nil {
						return err
					}
					for _, s := range comps {
						s.c.dcPred = 0
					}
					d.eobrun = 0
					left = d.restart
				}
				left--
			}
			for _, s := range comps {
				c := s.c
				bh, bv := c.h, c.v
				if ns == 1 {
					bh, bv = 1, 1
				}
				for j := range bv {
					for i := range bh {
						bx, by := mx*bh+i, my*bv+j
						if !d.progressive {
							blk = [64]int32{}
							out := c.plane[by*8*c.bwA*8+bx*8:]
							idctBlock(out, c.bwA*8, &blk, d.decodeBlock(&blk, s))
							continue
						}
						bi := by*c.bwA + bx
						b := (*[64]int16)(c.coefs[bi*64:][:64])
						switch {
						case ss == 0 && ah == 0:
							dcv := d.decodeHuff(s.dc)
							c.dcPred += d.receiveExtend(uint(dcv))
							b[0] = int16(c.dcPred << al)
						case ss == 0:
							if d.bit() {
								b[0] |= int16(1 << al)
							}
						case d.eobrun > 0 && (ah == 0 || int(c.kmax[bi]) < ss):
							// Inside an end-of-band run, with no nonzero
							// coefficient in the band to refine.
							d.eobrun--
						case ah == 0:
							d.acFirst(b, &c.kmax[bi], s.ac, ss, se, al)
						default:
							d.acRefine(b, &c.kmax[bi], s.ac, ss, se, al)
						}
					}
				}
			}
		}
	}
	if d.bits.eof && d.bits.fake > d.bits.nbits {
		return fmt.Errorf("%w: image data is truncated", ErrFormat)
	}
	return nil
}

// processRestart discards the bits left of the interval and expects an RSTn
// marker.
func (d *Decoder) processRestart() error {
	if d.bits.eof && d.bits.fake > d.bits.nbits {
		return fmt.Errorf("%w: image data is truncated", ErrFormat)
	}
	if !d.bits.marker {
		// The interval's data did not end at a marker: skip to it.
		if _, err := d.nextMarker(); err != nil {
			return err
		}
		d.pos -= 2
	}
	data := d.data
	p := d.pos
	for p < len(data) && data[p] == 0xff {
		p++
	}
	if p >= len(data) || data[p] < 0xd0 || data[p] > 0xd7 {
		return fmt.Errorf("%w: restart marker missing", ErrFormat)
	}
	d.pos = p + 1
	d.bits = bitReader{}
	return nil
}

// decodeBlock decodes one sequential block's coefficients (jdhuff.c
// decode_mcu) into blk, which must be zero: dequantised with the
// component's table and transposed (blk[8·col+row]), the layout idctBlock
// reads. It returns the zig-zag position of the last coefficient coded (0
// when only the DC was; possibly higher than the last nonzero one).
//
// The bit buffer lives in locals. A coefficient needs at most 16 + 15 bits,
// so below 32 the buffer is refilled: with 8 bytes at once (leaving at least
// 56 bits) while the data ahead holds no 0xFF byte (br.limit), else by
// fillSlow.
func (d *Decoder) decodeBlock(blk *[64]int32, s scanComp) int {
	br := &d.bits
	data := d.data
	pos, limit := d.pos, br.limit
	acc, nbits := br.acc, br.nbits
	if pos+8 <= limit && pos >= 0 {
		acc |= binary.BigEndian.Uint64(data[pos:]) >> (nbits & 63)
		pos += int((63 - nbits) >> 3)
		nbits |= 56
	} else if nbits < 32 {
		br.acc, br.nbits, d.pos = acc, nbits, pos
		d.fillSlow()
		acc, nbits, pos, limit = br.acc, br.nbits, d.pos, br.limit
	}
	sym, l := s.dc.lookup(acc)
	acc <<= l & 63
	nbits -= l
	c := s.c
	q := &c.qzz
	if sz := uint(sym & 15); sz > 0 {
		v := int32(acc >> ((64 - sz) & 63))
		acc <<= sz & 63
		nbits -= sz
		if v < 1<<(sz-1) {
			v += -1<<sz + 1
		}
		c.dcPred += v
	}
	blk[0] = int32(int16(c.dcPred)) * q[0]
	fast := &s.ac.fastAC
	last := 0
	for k := 1; k < 64; k++ {
		if nbits < 32 {
			if pos+8 <= limit && pos >= 0 {
				acc |= binary.BigEndian.Uint64(data[pos:]) >> (nbits & 63)
				pos += int((63 - nbits) >> 3)
				nbits |= 56
			} else {
				br.acc, br.nbits, d.pos = acc, nbits, pos
				d.fillSlow()
				acc, nbits, pos, limit = br.acc, br.nbits, d.pos, br.limit
			}
		}
		if e := fast[acc>>(64-lookBits)]; e != 0 {
			// A coefficient with its extra bits, a ZRL (run 15, value 0)
			// or an EOB (run 128: k leaves the block, the zero lands on
			// position k, not yet coded).
			n := uint(e & 255)
			acc <<= n & 63
			nbits -= n
			k += int(e >> 8 & 255)
			kk := k & 127
			blk[zigzagT[kk]&63] = (e >> 16) * q[kk]
			last = k
			continue
		}
		rs, l := s.ac.lookup(acc)
		acc <<= l & 63
		nbits -= l
		r, sz := int(rs>>4), uint(rs&15)
		if sz == 0 {
			if r != 15 {
				break
			}
			k += 15
			continue
		}
		v := int32(acc >> ((64 - sz) & 63))
		acc <<= sz & 63
		nbits -= sz
		if v < 1<<(sz-1) {
			v += -1<<sz + 1
		}
		k += r
		kk := k & 127
		blk[zigzagT[kk]&63] = v * q[kk]
		last = k
	}
	br.acc, br.nbits, d.pos = acc, nbits, pos
	if last >= 128 {
		return last - 129 // an EOB at zig-zag position last − 128
	}
	return min(last, 63)
}

// lookup decodes the symbol at the top of acc (which must hold at least 16
// valid bits) and returns it with its code length. A code longer than 16
// bits is corrupt data; like libjpeg it yields symbol 0 (here after 16 bits).
func (h *huffDec) lookup(acc uint64) (uint8, uint) {
	if e := h.lut[acc>>(64-lookBits)]; e != 0 {
		return uint8(e), uint(e >> 8)
	}
	return h.slow(acc)
}

func (h *huffDec) slow(acc uint64) (uint8, uint) {
	for l := lookBits + 1; l <= 16; l++ {
		code := int32(acc >> (64 - l))
		if code <= h.maxcode[l] {
			return h.vals[(code+h.valoff[l])&0xff], uint(l)
		}
	}
	return 0, 16
}

// acFirst is jdphuff.c decode_mcu_AC_first for one block. It raises *km to
// the zig-zag position of each coefficient it sets.
func (d *Decoder) acFirst(b *[64]int16, km *uint8, ac *huffDec, ss, se int, al int32) {
	if d.eobrun > 0 {
		d.eobrun--
		return
	}
	for k := ss; k <= se; k++ {
		rs := d.decodeHuff(ac)
		r, s := int(rs>>4), uint(rs&15)
		if s != 0 {
			k += r
			b[zigzag[k]] = int16(d.receiveExtend(s) << al)
			*km = max(*km, uint8(min(k, 63)))
			continue
		}
		if r != 15 {
			d.eobrun = 1 << r
			if r > 0 {
				d.eobrun += d.getBits(uint(r))
			}
			d.eobrun--
			return
		}
		k += 15
	}
}

// acRefine is jdphuff.c decode_mcu_AC_refine for one block. It raises *km
// to the zig-zag position of each coefficient it makes nonzero, and skips
// the positions past *km, which hold zeros.
func (d *Decoder) acRefine(b *[64]int16, km *uint8, ac *huffDec, ss, se int, al int32) {
	p1 := int16(1) << al
	m1 := int16(-1) << al
	refine := func(c *int16) {
		if d.bit() && *c&p1 == 0 {
			if *c >= 0 {
				*c += p1
			} else {
				*c += m1
			}
		}
	}
	k := ss
	if d.eobrun == 0 {
		for ; k <= se; k++ {
			rs := d.decodeHuff(ac)
			r, s := int(rs>>4), int16(rs&15)
			if s != 0 {
				if d.bit() {
					s = p1
				} else {
					s = m1
				}
			} else if r != 15 {
				d.eobrun = 1 << r
				if r > 0 {
					d.eobrun += d.getBits(uint(r))
				}
				break
			}
			for k <= se {
				if k > int(*km) {
					// Every coefficient from k on is zero: the new one
					// lands r zeros further (past se on corrupt data).
					k = min(k+r, se+1)
					break
				}
				c := &b[zigzag[k]]
				if *c != 0 {
					refine(c)
				} else {
					r--
					if r < 0 {
						break
					}
				}
				k++
			}
			if s != 0 {
				b[zigzag[k]] = s
				*km = max(*km, uint8(min(k, 63)))
			}
		}
	}
	if d.eobrun > 0 {
		for end := min(se, int(*km)); k <= end; k++ { // zeros past *km
			if c := &b[zigzag[k]]; *c != 0 {
				refine(c)
			}
		}
		d.eobrun--
	}
}
