package analysis

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imagenetc"
	"github.com/vcr-bench/vcr/internal/imagenetctest"
	"github.com/vcr-bench/vcr/report"
	"github.com/vcr-bench/vcr/results"
)

// TestImageNetC runs the pipeline on results tables with exact counts: per
// corruption, mean errors over the five severities equal to AlexNet's (mCE
// 100), to half of them (50), and a table lacking frost (no mCE).
func TestImageNetC(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, corruptions []string, num, den int64) results.File {
		p := filepath.Join(dir, name, "results.csv")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if _, err := imagenetctest.WriteResults(p, corruptions, num, den); err != nil {
			t.Fatal(err)
		}
		return results.File{Path: p}
	}
	noFrost := slices.DeleteFunc(slices.Clone(imagenetc.Benchmark), func(c string) bool { return c == "frost" })
	opt := DefaultOptions()
	opt.Bootstrap, opt.Out = 0, filepath.Join(dir, "out")
	opt.Results = []results.File{
		write("alexlike", imagenetc.Benchmark, 1, 1),
		write("half", imagenetc.Benchmark, 1, 2),
		write("nofrost", noFrost, 1, 1),
	}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var rep imagenetc.Report
	data, err := os.ReadFile(filepath.Join(opt.Out, ImageNetCJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 3 {
		t.Fatalf("%d models in %s", len(rep.Models), ImageNetCJSON)
	}
	// The clean error is 0.2 (imagenetctest.Sources); relative CE by hand:
	// 100·(A_c − 0.2)/(A_c − 0.43478), averaged over the 15 corruptions.
	wantRel := func(scale float64) float64 {
		s := 0.0
		for _, c := range imagenetc.Benchmark {
			a, _ := imagenetc.AlexNetError(c)
			s += 100 * (scale*a - 0.2) / (a - imagenetc.AlexNetCleanError)
		}
		return s / 15
	}
	for i, tc := range []struct {
		model     string
		mce, rmce float64
	}{
		{"alexlike", 100, wantRel(1)},
		{"half", 50, wantRel(0.5)},
	} {
		m := rep.Models[i]
		if m.Model != tc.model || m.MCE == nil || *m.MCE != tc.mce {
			t.Errorf("model %s: mCE %v, want %s exactly %v", m.Model, m.MCE, tc.model, tc.mce)
			continue
		}
		if *m.CleanError != 0.2 || m.CleanN != imagenetctest.Sources {
			t.Errorf("%s: clean error %v over %d sources, want 0.2 over %d", m.Model, *m.CleanError, m.CleanN, imagenetctest.Sources)
		}
		if math.Abs(*m.RelativeMCE-tc.rmce) > 1e-9 {
			t.Errorf("%s: relative mCE %v, want %v", m.Model, *m.RelativeMCE, tc.rmce)
		}
		if m.CE["frost"] != tc.mce || len(m.CE) != 15 {
			t.Errorf("%s: CE %v", m.Model, m.CE)
		}
	}
	nf := rep.Models[2]
	if nf.Model != "nofrost" || nf.MCE != nil || nf.RelativeMCE != nil || !slices.Equal(nf.Missing, []string{"frost"}) || nf.CE["fog"] != 100 {
		t.Errorf("nofrost: mCE %v, missing %v, CE %v; want no mCE, missing frost, the others' CE", nf.MCE, nf.Missing, nf.CE)
	}
	if !slices.ContainsFunc(res.Analysis.Warnings, func(w string) bool {
		return strings.Contains(w, "model nofrost: no mCE") && strings.Contains(w, "frost")
	}) {
		t.Errorf("no warning names nofrost's missing frost: %q", res.Analysis.Warnings)
	}

	// summary.json carries the same section.
	var s report.Summary
	data, _ = os.ReadFile(filepath.Join(opt.Out, "summary.json"))
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.ImageNetC == nil || *s.ImageNetC.Models[0].MCE != 100 || *s.ImageNetC.Models[1].MCE != 50 {
		t.Errorf("summary.json imagenet_c: %+v", s.ImageNetC)
	}

	// imagenet_c.csv: per model a clean row, 15 × 6 corruption rows and an mce row.
	f, err := os.Open(filepath.Join(opt.Out, ImageNetCCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 2*(1+15*6+1) + (1 + 14*6 + 1); len(rows) != want {
		t.Errorf("%s has %d rows, want %d", ImageNetCCSV, len(rows), want)
	}
	if r := rows[1+15*6+1]; r[0] != "alexlike" || r[1] != "mce" || r[7] != "100" {
		t.Errorf("alexlike's mce row: %v", r)
	}
}

// TestImageNetCAbsent: results without severities write no ImageNet-C files.
func TestImageNetCAbsent(t *testing.T) {
	dir := t.TempDir()
	opt := DefaultOptions()
	opt.Bootstrap, opt.Out = 0, filepath.Join(dir, "out")
	opt.Results = []results.File{{Path: resultsCSV(t, dir, "m", []string{"fog"}, false)}}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Analysis.ImageNetC != nil {
		t.Error("ImageNet-C metrics without severities")
	}
	if _, err := os.Stat(filepath.Join(opt.Out, ImageNetCJSON)); err == nil {
		t.Errorf("%s written without severities", ImageNetCJSON)
	}
	data, _ := os.ReadFile(filepath.Join(opt.Out, "summary.json"))
	if strings.Contains(string(data), "imagenet_c") {
		t.Error("summary.json has an imagenet_c section without severities")
	}
}

// TestImageNetCIntervals checks that with --bootstrap the ImageNet-C
// numbers in imagenet_c.json get percentile intervals that contain them,
// with the bootstrap settings recorded.
func TestImageNetCIntervals(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "half", "results.csv")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if _, err := imagenetctest.WriteResults(p, imagenetc.Benchmark, 1, 2); err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Bootstrap, opt.Seed, opt.Out = 20, 5, filepath.Join(dir, "out")
	opt.Results = []results.File{{Path: p}}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	var rep imagenetc.Report
	data, err := os.ReadFile(filepath.Join(opt.Out, ImageNetCJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	m := rep.Models[0]
	if m.MCEInterval == nil || !(m.MCEInterval.Lo <= *m.MCE && *m.MCE <= m.MCEInterval.Hi) || len(m.CEInterval) != 15 {
		t.Errorf("mCE %v, interval %+v, %d CE intervals; want an interval around mCE and 15 CE intervals", *m.MCE, m.MCEInterval, len(m.CEInterval))
	}
	if m.Bootstrap == nil || m.Bootstrap.Replicates != 20 || m.Bootstrap.Seed != 5 || m.Bootstrap.Level != 0.95 {
		t.Errorf("bootstrap record %+v", m.Bootstrap)
	}
}
