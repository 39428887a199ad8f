package enumserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp/enum/enumtest"
)

// lookPath finds a program the tests need, or fails naming the Debian
// package that has it (.ci/deps installs them).
func lookPath(t testing.TB, prog, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Fatalf("%s is needed (Debian package %s; .ci/deps installs it): %v", prog, pkg, err)
	}
	return p
}

// startServer serves s on a loopback port until the test ends.
func startServer(t testing.TB, s *Server) string {
	t.Helper()
	pc, ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(pc, ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != ErrServerClosed {
			t.Errorf("Serve: %v", err)
		}
	})
	return pc.LocalAddr().String()
}

// knotZone is the zone file of the records the test numbers answer, as
// Knot serves them: the same SOA and NS as the server's, and each NAPTR.
func knotZone(suffix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ORIGIN %s\n$TTL 60\n@ SOA localhost. hostmaster.localhost. %d 3600 600 86400 60\n@ NS localhost.\n", suffix, testSerial)
	for _, tc := range answerCases {
		if tc.regexp != "" {
			fmt.Fprintf(&b, "%s NAPTR 100 10 \"u\" \"E2U+pstn:tel\" \"%s\" .\n", enumName(tc.number, suffix), tc.regexp)
		}
	}
	return b.String()
}

// comparable is what must match between two answers.
func comparable(m *dns.Msg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rcode %s qr=%v aa=%v tc=%v rd=%v ra=%v\n", dns.RcodeToString[m.Rcode], m.Response, m.Authoritative, m.Truncated, m.RecursionDesired, m.RecursionAvailable)
	for _, q := range m.Question {
		fmt.Fprintf(&b, "question %s\n", strings.ToLower(q.String()))
	}
	for _, sec := range []struct {
		name string
		rrs  []dns.RR
	}{{"answer", m.Answer}, {"authority", m.Ns}} {
		for _, rr := range sec.rrs {
			rr.Header().Name = strings.ToLower(rr.Header().Name)
			fmt.Fprintf(&b, "%s %s\n", sec.name, rr.String())
		}
	}
	return b.String()
}

// TestAgainstKnot compares the server's answers with Knot's for the same
// records as a zone, record by record, over UDP and TCP: ported, not
// ported, invalid numbers, other types, names outside the suffix. The
// documented differences are checked as such.
func TestAgainstKnot(t *testing.T) {
	t.Parallel()
	const suffix = "e164.arpa."
	knot := enumtest.StartKnot(t, enumtest.Zone{Origin: suffix, Text: knotZone(suffix)}).Addr()
	numen := startServer(t, testServer(t, nil))

	number := enumName("+4915123456789", suffix)
	queries := []struct {
		name  string
		qtype uint16
	}{
		{"apex", dns.TypeSOA}, {"apex", dns.TypeNS}, {"apex", dns.TypeNAPTR}, {"apex", dns.TypeA},
		{number, dns.TypeA}, {number, dns.TypeTXT}, {number, dns.TypeSOA}, {number, dns.TypeNS},
		{strings.ToUpper(number), dns.TypeNAPTR},
		{"a.9.4." + suffix, dns.TypeNAPTR},
		{"x." + number, dns.TypeNAPTR},
		{"example.com.", dns.TypeA}, {"arpa.", dns.TypeSOA}, {"e164.example.", dns.TypeNAPTR},
	}
	for _, tc := range answerCases {
		queries = append(queries, struct {
			name  string
			qtype uint16
		}{enumName(tc.number, suffix), dns.TypeNAPTR})
	}
	for _, proto := range []string{"udp", "tcp"} {
		for _, edns := range []bool{false, true} {
			c := &dns.Client{Net: proto, Timeout: 5 * time.Second}
			for _, q := range queries {
				name := q.name
				if name == "apex" {
					name = suffix
				}
				m := new(dns.Msg)
				m.SetQuestion(name, q.qtype)
				if edns {
					m.SetEdns0(1232, false)
				}
				want, _, err := c.Exchange(m, knot)
				if err != nil {
					t.Fatalf("knot %s %s: %v", proto, name, err)
				}
				got, _, err := c.Exchange(m, numen)
				if err != nil {
					t.Fatalf("numen %s %s: %v", proto, name, err)
				}
				if g, w := comparable(got), comparable(want); g != w {
					t.Errorf("%s edns=%v %s %s:\nnumen:\n%sknot:\n%s", proto, edns, name, dns.TypeToString[q.qtype], g, w)
				}
				if (got.IsEdns0() != nil) != edns || (want.IsEdns0() != nil) != edns {
					t.Errorf("%s %s: OPT in the answer: numen %v, knot %v", proto, name, got.IsEdns0() != nil, want.IsEdns0() != nil)
				}
			}
		}
	}

	// The differences, by design (package documentation):
	c := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	// A name above a number (an empty non-terminal of Knot's zone) is an
	// incomplete number, which does not exist.
	m := new(dns.Msg)
	m.SetQuestion("9.4."+suffix, dns.TypeNAPTR)
	if r, _, err := c.Exchange(m, numen); err != nil || r.Rcode != dns.RcodeNameError {
		t.Errorf("numen, incomplete number: %v %v", r, err)
	}
	if r, _, err := c.Exchange(m, knot); err != nil || r.Rcode != dns.RcodeSuccess {
		t.Errorf("knot, empty non-terminal: %v %v", r, err)
	}
	// Zone transfers: REFUSED (Knot: NOTAUTH without an ACL).
	m.SetAxfr(suffix)
	if r, _, err := c.Exchange(m, numen); err != nil || r.Rcode != dns.RcodeRefused {
		t.Errorf("numen, AXFR: %v %v", r, err)
	}
	if r, _, err := c.Exchange(m, knot); err != nil || r.Rcode != dns.RcodeNotAuth {
		t.Errorf("knot, AXFR: %v %v", r, err)
	}
}

