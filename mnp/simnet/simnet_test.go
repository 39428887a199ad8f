package simnet_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/numenhq/numen/numbering"
)

// loadPlan is numbering.Load, once per test binary: it takes a fifth of a
// second.
var loadPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

func plan(t testing.TB) *numbering.Plan {
	t.Helper()
	p, err := loadPlan()
	require.NoError(t, err)
	return p
}

// queries returns count queries for the numbers prefix followed by a
// counter of digits digits, classified as the engine would.
func queries(t testing.TB, prefix string, digits, count int) []mnp.Query {
	t.Helper()
	p := plan(t)
	qs := make([]mnp.Query, count)
	for i := range qs {
		s := fmt.Sprintf("%s%0*d", prefix, digits, i*7919%pow10(digits))
		res := p.ClassifyString(s)
		require.True(t, res.QualifiesForHLR, "%s: %+v", s, res)
		qs[i] = mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: simnet.Route}
	}
	return qs
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// mixed are numbers of regions with many networks (DE, GB, FR, TR), with
// an unknown original network (US), with a single network (AD) and with
// networks of another region (JE, served by GB networks).
func mixed(t testing.TB, each int) []mnp.Query {
	var qs []mnp.Query
	for _, r := range []struct {
		prefix string
		digits int
	}{{"+49151", 8}, {"+447400", 6}, {"+336", 8}, {"+90532", 7}, {"+12012", 6}, {"+3763", 5}, {"+447797", 6}} {
		qs = append(qs, queries(t, r.prefix, r.digits, each)...)
	}
	return qs
}

func hlr(t testing.TB, n *simnet.Net, q mnp.Query) mnp.HLRAnswer {
	t.Helper()
	a, err := n.HLR(t.Context(), q)
	require.NoError(t, err, "%v", q.Number)
	return a
}

func port(t testing.TB, n *simnet.Net, q mnp.Query) mnp.PortAnswer {
	t.Helper()
	a, err := n.Portability(t.Context(), q)
	require.NoError(t, err, "%v", q.Number)
	return a
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	qs := mixed(t, 2000)
	a, b := simnet.New(plan(t), simnet.WithSeed(42)), simnet.New(plan(t), simnet.WithSeed(42))
	other := simnet.New(plan(t), simnet.WithSeed(43))
	differ, stateDiffers := 0, 0
	for _, q := range qs {
		h := hlr(t, a, q)
		require.Equal(t, h, hlr(t, b, q), "%v", q.Number)
		require.Equal(t, h, hlr(t, a, q), "%v asked again", q.Number)
		require.Equal(t, port(t, a, q), port(t, b, q), "%v", q.Number)
		o := hlr(t, other, q)
		if o != h {
			differ++
		}
		if o.Connectivity != h.Connectivity {
			stateDiffers++
		}
	}
	require.Greater(t, differ, len(qs)*9/10, "another seed gives other answers")
	// Independent draws at 80/12/8 disagree on a third of numbers.
	require.InDelta(t, 1-(0.8*0.8+0.12*0.12+0.08*0.08), float64(stateDiffers)/float64(len(qs)), 0.02)
}

// TestHashFrozen pins the hash every answer derives from: changing it
// changes every simulated population, which demos and recorded load tests
// rely on staying put across releases and processes. The values were
// computed apart, by a few lines of Python following FNV-1a and SplitMix64.
func TestHashFrozen(t *testing.T) {
	t.Parallel()
	p := plan(t)
	num, err := p.Parse("+4915123456789")
	require.NoError(t, err)
	for _, tc := range []struct {
		seed uint64
		want uint64
	}{{0, 0xb0893f1dc26ff923}, {1, 0x5b0d29097cfc8ff6}, {42, 0xe46282f2cd2cd5b3}} {
		got := simnet.NumberHash(simnet.New(p, simnet.WithSeed(tc.seed)), num)
		require.Equal(t, tc.want, got, "seed %d: got %#x", tc.seed, got)
	}
	// SplitMix64's published first output for seed 0.
	require.Equal(t, uint64(0xe220a8397b1dcdaf), simnet.Draw(0, 1))
}

