package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/remote"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/stretchr/testify/require"
)

// These tests watch real backends: an mnp/remote client talking HTTP to a
// loopback server that answers 500, sleeps past the timeout or is not
// there at all (a closed port), with a simulator (mnp/simnet) as the
// route's working second backend.

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines returns the log lines whose message starts with msg.
func (s *syncBuffer) lines(msg string) []string {
	return regexp.MustCompile(`(?m)^.*msg="`+regexp.QuoteMeta(msg)+`.*$`).FindAllString(s.String(), -1)
}

// provider is a loopback /api/v2 provider whose behaviour the test sets:
// "500", "sleep" (until the client gives up) or "ok"; it counts the calls.
type provider struct {
	mode  atomic.Value // string
	calls atomic.Int32
	stop  chan struct{} // closed when the test ends: "sleep" returns
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.calls.Add(1)
	switch p.mode.Load().(string) {
	case "500":
		http.Error(w, `{"errors": ["database on fire"]}`, http.StatusInternalServerError)
	case "garbage":
		fmt.Fprint(w, `<html>maintenance</html>`)
	case "sleep":
		select {
		case <-r.Context().Done():
		case <-p.stop:
		}
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "abcdefghijkl", "msisdn": "+4915123456789", "processing_status": "COMPLETED",`+
			` "connectivity_status": "CONNECTED", "mccmnc": "26201"}`)
	}
}

// watchedEngine is an engine whose route GT1 asks first the remote client
// c, then a simulator.
func watchedEngine(t *testing.T, c *remote.Client, circuit CircuitOptions, logs *syncBuffer) *Engine {
	t.Helper()
	plan := loadPlan(t)
	sim := simnet.New(plan, simnet.WithSeed(1))
	e, err := New(Options{
		Plan: plan,
		Backends: []RouteBackends{
			{Route: "GT1", HLR: []HLR{{Name: "provider-a", Backend: c}, {Name: "simulator", Backend: sim}}},
			{Route: "GT2", HLR: []HLR{{Name: "simulator", Backend: sim}}},
			{Route: "DS7", HLR: []HLR{{Name: "simulator", Backend: sim}}},
			{Route: "MP1", Portability: []Portability{{Name: "simulator", Backend: sim}}},
		},
		BackendTimeout: 200 * time.Millisecond,
		Circuit:        circuit,
		Logger:         slog.New(slog.NewTextHandler(logs, nil)),
	})
	require.NoError(t, err)
	return e
}

func lookupGT1(t *testing.T, e *Engine) string {
	t.Helper()
	p, err := e.NewProfile(ProfileOptions{Key: "watch"})
	require.NoError(t, err)
	ans, err := e.HLRLookup(t.Context(), p, Request{Number: "+4915123456789", Route: "GT1"})
	require.NoError(t, err)
	require.Equal(t, "COMPLETED", ans.Result.ProcessingStatus)
	return ans.Result.RoutingInstruction
}

func statusOf(t *testing.T, e *Engine, route, label string) BackendStatus {
	t.Helper()
	for _, s := range e.Backends() {
		if s.Route == route && s.Label == label {
			return s
		}
	}
	t.Fatalf("no backend %s of route %s in %+v", label, route, e.Backends())
	return BackendStatus{}
}

// expireCoolDown ends the cool-down of a backend's open circuit now, as
// if it had passed (TestCircuitCoolDown lets it pass in a synctest
// bubble instead).
func expireCoolDown(e *Engine, route string, position int) {
	w := e.watches[route][position-1]
	w.mu.Lock()
	w.retryAt = time.Time{}
	w.mu.Unlock()
}

// TestBackendWatch runs a real failing provider of each kind ahead of a
// working simulator: the failures are counted by kind, the backend logs
// one line when it starts failing and one when its circuit opens, the
// circuit then skips it (the provider sees no more calls), and a probe
// that succeeds closes it with one line.
func TestBackendWatch(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedURL := "http://" + closed.Addr().String() + "/api/v2"
	require.NoError(t, closed.Close())

	for _, tc := range []struct {
		mode string // the provider's; "closed" for no provider
		kind ErrorKind
	}{
		{"500", ErrorUnavailable},
		{"sleep", ErrorTimeout},
		{"closed", ErrorRefused},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			p := &provider{stop: make(chan struct{})}
			p.mode.Store(tc.mode)
			url := closedURL
			if tc.mode != "closed" {
				srv := httptest.NewServer(p)
				t.Cleanup(srv.Close)
				t.Cleanup(func() { close(p.stop) })
				url = srv.URL + "/api/v2"
			}
			c, err := remote.New(url, "key", "secret", remote.WithRetries(0), remote.WithName("provider-a"))
			require.NoError(t, err)
			logs := &syncBuffer{}
			e := watchedEngine(t, c, CircuitOptions{Failures: 3, CoolDown: time.Hour}, logs)

			for i := range 10 {
				require.Equal(t, "STATIC:GT1:FAILOVER-2", lookupGT1(t, e), "lookup %d", i)
			}
			s := statusOf(t, e, "GT1", "remote#1")
			require.Equal(t, BackendOpen, s.State)
			require.Equal(t, "provider-a", s.Name)
			require.Equal(t, "remote", s.Type)
			require.EqualValues(t, 3, s.Requests, "asked until the circuit opened")
			require.EqualValues(t, 3, s.Errors[tc.kind])
			require.EqualValues(t, 7, s.Skipped, "then skipped at once")
			require.EqualValues(t, 10, s.Failovers)
			require.EqualValues(t, 1, s.Opened)
			require.Equal(t, 3, s.Failures)
			require.Equal(t, tc.kind, s.LastErrorKind)
			if tc.mode != "closed" {
				require.EqualValues(t, 3, p.calls.Load(), "the dead provider is not asked once its circuit is open")
			}
			var n uint64
			for _, c := range s.LatencyCounts {
				n += c
			}
			require.EqualValues(t, 3, n, "every call timed")
			sim := statusOf(t, e, "GT1", "simnet#2")
			require.Equal(t, BackendOK, sim.State)
			require.EqualValues(t, 10, sim.Requests)
			require.Zero(t, sim.Failovers)

			failing := logs.lines("backend failing")
			require.Len(t, failing, 1, logs.String())
			require.Contains(t, failing[0], "level=WARN")
			require.Contains(t, failing[0], "route=GT1 backend=remote#1 name=provider-a kind="+tc.kind.String())
			open := logs.lines("backend circuit open")
			require.Len(t, open, 1, logs.String())
			require.Contains(t, open[0], "failures=3")
			require.Contains(t, open[0], "kind="+tc.kind.String())
			require.Regexp(t, `failing_for=\S+ cool_down=1h0m0s`, open[0])

			// The provider comes back; after the cool-down one probe goes
			// through, answers, and the circuit closes.
			p.mode.Store("ok")
			if tc.mode == "closed" {
				return // nothing listens; covered by the other two
			}
			expireCoolDown(e, "GT1", 1)
			require.Equal(t, "STATIC:GT1", lookupGT1(t, e))
			require.EqualValues(t, 4, p.calls.Load())
			s = statusOf(t, e, "GT1", "remote#1")
			require.Equal(t, BackendOK, s.State)
			require.Zero(t, s.Failures)
			require.Equal(t, tc.kind, s.LastErrorKind, "kept after the recovery")
			recovered := logs.lines("backend recovered")
			require.Len(t, recovered, 1, logs.String())
			require.Contains(t, recovered[0], "level=INFO")
			require.Regexp(t, `route=GT1 backend=remote#1 name=provider-a failing_for=\S+ failures=3 last_error_kind=`+tc.kind.String(), recovered[0])
			for range 3 {
				require.Equal(t, "STATIC:GT1", lookupGT1(t, e))
			}
			require.Len(t, logs.lines("backend"), 3, "no line per request:\n%s", logs.String())
		})
	}
}

