package simnet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

// Route is the route identifier the simulator suggests registering it
// under: three characters like every route, and plainly not a provider's.
const Route = "SIM"

// name is the backend name in errors and logs.
const name = "simnet (simulator)"

// ErrSimulatedFailure is the cause of the errors that [WithFailureRate]
// makes: they wrap it and [mnp.ErrUnavailable], with
// [mnp.CodeNetworkUnreachable].
var ErrSimulatedFailure = errors.New("simulated failure")

// Rates are the shares of simulated outcomes. Connected, Absent and
// Unassigned split all numbers between the three states, in proportion to
// their sum (they need not add up to 1). Ported is the share of assigned
// (connected or absent) numbers that are ported, counted only in regions
// with at least two operational networks; Roaming the share of assigned
// numbers that are roaming.
//
// The defaults ([DefaultRates]) are 80% connected, 12% absent, 8%
// unassigned, 15% ported and 4% roaming.
type Rates struct {
	Connected, Absent, Unassigned float64
	Ported, Roaming               float64
}

// DefaultRates returns the rates a Net uses unless [WithRates] sets others:
// start from them to change one.
func DefaultRates() Rates {
	return Rates{Connected: 0.80, Absent: 0.12, Unassigned: 0.08, Ported: 0.15, Roaming: 0.04}
}

// Stats are a Net's counters since New.
type Stats struct {
	// Queries counts calls of HLR and Portability, answered or not.
	Queries uint64
	// Failures counts the calls failed on purpose by WithFailureRate.
	Failures uint64
	// Canceled counts the calls whose context ended before the answer
	// (during the simulated latency, or before the call).
	Canceled uint64
}

// Option configures New. Options panic on values that make no sense
// (negative durations or rates, a share above 1): they are programming
// mistakes, found at start-up.
type Option func(*options)

type options struct {
	seed        uint64
	minLatency  time.Duration
	maxLatency  time.Duration
	failureRate float64
	rates       Rates
	sleep       func(context.Context, time.Duration) error
}

// WithSeed sets the seed every simulated outcome derives from; the default
// is 0. Different seeds give different, equally distributed populations.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// WithLatency makes every query take a simulated time between min and max
// (uniform, drawn per call) before it answers, as a provider's round trip
// would. A context that ends first makes the query fail: with
// [mnp.CodeTimeout] and wrapping [mnp.ErrUnavailable] when its deadline
// passed, so that the engine fails over; wrapping only [context.Canceled]
// when it was canceled, since nobody waits for that answer any more. A
// context that has ended before the call fails it the same way, latency
// or not. The default is no latency.
func WithLatency(min, max time.Duration) Option {
	if min < 0 || max < min {
		panic(fmt.Sprintf("simnet: WithLatency(%v, %v): need 0 <= min <= max", min, max))
	}
	return func(o *options) { o.minLatency, o.maxLatency = min, max }
}

// WithFailureRate makes a share of queries (0 to 1, drawn per call) fail
// as a network out of reach would: the error wraps [mnp.ErrUnavailable] and
// [ErrSimulatedFailure], with [mnp.CodeNetworkUnreachable], so the engine
// fails over. The default is 0.
func WithFailureRate(rate float64) Option {
	if !(rate >= 0 && rate <= 1) {
		panic(fmt.Sprintf("simnet: WithFailureRate(%v): need a share between 0 and 1", rate))
	}
	return func(o *options) { o.failureRate = rate }
}

// WithRates sets the shares of simulated outcomes; see [Rates].
func WithRates(r Rates) Option {
	for _, v := range [...]float64{r.Connected, r.Absent, r.Unassigned, r.Ported, r.Roaming} {
		if !(v >= 0) || math.IsInf(v, 0) {
			panic(fmt.Sprintf("simnet: WithRates(%+v): rates must be finite and not negative", r))
		}
	}
	if r.Connected+r.Absent+r.Unassigned == 0 {
		panic(fmt.Sprintf("simnet: WithRates(%+v): Connected, Absent and Unassigned are all 0", r))
	}
	if r.Ported > 1 || r.Roaming > 1 {
		panic(fmt.Sprintf("simnet: WithRates(%+v): Ported and Roaming are shares of at most 1", r))
	}
	return func(o *options) { o.rates = r }
}

// WithSleep replaces how the simulated latency is waited for: sleep must
// wait for d or until ctx ends, whichever comes first, and return ctx's
// error in the second case. Tests use it to see the drawn latencies, or to
// simulate them without waiting.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	if sleep == nil {
		panic("simnet: WithSleep(nil)")
	}
	return func(o *options) { o.sleep = sleep }
}

// Net is a simulated mobile network. It is safe for concurrent use.
type Net struct {
	plan        *numbering.Plan
	seed        uint64 // mixed: never used raw, so that seeds 0 and 1 differ in every bit
	minLatency  time.Duration
	latencySpan uint64 // maxLatency-minLatency+1 in nanoseconds, 0 for no latency
	failure     float64
	connected   float64 // a draw below connected is connected, below
	absent      float64 // absent (and not connected) absent, else unassigned
	ported      float64
	roaming     float64
	sleep       func(context.Context, time.Duration) error
	visits      []visitRegion

	queries  atomic.Uint64
	failures atomic.Uint64
	canceled atomic.Uint64
}

// visitRegion is a region roaming subscribers visit, with the networks it
// is home to.
type visitRegion struct {
	region string
	nets   []numbering.Network
}

