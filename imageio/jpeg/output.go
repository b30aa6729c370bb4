package jpeg

import "fmt"

// libjpeg's ycc_rgb_convert tables (jdcolor.c build_ycc_rgb_table; 16-bit
// fixed point, ½ rounding): R = Y + crR[Cr], G = Y + (cbG[Cb] + crG[Cr]) >> 16,
// B = Y + cbB[Cb], each clamped to 0…255.
var crR, cbB, cbG, crG = func() (crr, cbb, cbg, crg [256]int32) {
	const half = 1 << 15
	for i := range 256 {
		x := int32(i) - 128
		crr[i] = (91881*x + half) >> 16  // FIX(1.40200)
		cbb[i] = (116130*x + half) >> 16 // FIX(1.77200)
		cbg[i] = -22554 * x              // -FIX(0.34414)
		crg[i] = -46802*x + half         // -FIX(0.71414)
	}
	return
}()

// output upsamples the component planes to full size as libjpeg's
// jdsample.c does with do_fancy_upsampling (the Pillow default) and
// converts them to RGB (or copies the one gray plane) into dst.
func (d *Decoder) output(dst []uint8) (Image, error) {
	w, h := d.width, d.height
	nc := len(d.comps)
	rgb := nc == 3
	if rgb && !d.isRGBSpace() {
		rgb = false
	}
	ch := 1
	if nc == 3 {
		ch = 3
	}
	if w > (1<<31-1)/h/ch {
		return Image{}, fmt.Errorf("%w: %dx%d too large", ErrUnsupported, w, h)
	}
	dst = grow(dst, w*h*ch)
	var rows [3][]uint8
	for i := range nc {
		c := &d.comps[i]
		d.up[i] = grow(d.up[i], c.bwA*8*(d.maxH/c.h)+16)
	}
	if nc == 3 && !rgb && d.fused420() && fuse420() {
		d.fancy420(dst)
		return Image{Width: w, Height: h, Channels: ch, Pix: dst}, nil
	}
	for y := range h {
		for i := range nc {
			rows[i] = d.upsampleRow(i, y)[:w]
		}
		o := dst[y*w*ch:][: w*ch : w*ch]
		switch {
		case nc == 1:
			copy(o, rows[0])
		case rgb:
			r, g, b := rows[0], rows[1][:len(rows[0])], rows[2][:len(rows[0])]
			for x := range r {
				p := o[3*x : 3*x+3 : 3*x+3]
				p[0], p[1], p[2] = r[x], g[x], b[x]
			}
		default:
			yccToRGB(o, rows[0], rows[1], rows[2])
		}
	}
	return Image{Width: w, Height: h, Channels: ch, Pix: dst}, nil
}

// yccCb[cb] and yccCr[cr] pack libjpeg's four colour terms so that one
// addition yields all three offsets: bits 0–15 hold crR + 512, bits 16–31
// cbB + 512, and bits 32–63 cbG + crG + 2^25, whose top 16 bits are
// ((cbG + crG) >> 16) + 512. No field leaves its range (crR ∈ [−179, 178],
// cbB ∈ [−227, 225], |cbG + crG| < 2^24), so none carries into another.
var yccCb, yccCr = func() (tcb, tcr [256]int64) {
	for i := range 256 {
		tcb[i] = int64(cbG[i])<<32 | int64(cbB[i]+512)<<16
		tcr[i] = int64(crG[i]+1<<25)<<32 | int64(crR[i]+512)
	}
	return
}()

// clamp512[i] is i − 512 clamped to 0…255: the offsets of yccCb and yccCr
// plus a luma sample index it (always below 1024).
var clamp512 = func() (t [1024]uint8) {
	for i := range t {
		t[i] = uint8(min(max(i-512, 0), 255))
	}
	return t
}()

// yccToRGBGo is jdcolor.c ycc_rgb_convert for one row: o gets 3·len(yr)
// samples.
func yccToRGBGo(o, yr, cb, cr []uint8) {
	n := len(yr)
	cb, cr = cb[:n], cr[:n]
	tcb, tcr, cl := &yccCb, &yccCr, &clamp512
	for x, i := 0, 0; x < n && i+3 <= len(o); x, i = x+1, i+3 {
		p := tcb[cb[x]] + tcr[cr[x]]
		y := int(yr[x])
		q := o[i : i+3 : i+3]
		q[0] = cl[(y+int(p&0xffff))&1023]
		q[1] = cl[(y+int(uint64(p)>>48))&1023]
		q[2] = cl[(y+int(p>>16&0xffff))&1023]
	}
}

