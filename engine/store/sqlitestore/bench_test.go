package sqlitestore_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// BenchmarkRecord measures Record end to end, each call returning once its
// result is flushed to the results log: sequentially (writers=1, the
// latency of one lookup's Record), and from many goroutines at once (the
// throughput group commit gives), without the group-commit delay and with
// the default one. The indexer runs meanwhile, as in the sidecar. It
// reports records/s and the mean number of results per transaction of the
// indexer.
//
// The sub-benchmarks log=none commit each group straight to the database
// instead (WithoutLog): the same groups, the same transactions, and a WAL
// flush per group in place of the log's: what the results log earns.
//
//	go test -run '^$' -bench BenchmarkRecord -benchtime 5s -count 6 ./engine/store/sqlitestore
func BenchmarkRecord(b *testing.B) {
	for _, delay := range []time.Duration{0, sqlitestore.DefaultMaxDelay} {
		for _, writers := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("delay=%v/writers=%d", delay, writers), func(b *testing.B) {
				benchmarkRecord(b, delay, writers, false)
			})
		}
	}
	for _, writers := range []int{16, 64} {
		b.Run(fmt.Sprintf("log=none/delay=%v/writers=%d", sqlitestore.DefaultMaxDelay, writers), func(b *testing.B) {
			benchmarkRecord(b, sqlitestore.DefaultMaxDelay, writers, true)
		})
	}
}

func benchmarkRecord(b *testing.B, delay time.Duration, writers int, withoutLog bool) {
	var commits, rows atomic.Int64
	opts := []sqlitestore.Option{
		sqlitestore.WithGroupCommit(sqlitestore.DefaultMaxBatch, delay),
		sqlitestore.WithBeforeCommit(func(ids []string) error {
			commits.Add(1)
			rows.Add(int64(len(ids)))
			return nil
		}),
	}
	if withoutLog {
		opts = append(opts, sqlitestore.WithoutLog())
	}
	s, err := sqlitestore.Open(context.Background(), b.TempDir(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var next atomic.Int64
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	if writers == 1 {
		for b.Loop() {
			i := int(next.Add(1))
			if err := s.Record(ctx, record(fmt.Sprintf("b%011d", i), i)); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		// RunParallel starts parallelism × GOMAXPROCS goroutines.
		b.SetParallelism(max(1, writers/max(1, runtime.GOMAXPROCS(0))))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := int(next.Add(1))
				if err := s.Record(ctx, record(fmt.Sprintf("b%011d", i), i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	if n := commits.Load(); n > 0 {
		b.ReportMetric(float64(rows.Load())/float64(n), "results/index-tx")
	}
}
