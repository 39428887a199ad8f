package enumserver

import (
	"bytes"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

var sharedPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

func testPlan(t testing.TB) *numbering.Plan {
	t.Helper()
	p, err := sharedPlan()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testCSV is the portability database of the tests: Germany only.
const testCSV = `number_or_range,mccmnc,network name
+4915123456789,26203,O2
+4917612345678,26202,Vodafone
+4917699*,26201,Telekom
`

// testRN is the rn of two of the networks; 26202 has none (its MCCMNC
// then).
var testRN = map[string]string{"26203": "+491760", "26201": "D001"}

// testSerial is the SOA serial of the tests, also in the Knot zone.
const testSerial = 2026112601

func testHolder(t testing.TB) *portdb.Holder {
	t.Helper()
	var buf bytes.Buffer
	if _, err := portdb.Build(&buf, strings.NewReader(testCSV), portdb.BuildOptions{
		Plan: testPlan(t), Regions: []string{"DE"}, Created: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), Name: "test.csv",
	}); err != nil {
		t.Fatal(err)
	}
	db, err := portdb.OpenBytes(buf.Bytes(), portdb.WithVerify())
	if err != nil {
		t.Fatal(err)
	}
	h := portdb.NewHolder(db)
	t.Cleanup(func() { h.Close() })
	return h
}

func testServer(t testing.TB, mod func(*Config)) *Server {
	t.Helper()
	cfg := Config{Plan: testPlan(t), Portability: testHolder(t), TTL: time.Minute, RN: testRN, Serial: testSerial}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// enumName is the ENUM domain of an E.164 number under suffix.
func enumName(e164, suffix string) string {
	var b strings.Builder
	d := strings.TrimPrefix(e164, "+")
	for i := len(d) - 1; i >= 0; i-- {
		b.WriteByte(d[i])
		b.WriteByte('.')
	}
	return b.String() + suffix
}

// pack packs a query for name and type, with EDNS0 when udpSize > 0.
func pack(t testing.TB, name string, qtype uint16, udpSize uint16) []byte {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.Id = 0x1234
	if udpSize > 0 {
		m.SetEdns0(udpSize, false)
	}
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ask answers a query with s over UDP and unpacks the answer.
func ask(t testing.TB, s *Server, q []byte) *dns.Msg {
	t.Helper()
	resp, out := s.Answer(nil, q, false)
	if out.Dropped {
		t.Fatalf("query dropped")
	}
	m := new(dns.Msg)
	if err := m.Unpack(resp); err != nil {
		t.Fatalf("answer does not unpack: %v\n% x", err, resp)
	}
	return m
}

func netipAddrPort(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
