package contrast

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestBuiltinTable(t *testing.T) {
	tb := BuiltinTable()
	if tb.Len() != 28 {
		t.Fatalf("built-in table has %d pairs, want 28 (contrast.md)", tb.Len())
	}
	// Counts as the appendix lists them (contrast.md): 7 low, 7 high,
	// 5 high-mid, 9 low-mid.
	count := map[string]int{}
	for _, a := range Colours[:7] {
		for _, b := range Colours[:7] {
			if a > b {
				continue
			}
			g, ok := tb.Group(a, b)
			if !ok {
				t.Fatalf("pair %s–%s missing", a, b)
			}
			if g2, _ := tb.Group(b, a); g2 != g {
				t.Errorf("pair %s–%s is not symmetric: %s vs %s", a, b, g, g2)
			}
			count[g]++
		}
	}
	want := map[string]int{"low": 7, "high": 7, "high-mid": 5, "low-mid": 9}
	for g, n := range want {
		if count[g] != n {
			t.Errorf("%s: %d pairs, want %d", g, count[g], n)
		}
	}
	for _, tc := range []struct{ a, b, g string }{
		{"red", "green", "high"}, {"gray", "black", "low-mid"}, {"black", "green", "high-mid"},
		{"brown", "white", "low-mid"}, {"others", "red", "others"}, {"white", "others", "others"},
	} {
		if g, _ := tb.Group(tc.a, tc.b); g != tc.g {
			t.Errorf("Group(%s, %s) = %s, want %s", tc.a, tc.b, g, tc.g)
		}
	}
}

func TestGroupSlope(t *testing.T) {
	for _, tc := range []struct {
		acc        []float64
		slope, icp float64
	}{
		// By hand: x̄ = 1.5, ȳ = 0.7, Sxy = 0.7, Sxx = 5.
		{[]float64{0.5, 0.6, 0.8, 0.9}, 0.14, 0.49},
		// Empty low-mid: x = 0, 2, 3; Sxy = 1.9/3, Sxx = 42/9 → 5.7/42;
		// intercept ȳ − b·x̄ = 2.2/3 − (5.7/42)(5/3).
		{[]float64{0.5, math.NaN(), 0.8, 0.9}, 5.7 / 42, 2.2/3 - 5.7/42*5/3},
		{[]float64{0.7, 0.7, 0.7, 0.7}, 0, 0.7},
		{[]float64{math.NaN(), math.NaN(), 0.8, math.NaN()}, math.NaN(), math.NaN()},
	} {
		s, b := GroupSlope(tc.acc)
		if math.IsNaN(tc.slope) {
			if !math.IsNaN(s) || !math.IsNaN(b) {
				t.Errorf("GroupSlope(%v) = %v, %v, want NaN", tc.acc, s, b)
			}
			continue
		}
		if !near(s, tc.slope, 1e-12) || !near(b, tc.icp, 1e-12) {
			t.Errorf("GroupSlope(%v) = %v, %v, want %v, %v", tc.acc, s, b, tc.slope, tc.icp)
		}
	}
}

func TestWeightedStd(t *testing.T) {
	for _, tc := range []struct {
		x, w []float64
		want float64
	}{
		// By hand: x̄w = 4.6/6, Σw(x − x̄w)² = 0.4/3, M' = 3:
		// sqrt((0.4/3) / ((2/3)·6)) = sqrt(1/30).
		{[]float64{0.5, 0.7, 0.9}, []float64{1, 2, 3}, math.Sqrt(1.0 / 30)},
		// A zero-weight group (empty) does not count in M'.
		{[]float64{0.5, 0.7, 0.9, math.NaN()}, []float64{1, 2, 3, 0}, math.Sqrt(1.0 / 30)},
		// Equal weights: the sample standard deviation of 1…4 (R: sd(1:4)).
		{[]float64{1, 2, 3, 4}, []float64{5, 5, 5, 5}, 1.2909944487358056},
		// Two groups, weights 1 and 3: x̄w = 0.75, Σw(x − x̄w)² = 0.5625 + 0.1875,
		// sqrt(0.75 / (0.5·4)).
		{[]float64{0, 1}, []float64{1, 3}, math.Sqrt(0.75 / 2)},
		{[]float64{0.4, 0.9}, []float64{7, 0}, math.NaN()},
	} {
		got := WeightedStd(tc.x, tc.w)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && !near(got, tc.want, 1e-12)) {
			t.Errorf("WeightedStd(%v, %v) = %v, want %v", tc.x, tc.w, got, tc.want)
		}
	}
}

