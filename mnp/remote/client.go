package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/mnp"
)

// Defaults of the options.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultRetries       = 2
	DefaultBackoffBase   = 100 * time.Millisecond
	DefaultBackoffMax    = 2 * time.Second
	DefaultMaxRetryAfter = 5 * time.Second

	// MaxRetries bounds WithRetries: a client never makes more than
	// MaxRetries+1 attempts of one call.
	MaxRetries = 10

	// MaxBulk is the most numbers one bulk call may carry (the spec's limit).
	MaxBulk = 1000
)

// Client speaks Numen's /api/v2 to one service. Build it with [New]; it is
// safe for concurrent use. It implements [mnp.HLRBackend] and
// [mnp.PortabilityBackend].
type Client struct {
	base      *url.URL
	key       string
	secret    string
	hc        *http.Client
	authStyle authStyle
	timeout   time.Duration
	retries   int
	backBase  time.Duration
	backMax   time.Duration
	maxRA     time.Duration
	clock     func() time.Time
	route     string
	name      string
	userAgent string
	autoSync  bool
	codes     func(code int, description string) (mnp.ErrorCode, bool)

	// redact holds the texts that must never appear in an error: the
	// secret and the credentials derived from it.
	redact []string

	// offset is added to clock() when signing: the server's clock minus
	// ours, as SyncClock measured it, in nanoseconds.
	offset atomic.Int64

	// signed are the digest signatures of POSTs this client sent with a
	// timestamp not yet past, so that it never sends one twice.
	signed signatures

	// sleep waits between attempts; tests replace it to record waits.
	sleep func(ctx context.Context, d time.Duration) error
}

var (
	_ mnp.HLRBackend         = (*Client)(nil)
	_ mnp.PortabilityBackend = (*Client)(nil)
)

type authStyle uint8

const (
	authDigest authStyle = iota
	authXBasic
	authBasic
)

// Option configures [New].
type Option func(*Client)

// WithHTTPClient sets the http.Client that sends requests (default: a client
// with http.DefaultTransport). Its Timeout, if any, applies on top of
// [WithTimeout]'s per-attempt timeout. The client uses a copy of it; unless it
// has its own CheckRedirect, the copy follows no redirects (a 3xx is an
// [*APIError]), because net/http would forward the X-Basic and X-Digest-*
// headers to wherever a redirect points.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithTimeout sets how long one attempt may take, from sending the request to
// reading the whole response (default [DefaultTimeout]). The caller's context
// bounds the whole call, retries included.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRetries sets how many times a call may be repeated after its first
// attempt (default [DefaultRetries], at most [MaxRetries]); 0 disables
// retries. Which calls are retried is in the package documentation.
func WithRetries(n int) Option { return func(c *Client) { c.retries = n } }

// WithBackoff sets the wait before a retry: base doubled for each retry
// already made, capped at max, of which a random part (up to half) is left
// out so that clients do not retry in step. Defaults: [DefaultBackoffBase],
// [DefaultBackoffMax]. Zero base retries at once.
func WithBackoff(base, max time.Duration) Option {
	return func(c *Client) { c.backBase, c.backMax = base, max }
}

// WithMaxRetryAfter sets the longest Retry-After (of a 429 or 503) the
// client waits for before retrying (default [DefaultMaxRetryAfter]). When the
// server asks for longer, or longer than the context allows, the call
// returns the error at once, with [APIError.RetryAfter] set.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxRA = d } }

// WithDigest selects digest authentication, the spec's recommended method and
// the default: every request is signed with HMAC-SHA256 over its path,
// timestamp, method and body.
func WithDigest() Option { return func(c *Client) { c.authStyle = authDigest } }

// WithXBasic selects the X-Basic header (hex SHA-256 of key:secret) instead
// of digest. It has no timestamp, so it needs no clock, but a captured header
// stays valid until the secret changes.
func WithXBasic() Option { return func(c *Client) { c.authStyle = authXBasic } }

// WithBasicAuth selects HTTP Basic authentication (key and secret as user
// and password) instead of digest. Use it only over https.
func WithBasicAuth() Option { return func(c *Client) { c.authStyle = authBasic } }

// WithClock sets the clock that timestamps digest signatures (default
// time.Now), for tests. [Client.SyncClock]'s offset is added to it.
func WithClock(now func() time.Time) Option { return func(c *Client) { c.clock = now } }

// WithAutoSyncClock makes the client answer a 401 about a stale digest
// timestamp by calling [Client.SyncClock] and sending the request once more,
// at most once per call. This is safe for lookups too: a request refused at
// authentication was not processed and is not charged.
func WithAutoSyncClock() Option { return func(c *Client) { c.autoSync = true } }

// WithUpstreamRoute sets the route the client asks for when it serves as a
// backend ([Client.HLR], [Client.Portability]). The default, "", lets the
// provider choose. The route of the engine's own query is a route of this
// side and is not sent.
func WithUpstreamRoute(route string) Option { return func(c *Client) { c.route = route } }

// WithName sets the backend's name in errors (default "remote(<host>)").
func WithName(name string) Option { return func(c *Client) { c.name = name } }