// TestCircuitCoolDown lets the cool-down pass on synctest's clock: the
// circuit stays open (no call) until it ends, lets one probe through, a
// failed probe opens it for another cool-down without a log line, and a
// probe that succeeds closes it. The provider is a real HTTP handler
// reached through the remote client, in memory (a bubble cannot wait on
// sockets).
func TestCircuitCoolDown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &provider{stop: make(chan struct{})}
		p.mode.Store("500")
		hc := &http.Client{Transport: handlerTransport{p}}
		c, err := remote.New("http://provider.invalid/api/v2", "key", "secret", remote.WithRetries(0), remote.WithHTTPClient(hc))
		require.NoError(t, err)
		logs := &syncBuffer{}
		e := watchedEngine(t, c, CircuitOptions{Failures: 2, CoolDown: time.Minute}, logs)

		lookupGT1(t, e)
		lookupGT1(t, e)
		require.Equal(t, BackendOpen, statusOf(t, e, "GT1", "remote#1").State)
		require.EqualValues(t, 2, p.calls.Load())

		time.Sleep(59 * time.Second)
		lookupGT1(t, e)
		require.EqualValues(t, 2, p.calls.Load(), "still cooling down")

		time.Sleep(time.Second)
		lookupGT1(t, e)
		require.EqualValues(t, 3, p.calls.Load(), "the probe")
		lookupGT1(t, e)
		require.EqualValues(t, 3, p.calls.Load(), "the probe failed: another cool-down")
		require.Equal(t, BackendOpen, statusOf(t, e, "GT1", "remote#1").State)
		require.EqualValues(t, 1, statusOf(t, e, "GT1", "remote#1").Opened, "a failed probe is no new opening")

		p.mode.Store("ok")
		time.Sleep(time.Minute)
		require.Equal(t, "STATIC:GT1", lookupGT1(t, e), "the probe answers")
		s := statusOf(t, e, "GT1", "remote#1")
		require.Equal(t, BackendOK, s.State)
		require.EqualValues(t, 4, p.calls.Load())
		require.Len(t, logs.lines("backend failing"), 1, logs.String())
		require.Len(t, logs.lines("backend circuit open"), 1, logs.String())
		recovered := logs.lines("backend recovered")
		require.Len(t, recovered, 1, logs.String())
		require.Contains(t, recovered[0], "failing_for=2m0s failures=3")
	})
}

