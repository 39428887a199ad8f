package httpapi

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Connections that announce large bodies and send a byte cannot make the
// server hold memory: strangers are refused before their body is read, and
// the bodies of known clients are buffered as they arrive, not as announced,
// and time out. Meanwhile ordinary requests are answered.
func TestStalledBodiesKeepMemoryBounded(t *testing.T) {
	t.Parallel()
	const stalls = 200 // per kind; the server's full figure is in benchmarks/README.md
	s := newServer(t, func(cfg *Config, a *account.Account) {
		cfg.MaxBodyMemory = 4 << 20
		cfg.BodyTimeout = 1500 * time.Millisecond
	})
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()

	// open sends the headers of a request announcing a 1 MiB body and the
	// first bytes of it; statuses receives what the server answered.
	statuses := make(chan int, 2*stalls)
	var conns []net.Conn
	var wg sync.WaitGroup
	open := func(authorization string, sent int) {
		conn, err := net.Dial("tcp", s.Listener.Addr().String())
		require.NoError(t, err)
		conns = append(conns, conn)
		_, err = fmt.Fprintf(conn, "POST /api/v2/nt-lookup HTTP/1.1\r\nHost: numen\r\n%sContent-Length: 1048576\r\n\r\n{%s", authorization, strings.Repeat(" ", sent-1))
		require.NoError(t, err)
		wg.Go(func() {
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	basic := "Authorization: " + auth.BasicHeader(key, secret) + "\r\n"
	for range stalls {
		open("", 1) // no credentials
		open(basic, 1)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})

	// Ordinary requests are answered while the stalled ones wait.
	for i := range 50 {
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", fmt.Sprintf(`{"number": "+4915123456%03d"}`, i), digest(secret, 0))
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
	grown := int64(heap()) - int64(before)
	t.Logf("heap grew by %.1f MiB with %d stalled connections", float64(grown)/(1<<20), 2*stalls)
	// Buffers of a megabyte each would be 200 MiB and more; connections,
	// their goroutines and 4 KiB buffers are a few MiB.
	assert.Less(t, grown, int64(32<<20), "heap growth in bytes")

	// collect waits for n answers and counts them by status.
	collect := func(n int) map[int]int {
		counts := map[int]int{}
		for range n {
			select {
			case status := <-statuses:
				counts[status]++
			case <-time.After(30 * time.Second):
				t.Fatalf("stalled requests not answered: %v so far", counts)
			}
		}
		wg.Wait()
		return counts
	}
	// Every stalled request is answered: 401 without credentials, 408 once
	// the body timeout passes.
	counts := collect(2 * stalls)
	assert.Equal(t, map[int]int{http.StatusUnauthorized: stalls, http.StatusRequestTimeout: stalls}, counts)
	assert.Zero(t, s.h.bodyBytes.Load(), "bytes reserved after every body was given up")

	// Clients that do send most of a megabyte, more than the body memory
	// limit holds together: those beyond it get 503, the others 408.
	for range 6 {
		open(basic, 900<<10)
	}
	// Small requests go on while the large bodies hold the memory: the
	// first 4 KiB of a body are not counted against it.
	for i := range 5 {
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", fmt.Sprintf(`{"number": "+4915123457%03d"}`, i), digest(secret, 0))
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
	counts = collect(6)
	assert.Equal(t, 6, counts[http.StatusServiceUnavailable]+counts[http.StatusRequestTimeout], "%v", counts)
	assert.GreaterOrEqual(t, counts[http.StatusServiceUnavailable], 2, "%v", counts)
	assert.Zero(t, s.h.bodyBytes.Load(), "bytes reserved after every body was given up")
	status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
}
