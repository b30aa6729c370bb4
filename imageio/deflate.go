package imageio

import (
	"encoding/binary"
	"slices"
)

// huffmanDeflate is a Huffman-only deflate encoder (RFC 1951, no LZ77
// matching), what PNGEncoder needs for filtered image rows, whose bytes
// rarely repeat in runs that LZ77 would find. It cuts the input into blocks
// of at most 65,535 bytes (compress/flate's HuffmanOnly does the same) and
// writes each as a dynamic-Huffman block with a length-limited code built
// from the block's byte frequencies, or as a stored block when that is
// smaller. It replaces compress/flate's HuffmanOnly writer, which spends
// most of its time in a general token loop and in building codes with
// sorting; the output is a different valid deflate stream of about the same
// size. Any inflater decodes it (the tests use compress/flate, image/png and
// this package's inflate).
type huffmanDeflate struct {
	out   []byte
	acc   uint64 // pending output bits, least significant first
	nacc  uint   // number of pending bits (< 32 between writes)
	freq  [257]int
	lens  [257]uint8
	codes [257]uint32 // bit-reversed code | length<<16
}

// huffBlockSize is the largest block: the limit of a stored block.
const huffBlockSize = 65535

// encode appends the deflate stream of data to dst.
func (h *huffmanDeflate) encode(dst, data []byte) []byte {
	h.start(dst)
	for len(data) > huffBlockSize {
		h.block(data[:huffBlockSize], false)
		data = data[huffBlockSize:]
	}
	h.block(data, true)
	return h.finish()
}

// start begins a deflate stream appended to dst; block adds its blocks
// (the last one final) and finish returns it.
func (h *huffmanDeflate) start(dst []byte) { h.out, h.acc, h.nacc = dst, 0, 0 }

// finish writes the pending bits and returns the stream.
func (h *huffmanDeflate) finish() []byte {
	h.flushAll()
	out := h.out
	h.out = nil
	return out
}

// bits writes the n ≤ 32 low bits of v.
func (h *huffmanDeflate) bits(v uint32, n uint) {
	h.acc |= uint64(v) << h.nacc
	h.nacc += n
	if h.nacc >= 32 {
		h.out = binary.LittleEndian.AppendUint32(h.out, uint32(h.acc))
		h.acc >>= 32
		h.nacc -= 32
	}
}

// flushAll writes the pending bits, padding the last byte with zeros.
func (h *huffmanDeflate) flushAll() {
	for h.nacc > 0 {
		h.out = append(h.out, byte(h.acc))
		h.acc >>= 8
		h.nacc -= min(h.nacc, 8)
	}
	h.acc = 0
}

