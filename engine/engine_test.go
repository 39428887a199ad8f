package engine

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	planOnce sync.Once
	testPlan *numbering.Plan
	planErr  error
)

func loadPlan(t testing.TB) *numbering.Plan {
	planOnce.Do(func() { testPlan, planErr = numbering.Load() })
	require.NoError(t, planErr)
	return testPlan
}

// fakeHLR answers with a fixed answer or error and counts its calls.
type fakeHLR struct {
	answer mnp.HLRAnswer
	err    error
	calls  atomic.Int32
	last   mnp.Query
	mu     sync.Mutex
}

func (f *fakeHLR) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.last = q
	f.mu.Unlock()
	return f.answer, f.err
}

type fakePort struct {
	answer mnp.PortAnswer
	err    error
	calls  atomic.Int32
}

func (f *fakePort) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	f.calls.Add(1)
	return f.answer, f.err
}

var connected = mnp.HLRAnswer{
	Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "26201",
	IMSI: "26201*******4567", MSIN: "******4567", MSC: "491******000",
	Ported: mnp.False, Roaming: mnp.False,
}

// fixture is an engine over the default coverage with fake backends, a
// fixed clock and a seeded id source.
type fixture struct {
	eng       *Engine
	acct      *Profile
	gt1, gt1b *fakeHLR
	ds7, gt2  *fakeHLR
	mp1       *fakePort
	records   []Record
	mu        sync.Mutex
	sinkErr   error
	now       time.Time
}

func newFixture(t *testing.T, mutate func(*Options)) *fixture {
	f := &fixture{
		gt1: &fakeHLR{answer: connected}, gt1b: &fakeHLR{answer: connected},
		ds7: &fakeHLR{answer: connected}, gt2: &fakeHLR{answer: connected},
		mp1: &fakePort{answer: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}}},
		now: time.Date(2026, 11, 22, 10, 4, 5, 678_000_000, time.FixedZone("", 3600)),
	}
	o := Options{
		Plan: loadPlan(t),
		Backends: []RouteBackends{
			{Route: "GT1", HLR: []HLR{{Name: "gt1-a", Backend: f.gt1}, {Name: "gt1-b", Backend: f.gt1b}}},
			{Route: "GT2", HLR: []HLR{{Name: "gt2", Backend: f.gt2}}},
			{Route: "DS7", HLR: []HLR{{Name: "ds7", Backend: f.ds7}}},
			{Route: "MP1", Portability: []Portability{{Name: "portdb", Backend: f.mp1}}},
		},
		Clock:  func() time.Time { return f.now },
		Random: rand.NewChaCha8([32]byte{1}),
		Sink: SinkFunc(func(ctx context.Context, r Record) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.sinkErr != nil {
				return f.sinkErr
			}
			f.records = append(f.records, r)
			return nil
		}),
	}
	if mutate != nil {
		mutate(&o)
	}
	var err error
	f.eng, err = New(o)
	require.NoError(t, err)
	f.acct, err = f.eng.NewProfile(ProfileOptions{Key: "test-key"})
	require.NoError(t, err)
	return f
}

// golden compares v's JSON with testdata/name.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./engine -update to create it")
	require.Equal(t, string(want), string(got), "%s differs; run go test ./engine -update and review the diff", path)
}

