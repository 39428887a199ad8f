//go:build unix

package main

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/mnp/remote"
)

// BenchmarkPortDBHotSwap: 32 clients look numbers up through the API of a
// numen serve (in this process, on loopback) answering from a large
// portability database, and 8 more through its ENUM server (UDP), while the database is replaced by rename ten
// times, every other time with a delta of 100,000 numbers on top, each
// taken at SIGHUP. Every request must be answered, and every answer must
// come from the old or the new data: file A ports every number to 26201,
// file B to 26202, their deltas a tenth of the queried numbers to 26203.
// It reports the 99th percentile of API requests started within a second
// of a swap and of the others, and the counts (enum-*: the ENUM
// queries'). Run it once:
//
//	NUMEN_SWAP_ENTRIES=10000000 go test ./cmd/numen -run '^$' -bench PortDBHotSwap -benchtime 1x
//
// NUMEN_SWAP_ENTRIES sets the database's entries (default 1,000,000).
func BenchmarkPortDBHotSwap(b *testing.B) {
	entries := 1_000_000
	if s := os.Getenv("NUMEN_SWAP_ENTRIES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1_000_000 {
			b.Fatalf("NUMEN_SWAP_ENTRIES=%q: want a number of at least 1000000", s)
		}
		entries = n
	}
	const (
		clients     = 32
		enumClients = 8
		swaps       = 10
		spacing     = 3 * time.Second // between swaps
		window      = time.Second     // after a swap, "during the swap"
		deltaN      = 100_000
	)
	dir := b.TempDir()
	plan, err := sharedPlan()
	if err != nil {
		b.Fatal(err)
	}
	// Numbers 4915100000000 + 2i: +49151 mobile numbers of 13 digits.
	number := func(i int) uint64 { return 4915100000000 + 2*uint64(i) }
	build := func(path, mccmnc string) uint64 {
		bl, err := portdb.NewBuilder(portdb.BuildOptions{Plan: plan, Regions: []string{"DE"}, Source: "hot swap " + mccmnc, Name: path})
		if err != nil {
			b.Fatal(err)
		}
		var buf []byte
		for i := range entries {
			buf = strconv.AppendUint(buf[:0], number(i), 10)
			if err := bl.Add(string(buf), mccmnc, ""); err != nil {
				b.Fatal(err)
			}
		}
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bl.WriteTo(f); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		db, err := portdb.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		return db.Identity()
	}
	t0 := time.Now()
	a, bb := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	ids := map[string]uint64{a: build(a, "26201"), bb: build(bb, "26202")}
	// The deltas: every tenth of the first deltaN*10 numbers to 26203.
	delta := func(base string) []byte {
		d := portdb.NewDelta(ids[base], time.Now())
		for i := 0; i < deltaN; i++ {
			if err := d.Add(strconv.FormatUint(number(10*i), 10), "26203", "Delta Mobile", time.Now()); err != nil {
				b.Fatal(err)
			}
		}
		var sb strings.Builder
		if _, err := d.WriteTo(&sb); err != nil {
			b.Fatal(err)
		}
		return []byte(sb.String())
	}
	deltas := map[string][]byte{a: delta(a), bb: delta(bb)}
	b.Logf("%d entries, files of %d bytes and deltas of %d numbers made in %v", entries, fileSize(b, a), deltaN, time.Since(t0).Round(time.Millisecond))

	live := filepath.Join(dir, "ported.db")
	deltaDir := filepath.Join(dir, "deltas")
	if err := os.Mkdir(deltaDir, 0o755); err != nil {
		b.Fatal(err)
	}
	copyTo := func(from, to string) {
		raw, err := os.ReadFile(from)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(to+".tmp", raw, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(to+".tmp", to); err != nil {
			b.Fatal(err)
		}
	}
	copyTo(a, live)

	const secret = "hot-swap-secret-0123456789"
	cfg := &serveConfig{
		Addr: "127.0.0.1:0", Data: b.TempDir(),
		Routes: []routeConfig{
			{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: live, Deltas: deltaDir, Reload: duration(time.Hour)}}},
			{Route: "DS7", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT2", Backends: []backendConfig{{Type: "simnet"}}},
		},
		Enum: &enumConfig{Listen: "127.0.0.1:0"}, // answers from the route's database
	}
	// An account per client: each key's signed requests are remembered
	// against replays, up to 100,000 a window.
	for w := range clients {
		cfg.Accounts = append(cfg.Accounts, accountConfig{Key: "acct" + strconv.Itoa(w), Secrets: []string{secret}})
	}
	logs := &portdbLines{}
	stdout := &syncBuffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: stdout, stderr: io.Discard, loadPlan: sharedPlan}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- c.runServer(ctx, cfg, false, slog.New(slog.NewTextHandler(logs, nil)), ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		b.Fatalf("server did not start: %v", err)
	}
	m := enumLine.FindStringSubmatch(stdout.String())
	if m == nil {
		b.Fatalf("no ENUM address in %q", stdout.String())
	}
	enumAddr := m[1]

	type sample struct {
		start time.Time
		took  time.Duration
	}
	var (
		mu       sync.Mutex
		samples  []sample
		failed   atomic.Int64
		wrong    atomic.Int64
		answered atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	var enumAnswered, enumFailed, enumWrong atomic.Int64
	var enumSamples []sample
	for w := range enumClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 53))
			dc := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
			var mine []sample
			name := make([]byte, 0, 64)
			for !stop.Load() {
				i := rnd.IntN(deltaN * 10)
				digits := strconv.FormatUint(number(i), 10)
				name = name[:0]
				for k := len(digits) - 1; k >= 0; k-- {
					name = append(name, digits[k], '.')
				}
				name = append(name, "e164.arpa."...)
				q := new(dns.Msg)
				q.SetQuestion(string(name), dns.TypeNAPTR)
				start := time.Now()
				r, _, err := dc.Exchange(q, enumAddr)
				took := time.Since(start)
				if err != nil || r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
					if enumFailed.Add(1) == 1 {
						b.Logf("first ENUM failure: %v %v", err, r)
					}
					continue
				}
				enumAnswered.Add(1)
				re := r.Answer[0].(*dns.NAPTR).Regexp
				switch {
				case strings.Contains(re, ";mnc=01!") || strings.Contains(re, ";mnc=02!"):
				case strings.Contains(re, ";mnc=03!") && i%10 == 0:
				default:
					enumWrong.Add(1)
				}
				mine = append(mine, sample{start, took})
			}
			mu.Lock()
			enumSamples = append(enumSamples, mine...)
			mu.Unlock()
		}()
	}
	var cpu0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu0)
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(w), 32))
			client, err := remote.New("http://"+addr+"/api/v2", "acct"+strconv.Itoa(w), secret)
			if err != nil {
				panic(err)
			}
			var mine []sample
			for !stop.Load() {
				i := rnd.IntN(deltaN * 10)
				n := "+" + strconv.FormatUint(number(i), 10)
				start := time.Now()
				res, err := client.MNPLookup(context.Background(), n, &remote.LookupOptions{Route: "MP1"})
				took := time.Since(start)
				if err != nil || res.ProcessingStatus != "COMPLETED" || res.MCCMNC == nil {
					if failed.Add(1) == 1 {
						b.Logf("first failure: %v %+v", err, res)
					}
					continue
				}
				answered.Add(1)
				switch m := *res.MCCMNC; {
				case m == "26201" || m == "26202":
				case m == "26203" && i%10 == 0:
				default:
					wrong.Add(1)
				}
				mine = append(mine, sample{start, took})
			}
			mu.Lock()
			samples = append(samples, mine...)
			mu.Unlock()
		}()
	}
	time.Sleep(spacing) // without swaps first
	var swapTimes []time.Time
	bases := []string{bb, a}
	for k := range swaps {
		base := bases[k%2]
		for _, e := range mustReadDir(b, deltaDir) {
			os.Remove(filepath.Join(deltaDir, e))
		}
		copyTo(base, live)
		if k%2 == 1 {
			copyTo2(b, deltas[base], filepath.Join(deltaDir, "1.delta"))
		}
		swapTimes = append(swapTimes, time.Now())
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			b.Fatal(err)
		}
		time.Sleep(spacing)
	}
	stop.Store(true)
	wg.Wait()
	var cpu1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu1)
	cancel()
	<-done

	replaced := strings.Count(logs.String(), "portability database replaced")
	refused := strings.Count(logs.String(), "not taken")
	inSwap := func(t time.Time) bool {
		for _, s := range swapTimes {
			if !t.Before(s) && t.Before(s.Add(window)) {
				return true
			}
		}
		return false
	}
	split := func(samples []sample) (during, steady []time.Duration) {
		for _, s := range samples {
			if inSwap(s.start) {
				during = append(during, s.took)
			} else {
				steady = append(steady, s.took)
			}
		}
		return during, steady
	}
	during, steady := split(samples)
	enumDuring, enumSteady := split(enumSamples)
	p := func(ds []time.Duration, q float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
	}
	cpu := time.Duration(cpu1.Utime.Nano()+cpu1.Stime.Nano()-cpu0.Utime.Nano()-cpu0.Stime.Nano()) * time.Nanosecond
	b.ReportMetric(float64(answered.Load()), "answered")
	b.ReportMetric(float64(failed.Load()), "failed")
	b.ReportMetric(float64(wrong.Load()), "wrong")
	b.ReportMetric(float64(replaced), "swaps")
	b.ReportMetric(p(steady, 0.5), "p50-steady-ms")
	b.ReportMetric(p(steady, 0.99), "p99-steady-ms")
	b.ReportMetric(p(during, 0.5), "p50-swap-ms")
	b.ReportMetric(p(during, 0.99), "p99-swap-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(max(answered.Load()+enumAnswered.Load(), 1)), "cpu-µs/request")
	b.ReportMetric(float64(enumAnswered.Load()), "enum-answered")
	b.ReportMetric(float64(enumFailed.Load()), "enum-failed")
	b.ReportMetric(float64(enumWrong.Load()), "enum-wrong")
	b.ReportMetric(p(enumSteady, 0.99), "enum-p99-steady-ms")
	b.ReportMetric(p(enumDuring, 0.99), "enum-p99-swap-ms")
	if failed.Load() != 0 || wrong.Load() != 0 || enumFailed.Load() != 0 || enumWrong.Load() != 0 || replaced != swaps || refused != 0 {
		b.Fatalf("%d failed, %d wrong, ENUM %d failed, %d wrong, %d swaps of %d, %d refused; log:\n%s",
			failed.Load(), wrong.Load(), enumFailed.Load(), enumWrong.Load(), replaced, swaps, refused, logs.String())
	}
}

// portdbLines keeps the log lines about portability databases, not the
// request lines.
type portdbLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *portdbLines) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "portability") {
		l.mu.Lock()
		l.b.Write(p)
		l.mu.Unlock()
	}
	return len(p), nil
}

func (l *portdbLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

func mustReadDir(b *testing.B, dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// copyTo2 writes raw to path by rename.
func copyTo2(b *testing.B, raw []byte, path string) {
	if err := os.WriteFile(path+".tmp", raw, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
}
