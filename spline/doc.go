// Package spline fits cubic smoothing splines to binned performance data.
//
// FitSmooth reproduces R's smooth.spline (Reinsch, 1967; the Fortran of
// Hastie & Tibshirani's sbart as shipped with R ≥ 4) with ordinary or
// generalised cross-validation, including R's knot rule, its 0.3330 penalty
// constant, its Brent search over spar (Forsythe, Malcolm & Moler, 1977,
// "Computer Methods for Mathematical Computations", fmin) and its habit of
// reporting the fit of the last criterion evaluation. It is the estimator of
// the reliability-requirements study (Hu, Marsso, Czarnecki, Salay, Shen &
// Chechik, "If a Human Can See It, So Should Your System: Reliability
// Requirements for Machine Vision Components", ICSE 2022), whose thresholds
// are discrete outcomes that move by a bin on small fit differences. Band
// gives that study's jackknife "83 %" band.
//
// FitMonotone fits a monotone non-increasing penalised cubic spline (a
// shape-constrained P-spline in the sense of Eilers & Marx, 1996, "Flexible
// smoothing with B-splines and penalties", with the exact ∫f″² penalty and
// the non-increasing-coefficient constraint of Ramsay, 1988, and Kelly &
// Rice, 1990), weighted, optionally anchored at the left end and clamped to
// [0, 1], with smoothness chosen by generalised cross-validation (Craven &
// Wahba, 1979). It is the curve estimator of the VCR study ("Assessing
// Visually-Continuous Corruption Robustness of Neural Networks Relative to
// Human Performance", Algorithm 1),
// which asks for a monotone smoothing spline (citing Koenker, Ng & Portnoy,
// 1994, "Quantile smoothing splines") whose integral over [0, 1] is the
// robustness estimate; Integral computes that integral exactly.
//
// B-spline evaluation follows de Boor (1978, "A Practical Guide to Splines");
// the band of the inverse used for leverages follows Hutchinson & de Hoog
// (1985, "Smoothing noisy data with spline functions").
//
// The package knows nothing about images.
package spline
