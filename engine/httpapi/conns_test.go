package httpapi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeConn is a connection from a client address that records what the
// limiter does to it.
type fakeConn struct {
	net.Conn // nil: methods not defined here are not called
	remote   *net.TCPAddr
	mu       sync.Mutex
	deadline time.Time // the last read deadline set
	written  bytes.Buffer
	closed   bool
}

func newFakeConn(addr string) *fakeConn {
	ap := netip.MustParseAddrPort(addr)
	return &fakeConn{remote: net.TCPAddrFromAddrPort(ap)}
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) Read([]byte) (int, error) {
	return 0, io.EOF
}

func (c *fakeConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written.Write(p)
}

func (c *fakeConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	return nil
}
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }
func (c *fakeConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// evicted reports whether the limiter ended the connection's read.
func (c *fakeConn) evicted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.deadline.IsZero() && c.deadline.Before(time.Now())
}

// limiterHarness drives a ConnLimiter with fake connections and clock.
type limiterHarness struct {
	t   testing.TB
	l   *ConnLimiter
	now time.Time
}

func newLimiterHarness(t testing.TB, limits ConnLimits) *limiterHarness {
	h := &limiterHarness{t: t, now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	h.l = NewConnLimiter(nil, limits, NewMetrics())
	h.l.now = func() time.Time { return h.now }
	return h
}

// dial offers a connection from addr, as Accept does, and returns it with
// the limiter's wrapper, or nil when the limiter refused it (the fake then
// holds the answer and is closed).
func (h *limiterHarness) dial(addr string) (*fakeConn, net.Conn) {
	h.t.Helper()
	c := newFakeConn(addr)
	tc, refusal := h.l.admit(c)
	if tc == nil {
		refuse(c, refusal)
		require.True(h.t, c.closed)
		return c, nil
	}
	return c, tc
}

func (h *limiterHarness) counts() ConnCounts { return h.l.Counts() }

func TestConnLimiterAccountsEveryConnection(t *testing.T) {
	t.Parallel()
	h := newLimiterHarness(t, ConnLimits{Max: 100, PerAddress: 10, IdlePerAddress: 10})
	var conns []net.Conn
	for i := range 12 {
		addr := "192.0.2.1:1000"
		if i%2 == 1 {
			addr = "[2001:db8:1:2::7]:1000"
		}
		_, c := h.dial(addr)
		require.NotNil(t, c)
		conns = append(conns, c)
	}
	assert.Equal(t, ConnCounts{Open: 12, Idle: 12, Addresses: 2}, h.counts())
	// A request on each: active, then idle again; two stay active.
	for _, c := range conns {
		h.l.ConnState(c, http.StateNew)
		h.l.ConnState(c, http.StateActive)
	}
	assert.Equal(t, ConnCounts{Open: 12, Idle: 0, Addresses: 2}, h.counts())
	for _, c := range conns[2:] {
		h.l.ConnState(c, http.StateIdle)
	}
	assert.Equal(t, ConnCounts{Open: 12, Idle: 10, Addresses: 2}, h.counts())
	// net/http closes each one, some twice (Shutdown and the connection's
	// goroutine), and reports StateClosed after.
	for i, c := range conns {
		require.NoError(t, c.Close())
		if i%3 == 0 {
			require.NoError(t, c.Close())
		}
		h.l.ConnState(c, http.StateClosed)
		h.l.ConnState(c, http.StateIdle) // late, from a racing goroutine: ignored
	}
	assert.Equal(t, ConnCounts{}, h.counts(), "every count back to zero after the closes")
	assert.Empty(t, h.l.addrs, "no address kept")
	var metrics bytes.Buffer
	require.NoError(t, h.l.metrics.Write(&metrics))
	assert.Contains(t, metrics.String(), "numen_http_connections_open 0\n")
	assert.Contains(t, metrics.String(), "numen_http_connections_idle 0\n")
}

func TestConnLimiterClosesLongestIdleFirst(t *testing.T) {
	t.Parallel()
	h := newLimiterHarness(t, ConnLimits{Max: 3})
	f1, c1 := h.dial("192.0.2.1:1")
	h.now = h.now.Add(time.Second)
	f2, c2 := h.dial("192.0.2.2:1")
	h.now = h.now.Add(time.Second)
	f3, c3 := h.dial("192.0.2.3:1")
	// c1 is busy with a request; c2 has never sent one; c3 went idle after
	// its first, later than c2 was accepted.
	h.l.ConnState(c1, http.StateActive)
	h.l.ConnState(c3, http.StateActive)
	h.now = h.now.Add(time.Second)
	h.l.ConnState(c3, http.StateIdle)

	// Full: the next connection ends the longest idle one, c2, and c1
	// (busy) is left alone.
	f4, c4 := h.dial("192.0.2.4:1")
	require.NotNil(t, c4)
	assert.True(t, f2.evicted(), "c2, idle longest, closed")
	assert.False(t, f1.evicted() || f3.evicted(), "c1 (active) and c3 (idle less long) kept")
	// Its reads fail from now on, even after net/http sets a new deadline.
	_ = c2.SetReadDeadline(h.now.Add(time.Hour))
	_, err := c2.Read(make([]byte, 1))
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded), "%v", err)
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "a timeout, which net/http closes quietly")
	assert.Equal(t, ConnCounts{Open: 4, Idle: 2, Closing: 1, Addresses: 4}, h.counts())

	// Next: c3, then c4 (a new connection that never sent a request).
	f5, _ := h.dial("192.0.2.5:1")
	assert.True(t, f3.evicted())
	_, c6 := h.dial("192.0.2.6:1")
	assert.True(t, f4.evicted())
	assert.False(t, f5.evicted())
	// A closed connection's StateIdle (a late hook) does not make it idle
	// again.
	h.l.ConnState(c2, http.StateIdle)
	assert.Equal(t, 2, h.counts().Idle)

	// Everything busy: a new connection is refused with 503, whose body
	// names the limit.
	h.l.ConnState(c6, http.StateActive)
	h.l.ConnState(h.tracked(f5), http.StateActive)
	f7, c7 := h.dial("192.0.2.7:1")
	require.Nil(t, c7)
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(f7.written.Bytes())), nil)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, "{\"errors\":[\"the server has 3 connections open, its limit, and none is idle; retry after 1 s\"]}\n", string(body))
	assert.True(t, resp.Close, "Connection: close")

	var metrics bytes.Buffer
	require.NoError(t, h.l.metrics.Write(&metrics))
	assert.Contains(t, metrics.String(), `numen_http_connections_closed_idle_total{reason="max_connections"} 3`)
	assert.Contains(t, metrics.String(), `numen_http_connections_refused_total{reason="max_connections"} 1`)
}

