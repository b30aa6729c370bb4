// Package evaluate runs an image classifier, or predictions imported from a
// file, over a test set written by vcr generate and writes the results
// table: one row per manifest row with the predictions on the clean source
// image and on the corrupted image, correctness and consistency.
//
// The model sees exactly the image files the manifest lists (never images
// re-drawn at evaluation time, so the image scored is the one whose Δv was
// recorded), and each distinct clean source image, preprocessed with the
// resize and crop the generate run recorded, is evaluated once and cached.
//
// The results file is written as OUT.partial, appended and synced in
// batches, and renamed to OUT when complete; an interrupted run continues
// with Config.Resume and writes the same bytes as an uninterrupted one.
package evaluate
