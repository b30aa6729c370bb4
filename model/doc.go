// Package model runs image classifiers: the Classifier interface, input
// preprocessing described by a small config (with presets for
// torchvision-style ImageNet models and CIFAR models), and the backends:
// ONNX Runtime in-process (model/onnx), the Open Inference Protocol v2 over
// HTTP (model/oip), and predictions imported from a file. How a model's
// outputs map to the task's classes is package task's concern; Config
// names the task.
package model
