package enumserver

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// The records of the test numbers, as the package documentation states
// them.
var answerCases = []struct {
	name, number string
	rcode        int
	regexp       string // "" for no NAPTR
}{
	{"ported, global rn", "+4915123456789", dns.RcodeSuccess, "!^.*$!tel:+4915123456789;npdi;rn=+491760;mcc=262;mnc=03!"},
	{"ported, network without rn", "+4917612345678", dns.RcodeSuccess, "!^.*$!tel:+4917612345678;npdi;rn=26202;rn-context=+49;mcc=262;mnc=02!"},
	{"ported by range, local rn", "+4917699000001", dns.RcodeSuccess, "!^.*$!tel:+4917699000001;npdi;rn=D001;rn-context=+49;mcc=262;mnc=01!"},
	{"not ported", "+4915123456780", dns.RcodeSuccess, "!^.*$!tel:+4915123456780;npdi;mcc=262;mnc=01!"},
	{"not ported, range without MCCMNC", "+4930123456", dns.RcodeSuccess, "!^.*$!tel:+4930123456;npdi!"},
	{"region the database does not cover", "+33612345678", dns.RcodeSuccess, "!^.*$!tel:+33612345678;mcc=208;mnc=10!"},
	{"not valid", "+4912345", dns.RcodeNameError, ""},
	{"no such calling code", "+999123", dns.RcodeNameError, ""},
}

func TestAnswerNAPTR(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	for _, tc := range answerCases {
		t.Run(tc.name, func(t *testing.T) {
			name := enumName(tc.number, "e164.arpa.")
			m := ask(t, s, pack(t, name, dns.TypeNAPTR, 0))
			if m.Id != 0x1234 || !m.Response || !m.Authoritative || m.Rcode != tc.rcode {
				t.Fatalf("header: %v", m)
			}
			if len(m.Question) != 1 || m.Question[0].Name != name {
				t.Fatalf("question: %v", m.Question)
			}
			if tc.regexp == "" {
				if len(m.Answer) != 0 || len(m.Ns) != 1 {
					t.Fatalf("answer: %v", m)
				}
				soa := m.Ns[0].(*dns.SOA)
				if soa.Hdr.Name != "e164.arpa." || soa.Serial != testSerial || soa.Minttl != 60 || soa.Ns != "localhost." || soa.Mbox != "hostmaster.localhost." {
					t.Fatalf("SOA: %v", soa)
				}
				return
			}
			if len(m.Answer) != 1 || len(m.Ns) != 0 {
				t.Fatalf("answer: %v", m)
			}
			n := m.Answer[0].(*dns.NAPTR)
			want := &dns.NAPTR{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeNAPTR, Class: dns.ClassINET, Ttl: 60, Rdlength: n.Hdr.Rdlength},
				Order: 100, Preference: 10, Flags: "u", Service: "E2U+pstn:tel", Regexp: tc.regexp, Replacement: "."}
			if *n != *want {
				t.Fatalf("got  %v\nwant %v", n, want)
			}
		})
	}
}

func TestAnswerWithoutPortability(t *testing.T) {
	t.Parallel()
	s := testServer(t, func(c *Config) { c.Portability = nil })
	m := ask(t, s, pack(t, enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR, 0))
	if got := m.Answer[0].(*dns.NAPTR).Regexp; got != "!^.*$!tel:+4915123456789;mcc=262;mnc=01!" {
		t.Fatal(got)
	}
}

