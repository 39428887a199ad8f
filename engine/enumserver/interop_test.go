package enumserver

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/enum"
	"github.com/numenhq/numen/mnp/portdb"
)

// The interoperation of the two halves of ENUM in Numen: this package's
// server, with a portability database, asked by mnp/enum's backend (the
// client numen serve uses for {"type": "enum"}), over UDP and over TCP.
// Each answer is checked against what the same database means to
// /mnp-lookup through a portdb backend (portdb.Backend): the network
// (MCCMNC) and whether the number is ported; "no portability record"
// is the range's network, not ported.

// interopCase is a number and what the ENUM backend must answer for it.
type interopCase struct {
	name, number string
	mccmnc       string   // the network the backend answers
	ported       mnp.Bool // its porting state
	// portdbSame: the portdb backend answers the same; otherwise it has
	// no data for the number (another region, not valid) and the ENUM
	// record says "no portability record": the range's network.
	portdbSame bool
}

var interopCases = []interopCase{
	{"ported, rn global (+491760)", "+4915123456789", "26203", mnp.True, true},
	{"ported to a network without rn (its MCCMNC)", "+4917612345678", "26202", mnp.True, true},
	{"ported by range, rn national (D001)", "+4917699000001", "26201", mnp.True, true},
	{"not ported", "+4915123456780", "26201", mnp.False, true},
	{"not ported, another range", "+4917212345678", "26202", mnp.False, true},
	{"landline (npdi alone)", "+4930123456", "", mnp.False, true},
	{"region the database does not cover", "+33612345678", "20810", mnp.False, false},
}

// interopInvalid are numbers the plan does not know as valid: NXDOMAIN,
// which the backend reads as no record (/mnp-lookup rejects them before
// asking any backend).
var interopInvalid = []string{"+4912345", "+4915"}

// startTCPOnly serves s over TCP on a loopback port whose UDP side
// answers every query truncated (TC, no records), so that a client must
// come back over TCP. It returns the address and the count of UDP
// queries truncated.
func startTCPOnly(t *testing.T, s *Server) (string, *atomic.Int64) {
	t.Helper()
	var (
		ln  net.Listener
		pc  net.PacketConn
		err error
	)
	for range 50 {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if pc, err = net.ListenPacket("udp", ln.Addr().String()); err == nil {
			break
		}
		ln.Close()
	}
	if err != nil {
		t.Fatalf("no loopback port free for UDP and TCP: %v", err)
	}
	truncated := new(atomic.Int64)
	udpDone := make(chan struct{})
	go func() {
		defer close(udpDone)
		buf := make([]byte, 65535)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := new(dns.Msg)
			if q.Unpack(buf[:n]) != nil {
				continue
			}
			r := new(dns.Msg)
			r.SetReply(q)
			r.Truncated = true
			b, err := r.Pack()
			if err != nil {
				continue
			}
			truncated.Add(1)
			_, _ = pc.WriteTo(b, from)
		}
	}()
	done := make(chan error, 1)
	go func() { done <- s.ServeTCP(ln) }()
	t.Cleanup(func() {
		pc.Close()
		<-udpDone
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != ErrServerClosed {
			t.Errorf("ServeTCP: %v", err)
		}
	})
	return ln.Addr().String(), truncated
}

// serveOver serves s on a loopback port for proto: "udp" (UDP and TCP,
// the answers fit UDP) or "tcp" (every UDP answer truncated). truncated
// counts the truncated UDP answers of "tcp" (nil for "udp").
func serveOver(t *testing.T, s *Server, proto string) (addr string, truncated *atomic.Int64) {
	t.Helper()
	if proto == "tcp" {
		return startTCPOnly(t, s)
	}
	return startServer(t, s), nil
}

// answered is the count of queries s has answered, by any transport.
func answered(s *Server) uint64 {
	var n uint64
	for _, c := range s.Stats().Queries {
		n += c
	}
	return n
}

