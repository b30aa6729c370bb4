//go:build !amd64 || purego

package imageio

// paethFilter writes into dst the Paeth-filtered row cur (3 bytes per
// pixel) given the previous row prev (zeros for the first row).
func paethFilter(dst, cur, prev []byte) { paethFilterGo(dst, cur, prev) }

// rgb8Planes writes the interleaved 8-bit RGB pixels of src into the
// float planes r, g and b (lut8: k/255).
func rgb8Planes(r, g, b []float32, src []byte) { rgb8PlanesGo(r, g, b, src) }

// adler32Update returns the Adler-32 checksum (RFC 1950) of the data that
// gave adler followed by p.
func adler32Update(adler uint32, p []byte) uint32 { return adler32Go(adler, p) }

// unpaeth3 reverses the Paeth filter on row cur (3 bytes per pixel) given
// the unfiltered row above, prev.
func unpaeth3(cur, prev []byte) { unpaeth3Go(cur, prev) }

// huffmanCodes writes the codes of data's first bytes into buf from byte o
// on, after the nacc < 8 pending bits acc (huffmanCodesGo).
func huffmanCodes(buf []byte, o int, data []byte, codes *[257]uint32, maxLen uint8, acc uint64, nacc uint) (int, int, uint64, uint) {
	return huffmanCodesGo(buf, o, data, codes, maxLen, acc, nacc)
}

// inflateFast returns fastCodes' state unchanged: fastCodes' Go loop
// decodes every symbol.
func inflateFast(dst []byte, n int, in []byte, pos int, bits uint64, nbits uint, litFast, distFast *fastTable) (int, int, uint64, uint) {
	return n, pos, bits, nbits
}
