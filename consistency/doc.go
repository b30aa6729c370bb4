// Package consistency measures error consistency between observers,
// humans and models alike: whether two observers make their errors on the
// same stimuli, beyond what their accuracies alone would make them share
// (Geirhos, Meding & Wichmann, "Beyond accuracy: quantifying trial-by-trial
// behaviour of CNNs and humans by measuring error consistency", NeurIPS
// 2020).
//
// For two observers on the n trials they share (the same stimulus), with
// accuracies p1 and p2 on those trials:
//
//	c_obs = (trials both got right or both got wrong) / n
//	c_exp = p1·p2 + (1 − p1)·(1 − p2)
//	kappa = (c_obs − c_exp) / (1 − c_exp),  and kappa = 1 when c_obs = 1
//
// exactly as model-vs-human computes it (modelvshuman/plotting/analyses.py,
// class ErrorConsistency): the same operations in the same order, so that
// the numbers agree with that code to the last bits. c_exp = 1 only when
// both observers are always right or both always wrong, and then c_obs = 1
// and kappa = 1.
//
// Compare computes the statistic for every pair of observers, per
// corruption and per equal-width Δv bin, with seeded percentile bootstrap
// intervals over the shared trials; the mean kappa over pairs of human
// observers is the ceiling a model's kappa with humans is measured against.
package consistency
