package enumserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

// Defaults of Config.
const (
	DefaultSuffix            = "e164.arpa."
	DefaultTTL               = 5 * time.Minute
	DefaultNameServer        = "localhost."
	DefaultMaxTCPConnections = 256
	DefaultTCPIdleTimeout    = 10 * time.Second
)

// Config configures a Server.
type Config struct {
	// Plan decides which numbers are valid and the network of each range.
	// Required.
	Plan *numbering.Plan
	// Portability is the portability database; nil answers every valid
	// number from the plan, without npdi.
	Portability *portdb.Holder
	// Suffix is the domain the numbers are under (default "e164.arpa.");
	// a private tree such as "e164.example.net." works as well.
	Suffix string
	// TTL of the records (default 5 minutes), at most 2^31-1 seconds.
	TTL time.Duration
	// RN maps the MCCMNC of a network to its routing number, the rn of the
	// numbers ported to it: a global number with "+" ("+491770"), or digits
	// of a national plan ("D262"), which answers carry with rn-context.
	// A network without an entry has its MCCMNC as its rn.
	RN map[string]string
	// RNContext is the rn-context of routing numbers that are not global;
	// default the calling code of the number ("+49").
	RNContext string
	// NameServer is the server's name in the SOA and NS records of the
	// suffix (default "localhost."); the SOA's mailbox is hostmaster at it.
	NameServer string
	// Serial is the SOA's serial; 0 takes the time of New in Unix seconds.
	Serial uint32
	// RateLimit limits the UDP answers per client address.
	RateLimit RateLimit
	// MaxTCPConnections bounds the open TCP connections (default 256):
	// beyond it new ones are closed at once. TCPIdleTimeout is how long a
	// connection may wait for its next query, and each query for its
	// bytes (default 10 s).
	MaxTCPConnections int
	TCPIdleTimeout    time.Duration
	// Logger receives the errors of the sockets (default: none).
	Logger *slog.Logger
}

// Server answers ENUM queries. It is safe for concurrent use.
type Server struct {
	plan         *numbering.Plan
	portdb       *portdb.Holder
	suffix       string
	suffixWire   []byte // lower case
	suffixLabels int
	ttl          uint32
	rn           map[string]string
	regions      map[string]string // every region code of the plan, by itself
	rnContext    string
	nsWire       []byte
	soaData      []byte
	limiter      *limiter
	maxConns     int
	idle         time.Duration
	logger       *slog.Logger

	stats counters

	mu       sync.Mutex
	closed   bool
	packets  []net.PacketConn
	lns      []net.Listener
	conns    map[net.Conn]struct{}
	serving  sync.WaitGroup
	shutdown chan struct{}
}

// ConfigError is a setting of Config that is wrong.
type ConfigError struct {
	Field string // the Config field: Suffix, TTL, RN[26203], ...
	Msg   string
}

func (e *ConfigError) Error() string { return "enumserver: " + e.Field + ": " + e.Msg }

// maxRN bounds a routing number and rn-context, so that every regexp fits
// the 255 bytes of a DNS character-string.
const maxRN = 64

