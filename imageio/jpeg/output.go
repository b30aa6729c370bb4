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

func clamp8(v int32) uint8 {
	return clampTab[v&1023]
}

// clampTab[v & 1023] clamps v ∈ [−384, 639] to 0…255 (libjpeg's
// sample_range_limit, with a mask instead of an offset).
var clampTab = func() (t [1024]uint8) {
	for i := range t {
		switch {
		case i < 256:
			t[i] = uint8(i)
		case i < 640:
			t[i] = 255
		}
	}
	return t
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
	if nc == 3 && !rgb && d.fused420() {
		for y := range h {
			o := dst[y*w*3:][: w*3 : w*3]
			yr := d.comps[0].plane[y*d.comps[0].bwA*8:][:w]
			cb, cr := &d.comps[1], &d.comps[2]
			stride := cb.bwA * 8
			row := func(c *component, r int) []uint8 {
				r = min(max(r, 0), c.hgt-1)
				return c.plane[r*stride:][:c.w]
			}
			cy, far := y/2, y/2-1
			if y&1 == 1 {
				far = cy + 1
			}
			fancy420Row(o, yr, row(cb, cy), row(cb, far), row(cr, cy), row(cr, far))
		}
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

// yccToRGB is jdcolor.c ycc_rgb_convert for one row.
func yccToRGB(o, yr, cb, cr []uint8) {
	cb, cr = cb[:len(yr)], cr[:len(yr)]
	for x, yv := range yr {
		if len(o) < 3 {
			break
		}
		yy := int32(yv)
		cbv, crv := cb[x], cr[x]
		o[0] = clampTab[(yy+crR[crv])&1023]
		o[1] = clampTab[(yy+(cbG[cbv]+crG[crv])>>16)&1023]
		o[2] = clampTab[(yy+cbB[cbv])&1023]
		o = o[3:]
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

// ycc is ycc_rgb_convert for one pixel.
func ycc(y, cb, cr int) (uint8, uint8, uint8) {
	yy := int32(y)
	return clampTab[(yy+crR[uint8(cr)])&1023], clampTab[(yy+(cbG[uint8(cb)]+crG[uint8(cr)])>>16)&1023], clampTab[(yy+cbB[uint8(cb)])&1023]
}

// fancy420Row is fancyH2V2 on both chroma rows fused with yccToRGB: one
// output row o (3·len(yr) bytes) from the luma row and the nearest and next
// nearest rows of Cb and Cr, with the same arithmetic. The Cb and Cr sums
// travel together in one int, Cb in bits 0…31 and Cr above; no sum exceeds
// 12 bits, so the lanes never carry into each other.
func fancy420Row(o, yr, cbN, cbF, crN, crF []uint8) {
	const k8, k7 = 8 | 8<<32, 7 | 7<<32
	w := len(yr)
	n := len(cbN)
	cbF, crN, crF = cbF[:n], crN[:n], crF[:n]
	sum := func(i int) int {
		return int(cbN[i])*3 + int(cbF[i]) | (int(crN[i])*3+int(crF[i]))<<32
	}
	this, next := sum(0), sum(1)
	v := this*4 + k8
	o[0], o[1], o[2] = ycc(int(yr[0]), v>>4&0xff, v>>36&0xff)
	if w > 1 {
		v = this*3 + next + k7
		o[3], o[4], o[5] = ycc(int(yr[1]), v>>4&0xff, v>>36&0xff)
	}
	last := this
	this = next
	for i := 1; i < n-1; i++ {
		next = int(cbN[i+1])*3 + int(cbF[i+1]) | (int(crN[i+1])*3+int(crF[i+1]))<<32
		y := yr[2*i : 2*i+2 : 2*i+2]
		p := o[6*i : 6*i+6 : 6*i+6]
		t3 := this * 3
		a := t3 + last + k8
		b := t3 + next + k7
		p[0], p[1], p[2] = ycc(int(y[0]), a>>4&0xff, a>>36&0xff)
		p[3], p[4], p[5] = ycc(int(y[1]), b>>4&0xff, b>>36&0xff)
		last, this = this, next
	}
	x := 2*n - 2
	v = this*3 + last + k8
	o[3*x], o[3*x+1], o[3*x+2] = ycc(int(yr[x]), v>>4&0xff, v>>36&0xff)
	if x+1 < w {
		v = this*4 + k7
		o[3*x+3], o[3*x+4], o[3*x+5] = ycc(int(yr[x+1]), v>>4&0xff, v>>36&0xff)
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

// fancyH2V2 is jdsample.c h2v2_fancy_upsample for one output row, from the
// nearest input row and the next nearest (above for even output rows, below
// for odd ones): weights 9/16, 3/16, 3/16, 1/16 with rounding biases
// alternating 8 and 7. len(near) ≥ 2; out holds 2·len(near).
func fancyH2V2(out, near, far []uint8) {
	n := len(near)
	far = far[:n]
	out = out[:2*n]
	this := int(near[0])*3 + int(far[0])
	next := int(near[1])*3 + int(far[1])
	out[0] = uint8((this*4 + 8) >> 4)
	out[1] = uint8((this*3 + next + 7) >> 4)
	last := this
	this = next
	for i := 1; i < n-1; i++ {
		next = int(near[i+1])*3 + int(far[i+1])
		o := out[2*i:][:2:2]
		o[0] = uint8((this*3 + last + 8) >> 4)
		o[1] = uint8((this*3 + next + 7) >> 4)
		last, this = this, next
	}
	out[2*n-2] = uint8((this*3 + last + 8) >> 4)
	out[2*n-1] = uint8((this*4 + 7) >> 4)
}