// block writes data (at most huffBlockSize bytes) as one block, the last
// of the stream if final.
func (h *huffmanDeflate) block(data []byte, final bool) {
	bfinal := uint32(0)
	if final {
		bfinal = 1
	}
	// Eight interleaved histograms: runs of equal bytes (common in filtered
	// rows) would otherwise make each increment wait for the previous one
	// (with four, the chain through the commonest bin's counter still set
	// the pace: 1.6 cycles a byte).
	var hist [8][256]int32
	i := 0
	for ; i+8 <= len(data); i += 8 {
		q := data[i : i+8 : i+8]
		hist[0][q[0]]++
		hist[1][q[1]]++
		hist[2][q[2]]++
		hist[3][q[3]]++
		hist[4][q[4]]++
		hist[5][q[5]]++
		hist[6][q[6]]++
		hist[7][q[7]]++
	}
	for ; i < len(data); i++ {
		hist[0][data[i]]++
	}
	for b := range 256 {
		h.freq[b] = int(hist[0][b] + hist[1][b] + hist[2][b] + hist[3][b] +
			hist[4][b] + hist[5][b] + hist[6][b] + hist[7][b])
	}
	h.freq[256] = 1 // end of block
	huffmanLengths(h.lens[:], h.freq[:], 15)

	// The code-length sequence of the 257 literal/length codes and the one
	// distance code (length 1, unused, as zlib and compress/flate write for
	// blocks without matches), run-length coded with symbols 16–18.
	var all [258]uint8
	copy(all[:], h.lens[:])
	all[257] = 1
	var cl [300]uint16 // symbol | extra<<8
	ncl := 0
	var clFreq [19]int
	for i := 0; i < len(all); {
		v := all[i]
		run := 1
		for i+run < len(all) && all[i+run] == v {
			run++
		}
		i += run
		if v == 0 {
			for run >= 11 {
				r := min(run, 138)
				cl[ncl] = 18 | uint16(r-11)<<8
				ncl++
				clFreq[18]++
				run -= r
			}
			if run >= 3 {
				cl[ncl] = 17 | uint16(run-3)<<8
				ncl++
				clFreq[17]++
				run = 0
			}
		} else {
			cl[ncl] = uint16(v)
			ncl++
			clFreq[v]++
			run--
			for run >= 3 {
				r := min(run, 6)
				cl[ncl] = 16 | uint16(r-3)<<8
				ncl++
				clFreq[16]++
				run -= r
			}
		}
		for ; run > 0; run-- {
			cl[ncl] = uint16(v)
			ncl++
			clFreq[v]++
		}
	}
	var clLens [19]uint8
	huffmanLengths(clLens[:], clFreq[:], 7)
	nclen := 19
	for nclen > 4 && clLens[clOrder[nclen-1]] == 0 {
		nclen--
	}

	// Sizes in bits: dynamic against stored.
	dyn := 3 + 5 + 5 + 4 + 3*nclen
	for s, f := range clFreq {
		dyn += f * int(clLens[s])
	}
	dyn += 2*clFreq[16] + 3*clFreq[17] + 7*clFreq[18]
	for s, f := range h.freq {
		dyn += f * int(h.lens[s])
	}
	stored := 3 + 7 + 32 + 8*len(data) // header, worst-case padding, LEN/NLEN, bytes
	if stored <= dyn {
		h.bits(bfinal, 3) // BTYPE 00
		// Pad to a byte boundary, then LEN and NLEN and the bytes.
		if r := h.nacc % 8; r != 0 {
			h.bits(0, 8-r)
		}
		h.flushAll()
		h.out = binary.LittleEndian.AppendUint16(h.out, uint16(len(data)))
		h.out = binary.LittleEndian.AppendUint16(h.out, ^uint16(len(data)))
		h.out = append(h.out, data...)
		return
	}

	h.bits(bfinal|2<<1, 3) // BTYPE 10: dynamic Huffman codes
	h.bits(0, 5)           // HLIT: 257 literal/length codes
	h.bits(0, 5)           // HDIST: 1 distance code
	h.bits(uint32(nclen-4), 4)
	for _, s := range clOrder[:nclen] {
		h.bits(uint32(clLens[s]), 3)
	}
	var clCodes [19]uint32
	canonicalCodes(clCodes[:], clLens[:])
	for _, e := range cl[:ncl] {
		s := e & 0xff
		c := clCodes[s]
		h.bits(c&0xffff, uint(c>>16))
		switch s {
		case 16:
			h.bits(uint32(e>>8), 2)
		case 17:
			h.bits(uint32(e>>8), 3)
		case 18:
			h.bits(uint32(e>>8), 7)
		}
	}
	canonicalCodes(h.codes[:], h.lens[:])

	// The data, several codes per step with the bit buffer in registers
	// (huffmanCodes: the assembly or huffmanCodesGo), the last few codes
	// through bits.
	codes := &h.codes
	// A coded block is smaller than a stored one, so its data take at most
	// len(data) + 6 bytes; 64 more leave room for the 8-byte writes.
	out := slices.Grow(h.out, len(data)+64)
	o := len(out)
	buf := out[:cap(out)]
	acc, nacc := h.acc, h.nacc
	for ; nacc >= 8; nacc -= 8 { // leave < 8 pending bits
		buf[o] = byte(acc)
		acc >>= 8
		o++
	}
	i, o, acc, nacc = huffmanCodes(buf, o, data, codes, slices.Max(h.lens[:]), acc, nacc)
	h.acc, h.nacc, h.out = acc, nacc, buf[:o]
	for ; i < len(data); i++ {
		c := codes[data[i]]
		h.bits(c&0xffff, uint(c>>16))
	}
	c := codes[256]
	h.bits(c&0xffff, uint(c>>16))
}

// canonicalCodes sets codes[s] to symbol s's canonical Huffman code (RFC
// 1951 §3.2.2) for the code lengths lens, bit-reversed for the least
// significant bit first output, with its length in bits 16 and up.
func canonicalCodes(codes []uint32, lens []uint8) {
	var count [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]int
	code := 0
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for s, l := range lens {
		if l == 0 {
			codes[s] = 0
			continue
		}
		c := next[l]
		next[l]++
		r := 0
		for range l {
			r = r<<1 | c&1
			c >>= 1
		}
		codes[s] = uint32(r) | uint32(l)<<16
	}
}

