package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/mnp"
)

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, key, secret string
		opts                   []Option
		wantErr                string // "" for success
	}{
		{name: "ok", url: "http://127.0.0.1:8080/api/v2"},
		{name: "trailing slash", url: "https://lookup.example/api/v2/"},
		{name: "prefix", url: "https://lookup.example/numen/api/v2"},
		{name: "upper-case path", url: "https://lookup.example/API/V2"},
		{name: "not a URL", url: "http://a b\x00", wantErr: "not a URL"},
		{name: "relative", url: "/api/v2", wantErr: "scheme must be http or https"},
		{name: "ftp", url: "ftp://lookup.example/api/v2", wantErr: "scheme must be http or https"},
		{name: "no host", url: "http:///api/v2", wantErr: "no host"},
		{name: "user info", url: "https://user:hunter2@lookup.example/api/v2", wantErr: "must not carry user info"},
		{name: "query", url: "https://lookup.example/api/v2?x=1", wantErr: "query string"},
		{name: "fragment", url: "https://lookup.example/api/v2#x", wantErr: "fragment"},
		{name: "no api/v2", url: "https://lookup.example/", wantErr: "path must end in /api/v2"},
		{name: "api/v2x", url: "https://lookup.example/api/v2x", wantErr: "path must end in /api/v2"},
		{name: "api/v2 not last", url: "https://lookup.example/api/v2/hlr-lookup", wantErr: "path must end in /api/v2"},
		{name: "empty key", url: "http://h/api/v2", key: "-", wantErr: "API key is empty"},
		{name: "colon in key", url: "http://h/api/v2", key: "a:b", wantErr: "colon"},
		{name: "empty secret", url: "http://h/api/v2", secret: "-", wantErr: "API secret is empty"},
		{name: "nil http client", url: "http://h/api/v2", opts: []Option{WithHTTPClient(nil)}, wantErr: "WithHTTPClient(nil)"},
		{name: "zero timeout", url: "http://h/api/v2", opts: []Option{WithTimeout(0)}, wantErr: "timeout must be positive"},
		{name: "negative retries", url: "http://h/api/v2", opts: []Option{WithRetries(-1)}, wantErr: "retries must be between 0 and 10"},
		{name: "too many retries", url: "http://h/api/v2", opts: []Option{WithRetries(MaxRetries + 1)}, wantErr: "retries must be between"},
		{name: "negative backoff", url: "http://h/api/v2", opts: []Option{WithBackoff(-1, 0)}, wantErr: "must not be negative"},
		{name: "negative retry-after", url: "http://h/api/v2", opts: []Option{WithMaxRetryAfter(-1)}, wantErr: "must not be negative"},
		{name: "nil clock", url: "http://h/api/v2", opts: []Option{WithClock(nil)}, wantErr: "WithClock(nil)"},
		{name: "nil codes", url: "http://h/api/v2", opts: []Option{WithErrorCodes(nil)}, wantErr: "WithErrorCodes(nil)"},
		{name: "empty name", url: "http://h/api/v2", opts: []Option{WithName("")}, wantErr: "WithName"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, secret := tt.key, tt.secret
			if key == "" {
				key = testKey
			} else if key == "-" {
				key = ""
			}
			if secret == "" {
				secret = testSecret
			} else if secret == "-" {
				secret = ""
			}
			c, err := New(tt.url, key, secret, tt.opts...)
			if tt.wantErr == "" {
				require.NoError(t, err)
				require.NotNil(t, c)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			require.NotContains(t, err.Error(), "hunter2")
			requireNoSecret(t, err)
		})
	}
}

func TestNameAndBaseURL(t *testing.T) {
	t.Parallel()
	c, err := New("http://127.0.0.1:8080/api/v2/", testKey, testSecret)
	require.NoError(t, err)
	require.Equal(t, "remote(127.0.0.1:8080)", c.Name())
	require.Equal(t, "http://127.0.0.1:8080/api/v2", c.BaseURL())
	c, err = New("http://127.0.0.1:8080/api/v2", testKey, testSecret, WithName("provider-a"))
	require.NoError(t, err)
	require.Equal(t, "provider-a", c.Name())
}

// roundTrip is one SDK call and what the provider must have received.
type roundTrip struct {
	name     string
	endpoint string // "METHOD /path"
	call     func(ctx context.Context, c *Client) (any, error)
	want     any
	wantBody string // JSON the request body must equal; "" for none
}

