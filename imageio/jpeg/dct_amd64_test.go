//go:build amd64 && !purego

package jpeg

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// idctExtremes are transposed dequantised blocks at the limits of
// idctIslowAsm's range: every coefficient ±(2^15 − 1) with the signs of
// each output's cosine basis (the largest first-pass sums there are, both
// signs), all ±(2^15 − 1), alternating signs, and single coefficients.
func idctExtremes() [][64]int32 {
	const m = 1<<15 - 1
	var blocks [][64]int32
	for k := range 8 { // output row k of the column pass, column k of the row pass
		for _, s := range []int32{m, -m} {
			var col, both [64]int32
			for c := range 8 {
				for r := range 8 {
					// in[8c+r] is coefficient (r, c): frequency r of column c.
					sr := math.Cos(float64((2*k+1)*r) * math.Pi / 16)
					sc := math.Cos(float64((2*k+1)*c) * math.Pi / 16)
					v := s
					if sr < 0 {
						v = -v
					}
					col[8*c+r] = v
					if sc < 0 {
						v = -v
					}
					both[8*c+r] = v
				}
			}
			blocks = append(blocks, col, both)
		}
	}
	for _, s := range []int32{m, -m} {
		var all, alt [64]int32
		for i := range all {
			all[i] = s
			alt[i] = s
			if i%2 == 1 || (i/8)%2 == 1 {
				alt[i] = -s
			}
		}
		blocks = append(blocks, all, alt)
		for i := range 64 {
			var one [64]int32
			one[i] = s
			blocks = append(blocks, one)
		}
	}
	return blocks
}

// TestIdctVector checks idctIslowAsm against idctIslow byte for byte on
// random blocks (coefficients anywhere in ±(2^15 − 1), mostly small, with
// zero rows and columns) and on idctExtremes, that it writes nothing but
// the 8×8 samples, and that it refuses (writing nothing) blocks with a
// coefficient of magnitude 2^15 or more, which then go to idctIslow.
// (TestIdctMatchesReference checks idctBlock, which uses the assembly,
// against libjpeg's jpeg_idct_islow transcribed.)
func TestIdctVector(t *testing.T) {
	if !dctVector {
		t.Skip("no AVX2: the pure-Go inverse DCT is in use")
	}
	const stride = 13
	check := func(name string, in *[64]int32) {
		t.Helper()
		got := bytes.Repeat([]byte{0xAA}, 8*stride+8)
		want := bytes.Repeat([]byte{0xAA}, 8*stride+8)
		if !idctIslowAsm(got[2:], stride, in) {
			t.Fatalf("%s: refused a block within ±(2^15 − 1): %v", name, in)
		}
		idctIslow(want[2:], stride, in)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: assembly differs from idctIslow\ngot  %v\nwant %v\nin %v", name, got, want, in)
		}
	}
	for i, b := range idctExtremes() {
		check("extreme block "+string(rune('A'+i%26)), &b)
	}
	rng := rand.New(rand.NewPCG(11, 4))
	for it := range 100000 {
		var in [64]int32
		n := 1 + rng.IntN(64)
		for range n {
			var v int32
			switch rng.IntN(4) {
			case 0:
				v = rng.Int32N(1<<16-1) - (1<<15 - 1)
			case 1:
				v = rng.Int32N(4097) - 2048
			default:
				v = rng.Int32N(33) - 16
			}
			in[rng.IntN(64)] = v
		}
		if it%5 == 0 { // zero a row or a column
			i := rng.IntN(8)
			for j := range 8 {
				if it%2 == 0 {
					in[8*i+j] = 0
				} else {
					in[8*j+i] = 0
				}
			}
		}
		check("random block", &in)
	}
	for _, v := range []int32{1 << 15, -1 << 15, math.MaxInt32, math.MinInt32, 1 << 20, -255 * 32767} {
		for _, pos := range []int{0, 9, 63} {
			var in [64]int32
			in[pos] = v
			got := bytes.Repeat([]byte{0xAA}, 8*stride+8)
			if idctIslowAsm(got, stride, &in) {
				t.Fatalf("coefficient %d at %d: accepted", v, pos)
			}
			if bytes.Count(got, []byte{0xAA}) != len(got) {
				t.Fatalf("coefficient %d at %d: refused but wrote", v, pos)
			}
		}
	}
}