// TestKdig asks the server with kdig, over UDP and TCP, and compares its
// output with kdig's of Knot serving the same records.
func TestKdig(t *testing.T) {
	t.Parallel()
	kdig := lookPath(t, "kdig", "knot-dnsutils")
	const suffix = "e164.arpa."
	knot := enumtest.StartKnot(t, enumtest.Zone{Origin: suffix, Text: knotZone(suffix)}).Addr()
	numen := startServer(t, testServer(t, nil))
	id := regexp.MustCompile(`id: \d+`)
	run := func(addr string, args ...string) string {
		host, port, _ := net.SplitHostPort(addr)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, kdig, append([]string{"@" + host, "-p", port, "+noall", "+header", "+answer", "+authority", "+retry=1", "+time=3"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kdig %v: %v\n%s", args, err, out)
		}
		return id.ReplaceAllString(string(out), "id: ID")
	}
	for _, tc := range answerCases {
		for _, proto := range []string{"+notcp", "+tcp"} {
			name := enumName(tc.number, suffix)
			got, want := run(numen, proto, name, "NAPTR"), run(knot, proto, name, "NAPTR")
			if got != want {
				t.Errorf("kdig %s %s NAPTR:\nnumen:\n%s\nknot:\n%s", proto, name, got, want)
			}
			if tc.regexp != "" && !strings.Contains(got, tc.regexp) {
				t.Errorf("kdig %s: no %s in\n%s", name, tc.regexp, got)
			}
		}
	}
	got := run(numen, "example.com", "A")
	if !strings.Contains(got, "status: REFUSED") {
		t.Errorf("kdig example.com:\n%s", got)
	}
}

// TestDnsperf sends every query of the test numbers, and invalid ones,
// through dnsperf to the server and to Knot serving the same records:
// none lost, the same response codes from both. (Not a timed test: the
// rates are benchmarks/enum/run.sh's.)
func TestDnsperf(t *testing.T) {
	t.Parallel()
	dnsperf := lookPath(t, "dnsperf", "dnsperf")
	const suffix = "e164.arpa."
	knot := enumtest.StartKnot(t, enumtest.Zone{Origin: suffix, Text: knotZone(suffix)}).Addr()
	numen := startServer(t, testServer(t, nil))
	var queries strings.Builder
	for _, tc := range answerCases {
		fmt.Fprintf(&queries, "%s NAPTR\n%s A\n", enumName(tc.number, suffix), enumName(tc.number, suffix))
	}
	queries.WriteString("e164.arpa. SOA\ne164.arpa. NS\nexample.com. A\n")
	file := filepath.Join(t.TempDir(), "queries")
	if err := os.WriteFile(file, []byte(queries.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	codes := regexp.MustCompile(`Response codes:\s+(.*)`)
	run := func(addr string) string {
		host, port, _ := net.SplitHostPort(addr)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, dnsperf, "-s", host, "-p", port, "-d", file, "-n", "20", "-c", "2", "-t", "5").CombinedOutput()
		if err != nil {
			t.Fatalf("dnsperf: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "Queries lost:         0 ") {
			t.Errorf("queries lost:\n%s", out)
		}
		m := codes.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("no response codes in\n%s", out)
		}
		return m[1]
	}
	if got, want := run(numen), run(knot); got != want {
		t.Errorf("response codes: numen %s, knot %s", got, want)
	} else {
		t.Logf("both: %s", got)
	}
}