// interopQuery is the engine's query for a number: its E.164 form, its
// region and its range's MCCMNC, as /mnp-lookup makes it.
func interopQuery(t *testing.T, number string) mnp.Query {
	t.Helper()
	r := testPlan(t).ClassifyString(number)
	if r.Number.IsZero() {
		t.Fatalf("%s: not a number", number)
	}
	return mnp.Query{Number: r.Number, Region: r.CountryCode, MCCMNC: r.MCCMNC}
}

// TestInterop asks this package's server with mnp/enum's backend, over
// UDP and over TCP, under e164.arpa and under a private suffix with a
// configured rn-context, with and without a routing-number table on the
// client: every answer says the network and porting state that the
// portability database says through the portdb backend.
func TestInterop(t *testing.T) {
	t.Parallel()
	plan := testPlan(t)
	for _, tc := range interopCases {
		if r := plan.ClassifyString(tc.number); !r.Valid || r.CountryCode == "" {
			t.Fatalf("%s: %s is not a valid number of a region", tc.name, tc.number)
		}
	}
	for _, v := range []struct {
		name   string
		config func(*Config)
		opts   []enum.Option
	}{
		{"e164.arpa, rn table", nil, []enum.Option{enum.WithRoutingNumbers(map[string]string{"+491760": "26203", "D001": "26201", "26202": "26202"})}},
		{"e164.arpa, no rn table", nil, nil},
		{"private suffix, rn-context", func(c *Config) { c.Suffix = "e164.example.net."; c.RNContext = "example.net" },
			[]enum.Option{enum.WithSuffix("e164.example.net."), enum.WithRoutingNumbers(map[string]string{"+491760": "26203", "D001": "26201"})}},
	} {
		for _, proto := range []string{"udp", "tcp"} {
			t.Run(v.name+"/"+proto, func(t *testing.T) {
				t.Parallel()
				s := testServer(t, v.config)
				// The database the server answers from, read by the
				// backend /mnp-lookup would use with it.
				pdb := portdb.NewBackend(s.portdb, "portdb")
				addr, truncated := serveOver(t, s, proto)
				b, err := enum.New([]string{addr}, append(v.opts, enum.WithTimeout(5*time.Second))...)
				if err != nil {
					t.Fatal(err)
				}
				ctx := t.Context()
				for _, tc := range interopCases {
					q := interopQuery(t, tc.number)
					got, err := b.Portability(ctx, q)
					if err != nil {
						t.Errorf("%s %s: %v", tc.name, tc.number, err)
						continue
					}
					if got.Status != mnp.Completed || got.Network.MCCMNC != tc.mccmnc || got.Ported != tc.ported {
						t.Errorf("%s %s: enum answers %+v, want network %q ported %v", tc.name, tc.number, got, tc.mccmnc, tc.ported)
					}
					want, err := pdb.Portability(ctx, q)
					if err != nil {
						t.Fatalf("%s: portdb backend: %v", tc.number, err)
					}
					if tc.portdbSame {
						if want.Status != got.Status || want.Ported != got.Ported || want.Network.MCCMNC != got.Network.MCCMNC {
							t.Errorf("%s %s: enum answers %+v, the portdb backend %+v", tc.name, tc.number, got, want)
						}
						continue
					}
					// The database has no data for the number's
					// country; the ENUM record carries no npdi (no dip
					// was made), which the backend reads as the
					// range's network.
					if want.Status != mnp.Rejected || want.Code != mnp.CodeNoPortabilityData {
						t.Errorf("%s %s: the portdb backend answers %+v, want no portability data", tc.name, tc.number, want)
					}
					if got.Network.MCCMNC != q.MCCMNC {
						t.Errorf("%s %s: enum answers %s, want the range's %s", tc.name, tc.number, got.Network.MCCMNC, q.MCCMNC)
					}
				}
				for _, number := range interopInvalid {
					r := plan.ClassifyString(number)
					if r.Valid {
						t.Fatalf("%s is valid", number)
					}
					c := &dns.Client{Net: proto, Timeout: 5 * time.Second}
					m := new(dns.Msg)
					m.SetQuestion(enum.QueryName(strings.TrimPrefix(number, "+"), s.Suffix()), dns.TypeNAPTR)
					if resp, _, err := c.Exchange(m, addr); err != nil || resp.Rcode != dns.RcodeNameError {
						t.Errorf("%s: %v %v, want NXDOMAIN", number, resp, err)
					}
					if r.Number.IsZero() {
						continue
					}
					q := mnp.Query{Number: r.Number, Region: r.CountryCode, MCCMNC: r.MCCMNC}
					got, err := b.Portability(ctx, q)
					if err != nil || got.Status != mnp.Completed || got.Ported != mnp.False || got.Network.MCCMNC != q.MCCMNC {
						t.Errorf("%s (not valid): enum answers %+v, %v; want no record (the range's network %q)", number, got, err, q.MCCMNC)
					}
				}
				n := int64(len(interopCases) + 2*len(interopInvalid))
				if got := answered(s); got != uint64(n) {
					t.Errorf("the server answered %d queries, want %d", got, n)
				}
				if truncated != nil && truncated.Load() != int64(len(interopCases)+len(interopInvalid)) {
					// The dns.Client exchanges above were TCP already.
					t.Errorf("%d UDP queries truncated, want %d (each lookup of the backend once)", truncated.Load(), len(interopCases)+len(interopInvalid))
				}
			})
		}
	}
}