// tracked returns the limiter's wrapper of a fake connection.
func (h *limiterHarness) tracked(f *fakeConn) net.Conn {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	for c := h.l.idle.front(); c != nil; c = c.links[0].next {
		if c.Conn == f {
			return c
		}
	}
	h.t.Fatalf("%v is not idle", f.remote)
	return nil
}

func TestConnLimiterPerAddress(t *testing.T) {
	t.Parallel()
	h := newLimiterHarness(t, ConnLimits{Max: 100, PerAddress: 3, IdlePerAddress: 2,
		Proxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	// Idle: the address's third idle connection ends its first.
	f1, c1 := h.dial("192.0.2.1:1")
	h.now = h.now.Add(time.Second)
	f2, c2 := h.dial("192.0.2.1:2")
	h.now = h.now.Add(time.Second)
	f3, c3 := h.dial("192.0.2.1:3")
	require.NotNil(t, c3)
	assert.True(t, f1.evicted())
	assert.False(t, f2.evicted() || f3.evicted())
	// Another address is not affected by this one's.
	_, other := h.dial("192.0.2.99:1")
	require.NotNil(t, other)
	assert.False(t, f2.evicted())

	// Open: three from one address, then refused, whether idle or not.
	h.l.ConnState(c2, http.StateActive)
	h.l.ConnState(c3, http.StateActive)
	require.NoError(t, c1.Close()) // net/http closes the ended connection
	f4, c4 := h.dial("192.0.2.1:4")
	require.NotNil(t, c4)
	h.l.ConnState(c4, http.StateActive)
	f5, c5 := h.dial("192.0.2.1:5")
	require.Nil(t, c5)
	assert.Contains(t, f5.written.String(), "192.0.2.1 has 3 connections open, the most one client address may")
	assert.False(t, f4.evicted())
	// Until one closes.
	require.NoError(t, c2.Close())
	_, c6 := h.dial("192.0.2.1:6")
	require.NotNil(t, c6)

	// An IPv6 client is its /64.
	for _, addr := range []string{"[2001:db8:1:2::1]:1", "[2001:db8:1:2:ffff::2]:1", "[2001:db8:1:2::3]:1"} {
		_, x := h.dial(addr)
		require.NotNil(t, x)
		h.l.ConnState(x, http.StateActive)
	}
	_, d := h.dial("[2001:db8:1:2::4]:1")
	assert.Nil(t, d, "a fourth connection from the same /64")
	_, e := h.dial("[2001:db8:1:3::4]:1")
	assert.NotNil(t, e, "another /64")

	// A proxy has no per-address limit.
	for i := range 10 {
		_, p := h.dial(fmt.Sprintf("10.1.2.3:%d", i+1))
		require.NotNil(t, p, "proxy connection %d", i)
		h.l.ConnState(p, http.StateActive)
	}

	var metrics bytes.Buffer
	require.NoError(t, h.l.metrics.Write(&metrics))
	assert.Contains(t, metrics.String(), `numen_http_connections_refused_total{reason="per_address"} 2`)
	assert.Contains(t, metrics.String(), `numen_http_connections_closed_idle_total{reason="idle_per_address"} 1`)
}

func TestConnLimiterShortIdleUnderPressure(t *testing.T) {
	t.Parallel()
	h := newLimiterHarness(t, ConnLimits{Max: 10, PressureIdleTimeout: 5 * time.Second})
	var fakes []*fakeConn
	for i := range 5 {
		f, c := h.dial(fmt.Sprintf("192.0.2.%d:1", i+1))
		require.NotNil(t, c)
		fakes = append(fakes, f)
		h.now = h.now.Add(time.Second)
	}
	// At half the limit, a connection idle for 5 s or more goes when the
	// next arrives: the first (accepted at 0 s) and second (1 s); now is 5 s
	// plus the 1 s below.
	h.now = h.now.Add(time.Second)
	_, c := h.dial("192.0.2.100:1")
	require.NotNil(t, c)
	assert.True(t, fakes[0].evicted() && fakes[1].evicted())
	assert.False(t, fakes[2].evicted() || fakes[3].evicted() || fakes[4].evicted())

	// Below half the limit, idle connections stay however long.
	h2 := newLimiterHarness(t, ConnLimits{Max: 10, PressureIdleTimeout: 5 * time.Second})
	f, _ := h2.dial("192.0.2.1:1")
	h2.now = h2.now.Add(time.Hour)
	h2.dial("192.0.2.2:1")
	assert.False(t, f.evicted())
	var metrics bytes.Buffer
	require.NoError(t, h.l.metrics.Write(&metrics))
	assert.Contains(t, metrics.String(), `numen_http_connections_closed_idle_total{reason="pressure"} 2`)
}

// A request's state changes allocate nothing.
func TestConnStateAllocatesNothing(t *testing.T) {
	h := newLimiterHarness(t, ConnLimits{})
	_, c := h.dial("192.0.2.1:1")
	allocs := testing.AllocsPerRun(1000, func() {
		h.l.ConnState(c, http.StateActive)
		h.l.ConnState(c, http.StateIdle)
	})
	assert.Zero(t, allocs)
}

// With net/http: an idle keep-alive connection closed to make room is
// closed by the server without an answer, a busy one is answered, and the
// counts return to zero once the clients go.
func TestConnLimiterWithNetHTTP(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	release := make(chan struct{})
	l := NewConnLimiter(ln, ConnLimits{Max: 2}, nil)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				<-release
			}
			_, _ = io.WriteString(w, "ok")
		}),
		ConnState: l.ConnState, ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	get := func(conn net.Conn, path string) (string, error) {
		if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return "", err
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	idle := dial()
	got, err := get(idle, "/")
	require.NoError(t, err)
	require.Equal(t, "ok", got)
	busy := dial()
	slow := make(chan string, 1)
	go func() { s, _ := get(busy, "/slow"); slow <- s }()
	require.Eventually(t, func() bool { c := l.Counts(); return c.Open == 2 && c.Idle == 1 }, 10*time.Second, time.Millisecond)

	// A third: the idle one goes, the busy one is answered.
	third := dial()
	got, err = get(third, "/")
	require.NoError(t, err)
	require.Equal(t, "ok", got)
	_ = idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := idle.Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.EOF, "the idle connection closed by the server")
	close(release)
	assert.Equal(t, "ok", <-slow)

	idle.Close()
	busy.Close()
	third.Close()
	require.Eventually(t, func() bool { return l.Counts() == ConnCounts{} }, 10*time.Second, time.Millisecond,
		"counts after every client left: %+v", l.Counts())
}

// BenchmarkConnLimiterRequest is what ConnLimiter adds to a request on a
// kept-alive connection: its two state changes and a read, on connections
// of one address that share the limiter's lock.
func BenchmarkConnLimiterRequest(b *testing.B) {
	h := newLimiterHarness(b, ConnLimits{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		_, c := h.dial("192.0.2.1:1")
		buf := make([]byte, 1)
		for pb.Next() {
			h.l.ConnState(c, http.StateActive)
			_, _ = c.Read(buf)
			h.l.ConnState(c, http.StateIdle)
		}
	})
}
