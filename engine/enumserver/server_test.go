package enumserver

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestServeUDPAndTCP(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	addr := startServer(t, s)
	name := enumName("+4915123456789", "e164.arpa.")
	for _, proto := range []string{"udp", "tcp"} {
		c := &dns.Client{Net: proto, Timeout: 5 * time.Second}
		m := new(dns.Msg)
		m.SetQuestion(name, dns.TypeNAPTR)
		r, _, err := c.Exchange(m, addr)
		if err != nil || len(r.Answer) != 1 {
			t.Fatalf("%s: %v %v", proto, r, err)
		}
	}
	// Several queries on one TCP connection, answered in order.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var batch []byte
	for i := range 3 {
		q := pack(t, name, dns.TypeNAPTR, 0)
		binary.BigEndian.PutUint16(q, uint16(i))
		batch = binary.BigEndian.AppendUint16(batch, uint16(len(q)))
		batch = append(batch, q...)
	}
	if _, err := conn.Write(batch); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for i := range 3 {
		var l [2]byte
		if _, err := io.ReadFull(conn, l[:]); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, binary.BigEndian.Uint16(l[:]))
		if _, err := io.ReadFull(conn, b); err != nil {
			t.Fatal(err)
		}
		if id := binary.BigEndian.Uint16(b); id != uint16(i) {
			t.Fatalf("answer %d has id %d", i, id)
		}
	}
	st := s.Stats()
	if st.Queries[QueryKey{QTypeNAPTR, RCodeNoError}] != 5 {
		t.Fatalf("%+v", st)
	}
}

// TestRateLimit: over its limit, a client gets every second answer
// truncated (the slip) and the others dropped; another client is not
// limited.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	s := testServer(t, func(c *Config) { c.RateLimit = RateLimit{PerSecond: 0.001, Burst: 3} })
	q := pack(t, enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR, 0)
	a, b := netipAddrPort("192.0.2.1:53"), netipAddrPort("[2001:db8::1]:53")
	now := time.Now()
	var answered, truncated, dropped int
	for range 13 {
		switch v := s.limiter.take(a.Addr(), now); v {
		case allow:
			answered++
		case slipTC:
			truncated++
		case dropOver:
			dropped++
		}
	}
	if answered != 3 || truncated != 5 || dropped != 5 {
		t.Fatalf("answered %d, truncated %d, dropped %d", answered, truncated, dropped)
	}
	if v := s.limiter.take(b.Addr(), now); v != allow {
		t.Fatalf("another client: %v", v)
	}
	// Through the query path: a truncated answer parses, with TC and no
	// records; the limited count goes up.
	s2 := testServer(t, func(c *Config) { c.RateLimit = RateLimit{PerSecond: 0.001, Burst: 1, Slip: 1} })
	if resp := s2.serveUDPQuery(nil, q, a, true); resp == nil {
		t.Fatal("first query not answered")
	}
	resp := s2.serveUDPQuery(nil, q, a, true)
	m := new(dns.Msg)
	if err := m.Unpack(resp); err != nil || !m.Truncated || len(m.Answer) != 0 {
		t.Fatalf("%v %v", m, err)
	}
	if st := s2.Stats(); st.RateLimitedSlipped != 1 || st.Queries[QueryKey{QTypeNAPTR, RCodeNoError}] != 1 {
		t.Fatalf("%+v", st)
	}
	// Tokens come back with time.
	if v := s.limiter.take(a.Addr(), now.Add(2000*time.Second)); v != allow {
		t.Fatalf("after the refill: %v", v)
	}
}

// TestTCPLimits: connections beyond MaxTCPConnections are closed at once,
// and an idle connection is closed after TCPIdleTimeout.
func TestTCPLimits(t *testing.T) {
	t.Parallel()
	s := testServer(t, func(c *Config) { c.MaxTCPConnections = 1; c.TCPIdleTimeout = 200 * time.Millisecond })
	addr := startServer(t, s)
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// The first connection is held once a query of it is answered.
	c := &dns.Conn{Conn: first}
	m := new(dns.Msg)
	m.SetQuestion("e164.arpa.", dns.TypeSOA)
	if err := c.WriteMsg(m); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadMsg(); err != nil {
		t.Fatal(err)
	}
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := second.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("second connection: %v, want it closed", err)
	}
	// The first is closed when idle for 200 ms.
	first.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := first.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("idle connection: %v, want it closed", err)
	}
	if st := s.Stats(); st.TCPRefused != 1 {
		t.Fatalf("%+v", st)
	}
}

// TestShutdown: Shutdown ends every goroutine of the server, idle TCP
// connections included, and Serve returns ErrServerClosed.
func TestShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	s := testServer(t, nil)
	pc, ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(pc, ln) }()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := &dns.Conn{Conn: conn}
	m := new(dns.Msg)
	m.SetQuestion("e164.arpa.", dns.TypeSOA)
	c.WriteMsg(m)
	if _, err := c.ReadMsg(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond) // goroutines end just after Done
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines, %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	if err := s.Serve(nil, nil); err != nil && err != ErrServerClosed {
		t.Fatal(err)
	}
}

// TestServeIPv6 serves on [::1] (the batched reader reads IPv6 senders'
// addresses too) when the machine has IPv6 loopback.
func TestServeIPv6(t *testing.T) {
	t.Parallel()
	s := testServer(t, func(c *Config) { c.RateLimit = RateLimit{PerSecond: 1, Burst: 2, Slip: 1} })
	pc, ln, err := Listen("[::1]:0")
	if err != nil {
		t.Logf("no IPv6 loopback here: %v", err)
		return
	}
	go s.Serve(pc, ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	c := &dns.Client{Timeout: 5 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR)
	for i := range 3 {
		r, _, err := c.Exchange(m, pc.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		// The third is over the limit of the sender's address: truncated.
		if (i == 2) != r.Truncated || (i < 2) != (len(r.Answer) == 1) {
			t.Fatalf("query %d: %v", i, r)
		}
	}
}

// wrappedConn hides the *net.UDPConn: the server reads it a packet at a
// time, as on systems without recvmmsg.
type wrappedConn struct{ net.PacketConn }

func TestServeUDPOnePacketAtATime(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(wrappedConn{pc}, nil) }()
	c := &dns.Client{Timeout: 5 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR)
	r, _, err := c.Exchange(m, pc.LocalAddr().String())
	if err != nil || len(r.Answer) != 1 {
		t.Fatalf("%v %v", r, err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Fatal(err)
	}
}

// TestServeUDPAllocs: the whole UDP path, the reader's system calls
// included, allocates nothing per query (counted over the process, the
// client's zero-allocation reads and writes included). Not parallel: the
// count is the process's.
func TestServeUDPAllocs(t *testing.T) {
	s := testServer(t, func(c *Config) { c.RateLimit = RateLimit{PerSecond: 1e9} })
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(pc, nil) }()
	defer func() {
		s.Shutdown(context.Background())
		<-done
	}()
	client, err := net.DialUDP("udp", nil, pc.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	q := pack(t, enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR, 1232)
	resp := make([]byte, 1232)
	exchange := func() {
		if _, err := client.Write(q); err != nil {
			t.Fatal(err)
		}
		client.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := client.Read(resp)
		if err != nil || n < headerLen {
			t.Fatal(n, err)
		}
	}
	exchange() // the readers' state is made at their start
	if n := testing.AllocsPerRun(200, exchange); n > 0.05 {
		t.Fatalf("%.2f allocations per query", n)
	}
}
