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

// TestGlassNarrowBits guards glass blur on images narrower or shorter than
// its displacement window (no copies on one axis) and just wide enough: the
// SHA-256 of the raw float32 output, as main at 9da737d computed it.
func TestGlassNarrowBits(t *testing.T) {
	c, _ := Lookup("glass_blur")
	want := map[string]string{
		"1x1 σ 0 δ 9 iterations 1":     "5ff9dd9cae3415a3d08bf77bcd9b10d3081cfb68d6b73e10ee8cb72c8786f0d8",
		"1x1 σ 1.5 δ 4 iterations 2":   "94491128dd06252443665b95b10561d6657e426ee1f615bfcac3691abdad82a3",
		"3x40 σ 0 δ 9 iterations 1":    "5509561ec96463683a159c3522651c9901b734110f6bec4b6c0454afd0e427f1",
		"3x40 σ 1.5 δ 4 iterations 2":  "288a5dbc3177bcc3ea6d4c72658b5475112d2ba61c451a920c7fd867c4289b67",
		"18x40 σ 0 δ 9 iterations 1":   "a2ea3d51b5385c960406cd85d1852994a3c4da94304104c7c5c802efab729e4e",
		"18x40 σ 1.5 δ 4 iterations 2": "8efbb4eaef383109945ee4ced5999446c03fb15cda464b6a1beea90ff6276dd5",
		"19x40 σ 0 δ 9 iterations 1":   "05ee8a5018754485d4ac9b12b12032a70a5a9091e465d6f2498824437f848757",
		"19x40 σ 1.5 δ 4 iterations 2": "d02a9f0eb4491b67907da6fdffa0a16e3b2754c474806f138702962db61c0d16",
		"40x3 σ 0 δ 9 iterations 1":    "e712a6bcebae07b1f767875bf636a52ec83729afefe850159e5a2b4568b3b631",
		"40x3 σ 1.5 δ 4 iterations 2":  "ea732dd2733f1896404534cc23bc8b757a0a0d447c9e47a8211599d0774625b2",
		"40x19 σ 0 δ 9 iterations 1":   "876f8fe630b20fa695961bce12f8cd3ab9f2348f9978f32860e748ee8dba3463",
		"40x19 σ 1.5 δ 4 iterations 2": "c48f8c18f65ccbf35550168088ec859a8e8f920eab7a8eb220bcade783bc8e0b",
		"21x23 σ 0 δ 9 iterations 1":   "b5f3bc29e99e9eed2fa62b7c6cd69100960f5969c432f2e8b374a0fb8e54fd50",
		"21x23 σ 1.5 δ 4 iterations 2": "30d2843f6280ad7fd02381ca4242ff3fa2ce66b776af6f8aaec7ca925ab5d6a7",
	}
	for _, sz := range [][2]int{{1, 1}, {3, 40}, {18, 40}, {19, 40}, {40, 3}, {40, 19}, {21, 23}} {
		src := testimg.Natural(sz[0], sz[1], 4)
		for _, p := range [][3]float64{{0, 9, 1}, {1.5, 4, 2}} {
			out := apply(c, src, p[:], 3, 0)
			h := sha256.New()
			var b [4]byte
			for _, ch := range out.Ch {
				for _, v := range ch {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
					h.Write(b[:])
				}
			}
			key := fmt.Sprintf("%dx%d σ %v δ %v iterations %v", sz[0], sz[1], p[0], p[1], p[2])
			if got := hex.EncodeToString(h.Sum(nil)); want[key] != got {
				t.Errorf("%s: sha256 %s, want %s", key, got, want[key])
			}
		}
	}
}
