package client

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/enum"
	"github.com/numenhq/numen/mnp/enum/enumtest"
	"github.com/numenhq/numen/numbering"
)

// numbers are the zone's: +4915112340000 to +4915112340999, every third
// ported (rn and mcc/mnc, as Numen's server writes them), the others not.
const numbers = 1000

func number(i int) string { return fmt.Sprintf("+491511234%04d", i%numbers) }

func zone() string {
	var z strings.Builder
	z.WriteString(enumtest.SOA("e164.arpa."))
	for i := range numbers {
		n := number(i)
		params := ";npdi;mcc=262;mnc=01"
		if i%3 == 0 {
			params = ";npdi;rn=D262;rn-context=+49;mcc=262;mnc=03"
		}
		fmt.Fprintf(&z, "%s NAPTR 100 10 \"u\" \"E2U+pstn:tel\" \"!^.*$!tel:%s%s!\" .\n", enumtest.NAPTRName(n, "e164.arpa."), n, params)
	}
	return z.String()
}

type setup struct {
	knot    *enumtest.Knot
	queries []mnp.Query
}

func start(b testing.TB) setup {
	b.Helper()
	k := enumtest.StartKnot(b, enumtest.Zone{Origin: "e164.arpa.", Text: zone()})
	plan, err := numbering.Load()
	if err != nil {
		b.Fatal(err)
	}
	s := setup{knot: k}
	for i := range numbers {
		res := plan.ClassifyString(number(i))
		s.queries = append(s.queries, mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: "MP1"})
	}
	return s
}