// TestInteropDamagedDatabase: a database file truncated under the server
// answers SERVFAIL, which the backend reports as an error wrapping
// mnp.ErrUnavailable (the engine then asks the route's next backend), as
// the portdb backend does on the same file; a number of another region
// still answers.
func TestInteropDamagedDatabase(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := portdb.Build(&buf, strings.NewReader(testCSV), portdb.BuildOptions{
		Plan: testPlan(t), Regions: []string{"DE"}, Created: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{"udp", "tcp"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ported.db")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := portdb.Open(path, portdb.WithVerify())
			if err != nil {
				t.Fatal(err)
			}
			h := portdb.NewHolder(db)
			t.Cleanup(func() { h.Close() })
			s := testServer(t, func(c *Config) { c.Portability = h })
			addr, _ := serveOver(t, s, proto)
			// No cache: the second question must reach the server.
			b, err := enum.New([]string{addr}, enum.WithTimeout(5*time.Second), enum.WithCache(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			q := interopQuery(t, "+4915123456789")
			if got, err := b.Portability(t.Context(), q); err != nil || got.Network.MCCMNC != "26203" || got.Ported != mnp.True {
				t.Fatalf("before the damage: %+v %v", got, err)
			}
			if err := os.Truncate(path, int64(buf.Len()-8)); err != nil {
				t.Fatal(err)
			}
			if !db.Changed() {
				t.Skip("the file is read into memory here, not mapped: it cannot change underneath")
			}
			got, err := b.Portability(t.Context(), q)
			if !errors.Is(err, mnp.ErrUnavailable) {
				t.Fatalf("after the damage: %+v %v, want an error wrapping mnp.ErrUnavailable", got, err)
			}
			if !strings.Contains(err.Error(), "SERVFAIL") {
				t.Errorf("the error does not name SERVFAIL: %v", err)
			}
			if _, err := portdb.NewBackend(h, "portdb").Portability(t.Context(), q); !errors.Is(err, mnp.ErrUnavailable) {
				t.Errorf("the portdb backend: %v, want an error wrapping mnp.ErrUnavailable", err)
			}
			other := interopQuery(t, "+33612345678")
			if got, err := b.Portability(t.Context(), other); err != nil || got.Network.MCCMNC != "20810" {
				t.Errorf("another region: %+v %v", got, err)
			}
		})
	}
}

// TestInteropRateLimit: over its rate limit the server answers UDP
// queries truncated (slip 1), and the backend, following the truncation
// over TCP (not limited), still gets every answer right.
func TestInteropRateLimit(t *testing.T) {
	t.Parallel()
	s := testServer(t, func(c *Config) { c.RateLimit = RateLimit{PerSecond: 0.001, Burst: 1, Slip: 1} })
	addr := startServer(t, s)
	b, err := enum.New([]string{addr}, enum.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range interopCases {
		got, err := b.Portability(t.Context(), interopQuery(t, tc.number))
		if err != nil || got.Network.MCCMNC != tc.mccmnc || got.Ported != tc.ported {
			t.Errorf("%s %s: %+v %v, want network %q ported %v", tc.name, tc.number, got, err, tc.mccmnc, tc.ported)
		}
	}
	// The first query had the burst's token; the others were slipped.
	st := s.Stats()
	if want := uint64(len(interopCases) - 1); st.RateLimitedSlipped != want || st.RateLimitedDropped != 0 {
		t.Errorf("slipped %d, dropped %d; want %d slipped", st.RateLimitedSlipped, st.RateLimitedDropped, want)
	}
}

// TestInteropOtherSuffix: a backend asking under another suffix than the
// server's gets REFUSED, an error wrapping mnp.ErrUnavailable (a
// misconfiguration fails over, it is never read as "not ported").
func TestInteropOtherSuffix(t *testing.T) {
	t.Parallel()
	addr := startServer(t, testServer(t, nil))
	b, err := enum.New([]string{addr}, enum.WithSuffix("e164.example.net."), enum.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Portability(t.Context(), interopQuery(t, "+4915123456789"))
	if !errors.Is(err, mnp.ErrUnavailable) || !strings.Contains(err.Error(), "REFUSED") {
		t.Fatalf("%+v %v, want REFUSED wrapping mnp.ErrUnavailable", got, err)
	}
}

// TestInteropLongMNC: a network whose MCCMNC has a 3-digit MNC (and no
// rn: its MCCMNC is the rn) comes through whole.
func TestInteropLongMNC(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := portdb.Build(&buf, strings.NewReader("number_or_range,mccmnc,network name\n+4915123456789,262123,Six digits\n"), portdb.BuildOptions{
		Plan: testPlan(t), Regions: []string{"DE"}, Created: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	db, err := portdb.OpenBytes(buf.Bytes(), portdb.WithVerify())
	if err != nil {
		t.Fatal(err)
	}
	h := portdb.NewHolder(db)
	t.Cleanup(func() { h.Close() })
	addr := startServer(t, testServer(t, func(c *Config) { c.Portability = h }))
	b, err := enum.New([]string{addr}, enum.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	q := interopQuery(t, "+4915123456789")
	got, err := b.Portability(t.Context(), q)
	if err != nil || got.Network.MCCMNC != "262123" || got.Ported != mnp.True {
		t.Fatalf("%+v %v, want 262123, ported", got, err)
	}
	want, err := portdb.NewBackend(h, "portdb").Portability(t.Context(), q)
	if err != nil || want.Network.MCCMNC != got.Network.MCCMNC || want.Ported != got.Ported {
		t.Fatalf("the portdb backend: %+v %v", want, err)
	}
}

// TestInteropRNCharacters: every routing number New accepts (any
// printable character but !;="\) gives answers the backend reads: the
// network from mcc/mnc, ported.
func TestInteropRNCharacters(t *testing.T) {
	t.Parallel()
	var allowed []byte
	for c := byte('!'); c < 0x7F; c++ {
		if strings.IndexByte(`!;=\"`, c) < 0 {
			allowed = append(allowed, c)
		}
	}
	q := interopQuery(t, "+4915123456789")
	for len(allowed) > 0 {
		n := min(len(allowed), maxRN)
		rn := string(allowed[:n])
		allowed = allowed[n:]
		s := testServer(t, func(c *Config) { c.RN = map[string]string{"26203": rn} })
		addr := startServer(t, s)
		b, err := enum.New([]string{addr}, enum.WithTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Portability(t.Context(), q)
		if err != nil || got.Network.MCCMNC != "26203" || got.Ported != mnp.True {
			t.Errorf("rn %q: %+v %v", rn, got, err)
		}
	}
}