func TestHLRLookupGolden(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct {
		name   string
		number string
		route  string
		setup  func(f *fixture)
	}{
		{name: "hlr_connected", number: "+49 151 23456789"},
		{name: "hlr_ported_roaming", number: "+49 151 23456789", setup: func(f *fixture) {
			f.ds7.answer = mnp.HLRAnswer{
				Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "21407",
				Ported: mnp.True, PortedTo: mnp.NetworkRef{MCCMNC: "26203"},
				Roaming: mnp.True, RoamingOn: mnp.NetworkRef{MCCMNC: "21407"},
			}
		}},
		{name: "hlr_absent", number: "+44 7400 123456", setup: func(f *fixture) {
			f.ds7.answer = mnp.HLRAnswer{Status: mnp.Completed, Code: mnp.CodeAbsentSubscriber, Connectivity: mnp.Absent, MCCMNC: "23420"}
		}},
		{name: "hlr_unassigned", number: "+49 151 23456789", setup: func(f *fixture) {
			f.ds7.answer = mnp.HLRAnswer{Status: mnp.Completed, Code: mnp.CodeUnknownSubscriber, Connectivity: mnp.InvalidMSISDN}
		}},
		{name: "hlr_invalid_number", number: "+49 151 2"},
		{name: "hlr_landline", number: "+49 30 1234567"},
		{name: "hlr_global_reject", number: "+881 6 12345678"},
		{name: "hlr_static_route", number: "+49 151 23456789", route: "GT2"},
		{name: "hlr_failover", number: "+1 650 253 0000", route: "GT1", setup: func(f *fixture) {
			f.gt1.err = mnp.Unavailable("gt1-a", mnp.CodeTimeout, context.DeadlineExceeded)
		}},
		{name: "hlr_all_unavailable", number: "+1 650 253 0000", route: "GT1", setup: func(f *fixture) {
			f.gt1.err = mnp.Unavailable("gt1-a", mnp.CodeTimeout, context.DeadlineExceeded)
			f.gt1b.err = mnp.Unavailable("gt1-b", mnp.CodeNetworkUnreachable, errors.New("connection refused"))
		}},
		{name: "hlr_backend_error", number: "+49 151 23456789", route: "GT1", setup: func(f *fixture) {
			f.gt1.err = errors.New("provider sent nonsense")
		}},
		{name: "hlr_static_mnp_route", number: "+49 151 23456789", route: "MP1", setup: func(f *fixture) {
			f.mp1.answer = mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "26202"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			if tc.setup != nil {
				tc.setup(f)
			}
			res, err := resultOf(f.eng.HLRLookup(ctx, f.acct, Request{Number: tc.number, Route: tc.route}))
			require.NoError(t, err)
			golden(t, tc.name, res)
			require.Len(t, f.records, 1)
			require.Same(t, res, f.records[0].Result)
			require.Equal(t, res.ID, f.records[0].ID)
			require.Equal(t, *res.Cost, f.records[0].Cost.String())
			if res.ProcessingStatus != "COMPLETED" {
				require.Equal(t, "0.0000", *res.Cost, "only completed lookups are charged")
			}
		})
	}
}

func TestInvalidNumbersNeverReachABackend(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, n := range []string{"+49 151 2", "+49 30 1234567", "hello", "+999 1234", "+881 6 12345678"} {
		res, err := resultOf(f.eng.HLRLookup(t.Context(), f.acct, Request{Number: n}))
		require.NoError(t, err, n)
		require.Equal(t, "REJECTED", res.ProcessingStatus, n)
		res2, err := resultOf(f.eng.MNPLookup(t.Context(), f.acct, Request{Number: "+49 151 2"}))
		require.NoError(t, err)
		require.Equal(t, "REJECTED", res2.ProcessingStatus)
	}
	require.Zero(t, f.gt1.calls.Load()+f.gt1b.calls.Load()+f.gt2.calls.Load()+f.ds7.calls.Load()+f.mp1.calls.Load())
}

func TestMNPFallback(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	m, err := routing.ParseMap([]byte(`{"mnpFallback": true}`))
	require.NoError(t, err)
	acct, err := f.eng.NewProfile(ProfileOptions{Key: "fallback", Map: m})
	require.NoError(t, err)
	// In the default coverage no HLR route scores 50 for Yoigo (21404),
	// and MP1 does, so MNP fallback answers from the portability database.
	res, err := resultOf(f.eng.HLRLookup(t.Context(), acct, Request{Number: "+34 622 123 456"}))
	require.NoError(t, err)
	require.Equal(t, "AUTO:MP1:MNP_FALLBACK", res.RoutingInstruction)
	require.Equal(t, MNPDB, res.DataSource)
	require.Equal(t, "COMPLETED", res.ProcessingStatus)
	require.Equal(t, "0.0050", *res.Cost, "priced as an MNP lookup")
	require.Equal(t, int32(1), f.mp1.calls.Load())
}