func (s setup) backend(b testing.TB, cached bool) *enum.Backend {
	opts := []enum.Option{enum.WithRoutingNumbers(map[string]string{"D262": "26203"}), enum.WithTimeout(time.Second)}
	if !cached {
		opts = append(opts, enum.WithCache(0, 0))
	}
	be, err := enum.New([]string{s.knot.Addr()}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return be
}

// TestBackendAnswersZone checks the benchmarks' premise: every number of
// the zone is answered, ported as written.
func TestBackendAnswersZone(t *testing.T) {
	s := start(t)
	be := s.backend(t, false)
	for i, q := range s.queries {
		ans, err := be.Portability(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if want := i%3 == 0; ans.Ported.Value() != want || ans.Status != mnp.Completed {
			t.Fatalf("%s: %+v", number(i), ans)
		}
	}
}

// processCPU is the CPU time of the whole process (every thread: the
// network poller, the garbage collector), not knotd's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLookup asks Knot for one number per iteration: impl=bare is a
// miekg/dns exchange of the question the backend sends (UDP, EDNS0 1232,
// the message made for each lookup),
// impl=numen the backend's lookup without its cache (the same exchange,
// then the answer read into an mnp.PortAnswer). cpu-ns/op is the
// process's CPU time per lookup; numen's minus bare's is what the backend
// costs beyond the DNS round trip.
func BenchmarkLookup(b *testing.B) {
	s := start(b)
	b.Run("impl=bare", func(b *testing.B) {
		c := &dns.Client{Net: "udp", Timeout: time.Second, UDPSize: enum.DefaultUDPSize}
		names := make([]string, numbers)
		for i := range names {
			names[i] = enumtest.NAPTRName(number(i), "e164.arpa.")
		}
		ctx := b.Context()
		b.ReportAllocs()
		cpu := processCPU()
		i := 0
		for b.Loop() {
			// The question, as any client makes it (the name is given:
			// the backend's cost of making it counts as Numen's).
			m := new(dns.Msg)
			m.SetQuestion(names[i%numbers], dns.TypeNAPTR)
			m.SetEdns0(enum.DefaultUDPSize, false)
			r, _, err := c.ExchangeContext(ctx, m, s.knot.Addr())
			if err != nil || len(r.Answer) != 1 {
				b.Fatal(r, err)
			}
			i++
		}
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("impl=numen", func(b *testing.B) {
		be := s.backend(b, false)
		ctx := b.Context()
		b.ReportAllocs()
		cpu := processCPU()
		i := 0
		for b.Loop() {
			if _, err := be.Portability(ctx, s.queries[i%numbers]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkLookupCPU measures the process CPU time of lookups that ask
// Knot, bare exchanges and the backend's alternately in rounds of 200
// (100 rounds: 20,000 each), so that the load of a shared machine falls
// on both alike, and reports each one's CPU per lookup and the
// difference: what the backend costs beyond the DNS round trip. Run it
// with -benchtime 1x.
func BenchmarkLookupCPU(b *testing.B) {
	s := start(b)
	be := s.backend(b, false)
	c := &dns.Client{Net: "udp", Timeout: time.Second, UDPSize: enum.DefaultUDPSize}
	names := make([]string, numbers)
	for i := range names {
		names[i] = enumtest.NAPTRName(number(i), "e164.arpa.")
	}
	ctx := b.Context()
	const rounds, each = 100, 200
	for b.Loop() {
		var bare, numen time.Duration
		i := 0
		for r := range rounds {
			for k := range 2 {
				impl := (r + k) % 2 // which goes first alternates too
				cpu := processCPU()
				for range each {
					if impl == 0 {
						m := new(dns.Msg)
						m.SetQuestion(names[i%numbers], dns.TypeNAPTR)
						m.SetEdns0(enum.DefaultUDPSize, false)
						if resp, _, err := c.ExchangeContext(ctx, m, s.knot.Addr()); err != nil || len(resp.Answer) != 1 {
							b.Fatal(resp, err)
						}
					} else if _, err := be.Portability(ctx, s.queries[i%numbers]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				if spent := processCPU() - cpu; impl == 0 {
					bare += spent
				} else {
					numen += spent
				}
			}
		}
		n := float64(rounds * each)
		b.ReportMetric(float64(bare.Nanoseconds())/n, "bare-cpu-ns/lookup")
		b.ReportMetric(float64(numen.Nanoseconds())/n, "numen-cpu-ns/lookup")
		b.ReportMetric(float64((numen-bare).Nanoseconds())/n, "extra-cpu-ns/lookup")
	}
}

// BenchmarkCachedLookup answers from the backend's cache.
func BenchmarkCachedLookup(b *testing.B) {
	s := start(b)
	be := s.backend(b, true)
	ctx := b.Context()
	for _, q := range s.queries {
		if _, err := be.Portability(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := be.Portability(ctx, s.queries[i%numbers]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPaced sends lookups (no cache) paced at 1,000 a second for
// 10 s, one at a time as they fall due, alternately through the backend
// and as a bare miekg/dns exchange (5,000 each, in the same run, so that
// both see the same machine), and reports percentiles of their latency
// (from the start of the lookup to its answer) in µs, and how many
// started more than 1 ms after their time (the loop fell behind: the
// machine did not run it). Run it with -benchtime 1x: one iteration is
// the whole paced run.
func BenchmarkPaced(b *testing.B) {
	s := start(b)
	be := s.backend(b, false)
	c := &dns.Client{Net: "udp", Timeout: time.Second, UDPSize: enum.DefaultUDPSize}
	ctx := b.Context()
	const rate, total = 1000, 10000
	for b.Loop() {
		var lat [2][]time.Duration // numen, bare
		late := 0
		begin := time.Now()
		for i := range total {
			due := begin.Add(time.Duration(i) * time.Second / rate)
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
			t0 := time.Now()
			if t0.Sub(due) > time.Millisecond {
				late++
			}
			n := i / 2
			if i%2 == 0 {
				if _, err := be.Portability(ctx, s.queries[n%numbers]); err != nil {
					b.Fatal(err)
				}
			} else {
				m := new(dns.Msg)
				m.SetQuestion(enumtest.NAPTRName(number(n), "e164.arpa."), dns.TypeNAPTR)
				m.SetEdns0(enum.DefaultUDPSize, false)
				if r, _, err := c.ExchangeContext(ctx, m, s.knot.Addr()); err != nil || len(r.Answer) != 1 {
					b.Fatal(r, err)
				}
			}
			lat[i%2] = append(lat[i%2], time.Since(t0))
		}
		for k, impl := range []string{"numen", "bare"} {
			l := lat[k]
			slices.Sort(l)
			pct := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))].Nanoseconds()) / 1e3 }
			b.ReportMetric(pct(0.50), impl+"-p50-µs")
			b.ReportMetric(pct(0.99), impl+"-p99-µs")
			b.ReportMetric(pct(0.999), impl+"-p99.9-µs")
			b.ReportMetric(float64(l[len(l)-1].Nanoseconds())/1e3, impl+"-max-µs")
		}
		b.ReportMetric(float64(late), "late")
	}
}
