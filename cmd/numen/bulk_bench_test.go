package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/numenhq/numen/engine/webhook"
	"github.com/numenhq/numen/mnp/remote"
)

// BenchmarkBulkNTDelivery measures issue 7's target: 100 submissions of
// 1000 NT numbers each to a numen serve process (this test binary run as
// numen), results delivered to a loopback receiver that verifies every
// signature; the time from the first submission to the last acknowledged
// callback. Run it with
//
//	go test -run '^$' -bench BulkNTDelivery -benchtime 1x -count 5 ./cmd/numen
//
// With NUMEN_TEST_PROFILE=DIR, the numen serve process writes a CPU
// profile (cpu-PID.pprof) and a block profile (block-PID.pprof) of its first
// NUMEN_TEST_PROFILE_SECONDS (default 5) seconds to DIR (see profileChild).
func BenchmarkBulkNTDelivery(b *testing.B) {
	const key, secret = "bench", "bench-secret-0123456789"
	const total = 100_000
	var (
		mu      sync.Mutex
		results int           // results delivered in this run
		all     chan struct{} // closed when results reaches total
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := webhook.Verify(r, key, []string{secret}, 0)
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var batch struct{ Results []json.RawMessage }
		if json.Unmarshal(body, &batch) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		if results += len(batch.Results); results >= total && all != nil {
			close(all)
			all = nil
		}
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()
	for range b.N {
		b.StopTimer()
		mu.Lock()
		results, all = 0, make(chan struct{})
		delivered := all
		mu.Unlock()
		dir := b.TempDir()
		config := filepath.Join(dir, "numen.json")
		simnet := func() []backendConfig { return []backendConfig{{Type: "simnet"}} }
		raw, err := json.Marshal(serveConfig{
			Addr: "127.0.0.1:0", Data: filepath.Join(dir, "data"),
			Routes:   []routeConfig{{Route: "DS7", Backends: simnet()}, {Route: "GT1", Backends: simnet()}, {Route: "GT2", Backends: simnet()}, {Route: "MP1", Backends: simnet()}},
			Bulk:     &bulkConfig{PollInterval: duration(50 * time.Millisecond)},
			Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, WebhookURLs: []string{receiver.URL + "/hook"}}},
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(config, raw, 0o600); err != nil {
			b.Fatal(err)
		}
		srv := startChild(b, config)
		client, err := remote.New(srv.base, key, secret)
		if err != nil {
			b.Fatal(err)
		}
		bodies := make([][]string, 100)
		for i := range bodies {
			bodies[i] = make([]string, 1000)
			for j := range bodies[i] {
				bodies[i][j] = fmt.Sprintf("+4915%d%07d", 1+i%9, i*1000+j)
			}
		}
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, len(bodies))
		for _, numbers := range bodies { // all 100 at once
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := client.NTLookups(b.Context(), numbers, nil); err != nil {
					errs <- err
				}
			}()
			if len(errs) > 0 {
				break
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		submitted := time.Since(start)
		select {
		case <-delivered:
		case <-time.After(time.Until(start.Add(120 * time.Second))):
			mu.Lock()
			n := results
			mu.Unlock()
			b.Fatalf("%d of %d results delivered after 120 s", n, total)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(elapsed.Seconds(), "s-to-last-ack")
		b.ReportMetric(submitted.Seconds(), "s-to-submit")
		b.ReportMetric(total/elapsed.Seconds(), "results/s")
		srv.kill9(b)
		// The server's CPU time, start-up included: on a loaded machine the
		// wall time measures the other programs too.
		if ru, ok := srv.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			b.ReportMetric(cpu.Seconds(), "server-cpu-s")
		}
	}
}

// profileChild starts, in a numen process run by a test (TestMain), the CPU
// and block profiles that NUMEN_TEST_PROFILE=DIR asks for, and writes them
// after NUMEN_TEST_PROFILE_SECONDS (default 5): the benchmarks kill the
// process with SIGKILL, so they cannot be written at exit.
func profileChild() {
	dir := os.Getenv("NUMEN_TEST_PROFILE")
	if dir == "" {
		return
	}
	name := func(kind string) string { return filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", kind, os.Getpid())) }
	cpu, err := os.Create(name("cpu"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	runtime.SetBlockProfileRate(int(10 * time.Microsecond))
	seconds, err := strconv.Atoi(os.Getenv("NUMEN_TEST_PROFILE_SECONDS"))
	if err != nil || seconds <= 0 {
		seconds = 5
	}
	time.AfterFunc(time.Duration(seconds)*time.Second, func() {
		pprof.StopCPUProfile()
		cpu.Close()
		if f, err := os.Create(name("block")); err == nil {
			_ = pprof.Lookup("block").WriteTo(f, 0)
			f.Close()
		}
	})
}
