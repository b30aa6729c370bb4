package report

import (
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/testset"
)

// TestCompareCoverageNamesLeftOut checks that the comparison table says
// which corruptions it leaves out because not every run has them (before,
// a run's other corruptions vanished without a word), and draws only the
// shared ones.
func TestCompareCoverageNamesLeftOut(t *testing.T) {
	cov := func(n int) testset.Coverage {
		c := testset.Coverage{Bins: 4, MinPerBin: 1, Counts: []int{n, 0, 0, 0}, N: n, Covered: 1, Fraction: 0.25}
		return c
	}
	run := func(names ...string) *testset.CoverageReport {
		r := &testset.CoverageReport{Bins: 4, MinPerBin: 1, VIFMethod: "vcr-py", Sampling: "uniform"}
		for _, n := range names {
			r.Corruptions = append(r.Corruptions, testset.CorruptionCoverage{Corruption: n, Coverage: cov(3)})
		}
		return r
	}
	var b strings.Builder
	dir := t.TempDir()
	err := CompareCoverage(&b, dir, []testset.Named{
		{Name: "T", Report: run("frost", "gaussian_noise")},
		{Name: "R", Report: run("frost", "defocus_blur", "glass_blur")},
		{Name: "S", Report: run("frost", "defocus_blur")},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "not compared, as not in every run: gaussian_noise (only in T); defocus_blur (only in R, S); glass_blur (only in R)\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("output ends %q, want %q", out, want)
	}
	if strings.Count(out, "\nfrost") != 1 || strings.Contains(out, "\ndefocus_blur") {
		t.Errorf("table rows:\n%s", out)
	}
	b.Reset()
	if err := CompareCoverage(&b, dir, []testset.Named{{Name: "T", Report: run("frost")}, {Name: "R", Report: run("frost")}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "not compared") {
		t.Errorf("same corruptions: %q", b.String())
	}
}