func roundTrips() []roundTrip {
	rawMap := json.RawMessage(`{"defaultRoute":"IP1","mnpFallback":false,"mccmncs":[],"prefixes":[],"countries":[{"countrycode":"DE","route":"V11"}]}`)
	var wantMap apiv2.RoutingMap
	wantMap.Routing.Map = rawMap
	return []roundTrip{
		{
			name: "HLRLookup", endpoint: "POST /hlr-lookup",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.HLRLookup(ctx, "+14156226819", &LookupOptions{Route: "IP1", Storage: "campaign"})
			},
			want:     &cannedHLR,
			wantBody: `{"msisdn":"+14156226819","route":"IP1","storage":"campaign"}`,
		},
		{
			name: "HLRLookup without options", endpoint: "POST /hlr-lookup",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.HLRLookup(ctx, "+14156226819", nil) },
			want:     &cannedHLR,
			wantBody: `{"msisdn":"+14156226819"}`,
		},
		{
			name: "MNPLookup", endpoint: "POST /mnp-lookup",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.MNPLookup(ctx, "+14156226819", &LookupOptions{Route: "MP1"})
			},
			want:     &cannedMNP,
			wantBody: `{"msisdn":"+14156226819","route":"MP1"}`,
		},
		{
			name: "NTLookup", endpoint: "POST /nt-lookup",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.NTLookup(ctx, "+4915123456789", &LookupOptions{Storage: "nt"})
			},
			want:     &cannedNT,
			wantBody: `{"number":"+4915123456789","storage":"nt"}`,
		},
		{
			name: "HLRLookups", endpoint: "POST /hlr-lookups",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.HLRLookups(ctx, []string{"+14156226819", "+1"}, &BulkOptions{Route: "IP1"})
			},
			want:     &cannedReceipt,
			wantBody: `{"msisdns":["+14156226819","+1"],"route":"IP1"}`,
		},
		{
			name: "NTLookups", endpoint: "POST /nt-lookups",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.NTLookups(ctx, []string{"+4915123456789"}, nil)
			},
			want:     &cannedNTReceipt,
			wantBody: `{"numbers":["+4915123456789"]}`,
		},
		{
			name: "Route", endpoint: "GET /route",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Route(ctx, "+14156226819") },
			want: &cannedRoute,
		},
		{
			name: "Routes", endpoint: "GET /routes",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Routes(ctx) },
			want: &cannedRoutes,
		},
		{
			name: "RoutingMap", endpoint: "GET /routing-map",
			call: func(ctx context.Context, c *Client) (any, error) { return c.RoutingMap(ctx) },
			want: &wantMap,
		},
		{
			name: "HLRCoverage", endpoint: "GET /hlr-coverage",
			call: func(ctx context.Context, c *Client) (any, error) { return c.HLRCoverage(ctx) },
			want: json.RawMessage(cannedCoverage),
		},
		{
			name: "AuthTest", endpoint: "GET /auth-test",
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.AuthTest(ctx) },
		},
		{
			name: "Time", endpoint: "GET /time",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Time(ctx) },
			want: testNow,
		},
	}
}

// TestRoundTrips calls every SDK method with every authentication method;
// the provider verifies each request with engine/auth.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	methods := []struct {
		opt  Option
		name string
	}{
		{WithDigest(), auth.MethodDigest},
		{WithXBasic(), auth.MethodXBasic},
		{WithBasicAuth(), auth.MethodBasic},
	}
	for _, m := range methods {
		for _, rt := range roundTrips() {
			t.Run(m.name+"/"+rt.name, func(t *testing.T) {
				p := newFakeProvider(t)
				// The default http.Client, with keep-alives, as users have it.
				c, err := New(p.baseURL(), testKey, testSecret, m.opt, WithClock(func() time.Time { return testNow }))
				require.NoError(t, err)

				got, err := rt.call(t.Context(), c)
				require.NoError(t, err)
				if rt.want != nil {
					require.Equal(t, rt.want, got)
				}

				hits := p.requests()
				require.Len(t, hits, 1)
				h := hits[0]
				require.Equal(t, rt.endpoint, h.method+" "+h.relPath)
				require.Equal(t, "/api/v2"+h.relPath, h.path)
				require.Equal(t, m.name, h.authMethod, "the provider authenticated the request")
				require.Equal(t, "application/json", h.header.Get("Accept"))
				require.Equal(t, DefaultUserAgent, h.header.Get("User-Agent"))
				if rt.wantBody != "" {
					require.JSONEq(t, rt.wantBody, string(h.body))
					require.Equal(t, "application/json", h.header.Get("Content-Type"))
				} else {
					require.Empty(t, h.body)
				}
				if m.name == auth.MethodDigest {
					require.Equal(t, "1700000000", h.header.Get(auth.HeaderDigestTimestamp))
				}
			})
		}
	}
}

func TestRouteQueryEscapedAndNotSigned(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	c, _ := newTestClient(t, p)
	const msisdn = "+1 (415) 622-6819&route=XX1#frag"
	_, err := c.Route(t.Context(), msisdn)
	require.NoError(t, err, "the digest covers the path without the query string")

	h := p.requests()[0]
	require.Equal(t, msisdn, h.query, "the number arrives intact")
	require.Equal(t, "/route", h.relPath)
	require.Equal(t, "msisdn=%2B1+%28415%29+622-6819%26route%3DXX1%23frag", h.rawQuery)
	require.Equal(t, auth.SignDigest(testSecret, "/route", "GET", testNow.Unix(), nil), h.header.Get(auth.HeaderDigestSignature))
}

func TestBaseURLWithPrefix(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	c, err := New(p.srv.URL+"/tenant/API/v2/", testKey, testSecret, WithClock(func() time.Time { return testNow }))
	require.NoError(t, err)
	require.NoError(t, c.AuthTest(t.Context()))
	h := p.requests()[0]
	require.Equal(t, "/tenant/API/v2/auth-test", h.path)
	require.Equal(t, auth.MethodDigest, h.authMethod)
}