// TestBadAnswers: a provider answering 200 with something that is not a
// result fails the lookup (FAILED, no failover: mnp's contract), counted as
// bad_answer; after the configured failures its circuit opens and the
// route's next backend answers.
func TestBadAnswers(t *testing.T) {
	t.Parallel()
	p := &provider{stop: make(chan struct{})}
	p.mode.Store("garbage")
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c, err := remote.New(srv.URL+"/api/v2", "key", "secret", remote.WithRetries(0))
	require.NoError(t, err)
	logs := &syncBuffer{}
	e := watchedEngine(t, c, CircuitOptions{Failures: 2, CoolDown: time.Hour}, logs)
	prof, err := e.NewProfile(ProfileOptions{Key: "watch"})
	require.NoError(t, err)
	for i, want := range []string{"FAILED", "FAILED", "COMPLETED", "COMPLETED"} {
		ans, err := e.HLRLookup(t.Context(), prof, Request{Number: "+4915123456789", Route: "GT1"})
		require.NoError(t, err)
		require.Equal(t, want, ans.Result.ProcessingStatus, "lookup %d", i)
	}
	s := statusOf(t, e, "GT1", "remote#1")
	require.Equal(t, BackendOpen, s.State)
	require.EqualValues(t, 2, s.Errors[ErrorBadAnswer])
	require.EqualValues(t, 2, s.Failovers, "the skips only: a bad answer ends the lookup")
	require.EqualValues(t, 2, p.calls.Load())
	require.Len(t, logs.lines("backend circuit open"), 1, logs.String())
}

