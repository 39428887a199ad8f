package pgstore_test

import (
	"bytes"
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

	"github.com/jackc/pgx/v5"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// BenchmarkRecordCPU records as BenchmarkRecord does (2 writers, 64
// callers), until every result is counted in its report (the pending ones
// indexed, where the store has an indexer), and reports the CPU time each
// result cost this process (its writers and indexer) and the PostgreSQL
// server (its postmaster and every backend: NUMEN_TEST_POSTGRES must be a
// server of its own, as .ci/postgres starts), from getrusage and /proc.
// CPU time moves less than records/s when other work shares the CPUs.
// The results are NT results of one report, of three kinds.
//
//	go test -run '^$' -bench BenchmarkRecordCPU -benchtime 20000x -count 6 ./engine/store/pgstore
func BenchmarkRecordCPU(b *testing.B) {
	recordCPU(b, func(i int) engine.Record {
		return storetest.NewRecord("acct", "SYNC-API-NT-2026-11", engine.ProductNT, fmt.Sprintf("b%011d", i), storetest.Base.Add(time.Duration(i)*time.Millisecond), i)
	})
}

// BenchmarkRecordCPUVaried is BenchmarkRecordCPU with the results of
// storetest.Varied: the three products, five countries and networks, a
// new day every 39 results; a group's results are mostly each of a kind
// of its own.
func BenchmarkRecordCPUVaried(b *testing.B) {
	n := b.N
	if n%37 == 0 {
		n++ // Varied's ids are distinct when n is not a multiple of 37
	}
	rs := storetest.Varied("acct", "campaign-2026-11", n)
	recordCPU(b, func(i int) engine.Record { return rs[i-1] })
}

// recordCPU records record(1), ..., record(b.N) as BenchmarkRecordCPU
// says.
func recordCPU(b *testing.B, record func(i int) engine.Record) {
	ctx := context.Background()
	dsn := pgtest.Database(b)
	s, err := pgstore.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	postmaster := procStat(b, backend).ppid
	var next atomic.Int64
	b.SetParallelism(max(1, 64/max(1, runtime.GOMAXPROCS(0))))
	client0, server0 := selfCPU(b), serverCPU(b, postmaster)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1))
			if err := s.Record(ctx, record(i)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	// Until the results are counted: none pending (schema 7 on: in
	// counts_pending; schemas 5 and 6: reports_pending; schema 4:
	// results_pending; a store of a schema before counts them in their
	// commit).
	var table string
	if err := conn.QueryRow(ctx, `SELECT coalesce(to_regclass('counts_pending')::text, to_regclass('reports_pending')::text, to_regclass('results_pending')::text, '')`).Scan(&table); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); table != ""; time.Sleep(time.Millisecond) {
		var pending bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM `+table+`)`).Scan(&pending); err != nil {
			b.Fatal(err)
		}
		if !pending {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("results still pending after a minute")
		}
	}
	b.StopTimer()
	client, server := selfCPU(b)-client0, serverCPU(b, postmaster)-server0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(client.Microseconds())/float64(b.N), "client-µs/record")
	b.ReportMetric(float64(server.Microseconds())/float64(b.N), "server-µs/record")
}

// selfCPU is the CPU time of this process so far.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stat is what BenchmarkRecordCPU reads of /proc/PID/stat.
type stat struct {
	ppid int
	cpu  time.Duration // utime + stime
	dead time.Duration // cutime + cstime: of the children waited for
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func procStat(b *testing.B, pid int) stat {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command, which is in parentheses.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	n := func(i int) int64 { // field i of proc(5), from 1
		v, err := strconv.ParseInt(f[i-3], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
	return stat{ppid: int(n(4)), cpu: time.Duration(n(14)+n(15)) * clockTick, dead: time.Duration(n(16)+n(17)) * clockTick}
}

// serverCPU is the CPU time of the PostgreSQL server so far: its
// postmaster's, that of its children that have ended, and that of those
// running.
func serverCPU(b *testing.B, postmaster int) time.Duration {
	p := procStat(b, postmaster)
	total := p.cpu + p.dead
	entries, err := os.ReadDir("/proc")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // ended meanwhile
		}
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
		if ppid, _ := strconv.Atoi(f[1]); ppid != postmaster {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(u+s) * clockTick
	}
	return total
}
