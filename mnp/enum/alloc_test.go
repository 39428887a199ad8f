package enum

import (
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp"
)

const (
	testName   = "8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa."
	testAUS    = "+4915112345678"
	testRegexp = "!^.*$!tel:+4915112345678;npdi;rn=D262;rn-context=+49;mcc=262;mnc=03!"
)

// answerMsg is an answer as Numen's ENUM server sends it.
func answerMsg(t testing.TB, regexps ...string) *dns.Msg {
	m := new(dns.Msg)
	m.SetQuestion(testName, dns.TypeNAPTR)
	r := new(dns.Msg)
	r.SetReply(m)
	for i, re := range regexps {
		r.Answer = append(r.Answer, &dns.NAPTR{
			Hdr:   dns.RR_Header{Name: testName, Rrtype: dns.TypeNAPTR, Class: dns.ClassINET, Ttl: 60},
			Order: 100, Preference: uint16(10 + i), Flags: "u", Service: "E2U+pstn:tel", Regexp: re, Replacement: ".",
		})
	}
	// Through the wire, as package dns presents what it receives.
	wire, err := r.Pack()
	require.NoError(t, err)
	out := new(dns.Msg)
	require.NoError(t, out.Unpack(wire))
	return out
}

// TestReadAllocs: reading an answer in the dialect of Numen's server, for
// a network seen before, allocates nothing.
func TestReadAllocs(t *testing.T) {
	b, err := New([]string{"127.0.0.1"}, WithRoutingNumbers(map[string]string{"D262": "26203"}))
	require.NoError(t, err)
	for _, re := range []string{testRegexp, "!^.*$!tel:+4915112345678;npdi;rn=D262!", "!^.*$!tel:+4915112345678;npdi!"} {
		msg := answerMsg(t, re)
		r, ttl, err := b.read(msg, testName, []byte(testAUS))
		require.NoError(t, err)
		require.Equal(t, 60*time.Second, ttl)
		_ = r
		allocs := testing.AllocsPerRun(1000, func() {
			if _, _, err := b.read(msg, testName, []byte(testAUS)); err != nil {
				t.Fatal(err)
			}
		})
		require.Zero(t, allocs, "allocations reading %s", re)
	}
	r, _, err := b.read(answerMsg(t, testRegexp), testName, []byte(testAUS))
	require.NoError(t, err)
	require.Equal(t, record{found: true, network: "26203", rn: true}, r)
}

func TestCache(t *testing.T) {
	t.Parallel()
	c := newCache(3, time.Minute)
	now := time.Unix(1_700_000_000, 0)
	rec := record{found: true, network: "26203"}
	c.put("491", rec, now, time.Hour) // capped at a minute
	got, ok := c.get([]byte("491"), now.Add(59*time.Second))
	require.True(t, ok)
	require.Equal(t, rec, got)
	_, ok = c.get([]byte("491"), now.Add(time.Minute))
	require.False(t, ok, "kept beyond the maximum TTL")
	c.put("492", rec, now, 10*time.Second)
	_, ok = c.get([]byte("492"), now.Add(10*time.Second))
	require.False(t, ok, "kept beyond its TTL")
	c.put("493", rec, now, 0)
	_, ok = c.get([]byte("493"), now)
	require.False(t, ok, "kept with a TTL of 0")
	for i := range 100 {
		c.put(string(rune('a'+i%26))+"x", rec, now, time.Minute)
		require.LessOrEqual(t, c.len(), 3)
	}
	// When full, expired entries go first.
	c = newCache(2, time.Minute)
	c.put("1", rec, now, time.Second)
	c.put("2", rec, now, time.Minute)
	c.put("3", rec, now.Add(2*time.Second), time.Minute)
	_, ok = c.get([]byte("2"), now.Add(3*time.Second))
	require.True(t, ok)
	_, ok = c.get([]byte("3"), now.Add(3*time.Second))
	require.True(t, ok)
}

func TestAnswer(t *testing.T) {
	t.Parallel()
	q := mnp.Query{MCCMNC: "26201"}
	for _, c := range []struct {
		r    record
		q    mnp.Query
		want mnp.PortAnswer
	}{
		{record{}, q, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}}},
		{record{found: true, network: "26201", rn: true}, q, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}}},
		{record{found: true, network: "26203"}, q, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "26203"}}},
		{record{found: true, network: "26203", ported: mnp.False}, q, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26203"}}},
		{record{found: true, network: "26201", ported: mnp.True}, q, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "26201"}}},
		{record{found: true, network: "26203"}, mnp.Query{}, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26203"}}},
		{record{found: true, network: "26203", rn: true}, mnp.Query{}, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "26203"}}},
	} {
		require.Equal(t, c.want, c.r.answer(c.q), "%+v", c.r)
	}
}

// TestReadRcodes: rcodes other than NOERROR and NXDOMAIN are errors;
// NXDOMAIN and an empty answer are "no portability record", kept for the
// SOA's negative TTL.
func TestReadRcodes(t *testing.T) {
	t.Parallel()
	b, err := New([]string{"127.0.0.1"})
	require.NoError(t, err)
	soa := &dns.SOA{Hdr: dns.RR_Header{Name: "e164.arpa.", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300}, Minttl: 30}
	for _, rcode := range []int{dns.RcodeServerFailure, dns.RcodeRefused, dns.RcodeFormatError, dns.RcodeNotImplemented} {
		m := answerMsg(t)
		m.Rcode = rcode
		_, _, err := b.read(m, testName, []byte(testAUS))
		require.ErrorContains(t, err, "answered "+dns.RcodeToString[rcode])
	}
	for _, rcode := range []int{dns.RcodeNameError, dns.RcodeSuccess} {
		m := answerMsg(t)
		m.Rcode = rcode
		m.Ns = []dns.RR{soa}
		r, ttl, err := b.read(m, testName, []byte(testAUS))
		require.NoError(t, err)
		require.Equal(t, record{}, r)
		require.Equal(t, 30*time.Second, ttl)
	}
	// An answer to another question is not read.
	m := answerMsg(t, testRegexp)
	m.Question[0].Name = "1." + testName
	_, _, err = b.read(m, testName, []byte(testAUS))
	require.ErrorIs(t, err, errBadAnswer)
}

// BenchmarkRead reads an answer in the dialect of Numen's server into a
// record: the backend's own work on an answer, beyond the exchange.
func BenchmarkRead(b *testing.B) {
	be, err := New([]string{"127.0.0.1"}, WithRoutingNumbers(map[string]string{"D262": "26203"}))
	require.NoError(b, err)
	msg := answerMsg(b, testRegexp)
	aus := []byte(testAUS)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := be.read(msg, testName, aus); err != nil {
			b.Fatal(err)
		}
	}
}
