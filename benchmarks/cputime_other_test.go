//go:build !linux

package benchmarks

import "testing"

// cpuClock reports nothing where the thread's CPU time is not measured.
type cpuClock struct{}

func startCPUClock() cpuClock        { return cpuClock{} }
func (cpuClock) report(b *testing.B) {}
