// Command stall measures what stalled request bodies cost numen serve
// (benchmarks/README.md, "Stalled bodies"): it starts the numen binary it
// is given on a free loopback port with the benchmark configuration
// (../numen-bench.json, its address and data directory replaced), opens
// -stalls connections that announce a 1 MiB body to POST
// /api/v2/nt-lookup and send one byte of it (half without credentials,
// half with the benchmark's API key and a digest that cannot match: a
// client that knows a key but not its secret), keeps ordinary lookups
// going meanwhile (HTTP Basic: the server accepts a digest signature once),
// and prints the server's resident memory (VmRSS, sampled every 100 ms)
// before, at its peak while the connections
// are open, and after they are closed, with how many ordinary lookups were
// answered 200. -send makes each connection send more of its body.
//
//	go build -o /tmp/numen ./cmd/numen
//	go run ./benchmarks/http/stall -numen /tmp/numen -stalls 3000
//
// It stops the server it started, by its PID.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine/auth"
)

const (
	key    = "bench-key"               // ../numen-bench.json
	secret = "bench-secret-0123456789" // ../numen-bench.json
	body   = `{"number":"+44 20 7946 0000"}`
)

func main() {
	numen := flag.String("numen", "", "the numen binary to measure (required)")
	stalls := flag.Int("stalls", 3000, "stalled connections to open (at most 20000)")
	hold := flag.Duration("hold", 15*time.Second, "how long the stalled connections stay open")
	after := flag.Duration("after", 10*time.Second, "how long to watch memory after they close")
	send := flag.Int("send", 1, "bytes of the 1 MiB body each stalled connection sends (1..1048575)")
	flag.Parse()
	if *numen == "" || *stalls < 2 || *stalls > 20000 || *send < 1 || *send >= 1<<20 {
		fmt.Fprintln(os.Stderr, "usage: stall -numen BINARY [-stalls N (2..20000)] [-send BYTES (1..1048575)] [-hold D] [-after D]")
		os.Exit(2)
	}
	if err := run(*numen, *stalls, *send, *hold, *after); err != nil {
		fmt.Fprintln(os.Stderr, "stall:", err)
		os.Exit(1)
	}
}

