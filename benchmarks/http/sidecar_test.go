package httpbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/numenhq/numen/numbering"
)

// The account and request of every benchmark, as in numen-bench.json and
// run.sh.
const (
	benchKey    = "bench-key"
	benchSecret = "bench-secret-0123456789"
	benchPath   = "/nt-lookup"
	benchBody   = `{"number":"+44 20 7946 0000"}`
)

// variant is one server of BenchmarkSidecar.
type variant struct {
	name  string
	bare  bool   // the "hello" handler instead of Numen's
	store string // "sqlite" (t.TempDir, the disk), "tmpfs" (/dev/shm: fsync costs nothing), "postgres" (a database on $NUMEN_TEST_POSTGRES's server), "none" (no sink)
	log   string // "text" (slog text handler to /dev/null, as numen serve 2>/dev/null), "discard"
	conns int
}

var variants = []variant{
	{name: "server=bare/conns=32", bare: true, conns: 32},
	{name: "server=numen/store=sqlite/log=text/conns=32", store: "sqlite", log: "text", conns: 32},
	{name: "server=numen/store=tmpfs/log=text/conns=32", store: "tmpfs", log: "text", conns: 32},
	{name: "server=numen/store=postgres/log=text/conns=32", store: "postgres", log: "text", conns: 32},
	{name: "server=numen/store=none/log=text/conns=32", store: "none", log: "text", conns: 32},
	{name: "server=numen/store=sqlite/log=discard/conns=32", store: "sqlite", log: "discard", conns: 32},
	{name: "server=numen/store=none/log=discard/conns=32", store: "none", log: "discard", conns: 32},
	{name: "server=bare/conns=64", bare: true, conns: 64},
	{name: "server=numen/store=sqlite/log=text/conns=64", store: "sqlite", log: "text", conns: 64},
}

// BenchmarkSidecar sends b.N POST /api/v2/nt-lookup requests with basic
// authentication over
// conns keep-alive connections of a real loopback listener, one request in
// flight per connection as wrk does, and reports requests per second and
// the 50th and 99th percentile latencies. The client runs in the same
// process (the same two cores, as wrk does in run.sh); its goroutines carry
// the pprof label side=client, so that
//
//	go tool pprof -tagignore side=client cpu.out
//
// shows the server alone. The requests use basic authentication, as run.sh's
// post.lua does: the sidecar refuses a digest signature it has seen within its
// 30 s window, so one signed request sent over and over would measure 401s
// (TestSignedRequest checks a signed request once, and the basic one twice).
//
//	go test -run '^$' -bench Sidecar -benchtime 3s -count 5 ./benchmarks/http
func BenchmarkSidecar(b *testing.B) {
	plan, err := numbering.Load()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			h := newHandler(b, plan, v)
			srv := httptest.NewUnstartedServer(h)
			// The settings of numen serve (cmd/numen/serve.go).
			srv.Config.ReadHeaderTimeout = 10 * time.Second
			srv.Config.ReadTimeout = time.Minute
			srv.Config.WriteTimeout = 2 * time.Minute
			srv.Config.IdleTimeout = 2 * time.Minute
			srv.Start()
			defer srv.Close()
			addr := srv.Listener.Addr().String()
			runLoad(b, addr, v.conns)
		})
	}
}

// newHandler builds the server of a variant: for Numen, what numen serve's
// buildServer makes of numen-bench.json (embedded coverage and platform map,
// simulator backends for the HLR and MNP routes, one account with digest and
// basic authentication whitelisted for 127.0.0.1).
func newHandler(b testing.TB, plan *numbering.Plan, v variant) http.Handler {
	if v.bare {
		hello := []byte("hello\n")
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write(hello)
		})
	}
	opts := engine.Options{Plan: plan, BackendTimeout: 5 * time.Second}
	switch v.store {
	case "sqlite", "tmpfs":
		dir := b.TempDir()
		if v.store == "tmpfs" {
			if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
				b.Skip("no /dev/shm")
			}
			var err error
			if dir, err = os.MkdirTemp("/dev/shm", "numen-httpbench-"); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { os.RemoveAll(dir) })
		}
		st, err := sqlitestore.Open(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		opts.Sink = st
	case "postgres":
		if os.Getenv(pgtest.EnvVar) == "" {
			b.Skipf("store=postgres needs a PostgreSQL server: export %s=$(.ci/postgres start)", pgtest.EnvVar)
		}
		st, err := pgstore.Open(context.Background(), pgtest.Database(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		opts.Sink = st
	case "none":
	default:
		b.Fatalf("store %q", v.store)
	}
	for _, r := range []struct {
		route string
		seed  uint64
		hlr   bool
	}{{"DS7", 7, true}, {"GT1", 1, true}, {"GT2", 2, true}, {"MP1", 3, false}} {
		n := simnet.New(plan, simnet.WithSeed(r.seed))
		rb := engine.RouteBackends{Route: r.route}
		if r.hlr {
			rb.HLR = []engine.HLR{{Name: "simulator " + r.route, Backend: n}}
		} else {
			rb.Portability = []engine.Portability{{Name: "simulator " + r.route, Backend: n}}
		}
		opts.Backends = append(opts.Backends, rb)
	}
	eng, err := engine.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	ea, err := eng.NewProfile(engine.ProfileOptions{Key: benchKey})
	if err != nil {
		b.Fatal(err)
	}
	var logger *slog.Logger
	switch v.log {
	case "text":
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { devnull.Close() })
		logger = slog.New(slog.NewTextHandler(devnull, nil))
	case "discard":
		logger = slog.New(slog.DiscardHandler)
	default:
		b.Fatalf("log %q", v.log)
	}
	h, err := httpapi.New(httpapi.Config{
		Engine: eng,
		Accounts: []*account.Account{{
			Key: benchKey, Secrets: []string{benchSecret}, Methods: []string{auth.MethodDigest, auth.MethodBasic},
			Whitelist: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Profile: ea,
		}},
		Logger: logger,
	})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// signedRequest is the raw HTTP/1.1 request every connection sends, signed
// now.
func signedRequest(host string) []byte {
	ts := time.Now().Unix()
	sig := auth.SignDigest(benchSecret, benchPath, http.MethodPost, ts, []byte(benchBody))
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "POST /api/v2%s HTTP/1.1\r\nHost: %s\r\n", benchPath, host)
	fmt.Fprintf(&buf, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(benchBody))
	fmt.Fprintf(&buf, "%s: %s\r\n%s: %d\r\n%s: %s\r\n\r\n", auth.HeaderDigestKey, benchKey,
		auth.HeaderDigestTimestamp, ts, auth.HeaderDigestSignature, sig)
	buf.WriteString(benchBody)
	return buf.Bytes()
}

