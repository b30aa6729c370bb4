package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestNowCounts burns CPU and checks that the CPU time read before and
// after grows by at least part of the wall time spent (a process spinning
// on one core is charged about that much).
func TestNowCounts(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no getrusage here")
	}
	s := Now()
	if !s.ok {
		t.Fatal("CPU time unreadable on a unix system")
	}
	w0 := time.Now()
	x := 0.0
	for time.Since(w0) < 50*time.Millisecond {
		for i := range 1000 {
			x += float64(i)
		}
	}
	e, _ := now()
	if d := e - s.t; d < 10*time.Millisecond {
		t.Errorf("50 ms of spinning counted %v of CPU time (x=%v)", d, x)
	}
}

// TestReportUnits checks the metric names and that other units panic.
func TestReportUnits(t *testing.T) {
	r := testing.Benchmark(func(b *testing.B) {
		s := Now()
		for b.Loop() {
		}
		s.Report(b, time.Nanosecond)
		s.Report(b, time.Millisecond)
	})
	for _, m := range []string{"cpu-ns/op", "cpu-ms/op"} {
		if _, ok := r.Extra[m]; !ok {
			t.Errorf("metric %s missing: %v", m, r.Extra)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("unit time.Second did not panic")
		}
	}()
	Start{}.Report(&testing.B{}, time.Second)
}
