package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
)

// ConnLimits bounds the client connections of an HTTP server
// (ConnLimiter). Zero fields take their defaults.
//
// A connection is idle from the moment it is accepted until net/http has
// read a whole request header, and again from the end of each response
// until the next header: a connection that never sends a request, or sends
// part of a header and stops (a slow loris), is idle. Idle connections are
// the ones closed to make room, longest idle first.
type ConnLimits struct {
	// Max bounds the open connections. A connection accepted beyond it
	// makes the server close the connection idle for longest; when none is
	// idle, the new one is refused (answered 503 and closed at once, never
	// left waiting in the listen backlog). Default 10000.
	Max int
	// PerAddress bounds the open connections of one client address (of one
	// /64 for IPv6, which a single client usually holds whole): beyond it
	// new connections from the address are refused. Default 1000.
	PerAddress int
	// IdlePerAddress bounds the idle connections of one client address:
	// beyond it the address's connection idle for longest is closed.
	// Default 100.
	IdlePerAddress int
	// PressureIdleTimeout is how long a connection may stay idle while half
	// of Max or more are open: a new connection then closes those idle for
	// longer (the server's own IdleTimeout applies otherwise); default
	// 5 s.
	PressureIdleTimeout time.Duration
	// Proxies are addresses that carry the connections of many clients,
	// such as the trusted proxies of Config.TrustedProxies: the per-address
	// limits do not apply to them (Max does). Which client a connection
	// serves is known only from its requests' X-Forwarded-For, after the
	// connection is accepted.
	Proxies []netip.Prefix
}

// Defaults of ConnLimits.
const (
	DefaultMaxConns            = 10000
	DefaultMaxConnsPerAddress  = 1000
	DefaultMaxIdlePerAddress   = 100
	DefaultPressureIdleTimeout = 5 * time.Second
)

// refusedReason is why a connection was refused: the reason label of
// numen_http_connections_refused_total.
type refusedReason int

const (
	refusedMax        refusedReason = iota // max_connections: Max open, none idle
	refusedPerAddress                      // per_address: PerAddress open from its address
	refusedReasons
)

// closedReason is why an idle connection was closed: the reason label of
// numen_http_connections_closed_idle_total.
type closedReason int

const (
	closedMax            closedReason = iota // max_connections: room for a new one
	closedIdlePerAddress                     // idle_per_address: its address had IdlePerAddress more
	closedPressure                           // pressure: idle for PressureIdleTimeout with half of Max open
	closedReasons
)

var (
	refusedLabels = [refusedReasons]string{"max_connections", "per_address"}
	closedLabels  = [closedReasons]string{"max_connections", "idle_per_address", "pressure"}
)

// ConnLimiter is a net.Listener that keeps an HTTP server's connections
// within ConnLimits, so that one client holding idle connections cannot
// shut the others out. Give it to http.Server.Serve and its ConnState
// method to http.Server.ConnState: it learns from the state changes which
// connections are idle.
//
// An idle connection is closed by ending its pending read (a read deadline
// in the past, and every read after fails), not by closing it under
// net/http: a request whose header net/http has read is then still
// answered, and one it has not read is never processed. The client sees
// the connection closed, as after an idle timeout, and can retry. A refused
// connection is answered 503 with {"errors": [...]} and Retry-After before
// it is closed, without reading its request; a client may see the reset
// before the answer.
//
// Safe for concurrent use. A request's two state changes take one mutex
// shared by all connections each and allocate nothing.
type ConnLimiter struct {
	net.Listener
	limits   ConnLimits
	pressure int // open connections from which on PressureIdleTimeout applies
	metrics  *Metrics
	now      func() time.Time

	mu sync.Mutex
	// open counts the accepted connections not yet closed, closing those
	// of them whose read was ended (evicted) and that net/http has not
	// closed yet: open-closing are the connections that count.
	open, closing int
	idle          connList // every idle connection, longest idle first
	addrs         map[netip.Addr]*addrConns
}

// addrConns are the connections of one client address.
type addrConns struct {
	key           netip.Addr
	open, closing int
	idle          connList // the address's idle connections, longest idle first
}

