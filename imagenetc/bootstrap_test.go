package imagenetc_test

import (
	"context"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imagenetc"
)

// bootModel has n images per corruption × severity cell of every benchmark
// corruption (error rate 0.2 + 0.1·s + 0.01·k for severity s of the k-th
// corruption) and of spatter, and 10·n clean images with 20% errors.
func bootModel(n int) imagenetc.Model {
	m := imagenetc.Model{Name: "m", CleanN: 10 * n, CleanErrors: 2 * n}
	for k, c := range append(append([]string{}, imagenetc.Benchmark...), "spatter") {
		for s := 1; s <= imagenetc.Severities; s++ {
			p := 0.2 + 0.1*float64(s) + 0.01*float64(k)
			m.Counts = append(m.Counts, imagenetc.Count{Corruption: c, Severity: s, N: n, Errors: int(math.Round(p * float64(n)))})
		}
	}
	return m
}

func withIntervals(t *testing.T, m imagenetc.Model, b imagenetc.Bootstrap) imagenetc.Result {
	t.Helper()
	r := imagenetc.Compute(m)
	if err := imagenetc.Intervals(context.Background(), m, &r, b); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIntervalsContainPoint checks that every interval exists where its
// value does, and contains it.
func TestIntervalsContainPoint(t *testing.T) {
	r := withIntervals(t, bootModel(400), imagenetc.Bootstrap{Replicates: 500, Seed: 1})
	in := func(what string, v *float64, iv *imagenetc.Interval) {
		if v == nil || iv == nil || !(iv.Lo <= *v && *v <= iv.Hi && iv.Lo < iv.Hi) {
			t.Errorf("%s: value %v, interval %+v", what, v, iv)
		}
	}
	in("mCE", r.MCE, r.MCEInterval)
	in("relative mCE", r.RelativeMCE, r.RelativeMCEInterval)
	for _, c := range r.Corruptions {
		if c.Corruption == "spatter" {
			if c.CEInterval != nil || c.RelativeCEInterval != nil {
				t.Errorf("spatter (extra, no CE) has intervals %+v %+v", c.CEInterval, c.RelativeCEInterval)
			}
			continue
		}
		in("CE "+c.Corruption, c.CE, c.CEInterval)
		in("relative CE "+c.Corruption, c.RelativeCE, c.RelativeCEInterval)
		if iv := r.CEInterval[c.Corruption]; iv != *c.CEInterval {
			t.Errorf("%s: ce_interval %+v and the corruption's %+v differ", c.Corruption, iv, *c.CEInterval)
		}
	}
	if r.Bootstrap == nil || r.Bootstrap.Replicates != 500 || r.Bootstrap.Level != imagenetc.DefaultLevel || r.Bootstrap.Seed != 1 {
		t.Errorf("bootstrap record %+v", r.Bootstrap)
	}
}

// TestIntervalsWidth checks the CE interval's width against the normal
// approximation of its binomial sampling error, and that it shrinks as
// 1/√n: CE_c = 100·mean_s(e_s/n)/A_c has standard deviation
// 100/(5·A_c)·√(Σ_s p_s(1−p_s)/n), so the 95% interval is about
// 2·1.96 of that wide.
func TestIntervalsWidth(t *testing.T) {
	width := func(n int) (float64, float64) {
		m := bootModel(n)
		r := withIntervals(t, m, imagenetc.Bootstrap{Replicates: 4000, Seed: 7})
		c := "gaussian_noise" // k = 0
		iv := r.CEInterval[c]
		a, _ := imagenetc.AlexNetError(c)
		v := 0.0
		for s := 1; s <= imagenetc.Severities; s++ {
			p := math.Round((0.2+0.1*float64(s))*float64(n)) / float64(n)
			v += p * (1 - p) / float64(n)
		}
		return iv.Hi - iv.Lo, 2 * 1.959964 * 100 / (5 * a) * math.Sqrt(v)
	}
	w1, want1 := width(400)
	w2, want2 := width(40000)
	for _, c := range [][2]float64{{w1, want1}, {w2, want2}} {
		if math.Abs(c[0]/c[1]-1) > 0.03 {
			t.Errorf("CE interval width %v, want ≈ %v (normal approximation)", c[0], c[1])
		}
	}
	t.Logf("widths %v (normal %v), %v (normal %v)", w1, want1, w2, want2)
	if r := w1 / w2; math.Abs(r-10) > 1 {
		t.Errorf("width at n = 400 is %v times that at n = 40000, want ≈ 10 (√100)", r)
	}
}

// TestIntervalsSeed checks that a seed reproduces the intervals exactly,
// another seed changes them, and that degenerate cells (no errors) give a
// zero-width interval at the point.
func TestIntervalsSeed(t *testing.T) {
	m := bootModel(300)
	a := withIntervals(t, m, imagenetc.Bootstrap{Replicates: 300, Seed: 42})
	b := withIntervals(t, m, imagenetc.Bootstrap{Replicates: 300, Seed: 42})
	c := withIntervals(t, m, imagenetc.Bootstrap{Replicates: 300, Seed: 43})
	if *a.MCEInterval != *b.MCEInterval || a.CEInterval["fog"] != b.CEInterval["fog"] {
		t.Errorf("seed 42 twice: %+v vs %+v", *a.MCEInterval, *b.MCEInterval)
	}
	if *a.MCEInterval == *c.MCEInterval {
		t.Errorf("seeds 42 and 43 gave the same interval %+v", *a.MCEInterval)
	}
	perfect := imagenetc.Model{Name: "perfect", CleanN: 10}
	for _, name := range imagenetc.Benchmark {
		for s := 1; s <= imagenetc.Severities; s++ {
			perfect.Counts = append(perfect.Counts, imagenetc.Count{Corruption: name, Severity: s, N: 50})
		}
	}
	p := withIntervals(t, perfect, imagenetc.Bootstrap{Replicates: 50})
	if *p.MCE != 0 || *p.MCEInterval != (imagenetc.Interval{}) {
		t.Errorf("no errors: mCE %v, interval %+v; want 0 and [0, 0]", *p.MCE, *p.MCEInterval)
	}
	r := imagenetc.Compute(m)
	for _, bad := range []imagenetc.Bootstrap{{Replicates: 0}, {Replicates: 10, Level: 1}} {
		if err := imagenetc.Intervals(context.Background(), m, &r, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
