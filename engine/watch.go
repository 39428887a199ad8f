package engine

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/routing"
)

// CircuitOptions configure the circuit breaker of a backend (see
// "Watching backends" in the package documentation).
type CircuitOptions struct {
	// Failures is the count of consecutive failed calls that opens the
	// circuit; 0 is the default, 5; a negative count turns the breaker off
	// (the backend is asked whatever it did before).
	Failures int
	// CoolDown is how long an open circuit skips the backend before it lets
	// one probe lookup through; 0 is the default, 30 s.
	CoolDown time.Duration
}

// Defaults of CircuitOptions.
const (
	DefaultCircuitFailures = 5
	DefaultCircuitCoolDown = 30 * time.Second
)

// withDefaults fills the zero fields of o from def and then from the
// package's defaults.
func (o CircuitOptions) withDefaults(def CircuitOptions) CircuitOptions {
	if o.Failures == 0 {
		o.Failures = def.Failures
	}
	if o.Failures == 0 {
		o.Failures = DefaultCircuitFailures
	}
	if o.CoolDown <= 0 {
		o.CoolDown = def.CoolDown
	}
	if o.CoolDown <= 0 {
		o.CoolDown = DefaultCircuitCoolDown
	}
	return o
}

// ErrCircuitOpen is the cause of the error of a backend skipped because its
// circuit is open: it failed CircuitOptions.Failures times in a row and its
// cool-down has not ended. The error wraps mnp.ErrUnavailable too (code
// mnp.CodeUnavailable), so the route's next backend is asked.
var ErrCircuitOpen = errors.New("circuit open: the backend failed repeatedly and is skipped until a probe succeeds")

// BackendState is the health of one backend as its recent calls show it.
type BackendState uint8

// Backend states.
const (
	// BackendOK: its last call succeeded (or it has not been asked yet).
	BackendOK BackendState = iota
	// BackendFailing: its last call failed, fewer times in a row than open
	// its circuit; it is still asked.
	BackendFailing
	// BackendOpen: its circuit is open; lookups skip it until a probe after
	// the cool-down succeeds.
	BackendOpen
)

var backendStateNames = [...]string{BackendOK: "ok", BackendFailing: "failing", BackendOpen: "open"}

