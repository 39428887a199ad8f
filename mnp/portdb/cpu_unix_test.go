//go:build unix

package portdb

import (
	"syscall"
	"testing"
)

// cpuClock measures the CPU time of the process over a benchmark, which
// a shared machine's other load does not add to as it adds to the wall
// time (a benchmark of lookups neither allocates nor runs other
// goroutines, so the process's time is the loop's).
type cpuClock struct{ start int64 }

func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func startCPU() cpuClock { return cpuClock{processCPU()} }

// report adds the CPU time per operation, "cpu-ns/op".
func (c cpuClock) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
	}
}
