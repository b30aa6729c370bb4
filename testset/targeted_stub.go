package testset

import (
	"errors"

	"github.com/vcr-bench/vcr/corrupt"
)

// PLACEHOLDER: replaced by the Δv-targeted sampler.

// NewTargeted learns c's parameter → Δv relation from pilot points and
// returns a sampler whose draws make Δv close to uniform on [0, 1].
func NewTargeted(c *corrupt.Corruption, pilot []PilotPoint) (ParamSampler, error) {
	return nil, errors.New("testset: targeted sampling not implemented yet")
}
