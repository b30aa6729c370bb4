package jpeg

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by Decode's error for valid JPEG files that this
// decoder does not reproduce (see the package documentation); callers may
// fall back to another decoder.
var ErrUnsupported = errors.New("jpeg: unsupported")

// ErrFormat is wrapped by Decode's error for data that is not a JPEG file
// or is damaged beyond what libjpeg tolerates (a truncated entropy-coded
// segment, a missing table, an impossible header).
var ErrFormat = errors.New("jpeg: invalid")

// Image is a decoded image: Channels (1 for grayscale, 3 for RGB) 8-bit
// samples per pixel, interleaved, row y at Pix[y·Width·Channels].
type Image struct {
	Width, Height, Channels int
	Pix                     []uint8
}

// huffDec is a derived decoding table (jdhuff.c jpeg_make_d_derived_tbl):
// a 9-bit lookahead table and, for longer codes, the largest code of each
// length with the offset of its symbols.
type huffDec struct {
	lut [1 << lookBits]uint16 // size<<8 | symbol; 0 = longer code
	// fastAC decodes a sequential scan's AC symbol together with its extra
	// bits when both fit in lookBits: value<<16 | run<<8 | bits used, where
	// a ZRL has run 15 and value 0 and an end of block run 128; 0 when they
	// do not fit.
	fastAC  [1 << lookBits]int32
	maxcode [18]int32
	valoff  [17]int32
	vals    [256]uint8
	present bool
	maxSym  uint8 // the largest symbol
}

const lookBits = 10

func (h *huffDec) build(counts *[16]uint8, vals []uint8, ac bool) error {
	h.present = true
	clear(h.lut[:])
	clear(h.fastAC[:])
	clear(h.maxcode[:])
	clear(h.valoff[:])
	copy(h.vals[:], vals)
	h.maxSym = 0
	for _, v := range vals {
		h.maxSym = max(h.maxSym, v)
	}
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		if code+n > 1<<l {
			return fmt.Errorf("%w: bad Huffman table", ErrFormat)
		}
		if n > 0 {
			h.valoff[l] = k - code
			for i := range n {
				c := code + i
				if l <= lookBits {
					sym := vals[k+i]
					sh := uint(lookBits - l)
					for j := c << sh; j < (c+1)<<sh; j++ {
						h.lut[j] = uint16(l)<<8 | uint16(sym)
					}
					if sz := int32(sym & 15); ac && sz == 0 {
						run := int32(128) // EOB (EOBn in a sequential scan)
						if sym == 0xf0 {
							run = 15 // ZRL
						}
						for j := c << sh; j < (c+1)<<sh; j++ {
							h.fastAC[j] = run<<8 | int32(l)
						}
					} else if ac && int32(l)+sz <= lookBits {
						sh2 := uint(int32(lookBits-l) - sz)
						for e := range int32(1) << sz {
							v := e
							if v < 1<<(sz-1) {
								v += -1<<sz + 1
							}
							ent := v<<16 | int32(sym>>4)<<8 | (int32(l) + sz)
							base := c<<sh | e<<sh2
							for j := base; j < base+1<<sh2; j++ {
								h.fastAC[j] = ent
							}
						}
					}
				}
			}
			code += n
			k += n
			h.maxcode[l] = code - 1
		} else {
			h.maxcode[l] = -1
		}
		code <<= 1
	}
	h.maxcode[17] = 0xfffff
	return nil
}

// component is one colour component of the frame.
type component struct {
	id, h, v, tq int
	w, hgt       int // samples: ceil(W·h/maxH) × ceil(H·v/maxV)
	bw, bh       int // blocks covering the samples
	bwA, bhA     int // blocks allocated: whole MCUs
	plane        []uint8
	coefs        []int16
	kmax         []uint8    // per block of coefs: zig-zag position ≥ its last nonzero coefficient
	quant        [64]int32  // natural order, latched at the first scan
	qzz          [128]int32 // quant in zig-zag order, past 63 as zigzag
	latched      bool
	dcPred       int32
	dcTab, acTab int
	coefBits     [10]int32
}

