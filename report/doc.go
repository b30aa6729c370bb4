// Package report turns the estimates of package robustness into the outputs of
// 'vcr analyze': a machine-readable summary (JSON), CSV tables of the
// summary, the fitted curves with their bands and the per-bin data, a
// terminal table, and plots (package plot): performance curves of models
// and humans on one axis with 83% and 95% bands (the VCR study's Figs. 6–7
// c, f), HMRI and MRSI bar charts sorted by value with bootstrap intervals
// (Figs. 6–7 a, b, d, e) and Δv coverage histograms; and the
// self-contained HTML report of 'vcr report' (WriteHTML), which joins any
// number of analyses into one leaderboard and one chart per corruption
// and measure. It computes no statistics of its own.
package report
