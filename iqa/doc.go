// Package iqa measures image quality: Sheikh & Bovik's Visual Information
// Fidelity (VIF) in the steerable-pyramid wavelet domain (two published
// flavours) and in the pixel domain (single- and multi-scale), and the visual
// change Δv = max(0, 1 − VIF) on which every vcr result is measured.
//
// H. R. Sheikh and A. C. Bovik, "Image information and visual quality",
// IEEE Transactions on Image Processing 15(2), 2006.
//
// Every Δv vcr writes carries its Method, so that human curves and model
// results are only compared on the same axis.
package iqa