func TestOptionsSent(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	c, _ := newTestClient(t, p, WithUserAgent("acme/1.0"))
	_, err := c.HLRLookups(t.Context(), []string{"+14156226819"}, &BulkOptions{IdempotencyKey: "k-123"})
	require.NoError(t, err)
	h := p.requests()[0]
	require.Equal(t, "acme/1.0", h.header.Get("User-Agent"))
	require.Equal(t, "k-123", h.header.Get("Idempotency-Key"))
}

// TestNoRedirects: credentials headers are not sent where a redirect points.
func TestNoRedirects(t *testing.T) {
	t.Parallel()
	elsewhere := newFakeProvider(t)
	redirect := failure{status: http.StatusTemporaryRedirect, body: "-"}
	p := newFakeProvider(t)
	p.failNext("GET /routes", redirect)
	// A redirect needs a Location; the fake sets none, so serve one here.
	p.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", elsewhere.baseURL()+"/routes")
		p.serve(w, r)
	})
	for _, opts := range [][]Option{{WithXBasic()}, {WithXBasic(), WithHTTPClient(&http.Client{})}} {
		c, err := New(p.baseURL(), testKey, testSecret, opts...)
		require.NoError(t, err)
		_, err = c.Routes(t.Context())
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, http.StatusTemporaryRedirect, apiErr.StatusCode)
		require.Empty(t, elsewhere.requests())
		p.failNext("GET /routes", redirect)
	}

	// Control: a client's own CheckRedirect is kept, and this one follows.
	follow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	c, err := New(p.baseURL(), testKey, testSecret, WithXBasic(), WithHTTPClient(follow))
	require.NoError(t, err)
	_, err = c.Routes(t.Context())
	require.NoError(t, err)
	require.Len(t, elsewhere.requests(), 1)
	require.Equal(t, auth.MethodXBasic, elsewhere.requests()[0].authMethod, "net/http forwarded the credential")
}

func TestBulkLimits(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	c, _ := newTestClient(t, p)
	ctx := t.Context()
	_, err := c.HLRLookups(ctx, nil, nil)
	require.ErrorContains(t, err, "HLRLookups: 0 numbers; a bulk call takes 1 to 1000")
	_, err = c.NTLookups(ctx, make([]string, MaxBulk+1), nil)
	require.ErrorContains(t, err, "NTLookups: 1001 numbers")
	require.Empty(t, p.requests())
}