// ErrTooLarge is wrapped by Decode's error for a frame with more pixels
// than Decoder.MaxPixels.
var ErrTooLarge = errors.New("jpeg: image exceeds the pixel limit")

// Decoder decodes JPEG files as libjpeg-turbo does with Pillow's settings.
// It reuses its buffers between calls; it is not safe for concurrent use.
// The zero value is ready to use.
type Decoder struct {
	// MaxPixels, when positive, rejects frames of more pixels before
	// anything is allocated for them.
	MaxPixels int

	// tables survive between calls (their storage is large); Decode marks
	// them absent.
	qt     [4][64]uint16 // natural order
	dc, ac [4]huffDec

	decodeState
}

// decodeState is the per-file state Decode resets.
type decodeState struct {
	data        []byte
	pos         int
	qtSet       [4]bool
	comps       []component
	compBuf     [4]component
	width       int
	height      int
	maxH, maxV  int
	mcusX       int
	mcusY       int
	progressive bool
	restart     int
	jfif        bool
	adobe       bool
	adobeXform  int
	sawSOF      bool
	eobrun      int32
	bits        bitReader
	up          [3][]uint8
	packed      []uint32
	off         []int64
}

// Decode decodes the JPEG file data into dst's storage (grown as needed)
// and returns the image. Errors wrap ErrUnsupported or ErrFormat.
func (d *Decoder) Decode(dst []uint8, data []byte) (Image, error) {
	d.decodeState = decodeState{up: d.up, packed: d.packed, off: d.off, compBuf: d.compBuf}
	for i := range d.dc {
		d.dc[i].present, d.ac[i].present = false, false
	}
	for i := range d.compBuf {
		c := &d.compBuf[i]
		*c = component{plane: c.plane, coefs: c.coefs, kmax: c.kmax}
	}
	d.data = data
	if len(data) < 2 || data[0] != 0xff || data[1] != 0xd8 {
		return Image{}, fmt.Errorf("%w: missing SOI marker", ErrFormat)
	}
	d.pos = 2
	scans := 0
	for {
		m, err := d.nextMarker()
		if err != nil {
			if errors.Is(err, errEOF) && scans > 0 {
				break // no EOI: the data so far is the image, as libjpeg decodes it
			}
			return Image{}, err
		}
		if m == 0xd9 { // EOI
			break
		}
		if m == 0xd8 || (m >= 0xd0 && m <= 0xd7) || m == 0x01 {
			continue // parameterless: stray SOI/RSTn/TEM, ignored as libjpeg does
		}
		if d.pos+2 > len(data) {
			return Image{}, fmt.Errorf("%w: truncated marker segment", ErrFormat)
		}
		n := int(data[d.pos])<<8 | int(data[d.pos+1])
		if n < 2 || d.pos+n > len(data) {
			return Image{}, fmt.Errorf("%w: truncated marker segment 0xff%02x", ErrFormat, m)
		}
		seg := data[d.pos+2 : d.pos+n]
		d.pos += n
		switch {
		case m == 0xc0 || m == 0xc1 || m == 0xc2:
			if err := d.parseSOF(seg, m == 0xc2); err != nil {
				return Image{}, err
			}
		case m == 0xc3 || (m >= 0xc5 && m <= 0xcf && m != 0xc8 && m != 0xcc):
			return Image{}, fmt.Errorf("%w: SOF%d (lossless, hierarchical or arithmetic-coded JPEG)", ErrUnsupported, m-0xc0)
		case m == 0xcc:
			return Image{}, fmt.Errorf("%w: arithmetic coding", ErrUnsupported)
		case m == 0xc4:
			if err := d.parseDHT(seg); err != nil {
				return Image{}, err
			}
		case m == 0xdb:
			if err := d.parseDQT(seg); err != nil {
				return Image{}, err
			}
		case m == 0xdd:
			if len(seg) < 2 {
				return Image{}, fmt.Errorf("%w: bad DRI", ErrFormat)
			}
			d.restart = int(seg[0])<<8 | int(seg[1])
		case m == 0xe0:
			if len(seg) >= 5 && string(seg[:5]) == "JFIF\x00" {
				d.jfif = true
			}
		case m == 0xee:
			if len(seg) >= 12 && string(seg[:5]) == "Adobe" {
				d.adobe = true
				d.adobeXform = int(seg[11])
			}
		case m == 0xda:
			if err := d.scan(seg); err != nil {
				return Image{}, err
			}
			scans++
		}
	}
	if !d.sawSOF || scans == 0 {
		return Image{}, fmt.Errorf("%w: no image data", ErrFormat)
	}
	if d.progressive {
		if d.smoothingApplies() {
			return Image{}, fmt.Errorf("%w: progressive file whose scans leave low-frequency coefficients unrefined (libjpeg block smoothing)", ErrUnsupported)
		}
		var t [64]int32
		for ci := range d.comps {
			c := &d.comps[ci]
			for by := range c.bhA {
				for bx := range c.bwA {
					bi := by*c.bwA + bx
					b := (*[64]int16)(c.coefs[bi*64:][:64])
					km := int(c.kmax[bi] & 63)
					for k := range km + 1 {
						t[zigzagT[k]&63] = int32(b[zigzag[k]&63]) * c.qzz[k]
					}
					idctBlock(c.plane[by*8*c.bwA*8+bx*8:], c.bwA*8, &t, km)
					for k := range km + 1 {
						t[zigzagT[k]&63] = 0
					}
				}
			}
		}
	}
	return d.output(dst)
}