func TestRates(t *testing.T) {
	t.Parallel()
	qs := queries(t, "+49151", 8, 20000) // DE: 16 networks
	for _, tc := range []struct {
		name  string
		rates simnet.Rates
		// want are the shares of connected, absent and unassigned numbers,
		// and of ported and roaming among the assigned.
		connected, absent, unassigned, ported, roaming float64
		tolerance                                      float64
	}{
		{"defaults", simnet.DefaultRates(), 0.80, 0.12, 0.08, 0.15, 0.04, 0.02},
		{"all connected", simnet.Rates{Connected: 1}, 1, 0, 0, 0, 0, 0},
		{"all unassigned", simnet.Rates{Unassigned: 3}, 0, 0, 1, 0, 0, 0},
		{"shares of their sum", simnet.Rates{Connected: 1, Absent: 1, Unassigned: 2}, 0.25, 0.25, 0.5, 0, 0, 0.02},
		{"all ported and roaming", simnet.Rates{Connected: 0.5, Absent: 0.5, Ported: 1, Roaming: 1}, 0.5, 0.5, 0, 1, 1, 0.02},
		{"half ported", simnet.Rates{Connected: 1, Ported: 0.5, Roaming: 0.1}, 1, 0, 0, 0.5, 0.1, 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := simnet.New(plan(t), simnet.WithSeed(7), simnet.WithRates(tc.rates))
			var states [4]int
			ported, roaming := 0, 0
			for _, q := range qs {
				a := hlr(t, n, q)
				states[a.Connectivity]++
				if a.Connectivity == mnp.InvalidMSISDN {
					continue
				}
				if a.Ported == mnp.True {
					ported++
				}
				if a.Roaming == mnp.True {
					roaming++
				}
			}
			total, assigned := float64(len(qs)), float64(states[mnp.Connected]+states[mnp.Absent])
			require.Zero(t, states[mnp.Undetermined])
			require.InDelta(t, tc.connected, float64(states[mnp.Connected])/total, tc.tolerance, "connected")
			require.InDelta(t, tc.absent, float64(states[mnp.Absent])/total, tc.tolerance, "absent")
			require.InDelta(t, tc.unassigned, float64(states[mnp.InvalidMSISDN])/total, tc.tolerance, "unassigned")
			if assigned > 0 {
				require.InDelta(t, tc.ported, float64(ported)/assigned, tc.tolerance, "ported")
				require.InDelta(t, tc.roaming, float64(roaming)/assigned, tc.tolerance, "roaming")
			}
		})
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	p := plan(t)
	rates := simnet.Rates{Connected: 0.6, Absent: 0.2, Unassigned: 0.2, Ported: 0.5, Roaming: 0.3}
	n := simnet.New(p, simnet.WithSeed(3), simnet.WithRates(rates))
	// Each property draws on its own, so without porting the same seed
	// gives the same numbers the same home network.
	rates.Ported = 0
	unported := simnet.New(p, simnet.WithSeed(3), simnet.WithRates(rates))
	seen := map[mnp.Connectivity]int{}
	portedSeen, roamingSeen := 0, 0
	for _, q := range mixed(t, 1500) {
		h, pa := hlr(t, n, q), port(t, n, q)
		region := q.Region
		home := q.MCCMNC
		if home == "" {
			home = port(t, unported, q).Network.MCCMNC
			require.True(t, slices.ContainsFunc(p.Networks(region), func(nw numbering.Network) bool { return nw.MCCMNC == home }),
				"%v: home %s picked among %s's networks", q.Number, home, region)
		}
		seen[h.Connectivity]++
		require.Equal(t, mnp.Completed, h.Status)
		require.Equal(t, mnp.Completed, pa.Status)
		require.Equal(t, mnp.CodeNone, pa.Code)

		// Portability and HLR agree on porting and the current network.
		require.Equal(t, h.Ported, pa.Ported, "%v", q.Number)
		require.NotEmpty(t, pa.Network.Name, "%v", q.Number)
		want, ok := p.Network(pa.Network.MCCMNC)
		require.True(t, ok)
		require.Equal(t, mnp.NetworkRef{MCCMNC: want.MCCMNC, Name: want.Name(), Region: want.Region}, pa.Network)
		switch h.Ported {
		case mnp.True:
			portedSeen++
			require.Equal(t, pa.Network, h.PortedTo, "%v", q.Number)
			require.NotEqual(t, home, h.PortedTo.MCCMNC, "%v: ported to its own network", q.Number)
			require.True(t, slices.ContainsFunc(p.Networks(region), func(nw numbering.Network) bool { return nw.MCCMNC == h.PortedTo.MCCMNC }),
				"%v: ported to %s, not a network of %s", q.Number, h.PortedTo.MCCMNC, region)
			require.GreaterOrEqual(t, len(p.Networks(region)), 2)
		case mnp.False:
			require.Zero(t, h.PortedTo)
			require.Equal(t, home, pa.Network.MCCMNC, "%v: not ported, so the original", q.Number)
		default:
			t.Fatalf("%v: porting unknown", q.Number)
		}

		switch h.Roaming {
		case mnp.True:
			roamingSeen++
			require.Equal(t, h.RoamingOn.MCCMNC, h.MCCMNC, "%v: serving network is the visited one", q.Number)
			require.Contains(t, simnet.RoamingRegions, h.RoamingOn.Region)
			require.NotEqual(t, region, h.RoamingOn.Region, "%v", q.Number)
			visited, ok := p.Network(h.RoamingOn.MCCMNC)
			require.True(t, ok)
			require.NotContains(t, visited.Regions, region, "%v: visited network serves home", q.Number)
		case mnp.False:
			require.Zero(t, h.RoamingOn)
			require.Equal(t, pa.Network.MCCMNC, h.MCCMNC, "%v: serving network is the current one", q.Number)
		default:
			require.Equal(t, mnp.InvalidMSISDN, h.Connectivity, "%v: roaming unknown only without subscriber", q.Number)
		}

		switch h.Connectivity {
		case mnp.Connected, mnp.Absent:
			want := map[mnp.Connectivity]mnp.ErrorCode{mnp.Connected: mnp.CodeNone, mnp.Absent: mnp.CodeAbsentSubscriber}
			require.Equal(t, want[h.Connectivity], h.Code)
			require.Len(t, h.IMSI, 15)
			require.True(t, strings.HasPrefix(h.IMSI, pa.Network.MCCMNC), "%s: the SIM of the current network", h.IMSI)
			require.Regexp(t, `^[0-9]{5,6}\*+[0-9]{3}$`, h.IMSI)
			require.Equal(t, h.IMSI[len(pa.Network.MCCMNC):], h.MSIN)
			require.Regexp(t, `^SIMULATOR[0-9]{3}$`, h.MSC)
		case mnp.InvalidMSISDN:
			require.Equal(t, mnp.CodeUnknownSubscriber, h.Code)
			require.Equal(t, mnp.False, h.Ported)
			require.Equal(t, mnp.Unknown, h.Roaming)
			require.Equal(t, home, h.MCCMNC, "%v: the range's network answered", q.Number)
			require.Empty(t, h.IMSI+h.MSIN+h.MSC)
		default:
			t.Fatalf("%v: %v", q.Number, h.Connectivity)
		}
	}
	require.Len(t, seen, 3)
	require.NotZero(t, portedSeen)
	require.NotZero(t, roamingSeen)
}

