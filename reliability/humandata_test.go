package reliability

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/human"
)

// TestHumanDataSources: the study's per-bin folder and the built-in copy of
// it give identical requirements, with the study's defaults (§A.2, A.4).
func TestHumanDataSources(t *testing.T) {
	for _, c := range []struct {
		folder, builtin, vif string
		p0                   float64
		weighted             bool
	}{
		{"imagenet", "icse2022-imagenet", "vifvec", 0.970, false},
		{"cifar10", "icse2022-cifar10-bins", "vifvec2-layers", 0.967, true},
	} {
		f, err := ReadICSEFolder(filepath.Join("..", "human", "data", "icse2022", "estimating", c.folder))
		if err != nil {
			t.Fatal(err)
		}
		b, err := BuiltinHuman(c.builtin)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []*HumanData{f, b} {
			if h.VIFMethod != c.vif || h.P0 != c.p0 || h.Weighted != c.weighted {
				t.Errorf("%s: flavour %q, m0 %v, weighted %v", h.Dataset, h.VIFMethod, h.P0, h.Weighted)
			}
		}
		if !reflect.DeepEqual(f.Transformations, b.Transformations) {
			t.Errorf("transformations %v vs %v", f.Transformations, b.Transformations)
		}
		for _, rule := range Rules {
			opt := EstimateOptions{Rule: rule, Weighted: c.weighted}
			ff, err := f.Estimate(context.Background(), "all", opt)
			if err != nil {
				t.Fatal(err)
			}
			bf, err := b.Estimate(context.Background(), "all", opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ff.Requirements {
				x, y := ff.Requirements[i], bf.Requirements[i]
				if x.Transformation != y.Transformation || x.TC != y.TC || x.TP != y.TP || x.HumanPreservation != y.HumanPreservation || x.VIFMethod != c.vif {
					t.Errorf("%s %s: folder %s %v %v, built-in %s %v %v", c.folder, rule, x.Transformation, x.TC, x.TP, y.Transformation, y.TC, y.TP)
				}
			}
		}
	}
}

func TestHumanDataEstimateErrors(t *testing.T) {
	h, err := BuiltinHuman("icse2022-imagenet")
	if err != nil {
		t.Fatal(err)
	}
	// The published name RGB is the catalogue's rgb_shift.
	f, err := h.Estimate(context.Background(), "RGB", EstimateOptions{})
	if err != nil || len(f.Requirements) != 1 || f.Requirements[0].Transformation != "rgb_shift" || f.Tool != EstimateTool {
		t.Errorf("RGB: %+v, %v", f, err)
	}
	_, err = h.Estimate(context.Background(), "fog", EstimateOptions{})
	if !errors.Is(err, ErrUnknownTransformation) || !strings.Contains(err.Error(), `no transformation "fog" (they have `) {
		t.Errorf("fog: %v", err)
	}
	// Trials without judged originals leave m0 unknown.
	d := &human.Dataset{Name: "t", VIFMethod: "vifvec2-layers"}
	ht := HumanFromTrials(d, "t.csv")
	if !math.IsNaN(ht.P0) || !ht.Weighted {
		t.Errorf("trials: m0 %v, weighted %v", ht.P0, ht.Weighted)
	}
	if _, err := ht.Estimate(context.Background(), "all", EstimateOptions{}); err == nil || !strings.Contains(err.Error(), "m0 of t is unknown") {
		t.Errorf("unknown m0: %v", err)
	}
}