func TestRetries(t *testing.T) {
	t.Parallel()
	unavailable := failure{status: http.StatusServiceUnavailable}
	tests := []struct {
		name         string
		endpoint     string
		fails        []failure
		opts         []Option
		call         func(ctx context.Context, c *Client) error
		wantAttempts int
		wantErr      bool
		wantCode     mnp.ErrorCode // of the error, when wantErr
		wantStatus   int           // of the *APIError inside, when there is one
	}{
		{
			name: "GET recovers after two 503", endpoint: "GET /routes",
			fails:        []failure{unavailable, unavailable},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 3,
		},
		{
			name: "GET gives up after the bound", endpoint: "GET /routes",
			fails:        []failure{unavailable, unavailable, unavailable, unavailable},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 3, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 503,
		},
		{
			name: "WithRetries(0)", endpoint: "GET /routes", opts: []Option{WithRetries(0)},
			fails:        []failure{unavailable},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 503,
		},
		{
			name: "WithRetries(5)", endpoint: "GET /routes", opts: []Option{WithRetries(5)},
			fails:        []failure{unavailable, unavailable, unavailable, unavailable, unavailable},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 6,
		},
		{
			name: "GET retried on 502 and 504", endpoint: "GET /route",
			fails:        []failure{{status: 502, body: "<html>bad gateway</html>"}, {status: 504}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Route(ctx, "+14156226819"); return err },
			wantAttempts: 3,
		},
		{
			name: "GET not retried on 500", endpoint: "GET /routes",
			fails:        []failure{{status: 500}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 500,
		},
		{
			name: "GET not retried on 400", endpoint: "GET /route",
			fails:        []failure{{status: 400, body: `{"errors":["msisdn is required"]}`}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Route(ctx, ""); return err },
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeInternal, wantStatus: 400,
		},
		{
			name: "GET retried on connection reset", endpoint: "GET /auth-test",
			fails:        []failure{{reset: true}, {reset: true}},
			call:         func(ctx context.Context, c *Client) error { return c.AuthTest(ctx) },
			wantAttempts: 3,
		},
		{
			name: "GET reset every time", endpoint: "GET /auth-test",
			fails:        []failure{{reset: true}, {reset: true}, {reset: true}},
			call:         func(ctx context.Context, c *Client) error { return c.AuthTest(ctx) },
			wantAttempts: 3, wantErr: true, wantCode: mnp.CodeNetworkUnreachable,
		},
		{
			// The second attempt must answer within the timeout: leave room for a loaded machine.
			name: "GET retried after attempt timeout", endpoint: "GET /routes", opts: []Option{WithTimeout(250 * time.Millisecond)},
			fails:        []failure{{stall: true}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 2,
		},
		{
			// Each attempt must reach the provider before it times out, or
			// it is not counted: room for a loaded machine, as above.
			name: "GET every attempt times out", endpoint: "GET /routes", opts: []Option{WithTimeout(250 * time.Millisecond)},
			fails:        []failure{{stall: true}, {stall: true}, {stall: true}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.Routes(ctx); return err },
			wantAttempts: 3, wantErr: true, wantCode: mnp.CodeTimeout,
		},
		{
			name: "POST lookup not retried after 503", endpoint: "POST /hlr-lookup",
			fails: []failure{unavailable},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.HLRLookup(ctx, "+14156226819", nil)
				return err
			},
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 503,
		},
		{
			name: "POST lookup not retried after 429", endpoint: "POST /mnp-lookup",
			fails: []failure{{status: 429, retryAfter: "0"}},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.MNPLookup(ctx, "+14156226819", nil)
				return err
			},
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 429,
		},
		{
			name: "POST lookup not retried after reset", endpoint: "POST /nt-lookup",
			fails: []failure{{reset: true}},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.NTLookup(ctx, "+4915123456789", nil)
				return err
			},
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeNetworkUnreachable,
		},
		{
			name: "POST lookup not retried after timeout", endpoint: "POST /hlr-lookup", opts: []Option{WithTimeout(30 * time.Millisecond)},
			fails: []failure{{stall: true}},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.HLRLookup(ctx, "+14156226819", nil)
				return err
			},
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeTimeout,
		},
		{
			name: "bulk without key not retried", endpoint: "POST /hlr-lookups",
			fails: []failure{unavailable},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.HLRLookups(ctx, []string{"+14156226819"}, nil)
				return err
			},
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 503,
		},
		{
			name: "bulk with key retried", endpoint: "POST /hlr-lookups",
			fails: []failure{unavailable, {reset: true}},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.HLRLookups(ctx, []string{"+14156226819"}, &BulkOptions{IdempotencyKey: "batch-7"})
				return err
			},
			wantAttempts: 3,
		},
		{
			name: "NT bulk with key gives up after the bound", endpoint: "POST /nt-lookups",
			fails: []failure{unavailable, unavailable, unavailable},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.NTLookups(ctx, []string{"+4915123456789"}, &BulkOptions{IdempotencyKey: "batch-8"})
				return err
			},
			wantAttempts: 3, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 503,
		},
		{
			name: "429 with Retry-After 0 retried", endpoint: "GET /routing-map",
			fails:        []failure{{status: 429, retryAfter: "0"}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.RoutingMap(ctx); return err },
			wantAttempts: 2,
		},
		{
			name: "429 with Retry-After beyond the cap not retried", endpoint: "GET /routing-map",
			opts:         []Option{WithMaxRetryAfter(500 * time.Millisecond)},
			fails:        []failure{{status: 429, retryAfter: "1", body: `{"errors":["too many requests"]}`}},
			call:         func(ctx context.Context, c *Client) error { _, err := c.RoutingMap(ctx); return err },
			wantAttempts: 1, wantErr: true, wantCode: mnp.CodeUnavailable, wantStatus: 429,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakeProvider(t)
			p.failNext(tt.endpoint, tt.fails...)
			c, _ := newTestClient(t, p, tt.opts...)
			err := tt.call(t.Context(), c)
			require.Equal(t, tt.wantAttempts, p.count(tt.endpoint), "attempts")
			requireNoSecret(t, err)
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Equal(t, tt.wantCode, mnp.CodeOf(err), "code of %v", err)
			require.Equal(t, tt.wantCode != mnp.CodeInternal, mnp.Retryable(err), "retryable: %v", err)
			require.Contains(t, err.Error(), c.Name())
			var apiErr *APIError
			if tt.wantStatus == 0 {
				require.False(t, errors.As(err, &apiErr))
				return
			}
			require.ErrorAs(t, err, &apiErr)
			require.Equal(t, tt.wantStatus, apiErr.StatusCode)
			if tt.wantAttempts > 1 {
				require.Contains(t, err.Error(), fmt.Sprintf("after %d attempts", tt.wantAttempts))
			}
		})
	}
}

