// Package testset builds VCR test sets (the VCR study's "Step I", Algorithm 1):
// N draws, each an image drawn uniformly from a dataset, a corruption, and
// parameters drawn from the corruption's domain (uniformly, or Δv-targeted),
// every draw seeded from (master seed, draw index). It owns the manifest
// (one row per draw), coverage of the Δv range, resume after a crash,
// sharding and merging.
package testset