func TestAnswerConfig(t *testing.T) {
	t.Parallel()
	s := testServer(t, func(c *Config) {
		c.Suffix = "E164.Example.NET"
		c.RNContext = "example.net"
		c.TTL = 3600e9
		c.NameServer = "ns1.example.net."
	})
	if s.Suffix() != "e164.example.net." {
		t.Fatal(s.Suffix())
	}
	m := ask(t, s, pack(t, enumName("+4917612345678", "e164.example.NET."), dns.TypeNAPTR, 0))
	n := m.Answer[0].(*dns.NAPTR)
	if n.Regexp != "!^.*$!tel:+4917612345678;npdi;rn=26202;rn-context=example.net;mcc=262;mnc=02!" || n.Hdr.Ttl != 3600 {
		t.Fatal(n)
	}
	// The old suffix is another zone now.
	if m := ask(t, s, pack(t, enumName("+4917612345678", "e164.arpa."), dns.TypeNAPTR, 0)); m.Rcode != dns.RcodeRefused || m.Authoritative {
		t.Fatal(m)
	}
	m = ask(t, s, pack(t, "e164.example.net.", dns.TypeSOA, 0))
	if soa := m.Answer[0].(*dns.SOA); soa.Ns != "ns1.example.net." || soa.Mbox != "hostmaster.ns1.example.net." {
		t.Fatal(soa)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	plan := testPlan(t)
	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{Config{}, "Plan"},
		{Config{Plan: plan, Suffix: "e164..arpa"}, "Suffix"},
		{Config{Plan: plan, Suffix: "e164 arpa"}, "Suffix"},
		{Config{Plan: plan, TTL: 1}, "TTL"},
		{Config{Plan: plan, RN: map[string]string{"2620": "+49"}}, "RN"},
		{Config{Plan: plan, RN: map[string]string{"26201": "a!b"}}, "RN[26201]"},
		{Config{Plan: plan, RN: map[string]string{"26201": strings.Repeat("1", 65)}}, "RN[26201]"},
		{Config{Plan: plan, RNContext: "a;b"}, "RNContext"},
		{Config{Plan: plan, NameServer: "-!"}, "NameServer"},
		{Config{Plan: plan, RateLimit: RateLimit{PerSecond: -1}}, "RateLimit"},
	} {
		_, err := New(tc.cfg)
		ce, ok := err.(*ConfigError)
		if !ok || ce.Field != tc.field {
			t.Errorf("%+v: %v, want an error of %s", tc.cfg, err, tc.field)
		}
	}
}

func TestAnswerOtherQueries(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	number := enumName("+4915123456789", "e164.arpa.")
	for _, tc := range []struct {
		name         string
		q            []byte
		rcode        int
		aa           bool
		answer, auth int
	}{
		{"other type of a number", pack(t, number, dns.TypeA, 0), dns.RcodeSuccess, true, 0, 1},
		{"ANY of a number", pack(t, number, dns.TypeANY, 0), dns.RcodeSuccess, true, 1, 0},
		{"SOA of a number", pack(t, number, dns.TypeSOA, 0), dns.RcodeSuccess, true, 0, 1},
		{"apex SOA", pack(t, "e164.arpa.", dns.TypeSOA, 0), dns.RcodeSuccess, true, 1, 0},
		{"apex NS", pack(t, "e164.arpa.", dns.TypeNS, 0), dns.RcodeSuccess, true, 1, 0},
		{"apex NAPTR", pack(t, "e164.arpa.", dns.TypeNAPTR, 0), dns.RcodeSuccess, true, 0, 1},
		{"incomplete number", pack(t, "9.4.e164.arpa.", dns.TypeNAPTR, 0), dns.RcodeNameError, true, 0, 1},
		{"letters", pack(t, "a.9.4.e164.arpa.", dns.TypeNAPTR, 0), dns.RcodeNameError, true, 0, 1},
		{"two digits a label", pack(t, "98.4.e164.arpa.", dns.TypeNAPTR, 0), dns.RcodeNameError, true, 0, 1},
		{"16 digits", pack(t, "1."+number, dns.TypeNAPTR, 0), dns.RcodeNameError, true, 0, 1},
		{"outside the suffix", pack(t, "example.com.", dns.TypeA, 0), dns.RcodeRefused, false, 0, 0},
		{"a parent of the suffix", pack(t, "arpa.", dns.TypeSOA, 0), dns.RcodeRefused, false, 0, 0},
		{"AXFR", pack(t, "e164.arpa.", dns.TypeAXFR, 0), dns.RcodeRefused, false, 0, 0},
		{"IXFR", pack(t, "e164.arpa.", dns.TypeIXFR, 0), dns.RcodeRefused, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ask(t, s, tc.q)
			if m.Rcode != tc.rcode || m.Authoritative != tc.aa || len(m.Answer) != tc.answer || len(m.Ns) != tc.auth || len(m.Extra) != 0 {
				t.Fatalf("%v", m)
			}
		})
	}
	// Class CH (version.bind and friends): refused.
	m := new(dns.Msg)
	m.SetQuestion("version.bind.", dns.TypeTXT)
	m.Question[0].Qclass = dns.ClassCHAOS
	q, _ := m.Pack()
	if r := ask(t, s, q); r.Rcode != dns.RcodeRefused {
		t.Fatal(r)
	}
}

