package imageio

// ToRGB8 writes m's samples, converted to 8 bit with r (To8), into dst as
// interleaved RGB: dst[3i], dst[3i+1], dst[3i+2] are pixel i's R, G and B.
// dst must hold at least 3·pixels bytes; nothing past them is written. On
// amd64 it runs AVX assembly that gives To8's bytes exactly.
func ToRGB8(dst []byte, m *Image, r Rounding) {
	if len(dst) < 3*m.Pixels() {
		panic("imageio: ToRGB8 dst holds fewer than 3·pixels bytes")
	}
	toRGB8(dst, m, r)
}

// ToRGB8Luma is ToRGB8 that also writes into grey (at least pixels samples)
// each pixel's grey level computed from its three 8-bit samples with
// OpenCV's fixed-point RGB→GRAY, (9798·R + 19235·G + 3735·B + 16384) >> 15:
// with r = Round, exactly what Luma computes.
func ToRGB8Luma(dst []byte, grey []float64, m *Image, r Rounding) {
	if len(dst) < 3*m.Pixels() || len(grey) < m.Pixels() {
		panic("imageio: ToRGB8Luma dst or grey too short for the image")
	}
	toRGB8Luma(dst, grey, m, r)
}

// toRGB8Go is toRGB8 in pure Go.
func toRGB8Go(dst []byte, m *Image, r Rounding) {
	R, G, B := m.Ch[0], m.Ch[1], m.Ch[2]
	n := len(R)
	dst, G, B = dst[:3*n], G[:n], B[:n]
	for i, v := range R {
		d := dst[3*i : 3*i+3 : 3*i+3]
		d[0] = To8(v, r)
		d[1] = To8(G[i], r)
		d[2] = To8(B[i], r)
	}
}

// lumaRGB8 writes into dst the grey level of every pixel of the interleaved
// 8-bit RGB image rgb: OpenCV's fixed-point RGB→GRAY, as Image.Luma.
func lumaRGB8(dst []float64, rgb []byte) {
	rgb = rgb[:3*len(dst)]
	for i := range dst {
		p := rgb[3*i : 3*i+3 : 3*i+3]
		dst[i] = float64((9798*uint32(p[0]) + 19235*uint32(p[1]) + 3735*uint32(p[2]) + 16384) >> 15)
	}
}
