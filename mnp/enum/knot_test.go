package enum_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/enum"
	"github.com/numenhq/numen/mnp/enum/enumtest"
	"github.com/numenhq/numen/numbering"
)

var sharedPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

// query classifies a number as the engine would before asking a backend.
func query(t testing.TB, number string) mnp.Query {
	t.Helper()
	p, err := sharedPlan()
	require.NoError(t, err)
	res := p.ClassifyString(number)
	require.True(t, res.Valid, number)
	return mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: "MP1"}
}

// naptr writes a NAPTR line of a zone file for number.
func naptr(number string, order, pref int, flags, service, regexp string) string {
	// The fields are written as they are: a backslash in them is the zone
	// file's escape.
	return fmt.Sprintf("%s NAPTR %d %d \"%s\" \"%s\" \"%s\" .\n", enumtest.NAPTRName(number, "e164.arpa."), order, pref, flags, service, regexp)
}

func tel(number, params string) string { return "!^.*$!tel:" + number + params + "!" }

// The records of the tests: what Numen's server and suppliers send.
var testZone = func() string {
	var z strings.Builder
	z.WriteString(enumtest.SOA("e164.arpa."))
	add := func(number, params string) {
		z.WriteString(naptr(number, 100, 10, "u", "E2U+pstn:tel", tel(number, params)))
	}
	add("+4915112345678", ";npdi;rn=D262;rn-context=+49;mcc=262;mnc=03")  // ported, Numen's dialect
	add("+4915112345679", ";npdi;rn=D262;rn-context=+49")                 // ported, rn only
	add("+4915112345670", ";npdi;rn=+49-176-0000")                        // ported, global rn
	add("+4915112345671", ";npdi")                                        // not ported
	add("+4915112345672", ";npdi;mcc=262;mnc=01")                         // not ported, Numen's dialect
	add("+4915112345674", ";npdi;mcc=26;mnc=1")                           // unreadable
	add("+4915112345675", ";npdi;rn=D999")                                // rn not in the table
	add("+4915112345676", ";mcc=262;mnc=02;ported=yes")                   // supplier dialect
	add("+4915112345684", ";mcc=262;mnc=02;ported=0")                     // supplier says not ported
	add("+4915112345685", ";mcc=262;mnc=01")                              // Numen's server, no dip made: the range's network
	add("+4915112345686", ";npdi;rn=26203;rn-context=+49;mcc=262;mnc=03") // Numen's server, rn an MCCMNC
	// +4915112345673: no record (NXDOMAIN).
	z.WriteString(naptr("+4915112345677", 100, 10, "u", "E2U+pstn:sip", `!^.*$!sip:\\0;npdi;rn=D262@gw.example.net;user=phone!`))
	// Several NAPTRs: order, then preference; other services skipped.
	n := "+4915112345680"
	z.WriteString(naptr(n, 10, 10, "u", "E2U+sip", "!^.*$!sip:info@example.net!"))
	z.WriteString(naptr(n, 100, 20, "u", "E2U+pstn:tel", tel(n, ";npdi;mcc=262;mnc=02")))
	z.WriteString(naptr(n, 100, 10, "u", "e2u+PSTN:tel", tel(n, ";npdi;mcc=262;mnc=03")))
	z.WriteString(naptr(n, 200, 10, "u", "E2U+pstn:tel", tel(n, ";npdi;mcc=262;mnc=07")))
	// Backreferences.
	z.WriteString(naptr("+4915112345681", 100, 10, "u", "E2U+pstn:tel", `!^\\+49(1)(5)(.*)$!tel:+491\\2\\3;npdi;mcc=262;mnc=0\\2!i`))
	// An expression that does not match: no record applies.
	z.WriteString(naptr("+4915112345682", 100, 10, "u", "E2U+pstn:tel", `!^\\+44(.*)$!tel:+44\\1;npdi;rn=D262!`))
	// Too large for UDP: 40 records of which order 100 answers.
	n = "+4915112345683"
	for i := range 40 {
		mnc := "07"
		if i == 0 {
			mnc = "03"
		}
		z.WriteString(naptr(n, 100+i, 10, "u", "E2U+pstn:tel", tel(n, ";npdi;rn=D262;rn-context=+49;mcc=262;mnc="+mnc+";padding="+strings.Repeat("x", 20))))
	}
	return z.String()
}()