func TestRetryWaits(t *testing.T) {
	t.Parallel()
	t.Run("backoff grows", func(t *testing.T) {
		p := newFakeProvider(t)
		p.failNext("GET /routes", failure{status: 503}, failure{status: 503}, failure{status: 503})
		c, s := newTestClient(t, p, WithRetries(3), WithBackoff(100*time.Millisecond, 300*time.Millisecond))
		_, err := c.Routes(t.Context())
		require.NoError(t, err)
		w := s.all()
		require.Len(t, w, 3)
		for i, bound := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond} {
			require.GreaterOrEqual(t, w[i], bound/2, "wait %d", i)
			require.LessOrEqual(t, w[i], bound, "wait %d", i)
		}
	})
	t.Run("Retry-After respected", func(t *testing.T) {
		p := newFakeProvider(t)
		p.failNext("GET /routes", failure{status: 429, retryAfter: "1"}, failure{status: 503, retryAfter: "2"})
		c, s := newTestClient(t, p)
		_, err := c.Routes(t.Context())
		require.NoError(t, err)
		require.Equal(t, []time.Duration{time.Second, 2 * time.Second}, s.all())
	})
	t.Run("Retry-After as a date", func(t *testing.T) {
		p := newFakeProvider(t)
		p.failNext("GET /routes", failure{status: 503, retryAfter: testNow.Add(3 * time.Second).UTC().Format(http.TimeFormat)})
		c, s := newTestClient(t, p)
		_, err := c.Routes(t.Context())
		require.NoError(t, err)
		require.Equal(t, []time.Duration{3 * time.Second}, s.all())
	})
	t.Run("wait beyond the deadline not taken", func(t *testing.T) {
		p := newFakeProvider(t)
		p.failNext("GET /routes", failure{status: 503, retryAfter: "4"})
		c, s := newTestClient(t, p)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		ctx2, cancel2 := context.WithDeadline(ctx, time.Now().Add(2*time.Second))
		defer cancel2()
		_, err := c.Routes(ctx2)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		require.Equal(t, 4*time.Second, apiErr.RetryAfter)
		require.Empty(t, s.all())
		require.Equal(t, 1, p.count("GET /routes"))
	})
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	c, err := New("http://h/api/v2", testKey, testSecret, WithClock(func() time.Time { return testNow }))
	require.NoError(t, err)
	for in, want := range map[string]time.Duration{
		"":        0,
		"0":       0,
		"-5":      0,
		"7":       7 * time.Second,
		"9999999": 24 * time.Hour,
		"soon":    0,
		testNow.Add(90 * time.Second).UTC().Format(http.TimeFormat): 90 * time.Second,
		testNow.Add(-time.Hour).UTC().Format(http.TimeFormat):       0,
	} {
		require.Equal(t, want, c.parseRetryAfter(in), "Retry-After %q", in)
	}
}

// TestPOSTRetriedWhenNeverSent: a lookup whose dial fails is sent again,
// because it surely never reached the server. The transport's first dial
// goes to a closed port on loopback.
func TestPOSTRetriedWhenNeverSent(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadAddr := closed.Addr().String()
	require.NoError(t, closed.Close())

	for _, tt := range []struct {
		name         string
		refusals     int
		wantDials    int
		wantAttempts int // at the provider
		wantErr      bool
	}{
		{name: "refused once", refusals: 1, wantDials: 2, wantAttempts: 1},
		{name: "refused twice", refusals: 2, wantDials: 3, wantAttempts: 1},
		{name: "refused beyond the bound", refusals: 3, wantDials: 3, wantAttempts: 0, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakeProvider(t)
			var dials atomic.Int32
			var d net.Dialer
			tr := &http.Transport{
				DisableKeepAlives: true,
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if int(dials.Add(1)) <= tt.refusals {
						addr = deadAddr
					}
					return d.DialContext(ctx, network, addr)
				},
			}
			c, _ := newTestClient(t, p, WithHTTPClient(&http.Client{Transport: tr}))
			res, err := c.HLRLookup(t.Context(), "+14156226819", nil)
			require.Equal(t, tt.wantDials, int(dials.Load()))
			require.Equal(t, tt.wantAttempts, p.count("POST /hlr-lookup"))
			if !tt.wantErr {
				require.NoError(t, err)
				require.Equal(t, &cannedHLR, res)
				return
			}
			require.ErrorIs(t, err, mnp.ErrUnavailable)
			require.Equal(t, mnp.CodeNetworkUnreachable, mnp.CodeOf(err))
			var op *net.OpError
			require.ErrorAs(t, err, &op)
			require.Equal(t, "dial", op.Op)
			requireNoSecret(t, err)
		})
	}
}

func TestNeverSent(t *testing.T) {
	t.Parallel()
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	read := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	for _, tt := range []struct {
		name string
		o    outcome
		want bool
	}{
		{"dial error, no connection", outcome{err: fmt.Errorf("Post: %w", dial)}, true},
		{"dial error but a connection was obtained", outcome{err: dial, reached: true}, false},
		{"read error", outcome{err: read}, false},
		{"other error without connection", outcome{err: errors.New("EOF")}, false},
		{"HTTP status", outcome{status: 503, err: &APIError{StatusCode: 503}, reached: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, neverSent(tt.o)) })
	}
}