// trackedConn is a connection that ConnLimiter accepted.
type trackedConn struct {
	net.Conn
	l    *ConnLimiter
	addr *addrConns // nil for a proxy's connection
	// evicted is set, under l.mu, when the connection is closed to make
	// room; Read reads it without the lock.
	evicted atomic.Bool
	// Under l.mu:
	released  bool      // Close was called: no longer counted
	inIdle    bool      // in l.idle (and addr.idle)
	idleSince time.Time // when it last became idle
	// links in l.idle ([0]) and addr.idle ([1]).
	links [2]struct{ prev, next *trackedConn }
}

// NewConnLimiter wraps ln.
func NewConnLimiter(ln net.Listener, limits ConnLimits, m *Metrics) *ConnLimiter {
	if limits.Max <= 0 {
		limits.Max = DefaultMaxConns
	}
	if limits.PerAddress <= 0 {
		limits.PerAddress = DefaultMaxConnsPerAddress
	}
	if limits.IdlePerAddress <= 0 {
		limits.IdlePerAddress = DefaultMaxIdlePerAddress
	}
	if limits.PressureIdleTimeout <= 0 {
		limits.PressureIdleTimeout = DefaultPressureIdleTimeout
	}
	if m == nil {
		m = NewMetrics()
	}
	return &ConnLimiter{
		Listener: ln, limits: limits, pressure: limits.Max / 2, metrics: m, now: time.Now,
		addrs: map[netip.Addr]*addrConns{},
	}
}

// Accept returns the next connection within the limits: it refuses the
// connections beyond them (answered and closed here) and closes idle ones
// to make room.
func (l *ConnLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc, refusal := l.admit(c)
		if tc != nil {
			return tc, nil
		}
		refuse(c, refusal)
	}
}

// addrKey is the key of a client address in the per-address limits, and
// false for a proxy's (or a non-IP) address.
func (l *ConnLimiter) addrKey(a net.Addr) (netip.Addr, bool) {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.Addr{}, false
	}
	ip := ta.AddrPort().Addr().Unmap()
	if !ip.IsValid() || allowedNonEmpty(l.limits.Proxies, ip) {
		return netip.Addr{}, false
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		ip = p.Addr()
	}
	return ip, true
}

// admit counts c in, or returns why it is refused.
func (l *ConnLimiter) admit(c net.Conn) (*trackedConn, string) {
	key, limited := l.addrKey(c.RemoteAddr())
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if l.open-l.closing >= l.pressure {
		l.sweep(now)
	}
	var a *addrConns
	if limited {
		if a = l.addrs[key]; a != nil && a.open-a.closing >= l.limits.PerAddress {
			l.metrics.connsRefused[refusedPerAddress].add(1)
			return nil, fmt.Sprintf("%s has %d connections open, the most one client address may; reuse them, or retry after 1 s", key, l.limits.PerAddress)
		}
	}
	if l.open-l.closing >= l.limits.Max {
		v := l.idle.front()
		if v == nil {
			l.metrics.connsRefused[refusedMax].add(1)
			return nil, fmt.Sprintf("the server has %d connections open, its limit, and none is idle; retry after 1 s", l.limits.Max)
		}
		l.evict(v, closedMax)
	}
	if limited && a == nil {
		a = &addrConns{key: key}
		l.addrs[key] = a
	}
	tc := &trackedConn{Conn: c, l: l, addr: a}
	l.open++
	l.metrics.connsOpen.Add(1)
	if a != nil {
		a.open++
	}
	l.pushIdle(tc, now)
	return tc, ""
}

// sweep closes the connections idle for longer than PressureIdleTimeout.
func (l *ConnLimiter) sweep(now time.Time) {
	cutoff := now.Add(-l.limits.PressureIdleTimeout)
	for v := l.idle.front(); v != nil && !v.idleSince.After(cutoff); v = l.idle.front() {
		l.evict(v, closedPressure)
	}
}

// pushIdle records that c became idle at now, and closes the address's
// longest idle connection when it has too many.
func (l *ConnLimiter) pushIdle(c *trackedConn, now time.Time) {
	c.inIdle, c.idleSince = true, now
	l.idle.pushBack(c, 0)
	l.metrics.connsIdle.Add(1)
	if a := c.addr; a != nil {
		a.idle.pushBack(c, 1)
		if a.idle.n > l.limits.IdlePerAddress {
			l.evict(a.idle.front(), closedIdlePerAddress)
		}
	}
}

// unIdle takes c out of the idle lists.
func (l *ConnLimiter) unIdle(c *trackedConn) {
	c.inIdle = false
	l.idle.remove(c, 0)
	l.metrics.connsIdle.Add(-1)
	if a := c.addr; a != nil {
		a.idle.remove(c, 1)
	}
}

