package corrupt

import "testing"

// TestPadRowMatchesBorderIndex checks padRow's closed-form border fills
// against the definition dst[r+i] = src[borderIndex(i, n, b)].
func TestPadRowMatchesBorderIndex(t *testing.T) {
	for _, b := range []Border{Replicate, Reflect101, Symmetric, Wrap} {
		for n := 1; n <= 9; n++ {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(i + 1)
			}
			for r := 0; r <= 12; r++ {
				dst := make([]float32, n+2*r)
				padRow(dst, src, r, b)
				for i := -r; i < n+r; i++ {
					if want := src[borderIndex(i, n, b)]; dst[r+i] != want {
						t.Fatalf("border %d, n %d, r %d: sample %d = %v, want %v", b, n, r, i, dst[r+i], want)
					}
				}
			}
		}
	}
}