// TestFreshSignaturePerAttempt: a retried bulk call is signed anew, with the
// clock's time at each attempt, and carries the same body and key.
func TestFreshSignaturePerAttempt(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	p.failNext("POST /hlr-lookups", failure{status: 503}, failure{status: 503})
	var tick atomic.Int64
	c, _ := newTestClient(t, p, WithClock(func() time.Time { return testNow.Add(time.Duration(tick.Add(1)) * time.Second) }))
	_, err := c.HLRLookups(t.Context(), []string{"+14156226819"}, &BulkOptions{IdempotencyKey: "batch-9"})
	require.NoError(t, err)
	hits := p.requests()
	require.Len(t, hits, 3)
	stamps := map[string]bool{}
	for _, h := range hits {
		require.Equal(t, auth.MethodDigest, h.authMethod)
		require.Equal(t, "batch-9", h.header.Get("Idempotency-Key"))
		require.Equal(t, string(hits[0].body), string(h.body))
		stamps[h.header.Get(auth.HeaderDigestTimestamp)] = true
	}
	require.Len(t, stamps, 3, "each attempt has its own timestamp")
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status     int
		body       string
		retryAfter string
		wantErrors []string
		wantBody   string
		wantIs     []error
		wantNotIs  []error
		wantRA     time.Duration
	}{
		{
			status: 400, body: `{"errors":["msisdn: not a phone number in international format"]}`,
			wantErrors: []string{"msisdn: not a phone number in international format"},
			wantNotIs:  []error{ErrUnauthorized, ErrForbidden, ErrRateLimited, mnp.ErrUnavailable},
		},
		{
			status: 401, body: `{"errors":["X-Digest-Key is not a known API key"]}`,
			wantErrors: []string{"X-Digest-Key is not a known API key"},
			wantIs:     []error{ErrUnauthorized}, wantNotIs: []error{ErrStaleTimestamp, ErrForbidden, mnp.ErrUnavailable},
		},
		{
			status: 403, body: `{"errors":["client address 127.0.0.1 is not whitelisted"]}`,
			wantErrors: []string{"client address 127.0.0.1 is not whitelisted"},
			wantIs:     []error{ErrForbidden}, wantNotIs: []error{ErrUnauthorized, mnp.ErrUnavailable},
		},
		{
			status: 404, body: `{"errors":["unknown path /api/v2/hlr-lookup"]}`,
			wantErrors: []string{"unknown path /api/v2/hlr-lookup"},
			wantNotIs:  []error{ErrUnauthorized, mnp.ErrUnavailable},
		},
		{
			status: 413, body: `{"errors":["body larger than 1 MiB", "msisdns: at most 1000 numbers"]}`,
			wantErrors: []string{"body larger than 1 MiB", "msisdns: at most 1000 numbers"},
			wantNotIs:  []error{mnp.ErrUnavailable},
		},
		{
			status: 429, body: `{"errors":["rate limit of 10 requests per second exceeded"]}`, retryAfter: "1",
			wantErrors: []string{"rate limit of 10 requests per second exceeded"},
			wantIs:     []error{ErrRateLimited, mnp.ErrUnavailable}, wantRA: time.Second,
		},
		{
			status: 503, body: "<html><body>" + strings.Repeat("Service Unavailable ", 100) + "</body></html>",
			wantBody: "<html><body>" + strings.Repeat("Service Unavailable ", 100)[:188] + "…",
			wantIs:   []error{mnp.ErrUnavailable},
		},
		{
			status: 500, body: "-", wantIs: []error{mnp.ErrUnavailable},
		},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			p := newFakeProvider(t)
			p.failNext("POST /hlr-lookup", failure{status: tt.status, body: tt.body, retryAfter: tt.retryAfter})
			c, _ := newTestClient(t, p)
			_, err := c.HLRLookup(t.Context(), "+14156226819", nil)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			require.Equal(t, tt.status, apiErr.StatusCode)
			require.Equal(t, "POST", apiErr.Method)
			require.Equal(t, "/hlr-lookup", apiErr.Path)
			if tt.wantErrors != nil {
				require.Equal(t, tt.wantErrors, apiErr.Errors)
				for _, m := range tt.wantErrors {
					require.Contains(t, err.Error(), m)
				}
			}
			if tt.wantBody != "" {
				require.Nil(t, apiErr.Errors)
				require.Equal(t, tt.wantBody, apiErr.Body)
			}
			require.Equal(t, tt.wantRA, apiErr.RetryAfter)
			for _, target := range tt.wantIs {
				require.ErrorIs(t, err, target)
			}
			for _, target := range tt.wantNotIs {
				require.NotErrorIs(t, err, target)
			}
			require.Contains(t, err.Error(), fmt.Sprintf("HTTP %d", tt.status))
			require.Contains(t, err.Error(), c.Name())
		})
	}
}

func TestDecodeAPIError(t *testing.T) {
	t.Parallel()
	many := make([]string, 30)
	for i := range many {
		many[i] = fmt.Sprintf("message %d", i)
	}
	body, _ := json.Marshal(apiv2.ErrorBody{Errors: many})
	e := decodeAPIError("GET", "/routes", 400, body, nil)
	require.Len(t, e.Errors, maxMessages+1)
	require.Equal(t, "(10 more)", e.Errors[maxMessages])

	e = decodeAPIError("GET", "/routes", 502, []byte("bad\xffgateway"), nil)
	require.Equal(t, "bad\uFFFDgateway", e.Body)
	require.Equal(t, "GET /routes: HTTP 502 Bad Gateway: body \"bad\uFFFDgateway\"", e.Error())

	e = decodeAPIError("GET", "/routes", 401, []byte(`{"errors":["expected `+testSecret+`"]}`), []string{testSecret})
	require.Equal(t, []string{"expected [redacted]"}, e.Errors)

	e = decodeAPIError("GET", "/routes", 599, []byte(`{"errors":null}`), nil)
	require.Equal(t, `{"errors":null}`, e.Body)
	require.Equal(t, "GET /routes: HTTP 599: body \"{\\\"errors\\\":null}\"", e.Error())
}

