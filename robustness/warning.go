package robustness

import "fmt"

// A Warning is a statistical caveat about one curve or estimate, such as
// sparse bins left out of a fit. Estimates carry them in Warnings (as
// errors); Kind lets a caller group the same caveat across many curves
// into one line.
type Warning struct {
	// Subject, Corruption and Property (accuracy, consistency, or empty for
	// the whole estimate) say which curve the caveat concerns.
	Subject, Corruption, Property string
	// Kind is the caveat without the curve, the same text for every curve
	// it concerns (e.g. "trials in bins with fewer than 20 trials left out
	// of the fit").
	Kind string
	// Count is the number the caveat counts for this curve (trials, bins,
	// replicates).
	Count int
	// Of, when positive, is the total Count is out of.
	Of int
}

// Where names the curve: "subject/corruption property".
func (w *Warning) Where() string {
	s := w.Subject + "/" + w.Corruption
	if w.Property != "" {
		s += " " + w.Property
	}
	return s
}

// Error returns "subject/corruption property: count kind".
func (w *Warning) Error() string {
	if w.Of > 0 {
		return fmt.Sprintf("%s: %d of %d %s", w.Where(), w.Count, w.Of, w.Kind)
	}
	return fmt.Sprintf("%s: %d %s", w.Where(), w.Count, w.Kind)
}
