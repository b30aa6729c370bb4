package imagenetc_test

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imagenetc"
)

// alexNet is the AlexNet table as reference/imagenet-c-metrics.md prints it
// (hendrycks/robustness, ImageNet-C/test.py), in millionths.
var alexNet = map[string]int{
	"gaussian_noise": 886428, "shot_noise": 894468, "impulse_noise": 922640,
	"defocus_blur": 819880, "glass_blur": 826268, "motion_blur": 785948, "zoom_blur": 798360,
	"snow": 866816, "frost": 826572, "fog": 819324, "brightness": 564592,
	"contrast": 853204, "elastic_transform": 646056, "pixelate": 717840, "jpeg_compression": 606500,
}

// scaled returns counts whose error at every severity is AlexNet's mean
// error times num/den, exactly: N = 1,000,000·den images per severity.
func scaled(num, den int) []imagenetc.Count {
	var cs []imagenetc.Count
	for _, c := range imagenetc.Benchmark {
		for s := 1; s <= 5; s++ {
			cs = append(cs, imagenetc.Count{Corruption: c, Severity: s, N: 1000000 * den, Errors: alexNet[c] * num})
		}
	}
	return cs
}

func TestAlexNetTable(t *testing.T) {
	if len(imagenetc.Benchmark) != 15 || len(alexNet) != 15 {
		t.Fatalf("benchmark has %d corruptions, want 15", len(imagenetc.Benchmark))
	}
	for c, v := range alexNet {
		got, ok := imagenetc.AlexNetError(c)
		if !ok || got != float64(v)/1e6 {
			t.Errorf("AlexNetError(%s) = %v, %v; want %v", c, got, ok, float64(v)/1e6)
		}
	}
	if _, ok := imagenetc.AlexNetError("spatter"); ok {
		t.Error("spatter (an extra corruption) has an AlexNet error")
	}
}

func TestMCE(t *testing.T) {
	for _, tc := range []struct {
		name     string
		num, den int
		want     float64 // every CE and the mCE, in percent
	}{
		{"AlexNet-equal errors", 1, 1, 100}, // the sanity check of imagenet-c-metrics.md
		{"halved errors", 1, 2, 50},         // CE is linear in the errors
	} {
		r := imagenetc.Compute(imagenetc.Model{Name: "m", Counts: scaled(tc.num, tc.den)})
		if r.MCE == nil || *r.MCE != tc.want {
			t.Errorf("%s: mCE = %v, want exactly %v", tc.name, r.MCE, tc.want)
		}
		for c, ce := range r.CE {
			if ce != tc.want {
				t.Errorf("%s: CE[%s] = %v, want %v", tc.name, c, ce, tc.want)
			}
		}
		if len(r.CE) != 15 || r.RelativeMCE != nil || len(r.Missing) != 0 {
			t.Errorf("%s: %d CEs, relative mCE %v (no clean error given), missing %v", tc.name, len(r.CE), r.RelativeMCE, r.Missing)
		}
	}
}

func TestMCEUnevenSeverities(t *testing.T) {
	// Errors 0.5, 0.6, 0.7, 0.8, 0.9 on gaussian_noise (mean 0.7) over
	// different N per severity: CE = 0.7 / 0.886428.
	var cs []imagenetc.Count
	for s, ne := range [][2]int{{10, 5}, {5, 3}, {10, 7}, {5, 4}, {20, 18}} {
		cs = append(cs, imagenetc.Count{Corruption: "gaussian_noise", Severity: s + 1, N: ne[0], Errors: ne[1]})
	}
	r := imagenetc.Compute(imagenetc.Model{Counts: cs})
	want := 100 * 0.7 / 0.886428
	if got := r.CE["gaussian_noise"]; math.Abs(got-want) > 1e-12 {
		t.Errorf("CE = %v, want %v", got, want)
	}
	if c := r.Corruptions[0]; *c.MeanError != 0.7 || c.Severities[4].Error != 0.9 {
		t.Errorf("mean error %v, severity-5 error %v; want 0.7, 0.9", *c.MeanError, c.Severities[4].Error)
	}
}

func TestRelativeMCE(t *testing.T) {
	// Clean error 0.43478 = AlexNet's; every corruption at AlexNet's mean
	// error except gaussian_noise at 0.7. By hand:
	//   CE_gn    = 100·0.7/0.886428                       = 78.9686…
	//   RelCE_gn = 100·(0.7 − 0.43478)/(0.886428 − 0.43478) = 100·0.26522/0.451648 = 58.7227…
	//   the 14 others: CE = RelCE = 100
	//   mCE = (1400 + 78.9686…)/15 = 98.5979…, relative mCE = (1400 + 58.7227…)/15 = 97.2482…
	cs := slices.DeleteFunc(scaled(1, 1), func(c imagenetc.Count) bool { return c.Corruption == "gaussian_noise" })
	for s := 1; s <= 5; s++ {
		cs = append(cs, imagenetc.Count{Corruption: "gaussian_noise", Severity: s, N: 10, Errors: 7})
	}
	r := imagenetc.Compute(imagenetc.Model{Name: "m", Counts: cs, CleanN: 100000, CleanErrors: 43478})
	for _, tc := range []struct {
		name string
		got  *float64
		want float64
	}{
		{"clean error", r.CleanError, 0.43478},
		{"CE gaussian_noise", ptr(r.CE["gaussian_noise"]), 100 * 0.7 / 0.886428},
		{"relative CE gaussian_noise", ptr(r.RelativeCE["gaussian_noise"]), 100 * 0.26522 / 0.451648},
		{"relative CE fog", ptr(r.RelativeCE["fog"]), 100},
		{"mCE", r.MCE, (1400 + 100*0.7/0.886428) / 15},
		{"relative mCE", r.RelativeMCE, (1400 + 100*0.26522/0.451648) / 15},
	} {
		if tc.got == nil || math.Abs(*tc.got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, deref(tc.got), tc.want)
		}
	}
	if math.Abs(*r.RelativeMCE-97.24818) > 1e-5 {
		t.Errorf("relative mCE = %v, want 97.24818 (to 5 decimals)", *r.RelativeMCE)
	}
}