// An HLR lookup answered from the cache under MNP fallback is filed as the
// first answer was: in the HLR report, as an HLR record, not charged.
func TestMNPFallbackCacheHitSameReport(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.Cache = CacheOptions{HLR: time.Hour, MNP: 24 * time.Hour} })
	m, err := routing.ParseMap([]byte(`{"mnpFallback": true}`))
	require.NoError(t, err)
	acct, err := f.eng.NewProfile(ProfileOptions{Key: "fallback", Map: m})
	require.NoError(t, err)
	ctx := t.Context()
	first, err := resultOf(f.eng.HLRLookup(ctx, acct, Request{Number: "+34 622 123 456"}))
	require.NoError(t, err)
	second, err := resultOf(f.eng.HLRLookup(ctx, acct, Request{Number: "+34 622 123 456"}))
	require.NoError(t, err)
	require.False(t, first.Cached)
	require.True(t, second.Cached)
	require.Equal(t, int32(1), f.mp1.calls.Load())
	require.Equal(t, "SYNC-API-2026-11", *first.Storage)
	require.Equal(t, *first.Storage, *second.Storage)
	require.Equal(t, "0.0000", *second.Cost)
	require.Len(t, f.records, 2)
	for _, r := range f.records {
		require.Equal(t, routing.HLR, r.Product(), r.ID)
		require.Equal(t, "SYNC-API-2026-11", r.Storage, r.ID)
	}
	require.Equal(t, Money(0), f.records[1].Cost)
}

func TestMNPLookupGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		number string
		answer mnp.PortAnswer
		err    error
	}{
		{name: "mnp_ported", number: "+49 151 23456789", answer: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "26203", Name: "O2 (from the database)"}}},
		{name: "mnp_not_ported", number: "+49 151 23456789", answer: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}}},
		{name: "mnp_no_data", number: "+33 6 12 34 56 78", answer: mnp.PortAnswer{Status: mnp.Rejected, Code: mnp.CodeNoPortabilityData}},
		{name: "mnp_unavailable", number: "+33 6 12 34 56 78", err: mnp.Unavailable("portdb", mnp.CodeUnavailable, errors.New("file being replaced"))},
		{name: "mnp_invalid", number: "+33 6 12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.mp1.answer, f.mp1.err = tc.answer, tc.err
			res, err := resultOf(f.eng.MNPLookup(t.Context(), f.acct, Request{Number: tc.number, Storage: "my report"}))
			require.NoError(t, err)
			golden(t, tc.name, res)
		})
	}
}

func TestNTLookupGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, number string }{
		{"nt_mobile", "+49 151 23456789"},
		{"nt_invalid", "+49 151 2"},
		{"nt_failed", "hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			res, err := resultOf(f.eng.NTLookup(t.Context(), f.acct, Request{Number: tc.number, Async: true}))
			require.NoError(t, err)
			golden(t, tc.name, res)
		})
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.Cache = CacheOptions{HLR: time.Hour, MNP: 24 * time.Hour} })
	ctx := t.Context()
	first, err := resultOf(f.eng.HLRLookup(ctx, f.acct, Request{Number: "+49 151 23456789"}))
	require.NoError(t, err)
	require.False(t, first.Cached)
	f.now = f.now.Add(30 * time.Minute)
	second, err := resultOf(f.eng.HLRLookup(ctx, f.acct, Request{Number: "+4915123456789"}))
	require.NoError(t, err)
	require.True(t, second.Cached)
	require.NotEqual(t, first.ID, second.ID)
	require.Equal(t, "0.0000", *second.Cost, "a cached answer is not charged again")
	require.Equal(t, *first.Timestamp, *second.Timestamp, "the answer's time is when it was looked up")
	require.Equal(t, int32(1), f.ds7.calls.Load())
	require.Len(t, f.records, 2, "cached answers are recorded too")

	other, err := f.eng.NewProfile(ProfileOptions{Key: "other"})
	require.NoError(t, err)
	third, err := resultOf(f.eng.HLRLookup(ctx, other, Request{Number: "+49 151 23456789"}))
	require.NoError(t, err)
	require.False(t, third.Cached, "accounts do not share answers")

	f.now = f.now.Add(31 * time.Minute)
	fourth, err := resultOf(f.eng.HLRLookup(ctx, f.acct, Request{Number: "+49 151 23456789"}))
	require.NoError(t, err)
	require.False(t, fourth.Cached, "expired after an hour")
	require.Equal(t, int32(3), f.ds7.calls.Load())

	// Failed and rejected answers are not cached.
	f.ds7.answer = mnp.HLRAnswer{Status: mnp.Rejected, Code: mnp.CodeNetworkUnreachable}
	for range 2 {
		res, err := resultOf(f.eng.HLRLookup(ctx, f.acct, Request{Number: "+49 151 99999999"}))
		require.NoError(t, err)
		require.False(t, res.Cached)
	}
	require.Equal(t, int32(5), f.ds7.calls.Load())

	m1, err := resultOf(f.eng.MNPLookup(ctx, f.acct, Request{Number: "+49 151 23456789"}))
	require.NoError(t, err)
	m2, err := resultOf(f.eng.MNPLookup(ctx, f.acct, Request{Number: "+49 151 23456789"}))
	require.NoError(t, err)
	require.False(t, m1.Cached)
	require.True(t, m2.Cached)
	require.Equal(t, int32(1), f.mp1.calls.Load())
}

