package enum

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"github.com/numenhq/numen/mnp"
)

// Defaults of New's options.
const (
	DefaultSuffix       = "e164.arpa."
	DefaultTimeout      = 500 * time.Millisecond
	DefaultUDPSize      = 1232 // EDNS0 buffer of the DNS flag day 2020: no IP fragments
	DefaultCacheEntries = 100_000
	DefaultMaxTTL       = 10 * time.Minute
)

// Backend is an mnp.PortabilityBackend that asks ENUM servers for the
// NAPTR records of numbers (see the package documentation). It is safe
// for concurrent use.
type Backend struct {
	name    string
	servers []string
	suffix  string
	timeout time.Duration
	udpSize uint16
	udp     *dns.Client
	tcp     *dns.Client
	rns     map[string]string // normalised routing-number prefix -> MCCMNC
	rnMax   int               // the longest prefix
	res     regexps
	cache   *cache // nil: answers are not kept

	netMu    sync.RWMutex
	networks map[string]string // MCCMNCs seen in answers, interned
}

// Option configures New.
type Option func(*options)

type options struct {
	name         string
	suffix       string
	timeout      time.Duration
	udpSize      int
	rns          map[string]string
	cacheEntries int
	maxTTL       time.Duration
}

// WithName names the backend in errors (default "enum(<first server>)").
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithSuffix sets the domain under which numbers are looked up: "e164.arpa."
// (the default, the public tree) or a private tree such as
// "e164.example.net.".
func WithSuffix(suffix string) Option { return func(o *options) { o.suffix = suffix } }

// WithTimeout bounds each exchange with a server (default 500 ms): the
// question over UDP, and again the retry over TCP of a truncated answer.
// The lookup's context deadline bounds the whole.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithUDPSize sets the EDNS0 UDP payload size the backend announces
// (default 1232; 512 sends no EDNS0). Larger answers come truncated and are
// asked again over TCP.
func WithUDPSize(n int) Option { return func(o *options) { o.udpSize = n } }

// WithRoutingNumbers sets the table that maps a routing number (rn) to the
// network it routes to: rn prefix -> MCCMNC. The longest prefix of an rn
// wins. Prefixes are compared without case and without the visual
// separators of RFC 3966 (- . ( )), a global rn with its "+"
// ("+4917": "26203", "D262": "26203").
func WithRoutingNumbers(table map[string]string) Option {
	return func(o *options) { o.rns = table }
}

// WithCache keeps up to entries answers, each for its DNS TTL but never
// longer than maxTTL (defaults 100,000 and 10 minutes). WithCache(0, 0)
// keeps none.
func WithCache(entries int, maxTTL time.Duration) Option {
	return func(o *options) { o.cacheEntries, o.maxTTL = entries, maxTTL }
}

// New returns a backend that asks servers in order: the first, then on
// failure the next. A server is "host:port" or "host" (port 53); host is
// an IP address or a name the system resolves.
func New(servers []string, opts ...Option) (*Backend, error) {
	o := options{suffix: DefaultSuffix, timeout: DefaultTimeout, udpSize: DefaultUDPSize, cacheEntries: DefaultCacheEntries, maxTTL: DefaultMaxTTL}
	for _, opt := range opts {
		opt(&o)
	}
	if len(servers) == 0 {
		return nil, errors.New("enum: no server")
	}
	b := &Backend{name: o.name, timeout: o.timeout, networks: map[string]string{}}
	for i, s := range servers {
		addr, err := serverAddr(s)
		if err != nil {
			return nil, fmt.Errorf("enum: servers[%d]: %w", i, err)
		}
		b.servers = append(b.servers, addr)
	}
	if b.name == "" {
		b.name = "enum(" + b.servers[0] + ")"
	}
	suffix := strings.ToLower(dns.Fqdn(strings.TrimSpace(o.suffix)))
	if _, ok := dns.IsDomainName(suffix); !ok || suffix == "." {
		return nil, fmt.Errorf("enum: suffix %q is not a domain name", o.suffix)
	}
	b.suffix = suffix
	if o.timeout <= 0 {
		return nil, fmt.Errorf("enum: timeout %v is not positive", o.timeout)
	}
	if o.udpSize < 512 || o.udpSize > 65535 {
		return nil, fmt.Errorf("enum: UDP size %d is not between 512 and 65535", o.udpSize)
	}
	b.udpSize = uint16(o.udpSize)
	b.udp = &dns.Client{Net: "udp", Timeout: o.timeout, UDPSize: b.udpSize}
	b.tcp = &dns.Client{Net: "tcp", Timeout: o.timeout}
	b.rns = map[string]string{}
	for prefix, mccmnc := range o.rns {
		var buf [64]byte
		key := normalRN(buf[:0], []byte(prefix))
		switch {
		case len(key) == 0 || len(key) > len(buf):
			return nil, fmt.Errorf("enum: routing number %q: want 1 to %d characters besides separators", prefix, len(buf))
		case (len(mccmnc) != 5 && len(mccmnc) != 6) || !allDigits([]byte(mccmnc)):
			return nil, fmt.Errorf("enum: routing number %q: MCCMNC %q is not 5 or 6 digits", prefix, mccmnc)
		}
		if old, ok := b.rns[string(key)]; ok && old != mccmnc {
			return nil, fmt.Errorf("enum: routing number %q is given twice, for %s and %s", prefix, old, mccmnc)
		}
		b.rns[string(key)] = mccmnc
		b.rnMax = max(b.rnMax, len(key))
		b.networks[mccmnc] = mccmnc
	}
	switch {
	case o.cacheEntries < 0 || o.maxTTL < 0:
		return nil, errors.New("enum: cache size and maximum TTL must not be negative")
	case o.cacheEntries > 0 && o.maxTTL > 0:
		b.cache = newCache(o.cacheEntries, o.maxTTL)
	}
	return b, nil
}

