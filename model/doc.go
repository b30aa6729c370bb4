// Package model runs image classifiers: the Classifier interface, input
// preprocessing described by a small config (with presets for
// torchvision-style ImageNet models and CIFAR models), label spaces and
// mappings (ImageNet-1k, Geirhos et al.'s 16 entry-level classes, car / not
// car, user files), and the backends: ONNX Runtime in-process (model/onnx),
// the Open Inference Protocol v2 over HTTP (model/oip), and predictions
// imported from a file.
package model