func TestAnswerEDNS(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	name := enumName("+4915123456789", "e164.arpa.")
	m := ask(t, s, pack(t, name, dns.TypeNAPTR, 4096))
	opt := m.IsEdns0()
	if opt == nil || opt.UDPSize() != maxUDPSize || opt.Version() != 0 || len(m.Answer) != 1 {
		t.Fatalf("%v", m)
	}
	// EDNS version 1: BADVERS, with the OPT record.
	q := new(dns.Msg)
	q.SetQuestion(name, dns.TypeNAPTR)
	q.SetEdns0(1232, false)
	q.IsEdns0().SetVersion(1)
	b, _ := q.Pack()
	m = ask(t, s, b)
	if m.Rcode != dns.RcodeBadVers || len(m.Answer) != 0 || m.IsEdns0() == nil {
		t.Fatalf("%v", m)
	}
}

func TestAnswerTruncated(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	q := pack(t, enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR, 1232)
	full, _ := s.answer(nil, q, -1)
	resp, out := s.answer(nil, q, len(full)-1)
	m := new(dns.Msg)
	if err := m.Unpack(resp); err != nil {
		t.Fatal(err)
	}
	if !out.Truncated || !m.Truncated || len(m.Answer) != 0 || len(m.Question) != 1 || m.IsEdns0() == nil {
		t.Fatalf("%v", m)
	}
	// Over TCP the same answer is whole.
	resp, out = s.Answer(nil, q, true)
	if out.Truncated || len(resp) != len(full) {
		t.Fatal(out)
	}
}

func TestAnswerMalformed(t *testing.T) {
	t.Parallel()
	s := testServer(t, nil)
	good := pack(t, enumName("+4915123456789", "e164.arpa."), dns.TypeNAPTR, 0)
	withFlags := func(f uint16) []byte {
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint16(b[2:], f)
		return b
	}
	withCount := func(i int, n uint16) []byte {
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint16(b[4+2*i:], n)
		return b
	}
	pointer := append(append([]byte(nil), good[:12]...), 0xC0, 0x0C, 0, 35, 0, 1)
	for _, tc := range []struct {
		name    string
		q       []byte
		dropped bool
		rcode   int
	}{
		{"empty", nil, true, 0},
		{"short header", good[:11], true, 0},
		{"a response", withFlags(1 << 15), true, 0},
		{"opcode NOTIFY", withFlags(4 << 11), false, dns.RcodeNotImplemented},
		{"opcode UPDATE", withFlags(5 << 11), false, dns.RcodeNotImplemented},
		{"no question", withCount(0, 0), false, dns.RcodeFormatError},
		{"two questions", withCount(0, 2), false, dns.RcodeFormatError},
		{"an answer", withCount(1, 1), false, dns.RcodeFormatError},
		{"truncated name", good[:20], false, dns.RcodeFormatError},
		{"no type", good[:len(good)-3], false, dns.RcodeFormatError},
		{"compressed name", pointer, false, dns.RcodeFormatError},
		{"additional missing", withCount(3, 1), false, dns.RcodeFormatError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := s.Answer(nil, tc.q, false)
			if out.Dropped != tc.dropped {
				t.Fatalf("dropped %v", out.Dropped)
			}
			if tc.dropped {
				if len(resp) != 0 {
					t.Fatal("answered")
				}
				return
			}
			m := new(dns.Msg)
			if err := m.Unpack(resp); err != nil {
				t.Fatal(err)
			}
			if m.Rcode != tc.rcode || !m.Response || m.Id != 0x1234 {
				t.Fatalf("%v", m)
			}
		})
	}
}

