package pgstore_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// BenchmarkRecord measures Record end to end on PostgreSQL (each call
// returns once its result is committed), from many goroutines at once, with
// 1, 2 or 4 writer goroutines committing the groups. It needs the server
// of NUMEN_TEST_POSTGRES, on the same machine (which shares its CPUs).
//
//	go test -run '^$' -bench BenchmarkRecord -benchtime 3s -count 5 ./engine/store/pgstore
func BenchmarkRecord(b *testing.B) {
	for _, writers := range []int{1, 2, 4} {
		for _, callers := range []int{16, 64} {
			b.Run(fmt.Sprintf("writers=%d/callers=%d", writers, callers), func(b *testing.B) {
				s, err := pgstore.Open(context.Background(), pgtest.Database(b), pgstore.Options{Writers: writers})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				var next atomic.Int64
				ctx := context.Background()
				b.SetParallelism(max(1, callers/max(1, runtime.GOMAXPROCS(0))))
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := int(next.Add(1))
						r := storetest.NewRecord("acct", "SYNC-API-NT-2026-11", engine.ProductNT, fmt.Sprintf("b%011d", i), storetest.Base.Add(time.Duration(i)*time.Millisecond), i)
						if err := s.Record(ctx, r); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}
