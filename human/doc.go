// Package human loads human psychophysics trials and turns them into
// vcr.Series, so that human performance curves are fitted exactly like
// model curves.
//
// Three inputs are supported:
//
//   - the project's own trial CSV (ReadTrials), which the experiment web app
//     exports (format in docs/human-data.md);
//   - the per-trial CSV of the reliability-requirements study (Hu, Marsso,
//     Czarnecki, Salay, Shen & Chechik, "If a Human Can See It, So Should
//     Your System: Reliability Requirements for Machine Vision Components",
//     ICSE 2022), ReadICSETrials;
//   - that study's per-bin CSVs (ReadICSEBins), returned as vcr.Bins.
//
// Every dataset records the VIF flavour of its Δv axis (VIFMethod), so that
// robustness.Compare can refuse to compare curves on different axes, and the
// task the humans performed (Task). The published ICSE files are embedded;
// Builtin returns them by name. Open is the one entry point for a user's
// data spec (builtin:NAME, a built-in NAME, a per-bin folder or a file).
package human