// New checks cfg and returns a Server. It listens nowhere yet: give it
// sockets with Serve, ServeUDP and ServeTCP, or ListenAndServe.
func New(cfg Config) (*Server, error) {
	if cfg.Plan == nil {
		return nil, &ConfigError{"Plan", "required"}
	}
	s := &Server{plan: cfg.Plan, portdb: cfg.Portability, rn: map[string]string{}, logger: cfg.Logger,
		conns: map[net.Conn]struct{}{}, shutdown: make(chan struct{})}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.regions = map[string]string{}
	for cc := 1; cc < 1000; cc++ {
		for _, r := range cfg.Plan.Regions(cc) {
			s.regions[r] = r
		}
	}
	var err error
	suffix := cfg.Suffix
	if suffix == "" {
		suffix = DefaultSuffix
	}
	if s.suffixWire, s.suffixLabels, err = nameWire(suffix); err != nil {
		return nil, &ConfigError{"Suffix", err.Error()}
	}
	s.suffix = strings.ToLower(strings.TrimSuffix(suffix, ".") + ".")
	ttl := cfg.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if ttl < time.Second || ttl > (1<<31-1)*time.Second {
		return nil, &ConfigError{"TTL", fmt.Sprintf("%v is not between 1s and 2^31-1 seconds", cfg.TTL)}
	}
	s.ttl = uint32(ttl / time.Second)
	for m, rn := range cfg.RN {
		if (len(m) != 5 && len(m) != 6) || strings.Trim(m, "0123456789") != "" {
			return nil, &ConfigError{"RN", fmt.Sprintf("%q is not an MCCMNC (5 or 6 digits)", m)}
		}
		if err := checkParam(rn); err != nil {
			return nil, &ConfigError{"RN[" + m + "]", err.Error()}
		}
		s.rn[m] = rn
	}
	if cfg.RNContext != "" {
		if err := checkParam(cfg.RNContext); err != nil {
			return nil, &ConfigError{"RNContext", err.Error()}
		}
		s.rnContext = cfg.RNContext
	}
	ns := cfg.NameServer
	if ns == "" {
		ns = DefaultNameServer
	}
	if s.nsWire, _, err = nameWire(ns); err != nil {
		return nil, &ConfigError{"NameServer", err.Error()}
	}
	mbox, _, err := nameWire("hostmaster." + strings.TrimSuffix(ns, "."))
	if err != nil {
		return nil, &ConfigError{"NameServer", err.Error()}
	}
	serial := cfg.Serial
	if serial == 0 {
		serial = uint32(time.Now().Unix())
	}
	s.soaData = append(append([]byte(nil), s.nsWire...), mbox...)
	for _, v := range []uint32{serial, 3600, 600, 86400, s.ttl} {
		s.soaData = binary.BigEndian.AppendUint32(s.soaData, v)
	}
	if cfg.RateLimit.PerSecond < 0 || cfg.RateLimit.Burst < 0 {
		return nil, &ConfigError{"RateLimit", "per second and burst must not be negative"}
	}
	s.limiter = newLimiter(cfg.RateLimit)
	if s.maxConns = cfg.MaxTCPConnections; s.maxConns <= 0 {
		s.maxConns = DefaultMaxTCPConnections
	}
	if s.idle = cfg.TCPIdleTimeout; s.idle <= 0 {
		s.idle = DefaultTCPIdleTimeout
	}
	return s, nil
}

// checkParam checks a value written into a NAPTR's regexp as a tel URI
// parameter (RFC 3966): printable, without the delimiter '!' or the
// parameter separators, and short.
func checkParam(v string) error {
	if v == "" {
		return errors.New("empty")
	}
	if len(v) > maxRN {
		return fmt.Errorf("%q is longer than %d characters", v, maxRN)
	}
	for _, c := range []byte(v) {
		if c <= ' ' || c >= 0x7F || strings.IndexByte(`!;=\"`, c) >= 0 {
			return fmt.Errorf("%q: %q is not allowed", v, c)
		}
	}
	return nil
}

// nameWire returns a domain name in wire form, lower case, and its label
// count.
func nameWire(name string) ([]byte, int, error) {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	var out []byte
	n := 0
	if name != "" {
		for l := range strings.SplitSeq(name, ".") {
			if l == "" || len(l) > 63 {
				return nil, 0, fmt.Errorf("%q is not a domain name", name)
			}
			for _, c := range []byte(l) {
				if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
					return nil, 0, fmt.Errorf("%q is not a domain name (letters, digits, - and _)", name)
				}
			}
			out = append(append(out, byte(len(l))), l...)
			n++
		}
	}
	out = append(out, 0)
	if len(out) > 255-2*maxDigits {
		return nil, 0, fmt.Errorf("%q is too long for numbers below it", name)
	}
	return out, n, nil
}

// Suffix returns the domain the server answers for, lower case, with its
// final dot.
func (s *Server) Suffix() string { return s.suffix }

// ErrServerClosed is returned by the Serve methods after Shutdown.
var ErrServerClosed = errors.New("enumserver: server closed")

// ListenAndServe listens on addr over UDP and TCP and serves both until
// Shutdown. ready, when not nil, is called with the UDP socket's address
// once both listen (the TCP socket has the same; with port 0 the system
// picks a port free for both).
func (s *Server) ListenAndServe(addr string, ready func(net.Addr)) error {
	pc, ln, err := Listen(addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(pc.LocalAddr())
	}
	return s.Serve(pc, ln)
}

// Listen opens a UDP socket and a TCP listener on the same address; with
// port 0, a port free for both.
func Listen(addr string) (net.PacketConn, net.Listener, error) {
	for range 20 {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, err
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		if _, port, _ := net.SplitHostPort(addr); port != "0" {
			return nil, nil, err
		}
	}
	return nil, nil, fmt.Errorf("enumserver: no port free for UDP and TCP on %s", addr)
}