// String returns "ok", "failing" or "open".
func (s BackendState) String() string {
	if int(s) < len(backendStateNames) {
		return backendStateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// ErrorKind sorts the errors of backend calls for metrics and logs.
type ErrorKind uint8

// Error kinds, from the errors backends return (mnp's contract).
const (
	// ErrorNone: no error.
	ErrorNone ErrorKind = iota
	// ErrorTimeout: no answer in time (context.DeadlineExceeded, a network
	// timeout, mnp.CodeTimeout).
	ErrorTimeout
	// ErrorRefused: no connection to the backend (refused, reset, no route:
	// mnp.CodeNetworkUnreachable).
	ErrorRefused
	// ErrorUnavailable: the backend said it cannot answer now (a provider's
	// 5xx or 429, a portability database without data: mnp.ErrUnavailable
	// with mnp.CodeUnavailable).
	ErrorUnavailable
	// ErrorBadAnswer: the backend answered something unreadable
	// (mnp.CodeBadProviderAnswer).
	ErrorBadAnswer
	// ErrorOther: any other error (a provider refusing the credentials, an
	// internal error); the lookup ends FAILED, no failover.
	ErrorOther
	numErrorKinds
)

var errorKindNames = [...]string{ErrorNone: "", ErrorTimeout: "timeout", ErrorRefused: "refused",
	ErrorUnavailable: "unavailable", ErrorBadAnswer: "bad_answer", ErrorOther: "other"}

// String returns the kind's label value: "timeout", "refused",
// "unavailable", "bad_answer", "other" ("" for ErrorNone).
func (k ErrorKind) String() string {
	if int(k) < len(errorKindNames) {
		return errorKindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ErrorKinds returns every kind but ErrorNone, in order.
func ErrorKinds() []ErrorKind {
	return []ErrorKind{ErrorTimeout, ErrorRefused, ErrorUnavailable, ErrorBadAnswer, ErrorOther}
}

// KindOf sorts a backend's error: see the ErrorKind constants.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ErrorNone
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrorTimeout
	}
	switch mnp.CodeOf(err) {
	case mnp.CodeTimeout:
		return ErrorTimeout
	case mnp.CodeNetworkUnreachable:
		return ErrorRefused
	case mnp.CodeBadProviderAnswer:
		return ErrorBadAnswer
	}
	if errors.Is(err, mnp.ErrUnavailable) {
		return ErrorUnavailable
	}
	return ErrorOther
}

// BackendLatencyBuckets are the upper bounds, in seconds, of the latency
// histogram of backend calls (BackendStatus.Latency).
var BackendLatencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// BackendStatus is one backend of a route as Engine.Backends sees it: who
// it is, its state and its counters since the engine was made.
type BackendStatus struct {
	// Route is the route; Product HLR or MNP (which interface is asked).
	Route   string
	Product routing.Product
	// Position is the backend's place in the route's order, from 1.
	Position int
	// Label is "<type>#<position>", such as "remote#1": the backend label
	// of the metrics, bounded by the configuration.
	Label string
	// Name is the backend's configured name; Type its kind (HLR.Type).
	Name, Type string
	State      BackendState
	// Failures is the count of consecutive failed calls (0 when OK);
	// FailingSince the time of the first of them.
	Failures     int
	FailingSince time.Time
	// LastErrorKind and LastError describe the last failed call, kept
	// after a recovery.
	LastErrorKind ErrorKind
	LastError     string
	// Requests counts the calls made (probes included, skips not); Errors
	// the failed ones by kind (indexed by ErrorKind); Failovers the lookups
	// that moved past this backend to the route's next one (after an error
	// or a skip); Skipped the lookups that did not ask it because its
	// circuit was open; Opened how often its circuit opened.
	Requests, Failovers, Skipped, Opened uint64
	Errors                               [numErrorKinds]uint64
	// Latency is the histogram of the calls' durations: counts per bucket
	// of BackendLatencyBuckets (not cumulative; the last is +Inf's) and the
	// sum in seconds.
	LatencyCounts []uint64
	LatencySum    float64
	// Circuit is the breaker's configuration, defaults filled in.
	Circuit CircuitOptions
}

// Backends returns the status of every backend of every route, sorted by
// route and position. It takes each backend's lock briefly; lookups do not
// wait for it on their way to a healthy backend.
func (e *Engine) Backends() []BackendStatus {
	routes := make([]string, 0, len(e.watches))
	for r := range e.watches {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	var out []BackendStatus
	for _, r := range routes {
		for _, w := range e.watches[r] {
			out = append(out, w.status())
		}
	}
	return out
}

// backendWatch counts one backend's calls and keeps its circuit breaker.
// The counters are atomics; a call to a backend in state OK that succeeds
// takes no lock and allocates nothing. Changes of state take mu.
type backendWatch struct {
	route, label, name, typ string
	product                 routing.Product
	position                int
	circuit                 CircuitOptions
	log                     *slog.Logger
	skipErr                 error // returned for a skipped call, made once

	state                                atomic.Uint32 // a BackendState
	requests, failovers, skipped, opened atomic.Uint64
	errs                                 [numErrorKinds]atomic.Uint64
	latency                              []atomic.Uint64 // per bucket, the last +Inf's
	latencyNanos                         atomic.Uint64

	mu           sync.Mutex
	failures     int
	failingSince time.Time
	retryAt      time.Time // open: when the next probe may go
	probing      bool      // open: a probe is out
	lastKind     ErrorKind
	lastErr      string
	// Logging: an episode (from the first failure to the recovery) is
	// logged when it starts, unless another was logged within
	// logQuiet; then its start is counted in quiet and it is logged when
	// its circuit opens, if it does. Its recovery is logged when its start
	// or opening was.
	episodeLogged bool
	lastLogged    time.Time
	quiet         int
}

// logQuiet is how long after a logged episode of a backend the start of
// the next is not logged (a backend that fails now and then, such as one
// lookup in a hundred, logs no line per failure); an opening circuit is
// always logged.
const logQuiet = time.Minute

func newBackendWatch(route string, product routing.Product, position int, name, typ string, backend any, circuit CircuitOptions, log *slog.Logger) *backendWatch {
	if typ == "" {
		typ = typeOf(backend)
	}
	w := &backendWatch{
		route: route, product: product, position: position, name: name, typ: typ,
		label: typ + "#" + strconv.Itoa(position), circuit: circuit, log: log,
		latency: make([]atomic.Uint64, len(BackendLatencyBuckets)+1),
	}
	w.skipErr = mnp.Unavailable(name, mnp.CodeUnavailable, ErrCircuitOpen)
	return w
}

// typeOf names a backend's kind by its package: "remote" for a
// *remote.Client of mnp/remote.
func typeOf(b any) string {
	t := reflect.TypeOf(b)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "backend"
	}
	p := t.PkgPath()
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if p == "" {
		return "backend"
	}
	return p
}

// admit reports whether a lookup may call the backend now, and whether the
// call is the probe of an open circuit.
func (w *backendWatch) admit(now time.Time) (ok, probe bool) {
	if BackendState(w.state.Load()) != BackendOpen {
		return true, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case BackendState(w.state.Load()) != BackendOpen:
		return true, false
	case w.probing || now.Before(w.retryAt):
		return false, false
	}
	w.probing = true
	return true, true
}

// done records a call that started at start: its count and duration, and
// for an error its kind and the breaker's state. ctx is the lookup's: a
// call cut short because the caller went away is counted, but is neither a
// failure nor a success of the backend.
func (w *backendWatch) done(ctx context.Context, start, now time.Time, err error, probe bool) {
	w.requests.Add(1)
	d := now.Sub(start)
	secs := d.Seconds()
	i := 0
	for i < len(BackendLatencyBuckets) && secs > BackendLatencyBuckets[i] {
		i++
	}
	w.latency[i].Add(1)
	w.latencyNanos.Add(uint64(max(d, 0)))
	if err == nil {
		if probe || BackendState(w.state.Load()) != BackendOK {
			w.recovered(now)
		}
		return
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		if probe {
			w.mu.Lock()
			w.probing = false
			w.mu.Unlock()
		}
		return
	}
	kind := KindOf(err)
	w.errs[kind].Add(1)
	w.failed(now, kind, err, probe)
}

func (w *backendWatch) recovered(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.probing = false
	if BackendState(w.state.Load()) == BackendOK {
		return
	}
	failures, since, logged, quiet := w.failures, w.failingSince, w.episodeLogged, w.quiet
	w.state.Store(uint32(BackendOK))
	w.failures, w.failingSince, w.episodeLogged = 0, time.Time{}, false
	if logged {
		w.quiet, w.lastLogged = 0, now
		w.log.Info("backend recovered: answering again",
			"route", w.route, "backend", w.label, "name", w.name,
			"failing_for", now.Sub(since).Round(time.Millisecond).String(), "failures", failures,
			"last_error_kind", w.lastKind.String(), "last_error", w.lastErr,
			"episodes_not_logged", quiet)
	}
}

func (w *backendWatch) failed(now time.Time, kind ErrorKind, err error, probe bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures++
	w.lastKind, w.lastErr = kind, err.Error()
	state := BackendState(w.state.Load())
	if state == BackendOK {
		state, w.failingSince = BackendFailing, now
		w.state.Store(uint32(BackendFailing))
		if w.lastLogged.IsZero() || now.Sub(w.lastLogged) >= logQuiet {
			w.episodeLogged, w.lastLogged = true, now
			w.log.Warn("backend failing: lookups go to the route's next backend",
				"route", w.route, "backend", w.label, "name", w.name,
				"kind", kind.String(), "error", w.lastErr, "failing_for", "0s")
		} else {
			w.quiet++
		}
	}
	switch {
	case probe:
		// The probe failed: the circuit stays open for another cool-down,
		// without a line (the opening was logged).
		w.probing = false
		w.retryAt = now.Add(w.circuit.CoolDown)
	case state == BackendFailing && w.circuit.Failures > 0 && w.failures >= w.circuit.Failures:
		w.state.Store(uint32(BackendOpen))
		w.retryAt = now.Add(w.circuit.CoolDown)
		w.opened.Add(1)
		w.episodeLogged, w.lastLogged = true, now
		w.log.Warn("backend circuit open: lookups skip it until a probe succeeds",
			"route", w.route, "backend", w.label, "name", w.name,
			"kind", kind.String(), "error", w.lastErr, "failures", w.failures,
			"failing_for", now.Sub(w.failingSince).Round(time.Millisecond).String(),
			"cool_down", w.circuit.CoolDown.String())
	}
}

func (w *backendWatch) status() BackendStatus {
	s := BackendStatus{
		Route: w.route, Product: w.product, Position: w.position, Label: w.label, Name: w.name, Type: w.typ,
		Requests: w.requests.Load(), Failovers: w.failovers.Load(), Skipped: w.skipped.Load(), Opened: w.opened.Load(),
		LatencyCounts: make([]uint64, len(w.latency)),
		LatencySum:    time.Duration(w.latencyNanos.Load()).Seconds(),
		Circuit:       w.circuit,
	}
	for i := range w.errs {
		s.Errors[i] = w.errs[i].Load()
	}
	for i := range w.latency {
		s.LatencyCounts[i] = w.latency[i].Load()
	}
	w.mu.Lock()
	s.State = BackendState(w.state.Load())
	s.Failures, s.FailingSince, s.LastErrorKind, s.LastError = w.failures, w.failingSince, w.lastKind, w.lastErr
	w.mu.Unlock()
	return s
}
