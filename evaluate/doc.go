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
// Eval is the whole of vcr eval for a Go program: Options name the test
// set, the output and the model (a ModelSpec, the same settings as vcr
// eval's flags); OpenModel opens a classifier alone (ONNX Runtime, an Open
// Inference Protocol server, a predictions file or the built-in
// demonstration model) with its preprocessing, adapted to what vcr
// generate already did, and its task (package task). Run is the pipeline
// underneath, for callers that bring their own Classifier.
//
// Beside the results, SettingsFile(OUT) records what ran (Record: tool,
// version, model and its SHA-256, runtime, preprocessing, batch size,
// task, test set), and the manifest's dv_* columns are copied into the
// results after vif_method.
//
// The results file is written as OUT.partial, appended and synced in
// batches, and renamed to OUT when complete; an interrupted run continues
// with Config.Resume and writes the same bytes as an uninterrupted one.
package evaluate