func TestMalformedAnswer(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`not json`,
		`null`,
		`[]`,
		`"COMPLETED"`,
		`{"id": 5}`,
		`{"id": "x"} trailing`,
		`{"id": "x"`,
		``,
	} {
		t.Run(body, func(t *testing.T) {
			p := newFakeProvider(t)
			p.setBody("POST /hlr-lookup", body)
			p.setBody("GET /routes", body)
			p.setBody("GET /hlr-coverage", body)
			c, _ := newTestClient(t, p)
			ctx := t.Context()
			_, err := c.HLRLookup(ctx, "+14156226819", nil)
			errs := []error{err}
			if body != `{"id": 5}` { // a valid object for these two
				_, err2 := c.Routes(ctx)
				_, err3 := c.HLRCoverage(ctx)
				errs = append(errs, err2, err3)
			}
			for _, err := range errs {
				var be *mnp.BackendError
				require.ErrorAs(t, err, &be)
				require.Equal(t, mnp.CodeBadProviderAnswer, be.Code)
				require.Equal(t, c.Name(), be.Backend)
				require.False(t, mnp.Retryable(err), "a bad answer is not retried elsewhere")
			}
			require.Equal(t, 1, p.count("POST /hlr-lookup"), "a bad answer is not retried")
		})
	}
}

func TestTimeBadAnswer(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	p.now.Store(0)
	c, _ := newTestClient(t, p)
	_, err := c.Time(t.Context())
	require.Equal(t, mnp.CodeBadProviderAnswer, mnp.CodeOf(err))
}

func TestAuthTestFalse(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	p.setBody("GET /auth-test", `{"success":false}`)
	c, _ := newTestClient(t, p)
	require.ErrorIs(t, c.AuthTest(t.Context()), ErrUnauthorized)
}

func TestWrongSecret(t *testing.T) {
	t.Parallel()
	for _, opt := range []Option{WithDigest(), WithXBasic(), WithBasicAuth()} {
		p := newFakeProvider(t)
		c, err := New(p.baseURL(), testKey, "wrong-"+testSecret, opt, WithClock(func() time.Time { return testNow }))
		require.NoError(t, err)
		err = c.AuthTest(t.Context())
		require.ErrorIs(t, err, ErrUnauthorized)
		require.NotErrorIs(t, err, ErrStaleTimestamp)
		require.NotErrorIs(t, err, mnp.ErrUnavailable)
		require.NotContains(t, err.Error(), testSecret)
		require.Equal(t, 1, p.count("GET /auth-test"))
	}
}

func TestContextDeadline(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	p.failNext("POST /hlr-lookup", failure{stall: true})
	c, _ := newTestClient(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	_, err := c.HLRLookup(ctx, "+14156226819", nil)
	require.Equal(t, mnp.CodeTimeout, mnp.CodeOf(err))
	require.True(t, mnp.Retryable(err))
	require.ErrorIs(t, err, mnp.ErrUnavailable)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	requireNoSecret(t, err)
}

func TestContextCanceled(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	c, _ := newTestClient(t, p)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.Routes(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, mnp.Retryable(err), "the caller gave up; nothing to fail over")
	require.Contains(t, err.Error(), "GET /routes")
	require.Zero(t, p.count("GET /routes"))
}

func TestStaleTimestampAndSyncClock(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	p.now.Store(testNow.Unix() + 100) // the server is 100 s ahead
	c, _ := newTestClient(t, p)
	ctx := t.Context()

	_, err := c.HLRLookup(ctx, "+14156226819", nil)
	require.ErrorIs(t, err, ErrUnauthorized)
	require.ErrorIs(t, err, ErrStaleTimestamp)
	require.Equal(t, 1, p.count("POST /hlr-lookup"), "a stale timestamp is not retried without WithAutoSyncClock")

	server, err := c.Time(ctx)
	require.NoError(t, err)
	require.Equal(t, testNow.Add(100*time.Second), server)

	offset, err := c.SyncClock(ctx)
	require.NoError(t, err)
	require.Equal(t, 100500*time.Millisecond, offset)
	require.Equal(t, offset, c.ClockOffset())

	_, err = c.HLRLookup(ctx, "+14156226819", nil)
	require.NoError(t, err)
	last := p.requests()[len(p.requests())-1]
	require.Equal(t, "1700000100", last.header.Get(auth.HeaderDigestTimestamp))

	// Back in step: the offset goes back to 0.
	p.now.Store(testNow.Unix())
	offset, err = c.SyncClock(ctx)
	require.NoError(t, err)
	require.Zero(t, offset)
}

func TestAutoSyncClock(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	p.now.Store(testNow.Unix() - 3600) // the server is an hour behind
	c, _ := newTestClient(t, p, WithAutoSyncClock())
	res, err := c.HLRLookup(t.Context(), "+14156226819", nil)
	require.NoError(t, err)
	require.Equal(t, &cannedHLR, res)
	var seq []string
	for _, h := range p.requests() {
		seq = append(seq, h.method+" "+h.relPath)
	}
	require.Equal(t, []string{"POST /hlr-lookup", "GET /time", "POST /hlr-lookup"}, seq)

	// A 401 for another reason is not retried.
	p2 := newFakeProvider(t)
	c2, err := New(p2.baseURL(), testKey, "wrong", WithAutoSyncClock(), WithClock(func() time.Time { return testNow }))
	require.NoError(t, err)
	require.ErrorIs(t, c2.AuthTest(t.Context()), ErrUnauthorized)
	require.Equal(t, 1, len(p2.requests()))
}

// TestAutoSyncClockBounded: a server that also refuses GET /time for a stale
// timestamp gets one sync attempt, not a loop.
func TestAutoSyncClockBounded(t *testing.T) {
	t.Parallel()
	stale := failure{status: 401, body: `{"errors":["X-Digest-Timestamp 1700000000 is 100 s behind server time; allowed ±30 s"]}`}
	p := newFakeProvider(t)
	p.failNext("POST /hlr-lookup", stale, stale)
	p.failNext("GET /time", stale, stale)
	c, _ := newTestClient(t, p, WithAutoSyncClock())
	_, err := c.HLRLookup(t.Context(), "+14156226819", nil)
	require.ErrorIs(t, err, ErrStaleTimestamp)
	require.Equal(t, 1, p.count("POST /hlr-lookup"))
	require.Equal(t, 1, p.count("GET /time"))
	require.Zero(t, c.ClockOffset())
}

func TestStaleTimestampDetection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		msg    string
		want   bool
	}{
		{401, "X-Digest-Timestamp 1700000000 is 100 s behind server time; allowed ±30 s (GET /time returns the server's clock)", true},
		{401, "Timestamp expired", true},
		{401, "stale timestamp", true},
		{401, "X-Digest-Signature does not match this request; the server signed path \"/x\", timestamp 1, method \"GET\" and a 0-byte body", false},
		{401, "X-Digest-Key is not a known API key", false},
		{403, "stale timestamp", false},
	} {
		e := &APIError{StatusCode: tt.status, Errors: []string{tt.msg}}
		require.Equal(t, tt.want, e.StaleTimestamp(), tt.msg)
		require.Equal(t, tt.want, errors.Is(e, ErrStaleTimestamp), tt.msg)
	}
}

