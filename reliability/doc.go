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
//
// Entry points, in the order of 'vcr requirements estimate' and 'check':
//
//   - BuiltinHuman, ReadICSEFolder and HumanFromTrials load human data;
//     HumanData.Estimate (or Estimate on one transformation's bins)
//     instantiates the thresholds as a File.
//   - File.Write, ReadFile and DecodeFile write and read requirements files
//     (both layouts); File.Select picks transformations.
//   - Check checks one requirement and returns a Verdict; CheckVIF refuses a
//     VIF flavour problem (VIFMethodError) before any work.
//   - CheckReport collects the verdicts and their warnings (the
//     reproducibility rerun's among them) and writes them as JSON
//     (Write, read back by ReadCheckReport), a text table (WriteTable) and
//     JUnit XML (WriteJUnit); Count says how many requirements and table
//     rows are violated.
package reliability