func run(numen string, stalls, send int, hold, after time.Duration) error {
	dir, err := os.MkdirTemp("", "numen-stall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	cfgPath, err := writeConfig(dir, addr)
	if err != nil {
		return err
	}
	srv := exec.Command(numen, "serve", "--config", cfgPath)
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	}()
	if err := waitHealthy(addr, 30*time.Second); err != nil {
		return err
	}
	pid := srv.Process.Pid
	baseline, _, err := memory(pid)
	if err != nil {
		return err
	}

	// Ordinary lookups, on two connections, all along.
	var ok, failed atomic.Int64
	var latencies []time.Duration
	var latMu sync.Mutex
	stop := make(chan struct{})
	var load sync.WaitGroup
	for range 2 {
		load.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second}
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				status, err := lookup(client, addr)
				d := time.Since(start)
				if err == nil && status == http.StatusOK {
					ok.Add(1)
					latMu.Lock()
					latencies = append(latencies, d)
					latMu.Unlock()
				} else {
					failed.Add(1)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}

	var peak, peakVirtual atomic.Int64
	peak.Store(baseline)
	sampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-sampling:
				return
			case <-t.C:
				if r, v, err := memory(pid); err == nil {
					if r > peak.Load() {
						peak.Store(r)
					}
					if v > peakVirtual.Load() {
						peakVirtual.Store(v)
					}
				}
			}
		}
	})

	conns := make([]net.Conn, 0, stalls)
	statuses := map[string]int{}
	var stMu sync.Mutex
	var readers sync.WaitGroup
	padding := strings.Repeat(" ", send-1)
	opened := time.Now()
	for i := range stalls {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
		creds := ""
		if i%2 == 1 {
			// A known key, a fresh timestamp, a well-formed signature that
			// cannot match: everything the server can check before the body.
			creds = fmt.Sprintf("%s: %s\r\n%s: %d\r\n%s: %s\r\n", auth.HeaderDigestKey, key,
				auth.HeaderDigestTimestamp, time.Now().Unix(), auth.HeaderDigestSignature, strings.Repeat("0", 64))
		}
		if _, err := fmt.Fprintf(c, "POST /api/v2/nt-lookup HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 1048576\r\n\r\n{%s", addr, creds, padding); err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		readers.Go(func() {
			status := "no answer"
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				status = strconv.Itoa(resp.StatusCode)
				resp.Body.Close()
			}
			stMu.Lock()
			statuses[status]++
			stMu.Unlock()
		})
	}
	openTook := time.Since(opened)
	time.Sleep(hold)
	held := peak.Load()
	for _, c := range conns {
		c.Close()
	}
	readers.Wait()
	time.Sleep(after)
	close(sampling)
	sampler.Wait()
	close(stop)
	load.Wait()
	afterRSS, afterVirtual, err := memory(pid)
	if err != nil {
		return err
	}

	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(p*float64(len(latencies)-1))]
	}
	var answers []string
	for s, n := range statuses {
		answers = append(answers, fmt.Sprintf("%s: %d", s, n))
	}
	sort.Strings(answers)
	fmt.Printf("numen %s, %d stalled connections sending %d bytes of 1 MiB (opened in %v, held %v)\n", numen, stalls, send, openTook.Round(time.Millisecond), hold)
	fmt.Printf("  stalled requests answered    %s\n", strings.Join(answers, ", "))
	fmt.Printf("  RSS before                   %6.1f MB\n", mb(baseline))
	fmt.Printf("  RSS peak, connections open   %6.1f MB\n", mb(held))
	fmt.Printf("  RSS %v after they closed    %6.1f MB\n", after, mb(afterRSS))
	fmt.Printf("  virtual memory peak, after   %6.1f MB, %.1f MB\n", mb(peakVirtual.Load()), mb(afterVirtual))
	fmt.Printf("  ordinary lookups             %d answered 200, %d not; p50 %v, p99 %v\n",
		ok.Load(), failed.Load(), pct(0.5).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond))
	return nil
}

func mb(b int64) float64 { return float64(b) / 1e6 }

// memory returns the resident (VmRSS) and virtual (VmSize) memory of a
// process, in bytes. Buffers a server allocates but has not written yet
// are virtual only, until it writes them.
func memory(pid int) (rss, virtual int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	field := func(name string) (int64, error) {
		for line := range strings.SplitSeq(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, name+":"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				return kb * 1024, err
			}
		}
		return 0, fmt.Errorf("no %s in /proc/%d/status", name, pid)
	}
	if rss, err = field("VmRSS"); err != nil {
		return 0, 0, err
	}
	virtual, err = field("VmSize")
	return rss, virtual, err
}

func lookup(client *http.Client, addr string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v2/nt-lookup", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	// HTTP Basic, not a digest: the server accepts a digest signature
	// once, and these lookups repeat one body many times a second.
	req.SetBasicAuth(key, secret)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// writeConfig writes ../numen-bench.json with the address and a data
// directory under dir.
func writeConfig(dir, addr string) (string, error) {
	_, self, err := sourceDir()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(self, "..", "numen-bench.json"))
	if err != nil {
		return "", err
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return "", err
	}
	cfg["addr"], cfg["data"] = addr, filepath.Join(dir, "data")
	out, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "numen.json")
	return path, os.WriteFile(path, out, 0o600)
}

// sourceDir finds this program's folder from the working directory: the
// repository root or the folder itself.
func sourceDir() (string, string, error) {
	for _, d := range []string{"benchmarks/http/stall", "."} {
		if _, err := os.Stat(filepath.Join(d, "..", "numen-bench.json")); err == nil {
			abs, err := filepath.Abs(d)
			return d, abs, err
		}
	}
	return "", "", errors.New("run it from the repository root (benchmarks/http/numen-bench.json not found)")
}

func waitHealthy(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			if !bytes.Contains(b, []byte("unhealthy")) {
				return fmt.Errorf("/healthz: %d %s", resp.StatusCode, b)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("numen serve did not become healthy on %s within %v", addr, limit)
}
