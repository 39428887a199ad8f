package pgstore_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
				s, err := pgstore.Open(context.Background(), pgtest.Database(b), pgstore.WithWriters(writers))
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

// BenchmarkPages times what a report page reads (storetest.BenchPages) in
// a report of a million results (storetest.Skewed; NUMEN_BENCH_RESULTS
// sets another size), beside another account's report of 100,000, on the
// server of NUMEN_TEST_POSTGRES: before the table is analysed, and after
// (ANALYZE, what autovacuum does after such a load).
//
//	go test -run '^$' -bench BenchmarkPages -count 3 -timeout 30m ./engine/store/pgstore
func BenchmarkPages(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("NUMEN_BENCH_RESULTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100_000 {
			b.Fatalf("NUMEN_BENCH_RESULTS=%q: want a number of at least 100000", v)
		}
	}
	ctx := context.Background()
	url := pgtest.Database(b)
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	// Statistics only when the benchmark asks for them (below), not when
	// autovacuum gets to it.
	if _, err := conn.Exec(ctx, `ALTER TABLE results SET (autovacuum_enabled = false)`); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	batch := make([]engine.Record, 0, 5000)
	flush := func() {
		if err := s.RecordAll(ctx, batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range n {
		batch = append(batch, storetest.Skewed("acct-big", "SYNC-API-NT-2026-11", i))
		if i%10 == 0 {
			batch = append(batch, storetest.Skewed("acct-other", "SYNC-API-NT-2026-11", i/10))
		}
		if len(batch) >= 5000 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	b.Logf("%d results stored in %s", n+n/10, time.Since(start).Round(time.Second))
	// Before the table is analysed (a new table, or one that grew fast),
	// and after.
	b.Run("stats=none", func(b *testing.B) { storetest.BenchPages(b, s, "acct-big", "SYNC-API-NT-2026-11", n) })
	if _, err := conn.Exec(ctx, `ANALYZE results`); err != nil {
		b.Fatal(err)
	}
	b.Run("stats=analyzed", func(b *testing.B) { storetest.BenchPages(b, s, "acct-big", "SYNC-API-NT-2026-11", n) })
}
