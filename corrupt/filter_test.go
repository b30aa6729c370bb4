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

// TestPrefixRowsExact checks the interleaved prefix sums against the
// obvious sequential loop, bit for bit.
func TestPrefixRowsExact(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {17, 4}, {33, 9}, {236, 7}} {
		pw, ph := sz[0], sz[1]
		P := make([]float32, pw*ph)
		for i := range P {
			P[i] = float32((i*7919)%1009) / 1009
		}
		S := make([]float32, (pw+1)*ph)
		prefixRows(S, P, pw, ph)
		for y := range ph {
			var acc float32
			if S[y*(pw+1)] != 0 {
				t.Fatalf("%v: S[%d][0] = %v, want 0", sz, y, S[y*(pw+1)])
			}
			for i := range pw {
				acc += P[y*pw+i]
				if got := S[y*(pw+1)+i+1]; got != acc {
					t.Fatalf("%v: S[%d][%d] = %v, want %v", sz, y, i+1, got, acc)
				}
			}
		}
	}
}