var routingNumbers = map[string]string{"D262": "26203", "+49176": "26207"}

func newBackend(t testing.TB, servers []string, opts ...enum.Option) *enum.Backend {
	t.Helper()
	b, err := enum.New(servers, append([]enum.Option{enum.WithRoutingNumbers(routingNumbers), enum.WithTimeout(2 * time.Second)}, opts...)...)
	require.NoError(t, err)
	return b
}

func TestKnotAnswers(t *testing.T) {
	t.Parallel()
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	b := newBackend(t, []string{k.Addr()}, enum.WithCache(0, 0))
	q := query(t, "+4915112345678")
	require.Equal(t, "26201", q.MCCMNC, "the tests take +49151 for a range of 26201")
	for _, c := range []struct {
		number, mccmnc string
		ported         mnp.Bool
	}{
		{"+4915112345678", "26203", mnp.True},
		{"+4915112345679", "26203", mnp.True},
		{"+4915112345670", "26207", mnp.True},
		{"+4915112345671", "26201", mnp.False},
		{"+4915112345672", "26201", mnp.False},
		{"+4915112345673", "26201", mnp.False},
		{"+4915112345676", "26202", mnp.True},
		{"+4915112345684", "26202", mnp.False},
		{"+4915112345685", "26201", mnp.False},
		{"+4915112345686", "26203", mnp.True},
		{"+4915112345677", "26203", mnp.True},
		{"+4915112345680", "26203", mnp.True},
		{"+4915112345681", "26205", mnp.True},
		{"+4915112345682", "26201", mnp.False},
		{"+4915112345683", "26203", mnp.True},
	} {
		ans, err := b.Portability(t.Context(), query(t, c.number))
		require.NoError(t, err, c.number)
		require.Equal(t, mnp.PortAnswer{Status: mnp.Completed, Ported: c.ported, Network: mnp.NetworkRef{MCCMNC: c.mccmnc}}, ans, c.number)
	}
	for number, want := range map[string]string{
		"+4915112345674": "mcc \"26\" is not 3 digits",
		"+4915112345675": "rn=D999",
	} {
		_, err := b.Portability(t.Context(), query(t, number))
		require.ErrorIs(t, err, mnp.ErrUnavailable, number)
		require.Equal(t, mnp.CodeBadProviderAnswer, mnp.CodeOf(err), number)
		require.ErrorContains(t, err, k.Addr(), number)
		require.ErrorContains(t, err, want, number)
	}
	// Without the range's network, an rn says ported.
	q = query(t, "+4915112345679")
	q.MCCMNC = ""
	ans, err := b.Portability(t.Context(), q)
	require.NoError(t, err)
	require.Equal(t, mnp.True, ans.Ported)
}

// TestKnotTruncated checks the premise (Knot truncates the answer over
// UDP) and that the backend reads it over TCP.
func TestKnotTruncated(t *testing.T) {
	t.Parallel()
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	m := new(dns.Msg)
	m.SetQuestion(enumtest.NAPTRName("+4915112345683", "e164.arpa."), dns.TypeNAPTR)
	m.SetEdns0(enum.DefaultUDPSize, false)
	r, _, err := (&dns.Client{Net: "udp", UDPSize: enum.DefaultUDPSize}).Exchange(m, k.Addr())
	require.NoError(t, err)
	require.True(t, r.Truncated, "Knot's answer over UDP is not truncated: the test needs more records")
	ans, err := newBackend(t, []string{k.Addr()}).Portability(t.Context(), query(t, "+4915112345683"))
	require.NoError(t, err)
	require.Equal(t, "26203", ans.Network.MCCMNC)
}

