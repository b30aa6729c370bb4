package human

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/robustness"
)

func fitAll(t *testing.T, name string, reps int) []*robustness.Estimate {
	t.Helper()
	d, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []*robustness.Estimate
	for _, s := range d.Series {
		e, err := robustness.Fit(context.Background(), s, robustness.Options{Replicates: reps, Seed: 1})
		if err != nil {
			t.Fatalf("%s %s: %v", name, s.Corruption, err)
		}
		out = append(out, e)
	}
	return out
}

// TestHumanCurvesFit: every published human data set fits; curves are
// monotone, R̂ in (0, 1); the values are logged for docs/analysis.md.
func TestHumanCurvesFit(t *testing.T) {
	reps := 400
	if testing.Short() {
		reps = 100
	}
	for _, name := range []string{"icse2022-imagenet", "icse2022-cifar10", "icse2022-cifar10-bins"} {
		for _, e := range fitAll(t, name, reps) {
			for _, c := range []*robustness.Curve{&e.Accuracy, &e.Consistency} {
				for i := 1; i < len(c.Value); i++ {
					if c.Value[i] > c.Value[i-1]+1e-12 {
						t.Errorf("%s %s: curve increases at %v", name, e.Corruption, c.Grid[i])
					}
				}
			}
			for _, r := range []robustness.Interval{e.Ra, e.Rp} {
				if !(r.Value > 0 && r.Value < 1 && r.Lo95 <= r.Value && r.Value <= r.Hi95) {
					t.Errorf("%s %s: R̂ %+v", name, e.Corruption, r)
				}
			}
			t.Logf("%-22s %-17s R̂a %.4f [%.4f, %.4f]  R̂p %.4f [%.4f, %.4f]  mean acc %.4f  bins used %d/%d",
				name, e.Corruption, e.Ra.Value, e.Ra.Lo95, e.Ra.Hi95, e.Rp.Value, e.Rp.Lo95, e.Rp.Hi95, e.MeanAccuracy,
				countTrue(e.Accuracy.Used), len(e.Accuracy.Used))
		}
	}
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// TestSixtyPercentOverlap: the study's reusability result — the 83 % bands
// of each RQ1 subsample overlap the full data's bands. Exceptions (grid
// points of the common covered range where they do not) are logged; the
// test fails if they exceed 2 % of the compared points.
func TestSixtyPercentOverlap(t *testing.T) {
	reps := 400
	if testing.Short() {
		reps = 100
	}
	full := fitAll(t, "icse2022-imagenet", reps)
	total, bad := 0, 0
	for _, sub := range []string{"icse2022-imagenet-sixty1", "icse2022-imagenet-sixty2"} {
		part := fitAll(t, sub, reps)
		for i := range full {
			for _, p := range []struct {
				name string
				a, b *robustness.Curve
			}{{"accuracy", &full[i].Accuracy, &part[i].Accuracy}, {"preservation", &full[i].Consistency, &part[i].Consistency}} {
				lo := math.Max(p.a.Covered[0], p.b.Covered[0])
				hi := math.Min(p.a.Covered[1], p.b.Covered[1])
				var miss []string
				for k, v := range p.a.Grid {
					if v < lo || v > hi {
						continue
					}
					total++
					if math.Max(p.a.Lo83[k], p.b.Lo83[k]) > math.Min(p.a.Hi83[k], p.b.Hi83[k])+robustness.OverlapTol {
						bad++
						miss = append(miss, fmt.Sprintf("%.2f", v))
					}
				}
				if len(miss) > 0 {
					t.Logf("%s %s %s: bands do not overlap at Δv %s", sub, full[i].Corruption, p.name, strings.Join(miss, " "))
				}
			}
		}
	}
	t.Logf("sixty-percent subsets: bands overlap at %d of %d compared grid points", total-bad, total)
	if float64(bad) > 0.02*float64(total) {
		t.Errorf("%d of %d grid points without overlap", bad, total)
	}
}

// TestHumanSimilarity logs the visually-similar classes of the ImageNet
// human accuracy curves (the ICSE corruptions; the VCR study's classes are
// for other corruptions) and checks the flavour guard across data sets.
func TestHumanSimilarity(t *testing.T) {
	reps := 400
	if testing.Short() {
		reps = 100
	}
	im := fitAll(t, "icse2022-imagenet", reps)
	for _, p := range []robustness.Property{robustness.AccuracyCurve, robustness.ConsistencyCurve} {
		tab, err := robustness.Similarity(im, p, robustness.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ImageNet property %d: classes %v", p, tab.Classes)
		for i := range tab.Similar {
			if !tab.Similar[i][i] {
				t.Errorf("%s not similar to itself", tab.Corruptions[i])
			}
		}
	}
	ci := fitAll(t, "icse2022-cifar10", 20)
	if _, err := robustness.Compare(ci[0], im[2], robustness.CompareOptions{}); err == nil {
		t.Error("comparing vifvec2-layers CIFAR-10 with vifvec ImageNet curves was not refused")
	}
}