// labelled returns labels giving image "i<k>" the pair pairs[k%len].
func labelled(t *testing.T, csv string) *Labels {
	t.Helper()
	l, err := ReadLabels(strings.NewReader(csv), "colors.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestAnalyseByHand(t *testing.T) {
	// a: low (red–red), b: high (red–green), c: high (white–black),
	// d: others, e: low-mid (gray–white). No high-mid image.
	labels := labelled(t, "id,background,foreground\na,red,red\nb,red,green\nc,white,black\nd,others,blue\ne,Grey,white\n")
	rows := []Row{
		{Image: "a", ID: "1", Corruption: "noise", Severity: 1, CorrectClean: false, CorrectCorrupted: false},
		{Image: "a", ID: "2", Corruption: "noise", Severity: 2, CorrectClean: false, CorrectCorrupted: true},
		{Image: "b", ID: "3", Corruption: "noise", Severity: 1, CorrectClean: true, CorrectCorrupted: true},
		{Image: "b", ID: "4", Corruption: "blur", Severity: 2, CorrectClean: true, CorrectCorrupted: false},
		{Image: "c", ID: "5", Corruption: "blur", Severity: 1, CorrectClean: true, CorrectCorrupted: true},
		{Image: "d", ID: "6", Corruption: "blur", Severity: 1, CorrectClean: false, CorrectCorrupted: false},
		{Image: "e", ID: "7", Corruption: "blur", Severity: 2, CorrectClean: true, CorrectCorrupted: false},
	}
	res, err := Analyse([]Model{{Name: "m", Rows: rows}}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.LevelKind != LevelSeverity || len(res.Levels) != 2 {
		t.Fatalf("levels %s %v", res.LevelKind, res.Levels)
	}
	m := res.Models[0]
	if m.Images != 5 || m.Rows != 7 {
		t.Errorf("images %d rows %d, want 5, 7", m.Images, m.Rows)
	}
	acc := func(g GroupAcc) float64 {
		if g.Accuracy == nil {
			return math.NaN()
		}
		return *g.Accuracy
	}
	// Clean: low 0/1, low-mid 1/1, high-mid none, high 2/2, others 0/1.
	wantClean := []float64{0, 1, math.NaN(), 1, 0}
	for i, g := range m.Clean.Groups {
		w := wantClean[i]
		if math.IsNaN(w) != (g.Accuracy == nil) || (!math.IsNaN(w) && acc(g) != w) {
			t.Errorf("clean %s = %v, want %v", g.Group, acc(g), w)
		}
	}
	// Clean slope through (0, 0), (1, 1), (3, 1): x̄ = 4/3, Sxy = Σ(x − x̄)y = 4/3,
	// Sxx = 14/3 → 2/7.
	if m.Clean.Slope == nil || !near(*m.Clean.Slope, 2.0/7, 1e-12) {
		t.Errorf("clean slope %v, want 2/7", *m.Clean.Slope)
	}
	// Weights 1, 1, 2 on 0, 1, 1: x̄w = 0.75, Σw(x − x̄)² = 0.75,
	// sqrt(0.75 / ((2/3)·4)).
	if m.Clean.WeightedStd == nil || !near(*m.Clean.WeightedStd, math.Sqrt(0.75/(8.0/3)), 1e-12) {
		t.Errorf("clean weighted std %v", m.Clean.WeightedStd)
	}
	// Corrupted: low 1/2, low-mid 0/1, high 2/3, others 0/1.
	c := m.Pooled.Corrupted
	if acc(c.Groups[0]) != 0.5 || acc(c.Groups[1]) != 0 || acc(c.Groups[3]) != 2.0/3 || c.Groups[3].Images != 2 || c.Groups[3].Rows != 3 {
		t.Errorf("corrupted groups %+v", c.Groups)
	}
	// Severity 1: rows 1, 3, 5, 6 → 2/4; severity 2: rows 2, 4, 7 → 1/3.
	// Weighted std of (0.5, 1/3) with weights 4, 3: x̄w = 3/7,
	// Σw(x − x̄w)² = 4(1/14)² + 3(2/21)² = 1/21, sqrt((1/21) / (0.5·7)).
	if s := m.Pooled.SeverityStd; s == nil || !near(*s, math.Sqrt(1.0/21/3.5), 1e-12) {
		t.Errorf("severity std %v", s)
	}
	if len(m.Corruptions) != 2 || m.Corruptions[0].Corruption != "blur" {
		t.Errorf("corruptions %+v", m.Corruptions)
	}
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w, "high-mid has no clean images")
	}
	if !warned {
		t.Errorf("no warning about the empty high-mid group: %q", res.Warnings)
	}

	// An image without a label fails, naming it, unless skipped.
	rows = append(rows, Row{Image: "zzz", ID: "8", Corruption: "blur", Severity: 1})
	_, err = Analyse([]Model{{Name: "m", Rows: rows}}, labels, Options{})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "zzz") {
		t.Errorf("missing label: err = %v", err)
	}
	res, err = Analyse([]Model{{Name: "m", Rows: rows}}, labels, Options{SkipUnlabelled: true})
	if err != nil || res.Models[0].Rows != 7 {
		t.Errorf("skip unlabelled: %v", err)
	}
}

