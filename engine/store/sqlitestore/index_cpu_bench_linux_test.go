package sqlitestore

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/storetest"
)

// cpuTime returns the CPU time (user and system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeCount returns how many write system calls this process has made, and
// the bytes they wrote (/proc/self/io's syscw and wchar).
func writeCount(b *testing.B) (calls, bytes int64) {
	b.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "syscw":
			calls = n
		case "wchar":
			bytes = n
		}
	}
	return calls, bytes
}

// reportPerResult reports the CPU time and the writes per result since cpu0,
// calls0 and bytes0.
func reportPerResult(b *testing.B, cpu0 time.Duration, calls0, bytes0 int64) {
	calls, bytes := writeCount(b)
	n := float64(b.N)
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/n, "cpu-µs/result")
	b.ReportMetric(float64(calls-calls0)/n, "writes/result")
	b.ReportMetric(float64(bytes-bytes0)/1024/n, "write-KiB/result")
}

// BenchmarkIndexCPU commits results to the database as the indexer does
// (indexer.commit), in batches of 256, 1024 and 4096 (what the index
// delay gathers at about 5,000 and 20,000 results/s, and a burst), of a
// large NT report as uneven as a real one (storetest.Skewed) and of the
// three products in 12 reports (storetest.NewRecord). It reports the CPU
// time of the process per result, the indexer's cost to every lookup,
// which moves less than wall time when other work shares the CPUs; and
// the write system calls and bytes per result (the WAL's frames and the
// checkpoints'), which do not depend on the load at all.
//
//	go test -run '^$' -bench BenchmarkIndexCPU -benchtime 40000x -count 6 ./engine/store/sqlitestore
func BenchmarkIndexCPU(b *testing.B) {
	for _, kind := range []string{"skewed", "mixed"} {
		for _, batch := range []int{256, 1024, indexBatch} {
			b.Run(fmt.Sprintf("results=%s/batch=%d", kind, batch), func(b *testing.B) {
				benchmarkIndexCPU(b, kind, batch)
			})
		}
	}
}

func benchmarkIndexCPU(b *testing.B, kind string, batch int) {
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	items := make([]logged, b.N)
	for i := range items {
		var r engine.Record
		if kind == "skewed" {
			r = storetest.Skewed("acct-big", "SYNC-API-NT-2026-11", i)
		} else {
			p := store.Products()[i%3]
			name := fmt.Sprintf("SYNC-API-%s-2026-%02d", p, 8+i/3%4)
			r = storetest.NewRecord(fmt.Sprintf("acct-%d", i%2), name, p, fmt.Sprintf("f%011d", i), storetest.Base.Add(time.Duration(i)*time.Second), i)
		}
		e, err := store.EntryOf(r)
		if err != nil {
			b.Fatal(err)
		}
		items[i] = logged{entry: e, segment: 1, end: int64(i)}
	}
	runtime.GC()
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	calls0, bytes0 := writeCount(b)
	b.ResetTimer()
	for start := 0; start < len(items); start += batch {
		if err := s.idx.commit(items[start:min(start+batch, len(items))]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportPerResult(b, cpu0, calls0, bytes0)
}

// BenchmarkRecordCPU records from 64 goroutines, as BenchmarkRecord does
// with the default group-commit delay, until every result is in the
// database (the indexer caught up), and reports the CPU time and the
// writes of the process per result (the writer's, the results log's and
// the indexer's) and the mean results per transaction of the indexer,
// with the default index delay and a longer one.
//
//	go test -run '^$' -bench BenchmarkRecordCPU -benchtime 40000x -count 6 ./engine/store/sqlitestore
func BenchmarkRecordCPU(b *testing.B) {
	for _, delay := range []time.Duration{DefaultIndexDelay, 200 * time.Millisecond} {
		b.Run(fmt.Sprintf("index-delay=%v", delay), func(b *testing.B) {
			benchmarkRecordCPU(b, delay)
		})
	}
}

func benchmarkRecordCPU(b *testing.B, delay time.Duration) {
	ctx := context.Background()
	var commits, rows atomic.Int64
	s, err := Open(ctx, b.TempDir(), WithIndexDelay(delay), WithBeforeCommit(func(ids []string) error {
		commits.Add(1)
		rows.Add(int64(len(ids)))
		return nil
	}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	records := make([]engine.Record, b.N)
	for i := range records {
		records[i] = storetest.Skewed("acct-big", "SYNC-API-NT-2026-11", i)
	}
	var next atomic.Int64
	runtime.GC()
	b.ReportAllocs()
	b.SetParallelism(max(1, 64/max(1, runtime.GOMAXPROCS(0))))
	cpu0 := cpuTime(b)
	calls0, bytes0 := writeCount(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Record(ctx, records[next.Add(1)-1]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if err := s.idx.caughtUp(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportPerResult(b, cpu0, calls0, bytes0)
	if n := commits.Load(); n > 0 {
		b.ReportMetric(float64(rows.Load())/float64(n), "results/index-tx")
	}
}
