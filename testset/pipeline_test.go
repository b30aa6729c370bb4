package testset

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

var (
	coverAll  = flag.Bool("coverall", false, "measure uniform vs targeted Δv coverage for every corruption (slow; logs a table)")
	coverSize = flag.Int("coversize", 96, "image size for -coverall")
	coverN    = flag.Int("covern", 2000, "draws per sampler for -coverall")
	coverOnly = flag.String("coveronly", "", "comma-separated corruptions for -coverall (default: all)")
)

// pipeline runs the real labelling chain of a test set on a few generated
// images: corrupt → quantise to 8 bit → grey → VIF (vcr-py) → Δv.
type pipeline struct {
	imgs []*imageio.Image
	refs []*iqa.Gray
	dst  *imageio.Image
	sc   *iqa.Scorer
}

func newPipeline(size, nimg int) *pipeline {
	p := &pipeline{dst: imageio.New(size, size), sc: iqa.NewScorer(iqa.VCRPy)}
	for i := range nimg {
		m := testimg.Natural(size, size, uint64(100+i))
		p.imgs = append(p.imgs, m)
		p.refs = append(p.refs, iqa.GrayFrom(m))
	}
	return p
}

// draw makes draw index i of a run with the given seed, as Algorithm 1 does:
// image uniformly, parameters from s, both from the draw's own generator.
func (p *pipeline) draw(t testing.TB, c *corrupt.Corruption, s ParamSampler, seed, i uint64) PilotPoint {
	rng := corrupt.NewRand(seed, i)
	k := rng.IntN(len(p.imgs))
	params := s.Sample(rng)
	check := c.Check
	if s.Mode() != "uniform" {
		check = c.CheckTarget
	}
	if err := check(params); err != nil {
		t.Fatalf("%s sampler returned params outside the domain: %v", s.Mode(), err)
	}
	return PilotPoint{Params: params, DV: p.dv(t, c, k, params, rng)}
}

func (p *pipeline) dv(t testing.TB, c *corrupt.Corruption, k int, params []float64, rng *rand.Rand) float64 {
	c.Apply(p.dst, p.imgs[k], params, rng)
	p.dst.Quantize(imageio.Round)
	r, err := p.sc.Score(p.refs[k], iqa.GrayFrom(p.dst))
	if err != nil {
		t.Fatal(err)
	}
	return r.DV
}

