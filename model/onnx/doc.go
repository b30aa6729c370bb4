// Package onnx runs ONNX image classifiers in-process with ONNX Runtime,
// through github.com/yalue/onnxruntime_go, which loads the ONNX Runtime
// shared library at run time (dlopen) instead of linking it. Open finds the
// library (see FindLibrary: an option, $VCR_ONNXRUNTIME_LIB, a Python
// onnxruntime or npm onnxruntime-node package, the system library
// directories), reads the model's input and output names and shapes, and
// returns a *Model that implements model.Classifier on the CPU or, with a
// GPU build of ONNX Runtime, the CUDA execution provider.
//
// ONNX Runtime is loaded once per process; every Model shares it. The
// package needs cgo; in builds without cgo Open returns ErrNoCgo.
//
// Package onnxgen writes the small models the tests run. docs/onnx.md
// explains installation, CUDA and threads.
package onnx