// fused420 reports whether the frame is 4:2:0 with the fancy h2v2 filter
// for both chroma components (downsampled width over 2), which
// fancy420Row handles in one pass.
func (d *Decoder) fused420() bool {
	c := d.comps
	return d.maxH == 2 && d.maxV == 2 && c[0].h == 2 && c[0].v == 2 &&
		c[1].h == 1 && c[1].v == 1 && c[2].h == 1 && c[2].v == 1 && c[1].w > 2 &&
		c[1].bwA == c[2].bwA
}

// fancy420 writes the RGB image of a 4:2:0 frame (see fused420) to dst,
// one row at a time with fancy420Row. The chroma rows go through packed
// rows, Cb | Cr<<16 per sample, each built once and kept while the output
// rows need it (chroma rows j−1, j, j+1 around output rows 2j, 2j+1).
func (d *Decoder) fancy420(dst []uint8) {
	w, h := d.width, d.height
	cb, cr := &d.comps[1], &d.comps[2]
	cw, stride := cb.w, cb.bwA*8
	d.packed = grow(d.packed, 3*cw)
	d.off = grow(d.off, 2*cw)
	tag := [3]int{-1, -1, -1}
	row := func(r int) []uint32 {
		r = min(max(r, 0), cb.hgt-1) // context rows replicate the edges (jdmainct.c)
		slot := r % 3
		p := d.packed[slot*cw : slot*cw+cw : slot*cw+cw]
		if tag[slot] != r {
			tag[slot] = r
			b, c := cb.plane[r*stride:][:cw], cr.plane[r*stride:][:cw]
			for i := range p {
				p[i] = uint32(b[i]) | uint32(c[i])<<16
			}
		}
		return p
	}
	ys := d.comps[0].bwA * 8
	for y := range h {
		cy, far := y/2, y/2-1
		if y&1 == 1 {
			far = cy + 1
		}
		fancy420Row(dst[y*w*3:][:w*3:w*3], d.comps[0].plane[y*ys:][:w], row(cy), row(far), d.off)
	}
}

// fancy420Row is fancyH2V2 on both chroma components followed by
// yccToRGB, with the same arithmetic: output row o (3·len(yr) samples) from
// the luma row yr and the packed chroma rows (Cb | Cr<<16) nearest (near)
// and next nearest (far). Both components travel in one uint32, Cb in bits
// 0…15, Cr above; no sum exceeds 12 bits, so the two never carry into each
// other. The first loop leaves each pixel's colour offsets (yccCb + yccCr)
// in off, the second adds luma; two short loops keep their state in
// registers. len(near) ≥ 2 and len(yr) is 2·len(near) or one less.
func fancy420Row(o, yr []uint8, near, far []uint32, off []int64) {
	const k8, k7 = 8 | 8<<16, 7 | 7<<16
	n := len(near)
	far = far[:n]
	off = off[:2*n]
	tcb, tcr := &yccCb, &yccCr
	this, next := near[0]*3+far[0], near[1]*3+far[1]
	v := this*4 + k8
	off[0] = tcb[uint8(v>>4)] + tcr[uint8(v>>20)]
	v = this*3 + next + k7
	off[1] = tcb[uint8(v>>4)] + tcr[uint8(v>>20)]
	last := this
	this = next
	for i := 1; i < n-1; i++ {
		next = near[i+1]*3 + far[i+1]
		t3 := this * 3
		a, b := t3+last+k8, t3+next+k7
		pair := (*[2]int64)(off[2*i : 2*i+2])
		pair[0] = tcb[uint8(a>>4)] + tcr[uint8(a>>20)]
		pair[1] = tcb[uint8(b>>4)] + tcr[uint8(b>>20)]
		last, this = this, next
	}
	v = this*3 + last + k8
	off[2*n-2] = tcb[uint8(v>>4)] + tcr[uint8(v>>20)]
	v = this*4 + k7
	off[2*n-1] = tcb[uint8(v>>4)] + tcr[uint8(v>>20)]
	offsetsToRGB(o, yr, off)
}

// offsetsToRGB finishes ycc_rgb_convert for one row: each luma sample plus
// its pixel's packed colour offsets (yccCb[cb] + yccCr[cr]) gives R, G and B,
// clamped. o gets 3·len(yr) samples.
func offsetsToRGB(o, yr []uint8, off []int64) {
	off = off[:len(yr)]
	cl := &clamp512
	for x, i := 0, 0; x < len(yr) && i+3 <= len(o); x, i = x+1, i+3 {
		y, p := int(yr[x]), off[x]
		q := o[i : i+3 : i+3]
		q[0] = cl[(y+int(p&0xffff))&1023]
		q[1] = cl[(y+int(uint64(p)>>48))&1023]
		q[2] = cl[(y+int(p>>16&0xffff))&1023]
	}
}