// Serve answers queries on pc (UDP) and ln (TCP), either of which may be
// nil, until Shutdown, and returns ErrServerClosed then, or the first
// error of a socket.
func (s *Server) Serve(pc net.PacketConn, ln net.Listener) error {
	errc := make(chan error, 2)
	n := 0
	if pc != nil {
		n++
		go func() { errc <- s.ServeUDP(pc) }()
	}
	if ln != nil {
		n++
		go func() { errc <- s.ServeTCP(ln) }()
	}
	var first error
	for range n {
		if err := <-errc; first == nil || errors.Is(first, ErrServerClosed) {
			first = err
		}
		s.closeSockets()
	}
	return first
}

func (s *Server) track(pc net.PacketConn, ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if pc != nil {
		s.packets = append(s.packets, pc)
	}
	if ln != nil {
		s.lns = append(s.lns, ln)
	}
	s.serving.Add(1)
	return true
}

// ServeUDP answers the queries arriving on pc until Shutdown, with one
// reader per processor.
func (s *Server) ServeUDP(pc net.PacketConn) error {
	if !s.track(pc, nil) {
		pc.Close()
		return ErrServerClosed
	}
	defer s.serving.Done()
	readers := max(runtime.GOMAXPROCS(0), 1)
	errc := make(chan error, readers)
	for range readers {
		go func() { errc <- s.readUDP(pc) }()
	}
	var first error
	for range readers {
		if err := <-errc; first == nil {
			first = err
			pc.Close() // stops the other readers
		}
	}
	if s.isClosed() {
		return ErrServerClosed
	}
	return first
}

func (s *Server) readUDP(pc net.PacketConn) error {
	if handled, err := s.readUDPBatches(pc); handled {
		return err
	}
	in := make([]byte, maxUDPSize+1) // a larger query is no query of ours
	out := make([]byte, 0, maxUDPSize)
	udp, _ := pc.(*net.UDPConn)
	for {
		var n int
		var err error
		var from net.Addr
		var ap netip.AddrPort
		if udp != nil {
			n, ap, err = udp.ReadFromUDPAddrPort(in)
		} else {
			n, from, err = pc.ReadFrom(in)
		}
		if err != nil {
			if s.isClosed() || errors.Is(err, net.ErrClosed) {
				return err
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.stats.errors[errRead].Add(1)
			s.logger.Warn("ENUM server: UDP read", "error", err)
			continue
		}
		resp := s.serveUDPQuery(out[:0], in[:n], ap, udp != nil)
		if resp == nil {
			continue
		}
		if udp != nil {
			_, err = udp.WriteToUDPAddrPort(resp, ap)
		} else {
			_, err = pc.WriteTo(resp, from)
		}
		if err != nil && !s.isClosed() {
			s.stats.errors[errWrite].Add(1)
		}
	}
}

// serveUDPQuery answers one UDP packet, rate limited per source address
// (when the source is known): nil when nothing is to be sent.
func (s *Server) serveUDPQuery(dst, q []byte, from netip.AddrPort, known bool) []byte {
	if s.limiter != nil && known {
		switch s.limiter.take(from.Addr(), time.Now()) {
		case dropOver:
			s.stats.limited[limitDropped].Add(1)
			return nil
		case slipTC:
			s.stats.limited[limitSlipped].Add(1)
			resp, out := s.answer(dst, q, 0)
			if out.Dropped {
				return nil
			}
			return resp
		}
	}
	resp, out := s.answer(dst, q, -1)
	s.stats.count(out)
	if out.Dropped {
		return nil
	}
	return resp
}

// ServeTCP answers the queries of the connections accepted on ln until
// Shutdown: messages with a two-byte length prefix (RFC 1035, 4.2.2),
// several per connection, answered in order (RFC 7766). Connections
// beyond MaxTCPConnections are closed at once, and a connection is closed
// when its next query does not arrive whole within TCPIdleTimeout.
func (s *Server) ServeTCP(ln net.Listener) error {
	if !s.track(nil, ln) {
		ln.Close()
		return ErrServerClosed
	}
	defer s.serving.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		s.mu.Lock()
		full := len(s.conns) >= s.maxConns
		if !full && !s.closed {
			s.conns[c] = struct{}{}
			s.serving.Add(1)
		}
		closed := s.closed
		s.mu.Unlock()
		if full || closed {
			s.stats.errors[errTCPRefused].Add(1)
			c.Close()
			continue
		}
		go s.serveConn(c)
	}
}