// WithUserAgent sets the User-Agent header (default [DefaultUserAgent]).
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithErrorCodes sets how the backend methods read a provider's error_code
// and error_description into an [mnp.ErrorCode]: the function returns the
// code and true, or false for a code it does not know, which the answer then
// carries as [mnp.CodeNone]. The default is [NumenErrorCode]. The function
// sees every code the provider sends, so it is also the place to log or count
// the codes that would otherwise be dropped. It must be safe for concurrent use.
func WithErrorCodes(f func(code int, description string) (mnp.ErrorCode, bool)) Option {
	return func(c *Client) { c.codes = f }
}

// DefaultUserAgent is the User-Agent the client sends unless told otherwise.
const DefaultUserAgent = "numen-remote/2"

// New returns a client of the service at baseURL, an absolute http or https
// URL whose path ends in /api/v2 (such as "https://lookup.example/api/v2"),
// authenticating with the API key and secret. New makes no request.
func New(baseURL, key, secret string, opts ...Option) (*Client, error) {
	base, err := parseBase(baseURL)
	if err != nil {
		return nil, err
	}
	switch {
	case key == "":
		return nil, errors.New("remote: API key is empty")
	case strings.ContainsAny(key, ":\r\n"):
		return nil, errors.New("remote: API key contains a colon or a line break")
	case secret == "":
		return nil, errors.New("remote: API secret is empty")
	}
	c := &Client{
		base:      base,
		key:       key,
		secret:    secret,
		hc:        &http.Client{},
		timeout:   DefaultTimeout,
		retries:   DefaultRetries,
		backBase:  DefaultBackoffBase,
		backMax:   DefaultBackoffMax,
		maxRA:     DefaultMaxRetryAfter,
		clock:     time.Now,
		name:      "remote(" + base.Host + ")",
		userAgent: DefaultUserAgent,
		codes:     NumenErrorCode,
		sleep:     sleepCtx,
	}
	for _, opt := range opts {
		opt(c)
	}
	switch {
	case c.hc == nil:
		return nil, errors.New("remote: WithHTTPClient(nil)")
	case c.timeout <= 0:
		return nil, fmt.Errorf("remote: WithTimeout(%v): the timeout must be positive", c.timeout)
	case c.retries < 0 || c.retries > MaxRetries:
		return nil, fmt.Errorf("remote: WithRetries(%d): retries must be between 0 and %d", c.retries, MaxRetries)
	case c.backBase < 0 || c.backMax < 0:
		return nil, fmt.Errorf("remote: WithBackoff(%v, %v): durations must not be negative", c.backBase, c.backMax)
	case c.maxRA < 0:
		return nil, fmt.Errorf("remote: WithMaxRetryAfter(%v): must not be negative", c.maxRA)
	case c.clock == nil:
		return nil, errors.New("remote: WithClock(nil)")
	case c.codes == nil:
		return nil, errors.New("remote: WithErrorCodes(nil)")
	case c.name == "":
		return nil, errors.New("remote: WithName(\"\")")
	}
	hc := *c.hc
	if hc.CheckRedirect == nil {
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	c.hc = &hc
	c.redact = []string{
		secret,
		auth.XBasic(key, secret),
		strings.TrimPrefix(auth.BasicHeader(key, secret), "Basic "),
	}
	return c, nil
}

// parseBase checks a base URL. Its errors show the URL without user info,
// query string or fragment, which may hold credentials.
func parseBase(baseURL string) (*url.URL, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		// url.Parse's error quotes the input, which may hold a password.
		return nil, errors.New("remote: base URL is not a URL")
	}
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("remote: base URL %q: scheme must be http or https", shown)
	case u.Host == "":
		return nil, fmt.Errorf("remote: base URL %q: no host", shown)
	case u.User != nil:
		return nil, fmt.Errorf("remote: base URL %q: must not carry user info; pass the key and secret to New", shown)
	case u.RawQuery != "" || u.ForceQuery:
		return nil, fmt.Errorf("remote: base URL %q: must not have a query string", shown)
	case u.Fragment != "":
		return nil, fmt.Errorf("remote: base URL %q: must not have a fragment", shown)
	}
	p := strings.TrimRight(u.Path, "/")
	// The suffix starts with a slash, so it matches whole segments only.
	if !strings.HasSuffix(strings.ToLower(p), auth.BasePath) {
		return nil, fmt.Errorf("remote: base URL %q: path must end in %s", shown, auth.BasePath)
	}
	u.Path = p
	u.RawPath = ""
	return u, nil
}

// Name returns the backend's name, as errors show it.
func (c *Client) Name() string { return c.name }

// BaseURL returns the base URL requests go to.
func (c *Client) BaseURL() string { return c.base.String() }

// ClockOffset returns the offset [Client.SyncClock] measured (server clock
// minus the client's), which digest timestamps include; 0 before any sync.
func (c *Client) ClockOffset() time.Duration { return time.Duration(c.offset.Load()) }

// now is the client's estimate of the server's clock.
func (c *Client) now() time.Time { return c.clock().Add(c.ClockOffset()) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