func TestKnotPrivateTree(t *testing.T) {
	t.Parallel()
	const suffix = "e164.example.net."
	number := "+4915112345678"
	zone := enumtest.SOA(suffix) + strings.Replace(naptr(number, 100, 10, "u", "E2U+pstn:tel", tel(number, ";npdi;rn=D262")), "e164.arpa.", suffix, 1)
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: suffix, Text: zone})
	ans, err := newBackend(t, []string{k.Addr()}, enum.WithSuffix("E164.Example.NET")).Portability(t.Context(), query(t, number))
	require.NoError(t, err)
	require.Equal(t, "26203", ans.Network.MCCMNC)
	// The public tree is not served there: REFUSED.
	_, err = newBackend(t, []string{k.Addr()}).Portability(t.Context(), query(t, number))
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	require.ErrorContains(t, err, k.Addr()+": answered REFUSED")
}

// TestKnotServfail: a zone Knot cannot load is answered SERVFAIL; the
// backend tries the next server, and fails over when none answers.
func TestKnotServfail(t *testing.T) {
	t.Parallel()
	broken := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: enumtest.SOA("e164.arpa.") + "this is not a record\n"})
	good := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	q := query(t, "+4915112345678")
	_, err := newBackend(t, []string{broken.Addr()}).Portability(t.Context(), q)
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	require.Equal(t, mnp.CodeUnavailable, mnp.CodeOf(err))
	require.ErrorContains(t, err, broken.Addr()+": answered SERVFAIL")
	ans, err := newBackend(t, []string{broken.Addr(), good.Addr()}).Portability(t.Context(), q)
	require.NoError(t, err)
	require.Equal(t, "26203", ans.Network.MCCMNC)
}

// TestKnotFailover stops the primary mid-run: the backup answers, and the
// primary again once it is back.
func TestKnotFailover(t *testing.T) {
	t.Parallel()
	number := "+4915112345678"
	zone := func(mnc string) enumtest.Zone {
		return enumtest.Zone{Origin: "e164.arpa.", Text: enumtest.SOA("e164.arpa.") + naptr(number, 100, 10, "u", "E2U+pstn:tel", tel(number, ";npdi;mcc=262;mnc="+mnc))}
	}
	primary, backup := enumtest.StartKnot(t, zone("03")), enumtest.StartKnot(t, zone("02"))
	b := newBackend(t, []string{primary.Addr(), backup.Addr()}, enum.WithCache(0, 0))
	q := query(t, number)
	ask := func() string {
		t.Helper()
		ans, err := b.Portability(t.Context(), q)
		require.NoError(t, err)
		return ans.Network.MCCMNC
	}
	require.Equal(t, "26203", ask(), "the primary answers")
	primary.Stop()
	for range 3 {
		require.Equal(t, "26202", ask(), "the backup answers while the primary is down")
	}
	primary.Start()
	require.Equal(t, "26203", ask(), "the primary answers again")

	// The primary stopped and started again while lookups run: every one
	// is answered, by the one or the other.
	stop := make(chan struct{})
	var answered [2]int
	var lookupErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ans, err := b.Portability(t.Context(), q)
			switch {
			case err != nil:
				lookupErr = err
				return
			case ans.Network.MCCMNC == "26203":
				answered[0]++
			case ans.Network.MCCMNC == "26202":
				answered[1]++
			}
		}
	}()
	for range 3 {
		primary.Stop()
		primary.Start()
	}
	close(stop)
	<-done
	require.NoError(t, lookupErr)
	require.Positive(t, answered[0]+answered[1])
	t.Logf("lookups while the primary stopped and started 3 times: %d by the primary, %d by the backup", answered[0], answered[1])

	backup.Stop()
	primary.Stop()
	_, err := b.Portability(t.Context(), q)
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	require.ErrorContains(t, err, primary.Addr())
	require.ErrorContains(t, err, backup.Addr())
}

