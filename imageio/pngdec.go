package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sync"
)

// decodePNGRGB8 decodes 8-bit RGB and RGBA, non-interlaced PNG files (what
// vcr generate and most tools write for photos) straight into the planar
// float image, faster than image/png followed by FromImage: the zlib stream
// is inflated in one piece by a table-driven decoder (inflate.go), rows are
// unfiltered in place and converted with the From8 table, without an
// intermediate image.RGBA. Alpha is dropped and the stored colour kept, as
// FromImage does with image/png's NRGBA (the package's alpha policy). It
// returns ok = false, leaving the file to image/png, for every other kind
// of PNG (grey, palette, 16-bit, interlaced) and for anything it does not
// understand; for the files it takes, the pixels equal image/png's and
// errors are reported as image/png would (bad checksums, truncated or
// surplus pixel data).
func decodePNGRGB8(data []byte) (m *Image, ok bool, err error) {
	if len(data) < 8+25 || !bytes.Equal(data[:8], pngSignature) {
		return nil, false, nil
	}
	p := data[8:]
	// IHDR: width, height, bit depth 8, colour type 2 (RGB) or 6 (RGBA),
	// compression 0, filter 0, interlace 0.
	if binary.BigEndian.Uint32(p) != 13 || string(p[4:8]) != "IHDR" {
		return nil, false, nil
	}
	h := p[8:21]
	if h[8] != 8 || (h[9] != 2 && h[9] != 6) || h[10] != 0 || h[11] != 0 || h[12] != 0 {
		return nil, false, nil
	}
	bpp := 3
	if h[9] == 6 {
		bpp = 4
	}
	if crc32.ChecksumIEEE(p[4:21]) != binary.BigEndian.Uint32(p[21:25]) {
		return nil, false, nil // let image/png report it
	}
	w, ht := int(binary.BigEndian.Uint32(h[0:4])), int(binary.BigEndian.Uint32(h[4:8]))
	if w <= 0 || ht <= 0 || w > 1<<24 || ht > 1<<24 {
		return nil, false, nil
	}
	// Collect the IDAT chunks; any chunk before them other than ancillary
	// ones (lower-case first letter) sends the file to image/png.
	p = p[25:]
	var idat [][]byte
	for len(p) >= 12 {
		n := int(binary.BigEndian.Uint32(p))
		if n < 0 || n > len(p)-12 {
			return nil, false, nil
		}
		typ := string(p[4:8])
		if crc32.ChecksumIEEE(p[4:8+n]) != binary.BigEndian.Uint32(p[8+n:12+n]) {
			return nil, false, nil
		}
		switch {
		case typ == "IDAT":
			idat = append(idat, p[8:8+n])
		case typ == "IEND":
			p = nil
			continue
		case len(idat) > 0:
			// a chunk after the image data: ignored, as image/png does
		case typ[0]&0x20 == 0:
			return nil, false, nil // a critical chunk such as PLTE
		}
		p = p[12+n:]
	}
	if len(idat) == 0 || p != nil {
		return nil, false, nil
	}
	buf := pngBufs.Get().(*pngBuf)
	defer func() {
		if cap(buf.raw)+cap(buf.z) <= maxPooledPNG {
			pngBufs.Put(buf)
		}
	}()
	z := idat[0]
	if len(idat) > 1 {
		buf.z = buf.z[:0]
		for _, c := range idat {
			buf.z = append(buf.z, c...)
		}
		z = buf.z
	}
	stride := bpp * w
	if cap(buf.raw) < ht*(1+stride) {
		buf.raw = make([]byte, ht*(1+stride))
	}
	raw := buf.raw[:ht*(1+stride)]
	if err := inflate(raw, z); err != nil {
		if err == errShort {
			err = io.ErrUnexpectedEOF
		}
		return nil, true, err
	}
	m = New(w, ht)
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2]
	prev := make([]byte, stride) // the row above the first: zeros
	for y := range ht {
		line := raw[y*(1+stride) : (y+1)*(1+stride)]
		row := line[1:]
		if err := unfilter(row, prev, line[0], bpp); err != nil {
			return nil, true, err
		}
		o := y * w
		if bpp == 3 {
			rgb8Planes(R[o:o+w], G[o:o+w], B[o:o+w], row)
		} else {
			rr, gg, bb := R[o:o+w], G[o:o+w], B[o:o+w]
			for x := range rr {
				px := row[4*x : 4*x+3 : 4*x+3]
				rr[x], gg[x], bb[x] = lut8[px[0]], lut8[px[1]], lut8[px[2]]
			}
		}
		prev = row
	}
	return m, true, nil
}