// serverAddr checks a server and adds port 53 when it has none.
func serverAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty server address")
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// No port: a host name or a bare address (IPv6 ones unbracketed).
		if strings.ContainsAny(s, "[]/ ") || strings.Count(s, ":") == 1 {
			return "", fmt.Errorf("%q is not host:port or host", s)
		}
		return net.JoinHostPort(s, "53"), nil
	}
	if host == "" || port == "" {
		return "", fmt.Errorf("%q is not host:port or host", s)
	}
	return s, nil
}

// Name returns the backend's name, as its errors carry it.
func (b *Backend) Name() string { return b.name }

// Servers returns the servers in the order they are asked, with ports.
func (b *Backend) Servers() []string { return append([]string(nil), b.servers...) }

// record is what the backend keeps of one number's answer: whether it had
// a portability record, and what it says. It holds no pointer into an
// answer: network is interned.
type record struct {
	found   bool   // a portability record (rn, mcc/mnc)
	network string // MCCMNC when found
	ported  mnp.Bool
	rn      bool // the record had a routing number
}

// answer is the engine's answer for q from r.
func (r record) answer(q mnp.Query) mnp.PortAnswer {
	if !r.found {
		return mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: q.MCCMNC}}
	}
	ported := r.ported
	if !ported.Known() {
		if q.MCCMNC != "" {
			ported = mnp.BoolOf(r.network != q.MCCMNC)
		} else {
			ported = mnp.BoolOf(r.rn)
		}
	}
	return mnp.PortAnswer{Status: mnp.Completed, Ported: ported, Network: mnp.NetworkRef{MCCMNC: r.network}}
}

// Portability implements mnp.PortabilityBackend: it asks for the NAPTR
// records of q.Number, or answers from the cache. An answer from the cache
// allocates nothing.
func (b *Backend) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	var buf [24]byte
	digits := q.Number.AppendTo(buf[:0])
	if len(digits) > 0 && digits[0] == '+' {
		digits = digits[1:]
	}
	if len(digits) == 0 || !allDigits(digits) {
		return mnp.PortAnswer{}, &mnp.BackendError{Backend: b.name, Code: mnp.CodeInternal, Err: errors.New("query without an E.164 number")}
	}
	now := time.Now()
	if b.cache != nil {
		if r, ok := b.cache.get(digits, now); ok {
			return r.answer(q), nil
		}
	}
	r, ttl, err := b.lookup(ctx, digits)
	if err != nil {
		return mnp.PortAnswer{}, err
	}
	if b.cache != nil && ttl > 0 {
		b.cache.put(string(digits), r, now, ttl)
	}
	return r.answer(q), nil
}

// QueryName returns the ENUM domain name of the E.164 digits under
// suffix: the digits reversed, one label each, then the suffix (RFC 6116:
// "4915112345678" -> "8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa.").
func QueryName(digits, suffix string) string {
	return string(appendQueryName(nil, []byte(strings.TrimPrefix(digits, "+")), dns.Fqdn(suffix)))
}

func appendQueryName(dst, digits []byte, suffix string) []byte {
	for i := len(digits) - 1; i >= 0; i-- {
		dst = append(dst, digits[i], '.')
	}
	return append(dst, suffix...)
}

