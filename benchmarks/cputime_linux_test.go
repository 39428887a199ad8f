//go:build linux

package benchmarks

import (
	"runtime"
	"syscall"
	"testing"
)

// cpuClock measures the CPU time of the benchmark loop's thread, which a
// machine shared with other work does not inflate as it does wall-clock
// time (a loaded machine deschedules the loop; it does not make it run
// longer on the CPU). start locks the goroutine to its thread.
type cpuClock struct{ start int64 }

func startCPUClock() cpuClock {
	runtime.LockOSThread()
	return cpuClock{threadCPU()}
}

// report adds cpu-ns/op to b's results and unlocks the thread.
func (c cpuClock) report(b *testing.B) {
	spent := threadCPU() - c.start
	runtime.UnlockOSThread()
	if b.N > 0 && spent > 0 {
		b.ReportMetric(float64(spent)/float64(b.N), "cpu-ns/op")
	}
}

func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
