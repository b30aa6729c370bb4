// Package imagenetc computes the ImageNet-C metrics of Hendrycks &
// Dietterich ("Benchmarking Neural Network Robustness to Common Corruptions
// and Perturbations", ICLR 2019) from per-severity counts: the top-1 error
// E_{s,c} of every corruption c at every severity s = 1…5, the Corruption
// Error CE_c, its mean over the 15 benchmark corruptions (mCE), and the
// relative CE and mCE, all against AlexNet.
//
// The public evaluation code (hendrycks/robustness, ImageNet-C/test.py, and
// the AugMix and DeepAugment scripts that copy it) stores AlexNet's errors
// already averaged over the five severities (AlexNetError), so
//
//	CE_c    = mean_s E_{s,c} / AlexNetError[c]
//	RelCE_c = (mean_s E_{s,c} − E_clean) / (AlexNetError[c] − AlexNetCleanError)
//
// which equal the paper's Σ_s E_{s,c} / Σ_s E^AlexNet_{s,c} and
// Σ_s (E_{s,c} − E_clean) / Σ_s (E^AlexNet_{s,c} − E^AlexNet_clean).
// mCE and relative mCE are the means over Benchmark, in percent (AlexNet =
// 100). The Extra corruptions (speckle_noise, gaussian_blur, spatter,
// saturate) and any others are reported with their errors but have no
// AlexNet reference and are not averaged.
//
// Every number is computed in exact rational arithmetic from the counts and
// the decimal constants, then rounded once to float64: a model whose mean
// errors equal AlexNet's has mCE exactly 100. (The public code's float
// arithmetic may differ from these values in the last bits.)
//
// Intervals adds seeded percentile bootstrap intervals of CE, relative CE,
// mCE and relative mCE, resampling the images within each corruption ×
// severity cell (and the clean images); these are computed in float64.
package imagenetc