// TestFdctVector checks fdctQuantAsm against fdctIslow and Encoder.block's
// quantisation (the pure-Go path, switched by dctVector) coefficient for
// coefficient, with the quantisers of every quality 1…100 (luminance and
// chrominance tables), on random blocks, flat blocks at 0, 128 and 255,
// 0/255 checkerboards and stripes and, for each coefficient, the block of
// 0s and 255s following the signs of its basis function (its largest
// magnitude), and both sign flips of those.
func TestFdctVector(t *testing.T) {
	if !dctVector {
		t.Skip("no AVX2: the pure-Go forward DCT is in use")
	}
	defer func() { dctVector = true }()
	const stride = 11
	var blocks [][64]uint8
	for _, v := range []uint8{0, 1, 127, 128, 254, 255} {
		var b [64]uint8
		for i := range b {
			b[i] = v
		}
		blocks = append(blocks, b)
	}
	for u := range 8 {
		for v := range 8 {
			var b, nb [64]uint8
			for y := range 8 {
				for x := range 8 {
					p := math.Cos(float64((2*y+1)*u)*math.Pi/16) * math.Cos(float64((2*x+1)*v)*math.Pi/16)
					if p >= 0 {
						b[8*y+x] = 255
					} else {
						nb[8*y+x] = 255
					}
				}
			}
			blocks = append(blocks, b, nb)
		}
	}
	rng := rand.New(rand.NewPCG(2, 12))
	for it := range 3000 {
		var b [64]uint8
		for i := range b {
			switch it % 3 {
			case 0:
				b[i] = uint8(rng.IntN(256))
			case 1:
				b[i] = uint8(255 * rng.IntN(2))
			default:
				b[i] = uint8(100 + rng.IntN(20))
			}
		}
		blocks = append(blocks, b)
	}
	var e Encoder
	plane := make([]uint8, 9*stride)
	for quality := 1; quality <= 100; quality++ {
		e.setup(quality)
		for bi, b := range blocks {
			for y := range 8 {
				copy(plane[(y+1)*stride+2:], b[8*y:8*y+8])
			}
			for tab := range 2 {
				var got, want [64]int32
				dctVector = true
				nz := e.block(&got, plane, stride, 2, 1, tab)
				dctVector = false
				e.block(&want, plane, stride, 2, 1, tab)
				if got != want {
					t.Fatalf("quality %d, table %d, block %d: assembly %v, Go %v\nsamples %v", quality, tab, bi, got, want, b)
				}
				var wantNZ uint64
				for i, v := range want {
					if v != 0 {
						wantNZ |= 1 << i
					}
				}
				if nz != wantNZ {
					t.Fatalf("quality %d, table %d, block %d: nonzero mask %#x, want %#x", quality, tab, bi, nz, wantNZ)
				}
			}
		}
	}
}

