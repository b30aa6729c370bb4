package imageio

import (
	"bytes"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"testing"
)

// zlibData compresses data at level with compress/zlib.
func zlibData(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// samples are inputs with different statistics: random bytes, text-like
// repetition, long runs, and a mix.
func samples() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var text []byte
	words := []string{"visual ", "change ", "corruption ", "robustness ", "Δv ", "\n"}
	for len(text) < 100000 {
		text = append(text, words[r.IntN(len(words))]...)
	}
	runs := make([]byte, 50000)
	for i := range runs {
		runs[i] = byte(i / 997)
	}
	mix := append(append(append([]byte{}, random[:20000]...), text[:30000]...), runs[:20000]...)
	return [][]byte{{}, {42}, random[:1], random[:300], random, text, runs, mix}
}

func TestInflate(t *testing.T) {
	for i, data := range samples() {
		for _, level := range []int{zlib.HuffmanOnly, zlib.NoCompression, zlib.BestSpeed, 5, zlib.BestCompression} {
			z := zlibData(t, data, level)
			got := make([]byte, len(data))
			if err := inflate(got, z); err != nil || !bytes.Equal(got, data) {
				t.Errorf("sample %d level %d: err %v, equal %v", i, level, err, bytes.Equal(got, data))
			}
			if len(data) > 0 {
				if err := inflate(make([]byte, len(data)-1), z); err == nil {
					t.Errorf("sample %d level %d: no error for a short destination", i, level)
				}
			}
			if err := inflate(make([]byte, len(data)+1), z); err == nil {
				t.Errorf("sample %d level %d: no error for a long destination", i, level)
			}
			for _, cut := range []int{len(z) - 1, len(z) - 4, len(z) / 2, 3} {
				if cut < 0 || cut >= len(z) {
					continue
				}
				if err := inflate(make([]byte, len(data)), z[:cut]); err == nil {
					t.Errorf("sample %d level %d: stream cut at %d of %d decoded", i, level, cut, len(z))
				}
			}
		}
	}
}

// TestInflateCorrupt flips bytes of valid streams: inflate must never
// panic, and whenever it succeeds compress/zlib must decode the same bytes.
func TestInflateCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i, data := range samples() {
		if len(data) == 0 {
			continue
		}
		for _, level := range []int{zlib.HuffmanOnly, zlib.BestSpeed, zlib.BestCompression} {
			z := zlibData(t, data[:min(len(data), 5000)], level)
			want := len(data[:min(len(data), 5000)])
			for range 300 {
				bad := bytes.Clone(z)
				for range 1 + r.IntN(3) {
					bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
				}
				got := make([]byte, want)
				if err := inflate(got, bad); err != nil {
					continue
				}
				zr, err := zlib.NewReader(bytes.NewReader(bad))
				if err != nil {
					t.Fatalf("sample %d: inflate accepted a stream zlib rejects: %v", i, err)
				}
				ref, err := io.ReadAll(zr)
				if err != nil || !bytes.Equal(ref, got) {
					t.Fatalf("sample %d: inflate accepted a stream zlib decodes differently (%v)", i, err)
				}
			}
		}
	}
}
