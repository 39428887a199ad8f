package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/mnp"
)

// maxBody bounds a 200 response the client reads (a routing map or coverage
// table is the largest).
const maxBody = 32 << 20

// call is one API call, which may take several attempts.
type call struct {
	method string
	path   string     // endpoint path relative to the base URL, such as "/hlr-lookup"
	query  url.Values // nil for none
	body   []byte     // exact bytes sent; nil for GET
	// idempotencyKey is sent as Idempotency-Key; a POST that has one may be
	// retried like a GET.
	idempotencyKey string
	// ahead is added to the digest timestamp, in seconds: 0, then 1, 2, ...
	// after each refusal of a signature the server saw before (an identical
	// request signed in the same second).
	ahead int64
}

// maxAhead bounds how far ahead of the clock a digest timestamp is moved
// to give a request a signature the server has not seen: within the
// server's 30 s window, with room for a clock that runs a little ahead.
const maxAhead = 20

// signatures remembers the digest signatures of the POSTs a client sent,
// by timestamp, for the timestamps not yet past: a server that refuses
// replays accepts each signature once, and two identical requests (same
// path, method and body) signed in one second have the same one. Seconds
// before now are dropped: the client signs no timestamp before now (but
// after SyncClock moved its clock back, when the server's refusal makes
// it sign again). So it holds about a second of requests.
type signatures struct {
	mu    sync.Mutex
	floor int64 // the last now seen: seconds before it are dropped
	used  map[int64]map[string]struct{}
}

// claim records sig at ts and reports whether it was new.
func (m *signatures) claim(now, ts int64, sig string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used == nil {
		m.used = map[int64]map[string]struct{}{}
	}
	if now > m.floor {
		for s := range m.used {
			if s < now {
				delete(m.used, s)
			}
		}
		m.floor = now
	}
	set := m.used[ts]
	if _, ok := set[sig]; ok {
		return false
	}
	if set == nil {
		set = map[string]struct{}{}
		m.used[ts] = set
	}
	set[sig] = struct{}{}
	return true
}

// replayable reports whether the call may be sent again after the server may
// have received it: GETs, and POSTs that carry an idempotency key.
func (k *call) replayable() bool { return k.method == http.MethodGet || k.idempotencyKey != "" }

// response is a 200 answer.
type response struct {
	header http.Header
	body   []byte
}

// outcome is what one attempt came to.
type outcome struct {
	resp   *response // non-nil on 200
	status int       // HTTP status, 0 when no response arrived
	err    error     // transport error or *APIError
	// reached is false only when the request surely never left the client:
	// no connection to the server was ever obtained.
	reached bool
	// final is set for errors that another attempt would repeat (a request
	// that cannot be built).
	final bool
}

// do runs the call with retries and decodes a 200 body into out (a pointer
// to an apiv2 type or *json.RawMessage). Every error it returns names the
// backend.
func (c *Client) do(ctx context.Context, k *call, out any) error {
	resp, err := c.send(ctx, k)
	if err != nil {
		return err
	}
	if err := decodeBody(resp.body, out); err != nil {
		return c.badAnswer(k, err)
	}
	return nil
}

// decodeBody reads a 200 body: one JSON object, nothing after it.
func decodeBody(body []byte, out any) error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("body is not a JSON object")
	}
	if raw, ok := out.(*json.RawMessage); ok {
		if !json.Valid(body) {
			return errors.New("body is not valid JSON")
		}
		*raw = append((*raw)[:0], bytes.TrimSpace(body)...)
		return nil
	}
	return json.Unmarshal(body, out)
}

func (c *Client) badAnswer(k *call, err error) error {
	return &mnp.BackendError{
		Backend: c.name,
		Code:    mnp.CodeBadProviderAnswer,
		Err:     fmt.Errorf("%s %s: %w", k.method, k.path, err),
	}
}

// send runs the call's attempts and returns the 200 response or the error of
// the last attempt.
func (c *Client) send(ctx context.Context, k *call) (*response, error) {
	synced := false
	for attempt := 0; ; attempt++ {
		o := c.attempt(ctx, k)
		if o.resp != nil {
			return o.resp, nil
		}
		var apiErr *APIError
		// Never for GET /time itself, which SyncClock calls: a server that
		// protects it would otherwise send the client round in circles.
		if errors.As(o.err, &apiErr) && apiErr.StaleTimestamp() && c.autoSync && !synced &&
			c.authStyle == authDigest && k.path != timePath {
			// Refused at authentication: not processed, safe to send again.
			synced = true
			if _, err := c.SyncClock(ctx); err == nil {
				attempt--
				continue
			}
		}
		if errors.As(o.err, &apiErr) && apiErr.SignatureUsed() && c.authStyle == authDigest && k.ahead < maxAhead {
			// Refused at authentication, before anything was done: another
			// client with this key sent the same request in the same second.
			// Sign it again with a later timestamp.
			k.ahead++
			attempt--
			continue
		}
		wait, retry := c.retryAfter(ctx, k, o, attempt)
		if !retry {
			return nil, c.finalError(ctx, k, o, attempt+1)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, c.finalError(ctx, k, o, attempt+1)
		}
	}
}

// retryAfter decides whether to make another attempt after o, and how long
// to wait first. The policy is in the package documentation.
func (c *Client) retryAfter(ctx context.Context, k *call, o outcome, attempt int) (time.Duration, bool) {
	if attempt >= c.retries || o.final || ctx.Err() != nil {
		return 0, false
	}
	wait := c.backoff(attempt)
	switch {
	case o.status == 0:
		// Transport error: a POST only when it surely never reached the server.
		if !k.replayable() && !neverSent(o) {
			return 0, false
		}
	case k.replayable() && retryableStatus(o.status):
		var apiErr *APIError
		if errors.As(o.err, &apiErr) && apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > c.maxRA {
				return 0, false
			}
			wait = apiErr.RetryAfter
		}
	default:
		return 0, false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		return 0, false // the wait alone would outlast the caller
	}
	return wait, true
}