// isRGBSpace is libjpeg's guess of a three-component file's colour space
// (jdapimin.c default_decompress_parms): YCbCr with a JFIF marker, else as
// an Adobe marker's transform says (0 = RGB), else RGB only when the
// component IDs are 'R', 'G', 'B'.
func (d *Decoder) isRGBSpace() bool {
	if d.jfif {
		return false
	}
	if d.adobe {
		return d.adobeXform == 0
	}
	c := d.comps
	return c[0].id == 'R' && c[1].id == 'G' && c[2].id == 'B'
}

// upsampleRow returns output row y of component i at full resolution (at
// least the image width).
func (d *Decoder) upsampleRow(i, y int) []uint8 {
	c := &d.comps[i]
	stride := c.bwA * 8
	hx, vx := d.maxH/c.h, d.maxV/c.v
	row := func(r int) []uint8 {
		r = min(max(r, 0), c.hgt-1) // context rows replicate the edges (jdmainct.c)
		return c.plane[r*stride:][:c.w]
	}
	out := d.up[i]
	fancyH := c.w > 2 // jdsample.c uses the fancy h2 filters only then
	switch {
	case hx == 1 && vx == 1:
		return c.plane[y*stride:]
	case hx == 2 && vx == 1 && fancyH:
		fancyH2V1(out, row(y))
	case hx == 2 && vx == 2 && fancyH:
		cy := y / 2
		far := cy - 1
		if y&1 == 1 {
			far = cy + 1
		}
		fancyH2V2(out, row(cy), row(far))
	case hx == 1 && vx == 2:
		cy := y / 2
		near := row(cy)
		far, bias := row(cy-1), 1
		if y&1 == 1 {
			far, bias = row(cy+1), 2
		}
		far = far[:len(near)]
		for x, v := range near {
			out[x] = uint8((int(v)*3 + int(far[x]) + bias) >> 2)
		}
	default: // int_upsample, h2v1_upsample, h2v2_upsample: replication
		in := row(y / vx)
		for x, v := range in {
			for k := range hx {
				out[x*hx+k] = v
			}
		}
	}
	return out
}

// fancyH2V1 is jdsample.c h2v1_fancy_upsample for one row: each output
// sample is ¾ of the nearer input sample plus ¼ of the further one, with
// rounding biases alternating 1 and 2. len(in) ≥ 2; out holds 2·len(in).
func fancyH2V1(out, in []uint8) {
	n := len(in)
	out = out[:2*n]
	out[0] = in[0]
	out[1] = uint8((int(in[0])*3 + int(in[1]) + 2) >> 2)
	for i := 1; i < n-1; i++ {
		v := int(in[i]) * 3
		out[2*i] = uint8((v + int(in[i-1]) + 1) >> 2)
		out[2*i+1] = uint8((v + int(in[i+1]) + 2) >> 2)
	}
	out[2*n-2] = uint8((int(in[n-1])*3 + int(in[n-2]) + 1) >> 2)
	out[2*n-1] = in[n-1]
}

// fancyH2V2Go is jdsample.c h2v2_fancy_upsample for one output row, from
// the nearest input row and the next nearest (above for even output rows,
// below for odd ones): weights 9/16, 3/16, 3/16, 1/16 with rounding biases
// alternating 8 and 7. len(near) ≥ 2; out holds 2·len(near).
func fancyH2V2Go(out, near, far []uint8) { fancyH2V2From(out, near, far, 1) }

// fancyH2V2From is fancyH2V2Go for the edge samples 0 and len(near) − 1 and
// the samples from on; the output of samples 1 … from − 1 is left as it is.
func fancyH2V2From(out, near, far []uint8, from int) {
	n := len(near)
	far = far[:n]
	out = out[:2*n]
	col := func(i int) int { return int(near[i])*3 + int(far[i]) }
	this, next := col(0), col(1)
	out[0] = uint8((this*4 + 8) >> 4)
	out[1] = uint8((this*3 + next + 7) >> 4)
	last := col(from - 1)
	this = col(from)
	for i := from; i < n-1; i++ {
		next = int(near[i+1])*3 + int(far[i+1])
		o := out[2*i:][:2:2]
		o[0] = uint8((this*3 + last + 8) >> 4)
		o[1] = uint8((this*3 + next + 7) >> 4)
		last, this = this, next
	}
	this, last = col(n-1), col(n-2)
	out[2*n-2] = uint8((this*3 + last + 8) >> 4)
	out[2*n-1] = uint8((this*4 + 7) >> 4)
}