// huffmanLengths sets lens[s] to the code length of symbol s in a Huffman
// code for the frequencies freq whose codes are at most maxLen bits: a
// Huffman tree (Huffman, 1952), then, where it is deeper than maxLen, the
// length counts adjusted as JPEG's Annex K.3 does (which keeps the code
// complete), and the lengths handed out shortest first to the most frequent
// symbols. Symbols of frequency 0 get length 0. With fewer than two used
// symbols a second one (of frequency 0) is given a code too, so that the
// code is complete, as inflaters require of a code-length code.
func huffmanLengths(lens []uint8, freq []int, maxLen int) {
	const maxSyms = 320
	if len(freq) > maxSyms {
		panic("imageio: huffmanLengths: too many symbols")
	}
	// A leaf is its frequency (below 2⁴⁸) and its symbol in one key, so
	// that sorting the keys orders the leaves by frequency, ties by symbol.
	var leaves [maxSyms]uint64
	n := 0
	for s, f := range freq {
		lens[s] = 0
		if f > 0 {
			if uint64(f) >= 1<<48 {
				panic("imageio: huffmanLengths: frequency too large")
			}
			leaves[n] = uint64(f)<<16 | uint64(s)
			n++
		}
	}
	for s := 0; n < 2; s++ {
		if freq[s] == 0 {
			leaves[n] = uint64(s)
			n++
		}
	}
	// Least frequent first; ties by symbol, so that the result is a pure
	// function of freq.
	slices.Sort(leaves[:n])
	// Two-queue Huffman construction: leaves in order, internal nodes in
	// order of creation (non-decreasing weights); parent links all nodes.
	var weight, parent, depth [2 * maxSyms]int
	for i := range n {
		weight[i] = int(leaves[i] >> 16)
	}
	nodes, li, ii := n, 0, n // nodes made; next leaf; next internal node
	pick := func() int {
		if li < n && (ii >= nodes || weight[li] <= weight[ii]) {
			li++
			return li - 1
		}
		ii++
		return ii - 1
	}
	for nodes < 2*n-1 {
		a, b := pick(), pick()
		parent[a], parent[b] = nodes, nodes
		weight[nodes] = weight[a] + weight[b]
		nodes++
	}
	// Depths: the root is the last node; they are below n.
	var count [maxSyms + 16]int
	depth[2*n-2] = 0
	maxD := 0
	for i := 2*n - 3; i >= 0; i-- {
		depth[i] = depth[parent[i]] + 1
	}
	for i := range n {
		count[depth[i]]++
		maxD = max(maxD, depth[i])
	}
	// Annex K.3: move codes up from lengths above maxLen.
	for l := maxD; l > maxLen; l-- {
		for count[l] > 0 {
			j := l - 2
			for count[j] == 0 {
				j--
			}
			count[l] -= 2
			count[l-1]++
			count[j+1] += 2
			count[j]--
		}
	}
	// Shortest lengths to the most frequent symbols (the end of leaves).
	k := n - 1
	for l := 1; l <= maxLen; l++ {
		for range count[l] {
			lens[leaves[k]&0xffff] = uint8(l)
			k--
		}
	}
}

// huffmanCodesGo writes the codes of data's first bytes (codes: as
// canonicalCodes sets them, at most maxLen bits long) into buf from byte o
// on, after the nacc < 8 pending bits acc, as long as buf has 8 bytes of
// room, and returns the number of bytes coded, the new o and the pending
// bits (fewer than 8). It is huffmanCodes in pure Go.
//
// Three codes (≤ 45 bits) go a step, four where the longest code has at
// most 14 bits, the bit buffer in registers: after each step the whole
// bytes are stored with one 8-byte write into spare capacity (libdeflate's
// way), leaving < 8 bits. The shift counts, below 64, are masked so that the
// compiler needs no check for counts of 64 and more.
func huffmanCodesGo(buf []byte, o int, data []byte, codes *[257]uint32, maxLen uint8, acc uint64, nacc uint) (int, int, uint64, uint) {
	i := 0
	if maxLen <= 14 {
		// Four codes (≤ 56 bits) per step fit beside the < 8 pending bits.
		for ; i+4 <= len(data) && o+8 <= len(buf); i += 4 {
			q := data[i : i+4 : i+4]
			c0, c1, c2, c3 := codes[q[0]], codes[q[1]], codes[q[2]], codes[q[3]]
			acc |= uint64(c0&0xffff) << (nacc & 63)
			nacc += uint(c0 >> 16)
			acc |= uint64(c1&0xffff) << (nacc & 63)
			nacc += uint(c1 >> 16)
			acc |= uint64(c2&0xffff) << (nacc & 63)
			nacc += uint(c2 >> 16)
			acc |= uint64(c3&0xffff) << (nacc & 63)
			nacc += uint(c3 >> 16)
			binary.LittleEndian.PutUint64(buf[o:], acc)
			o += int(nacc >> 3)
			acc >>= (nacc &^ 7) & 63
			nacc &= 7
		}
	}
	for ; i+3 <= len(data) && o+8 <= len(buf); i += 3 {
		q := data[i : i+3 : i+3]
		c0, c1, c2 := codes[q[0]], codes[q[1]], codes[q[2]]
		acc |= uint64(c0&0xffff) << (nacc & 63)
		nacc += uint(c0 >> 16)
		acc |= uint64(c1&0xffff) << (nacc & 63)
		nacc += uint(c1 >> 16)
		acc |= uint64(c2&0xffff) << (nacc & 63)
		nacc += uint(c2 >> 16)
		binary.LittleEndian.PutUint64(buf[o:], acc)
		o += int(nacc >> 3)
		acc >>= (nacc &^ 7) & 63
		nacc &= 7
	}
	return i, o, acc, nacc
}
