package jpeg

import (
	"encoding/binary"
	"fmt"
)

// bitReader reads entropy-coded data MSB first, removing stuffed zero
// bytes. At a marker it feeds zero bits, as libjpeg does
// (jdhuff.c jpeg_fill_bit_buffer); past the end of the data it feeds zero
// bits too but remembers it, and the scan fails as truncated if it used them.
type bitReader struct {
	acc    uint64
	nbits  uint
	marker bool // stopped at a marker
	eof    bool // ran out of data
	fake   uint // zero bits fed after the end of the data
}

// fill tops the accumulator up to at least 57 bits.
func (d *Decoder) fill() {
	br := &d.bits
	data := d.data
	// Fast path: the next 8 bytes hold no 0xFF (no stuffing, no marker), so
	// as many whole bytes as fit go in at once.
	if !br.marker && d.pos+8 <= len(data) {
		v := binary.BigEndian.Uint64(data[d.pos:])
		x := ^v // 0xFF bytes become zero bytes
		if (x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
			n := (64 - br.nbits) / 8
			br.acc = br.acc<<(8*n) | v>>(64-8*n)
			br.nbits += 8 * n
			d.pos += int(n)
			return
		}
	}
	for br.nbits <= 56 {
		if br.marker || br.eof {
			br.acc <<= 8
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
		br.acc = br.acc<<8 | uint64(c)
		br.nbits += 8
	}
}

// getBits returns the next n bits (n ≤ 16).
func (d *Decoder) getBits(n uint) int32 {
	if n == 0 {
		return 0
	}
	if d.bits.nbits < n {
		d.fill()
	}
	d.bits.nbits -= n
	return int32(d.bits.acc>>d.bits.nbits) & (1<<n - 1)
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
	sym, l := h.lookup(br.acc, br.nbits)
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
	}

	// The MCU grid: interleaved scans use the frame's MCUs; a one-component
	// scan goes block by block over that component's blocks.
	var nx, ny int
	if ns == 1 {
		nx, ny = comps[0].c.bw, comps[0].c.bh
	} else {
		nx, ny = d.mcusX, d.mcusY
	}
	var blk [64]int16
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
							blk = [64]int16{}
							out := c.plane[by*8*c.bwA*8+bx*8:]
							idctBlock(out, c.bwA*8, &blk, &c.quant, d.decodeBlock(&blk, s))
							continue
						}
						b := (*[64]int16)(c.coefs[(by*c.bwA+bx)*64:][:64])
						switch {
						case ss == 0 && ah == 0:
							dcv := d.decodeHuff(s.dc)
							c.dcPred += d.receiveExtend(uint(dcv))
							b[0] = int16(c.dcPred << al)
						case ss == 0:
							if d.getBits(1) != 0 {
								b[0] |= int16(1 << al)
							}
						case ah == 0:
							d.acFirst(b, s.ac, ss, se, al)
						default:
							d.acRefine(b, s.ac, ss, se, al)
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
// decode_mcu) into blk, natural order, and returns the zig-zag position of
// the last coefficient coded (0 when only the DC was). It keeps the bit
// buffer in locals; each step needs at most 16 + 16 bits, so one refill
// check per coefficient suffices.
func (d *Decoder) decodeBlock(blk *[64]int16, s scanComp) int {
	br := &d.bits
	acc, nbits := br.acc, br.nbits
	if nbits < 32 {
		d.fill()
		acc, nbits = br.acc, br.nbits
	}
	sym, l := s.dc.lookup(acc, nbits)
	nbits -= l
	sz := uint(sym & 15)
	v := int32(acc>>(nbits-sz)) & (1<<sz - 1)
	nbits -= sz
	if sz > 0 && v < 1<<(sz-1) {
		v += -1<<sz + 1
	}
	c := s.c
	c.dcPred += v
	blk[0] = int16(c.dcPred)
	ac := s.ac
	last := 0
	for k := 1; k < 64; k++ {
		if nbits < 32 {
			br.acc, br.nbits = acc, nbits
			d.fill()
			acc, nbits = br.acc, br.nbits
		}
		if f := ac.fastAC[(acc>>(nbits-lookBits))&(1<<lookBits-1)]; f != 0 {
			nbits -= uint(f & 255)
			k += int(f >> 8 & 15)
			blk[zigzag[k&127]&63] = int16(f >> 16)
			last = k
			continue
		}
		rs, l := ac.lookup(acc, nbits)
		nbits -= l
		r, sz := int(rs>>4), uint(rs&15)
		if sz == 0 {
			if r != 15 {
				break
			}
			k += 15
			continue
		}
		v := int32(acc>>(nbits-sz)) & (1<<sz - 1)
		nbits -= sz
		if v < 1<<(sz-1) {
			v += -1<<sz + 1
		}
		k += r
		blk[zigzag[k&127]&63] = int16(v)
		last = k
	}
	br.acc, br.nbits = acc, nbits
	return min(last, 63)
}

// lookup decodes the symbol at the top of the nbits valid bits of acc
// (nbits ≥ 16) and returns it with its code length. A code longer than 16
// bits is corrupt data; like libjpeg it yields symbol 0 (here after 16 bits).
func (h *huffDec) lookup(acc uint64, nbits uint) (uint8, uint) {
	if e := h.lut[(acc>>(nbits-lookBits))&(1<<lookBits-1)]; e != 0 {
		return uint8(e), uint(e >> 8)
	}
	return h.slow(acc, nbits)
}

func (h *huffDec) slow(acc uint64, nbits uint) (uint8, uint) {
	for l := lookBits + 1; l <= 16; l++ {
		code := int32(acc>>(nbits-uint(l))) & (1<<l - 1)
		if code <= h.maxcode[l] {
			return h.vals[(code+h.valoff[l])&0xff], uint(l)
		}
	}
	return 0, 16
}

// acFirst is jdphuff.c decode_mcu_AC_first for one block.
func (d *Decoder) acFirst(b *[64]int16, ac *huffDec, ss, se int, al int32) {
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

// acRefine is jdphuff.c decode_mcu_AC_refine for one block.
func (d *Decoder) acRefine(b *[64]int16, ac *huffDec, ss, se int, al int32) {
	p1 := int16(1) << al
	m1 := int16(-1) << al
	refine := func(c *int16) {
		if d.getBits(1) != 0 && *c&p1 == 0 {
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
				if d.getBits(1) != 0 {
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
			}
		}
	}
	if d.eobrun > 0 {
		for ; k <= se; k++ {
			if c := &b[zigzag[k]]; *c != 0 {
				refine(c)
			}
		}
		d.eobrun--
	}
}