func TestCacheEvictsOldest(t *testing.T) {
	t.Parallel()
	c, err := newCache(CacheOptions{HLR: time.Hour, MaxEntries: 2})
	require.NoError(t, err)
	now := time.Unix(0, 0)
	for _, n := range []string{"1", "2", "3"} {
		c.put(&cacheEntry{key: cacheKey{number: n, product: routing.HLR}, hlr: &apiv2.HLRResult{MSISDN: n}}, now)
	}
	require.Nil(t, c.get(cacheKey{number: "1", product: routing.HLR}, now))
	require.NotNil(t, c.get(cacheKey{number: "3", product: routing.HLR}, now))
	require.Len(t, c.entries, 2)
	_, err = newCache(CacheOptions{HLR: -1})
	require.Error(t, err)
}

func TestSinkFailureIsNotAnAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.sinkErr = errors.New("disk full")
	_, err := f.eng.HLRLookup(t.Context(), f.acct, Request{Number: "+49 151 23456789"})
	require.ErrorIs(t, err, ErrNotRecorded)
	require.ErrorContains(t, err, "disk full")
	_, err = f.eng.NTLookup(t.Context(), f.acct, Request{Number: "+49 151 23456789"})
	require.ErrorIs(t, err, ErrNotRecorded)
	_, err = f.eng.MNPLookup(t.Context(), f.acct, Request{Number: "+49 151 23456789"})
	require.ErrorIs(t, err, ErrNotRecorded)
}

func TestRequestErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := t.Context()
	long := make([]byte, MaxStorageLength+1)
	for i := range long {
		long[i] = 'x'
	}
	for _, tc := range []struct {
		call  func() error
		field string
		msg   string
	}{
		{func() error { _, err := f.eng.HLRLookup(ctx, f.acct, Request{}); return err }, "msisdn", "msisdn: is required"},
		{func() error { _, err := f.eng.NTLookup(ctx, f.acct, Request{}); return err }, "number", "number: is required"},
		{func() error {
			_, err := f.eng.HLRLookup(ctx, f.acct, Request{Number: "+4915123456789", Route: "XX"})
			return err
		}, "route", `route: "XX": a route is 3 characters`},
		{func() error {
			_, err := f.eng.HLRLookup(ctx, f.acct, Request{Number: "+4915123456789", Route: "ZZZ"})
			return err
		}, "route", `route: "ZZZ" is not a route of this service (GET /routes lists them)`},
		{func() error {
			_, err := f.eng.HLRLookup(ctx, f.acct, Request{Number: "+4915123456789", Route: "NT1"})
			return err
		}, "route", `route: "NT1" is an NT route; this lookup needs one of [HLR MNP]`},
		{func() error {
			_, err := f.eng.MNPLookup(ctx, f.acct, Request{Number: "+4915123456789", Route: "GT1"})
			return err
		}, "route", `route: "GT1" is an HLR route; this lookup needs one of [MNP]`},
		{func() error {
			_, err := f.eng.NTLookup(ctx, f.acct, Request{Number: "+4915123456789", Storage: string(long)})
			return err
		}, "storage", "storage: is 101 characters long; at most 100"},
		{func() error {
			_, err := f.eng.NTLookup(ctx, f.acct, Request{Number: "+4915123456789", Storage: "a\nb"})
			return err
		}, "storage", `storage: "a\nb" contains a control character or invalid UTF-8`},
		{func() error { _, err := f.eng.Route(f.acct, Request{Number: ""}); return err }, "msisdn", "msisdn: is required"},
		{func() error { _, err := f.eng.Route(f.acct, Request{Number: strings.Repeat("1", 1<<20)}); return err }, "msisdn", "msisdn: is 1048576 characters long; at most 250"},
		{func() error {
			_, err := f.eng.HLRLookup(ctx, f.acct, Request{Number: "+" + strings.Repeat("4", MaxNumberLength)})
			return err
		}, "msisdn", "msisdn: is 251 characters long; at most 250"},
		{func() error {
			_, err := f.eng.MNPLookup(ctx, f.acct, Request{Number: strings.Repeat("x", 300)})
			return err
		}, "msisdn", "msisdn: is 300 characters long; at most 250"},
		{func() error {
			_, err := f.eng.NTLookup(ctx, f.acct, Request{Number: strings.Repeat("ä", MaxNumberLength+1)})
			return err
		}, "number", "number: is 251 characters long; at most 250"},
		{func() error {
			_, err := f.eng.Admit(f.acct, routing.NT, Request{Number: strings.Repeat("1", 251)})
			return err
		}, "number", "number: is 251 characters long; at most 250"},
		{func() error { _, err := f.eng.Route(f.acct, Request{Number: "hello"}); return err }, "msisdn", `msisdn: "hello" is not a phone number in international format: not a number`},
	} {
		err := tc.call()
		var re *RequestError
		require.ErrorAs(t, err, &re)
		require.Equal(t, tc.field, re.Field)
		require.Equal(t, tc.msg, err.Error())
	}
	require.Empty(t, f.records, "nothing recorded for refused requests")

	// The limits count characters: 100 of two bytes each, and 250, pass.
	_, err := f.eng.NTLookup(ctx, f.acct, Request{Number: "+49151234567", Storage: strings.Repeat("ä", MaxStorageLength)})
	require.NoError(t, err)
	_, err = f.eng.NTLookup(ctx, f.acct, Request{Number: "+49151234567" + strings.Repeat(" ", MaxNumberLength-12)})
	require.NoError(t, err)
}

func TestRouteRoutesAndMap(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	d, err := f.eng.Route(f.acct, Request{Number: "+49 151 23456789"})
	require.NoError(t, err)
	golden(t, "route", d)
	golden(t, "routes", f.eng.Routes())
	m, err := f.eng.RoutingMap(f.acct)
	require.NoError(t, err)
	golden(t, "routing_map", m)
}

func TestNewValidatesBackends(t *testing.T) {
	t.Parallel()
	plan := loadPlan(t)
	h := &fakeHLR{}
	p := &fakePort{}
	all := []RouteBackends{{Route: "GT1", HLR: []HLR{{Name: "a", Backend: h}}}, {Route: "GT2", HLR: []HLR{{Name: "a", Backend: h}}}, {Route: "DS7", HLR: []HLR{{Name: "a", Backend: h}}}, {Route: "MP1", Portability: []Portability{{Name: "p", Backend: p}}}}
	for _, tc := range []struct {
		backends []RouteBackends
		msg      string
	}{
		{append(all[:4:4], RouteBackends{Route: "XYZ", HLR: []HLR{{Name: "a", Backend: h}}}), `engine: backends for route "XYZ", which the coverage data does not declare`},
		{append(all[:4:4], RouteBackends{Route: "NT1"}), `engine: backends for NT route "NT1": the numbering plan answers NT lookups`},
		{append(all[:4:4], RouteBackends{Route: "GT1", Portability: []Portability{{Name: "p", Backend: p}}}), `engine: portability backends for HLR route "GT1"`},
		{append(all[:4:4], RouteBackends{Route: "MP1", HLR: []HLR{{Name: "a", Backend: h}}}), `engine: HLR backends for MNP route "MP1"`},
		{append(all[:4:4], RouteBackends{Route: "GT1", HLR: []HLR{{Name: "nil", Backend: nil}}}), `engine: route "GT1": HLR backend "nil" is nil`},
	} {
		_, err := New(Options{Plan: plan, Backends: tc.backends})
		require.EqualError(t, err, tc.msg)
	}
	_, err := New(Options{})
	require.EqualError(t, err, "engine: Options.Plan is required")
	_, err = New(Options{Plan: plan, Backends: all})
	require.NoError(t, err)
}

