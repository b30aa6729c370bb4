package corrupt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestDefocusFoldBits guards the fold correction's float32 bits (TestGolden
// covers r = 5, below the fold): the SHA-256 of the raw float32 output at
// radii 7–10 on two image sizes, as main at 9da737d computed them (before
// the fold's vector adds and paired column passes).
func TestDefocusFoldBits(t *testing.T) {
	c, _ := Lookup("defocus_blur")
	want := map[string]string{
		"61x47 r 7 alias 0.2":     "f39e541d30d21f38e495238378c4b12a30df8476719ccc2de5cdc976471ef5c9",
		"61x47 r 8.4 alias 0":     "578434a06a21da1063e26f35339e277ad2389d753a55af1a64f3c100b936fa55",
		"61x47 r 9 alias 0.5":     "9620d43dd3e3a1d622a6e032c0ea0bab2f8c539363b69723d775c4a88da606d6",
		"61x47 r 9.7 alias 1":     "064d306ec5f27575a70c5dcc294f1c61f2d7be08c789b6ac842e687c06dd6711",
		"61x47 r 10 alias 0.35":   "cfbeaf862aa2402e2e8b06da213c78ef41d2ef9754bda99c37bd44a1174e8eae",
		"224x224 r 7 alias 0.2":   "d536713ff7b9ef6e574738190ecde9a7d3696015e692f8aa4c95aebbf149cd81",
		"224x224 r 8.4 alias 0":   "87f8a88eb31078c6f17f2003c849efba5a054a7823e4f48070b2a00461d78ab1",
		"224x224 r 9 alias 0.5":   "11eebf7aaa5fc66036a032d7f14e6f54aad4a2d27dc1637bc9486509df4cc470",
		"224x224 r 9.7 alias 1":   "7af19d44ae3429950fc99a85fcc0090ed9ac4187dfbb8aa75fe169336c357e00",
		"224x224 r 10 alias 0.35": "761a2de37c4217cd8f0b443da3fa63f09cf4eff71664d49ccb5387572fd371eb",
	}
	for _, sz := range [][2]int{{61, 47}, {224, 224}} {
		src := testimg.Natural(sz[0], sz[1], 9)
		for _, p := range [][2]float64{{7, 0.2}, {8.4, 0}, {9, 0.5}, {9.7, 1}, {10, 0.35}} {
			out := apply(c, src, p[:], 1, 0)
			h := sha256.New()
			var b [4]byte
			for _, ch := range out.Ch {
				for _, v := range ch {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
					h.Write(b[:])
				}
			}
			key := fmt.Sprintf("%dx%d r %v alias %v", sz[0], sz[1], p[0], p[1])
			got := hex.EncodeToString(h.Sum(nil))
			if want[key] != got {
				t.Errorf("%s: sha256 %s, want %s", key, got, want[key])
			}
		}
	}
}
