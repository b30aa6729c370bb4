package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/plot"
	"github.com/vcr-bench/vcr/testset"
)

func TestCoverageChart(t *testing.T) {
	dvs := []float64{0, 0.01, 0.3, 0.31, 0.99, 1}
	c := testset.ComputeCoverage(dvs, 40, 2)
	h := CoverageChart(c, "gaussian_noise")
	if h.Bins() != 40 || h.Edges[0] != 0 || h.Edges[40] != 1 || h.Edges[20] != 0.5 || h.Threshold != 2 || len(h.Series) != 1 {
		t.Fatalf("histogram = %+v", h)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := plot.HistogramSVG(&svg, h); err != nil {
		t.Fatal(err)
	}
	// Bin 0 holds 0 and 0.01, bin 39 holds 0.99 and 1.
	if !strings.Contains(svg.String(), "[0, 0.025): 2") || !strings.Contains(svg.String(), "[0.975, 1): 2") {
		t.Errorf("SVG lacks the expected bar tooltips")
	}

	u := testset.ComputeCoverage([]float64{0.5, 0.5}, 40, 2)
	o, err := CoverageOverlay("cmp", []string{"targeted", "uniform"}, c, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Series) != 2 || o.Series[0].Name != "targeted (7.5%)" || o.Series[1].Name != "uniform (2.5%)" {
		t.Errorf("overlay series = %+v", o.Series)
	}
	if _, err := CoverageOverlay("bad", []string{"a", "b"}, c, testset.ComputeCoverage(dvs, 39, 2)); err == nil {
		t.Error("overlay of 40 and 39 bins: no error")
	}
	if _, err := CoverageOverlay("bad", []string{"a"}, c, u); err == nil {
		t.Error("overlay with 1 name for 2 coverages: no error")
	}
}
