package imageio

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"
)

// deflateInputs are inputs for the Huffman-only encoder: empty, one byte,
// one repeated byte, random bytes (stored blocks), text-like data, a mix,
// frequencies that follow the Fibonacci sequence (the deepest Huffman trees,
// which must be limited to 15 bits; and to 7 for the code-length code), a
// block that starts with many codes of 15 bits, and
// sizes on both sides of the 65,535-byte block size.
func deflateInputs() [][]byte {
	r := rand.New(rand.NewPCG(7, 8))
	var fib []byte
	a, b := 1, 1
	for s := range 26 {
		for range a {
			fib = append(fib, byte(s*7))
		}
		a, b = b, a+b
	}
	// A first block whose 60 rarest symbols (15-bit codes) come first, side
	// by side: 60 single bytes, then counts 2¹⁵, 2¹⁴, …, 2.
	var deep []byte
	for s := range 60 {
		deep = append(deep, byte(100+s))
	}
	for s := range 15 {
		deep = append(deep, bytes.Repeat([]byte{byte(s)}, 1<<(15-s))...)
	}
	r.Shuffle(len(fib), func(i, j int) { fib[i], fib[j] = fib[j], fib[i] })
	geo := make([]byte, 200000) // Paeth residuals of a smooth image look like this
	for i := range geo {
		v := int(r.ExpFloat64() * 3)
		if r.IntN(2) == 0 {
			v = -v
		}
		geo[i] = byte(v)
	}
	out := [][]byte{{}, {4}, bytes.Repeat([]byte{9}, 70000), geo, geo[:65535], geo[:65536], geo[:65534], fib, deep}
	out = append(out, samples()...)
	return out
}

// TestHuffmanDeflate decodes the encoder's output with compress/flate and
// with inflate and checks that the bytes come back, and that blocks the
// encoder stores or codes do not grow the data by more than deflate's block
// overhead.
func TestHuffmanDeflate(t *testing.T) {
	var h huffmanDeflate
	for i, data := range deflateInputs() {
		z := h.encode(nil, data)
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("input %d (%d bytes): compress/flate: err %v, equal %v", i, len(data), err, bytes.Equal(got, data))
		}
		// inflate takes a zlib stream: header, deflate data, Adler-32.
		zl := append([]byte{0x78, 0x01}, z...)
		zl = binary.BigEndian.AppendUint32(zl, adler32.Checksum(data))
		got = make([]byte, len(data))
		if err := inflate(got, zl); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("input %d (%d bytes): inflate: err %v, equal %v", i, len(data), err, bytes.Equal(got, data))
		}
		if blocks := len(data)/huffBlockSize + 1; len(z) > len(data)+5*blocks+1 {
			t.Errorf("input %d: %d bytes deflated to %d", i, len(data), len(z))
		}
	}
}

// TestHuffmanLengths checks the code lengths against the Kraft equality
// (a complete prefix code) and the length limit, and against the optimal
// (unlimited) Huffman code's total size where the limit is not reached:
// frequencies 1, 1, 2, 3, 5, 8 give lengths 5, 5, 4, 3, 2, 1 (a chain).
func TestHuffmanLengths(t *testing.T) {
	lens := make([]uint8, 6)
	huffmanLengths(lens, []int{1, 1, 2, 3, 5, 8}, 15)
	if want := []uint8{5, 5, 4, 3, 2, 1}; !bytes.Equal(lens, want) {
		t.Errorf("lengths %v, want %v", lens, want)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for trial := range 2000 {
		n := 2 + r.IntN(285)
		freq := make([]int, n)
		for s := range freq {
			switch trial % 3 {
			case 0:
				freq[s] = r.IntN(1000)
			case 1:
				freq[s] = 1 << r.IntN(20)
			default:
				if r.IntN(4) == 0 {
					freq[s] = r.IntN(3)
				}
			}
		}
		maxLen := 15
		if trial%2 == 1 {
			maxLen = 7
		}
		if n > 1<<maxLen {
			continue
		}
		lens := make([]uint8, n)
		huffmanLengths(lens, freq, maxLen)
		used, kraft := 0, 0.0
		for s, l := range lens {
			if int(l) > maxLen || freq[s] > 0 && l == 0 {
				t.Fatalf("trial %d: symbol %d (freq %d) has length %d (limit %d)", trial, s, freq[s], l, maxLen)
			}
			if l > 0 {
				used++
				kraft += 1 / float64(int(1)<<l)
			}
		}
		if used >= 2 && kraft != 1 {
			t.Fatalf("trial %d: Kraft sum %v, want 1 (lengths %v)", trial, kraft, lens)
		}
	}
}

// TestPNGEncoderBlockEdges round-trips images whose filtered data fill
// exactly one and two 65,535-byte deflate blocks (28 pixels wide: rows of
// 85 bytes, 771 rows per block) and one byte more or less, through
// image/png.
func TestPNGEncoderBlockEdges(t *testing.T) {
	for _, sz := range [][2]int{{28, 771}, {28, 1542}, {28, 772}, {28, 770}, {1, 1}} {
		m := testRGB(sz[0], sz[1], 3)
		var b bytes.Buffer
		var e PNGEncoder
		if err := e.Encode(&b, m, Round); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		if got := FromImage(img); !got.SameSize(m) || MaxAbsDiff(got, m) != 0 {
			t.Errorf("%v: the decoded image differs", sz)
		}
	}
}

// FuzzHuffmanDeflate checks that compress/flate decodes whatever the
// encoder writes back to its input.
func FuzzHuffmanDeflate(f *testing.F) {
	for _, d := range deflateInputs() {
		if len(d) < 1<<16 {
			f.Add(d)
		}
	}
	var h huffmanDeflate
	f.Fuzz(func(t *testing.T, data []byte) {
		z := h.encode(nil, data)
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: err %v, equal %v", len(data), err, bytes.Equal(got, data))
		}
	})
}