// TestAnswerAllocs proves the hot path allocates nothing: a ported, a
// not ported and an invalid number, over UDP with EDNS0.
func TestAnswerAllocs(t *testing.T) {
	s := testServer(t, nil)
	var qs [][]byte
	for _, tc := range answerCases {
		qs = append(qs, pack(t, enumName(tc.number, "e164.arpa."), dns.TypeNAPTR, 1232))
	}
	buf := make([]byte, 0, maxUDPSize)
	for _, q := range qs {
		if n := testing.AllocsPerRun(100, func() { s.Answer(buf[:0], q, false) }); n != 0 {
			t.Errorf("%d allocations answering % x", int(n), q)
		}
	}
	from := netip.MustParseAddrPort("192.0.2.1:5353")
	s.limiter = newLimiter(RateLimit{PerSecond: 1e9})
	if n := testing.AllocsPerRun(100, func() { s.serveUDPQuery(buf[:0], qs[0], from, true) }); n != 0 {
		t.Errorf("%d allocations with the rate limit", int(n))
	}
}

// BenchmarkAnswer measures the query path (impl=numen) against the same
// answers made with miekg/dns messages (impl=miekgdns: unpack the query,
// build the reply and its NAPTR, pack it), the way a server built on that
// library answers; the numbers, plan and database lookups are the same.
// Compare with benchstat -col /impl.
func BenchmarkAnswer(b *testing.B) {
	s := testServer(b, nil)
	var qs [][]byte
	for _, tc := range answerCases {
		qs = append(qs, pack(b, enumName(tc.number, "e164.arpa."), dns.TypeNAPTR, 1232))
	}
	b.Run("impl=numen", func(b *testing.B) {
		buf := make([]byte, 0, maxUDPSize)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			s.Answer(buf[:0], qs[i%len(qs)], false)
		}
	})
	b.Run("impl=miekgdns", func(b *testing.B) {
		buf := make([]byte, 0, maxUDPSize)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			q := new(dns.Msg)
			if err := q.Unpack(qs[i%len(qs)]); err != nil {
				b.Fatal(err)
			}
			r := new(dns.Msg)
			r.SetReply(q)
			r.Authoritative = true
			name := q.Question[0].Name
			var digits []byte
			labels := dns.SplitDomainName(name)
			for j := len(labels) - 3; j >= 0; j-- {
				digits = append(digits, labels[j][0])
			}
			rec, rc := s.lookup(buf[:0], digits)
			if rc == RCodeNXDomain {
				r.Rcode = dns.RcodeNameError
			} else {
				re := "!^.*$!tel:+" + string(rec.digits)
				if rec.npdi {
					re += ";npdi"
				}
				if rec.rn != "" {
					re += ";rn=" + rec.rn
					if rec.rnContext != "" {
						re += ";rn-context=" + rec.rnContext
					}
				}
				if rec.mcc != "" {
					re += ";mcc=" + rec.mcc + ";mnc=" + rec.mnc
				}
				r.Answer = append(r.Answer, &dns.NAPTR{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeNAPTR, Class: dns.ClassINET, Ttl: s.ttl},
					Order: 100, Preference: 10, Flags: "u", Service: "E2U+pstn:tel", Regexp: re + "!", Replacement: "."})
			}
			r.SetEdns0(maxUDPSize, false)
			if _, err := r.PackBuffer(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