// targeted builds a targeted sampler from a two-stage pilot of n draws
// (LearnTargeted) on seed 7.
func (p *pipeline) targeted(t testing.TB, c *corrupt.Corruption, n int) *Targeted {
	s, pilot, err := LearnTargeted(c, n, func(s ParamSampler, i int) (PilotPoint, error) {
		return p.draw(t, c, s, 7, uint64(i)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pilot) != n {
		t.Fatalf("pilot has %d points, want %d", len(pilot), n)
	}
	return s
}

// run makes n draws with s and returns them.
func (p *pipeline) run(t testing.TB, c *corrupt.Corruption, s ParamSampler, seed uint64, n int) []PilotPoint {
	out := make([]PilotPoint, n)
	for i := range n {
		out[i] = p.draw(t, c, s, seed, uint64(i))
	}
	return out
}

func dvs(pts []PilotPoint) []float64 {
	v := make([]float64, len(pts))
	for i, p := range pts {
		v[i] = p.DV
	}
	return v
}

// BenchmarkPipeline64 times one draw of the test pipeline at 64×64.
func BenchmarkPipeline64(b *testing.B) {
	p := newPipeline(64, 4)
	c, _ := corrupt.Lookup("gaussian_noise")
	var i uint64
	for b.Loop() {
		p.draw(b, c, Uniform{c}, 1, i)
		i++
	}
}

// ksUniform is the Kolmogorov–Smirnov distance between the empirical
// distribution of v and U(0, 1).
func ksUniform(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := float64(len(s))
	var d float64
	for i, x := range s {
		d = max(d, math.Abs(float64(i+1)/n-x), math.Abs(x-float64(i)/n))
	}
	return d
}

// TestTargetedCoverageAll is the one-off measurement behind the coverage
// tables in docs/targeted.md: for every corruption in the catalogue (or
// those named by -coveronly), -coversize² generated images (32 of them), a
// two-stage 200-draw pilot (see targeted), then -covern uniform and -covern
// targeted draws. It logs one Markdown table row per corruption. Run with
//
//	go test ./testset -run TestTargetedCoverageAll -coverall -v -timeout 60m
func TestTargetedCoverageAll(t *testing.T) {
	if !*coverAll {
		t.Skip("measurement; enable with -coverall")
	}
	const pilotN = 200
	n := *coverN
	p := newPipeline(*coverSize, 32)
	only := map[string]bool{}
	for _, name := range strings.Split(*coverOnly, ",") {
		if name != "" {
			only[name] = true
		}
	}
	t.Logf("size %d, N = %d", *coverSize, n)
	t.Logf("| corruption | method | targeted | fitted Δv | uniform @%d | uniform @%d | targeted @%d | targeted @%d | KS uniform | KS targeted | reachable bins | covered uni / tar |", n/2, n, n/2, n)
	for _, c := range corrupt.All() {
		if len(only) > 0 && !only[c.Name] {
			continue
		}
		start := time.Now()
		tg := p.targeted(t, c, pilotN)
		uni := dvs(p.run(t, c, Uniform{c}, 1, n))
		tar := dvs(p.run(t, c, tg, 1, n))
		var targetedParams []string
		switch {
		case tg.Driver < 0:
		case tg.Method == MethodDriver:
			targetedParams = append(targetedParams, c.Params[tg.Driver].Name)
		default:
			for _, pt := range tg.Parts {
				if pt.Active {
					targetedParams = append(targetedParams, c.Params[pt.Param].Name)
				}
			}
		}
		cov := func(v []float64) float64 { return ComputeCoverage(v, DefaultBins, DefaultMinPerBin).Fraction }
		both := ComputeCoverage(slices.Concat(uni, tar), DefaultBins, DefaultMinPerBin)
		cu, ct := ComputeCoverage(uni, DefaultBins, DefaultMinPerBin), ComputeCoverage(tar, DefaultBins, DefaultMinPerBin)
		reach, covU, covT := 0, 0, 0
		for k := range both.Counts {
			if both.Counts[k] >= DefaultMinPerBin {
				reach++
			}
			if cu.Counts[k] >= DefaultMinPerBin {
				covU++
			}
			if ct.Counts[k] >= DefaultMinPerBin {
				covT++
			}
		}
		t.Logf("| %s | %s | %s | %.2f-%.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %d / %d |", c.Name, tg.Method, strings.Join(targetedParams, ", "),
			tg.Achievable[0], tg.Achievable[1], cov(uni[:n/2]), cov(uni), cov(tar[:n/2]), cov(tar), ksUniform(uni), ksUniform(tar), reach, covU, covT)
		t.Logf("    %s: R² %.2f, %v, warnings %v", c.Name, tg.R2, time.Since(start).Round(time.Second), tg.Warnings)
		t.Logf("    uniform  %v", cu.Counts)
		t.Logf("    targeted %v", ct.Counts)
	}
}

// reachable returns the coverage of v counted only over the bins that hold
// some Δv in [lo, hi] (the range the domain reaches), with the study's bins
// and per-bin minimum.
func reachable(v []float64, lo, hi float64) (covered, bins int) {
	c := ComputeCoverage(v, DefaultBins, DefaultMinPerBin)
	for k := BinIndex(lo, DefaultBins); k <= BinIndex(hi, DefaultBins); k++ {
		bins++
		if c.Counts[k] >= DefaultMinPerBin {
			covered++
		}
	}
	return covered, bins
}

// TestTargetedPipeline runs the real chain (corrupt → 8 bit → grey → VIF)
// on generated 64×64 images: a two-stage pilot, then targeted and uniform
// draws. Small images reach less of the Δv range than 224×224 photos (noise
// stops near Δv 0.9), so coverage is counted over the bins the domain
// reaches: between the 1% and 99% quantiles of both samplers' Δv together.
func TestTargetedPipeline(t *testing.T) {
	pilotN, n := 200, 1600
	// Shot noise reaches small Δv only through its target range (λ up to
	// 10⁶); saturate needs the additive model (small Δv needs both
	// parameters near their identity).
	names := []string{"gaussian_noise", "impulse_noise", "shot_noise", "gaussian_blur", "brightness", "saturate"}
	if testing.Short() {
		pilotN, n = 100, 500
		names = []string{"gaussian_noise", "impulse_noise"}
	}
	p := newPipeline(64, 32)
	for _, name := range names {
		c, err := corrupt.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		s := p.targeted(t, c, pilotN)
		tar := dvs(p.run(t, c, s, 1, n))
		uni := dvs(p.run(t, c, Uniform{c}, 1, n))
		all := slices.Concat(tar, uni)
		slices.Sort(all)
		lo, hi := all[len(all)/100], all[len(all)-1-len(all)/100]
		ct, bins := reachable(tar, lo, hi)
		cu, _ := reachable(uni, lo, hi)
		kt, ku := ksAgainst(tar, lo, hi), ksAgainst(uni, lo, hi)
		t.Logf("%-15s Δv ∈ [%.2f, %.2f] (%d bins): covered targeted %d, uniform %d; study coverage targeted %.3f, uniform %.3f; KS targeted %.3f, uniform %.3f",
			name, lo, hi, bins, ct, cu,
			ComputeCoverage(tar, DefaultBins, DefaultMinPerBin).Fraction, ComputeCoverage(uni, DefaultBins, DefaultMinPerBin).Fraction, kt, ku)
		if kt >= ku {
			t.Errorf("%s: targeted KS %.3f not below uniform %.3f", name, kt, ku)
		}
		switch {
		case testing.Short():
		case float64(ct) < 0.95*float64(bins):
			t.Errorf("%s: targeted covers %d of %d reachable bins, want ≥ 95%%", name, ct, bins)
		}
	}
}
