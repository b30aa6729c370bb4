package testset

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

var coverAll = flag.Bool("coverall", false, "measure uniform vs targeted Δv coverage for every corruption at 96×96 (slow; logs a table)")

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
	if err := c.Check(params); err != nil {
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
// table in the targeted sampler's documentation: for every corruption in the
// catalogue, 96×96 generated images, a 150-draw uniform pilot, then 2,000
// uniform and 2,000 targeted draws. Run with
//
//	go test ./testset -run TestTargetedCoverageAll -coverall -v -timeout 30m
func TestTargetedCoverageAll(t *testing.T) {
	if !*coverAll {
		t.Skip("measurement; enable with -coverall")
	}
	const pilotN, n = 150, 2000
	p := newPipeline(96, 12)
	t.Logf("%-22s %-12s %6s %6s | %-26s | %-26s", "corruption", "driver", "ρ", "f-range", "uniform cov@1000 cov@2000 KS", "targeted cov@1000 cov@2000 KS")
	for _, c := range corrupt.All() {
		pilot := p.run(t, c, Uniform{c}, 7, pilotN)
		s, err := NewTargeted(c, pilot)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		tg := s.(*Targeted)
		uni := dvs(p.run(t, c, Uniform{c}, 1, n))
		tar := dvs(p.run(t, c, s, 1, n))
		driver := "-"
		if tg.Driver >= 0 {
			driver = c.Params[tg.Driver].Name
		}
		cov := func(v []float64) float64 { return ComputeCoverage(v, DefaultBins, DefaultMinPerBin).Fraction }
		t.Logf("%-22s %-12s %6.2f %.2f-%.2f | %5.3f %5.3f %5.3f | %5.3f %5.3f %5.3f %v", c.Name, driver, tg.Correlation, tg.Achievable[0], tg.Achievable[1],
			cov(uni[:1000]), cov(uni), ksUniform(uni), cov(tar[:1000]), cov(tar), ksUniform(tar), tg.Warnings)
		t.Logf("    uniform  %v", ComputeCoverage(uni, DefaultBins, DefaultMinPerBin).Counts)
		t.Logf("    targeted %v", ComputeCoverage(tar, DefaultBins, DefaultMinPerBin).Counts)
	}
}