var errEOF = fmt.Errorf("%w: unexpected end of data", ErrFormat)

// nextMarker skips to the next marker (libjpeg's next_marker discards
// extraneous bytes and fill 0xFFs) and returns its code.
func (d *Decoder) nextMarker() (byte, error) {
	data := d.data
	for {
		for d.pos < len(data) && data[d.pos] != 0xff {
			d.pos++
		}
		for d.pos < len(data) && data[d.pos] == 0xff {
			d.pos++
		}
		if d.pos >= len(data) {
			return 0, errEOF
		}
		m := data[d.pos]
		d.pos++
		if m != 0 {
			return m, nil
		}
	}
}

func (d *Decoder) parseSOF(seg []byte, progressive bool) error {
	if d.sawSOF {
		return fmt.Errorf("%w: two frame headers", ErrFormat)
	}
	if len(seg) < 6 {
		return fmt.Errorf("%w: short SOF", ErrFormat)
	}
	if seg[0] != 8 {
		return fmt.Errorf("%w: %d-bit samples", ErrUnsupported, seg[0])
	}
	d.height = int(seg[1])<<8 | int(seg[2])
	d.width = int(seg[3])<<8 | int(seg[4])
	nc := int(seg[5])
	if d.width == 0 || d.height == 0 {
		return fmt.Errorf("%w: empty image (%dx%d; DNL markers are not supported)", ErrFormat, d.width, d.height)
	}
	if d.MaxPixels > 0 && d.width > d.MaxPixels/d.height {
		return fmt.Errorf("%w: %dx%d, limit %d pixels", ErrTooLarge, d.width, d.height, d.MaxPixels)
	}
	if nc != 1 && nc != 3 {
		return fmt.Errorf("%w: %d components", ErrUnsupported, nc)
	}
	if len(seg) < 6+3*nc {
		return fmt.Errorf("%w: short SOF", ErrFormat)
	}
	d.comps = d.compBuf[:nc]
	d.maxH, d.maxV = 1, 1
	for i := range nc {
		c := &d.comps[i]
		p := seg[6+3*i:]
		c.id, c.h, c.v, c.tq = int(p[0]), int(p[1]>>4), int(p[1]&15), int(p[2])
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3 {
			return fmt.Errorf("%w: bad sampling factors or table in SOF", ErrFormat)
		}
		d.maxH, d.maxV = max(d.maxH, c.h), max(d.maxV, c.v)
	}
	d.mcusX = (d.width + 8*d.maxH - 1) / (8 * d.maxH)
	d.mcusY = (d.height + 8*d.maxV - 1) / (8 * d.maxV)
	for i := range d.comps {
		c := &d.comps[i]
		if d.maxH%c.h != 0 || d.maxV%c.v != 0 {
			return fmt.Errorf("%w: sampling factors %dx%d in a %dx%d frame (non-integral ratio)", ErrUnsupported, c.h, c.v, d.maxH, d.maxV)
		}
		c.w = (d.width*c.h + d.maxH - 1) / d.maxH
		c.hgt = (d.height*c.v + d.maxV - 1) / d.maxV
		c.bw, c.bh = (c.w+7)/8, (c.hgt+7)/8
		c.bwA, c.bhA = d.mcusX*c.h, d.mcusY*c.v
		n := c.bwA * c.bhA * 64
		c.plane = grow(c.plane, n)
		if progressive {
			if cap(c.coefs) < n {
				c.coefs = make([]int16, n)
			} else {
				c.coefs = c.coefs[:n]
				clear(c.coefs)
			}
			c.kmax = grow(c.kmax, n/64)
			clear(c.kmax)
		}
		for k := range c.coefBits {
			c.coefBits[k] = -1
		}
	}
	d.progressive = progressive
	d.sawSOF = true
	return nil
}

