// Package robustness estimates visually-continuous corruption robustness (VCR) and
// the human-aware metrics HMRI and MRSI of the VCR study ("Assessing
// Visually-Continuous Corruption Robustness of Neural Networks Relative to
// Human Performance", Algorithm 1 and §4).
//
// Trials (one model prediction or one human judgement, with its visual
// change Δv) are grouped into a Series per (subject, corruption). Estimate
// bins them into M equal Δv bins (default 40, bin k = ⌊v·M⌋ with v = 1 folded
// into the last bin, bin centre as abscissa), keeps bins with at least L
// trials (default 20), fits monotone non-increasing penalised splines to the
// per-bin accuracy a_v and consistency p_v (spline.FitMonotone, weighted by
// bin counts, anchored at Δv = 0 to the clean accuracy / clean consistency,
// clamped to [0, 1], on [0, 1]) and integrates them exactly: R̂a = ∫₀¹ s_a,
// R̂p = ∫₀¹ s_p. A nonparametric bootstrap (Efron & Tibshirani, 1993) gives
// pointwise 83 % and 95 % percentile bands and percentile intervals; it
// resamples trials with replacement, implemented exactly as a multinomial
// draw over the (bin, correct, consistent) cells.
//
// Compare computes A(h>m) = ∫ max(0, s_h − s_m), A(m>h) = ∫ max(0, s_m − s_h),
// HMRI = 1 − A(h>m)/A(h) and MRSI = A(m>h)/A(m) with bootstrap intervals.
// Similarity finds corruptions whose human curves' 83 % bands overlap
// everywhere (the study's "visually similar corruptions", after Koenker,
// Ng & Portnoy's 83 % overlap rule for 95 % comparisons).
//
// Series carry the VIF flavour of their Δv axis; comparing different
// flavours is refused with ErrVIFMismatch unless explicitly allowed.
package robustness
