// Package corrupt is the corruption catalogue: every image corruption vcr can
// apply, with a stable snake_case name, a family, named parameters with their
// continuous sampling domains, the ImageNet-C five severities where those
// exist, and a deterministic Apply.
//
// The definitions follow the published reference implementations (the VCR
// toolbox, the ICSE 2022 artifact, ImageNet-C by Hendrycks & Dietterich 2019,
// albumentations, scikit-image and OpenCV semantics) as restated in the
// project's reference notes; each corruption's Doc says which one it follows
// and where it departs from it on purpose.
//
// Apply is a pure function of (image, parameters, random source): the same
// input, parameters and generator state give the same output bytes. Random
// sources come from NewRand(seed, index), so a draw depends only on the master
// seed and the draw index, never on worker order.
//
// The package does no I/O.
package corrupt
