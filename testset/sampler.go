package testset

import (
	"math/rand/v2"

	"github.com/vcr-bench/vcr/corrupt"
)

// ParamSampler draws a parameter vector for one corruption.
type ParamSampler interface {
	// Sample returns a parameter vector inside the corruption's domain,
	// using only rng for randomness.
	Sample(rng *rand.Rand) []float64
	// Mode names the sampling scheme for the manifest ("uniform", "targeted").
	Mode() string
}

// Uniform draws every parameter uniformly from its domain, as the VCR
// study's Algorithm 1 does.
type Uniform struct{ C *corrupt.Corruption }

// Sample implements ParamSampler.
func (u Uniform) Sample(rng *rand.Rand) []float64 { return u.C.Sample(rng) }

// Mode implements ParamSampler.
func (Uniform) Mode() string { return "uniform" }

// PilotPoint is one pilot observation used to learn a corruption's
// parameter → Δv relation.
type PilotPoint struct {
	Params []float64
	DV     float64
}
