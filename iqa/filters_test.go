package iqa

import (
	"math"
	"testing"
)

func sum2(a [][]float64) float64 {
	var s float64
	for _, r := range a {
		for _, v := range r {
			s += v
		}
	}
	return s
}

func rows9(a *[9][9]float64) [][]float64 {
	out := make([][]float64, 9)
	for i := range a {
		out[i] = a[i][:]
	}
	return out
}

func rows5(a *[5][5]float64) [][]float64 {
	out := make([][]float64, 5)
	for i := range a {
		out[i] = a[i][:]
	}
	return out
}

func rows7(a *[7][7]float64) [][]float64 {
	out := make([][]float64, 7)
	for i := range a {
		out[i] = a[i][:]
	}
	return out
}

// TestFilterChecksums compares the tap sums with sp5_filters.json's
// checksums_for_transcription. A mistyped tap (8 decimals) moves a sum by
// ≥ 1e-8; summation order only by ~1e-17.
func TestFilterChecksums(t *testing.T) {
	for _, tc := range []struct {
		name string
		taps [][]float64
		want float64
	}{
		{"hi0filt", rows9(&sp5Hi0), -7.99999999405443e-08},
		{"lo0filt", rows5(&sp5Lo0), 0.99917984},
		{"lofilt", rows9(&sp5Lo), 2.0000001599999995},
		{"bfilts[0]", rows7(&sp5Bands[0]), 6.938893903907228e-18},
		{"bfilts[1]", rows7(&sp5Bands[1]), 1.734723475976807e-18},
		{"bfilts[2]", rows7(&sp5Bands[2]), 3.8163916471489756e-17},
		{"bfilts[3]", rows7(&sp5Bands[3]), 6.938893903907228e-18},
		{"bfilts[4]", rows7(&sp5Bands[4]), -1.3877787807814457e-17},
		{"bfilts[5]", rows7(&sp5Bands[5]), -3.469446951953614e-18},
	} {
		if got := sum2(tc.taps); math.Abs(got-tc.want) > 1e-13 {
			t.Errorf("sum(%s) = %.17g, want %.17g", tc.name, got, tc.want)
		}
	}
	// A weighted checksum catches swapped taps, which plain sums miss.
	// Values: the same weighted sums of the JSON arrays (Python, float64).
	var wsum float64
	for b := range sp5Bands {
		for i := range 7 {
			for j := range 7 {
				wsum += float64(b+1) * float64(i*7+j+1) * sp5Bands[b][i][j]
			}
		}
	}
	if math.Abs(wsum-bandWeightedSum) > 1e-9 {
		t.Errorf("weighted band sum = %.15g, want %.15g", wsum, bandWeightedSum)
	}
}

// TestFilterSymmetry checks the exact symmetries the folded kernels rely on.
func TestFilterSymmetry(t *testing.T) {
	for i := range 5 {
		for j := range 5 {
			if v := sp5Lo0[i][j]; v != sp5Lo0[4-i][j] || v != sp5Lo0[i][4-j] {
				t.Fatalf("lo0filt not symmetric at %d,%d", i, j)
			}
		}
	}
	for i := range 9 {
		for j := range 9 {
			if v := sp5Lo[i][j]; v != sp5Lo[8-i][j] || v != sp5Lo[i][8-j] {
				t.Fatalf("lofilt not symmetric at %d,%d", i, j)
			}
		}
	}
	b0, b3 := &sp5Bands[0], &sp5Bands[3]
	for i := range 7 {
		for j := range 7 {
			if b0[i][j] != b0[6-i][j] || b0[i][j] != -b0[i][6-j] {
				t.Fatalf("bfilts[0] not row-symmetric/column-antisymmetric at %d,%d", i, j)
			}
			if b3[i][j] != -b3[6-i][j] || b3[i][j] != b3[i][6-j] {
				t.Fatalf("bfilts[3] not row-antisymmetric/column-symmetric at %d,%d", i, j)
			}
		}
	}
}

// bandWeightedSum is Σ_b Σ_ij (b+1)·(7i+j+1)·bfilts_kernels[b][i][j] of
// sp5_filters.json, computed with Python.
const bandWeightedSum = -36.096974520000025