func (d *Decoder) parseDQT(seg []byte) error {
	for len(seg) > 0 {
		pq, tq := seg[0]>>4, seg[0]&15
		if tq > 3 || pq > 1 {
			return fmt.Errorf("%w: bad DQT", ErrFormat)
		}
		n := 64 << pq
		if len(seg) < 1+n {
			return fmt.Errorf("%w: short DQT", ErrFormat)
		}
		for k := range 64 {
			v := uint16(seg[1+k])
			if pq == 1 {
				v = uint16(seg[1+2*k])<<8 | uint16(seg[2+2*k])
			}
			d.qt[tq][zigzag[k]] = v
		}
		d.qtSet[tq] = true
		seg = seg[1+n:]
	}
	return nil
}

func (d *Decoder) parseDHT(seg []byte) error {
	for len(seg) > 0 {
		if len(seg) < 17 {
			return fmt.Errorf("%w: short DHT", ErrFormat)
		}
		class, id := seg[0]>>4, seg[0]&15
		if class > 1 || id > 3 {
			return fmt.Errorf("%w: bad DHT", ErrFormat)
		}
		var counts [16]uint8
		copy(counts[:], seg[1:17])
		total := 0
		for _, c := range counts {
			total += int(c)
		}
		if total > 256 || len(seg) < 17+total {
			return fmt.Errorf("%w: bad DHT", ErrFormat)
		}
		t := &d.dc[id]
		if class == 1 {
			t = &d.ac[id]
		}
		if err := t.build(&counts, seg[17:17+total], class == 1); err != nil {
			return err
		}
		seg = seg[17+total:]
	}
	return nil
}

// smoothingApplies is jdcoefct.c smoothing_ok evaluated after the last
// scan: libjpeg smooths a progressive image when every component's DC is
// known and some component's first nine AC coefficients (zig-zag 1…9) are
// not fully refined.
func (d *Decoder) smoothingApplies() bool {
	useful := false
	for ci := range d.comps {
		c := &d.comps[ci]
		for _, k := range []int{0, 1, 8, 16, 9, 2, 3, 10, 17, 24} {
			if c.quant[k] == 0 {
				return false
			}
		}
		if c.coefBits[0] < 0 {
			return false
		}
		for _, b := range c.coefBits[1:] {
			if b != 0 {
				useful = true
			}
		}
	}
	return useful
}
