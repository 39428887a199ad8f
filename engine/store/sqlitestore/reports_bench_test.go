package sqlitestore

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/storetest"
)

// fill appends n results of account "acct-1" to 12 reports (four months
// of the three products), 1000 per transaction.
func fill(b *testing.B, s *Store, n int) {
	b.Helper()
	x := newFeeder(b, s, 1000)
	for i := range n {
		p := store.Products()[i%3]
		name := fmt.Sprintf("SYNC-API-%s-2026-%02d", p, 8+i/3%4)
		x.add(storetest.NewRecord("acct-1", name, p, fmt.Sprintf("f%011d", i), storetest.Base.Add(time.Duration(i)*time.Millisecond), i))
	}
	x.flush()
}

// feeder feeds records to the store's indexer straight, n at a time
// (what the results log's reader does), for benchmarks that fill a store.
type feeder struct {
	b     *testing.B
	s     *Store
	batch []logged
}

func newFeeder(b *testing.B, s *Store, n int) *feeder {
	return &feeder{b: b, s: s, batch: make([]logged, 0, n)}
}

func (x *feeder) add(r engine.Record) {
	e, err := store.EntryOf(r)
	if err != nil {
		x.b.Fatal(err)
	}
	x.batch = append(x.batch, logged{entry: e})
	if len(x.batch) == cap(x.batch) {
		x.flush()
	}
}

func (x *feeder) flush() {
	if len(x.batch) == 0 {
		return
	}
	if err := x.s.idx.commit(x.batch); err != nil {
		x.b.Fatal(err)
	}
	x.batch = x.batch[:0]
}

// BenchmarkReports compares listing an account's reports from the reports
// table, which the writer keeps up to date (what Reports does), with
// aggregating the results themselves (GROUP BY), the alternative it
// replaces.
//
//	go test -run '^$' -bench BenchmarkReports -count 6 ./engine/store/sqlitestore
func BenchmarkReports(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("results=%d", n), func(b *testing.B) {
			s, err := Open(context.Background(), b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			fill(b, s, n)
			ctx := context.Background()
			b.Run("impl=table", func(b *testing.B) {
				for b.Loop() {
					reports, err := s.Reports(ctx, "acct-1")
					if err != nil || len(reports) != 12 {
						b.Fatal(len(reports), err)
					}
				}
			})
			b.Run("impl=groupby", func(b *testing.B) {
				for b.Loop() {
					rows, err := s.rdb.QueryContext(ctx, `
SELECT storage, product, count(*), sum(cost), min(created_ms), max(created_ms)
FROM results WHERE account = ? GROUP BY storage, product`, "acct-1")
					if err != nil {
						b.Fatal(err)
					}
					k := 0
					for rows.Next() {
						var name, product string
						var count, cost, first, last int64
						if err := rows.Scan(&name, &product, &count, &cost, &first, &last); err != nil {
							b.Fatal(err)
						}
						k++
					}
					if err := rows.Close(); err != nil || k != 12 {
						b.Fatal(k, err)
					}
				}
			})
		})
	}
}

// BenchmarkExport streams a report of 10,000 results to io.Discard; B/op
// divided by the results shows the memory per result, which does not
// accumulate.
//
//	go test -run '^$' -bench BenchmarkExport -count 6 ./engine/store/sqlitestore
func BenchmarkExport(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// The report of 10,000 HLR results sits among 30,000 other results.
	fill(b, s, 30_000)
	x := newFeeder(b, s, 1000)
	for i := range 10_000 {
		x.add(storetest.NewRecord("acct-1", "big-2026-11", store.Products()[0], fmt.Sprintf("big%09d", i), storetest.Base.Add(time.Duration(i)*time.Millisecond), i))
	}
	x.flush()
	ctx := context.Background()
	for _, f := range []store.Format{store.CSV, store.JSON} {
		b.Run("format="+string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Export(ctx, "acct-1", "big-2026-11", &store.Query{}, f, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*10_000/b.Elapsed().Seconds(), "results/s")
		})
	}
}

// pagesResults is the size of BenchmarkPages' report:
// NUMEN_BENCH_RESULTS, 1,000,000 unless set.
func pagesResults(b *testing.B) int {
	n := 1_000_000
	if v := os.Getenv("NUMEN_BENCH_RESULTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100_000 {
			b.Fatalf("NUMEN_BENCH_RESULTS=%q: want a number of at least 100000", v)
		}
	}
	return n
}

// BenchmarkPages times what a report page reads (storetest.BenchPages) in
// a report of a million results (storetest.Skewed), beside another
// account's report of 100,000: the first page of each filter, a deep
// page, and the summary.
//
//	go test -run '^$' -bench BenchmarkPages -count 3 -timeout 30m ./engine/store/sqlitestore
func BenchmarkPages(b *testing.B) {
	n := pagesResults(b)
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	x := newFeeder(b, s, 5000)
	for i := range n {
		x.add(storetest.Skewed("acct-big", "SYNC-API-NT-2026-11", i))
		if i%10 == 0 {
			x.add(storetest.Skewed("acct-other", "SYNC-API-NT-2026-11", i/10))
		}
	}
	x.flush()
	b.Logf("%d results stored in %s", n+n/10, time.Since(start).Round(time.Second))
	storetest.BenchPages(b, s, "acct-big", "SYNC-API-NT-2026-11", n)
}