func ptr(v float64) *float64 { return &v }
func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestMissing(t *testing.T) {
	noFrost := slices.DeleteFunc(scaled(1, 1), func(c imagenetc.Count) bool { return c.Corruption == "frost" })
	noFog3 := slices.DeleteFunc(scaled(1, 1), func(c imagenetc.Count) bool { return c.Corruption == "fog" && c.Severity == 3 })
	for _, tc := range []struct {
		name    string
		counts  []imagenetc.Count
		missing []string
		note    string
	}{
		{"no frost", noFrost, []string{"frost"}, "no mCE: 1 of the 15 benchmark corruptions lack errors at all five severities: frost"},
		{"fog without severity 3", noFog3, []string{"fog"}, "fog lacks severities 3: no CE"},
	} {
		r := imagenetc.Compute(imagenetc.Model{Counts: tc.counts, CleanN: 10, CleanErrors: 1})
		if r.MCE != nil || r.RelativeMCE != nil || r.MeanError != nil {
			t.Errorf("%s: mCE %v, relative mCE %v; want none", tc.name, deref(r.MCE), deref(r.RelativeMCE))
		}
		if !slices.Equal(r.Missing, tc.missing) {
			t.Errorf("%s: missing %v, want %v", tc.name, r.Missing, tc.missing)
		}
		if !slices.Contains(r.Notes, tc.note) {
			t.Errorf("%s: notes %q lack %q", tc.name, r.Notes, tc.note)
		}
		if r.CE["motion_blur"] != 100 {
			t.Errorf("%s: the other corruptions keep their CE (motion_blur %v)", tc.name, r.CE["motion_blur"])
		}
	}
}

func TestExtrasNotAveraged(t *testing.T) {
	cs := scaled(1, 1)
	for _, c := range []string{"spatter", "saturate", "rgb_shift"} {
		for s := 1; s <= 5; s++ {
			cs = append(cs, imagenetc.Count{Corruption: c, Severity: s, N: 4, Errors: 1})
		}
	}
	r := imagenetc.Compute(imagenetc.Model{Counts: cs})
	if *r.MCE != 100 || len(r.CE) != 15 {
		t.Fatalf("mCE %v over %d CEs; extras must not be averaged", *r.MCE, len(r.CE))
	}
	var kinds []string
	for _, c := range r.Corruptions[15:] {
		kinds = append(kinds, c.Corruption+":"+c.Kind)
		if c.CE != nil || *c.MeanError != 0.25 {
			t.Errorf("%s: CE %v, mean error %v; want no CE, 0.25", c.Corruption, deref(c.CE), *c.MeanError)
		}
	}
	if want := []string{"spatter:extra", "saturate:extra", "rgb_shift:other"}; !slices.Equal(kinds, want) {
		t.Errorf("order and kinds %v, want %v", kinds, want)
	}
}

func TestWriteCSV(t *testing.T) {
	rep := imagenetc.NewReport([]imagenetc.Model{{Name: "m", Counts: scaled(1, 1), CleanN: 4, CleanErrors: 1}}, "test")
	var b bytes.Buffer
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// header, clean, 15 × (5 severities + 1 mean), mce
	if len(rows) != 1+1+15*6+1 {
		t.Fatalf("%d rows", len(rows))
	}
	if got := strings.Join(rows[1], ","); got != "m,clean,clean,,4,1,0.25,," {
		t.Errorf("clean row %s", got)
	}
	if got := strings.Join(rows[2], ","); got != "m,gaussian_noise,benchmark,1,1000000,886428,0.886428,," {
		t.Errorf("first severity row %s", got)
	}
	if got := strings.Join(rows[7], ","); !strings.HasPrefix(got, "m,gaussian_noise,benchmark,,5000000,4432140,0.886428,100,") {
		t.Errorf("gaussian_noise mean row %s", got)
	}
	if got := rows[len(rows)-1]; got[1] != "mce" || got[7] != "100" {
		t.Errorf("mce row %v", got)
	}
}

// TestExactRational checks the rational arithmetic against big.Rat
// directly for an uneven case.
func TestExactRational(t *testing.T) {
	r := imagenetc.Compute(imagenetc.Model{Counts: []imagenetc.Count{
		{"snow", 1, 3, 1}, {"snow", 2, 7, 2}, {"snow", 3, 11, 5}, {"snow", 4, 13, 8}, {"snow", 5, 17, 16}}})
	m := new(big.Rat)
	for _, f := range [][2]int64{{1, 3}, {2, 7}, {5, 11}, {8, 13}, {16, 17}} {
		m.Add(m, big.NewRat(f[0], f[1]))
	}
	m.Quo(m, big.NewRat(5*866816, 100*1000000))
	want, _ := m.Float64()
	if got := r.CE["snow"]; got != want {
		t.Errorf("CE snow = %v, want %v", got, want)
	}
}
