package httpapi

import (
	"testing"
	"time"
)

// BenchmarkObserveRequest: counting one request, from every CPU at once
// (the request path's share of the metrics).
func BenchmarkObserveRequest(b *testing.B) {
	m := NewMetrics()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.observeRequest("/nt-lookup", 200, 3*time.Millisecond)
		}
	})
}