// lookup asks the servers in order for the record of digits, and returns
// it with how long it may be kept (0: not at all).
func (b *Backend) lookup(ctx context.Context, digits []byte) (record, time.Duration, error) {
	var nameBuf [96]byte
	name := string(appendQueryName(nameBuf[:0], digits, b.suffix))
	var ausBuf [24]byte
	aus := append(append(ausBuf[:0], '+'), digits...)
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeNAPTR)
	if b.udpSize > 512 {
		m.SetEdns0(b.udpSize, false)
	}
	var errs []error
	code := mnp.CodeUnavailable
	for _, server := range b.servers {
		if err := ctx.Err(); err != nil {
			break
		}
		r, ttl, err := b.ask(ctx, server, m, name, aus)
		if err == nil {
			return r, ttl, nil
		}
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return record{}, 0, fmt.Errorf("%s: %s: %w", b.name, server, ctx.Err())
		}
		code = codeOf(err)
		errs = append(errs, fmt.Errorf("%s: %w", server, err))
	}
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.Canceled) {
			return record{}, 0, fmt.Errorf("%s: %w", b.name, err)
		}
		errs = append(errs, err)
		code = mnp.CodeTimeout
	}
	return record{}, 0, mnp.Unavailable(b.name, code, errors.Join(errs...))
}

// errBadAnswer marks an answer that cannot be read.
var errBadAnswer = errors.New("unreadable answer")

// rcodeError is an answer whose rcode is an error (SERVFAIL, REFUSED, ...).
type rcodeError int

func (e rcodeError) Error() string {
	if s, ok := dns.RcodeToString[int(e)]; ok {
		return "answered " + s
	}
	return fmt.Sprintf("answered rcode %d", int(e))
}

// codeOf is the error code for a failed exchange.
func codeOf(err error) mnp.ErrorCode {
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return mnp.CodeTimeout
	case errors.Is(err, errBadAnswer), errors.Is(err, ErrBadRegexp), errors.Is(err, ErrBadURI), errors.Is(err, ErrUnknownRN):
		return mnp.CodeBadProviderAnswer
	case errors.As(err, &oe):
		return mnp.CodeNetworkUnreachable
	}
	return mnp.CodeUnavailable
}

// ask makes one exchange with server, over UDP and again over TCP when
// the answer is truncated, and reads the answer. The clients' timeout
// bounds each exchange (package dns sets it as the deadline of the
// socket, or ctx's deadline when that is earlier), without a timer of
// its own.
func (b *Backend) ask(ctx context.Context, server string, m *dns.Msg, name string, aus []byte) (record, time.Duration, error) {
	resp, _, err := b.udp.ExchangeContext(ctx, m, server)
	if err == nil && resp.Truncated {
		resp, _, err = b.tcp.ExchangeContext(ctx, m, server)
		if err != nil {
			err = fmt.Errorf("over TCP after a truncated answer: %w", err)
		}
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return record{}, 0, err
	}
	return b.read(resp, name, aus)
}

// read turns an answer into a record: see the package documentation.
func (b *Backend) read(resp *dns.Msg, name string, aus []byte) (record, time.Duration, error) {
	if len(resp.Question) != 1 || !strings.EqualFold(resp.Question[0].Name, name) || resp.Question[0].Qtype != dns.TypeNAPTR {
		return record{}, 0, fmt.Errorf("%w: an answer to another question", errBadAnswer)
	}
	switch resp.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		return record{}, negativeTTL(resp), nil
	default:
		return record{}, 0, rcodeError(resp.Rcode)
	}
	r, ttl, found, err := b.readNAPTRs(resp.Answer, name, aus)
	if err != nil {
		return record{}, 0, err
	}
	if !found && ttl == 0 {
		ttl = negativeTTL(resp)
	}
	return r, ttl, nil
}

// negativeTTL is how long a negative answer may be kept (RFC 2308): the
// lesser of its SOA's TTL and minimum; 0 without a SOA.
func negativeTTL(resp *dns.Msg) time.Duration {
	for _, rr := range resp.Ns {
		if soa, ok := rr.(*dns.SOA); ok {
			return time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second
		}
	}
	return 0
}

