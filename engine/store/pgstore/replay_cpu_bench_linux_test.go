package pgstore_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
)

// BenchmarkClaimCPU claims digest signatures (ReplayGuard), each new, from
// 64 callers at once, as a sidecar's signed POSTs do, and reports the CPU
// time each claim cost this process and the PostgreSQL server (as
// BenchmarkRecordCPU counts them; NUMEN_TEST_POSTGRES must be a server of
// its own).
//
//	go test -run '^$' -bench BenchmarkClaimCPU -benchtime 20000x -count 6 ./engine/store/pgstore
func BenchmarkClaimCPU(b *testing.B) {
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
	guard := s.ReplayGuard(30 * time.Second)
	now := time.Now()
	var next atomic.Int64
	b.SetParallelism(max(1, 64/max(1, runtime.GOMAXPROCS(0))))
	client0, server0 := selfCPU(b), serverCPU(b, postmaster)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			var sig [32]byte
			copy(sig[:], strconv.FormatInt(i, 10))
			if err := guard.ClaimSignature(ctx, "bench-key", now.Unix(), sig, now); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	client, server := selfCPU(b)-client0, serverCPU(b, postmaster)-server0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
	b.ReportMetric(float64(client.Microseconds())/float64(b.N), "client-µs/claim")
	b.ReportMetric(float64(server.Microseconds())/float64(b.N), "server-µs/claim")
}
