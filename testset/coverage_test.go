package testset

import "testing"

func TestBinIndex(t *testing.T) {
	for _, tc := range []struct {
		dv   float64
		want int
	}{{0, 0}, {0.0249, 0}, {0.025, 1}, {0.5, 20}, {0.999, 39}, {1, 39}} {
		if got := BinIndex(tc.dv, 40); got != tc.want {
			t.Errorf("BinIndex(%v) = %d, want %d", tc.dv, got, tc.want)
		}
	}
}

func TestComputeCoverage(t *testing.T) {
	// 20 values in each of the first 10 bins, 19 in bin 10: 10 of 40 covered.
	var dvs []float64
	for k := range 11 {
		n := 20
		if k == 10 {
			n = 19
		}
		for range n {
			dvs = append(dvs, (float64(k)+0.5)/40)
		}
	}
	c := ComputeCoverage(dvs, 40, 20)
	if c.Covered != 10 || c.Fraction != 0.25 || c.N != len(dvs) || c.Counts[10] != 19 {
		t.Errorf("coverage = %+v", c)
	}
}
