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
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
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

// freePort returns a loopback port free for UDP and TCP just now.
func freePort(t testing.TB) string {
	t.Helper()
	pc, ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	ln.Close()
	return addr
}

// startKnot starts knotd serving zone (a zone file's text) for origin on
// a loopback port, and returns its address; the test's cleanup stops it.
func startKnot(t testing.TB, origin, zone string) string {
	t.Helper()
	knotd := lookPath(t, "knotd", "knot")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zone"), []byte(zone), 0o644); err != nil {
		t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		addr := freePort(t)
		host, port, _ := net.SplitHostPort(addr)
		conf := fmt.Sprintf(`server:
    listen: %s@%s
    rundir: %s
log:
  - target: stderr
    any: warning
database:
    storage: %s
zone:
  - domain: %s
    file: %s
    storage: %s
    zonefile-sync: -1
    journal-content: none
`, host, port, dir, filepath.Join(dir, "db"), origin, filepath.Join(dir, "zone"), dir)
		confPath := filepath.Join(dir, "knot.conf")
		if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		var logs strings.Builder
		cmd := exec.Command(knotd, "-c", confPath)
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		}
		// Ready when it answers the zone's SOA (at most 10 s).
		c := &dns.Client{Timeout: 200 * time.Millisecond}
		m := new(dns.Msg)
		m.SetQuestion(origin, dns.TypeSOA)
		deadline := time.Now().Add(10 * time.Second)
		for {
			r, _, err := c.Exchange(m, addr)
			if err == nil && r.Rcode == dns.RcodeSuccess && len(r.Answer) == 1 {
				t.Cleanup(stop)
				return addr
			}
			select {
			case err := <-exited:
				if attempt < 3 && strings.Contains(logs.String(), "Address already in use") {
					goto again
				}
				t.Fatalf("knotd exited: %v\n%s", err, logs.String())
			default:
			}
			if time.Now().After(deadline) {
				stop()
				t.Fatalf("knotd did not answer within 10 s\n%s", logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	again:
	}
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
	knot := startKnot(t, suffix, knotZone(suffix))
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
	knot := startKnot(t, suffix, knotZone(suffix))
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
	knot := startKnot(t, suffix, knotZone(suffix))
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