// pngBuf holds decodePNGRGB8's scratch: the joined IDAT data and the
// inflated rows, reused from file to file (a 224×224 image's rows are
// 150 KB, which the allocator would otherwise clear and the collector
// reclaim for every file).
type pngBuf struct{ z, raw []byte }

var pngBufs = sync.Pool{New: func() any { return new(pngBuf) }}

// maxPooledPNG bounds the scratch that goes back to pngBufs (images up to
// about 1.4 megapixels), so that the pool never keeps a large image's rows
// beyond the memory budget that vcr generate reserved for decoding it.
const maxPooledPNG = 4 << 20

// unfilter reverses PNG filter ft on row cur (bpp = 3 or 4 bytes per
// pixel) given the previous, already unfiltered row prev.
func unfilter(cur, prev []byte, ft byte, bpp int) error {
	prev = prev[:len(cur)]
	switch ft {
	case 0:
	case 1: // Sub
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2: // Up
		for i, p := range prev {
			cur[i] += p
		}
	case 3: // Average
		for i := range bpp {
			cur[i] += prev[i] / 2
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += byte((int(cur[i-bpp]) + int(prev[i])) / 2)
		}
	case 4: // Paeth
		if bpp != 3 {
			for i := range bpp {
				cur[i] += prev[i] // a = c = 0: Paeth predicts b
			}
			for i := bpp; i < len(cur); i++ {
				cur[i] += byte(paeth(int(cur[i-bpp]), int(prev[i]), int(prev[i-bpp])))
			}
			break
		}
		unpaeth3(cur, prev)
	default:
		return errors.New("png: invalid format: bad filter type")
	}
	return nil
}

// unpaeth3Go reverses the Paeth filter on row cur (3 bytes per pixel)
// given the unfiltered row above, prev. It is unpaeth3 in pure Go.
func unpaeth3Go(cur, prev []byte) {
	const bpp = 3
	prev = prev[:len(cur)]
	// a = left, b = up, c = up-left, per channel (0 at the row start).
	var a0, a1, a2, c0, c1, c2 int
	n := len(cur) / bpp * bpp
	for i := 0; i < n; i += bpp {
		px, up := cur[i:i+bpp:i+bpp], prev[i:i+bpp:i+bpp]
		b0, b1, b2 := int(up[0]), int(up[1]), int(up[2])
		a0 = int(px[0] + byte(paeth(a0, b0, c0)))
		a1 = int(px[1] + byte(paeth(a1, b1, c1)))
		a2 = int(px[2] + byte(paeth(a2, b2, c2)))
		px[0], px[1], px[2] = byte(a0), byte(a1), byte(a2)
		c0, c1, c2 = b0, b1, b2
	}
}

// paeth is the PNG Paeth predictor of left a, up b and up-left c, in the
// form of stb_image (Sean Barrett's stbi__paeth), which is equivalent to
// the specification's and has a shorter chain of dependent operations on a
// (the previous pixel, the loop-carried value when unfiltering), without
// data-dependent branches (noisy images defeat branch prediction): with
// t = 3c − a − b, the predictor is max(a, b) if t ≤ min(a, b), else
// min(a, b) if max(a, b) ≤ t, else c. paethRef in the tests is the
// specification's version; TestPaeth compares the two on all 2²⁴ inputs.
func paeth(a, b, c int) int {
	t := 3*c - (a + b)
	lo, hi := min(a, b), max(a, b)
	x := c
	if hi <= t {
		x = lo
	}
	if t <= lo {
		x = hi
	}
	return x
}

// rgb8PlanesGo writes the interleaved 8-bit RGB pixels of src (len 3·len(r))
// into the float planes r, g and b as lut8 values (k/255). It is rgb8Planes
// in pure Go.
func rgb8PlanesGo(r, g, b []float32, src []byte) {
	n := len(r)
	g, b, src = g[:n], b[:n], src[:3*n]
	for x := range r {
		px := src[3*x : 3*x+3 : 3*x+3]
		r[x], g[x], b[x] = lut8[px[0]], lut8[px[1]], lut8[px[2]]
	}
}