func TestSingleNetworkRegionNeverPorted(t *testing.T) {
	t.Parallel()
	n := simnet.New(plan(t), simnet.WithRates(simnet.Rates{Connected: 1, Ported: 1}))
	for _, q := range queries(t, "+3763", 5, 500) {
		require.Len(t, plan(t).Networks(q.Region), 1)
		h := hlr(t, n, q)
		require.Equal(t, mnp.False, h.Ported, "%v", q.Number)
		require.Equal(t, q.MCCMNC, port(t, n, q).Network.MCCMNC)
	}
}

// TestRoamingAbroad: a Jersey number roams in GB too, but not on the GB
// networks that serve Jersey as well.
func TestRoamingAbroad(t *testing.T) {
	t.Parallel()
	p := plan(t)
	n := simnet.New(p, simnet.WithRates(simnet.Rates{Connected: 1, Roaming: 1}))
	inGB := 0
	for _, q := range queries(t, "+447797", 6, 2000) {
		require.Equal(t, "JE", q.Region)
		h := hlr(t, n, q)
		require.Equal(t, mnp.True, h.Roaming)
		require.NotEqual(t, "JE", h.RoamingOn.Region)
		visited, ok := p.Network(h.RoamingOn.MCCMNC)
		require.True(t, ok)
		require.NotContains(t, visited.Regions, "JE", "%v roams on %+v", q.Number, visited)
		if h.RoamingOn.Region == "GB" {
			inGB++
		}
	}
	require.InDelta(t, 2000/8, inGB, 2000/8/3, "GB is one of eight destinations")
}

