package contrast

import "testing"

// TestGroupChartGaps: the regression line spans the groups with images
// only: an empty group at an end shortens it, an empty group between two
// with images becomes a gap the line does not cross.
func TestGroupChartGaps(t *testing.T) {
	acc := func(v float64) *float64 { return &v }
	slope, icept := 0.1, 0.5
	groups := func(a ...*float64) []GroupAcc {
		g := make([]GroupAcc, len(AllGroups))
		for i := range g {
			g[i] = GroupAcc{Group: AllGroups[i], Index: i, Rows: 10}
			if i < len(a) {
				g[i].Accuracy = a[i]
			}
			if i >= len(Groups) {
				g[i].Index = -1
			}
		}
		return g
	}
	for _, tc := range []struct {
		name  string
		g     []GroupAcc
		wantX []float64
		gaps  int
	}{
		{"all", groups(acc(0.5), acc(0.6), acc(0.7), acc(0.8)), []float64{0, 1, 2, 3}, 0},
		{"empty ends", groups(nil, acc(0.6), acc(0.7), nil), []float64{1, 2}, 0},
		{"empty middle", groups(acc(0.5), nil, acc(0.7), acc(0.8)), []float64{0, 1, 2, 3}, 1},
	} {
		f := &File{Result: &Result{Models: []ModelResult{{Model: "m", Clean: Measure{Groups: tc.g, Slope: &slope, Intercept: &icept}}}}}
		c, ok := f.GroupChart("clean")
		if !ok || len(c.Curves) != 1 {
			t.Fatalf("%s: ok %v, %d curves", tc.name, ok, len(c.Curves))
		}
		cv := c.Curves[0]
		if len(cv.X) != len(tc.wantX) || cv.X[0] != tc.wantX[0] || cv.X[len(cv.X)-1] != tc.wantX[len(tc.wantX)-1] {
			t.Errorf("%s: line over %v, want %v", tc.name, cv.X, tc.wantX)
		}
		for i, x := range cv.X {
			if want := icept + x*slope; cv.Y[i] != want {
				t.Errorf("%s: y(%v) = %v, want %v", tc.name, x, cv.Y[i], want)
			}
		}
		if len(cv.Gaps) != tc.gaps || (tc.gaps == 1 && cv.Gaps[0] != [2]float64{0, 2}) {
			t.Errorf("%s: gaps %v, want %d around group 1", tc.name, cv.Gaps, tc.gaps)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