// TestNewNeedsBackendsOnlyForRoutesItCanChoose: an engine with a backend
// for GT1 alone starts on the built-in coverage and platform map; the other
// routes are not served: selection passes them by, the route list leaves
// them out, a caller's route naming one is a RequestError and a map rule
// naming one an error.
func TestNewNeedsBackendsOnlyForRoutesItCanChoose(t *testing.T) {
	t.Parallel()
	plan := loadPlan(t)
	gt1 := &fakeHLR{answer: connected}
	eng, err := New(Options{Plan: plan, Backends: []RouteBackends{{Route: "GT1", HLR: []HLR{{Name: "a", Backend: gt1}}}}})
	require.NoError(t, err)
	require.Equal(t, apiv2.RouteLists{HLR: []string{"GT1"}, MNP: []string{}, NT: []string{"NT1"}}, eng.Routes().Routes)
	for _, sc := range eng.Coverage().Scores {
		require.Equal(t, "GT1", sc.Route, "only the served route's scores")
	}
	prof, err := eng.NewProfile(ProfileOptions{Key: "k"})
	require.NoError(t, err)
	ctx := t.Context()
	// Germany (DS7's best score), the United States (GT2 by the default
	// platform map's rule) and Brazil: all on GT1.
	for _, number := range []string{"+4915123456789", "+12015550123", "+5511961234567"} {
		ans, err := eng.HLRLookup(ctx, prof, Request{Number: number})
		require.NoError(t, err)
		require.Equal(t, "CONNECTED", ans.Result.ConnectivityStatus, number)
		require.Contains(t, ans.Result.RoutingInstruction, ":GT1:", number)
	}
	_, err = eng.HLRLookup(ctx, prof, Request{Number: "+4915123456789", Route: "DS7"})
	var re *RequestError
	require.ErrorAs(t, err, &re)
	require.EqualError(t, err, `route: "DS7": this service has no backend for the HLR route (GET /routes lists those it has)`)
	_, err = eng.MNPLookup(ctx, prof, Request{Number: "+4915123456789", Route: "MP1"})
	require.ErrorAs(t, err, &re)

	m, err := routing.ParseMap([]byte(`{"defaultRoute": "GT1", "prefixes": [{"cns": "+4915", "route": "DS7"}], "countries": [{"countrycode": "US", "route": "GT2"}]}`))
	require.NoError(t, err)
	_, err = eng.NewProfile(ProfileOptions{Key: "k", Map: m})
	require.EqualError(t, err, `routing map: 2 problems: prefixes[0].route "DS7": the HLR route has no backend (give it one, or route elsewhere); countries[0].route "GT2": the HLR route has no backend (give it one, or route elsewhere)`)
	_, err = New(Options{Plan: plan, PlatformMap: m, Backends: []RouteBackends{{Route: "GT1", HLR: []HLR{{Name: "a", Backend: gt1}}}}})
	require.ErrorContains(t, err, `engine: platform map: 2 problems: prefixes[0].route "DS7"`)

	// No backend at all: NT lookups work, HLR lookups are refused by
	// routing (no route left), never sent anywhere.
	eng, err = New(Options{Plan: plan})
	require.NoError(t, err)
	prof, err = eng.NewProfile(ProfileOptions{Key: "k"})
	require.NoError(t, err)
	ans, err := eng.HLRLookup(ctx, prof, Request{Number: "+4915123456789"})
	require.NoError(t, err)
	require.Equal(t, "REJECTED", ans.Result.ProcessingStatus)
	nt, err := eng.NTLookup(ctx, prof, Request{Number: "+4915123456789"})
	require.NoError(t, err)
	require.True(t, *nt.Result.IsValid)
}