func TestNoHomeNetwork(t *testing.T) {
	t.Parallel()
	p := plan(t)
	num, err := p.Parse("+80012345678")
	require.NoError(t, err)
	n := simnet.New(p, simnet.WithRates(simnet.Rates{Connected: 1, Ported: 1, Roaming: 1}))
	for _, q := range []mnp.Query{
		{Number: num},               // non-geographic
		{Number: num, Region: "VA"}, // a region without networks
	} {
		h := hlr(t, n, q)
		require.Equal(t, mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected}, h)
		require.Equal(t, mnp.PortAnswer{Status: mnp.Rejected, Code: mnp.CodeNoPortabilityData}, port(t, n, q))
	}
	// An original network the list does not know is kept as given.
	q := queries(t, "+49151", 8, 1)[0]
	q.MCCMNC = "99999"
	pa := port(t, simnet.New(p, simnet.WithRates(simnet.Rates{Connected: 1})), q)
	require.Equal(t, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "99999"}}, pa)
}

func TestLatency(t *testing.T) {
	t.Parallel()
	q := queries(t, "+49151", 8, 1)[0]
	expired, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer cancel()
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	short, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()

	for _, tc := range []struct {
		name      string
		ctx       context.Context
		opts      []simnet.Option
		code      mnp.ErrorCode // CodeNone: answers
		retryable bool
		cause     error
	}{
		{"no latency", t.Context(), nil, mnp.CodeNone, false, nil},
		{"small latency", t.Context(), []simnet.Option{simnet.WithLatency(time.Millisecond, 3*time.Millisecond)}, mnp.CodeNone, false, nil},
		{"deadline passed before the call", expired, nil, mnp.CodeTimeout, true, context.DeadlineExceeded},
		{"deadline during the latency", short, []simnet.Option{simnet.WithLatency(time.Hour, time.Hour)}, mnp.CodeTimeout, true, context.DeadlineExceeded},
		{"canceled", canceled, []simnet.Option{simnet.WithLatency(time.Hour, time.Hour)}, mnp.CodeInternal, false, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := simnet.New(plan(t), tc.opts...)
			_, herr := n.HLR(tc.ctx, q)
			_, perr := n.Portability(tc.ctx, q)
			for _, err := range []error{herr, perr} {
				if tc.code == mnp.CodeNone {
					require.NoError(t, err)
					continue
				}
				require.ErrorIs(t, err, tc.cause)
				require.Equal(t, tc.code, mnp.CodeOf(err))
				require.Equal(t, tc.retryable, mnp.Retryable(err))
				require.Equal(t, tc.retryable, errors.Is(err, mnp.ErrUnavailable), "fail over on timeouts only")
				require.Contains(t, err.Error(), "simulator")
			}
			st := n.Stats()
			require.Equal(t, uint64(2), st.Queries)
			if tc.code != mnp.CodeNone {
				require.Equal(t, uint64(2), st.Canceled)
			}
		})
	}
}

func TestLatencyDrawn(t *testing.T) {
	t.Parallel()
	const min, max = 2 * time.Millisecond, 5 * time.Millisecond
	var slept []time.Duration
	record := func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d)
		return ctx.Err()
	}
	n := simnet.New(plan(t), simnet.WithSeed(1), simnet.WithLatency(min, max), simnet.WithSleep(record))
	for _, q := range queries(t, "+49151", 8, 200) {
		hlr(t, n, q)
	}
	require.Len(t, slept, 200)
	for _, d := range slept {
		require.GreaterOrEqual(t, d, min)
		require.LessOrEqual(t, d, max)
	}
	require.Greater(t, len(slices.Compact(slices.Sorted(slices.Values(slept)))), 100, "latency is drawn per call")

	// The same calls in the same order wait the same.
	again := slept
	slept = nil
	n = simnet.New(plan(t), simnet.WithSeed(1), simnet.WithLatency(min, max), simnet.WithSleep(record))
	for _, q := range queries(t, "+49151", 8, 200) {
		hlr(t, n, q)
	}
	require.Equal(t, again, slept)
}