// simulate draws a model whose probability of a correct answer is
// base + step·group index − sevStep·severity + sevContrast·index·severity.
func simulate(rng *rand.Rand, n int, base, step, sevStep, sevContrast float64) (string, []Row) {
	var b strings.Builder
	b.WriteString("id,background,foreground\n")
	pairs := [][2]string{{"red", "red"}, {"red", "gray"}, {"red", "brown"}, {"red", "green"}}
	var rows []Row
	for g := range 4 {
		for k := range n {
			img := "g" + string(rune('0'+g)) + "_" + itoa(k)
			b.WriteString(img + "," + pairs[g][0] + "," + pairs[g][1] + "\n")
			clean := rng.Float64() < base+step*float64(g)
			for s := 1; s <= 5; s++ {
				p := base + step*float64(g) - sevStep*float64(s) + sevContrast*float64(g*s)
				rows = append(rows, Row{Image: img, ID: img + "/" + itoa(s), Corruption: "noise", Severity: s,
					CorrectClean: clean, CorrectCorrupted: rng.Float64() < p})
			}
		}
	}
	return b.String(), rows
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func TestSyntheticSlopeRecovered(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const step, sevContrast = 0.08, 0.01
	csv, rows := simulate(rng, 3000, 0.5, step, 0.06, sevContrast)
	res, err := Analyse([]Model{{Name: "sim", Rows: rows}}, labelled(t, csv), Options{Replicates: 400, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Models[0]
	// Clean: slope = step. The binomial SE of a group accuracy is ≤ 0.0091
	// at n = 3000, so the slope's SE is about 0.0091·sqrt(1/5) ≈ 0.004.
	if s := *m.Clean.Slope; !near(s, step, 0.015) {
		t.Errorf("clean slope %.4f, want %.2f", s, step)
	}
	ci := m.Clean.SlopeCI
	if ci == nil || !(ci[0] < step && step < ci[1]) || ci[1]-ci[0] > 0.04 || ci[1]-ci[0] < 0.005 {
		t.Errorf("clean slope CI %v does not cover %.2f or has an implausible width", ci, step)
	}
	// At severity s the slope is step + sevContrast·s.
	for i, l := range m.Pooled.Levels {
		want := step + sevContrast*float64(i+1)
		if l.Slope == nil || !near(*l.Slope, want, 0.015) {
			t.Errorf("severity %s slope %v, want %.3f", l.Level, l.Slope, want)
		}
	}
	// Pooled corrupted slope = step + 3·sevContrast.
	if s := *m.Pooled.Corrupted.Slope; !near(s, step+3*sevContrast, 0.01) {
		t.Errorf("corrupted slope %.4f, want %.3f", s, step+3*sevContrast)
	}
	// A model without contrast dependence: slope near 0, CI covers 0, and
	// the comparison shows the difference.
	csv0, rows0 := simulate(rand.New(rand.NewPCG(9, 9)), 3000, 0.7, 0, 0.06, 0)
	_ = csv0 // same ids and pairs as csv
	res, err = Analyse([]Model{{Name: "sim", Rows: rows}, {Name: "flat", Rows: rows0}}, labelled(t, csv), Options{Replicates: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Models[1]
	if ci := f.Clean.SlopeCI; ci == nil || !(ci[0] < 0 && 0 < ci[1]) {
		t.Errorf("flat model slope CI %v does not cover 0", ci)
	}
	if d := res.Comparisons[0].SlopeDelta[0]; d == nil || !near(*d, -step, 0.02) {
		t.Errorf("slope delta %v, want ≈ %.2f", d, -step)
	}
	// Same seed, same interval.
	again, _ := Analyse([]Model{{Name: "sim", Rows: rows}, {Name: "flat", Rows: rows0}}, labelled(t, csv), Options{Replicates: 200, Seed: 1})
	if *again.Models[0].Clean.SlopeCI != *res.Models[0].Clean.SlopeCI {
		t.Errorf("bootstrap not reproducible")
	}
}

func TestDVLevels(t *testing.T) {
	labels := labelled(t, "id,background,foreground\na,red,red\nb,red,green\n")
	rows := []Row{
		{Image: "a", ID: "1", Corruption: "n", DV: 0.05, CorrectCorrupted: true},
		{Image: "b", ID: "2", Corruption: "n", DV: 1, CorrectCorrupted: false},
		{Image: "b", ID: "3", Corruption: "n", DV: 0.5},
	}
	res, err := Analyse([]Model{{Name: "m", Rows: rows}}, labels, Options{DVBins: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.LevelKind != LevelDV || len(res.Levels) != 4 {
		t.Fatalf("levels %s %v", res.LevelKind, res.Levels)
	}
	l := res.Models[0].Pooled.Levels
	if l[0].Groups[0].Rows != 1 || l[2].Groups[3].Rows != 1 || l[3].Groups[3].Rows != 1 || l[1].Accuracy != nil {
		t.Errorf("Δv levels %+v", l)
	}
	rows[0].DV = math.NaN()
	if _, err := Analyse([]Model{{Name: "m", Rows: rows}}, labels, Options{}); err == nil || !strings.Contains(err.Error(), "neither severity nor dv") {
		t.Errorf("row without severity or dv: %v", err)
	}
}