func TestIDs(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := newIDSource(nil, clock)
	// The time part is the millisecond since 2020 in base 36.
	wantTime := strconv.FormatInt(now.UnixMilli()-idEpoch, 36)
	wantTime = strings.Repeat("0", idTimeChars-len(wantTime)) + wantTime
	first, err := s.next()
	require.NoError(t, err)
	require.Equal(t, wantTime, first[:idTimeChars])
	seen := map[string]bool{first: true}
	last := wantTime
	for i := range 3 * maxIDsPerMilli {
		if i%7 == 0 {
			now = now.Add(time.Millisecond)
		}
		id, err := s.next()
		require.NoError(t, err)
		require.Regexp(t, `^[0-9a-z]{12}$`, id)
		require.False(t, seen[id], "id %s twice", id)
		seen[id] = true
		// Ids grow with time: a later millisecond sorts after.
		require.GreaterOrEqual(t, id[:idTimeChars], last, "id %d", i)
		last = id[:idTimeChars]
	}

	// In one millisecond (a clock that stands still), a source hands out
	// maxIDsPerMilli ids, then moves to the next millisecond by itself; a
	// clock that goes back does not take the time part back.
	now = time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	s = newIDSource(nil, clock)
	first, err = s.next()
	require.NoError(t, err)
	parts := map[string]int{}
	parts[first[:idTimeChars]]++
	for range 2*maxIDsPerMilli - 1 {
		id, err := s.next()
		require.NoError(t, err)
		require.False(t, seen[id], "id %s twice", id)
		seen[id] = true
		parts[id[:idTimeChars]]++
	}
	require.Len(t, parts, 2)
	require.Equal(t, maxIDsPerMilli, parts[first[:idTimeChars]])
	now = now.Add(-time.Hour)
	id, err := s.next()
	require.NoError(t, err)
	require.Greater(t, id[:idTimeChars], first[:idTimeChars])

	// The random part is uniform over [0-9a-z]: every character turns up
	// at every position.
	s = newIDSource(nil, time.Now)
	var counts [idRandomChars][36]int
	for range 2000 {
		id, err := s.next()
		require.NoError(t, err)
		for i, c := range id[idTimeChars:] {
			counts[i][strings.IndexRune(idAlphabet, c)]++
		}
	}
	for i := range counts {
		for c, n := range counts[i] {
			require.Greater(t, n, 15, "character %q at %d: %d times in 2000", idAlphabet[c], idTimeChars+i, n)
		}
	}

	// A source of nothing but unusable bytes ends with an error, not a
	// loop; so does one that repeats itself within a millisecond.
	_, err = newIDSource(constReader(255), clock).next()
	require.ErrorContains(t, err, "unusable bytes")
	s = newIDSource(constReader(0), clock)
	_, err = s.next()
	require.NoError(t, err)
	_, err = s.next()
	require.ErrorContains(t, err, "repeating itself")
}

type constReader byte

func (c constReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestStorageNames(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 23, 30, 0, 0, time.FixedZone("", -5*3600)) // December in UTC
	require.Equal(t, "SYNC-API-2026-12", StorageName("", routing.HLR, false, at))
	require.Equal(t, "SYNC-API-NT-2026-12", StorageName("", routing.NT, false, at))
	require.Equal(t, "ASYNC-API-MNP-2026-12", StorageName("", routing.MNP, true, at))
	require.Equal(t, "campaign-2026-12", StorageName("campaign", routing.HLR, true, at))
	require.Equal(t, "2026-11-30 23:30:00.000-0500", Timestamp(at))
}

