package imagenetctest

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/vcr-bench/vcr/imagenetc"
)

func TestSplit(t *testing.T) {
	total := 0
	for _, scale := range []int64{1, 2} {
		for _, c := range imagenetc.Benchmark {
			a, _ := imagenetc.AlexNetError(c)
			mean, _ := new(big.Rat).SetString(fmt.Sprintf("%.6f", a))
			mean.Quo(mean, big.NewRat(scale, 1))
			sev, ok := Split(mean)
			if !ok {
				t.Fatalf("%s/%d: no split", c, scale)
			}
			sum := new(big.Rat)
			for _, s := range sev {
				if s.N < 1 || s.Errors < 0 || s.Errors > s.N {
					t.Fatalf("%s/%d: bad severity %+v", c, scale, s)
				}
				sum.Add(sum, big.NewRat(int64(s.Errors), int64(s.N)))
				total += s.N
			}
			if sum.Quo(sum, big.NewRat(5, 1)).Cmp(mean) != 0 {
				t.Errorf("%s/%d: mean %s, want %s", c, scale, sum, mean)
			}
		}
	}
	t.Logf("%d rows for both scales", total)
}