// evict closes an idle connection: its pending read ends now, and every
// read after fails (see trackedConn.Read), so that net/http closes it as
// after an idle timeout. It stops counting against the limits at once.
func (l *ConnLimiter) evict(c *trackedConn, reason closedReason) {
	l.unIdle(c)
	c.evicted.Store(true) // before the deadline: see trackedConn.Read
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
	l.closing++
	if a := c.addr; a != nil {
		a.closing++
	}
	l.metrics.connsClosedIdle[reason].add(1)
}

// ConnState is the http.Server's ConnState hook: it tells idle connections
// from active ones.
func (l *ConnLimiter) ConnState(c net.Conn, state http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok || tc.l != l {
		return
	}
	switch state {
	case http.StateActive:
		l.mu.Lock()
		if tc.inIdle {
			l.unIdle(tc)
		}
		l.mu.Unlock()
	case http.StateIdle:
		now := l.now() // outside the lock: the idle list's order may be off by as much
		l.mu.Lock()
		if !tc.released && !tc.inIdle && !tc.evicted.Load() {
			l.pushIdle(tc, now)
		}
		l.mu.Unlock()
	}
}

// release stops counting c, when it is closed.
func (l *ConnLimiter) release(c *trackedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return
	}
	c.released = true
	if c.inIdle {
		l.unIdle(c)
	}
	evicted := c.evicted.Load()
	l.open--
	l.metrics.connsOpen.Add(-1)
	if evicted {
		l.closing--
	}
	if a := c.addr; a != nil {
		a.open--
		if evicted {
			a.closing--
		}
		if a.open == 0 {
			delete(l.addrs, a.key)
		}
	}
}

// ConnCounts are a ConnLimiter's counts at one moment.
type ConnCounts struct {
	Open, Idle int // connections open, and idle among them
	Closing    int // idle connections closed whose close net/http has yet to see
	Addresses  int // client addresses with connections open (proxies not counted)
}

// Counts returns the limiter's counts.
func (l *ConnLimiter) Counts() ConnCounts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ConnCounts{Open: l.open, Idle: l.idle.n, Closing: l.closing, Addresses: len(l.addrs)}
}

// Read fails once the connection was closed to make room. evict sets the
// flag before it sets the read deadline, and net/http sets deadlines only
// between reads: a read that began before the flag is ended by the
// deadline, one that begins after sees the flag, even if net/http set a
// later deadline meanwhile. The error is a timeout, which net/http takes
// for the end of an idle connection and closes it without an answer or a
// log line.
func (c *trackedConn) Read(p []byte) (int, error) {
	if c.evicted.Load() {
		return 0, os.ErrDeadlineExceeded
	}
	return c.Conn.Read(p)
}

// Close stops counting the connection and closes it.
func (c *trackedConn) Close() error {
	c.l.release(c)
	return c.Conn.Close()
}

// ReadFrom keeps the TCP connection's sendfile and splice for the
// responses net/http copies from files.
func (c *trackedConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }

// CloseWrite lets net/http half-close the connection, as it does a
// *net.TCPConn's, before closing it after an error.
func (c *trackedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// refuse answers a connection beyond the limits 503 and closes it. The
// answer fits in a new connection's send buffer: writing it does not wait
// for the client.
func refuse(c net.Conn, msg string) {
	body, _ := json.Marshal(apiv2.ErrorBody{Errors: []string{msg}})
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n", len(body)+1, body)
	_ = c.Close()
}

// connList is a list of connections linked through their links[i].
type connList struct {
	head, tail *trackedConn
	n          int
}

func (l *connList) front() *trackedConn { return l.head }

func (l *connList) pushBack(c *trackedConn, i int) {
	c.links[i].prev, c.links[i].next = l.tail, nil
	if l.tail != nil {
		l.tail.links[i].next = c
	} else {
		l.head = c
	}
	l.tail = c
	l.n++
}

func (l *connList) remove(c *trackedConn, i int) {
	prev, next := c.links[i].prev, c.links[i].next
	if prev != nil {
		prev.links[i].next = next
	} else {
		l.head = next
	}
	if next != nil {
		next.links[i].prev = prev
	} else {
		l.tail = prev
	}
	c.links[i].prev, c.links[i].next = nil, nil
	l.n--
}