func (s *Server) serveConn(c net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
		s.serving.Done()
	}()
	in := make([]byte, 2+maxUDPSize)
	out := make([]byte, 0, 2+maxTCPSize)
	for {
		c.SetReadDeadline(time.Now().Add(s.idle))
		// Shutdown closes s.shutdown before it sets the connections'
		// deadlines to now: either this sees it closed, or Shutdown's
		// deadline comes after this one.
		if s.isClosed() {
			return
		}
		if _, err := io.ReadFull(c, in[:2]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint16(in))
		if n > len(in) {
			s.stats.errors[errMalformed].Add(1)
			return // no query of ours is this long
		}
		if _, err := io.ReadFull(c, in[:n]); err != nil {
			return
		}
		resp, o := s.Answer(out[:2], in[:n], true) // counted
		if o.Dropped {
			return
		}
		binary.BigEndian.PutUint16(resp, uint16(len(resp)-2))
		c.SetWriteDeadline(time.Now().Add(s.idle))
		if _, err := c.Write(resp); err != nil {
			s.stats.errors[errWrite].Add(1)
			return
		}
	}
}

func (s *Server) isClosed() bool {
	select {
	case <-s.shutdown:
		return true
	default:
		return false
	}
}

func (s *Server) closeSockets() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pc := range s.packets {
		pc.Close()
	}
	for _, ln := range s.lns {
		ln.Close()
	}
}

// Shutdown stops the server: it closes the sockets, so that no query is
// read any more, closes the TCP connections once their answer in progress
// is written, and waits for every goroutine of the server to end, or for
// ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.shutdown)
	}
	for c := range s.conns {
		// Wakes a connection waiting for its next query; an answer being
		// written has its own deadline.
		c.SetReadDeadline(time.Now())
	}
	s.mu.Unlock()
	s.closeSockets()
	done := make(chan struct{})
	go func() { s.serving.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// counters are the server's statistics.
type counters struct {
	queries [numQTypes][len(rcodes)]atomic.Uint64
	limited [2]atomic.Uint64
	errors  [numErrors]atomic.Uint64
}

const (
	limitDropped = iota
	limitSlipped
)

const (
	errMalformed = iota
	errRead
	errWrite
	errTCPRefused
	numErrors
)

func (c *counters) count(o Outcome) {
	if o.Dropped {
		c.errors[errMalformed].Add(1)
		return
	}
	c.queries[o.Type][rcodeIndex(o.RCode)].Add(1)
}

// Stats are the server's counts since New.
type Stats struct {
	// Queries counts the answered queries by type and response code.
	Queries map[QueryKey]uint64
	// RateLimitedDropped and RateLimitedSlipped count the UDP queries over
	// a client's rate limit that were dropped and answered truncated.
	RateLimitedDropped, RateLimitedSlipped uint64
	// Malformed counts packets dropped unanswered (too short to be DNS
	// messages, responses, TCP messages longer than any query);
	// ReadErrors and WriteErrors the socket's errors; TCPRefused the
	// connections closed at once because MaxTCPConnections were open.
	Malformed, ReadErrors, WriteErrors, TCPRefused uint64
}

// QueryKey is a query type and response code.
type QueryKey struct {
	Type  QType
	RCode RCode
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	st := Stats{Queries: map[QueryKey]uint64{}}
	for t := range numQTypes {
		for i, rc := range rcodes {
			if n := s.stats.queries[t][i].Load(); n > 0 {
				st.Queries[QueryKey{t, rc}] = n
			}
		}
	}
	st.RateLimitedDropped = s.stats.limited[limitDropped].Load()
	st.RateLimitedSlipped = s.stats.limited[limitSlipped].Load()
	st.Malformed = s.stats.errors[errMalformed].Load()
	st.ReadErrors = s.stats.errors[errRead].Load()
	st.WriteErrors = s.stats.errors[errWrite].Load()
	st.TCPRefused = s.stats.errors[errTCPRefused].Load()
	return st
}

// QueryCount returns the number of queries of type t answered with rc,
// for metrics read at every scrape.
func (s *Server) QueryCount(t QType, rc RCode) uint64 {
	return s.stats.queries[t][rcodeIndex(rc)].Load()
}

// QTypes and RCodes list the query types and response codes Stats and
// QueryCount tell apart, for metrics.
func QTypes() []QType {
	return []QType{QTypeNAPTR, QTypeSOA, QTypeNS, QTypeANY, QTypeAXFR, QTypeIXFR, QTypeOther, QTypeNone}
}

// RCodes lists the response codes the server answers with.
func RCodes() []RCode { return append([]RCode(nil), rcodes[:]...) }
