//go:build amd64 && !purego

package imageio

import (
	"bytes"
	"hash/adler32"
	"math"
	"math/rand/v2"
	"testing"
)

// deBruijn2 returns a cyclic de Bruijn sequence of order 2 over 256 symbols
// (every ordered pair of bytes appears once as neighbours, the last pair
// wrapping around), by the Lyndon-word construction (Fredricksen, Kessler
// and Maiorana).
func deBruijn2() []byte {
	const k, n = 256, 2
	var seq []byte
	a := make([]int, k*n)
	var db func(t, p int)
	db = func(t, p int) {
		if t > n {
			if n%p == 0 {
				for _, v := range a[1 : p+1] {
					seq = append(seq, byte(v))
				}
			}
			return
		}
		a[t] = a[t-p]
		db(t+1, p)
		for j := a[t-p] + 1; j < k; j++ {
			a[t] = j
			db(t+1, t)
		}
	}
	db(1, 1)
	return seq
}

// TestPaethFilterVector checks the assembly Paeth filter against the
// specification's predictor (paethRef) on all 2²⁴ triples of left a, up b
// and up-left c (a de Bruijn sequence of (c, b) pairs down the red channel
// of 256 rows, with every a beside each pair once), and against
// paethFilterGo on random rows of every length from 0 to 80 bytes; nothing
// past len(cur) is written.
func TestPaethFilterVector(t *testing.T) {
	if !pngVector {
		t.Skip("no AVX2: the pure-Go filter is in use")
	}
	db := deBruijn2()
	db = append(db, db[0]) // the wrapping pair
	npx := len(db)
	rng := rand.New(rand.NewPCG(3, 4))
	cur, prev, dst := make([]byte, 3*npx), make([]byte, 3*npx), make([]byte, 3*npx)
	for i := range prev {
		prev[i] = byte(rng.Uint32())
	}
	for m, v := range db {
		prev[3*m] = v
	}
	for s := range 256 {
		for i := range cur {
			cur[i] = byte(rng.Uint32())
		}
		for m := range npx - 1 {
			cur[3*m] = byte(m + s) // a of pixel m+1
		}
		paethFilter(dst, cur, prev)
		for i := 3; i < len(cur); i++ {
			want := cur[i] - byte(paethRef(int(cur[i-3]), int(prev[i]), int(prev[i-3])))
			if dst[i] != want {
				t.Fatalf("row %d byte %d: a, b, c = %d, %d, %d: got %d, want %d", s, i, cur[i-3], prev[i], prev[i-3], dst[i], want)
			}
		}
	}
	for n := 0; n <= 80; n++ {
		cur, prev := make([]byte, n), make([]byte, n)
		for i := range cur {
			cur[i], prev[i] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		got := bytes.Repeat([]byte{0xAA}, n+32)
		want := make([]byte, n)
		paethFilter(got[:n], cur, prev)
		paethFilterGo(want, cur, prev)
		if !bytes.Equal(got[:n], want) {
			t.Fatalf("n = %d: got %x, want %x", n, got[:n], want)
		}
		for i := n; i < len(got); i++ {
			if got[i] != 0xAA {
				t.Fatalf("n = %d: byte %d past the end written", n, i)
			}
		}
	}
}

// TestRGB8PlanesVector checks the assembly conversion against lut8 (k/255
// in float32, bit for bit) for every byte value in every position of the
// 8-pixel steps, for every length from 0 to 40 pixels, and that nothing is
// written past the planes' lengths.
func TestRGB8PlanesVector(t *testing.T) {
	if !pngVector {
		t.Skip("no AVX2: the pure-Go conversion is in use")
	}
	for n := 0; n <= 40; n++ {
		for s := range 256 {
			src := make([]byte, 3*n)
			for i := range src {
				src[i] = byte(i*7 + s)
			}
			var planes [3][]float32
			for c := range planes {
				planes[c] = make([]float32, n+8)
				for i := range planes[c] {
					planes[c][i] = -1
				}
			}
			rgb8Planes(planes[0][:n], planes[1][:n], planes[2][:n], src)
			for c := range planes {
				for i, v := range planes[c] {
					want := float32(-1)
					if i < n {
						want = float32(src[3*i+c]) / 255
					}
					if math.Float32bits(v) != math.Float32bits(want) {
						t.Fatalf("n = %d, shift %d: channel %d pixel %d = %v, want %v", n, s, c, i, v, want)
					}
				}
			}
		}
	}
}

// TestAdler32Vector compares adler32Update with hash/adler32 on random
// data, all-0xFF data (the largest sums) and runs, for lengths around the
// 32-byte blocks and the assembly's chunk of adlerBlocks blocks, started
// from the initial state and from the state after a prefix.
func TestAdler32Vector(t *testing.T) {
	if !pngVector {
		t.Skip("no AVX2: the pure-Go checksum is in use")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	big := 3*32*adlerBlocks + 77
	random, ff, runs := make([]byte, big), bytes.Repeat([]byte{0xff}, big), make([]byte, big)
	for i := range random {
		random[i] = byte(rng.Uint32())
		runs[i] = byte(i / 1000)
	}
	lengths := []int{0, 1, 31, 32, 33, 63, 64, 65, 5552, 5553, 32*adlerBlocks - 1, 32 * adlerBlocks, 32*adlerBlocks + 1, big}
	for _, data := range [][]byte{random, ff, runs} {
		for _, n := range lengths {
			if got, want := adler32Update(1, data[:n]), adler32.Checksum(data[:n]); got != want {
				t.Fatalf("%d bytes: %#x, want %#x", n, got, want)
			}
			for _, pre := range []int{1, 13, 1000} {
				h := adler32.New()
				h.Write(data[big-pre:])
				h.Write(data[:n])
				if got, want := adler32Update(adler32Update(1, data[big-pre:]), data[:n]), h.Sum32(); got != want {
					t.Fatalf("%d bytes after %d: %#x, want %#x", n, pre, got, want)
				}
			}
		}
	}
	// Every 32-byte block with one byte 0xFF in each position.
	for i := range 32 {
		b := make([]byte, 64)
		b[i], b[32+31-i] = 0xff, 0x80
		if got, want := adler32Update(1, b), adler32.Checksum(b); got != want {
			t.Fatalf("byte %d: %#x, want %#x", i, got, want)
		}
	}
}

// TestUnpaeth3Vector checks that the assembly Paeth unfilter inverts the
// specification's filter (paethRef) on rows that hold all 2²⁴ triples of
// left a, up b and up-left c (the rows of TestPaethFilterVector, filtered
// with paethRef, then unfiltered), and that it agrees with unpaeth3Go on
// random rows of every width from 0 to 40 pixels, writing nothing past the
// row.
func TestUnpaeth3Vector(t *testing.T) {
	if !pngVector {
		t.Skip("no AVX2: the pure-Go unfilter is in use")
	}
	db := deBruijn2()
	db = append(db, db[0])
	npx := len(db)
	rng := rand.New(rand.NewPCG(9, 10))
	orig, prev, row := make([]byte, 3*npx), make([]byte, 3*npx), make([]byte, 3*npx)
	for i := range prev {
		prev[i] = byte(rng.Uint32())
	}
	for m, v := range db {
		prev[3*m] = v
	}
	for s := range 256 {
		for i := range orig {
			orig[i] = byte(rng.Uint32())
		}
		for m := range npx - 1 {
			orig[3*m] = byte(m + s)
		}
		for i := range orig {
			var a, c int
			if i >= 3 {
				a, c = int(orig[i-3]), int(prev[i-3])
			}
			row[i] = orig[i] - byte(paethRef(a, int(prev[i]), c))
		}
		unpaeth3(row, prev)
		if !bytes.Equal(row, orig) {
			for i := range row {
				if row[i] != orig[i] {
					t.Fatalf("shift %d: byte %d = %d, want %d", s, i, row[i], orig[i])
				}
			}
		}
	}
	for w := 0; w <= 40; w++ {
		cur, prev := make([]byte, 3*w+8), make([]byte, 3*w+8)
		for i := range cur {
			cur[i], prev[i] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		want := bytes.Clone(cur)
		unpaeth3Go(want[:3*w], prev[:3*w])
		unpaeth3(cur[:3*w], prev[:3*w])
		if !bytes.Equal(cur, want) {
			t.Fatalf("width %d: got %x, want %x", w, cur, want)
		}
	}
}

// TestHuffmanCodesVector checks huffmanCodes (the assembly and the Go tail)
// against a writer that appends one bit at a time, and against
// huffmanCodesGo, on codes of up to 15 bits (many of them of 13 to 15 bits,
// side by side, so that four codes and the pending bits pass 64 bits), from
// every number of pending bits, with output buffers from roomy to tight.
func TestHuffmanCodesVector(t *testing.T) {
	if !huffmanVector || !pngVector {
		t.Skip("no AVX2 and BMI2")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		// Frequencies: geometric (deep codes, limited to 15 bits) or random.
		var freq [257]int
		nsym := 2 + r.IntN(255)
		for s := range nsym {
			if trial%2 == 0 {
				freq[s] = 1 + int(float64(1<<20)/math.Pow(1.5, float64(s)))
			} else {
				freq[s] = 1 + r.IntN(1000)
			}
		}
		freq[256] = 1
		var lens [257]uint8
		var codes [257]uint32
		huffmanLengths(lens[:], freq[:], 15)
		canonicalCodes(codes[:], lens[:])
		maxLen := uint8(0)
		for _, l := range lens {
			maxLen = max(maxLen, l)
		}
		n := r.IntN(3000)
		data := make([]byte, n)
		for i := range data {
			if trial%3 == 0 {
				data[i] = byte(nsym - 1 - r.IntN(min(nsym, 8))) // the longest codes
			} else {
				data[i] = byte(r.IntN(nsym))
			}
		}
		nacc := uint(trial % 8)
		acc := r.Uint64() & (1<<nacc - 1)
		room := []int{2*n + 16, n + 8, n/2 + 8, 16}[trial%4]
		o0 := r.IntN(5)
		buf := make([]byte, o0+room)
		i, o, a, na := huffmanCodes(buf, o0, data, &codes, maxLen, acc, nacc)
		bufGo := make([]byte, o0+room)
		iG, oG, aG, naG := huffmanCodesGo(bufGo, o0, data, &codes, maxLen, acc, nacc)
		if na >= 8 || i > n {
			t.Fatalf("trial %d: %d pending bits, %d of %d bytes coded", trial, na, i, n)
		}
		if n >= 4 && room >= 16 && i == 0 {
			t.Fatalf("trial %d: nothing coded", trial)
		}
		// The reference: the pending bits, then every code bit by bit.
		var bits []byte
		for b := range nacc {
			bits = append(bits, byte(acc>>b&1))
		}
		for _, s := range data[:i] {
			c := codes[s]
			for b := range c >> 16 {
				bits = append(bits, byte(c>>b&1))
			}
		}
		var got []byte
		for _, x := range buf[o0:o] {
			for b := range 8 {
				got = append(got, x>>b&1)
			}
		}
		for b := range na {
			got = append(got, byte(a>>b&1))
		}
		if !bytes.Equal(got, bits) {
			t.Fatalf("trial %d (max %d bits, %d pending, room %d): %d bytes coded, bits differ", trial, maxLen, nacc, room, i)
		}
		if a>>na != 0 {
			t.Fatalf("trial %d: bits above the %d pending ones", trial, na)
		}
		if iG == i && (oG != o || aG != a || naG != na || !bytes.Equal(bufGo[:oG], buf[:o])) {
			t.Fatalf("trial %d: assembly and huffmanCodesGo differ on %d bytes", trial, i)
		}
	}
}

// TestInflateFastVector checks that inflate decodes the same bytes and
// reports the same errors with inflateFastAsm as with fastCodes' Go loop
// alone: on zlib streams of every compression level (short distances of 1
// to 7 included: runs, image rows), into destinations of the right, a
// shorter and a longer length, and on 8,400 damaged copies (flipped bytes,
// cut streams), where distances beyond the output, invalid codes and
// overruns occur.
func TestInflateFastVector(t *testing.T) {
	if !huffmanVector || !pngVector {
		t.Skip("no AVX2 and BMI2")
	}
	defer func(v bool) { huffmanVector = v }(huffmanVector)
	run := func(dst, z []byte, vec bool) ([]byte, error) {
		huffmanVector = vec
		out := bytes.Clone(dst)
		err := inflate(out, z)
		return out, err
	}
	r := rand.New(rand.NewPCG(11, 12))
	rows := make([]byte, 60000) // rows of 3-byte pixels with small steps
	for i := 3; i < len(rows); i++ {
		rows[i] = rows[i-3] + byte(r.IntN(3)) - 1
	}
	inputs := append(samples(), rows, deflateInputs()[3][:80000])
	n := 0
	for i, data := range inputs {
		for _, level := range []int{0, 1, 2, 5, 6, 9, -2} {
			z := zlibData(t, data, level)
			var streams [][]byte
			streams = append(streams, z)
			for range 60 {
				bad := bytes.Clone(z)
				if len(bad) > 0 {
					for range 1 + r.IntN(3) {
						bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
					}
				}
				streams = append(streams, bad, z[:r.IntN(len(z)+1)])
			}
			for s, zz := range streams {
				for _, size := range []int{len(data), max(0, len(data)-1-r.IntN(300)), len(data) + 1 + r.IntN(300)} {
					dst := make([]byte, size)
					got, gerr := run(dst, zz, true)
					want, werr := run(dst, zz, false)
					n++
					if gerr != werr || !bytes.Equal(got, want) {
						t.Fatalf("input %d level %d stream %d size %d: assembly err %v, Go err %v, equal %v", i, level, s, size, gerr, werr, bytes.Equal(got, want))
					}
				}
			}
		}
	}
	t.Logf("%d decodings compared", n)
}

// FuzzInflateVectorScalar inflates arbitrary data (seeded with zlib streams
// of several levels) into buffers of several sizes with the assembly fast
// path on and off: both must give the same error (or none) and, without
// one, the same bytes (after an error the buffer's contents are
// unspecified: the decoder discards them); neither may write past the
// buffer, which guard bytes behind it check.
func FuzzInflateVectorScalar(f *testing.F) {
	if !huffmanVector || !pngVector {
		f.Skip("no AVX2 and BMI2")
	}
	for i, data := range samples() {
		for _, level := range []int{1, 6, 9, -2} {
			f.Add(zlibData(f, data, level), uint16(len(data)+i%3-1))
		}
	}
	const guard = 64
	f.Fuzz(func(t *testing.T, z []byte, n uint16) {
		defer func(v bool) { huffmanVector = v }(huffmanVector)
		var outs [2][]byte
		var errs [2]error
		for i, vec := range []bool{true, false} {
			huffmanVector = vec
			buf := make([]byte, int(n)+guard)
			for j := int(n); j < len(buf); j++ {
				buf[j] = 0xA5
			}
			outs[i] = buf[:n:n]
			errs[i] = inflate(outs[i], z)
			for j := int(n); j < len(buf); j++ {
				if buf[j] != 0xA5 {
					t.Fatalf("vector %v: byte %d past the %d-byte buffer written", vec, j-int(n), n)
				}
			}
		}
		if (errs[0] == nil) != (errs[1] == nil) || (errs[0] != nil && errs[0].Error() != errs[1].Error()) {
			t.Fatalf("vector: %v; Go: %v", errs[0], errs[1])
		}
		if errs[0] == nil && !bytes.Equal(outs[0], outs[1]) {
			t.Fatal("vector and Go inflate wrote different bytes")
		}
	})
}
