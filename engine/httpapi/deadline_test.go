package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/auth"
	"github.com/stretchr/testify/require"
)

// Requests that start within a deadlineStep share a context; each ends
// between its timeout and deadlineStep later.
func TestDeadlinesShared(t *testing.T) {
	t.Parallel()
	d := &deadlines{timeout: time.Minute}
	t0 := time.Now()
	a := d.get(t0)
	require.Same(t, a, d.get(t0.Add(deadlineStep-time.Nanosecond)), "same step")
	b := d.get(t0.Add(deadlineStep))
	require.NotSame(t, a, b, "next step")
	require.Same(t, b, d.get(t0.Add(deadlineStep+time.Millisecond)))
	for _, tc := range []struct {
		ctx   context.Context
		start time.Time
	}{{a, t0}, {a, t0.Add(deadlineStep - time.Nanosecond)}, {b, t0.Add(deadlineStep)}} {
		dl, ok := tc.ctx.Deadline()
		require.True(t, ok)
		left := dl.Sub(tc.start)
		require.GreaterOrEqual(t, left, time.Minute)
		require.LessOrEqual(t, left, time.Minute+deadlineStep)
	}
}

// The shared context ends at its deadline, and so do the contexts derived
// from a request's; the request's values are kept.
func TestRequestContextEnds(t *testing.T) {
	t.Parallel()
	d := &deadlines{timeout: 20 * time.Millisecond}
	type key struct{}
	values := context.WithValue(t.Context(), key{}, "v")
	rc := &requestContext{Context: d.get(time.Now()), values: values}
	require.Equal(t, "v", rc.Value(key{}))
	child, cancel := context.WithCancel(rc)
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a context derived from the request's did not end with it")
	}
	require.ErrorIs(t, rc.Err(), context.DeadlineExceeded)
	require.ErrorIs(t, child.Err(), context.DeadlineExceeded)
}

// A client that goes away does not cut the lookup short: its result is
// recorded with a context that did not end.
func TestClientGoneLookupRecorded(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	entered, recorded := make(chan context.Context, 1), make(chan error, 1)
	release := make(chan struct{})
	s.sinkTo.Store(engine.SinkFunc(func(ctx context.Context, r engine.Record) error {
		entered <- ctx
		<-release
		recorded <- ctx.Err()
		return ctx.Err()
	}))
	ctx, cancel := context.WithCancel(t.Context())
	body := `{"number": "+4915123456789"}`
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+"/api/v2/nt-lookup", strings.NewReader(body))
	require.NoError(t, err)
	require.NoError(t, auth.SignRequest(req, key, secret, time.Unix(s.now.Load(), 0), []byte(body)))
	done := make(chan error, 1)
	go func() {
		resp, err := s.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	var inStore context.Context
	select { // the request is in the store: the client leaves
	case inStore = <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the lookup did not reach the store")
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	select { // net/http has seen the connection go: the Request's context ended
	case <-inStore.(*requestContext).values.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not see the client go")
	}
	close(release)
	select {
	case err := <-recorded:
		require.NoError(t, err, "the lookup's context ended with its client")
	case <-time.After(10 * time.Second):
		t.Fatal("the lookup was not recorded")
	}
}