// basicRequest is the raw HTTP/1.1 request the benchmark sends: the same
// lookup as signedRequest's, with basic authentication, which a server
// accepts any number of times.
func basicRequest(host string) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "POST /api/v2%s HTTP/1.1\r\nHost: %s\r\n", benchPath, host)
	fmt.Fprintf(&buf, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(benchBody))
	fmt.Fprintf(&buf, "Authorization: Basic %s\r\n\r\n", base64.StdEncoding.EncodeToString([]byte(benchKey+":"+benchSecret)))
	buf.WriteString(benchBody)
	return buf.Bytes()
}

// runLoad sends b.N requests over conns connections and reports req/s,
// p50-ms and p99-ms.
func runLoad(b *testing.B, addr string, conns int) {
	req := basicRequest(addr)
	var next atomic.Int64
	lat := make([][]time.Duration, conns)
	errs := make(chan error, conns)
	var ready, wg sync.WaitGroup
	start := make(chan struct{})
	ctx := pprof.WithLabels(b.Context(), pprof.Labels("side", "client"))
	for c := range conns {
		ready.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			pprof.SetGoroutineLabels(ctx)
			conn, err := net.Dial("tcp", addr)
			ready.Done()
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			br := bufio.NewReaderSize(conn, 4096)
			mine := make([]time.Duration, 0, b.N/conns+1)
			<-start
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				if _, err := conn.Write(req); err != nil {
					errs <- err
					return
				}
				status, err := readResponse(br)
				if err != nil {
					errs <- err
					return
				}
				if status != http.StatusOK {
					errs <- fmt.Errorf("status %d", status)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			lat[c] = mine
		}()
	}
	ready.Wait()
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	all := slices.Concat(lat...)
	if len(all) != b.N {
		b.Fatalf("%d latencies for %d requests", len(all), b.N)
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// readResponse reads one HTTP/1.1 response with a Content-Length body and
// returns its status; the body is discarded.
func readResponse(br *bufio.Reader) (int, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 {
			break
		}
		if len(line) > 15 && bytes.EqualFold(line[:15], []byte("Content-Length:")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(line[15:]))); err != nil {
				return 0, fmt.Errorf("bad header %q", line)
			}
		}
	}
	if length < 0 {
		return 0, errors.New("response without Content-Length")
	}
	if _, err := br.Discard(length); err != nil {
		return 0, err
	}
	return status, nil
}

// TestSignedRequest checks the requests the benchmark sends against the
// handler: a signed request once, then the basic one the benchmark repeats,
// twice, each 200 with an NT result, so that the benchmark measures answers and
// not 401s; and the signed one again, which the replay guard refuses, the
// reason the benchmark does not repeat it.
func TestSignedRequest(t *testing.T) {
	plan, err := numbering.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{"sqlite", "none"} {
		t.Run("store="+store, func(t *testing.T) {
			h := newHandler(t, plan, variant{store: store, log: "discard"})
			srv := httptest.NewServer(h)
			defer srv.Close()
			addr := srv.Listener.Addr().String()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			signed := signedRequest(addr)
			for i, req := range [][]byte{signed, basicRequest(addr), basicRequest(addr), signed} {
				if _, err := conn.Write(req); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if i == 3 {
					if resp.StatusCode != http.StatusUnauthorized {
						t.Fatalf("the signed request again: %d %s, want 401 (a replay)", resp.StatusCode, body)
					}
					continue
				}
				if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"query_status":"OK"`)) ||
					!bytes.Contains(body, []byte(`"number_type":"LANDLINE"`)) {
					t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
				}
			}
		})
	}
}