// TestCircuitOneProbe: when the cool-down ends, of many lookups at once
// exactly one asks the backend (the probe); the others skip it while the
// probe is out.
func TestCircuitOneProbe(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &provider{stop: make(chan struct{})}
		p.mode.Store("500")
		c, err := remote.New("http://provider.invalid/api/v2", "key", "secret", remote.WithRetries(0),
			remote.WithHTTPClient(&http.Client{Transport: handlerTransport{p}}))
		require.NoError(t, err)
		e := watchedEngine(t, c, CircuitOptions{Failures: 1, CoolDown: time.Minute}, &syncBuffer{})
		lookupGT1(t, e)
		require.EqualValues(t, 1, p.calls.Load())
		p.mode.Store("sleep") // the probe waits for its timeout
		time.Sleep(time.Minute)
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() { lookupGT1(t, e) })
		}
		wg.Wait()
		require.EqualValues(t, 2, p.calls.Load(), "one probe")
		s := statusOf(t, e, "GT1", "remote#1")
		require.EqualValues(t, 9, s.Skipped)
		require.EqualValues(t, 1, s.Errors[ErrorTimeout], "the probe timed out")
		require.Equal(t, BackendOpen, s.State)
	})
}

// handlerTransport sends requests to a handler in memory.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	w := httptest.NewRecorder()
	t.h.ServeHTTP(w, r)
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	return w.Result(), nil
}

// TestBackendLogThrottled: a backend that fails now and then (one lookup
// in a few, never enough in a row to open its circuit) logs its first
// failing episode and its recovery, and then nothing for a minute however
// often it flaps; its metrics count every failure.
func TestBackendLogThrottled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		flaky := &fakeHLR{answer: connected}
		logs := &syncBuffer{}
		plan := loadPlan(t)
		sim := simnet.New(plan, simnet.WithSeed(1))
		e, err := New(Options{
			Plan: plan,
			Backends: []RouteBackends{
				{Route: "GT1", HLR: []HLR{{Name: "flaky", Backend: &flakyHLR{inner: flaky, every: 3}, Type: "custom"}, {Name: "simulator", Backend: sim}}},
				{Route: "GT2", HLR: []HLR{{Name: "simulator", Backend: sim}}},
				{Route: "DS7", HLR: []HLR{{Name: "simulator", Backend: sim}}},
				{Route: "MP1", Portability: []Portability{{Name: "simulator", Backend: sim}}},
			},
			Logger: slog.New(slog.NewTextHandler(logs, nil)),
		})
		require.NoError(t, err)
		for range 30 {
			lookupGT1(t, e)
			time.Sleep(time.Second)
		}
		s := statusOf(t, e, "GT1", "custom#1")
		require.EqualValues(t, 10, s.Errors[ErrorRefused])
		require.EqualValues(t, 30, s.Requests)
		require.Len(t, logs.lines("backend failing"), 1, logs.String())
		require.Len(t, logs.lines("backend recovered"), 1, logs.String())
		time.Sleep(time.Minute)
		for range 6 {
			lookupGT1(t, e)
		}
		require.Len(t, logs.lines("backend failing"), 2, logs.String())
		recovered := logs.lines("backend recovered")
		require.Len(t, recovered, 2, logs.String())
		require.Contains(t, recovered[1], "episodes_not_logged=9")
	})
}

// flakyHLR fails every every-th call as an unreachable network would.
type flakyHLR struct {
	inner mnp.HLRBackend
	every int32
	n     atomic.Int32
}

