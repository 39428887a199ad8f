package httpapi

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadlineStep is how long the requests that share a deadline take to
// start: a request gets its timeout and at most deadlineStep more.
const deadlineStep = 10 * time.Millisecond

// deadlines gives requests their timeout without a timer each. The
// requests that start within the same deadlineStep share one context,
// which ends the timeout after the last of them can start. A context of
// its own per request (context.WithTimeout) costs a timer, an entry in its
// connection's context and their removal: about 3% of a lookup's CPU in
// the sidecar's profile (benchmarks/README.md).
type deadlines struct {
	timeout time.Duration
	cur     atomic.Pointer[sharedDeadline]
	mu      sync.Mutex // held while cur is replaced
}

// sharedDeadline is the context of the requests that start before until.
type sharedDeadline struct {
	ctx    context.Context
	cancel context.CancelFunc // never called: the context ends at its deadline
	until  time.Time
}

// get returns the context of a request that starts at now (a reading of
// time.Now, with its monotonic clock): it ends between the timeout and the
// timeout plus deadlineStep after now.
func (d *deadlines) get(now time.Time) context.Context {
	if s := d.cur.Load(); s != nil && now.Before(s.until) {
		return s.ctx
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.cur.Load(); s != nil && now.Before(s.until) {
		return s.ctx // another request made it meanwhile
	}
	until := now.Add(deadlineStep)
	ctx, cancel := context.WithDeadline(context.Background(), until.Add(d.timeout))
	d.cur.Store(&sharedDeadline{ctx: ctx, cancel: cancel, until: until})
	return ctx
}

// requestContext is a request's context in the handlers: it ends at the
// shared deadline, and holds the values of the http.Request's context.
//
// It does not end when the client goes away: a lookup that was accepted is
// finished and recorded, and only its answer is lost (the result is in the
// account's report).
type requestContext struct {
	context.Context                 // the shared deadline's
	values          context.Context // the http.Request's
}

// Value returns the deadline context's value for key, if any (only the
// context package's own key, so that contexts derived from this one are
// canceled with the shared one without a goroutine each), else the
// request's.
func (c *requestContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}
