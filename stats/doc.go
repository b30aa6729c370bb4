// Package stats holds the small statistical helpers several packages
// share, each in one place: exact binomial tests (R's binom.test, two-sided
// and one-sided "greater") and the type-7 sample quantile (R's default,
// numpy's "linear"). Numeric only: no I/O.
package stats