func (f *flakyHLR) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	if f.n.Add(1)%f.every == 1 {
		return mnp.HLRAnswer{}, mnp.Unavailable("flaky", mnp.CodeNetworkUnreachable, errors.New("connection refused"))
	}
	return f.inner.HLR(ctx, q)
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want ErrorKind
	}{
		{nil, ErrorNone},
		{context.DeadlineExceeded, ErrorTimeout},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), ErrorTimeout},
		{mnp.Unavailable("a", mnp.CodeTimeout, errors.New("slow")), ErrorTimeout},
		{mnp.Unavailable("a", mnp.CodeNetworkUnreachable, errors.New("dial")), ErrorRefused},
		{mnp.Unavailable("a", mnp.CodeUnavailable, errors.New("HTTP 503")), ErrorUnavailable},
		{fmt.Errorf("wrapped: %w", mnp.ErrUnavailable), ErrorUnavailable},
		{&mnp.BackendError{Backend: "a", Code: mnp.CodeBadProviderAnswer, Err: errors.New("not JSON")}, ErrorBadAnswer},
		{&mnp.BackendError{Backend: "a", Code: mnp.CodeInternal, Err: errors.New("bug")}, ErrorOther},
		{errors.New("HTTP 401"), ErrorOther},
	} {
		require.Equal(t, tc.want, KindOf(tc.err), "%v", tc.err)
	}
	var names []string
	for _, k := range ErrorKinds() {
		names = append(names, k.String())
	}
	require.Equal(t, "timeout refused unavailable bad_answer other", strings.Join(names, " "))
}

// TestCircuitOff: with Failures < 0 a failing backend is asked on every
// lookup and never skipped.
func TestCircuitOff(t *testing.T) {
	t.Parallel()
	bad := &fakeHLR{err: mnp.Unavailable("bad", mnp.CodeUnavailable, errors.New("down"))}
	plan := loadPlan(t)
	sim := simnet.New(plan, simnet.WithSeed(1))
	e, err := New(Options{
		Plan: plan,
		Backends: []RouteBackends{
			{Route: "GT1", HLR: []HLR{{Name: "bad", Backend: bad, Circuit: &CircuitOptions{Failures: -1}}, {Name: "simulator", Backend: sim}}},
			{Route: "GT2", HLR: []HLR{{Name: "simulator", Backend: sim}}},
			{Route: "DS7", HLR: []HLR{{Name: "simulator", Backend: sim}}},
			{Route: "MP1", Portability: []Portability{{Name: "simulator", Backend: sim}}},
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	for range 20 {
		lookupGT1(t, e)
	}
	require.EqualValues(t, 20, bad.calls.Load())
	s := statusOf(t, e, "GT1", "engine#1")
	require.Equal(t, BackendFailing, s.State)
	require.Equal(t, 20, s.Failures)
	require.Equal(t, -1, s.Circuit.Failures)
	require.Equal(t, DefaultCircuitCoolDown, s.Circuit.CoolDown)
}

// TestWatchAllocs: watching a successful call to a healthy backend
// allocates nothing (TestLookupAllocs holds whole lookups to their
// figures from before backends were watched).
func TestWatchAllocs(t *testing.T) {
	w := newBackendWatch("GT1", "HLR", 1, "a", "remote", nil, CircuitOptions{}.withDefaults(CircuitOptions{}), slog.New(slog.DiscardHandler))
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		start := time.Now()
		ok, probe := w.admit(start)
		if !ok {
			t.Fatal("not admitted")
		}
		w.done(ctx, start, time.Now(), nil, probe)
	})
	require.Zero(t, allocs)
	require.EqualValues(t, 1001, w.requests.Load())
}

// BenchmarkWatch is what watching adds to a successful call: two clock
// reads, the circuit's state and the counters.
func BenchmarkWatch(b *testing.B) {
	w := newBackendWatch("GT1", "HLR", 1, "a", "remote", nil, CircuitOptions{}.withDefaults(CircuitOptions{}), slog.New(slog.DiscardHandler))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		_, probe := w.admit(start)
		w.done(ctx, start, time.Now(), nil, probe)
	}
}
