// Package imagenetctest writes results tables for tests of the ImageNet-C
// metrics: rows whose per-corruption mean top-1 errors over the five
// severities equal AlexNet's reference errors times a factor, exactly.
package imagenetctest

import (
	"bufio"
	"fmt"
	"math/big"
	"os"

	"github.com/vcr-bench/vcr/imagenetc"
)

// Header is the header of the results tables written here (the columns
// 'vcr eval' writes).
const Header = "id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n"

// Sources is the number of distinct source images; every fifth of them
// (index ≡ 0 mod 5) is misclassified clean, so the clean error is 0.2.
const Sources = 1000

// Severity is the outcome of one corruption at one severity: N rows, Errors
// of them misclassified.
type Severity struct{ N, Errors int }

// Split returns five severities whose errors average to mean exactly: when
// possible two severities with 2^a and 5^b rows (mean's denominator, times
// 5, is 2^a·5^b) and three of one row each, else one severity of 2^a·5^b
// rows and four of one row. It returns false for a denominator with other
// prime factors.
func Split(mean *big.Rat) ([imagenetc.Severities]Severity, bool) {
	var out [imagenetc.Severities]Severity
	t := new(big.Rat).Mul(mean, big.NewRat(imagenetc.Severities, 1)) // Σ_s error_s
	q := new(big.Int).Set(t.Denom())
	two, five := int64(1), int64(1)
	for new(big.Int).Rem(q, big.NewInt(2)).Sign() == 0 {
		q.Quo(q, big.NewInt(2))
		two *= 2
	}
	for new(big.Int).Rem(q, big.NewInt(5)).Sign() == 0 {
		q.Quo(q, big.NewInt(5))
		five *= 5
	}
	if !q.IsInt64() || q.Int64() != 1 {
		return out, false
	}
	for m := int64(0); m <= 3; m++ {
		for k1 := int64(0); k1 <= two; k1++ {
			rest := new(big.Rat).Sub(t, big.NewRat(m, 1))
			rest.Sub(rest, big.NewRat(k1, two))
			rest.Mul(rest, big.NewRat(five, 1))
			if !rest.IsInt() || rest.Sign() < 0 || rest.Num().Int64() > five {
				continue
			}
			out[0] = Severity{int(two), int(k1)}
			out[1] = Severity{int(five), int(rest.Num().Int64())}
			for s := 2; s < imagenetc.Severities; s++ {
				out[s] = Severity{1, 0}
				if int64(s-2) < m {
					out[s].Errors = 1
				}
			}
			return out, true
		}
	}
	// The fractional parts of the two severities cost a whole error each:
	// put the sum's fraction on one severity of 2^a·5^b rows.
	whole := new(big.Int).Quo(t.Num(), t.Denom()).Int64()
	if whole >= imagenetc.Severities {
		whole = imagenetc.Severities - 1
	}
	frac := new(big.Rat).Sub(t, big.NewRat(whole, 1))
	n := two * five
	k := new(big.Rat).Mul(frac, big.NewRat(n, 1))
	if !k.IsInt() || k.Num().Int64() > n {
		return out, false
	}
	out[0] = Severity{int(n), int(k.Num().Int64())}
	for s := 1; s < imagenetc.Severities; s++ {
		out[s] = Severity{1, 0}
		if int64(s) <= whole {
			out[s].Errors = 1
		}
	}
	return out, true
}

// WriteResults writes a results table to path whose every corruption in
// corruptions (AlexNet's reference corruptions) has a mean error over the
// five severities of AlexNet's times num/den, and returns the number of
// rows. Rows cycle through Sources sources and over Δv in [0, 0.99].
func WriteResults(path string, corruptions []string, num, den int64) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	w.WriteString(Header)
	id := 0
	for _, c := range corruptions {
		a, ok := imagenetc.AlexNetError(c)
		if !ok {
			f.Close()
			return 0, fmt.Errorf("imagenetctest: %s has no AlexNet error", c)
		}
		// The reference errors have six decimals: exact as a decimal string.
		mean, _ := new(big.Rat).SetString(fmt.Sprintf("%.6f", a))
		mean.Mul(mean, big.NewRat(num, den))
		sev, ok := Split(mean)
		if !ok {
			f.Close()
			return 0, fmt.Errorf("imagenetctest: no split of %s", mean)
		}
		for s, x := range sev {
			for i := range x.N {
				src := id % Sources
				cc := "1"
				if src%5 == 0 {
					cc = "0"
				}
				ck, pred := "1", "car"
				if i < x.Errors {
					ck, pred = "0", "boat"
				}
				predClean := "car"
				if cc == "0" {
					predClean = "boat"
				}
				cons := "1"
				if pred != predClean {
					cons = "0"
				}
				fmt.Fprintf(w, "%d,s%d,%s,%d,{},%g,vcr-py,car,car,%s,%s,%s,%s,%s,,,\n",
					id, src, c, s+1, float64(id%100)/100, predClean, pred, cc, ck, cons)
				id++
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return id, f.Close()
}
