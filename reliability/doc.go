// Package reliability turns human data into machine-checkable reliability
// requirements and checks models against them (Hu, Marsso, Czarnecki, Salay,
// Shen and Chechik, "If a Human Can See It, So Should Your System:
// Reliability Requirements for Machine Vision Components", ICSE 2022).
//
// A requirement for one (task, image distribution, transformation) holds two
// thresholds on the visual change Δv: t_c, up to which human accuracy does
// not drop significantly (correctness preservation), and t_p, up to which
// human predictions stay as stable as on minimally changed images
// (prediction preservation). A model satisfies a requirement when, on images
// with Δv ≤ t, its accuracy (resp. preservation) is not below its own
// baseline, with one-sided bootstrap confidence.
package reliability