func TestFailureRate(t *testing.T) {
	t.Parallel()
	qs := queries(t, "+49151", 8, 4000)
	for _, rate := range []float64{0, 0.3, 1} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			n, twin := simnet.New(plan(t), simnet.WithFailureRate(rate)), simnet.New(plan(t), simnet.WithFailureRate(rate))
			failed := 0
			for i, q := range qs {
				var err, twinErr error
				if i%2 == 0 {
					_, err = n.HLR(t.Context(), q)
					_, twinErr = twin.HLR(t.Context(), q)
				} else {
					_, err = n.Portability(t.Context(), q)
					_, twinErr = twin.Portability(t.Context(), q)
				}
				require.Equal(t, err == nil, twinErr == nil, "call %d: the same calls fail for the same seed", i)
				if err == nil {
					continue
				}
				failed++
				require.True(t, mnp.Retryable(err), "%v", err)
				require.Equal(t, mnp.CodeNetworkUnreachable, mnp.CodeOf(err))
				require.ErrorIs(t, err, simnet.ErrSimulatedFailure)
				require.Contains(t, err.Error(), "simulator")
			}
			require.InDelta(t, rate, float64(failed)/float64(len(qs)), 0.03)
			require.Equal(t, simnet.Stats{Queries: uint64(len(qs)), Failures: uint64(failed)}, n.Stats())
		})
	}
}

func TestOptionsPanic(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"nil plan":              func() { simnet.New(nil) },
		"negative latency":      func() { simnet.WithLatency(-1, time.Second) },
		"max below min":         func() { simnet.WithLatency(time.Second, time.Millisecond) },
		"failure rate above 1":  func() { simnet.WithFailureRate(1.5) },
		"negative failure rate": func() { simnet.WithFailureRate(-0.1) },
		"NaN failure rate":      func() { simnet.WithFailureRate(math.NaN()) },
		"negative rate":         func() { simnet.WithRates(simnet.Rates{Connected: 1, Absent: -0.1}) },
		"no states":             func() { simnet.WithRates(simnet.Rates{Ported: 0.5}) },
		"ported above 1":        func() { simnet.WithRates(simnet.Rates{Connected: 1, Ported: 2}) },
		"NaN rate":              func() { simnet.WithRates(simnet.Rates{Connected: math.NaN()}) },
		"nil sleep":             func() { simnet.WithSleep(nil) },
	} {
		require.Panics(t, f, name)
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	qs := mixed(t, 100)
	ref := simnet.New(plan(t), simnet.WithSeed(9))
	want := make([]mnp.HLRAnswer, len(qs))
	for i, q := range qs {
		want[i] = hlr(t, ref, q)
	}
	n := simnet.New(plan(t), simnet.WithSeed(9), simnet.WithFailureRate(0.1))
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i, q := range qs {
				a, err := n.HLR(t.Context(), q)
				if err == nil && a != want[i] {
					errs <- fmt.Errorf("worker %d: %v: %+v, want %+v", w, q.Number, a, want[i])
					return
				}
				if _, err := n.Portability(t.Context(), q); err != nil && !errors.Is(err, simnet.ErrSimulatedFailure) {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	st := n.Stats()
	require.Equal(t, uint64(workers*len(qs)*2), st.Queries)
	require.InDelta(t, 0.1, float64(st.Failures)/float64(st.Queries), 0.03)
}

func TestNoAllocs(t *testing.T) {
	n := simnet.New(plan(t), simnet.WithRates(simnet.Rates{Connected: 1, Ported: 0.5, Roaming: 0.5}))
	qs := mixed(t, 20)
	ctx := t.Context()
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		_, _ = n.Portability(ctx, qs[i%len(qs)])
		i++
	})
	require.Zero(t, allocs, "Portability")
	allocs = testing.AllocsPerRun(1000, func() {
		_, _ = n.HLR(ctx, qs[i%len(qs)])
		i++
	})
	require.LessOrEqual(t, allocs, 1.0, "HLR: one string for IMSI, MSIN and MSC")
}

func TestName(t *testing.T) {
	t.Parallel()
	n := simnet.New(plan(t))
	require.Equal(t, "simnet (simulator)", n.Name())
	require.Len(t, simnet.Route, 3)
	var _ mnp.HLRBackend = n
	var _ mnp.PortabilityBackend = n
}

func BenchmarkHLR(b *testing.B) {
	n := simnet.New(plan(b))
	qs := mixed(b, 100)
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = n.HLR(ctx, qs[i%len(qs)])
		i++
	}
}

func BenchmarkPortability(b *testing.B) {
	n := simnet.New(plan(b))
	qs := mixed(b, 100)
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = n.Portability(ctx, qs[i%len(qs)])
		i++
	}
}