// roamingRegions are where simulated subscribers roam: popular
// destinations with networks of their own.
var roamingRegions = [...]string{"ES", "FR", "IT", "GB", "DE", "US", "TR", "TH"}

// New returns a simulated network over plan's regions and networks. It
// panics when plan is nil.
func New(plan *numbering.Plan, opts ...Option) *Net {
	if plan == nil {
		panic("simnet: New(nil plan)")
	}
	o := options{rates: DefaultRates(), sleep: sleep}
	for _, opt := range opts {
		opt(&o)
	}
	r := o.rates
	states := r.Connected + r.Absent + r.Unassigned
	n := &Net{
		plan:       plan,
		seed:       mix(o.seed ^ 0x73696d6e6574), // "simnet"
		minLatency: o.minLatency,
		failure:    o.failureRate,
		connected:  r.Connected / states,
		absent:     (r.Connected + r.Absent) / states,
		ported:     r.Ported,
		roaming:    r.Roaming,
		sleep:      o.sleep,
	}
	if o.maxLatency > 0 {
		n.latencySpan = uint64(o.maxLatency-o.minLatency) + 1
	}
	for _, region := range roamingRegions {
		var nets []numbering.Network
		for _, nw := range plan.Networks(region) {
			if nw.Region == region {
				nets = append(nets, nw)
			}
		}
		if len(nets) > 0 {
			n.visits = append(n.visits, visitRegion{region, nets})
		}
	}
	return n
}

// Name returns "simnet (simulator)", the backend name in errors.
func (n *Net) Name() string { return name }

// Stats returns the counters since New. Each counter is read atomically,
// the three together are not a snapshot.
func (n *Net) Stats() Stats {
	return Stats{Queries: n.queries.Load(), Failures: n.failures.Load(), Canceled: n.canceled.Load()}
}

// HLR answers as a home location register would, with invented
// connectivity, porting and roaming (see the package documentation). Every
// answer is COMPLETED:
//
//   - connected and absent subscribers (the latter with
//     [mnp.CodeAbsentSubscriber]) are served by the visited network when
//     roaming, else by the network they belong to now; PortedTo and
//     RoamingOn carry MCCMNC, name and region. Their IMSI and MSIN are of
//     the network they belong to, masked like a provider's
//     ("26201*******123", "*******123"), and the MSC reads "SIMULATOR" and
//     three digits;
//   - unassigned numbers are INVALID_MSISDN with [mnp.CodeUnknownSubscriber],
//     answered by the original network (MCCMNC), not ported, roaming
//     unknown, without IMSI, MSIN or MSC;
//   - a number without a home network has no MCCMNC or identity, and
//     unknown porting and roaming.
func (n *Net) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	if err := n.call(ctx); err != nil {
		return mnp.HLRAnswer{}, err
	}
	s := n.subscriber(q)
	a := mnp.HLRAnswer{Status: mnp.Completed, Ported: s.ported, Roaming: s.roaming}
	switch s.state {
	case connected:
		a.Connectivity = mnp.Connected
	case absent:
		a.Connectivity, a.Code = mnp.Absent, mnp.CodeAbsentSubscriber
	default:
		a.Connectivity, a.Code = mnp.InvalidMSISDN, mnp.CodeUnknownSubscriber
	}
	a.MCCMNC = s.current.MCCMNC
	if s.ported == mnp.True {
		a.PortedTo = s.current
	}
	if s.roaming == mnp.True {
		a.MCCMNC, a.RoamingOn = s.visited.MCCMNC, s.visited
	}
	if s.state != unassigned {
		a.IMSI, a.MSIN, a.MSC = identity(s.current.MCCMNC, s.hash)
	}
	return a, nil
}

// Portability answers which network a number belongs to now: the same
// network as the HLR answer for the number, without connectivity. Numbers
// without a home network (see the package documentation) are REJECTED
// with [mnp.CodeNoPortabilityData] and an unknown porting state.
func (n *Net) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	if err := n.call(ctx); err != nil {
		return mnp.PortAnswer{}, err
	}
	s := n.subscriber(q)
	if s.current.IsZero() {
		return mnp.PortAnswer{Status: mnp.Rejected, Code: mnp.CodeNoPortabilityData}, nil
	}
	return mnp.PortAnswer{Status: mnp.Completed, Ported: s.ported, Network: s.current}, nil
}

// call counts a query and plays what happens to it on the way: latency,
// the caller giving up, a simulated failure.
func (n *Net) call(ctx context.Context) error {
	seq := n.queries.Add(1)
	if err := ctx.Err(); err != nil {
		return n.abandoned(err)
	}
	draw := mix(n.seed ^ mix(seq))
	if n.latencySpan > 0 {
		d := n.minLatency + time.Duration(draw%n.latencySpan)
		if err := n.sleep(ctx, d); err != nil {
			return n.abandoned(err)
		}
	}
	if unit(mix(draw)) < n.failure {
		n.failures.Add(1)
		return mnp.Unavailable(name, mnp.CodeNetworkUnreachable, ErrSimulatedFailure)
	}
	return nil
}

// abandoned is the error of a query whose context ended: a deadline is a
// timeout the engine may fail over on; a cancellation means nobody wants
// the answer any more, and is passed on as it is.
func (n *Net) abandoned(err error) error {
	n.canceled.Add(1)
	if errors.Is(err, context.DeadlineExceeded) {
		return mnp.Unavailable(name, mnp.CodeTimeout, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