// readNAPTRs picks the record that answers from the NAPTRs of name in
// rrs, lowest order then preference first: the first E2U+pstn:tel or
// E2U+pstn:sip record with flag "u" whose expression matches aus and
// gives a telephone number. It returns the TTL of the NAPTRs (their
// least), and whether any NAPTR of name was there.
func (b *Backend) readNAPTRs(rrs []dns.RR, name string, aus []byte) (r record, ttl time.Duration, seen bool, err error) {
	var minTTL uint32
	for _, rr := range rrs {
		if n, ok := rr.(*dns.NAPTR); ok && strings.EqualFold(n.Hdr.Name, name) {
			if !seen || n.Hdr.Ttl < minTTL {
				minTTL = n.Hdr.Ttl
			}
			seen = true
		}
	}
	if !seen {
		return record{}, 0, false, nil
	}
	ttl = time.Duration(minTTL) * time.Second
	// Visit the NAPTRs by (order, preference, position), lowest first,
	// without sorting a copy: len(rrs) is small and this allocates
	// nothing.
	last := int64(-1)
	for {
		best, bestKey := (*dns.NAPTR)(nil), int64(-1)
		for i, rr := range rrs {
			n, ok := rr.(*dns.NAPTR)
			if !ok || !strings.EqualFold(n.Hdr.Name, name) {
				continue
			}
			key := int64(n.Order)<<32 | int64(n.Preference)<<16 | int64(i&0xffff)
			if key > last && (best == nil || key < bestKey) {
				best, bestKey = n, key
			}
		}
		if best == nil {
			return record{}, ttl, true, nil // no record about portability
		}
		last = bestKey
		r, ok, err := b.readNAPTR(best, aus)
		if err != nil {
			return record{}, 0, true, fmt.Errorf("NAPTR %d %d %q %q %q: %w", best.Order, best.Preference, clip(best.Flags), clip(best.Service), clip(best.Regexp), err)
		}
		if ok {
			return r, ttl, true, nil
		}
	}
}

// readNAPTR reads one NAPTR: ok is false when it does not apply (another
// service, a non-terminal rule, an expression that does not match, a URI
// that is not a telephone number).
func (b *Backend) readNAPTR(n *dns.NAPTR, aus []byte) (r record, ok bool, err error) {
	if !strings.EqualFold(n.Service, "E2U+pstn:tel") && !strings.EqualFold(n.Service, "E2U+pstn:sip") {
		return record{}, false, nil
	}
	if !strings.EqualFold(n.Flags, "u") {
		return record{}, false, nil
	}
	return b.rewrite(n.Regexp, aus)
}

// rewrite applies a NAPTR's regexp field (as package dns presents it) to
// aus and reads the URI it makes. For the expressions ENUM servers send
// (^.*$, no escapes) and known networks it allocates nothing.
func (b *Backend) rewrite(field string, aus []byte) (r record, ok bool, err error) {
	expr, err := unescape(field)
	if err != nil {
		return record{}, false, err
	}
	e, err := parseSubst(expr)
	if err != nil {
		return record{}, false, err
	}
	var buf [256]byte
	uri, matched, err := e.apply(buf[:0], aus, &b.res)
	if err != nil || !matched {
		return record{}, false, err
	}
	info, err := parseURI(uri)
	if err != nil || !info.phone {
		return record{}, false, err
	}
	return b.resolve(info)
}

// resolve maps a URI's parameters to a record.
func (b *Backend) resolve(info uriInfo) (record, bool, error) {
	r := record{ported: info.ported, rn: info.rn != nil}
	switch {
	case info.mcc != nil:
		var buf [6]byte
		r.found, r.network = true, b.intern(append(append(buf[:0], info.mcc...), info.mnc...))
	case info.rn != nil:
		network, ok := b.routingNetwork(info.rn)
		if !ok {
			return record{}, false, fmt.Errorf("%w: rn=%s", ErrUnknownRN, clip(string(info.rn)))
		}
		r.found, r.network = true, network
	default:
		// npdi alone, or nothing: no portability record.
		return record{}, true, nil
	}
	return r, true, nil
}

// routingNetwork maps a routing number to its network: the longest
// prefix in the table.
func (b *Backend) routingNetwork(rn []byte) (string, bool) {
	var buf [64]byte
	key := normalRN(buf[:0], rn)
	for l := min(len(key), b.rnMax); l > 0; l-- {
		if network, ok := b.rns[string(key[:l])]; ok {
			return network, true
		}
	}
	return "", false
}

// normalRN appends a routing number to dst upper-cased and without RFC
// 3966's visual separators.
func normalRN(dst, rn []byte) []byte {
	for _, c := range rn {
		switch {
		case c == '-' || c == '.' || c == '(' || c == ')':
			continue
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// maxNetworks bounds the interned MCCMNCs: there are about 2,000
// networks in the world.
const maxNetworks = 10_000

// intern returns mccmnc as a string the backend keeps, so that reading
// an answer about a known network allocates nothing.
func (b *Backend) intern(mccmnc []byte) string {
	b.netMu.RLock()
	s, ok := b.networks[string(mccmnc)]
	b.netMu.RUnlock()
	if ok {
		return s
	}
	s = string(mccmnc)
	b.netMu.Lock()
	if len(b.networks) < maxNetworks {
		b.networks[s] = s
	}
	b.netMu.Unlock()
	return s
}