// TestKnotTimeout puts a relay that holds answers back in front of Knot.
func TestKnotTimeout(t *testing.T) {
	t.Parallel()
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	slow := enumtest.StartRelay(t, k.Addr(), 10*time.Second)
	q := query(t, "+4915112345678")
	b := newBackend(t, []string{slow.Addr(), k.Addr()}, enum.WithTimeout(time.Second), enum.WithCache(0, 0))
	ans, err := b.Portability(t.Context(), q)
	require.NoError(t, err, "the second server answers after the first timed out")
	require.Equal(t, "26203", ans.Network.MCCMNC)

	b = newBackend(t, []string{slow.Addr()}, enum.WithTimeout(time.Second))
	_, err = b.Portability(t.Context(), q)
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	require.Equal(t, mnp.CodeTimeout, mnp.CodeOf(err))
	require.ErrorContains(t, err, slow.Addr())

	// The lookup's deadline bounds the whole.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = newBackend(t, []string{slow.Addr()}).Portability(ctx, q)
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	require.Equal(t, mnp.CodeTimeout, mnp.CodeOf(err))

	// A cancelled lookup is not a failure of the backend.
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	_, err = newBackend(t, []string{slow.Addr()}).Portability(ctx, q)
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, mnp.ErrUnavailable)

	// Answers delayed short of the timeout arrive.
	slow.SetDelay(50 * time.Millisecond)
	ans, err = newBackend(t, []string{slow.Addr()}).Portability(t.Context(), q)
	require.NoError(t, err)
	require.Equal(t, "26203", ans.Network.MCCMNC)
}

// TestKnotCache: answers, negative ones included, are kept for their TTL;
// the backend answers them with Knot stopped.
func TestKnotCache(t *testing.T) {
	t.Parallel()
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	b := newBackend(t, []string{k.Addr()})
	numbers := []string{"+4915112345678", "+4915112345671", "+4915112345673"}
	want := map[string]mnp.PortAnswer{}
	for _, n := range numbers {
		ans, err := b.Portability(t.Context(), query(t, n))
		require.NoError(t, err)
		want[n] = ans
	}
	k.Stop()
	for _, n := range numbers {
		ans, err := b.Portability(t.Context(), query(t, n))
		require.NoError(t, err, n)
		require.Equal(t, want[n], ans, n)
	}
	// An error is not kept.
	_, err := b.Portability(t.Context(), query(t, "+4915112345679"))
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	k.Start()
	_, err = b.Portability(t.Context(), query(t, "+4915112345679"))
	require.NoError(t, err)
}

// TestAllocs: a cached answer allocates nothing.
func TestAllocs(t *testing.T) {
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	b := newBackend(t, []string{k.Addr()})
	q := query(t, "+4915112345678")
	_, err := b.Portability(t.Context(), q)
	require.NoError(t, err)
	ctx := t.Context()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := b.Portability(ctx, q); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs, "allocations of a cached lookup")

	uncached := newBackend(t, []string{k.Addr()}, enum.WithCache(0, 0))
	allocs = testing.AllocsPerRun(200, func() {
		if _, err := uncached.Portability(ctx, q); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations of a lookup that asks Knot (UDP exchange by package dns included): %.0f", allocs)
}

// TestKnotConcurrent looks numbers up from several goroutines at once,
// through the cache and past it (run it with -race).
func TestKnotConcurrent(t *testing.T) {
	t.Parallel()
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: testZone})
	b := newBackend(t, []string{k.Addr()}, enum.WithCache(4, time.Minute))
	numbers := []string{"+4915112345678", "+4915112345671", "+4915112345673", "+4915112345676", "+4915112345677", "+4915112345681"}
	want, queries := map[string]string{}, map[string]mnp.Query{}
	for _, n := range numbers {
		queries[n] = query(t, n)
		ans, err := b.Portability(t.Context(), queries[n])
		require.NoError(t, err)
		want[n] = ans.Network.MCCMNC
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				n := numbers[(g+i)%len(numbers)]
				ans, err := b.Portability(t.Context(), queries[n])
				if err == nil && ans.Network.MCCMNC != want[n] {
					err = fmt.Errorf("%s: %s, want %s", n, ans.Network.MCCMNC, want[n])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