// TestEmitBlockNZ checks that emitBlockNZ (the nonzero-mask Huffman coder
// used with the assembly) writes the same bits as emitBlock's loop over all
// 63 AC coefficients (dctVector off), on random quantised blocks: sparse
// and dense, runs of zeros longer than 16 (ZRL codes), the last
// coefficient nonzero or zero (EOB), AC all zero, values up to size 10,
// both tables, and a chain of blocks (the DC prediction).
func TestEmitBlockNZ(t *testing.T) {
	if !dctVector {
		t.Skip("no AVX2: emitBlockNZ is not used")
	}
	defer func() { dctVector = true }()
	rng := rand.New(rand.NewPCG(23, 7))
	var e [2]Encoder
	for v := range e {
		e[v].setup(75)
		e[v].w.reset(nil)
	}
	var dc [2]int32
	for it := range 20000 {
		var blk [64]int32
		blk[0] = rng.Int32N(4095) - 2047
		density := []int{0, 1, 3, 10, 40, 64}[it%6]
		for range density {
			v := rng.Int32N(2047) - 1023
			if rng.IntN(2) == 0 {
				v = rng.Int32N(7) - 3
			}
			blk[rng.IntN(63)+1] = v
		}
		if it%5 == 0 {
			blk[63] = 1 + rng.Int32N(3)
		}
		var nz uint64
		for i, c := range blk {
			if c != 0 {
				nz |= 1 << i
			}
		}
		tab := it % 2
		for v, on := range []bool{true, false} {
			dctVector = on
			dc[v] = e[v].emitBlock(&blk, dc[v], tab, nz)
		}
		if !bytes.Equal(e[0].w.buf, e[1].w.buf) || e[0].w.acc != e[1].w.acc || e[0].w.nbits != e[1].w.nbits {
			t.Fatalf("block %d: emitBlockNZ's bits differ from emitBlock's\nblock %v", it, blk)
		}
	}
}

// TestEncodeVector checks that whole files are byte-identical with the
// assembly (DCT, quantiser, nonzero masks, colour conversion) and without
// (dctVector and yccVector off), for colour and grayscale images of odd
// sizes at several qualities.
func TestEncodeVector(t *testing.T) {
	if !dctVector || !yccVector {
		t.Skip("no AVX2: the pure-Go encoder is in use")
	}
	defer func() { dctVector, yccVector = true, true }()
	rng := rand.New(rand.NewPCG(29, 1))
	for _, size := range [][2]int{{1, 1}, {7, 9}, {16, 16}, {33, 17}, {71, 40}, {224, 224}} {
		w, h := size[0], size[1]
		pix := make([]uint8, 3*w*h)
		for i := range pix {
			pix[i] = uint8(128 + 60*math.Sin(float64(i%(3*w))/7) + float64(rng.IntN(30)))
		}
		for _, q := range []int{1, 10, 50, 75, 95, 100} {
			var files [2][2][]byte
			for v, on := range []bool{true, false} {
				dctVector, yccVector = on, on
				var e Encoder
				var err error
				if files[v][0], err = e.EncodeRGB(nil, pix, w, h, 3*w, q); err != nil {
					t.Fatal(err)
				}
				if files[v][1], err = e.EncodeGray(nil, pix, w, h, 3*w, q); err != nil {
					t.Fatal(err)
				}
			}
			for k := range 2 {
				if !bytes.Equal(files[0][k], files[1][k]) {
					t.Fatalf("%d×%d quality %d (gray %v): files differ", w, h, q, k == 1)
				}
			}
		}
	}
}

// FuzzDecodeVectorScalar decodes arbitrary data (the golden files and their
// mutations: damaged files reach coefficient ranges and layouts no valid
// encoder writes) with the assembly kernels on and off: both must refuse the
// same files and decode the others to the same pixels.
func FuzzDecodeVectorScalar(f *testing.F) {
	if !dctVector || !yccVector {
		f.Skip("CPU lacks AVX2: the vector kernels are not used")
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.jpg"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		decode := func(vector bool) (Image, error) {
			defer func() { dctVector, yccVector = true, true }()
			dctVector, yccVector = vector, vector
			d := Decoder{MaxPixels: 1 << 20}
			return d.Decode(nil, data)
		}
		mv, errv := decode(true)
		ms, errs := decode(false)
		if (errv == nil) != (errs == nil) {
			t.Fatalf("vector: %v; scalar: %v", errv, errs)
		}
		if errv != nil {
			return
		}
		if mv.Width != ms.Width || mv.Height != ms.Height || mv.Channels != ms.Channels || !bytes.Equal(mv.Pix, ms.Pix) {
			t.Fatalf("vector and scalar decodes differ (%dx%dx%d)", mv.Width, mv.Height, mv.Channels)
		}
	})
}
