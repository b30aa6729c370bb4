//go:build unix

package testset

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user + system CPU time: benchmarks report
// it per op ("cpu-ns/op") next to wall time, which on a shared machine
// counts the time other processes held the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since start per op of b.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