// neverSent reports whether an attempt surely never reached the server: the
// dial failed and no connection was obtained. Both must hold, so that a
// transport that does not report connections through httptrace cannot make
// a charged lookup be sent twice.
func neverSent(o outcome) bool {
	var op *net.OpError
	return !o.reached && errors.As(o.err, &op) && op.Op == "dial"
}

func retryableStatus(s int) bool {
	switch s {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// backoff is the wait before retry number attempt+1: base·2^attempt capped
// at max, less a random part of up to half of it.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.backBase
	for i := 0; i < attempt && d < c.backMax; i++ {
		d *= 2
	}
	d = min(d, c.backMax)
	if half := int64(d / 2); half > 0 {
		d -= time.Duration(rand.Int64N(half + 1))
	}
	return d
}

// attempt sends the call once, with a fresh timestamp and signature.
func (c *Client) attempt(ctx context.Context, k *call) outcome {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	var reached atomic.Bool
	trace := &httptrace.ClientTrace{
		// A connection to the server (new or reused) was obtained: from here
		// on, bytes of the request may have reached it.
		GotConn: func(httptrace.GotConnInfo) { reached.Store(true) },
	}
	req, err := c.newRequest(httptrace.WithClientTrace(actx, trace), k)
	if err != nil {
		return outcome{err: err, final: true}
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return outcome{err: err, reached: reached.Load()}
	}
	defer res.Body.Close()

	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		e := decodeAPIError(k.method, k.path, res.StatusCode, body, c.redact)
		e.RetryAfter = c.parseRetryAfter(res.Header.Get("Retry-After"))
		return outcome{status: res.StatusCode, err: e, reached: true}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		// The status arrived but the body did not: a transport error after
		// the server received the request.
		return outcome{err: err, reached: true}
	}
	if len(body) > maxBody {
		return outcome{status: res.StatusCode, err: c.badAnswer(k, fmt.Errorf("body larger than %d bytes", maxBody)), reached: true}
	}
	return outcome{resp: &response{header: res.Header, body: body}, status: res.StatusCode, reached: true}
}

// newRequest builds and signs one attempt's request.
func (c *Client) newRequest(ctx context.Context, k *call) (*http.Request, error) {
	u := c.base.JoinPath(k.path)
	if k.query != nil {
		u.RawQuery = k.query.Encode()
	}
	var body io.Reader
	if k.body != nil {
		// A *bytes.Reader makes NewRequest set GetBody, so the transport can
		// rewind the body if it has to resend on a fresh connection.
		body = bytes.NewReader(k.body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: %w", c.name, k.method, k.path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if k.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if k.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", k.idempotencyKey)
	}
	switch c.authStyle {
	case authXBasic:
		req.Header.Set(auth.HeaderXBasic, auth.XBasic(c.key, c.secret))
	case authBasic:
		req.Header.Set(auth.HeaderAuthorization, auth.BasicHeader(c.key, c.secret))
	default:
		// The base URL's path ends in /api/v2 (New checks it), so the
		// signed path is the endpoint's, as the spec defines it.
		now := c.now().Unix()
		// A POST gets a signature this client has not sent: the first free
		// second from now (plus the call's ahead) on.
		for ts := now + k.ahead; ; ts++ {
			if err := auth.SignRequest(req, c.key, c.secret, time.Unix(ts, 0), k.body); err != nil {
				return nil, fmt.Errorf("%s: %s %s: sign: %w", c.name, k.method, k.path, err)
			}
			if k.method != http.MethodPost || ts >= now+maxAhead || c.signed.claim(now, ts, req.Header.Get(auth.HeaderDigestSignature)) {
				break
			}
		}
	}
	return req, nil
}

// parseRetryAfter reads Retry-After: delay seconds or an HTTP date. It
// returns 0 for none, for a date in the past and for nonsense.
func (c *Client) parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(c.now()); d > 0 {
			return min(d, 24*time.Hour)
		}
	}
	return 0
}

// finalError turns the last attempt's outcome into the call's error.
func (c *Client) finalError(ctx context.Context, k *call, o outcome, attempts int) error {
	var apiErr *APIError
	if errors.As(o.err, &apiErr) {
		if o.status == http.StatusTooManyRequests || o.status >= 500 {
			return mnp.Unavailable(c.name, mnp.CodeUnavailable, withAttempts(apiErr, attempts))
		}
		return fmt.Errorf("%s: %w", c.name, apiErr)
	}
	var be *mnp.BackendError
	if o.final || errors.As(o.err, &be) {
		return o.err
	}
	cause := withAttempts(o.err, attempts)
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		// The caller gave up: not the backend's fault, not a reason to
		// fail over.
		return fmt.Errorf("%s: %s %s: %w", c.name, k.method, k.path, ctx.Err())
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(o.err):
		return mnp.Unavailable(c.name, mnp.CodeTimeout, cause)
	case o.status == 0:
		return mnp.Unavailable(c.name, mnp.CodeNetworkUnreachable, cause)
	}
	return fmt.Errorf("%s: %w", c.name, cause)
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// attemptsError notes how many attempts a call made before it failed.
type attemptsError struct {
	n   int
	err error
}

func (e *attemptsError) Error() string { return fmt.Sprintf("%v (after %d attempts)", e.err, e.n) }
func (e *attemptsError) Unwrap() error { return e.err }

func withAttempts(err error, n int) error {
	if n <= 1 {
		return err
	}
	return &attemptsError{n: n, err: err}
}
