// Package cputime measures the CPU time of the process, so that benchmarks
// on a machine whose cores other work shares can report CPU time per
// operation next to wall time (which counts the time others held the
// cores).
package cputime

import (
	"testing"
	"time"
)

// Start is the process's CPU time (user + system) when a measurement
// began; ok is false where it cannot be read.
type Start struct {
	t  time.Duration
	ok bool
}

// Now reads the process's CPU time.
func Now() Start {
	t, ok := now()
	return Start{t, ok}
}

// Report adds to b the CPU time since s per operation, in the given unit:
// the metric "cpu-ns/op" for time.Nanosecond, "cpu-ms/op" for
// time.Millisecond (any other unit panics). Nothing is reported where
// CPU time cannot be read or b ran no operation.
func (s Start) Report(b *testing.B, unit time.Duration) {
	var name string
	switch unit {
	case time.Nanosecond:
		name = "cpu-ns/op"
	case time.Millisecond:
		name = "cpu-ms/op"
	default:
		panic("cputime: Report's unit must be time.Nanosecond or time.Millisecond")
	}
	t, ok := now()
	if !s.ok || !ok || b.N == 0 {
		return
	}
	b.ReportMetric(float64(t-s.t)/float64(unit)/float64(b.N), name)
}