// TestSecretNeverInErrors collects the errors of many failures, including a
// provider that echoes the credentials it received, and looks for the secret.
func TestSecretNeverInErrors(t *testing.T) {
	t.Parallel()
	echo := func(v string) failure {
		return failure{status: 401, body: mustJSON(t, apiv2.ErrorBody{Errors: []string{"bad credentials " + v}})}
	}
	var errs []error
	for _, opt := range []Option{WithDigest(), WithXBasic(), WithBasicAuth()} {
		p := newFakeProvider(t)
		p.failNext("GET /auth-test",
			echo(testSecret), echo(auth.XBasic(testKey, testSecret)), echo(auth.BasicHeader(testKey, testSecret)),
			failure{status: 502, body: "proxy saw " + auth.BasicHeader(testKey, testSecret) + " and " + testSecret},
			failure{status: 400, body: strings.Repeat("x", maxSnippet-5) + testSecret},
			failure{reset: true})
		c, _ := newTestClient(t, p, opt, WithRetries(0), WithTimeout(50*time.Millisecond))
		for range 6 {
			errs = append(errs, c.AuthTest(t.Context()))
		}
		p.failNext("POST /hlr-lookup", failure{stall: true})
		_, err := c.HLRLookup(t.Context(), "+14156226819", nil)
		errs = append(errs, err)
		p.setBody("GET /routes", testSecret)
		_, err = c.Routes(t.Context())
		errs = append(errs, err)
	}
	_, err := New("http://127.0.0.1/api/v2?secret="+testSecret, testKey, testSecret)
	errs = append(errs, err)
	_, err = New("http://"+testKey+":"+testSecret+"@127.0.0.1/api/v2", testKey, testSecret)
	errs = append(errs, err)
	for i, err := range errs {
		require.Error(t, err, "case %d", i)
		requireNoSecret(t, err)
		require.NotContains(t, fmt.Sprintf("%+v", err), testSecret)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	p := newFakeProvider(t)
	c, err := New(p.baseURL(), testKey, testSecret, WithClock(func() time.Time { return testNow }))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := c.HLRLookup(t.Context(), "+14156226819", nil)
			errs <- err
		}()
		go func() {
			defer wg.Done()
			if i%5 == 0 {
				_, err := c.SyncClock(t.Context())
				errs <- err
				return
			}
			_, err := c.Route(t.Context(), "+14156226819")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, p.requests(), 40)
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	c, err := New("http://h/api/v2", testKey, testSecret, WithBackoff(10*time.Millisecond, time.Second))
	require.NoError(t, err)
	for attempt, bound := range []time.Duration{10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000} {
		bound *= time.Millisecond
		for range 20 {
			d := c.backoff(attempt)
			require.GreaterOrEqual(t, d, bound/2)
			require.LessOrEqual(t, d, bound)
		}
	}
	c, err = New("http://h/api/v2", testKey, testSecret, WithBackoff(0, 0))
	require.NoError(t, err)
	require.Zero(t, c.backoff(3))
}