func TestMoney(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Money{"0": 0, "0.01": 100, "0.0125": 125, "12.5": 125000, "1.0000": 10000} {
		m, err := ParseMoney(in)
		require.NoError(t, err, in)
		require.Equal(t, want, m, in)
	}
	for _, bad := range []string{"", ".5", "1.23456", "-1", "1e3", "abc", "0x10", "1.2.3", "1234567890123"} {
		_, err := ParseMoney(bad)
		require.Error(t, err, bad)
	}
	// A wrong amount says what is wrong with it.
	for in, want := range map[string]string{
		"-5":                `amount "-5": a negative amount: want 0 or more, such as 0.0125`,
		"-0.5":              `amount "-0.5": a negative amount: want 0 or more, such as 0.0125`,
		"0.00001":           `amount "0.00001": 5 decimals: want at most 4, such as 0.0125`,
		"1000000000000000":  `amount "1000000000000000": too large: at most 12 digits before the point`,
		"1e3":               `amount "1e3": want a decimal such as 0.0125, with at most 4 decimals`,
		"--5":               `amount "--5": want a decimal such as 0.0125, with at most 4 decimals`,
		"":                  `amount "": want a decimal such as 0.0125, with at most 4 decimals`,
		"1234567890123.123": `amount "1234567890123.123": too large: at most 12 digits before the point`,
	} {
		_, err := ParseMoney(in)
		require.EqualError(t, err, want, in)
	}
	require.Equal(t, "0.0100", Money(100).String())
	require.Equal(t, "-0.0100", Money(-100).String())
	p := Prices{HLR: 100, MNP: 50, NT: 10, Routes: map[string]Money{"DS7": 300}}
	require.Equal(t, Money(300), p.Of(routing.HLR, "DS7"))
	require.Equal(t, Money(100), p.Of(routing.HLR, "GT1"))
	require.Equal(t, Money(10), p.Of(routing.NT, "NT1"))
	var m Money
	require.NoError(t, json.Unmarshal([]byte(`"0.02"`), &m))
	require.Equal(t, Money(200), m)
	require.Error(t, json.Unmarshal([]byte(`"0.00001"`), &m))
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, tc := range []struct {
		product routing.Product
		number  string
		route   string
		want    Admission
	}{
		{routing.NT, "+4915123456789", "", Admission{Accepted: true, Route: "NT1", Cost: 10, Number: "+4915123456789"}},
		{routing.NT, "+49 151 2", "", Admission{Accepted: true, Route: "NT1", Cost: 10, Number: "+491512"}}, // invalid, yet classified: charged
		{routing.NT, "123", "", Admission{Accepted: true, Route: "NT1", Cost: 10, Number: "+123"}},          // an MSISDN: +1 23, too short
		{routing.NT, "hello", "", Admission{Route: "NT1", Number: "hello"}},
		{routing.NT, "(201) 555-0123", "", Admission{Route: "NT1", Number: "(201) 555-0123"}}, // national format
		{routing.HLR, "+4915123456789", "", Admission{Accepted: true, Route: "DS7", Cost: 100, Number: "+4915123456789"}},
		{routing.HLR, "+4915123456789", "MP1", Admission{Accepted: true, Route: "MP1", Cost: 50, Number: "+4915123456789"}},
		{routing.HLR, "+49 30 1234567", "", Admission{Number: "+49301234567"}},                    // not mobile
		{routing.HLR, "+881 6 12345678", "", Admission{Route: "REJECT", Number: "+881612345678"}}, // globally rejected
		{routing.HLR, "+49 151 2", "", Admission{Number: "+491512"}},
	} {
		got, err := f.eng.Admit(f.acct, tc.product, Request{Number: tc.number, Route: tc.route, Storage: ""})
		require.NoError(t, err, tc.number)
		require.Equal(t, tc.want, got, "%s %s", tc.product, tc.number)
	}
	_, err := f.eng.Admit(f.acct, routing.NT, Request{Number: "+4915123456789", Route: "GT1", Storage: ""})
	require.EqualError(t, err, `route: "GT1" is an HLR route; this lookup needs one of [NT]`)
	_, err = f.eng.Admit(f.acct, routing.MNP, Request{Number: "+4915123456789", Route: "", Storage: ""})
	require.Error(t, err)
}

// resultOf returns a lookup's result object.
func resultOf[R apiv2.Result](a Answer[R], err error) (R, error) { return a.Result, err }
