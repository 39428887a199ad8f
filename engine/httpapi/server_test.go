package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/stretchr/testify/require"
)

var (
	planOnce sync.Once
	testPlan *numbering.Plan
)

func loadPlan(t testing.TB) *numbering.Plan {
	planOnce.Do(func() {
		var err error
		if testPlan, err = numbering.Load(); err != nil {
			panic(err)
		}
	})
	return testPlan
}

type connectedHLR struct{}

func (connectedHLR) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	return mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: q.MCCMNC, Ported: mnp.False, Roaming: mnp.False}, nil
}

type notPorted struct{}

func (notPorted) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	return mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: q.MCCMNC}}, nil
}

const (
	key     = "test-key"
	secret  = "test-secret"
	secret2 = "rotated-secret"
)

// server is a Handler on a loopback listener with a clock the test moves.
type server struct {
	*httptest.Server
	h       *Handler
	now     atomic.Int64 // unix seconds of the server's clock
	sinkErr atomic.Value
	sinkTo  atomic.Value // an engine.Sink the results go on to
	logs    *bytes.Buffer
}

func newServer(t *testing.T, mutate func(cfg *Config, a *account.Account)) *server {
	s := &server{logs: &bytes.Buffer{}}
	s.now.Store(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).Unix())
	clock := func() time.Time { return time.Unix(s.now.Load(), 0) }
	hlr := []engine.HLR{{Name: "test", Backend: connectedHLR{}}}
	eng, err := engine.New(engine.Options{
		Plan: loadPlan(t),
		Backends: []engine.RouteBackends{
			{Route: "DS7", HLR: hlr}, {Route: "GT1", HLR: hlr}, {Route: "GT2", HLR: hlr},
			{Route: "MP1", Portability: []engine.Portability{{Name: "test", Backend: notPorted{}}}},
		},
		Clock: clock,
		Sink: engine.SinkFunc(func(ctx context.Context, r engine.Record) error {
			if err, _ := s.sinkErr.Load().(error); err != nil {
				return err
			}
			if to, _ := s.sinkTo.Load().(engine.Sink); to != nil {
				return to.Record(ctx, r)
			}
			return nil
		}),
	})
	require.NoError(t, err)
	acct, err := eng.NewProfile(engine.ProfileOptions{Key: key})
	require.NoError(t, err)
	a := &account.Account{Key: key, Secrets: []string{secret, secret2}, Profile: acct}
	var mu sync.Mutex
	cfg := Config{
		Engine: eng, Accounts: []*account.Account{a}, Clock: clock,
		Logger: slog.New(slog.NewJSONHandler(lockedWriter{&mu, s.logs}, nil)),
		// The test clock stands still, so that the same request sent twice
		// has one signature: the replay tests (replay_test.go) set a memory.
		Replays: forgetful{},
	}
	if mutate != nil {
		mutate(&cfg, a)
	}
	s.h, err = New(cfg)
	require.NoError(t, err)
	s.Server = httptest.NewServer(s.h)
	t.Cleanup(s.Close)
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// signer sets a request's authentication headers.
type signer func(t *testing.T, s *server, req *http.Request, body []byte)

// forgetful is a ReplayGuard that remembers nothing.
type forgetful struct{}

func (forgetful) ClaimSignature(context.Context, string, int64, [32]byte, time.Time) error {
	return nil
}

func digest(secret string, skew int64) signer {
	return func(t *testing.T, s *server, req *http.Request, body []byte) {
		require.NoError(t, auth.SignRequest(req, key, secret, time.Unix(s.now.Load()+skew, 0), body))
	}
}

func xBasic(t *testing.T, s *server, req *http.Request, body []byte) {
	req.Header.Set("X-Basic", auth.XBasic(key, secret))
}

func basic(t *testing.T, s *server, req *http.Request, body []byte) {
	req.Header.Set("Authorization", auth.BasicHeader(key, secret))
}

func noAuth(t *testing.T, s *server, req *http.Request, body []byte) {}

// do sends a request and returns the status, headers and body.
func (s *server) do(t *testing.T, method, path, body string, sign signer) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if body == "" {
		req.Body = http.NoBody
	}
	sign(t, s, req, []byte(body))
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

func errorsOf(t *testing.T, b []byte) []string {
	t.Helper()
	var e apiv2.ErrorBody
	require.NoError(t, json.Unmarshal(b, &e), "%s", b)
	require.NotEmpty(t, e.Errors)
	return e.Errors
}

func TestEveryEndpointOverLoopback(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	sign := digest(secret, 0)
	for _, tc := range []struct {
		method, path, body string
		check              func(t *testing.T, b []byte)
	}{
		{"GET", "/api/v2/time", "", func(t *testing.T, b []byte) {
			require.JSONEq(t, `{"time": 1795348800}`, string(b))
		}},
		{"GET", "/api/v2/auth-test", "", func(t *testing.T, b []byte) { require.JSONEq(t, `{"success": true}`, string(b)) }},
		{"POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789"}`, func(t *testing.T, b []byte) {
			var r apiv2.HLRResult
			require.NoError(t, json.Unmarshal(b, &r))
			require.Equal(t, "CONNECTED", r.ConnectivityStatus)
			require.Equal(t, "AUTO:DS7:SCORE", r.RoutingInstruction)
			require.Len(t, r.ID, 12)
		}},
		{"POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789", "route": "GT1", "storage": "campaign"}`, func(t *testing.T, b []byte) {
			var r apiv2.HLRResult
			require.NoError(t, json.Unmarshal(b, &r))
			require.Equal(t, "STATIC:GT1", r.RoutingInstruction)
			require.Equal(t, "campaign-2026-11", *r.Storage)
		}},
		{"POST", "/api/v2/mnp-lookup", `{"msisdn": "+31612345678"}`, func(t *testing.T, b []byte) {
			var r apiv2.MNPResult
			require.NoError(t, json.Unmarshal(b, &r))
			require.Equal(t, "20408", *r.MCCMNC)
			require.False(t, *r.IsPorted)
		}},
		{"POST", "/api/v2/nt-lookup", `{"number": "+442079460000"}`, func(t *testing.T, b []byte) {
			var r apiv2.NTResult
			require.NoError(t, json.Unmarshal(b, &r))
			require.Equal(t, "LANDLINE", r.NumberType)
			require.Equal(t, "SYNC-API-NT-2026-11", *r.Storage)
		}},
		{"GET", "/api/v2/route?msisdn=%2B4915123456789", "", func(t *testing.T, b []byte) {
			require.JSONEq(t, `{"route":"DS7","confidence_level":"HIGH","mccmnc":"26201","origin":"SCORE"}`, string(b))
		}},
		{"GET", "/api/v2/routes", "", func(t *testing.T, b []byte) {
			require.JSONEq(t, `{"routes":{"HLR":["DS7","GT1","GT2"],"MNP":["MP1"],"NT":["NT1"]}}`, string(b))
		}},
		{"GET", "/api/v2/routing-map", "", func(t *testing.T, b []byte) {
			// The effective map: the platform's default route, and the route a
			// number of each network of the coverage data would take.
			var m struct {
				Routing struct {
					Map struct {
						DefaultRoute string `json:"defaultRoute"`
						MCCMNCs      []struct {
							MCCMNC int    `json:"mccmnc"`
							Route  string `json:"route"`
							Origin string `json:"origin"`
						} `json:"mccmncs"`
					} `json:"map"`
				} `json:"routing"`
			}
			require.NoError(t, json.Unmarshal(b, &m))
			require.Equal(t, "GT1", m.Routing.Map.DefaultRoute)
			require.NotEmpty(t, m.Routing.Map.MCCMNCs)
			require.Equal(t, 26201, m.Routing.Map.MCCMNCs[0].MCCMNC)
			require.Equal(t, "DS7", m.Routing.Map.MCCMNCs[0].Route)
			require.Equal(t, "SCORE", m.Routing.Map.MCCMNCs[0].Origin)
		}},
		{"GET", "/api/v2/hlr-coverage", "", func(t *testing.T, b []byte) {
			var c struct{ Routes []struct{ ID string } }
			require.NoError(t, json.Unmarshal(b, &c))
			require.Len(t, c.Routes, 5)
		}},
		{"GET", "/api/v2/openapi.json", "", func(t *testing.T, b []byte) { require.True(t, json.Valid(b)) }},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			status, hdr, b := s.do(t, tc.method, tc.path, tc.body, sign)
			require.Equal(t, http.StatusOK, status, "%s", b)
			require.Equal(t, "application/json", hdr.Get("Content-Type"))
			require.Equal(t, loadPlan(t).Version().String(), hdr.Get(DataVersionHeader))
			tc.check(t, b)
		})
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	body := `{"number": "+4915123456789"}`
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   string
		sign   signer
		status int
		msg    string
	}{
		{"digest", "POST", "/api/v2/nt-lookup", body, digest(secret, 0), 200, ""},
		{"rotated secret", "POST", "/api/v2/nt-lookup", body, digest(secret2, 0), 200, ""},
		{"x-basic", "POST", "/api/v2/nt-lookup", body, xBasic, 200, ""},
		{"basic", "POST", "/api/v2/nt-lookup", body, basic, 200, ""},
		{"skew 29 s behind", "POST", "/api/v2/nt-lookup", body, digest(secret, -29), 200, ""},
		{"skew 29 s ahead", "POST", "/api/v2/nt-lookup", body, digest(secret, 29), 200, ""},
		{"skew 31 s behind", "POST", "/api/v2/nt-lookup", body, digest(secret, -31), 401, "31 s behind"},
		{"skew 31 s ahead", "POST", "/api/v2/nt-lookup", body, digest(secret, 31), 401, "31 s ahead"},
		{"no credentials", "POST", "/api/v2/nt-lookup", body, noAuth, 401, ""},
		{"wrong secret", "POST", "/api/v2/nt-lookup", body, digest("nope", 0), 401, "X-Digest-Signature does not match the API key and this request"},
		{"GET with query string", "GET", "/api/v2/route?msisdn=%2B4915123456789", "", digest(secret, 0), 200, ""},
		{"path in upper case", "GET", "/api/v2/ROUTES", "", digest(secret, 0), 200, ""},
		{"empty POST body", "POST", "/api/v2/nt-lookup", "", digest(secret, 0), 400, "body: want a JSON object with number; got an empty body"},
		{"public time", "GET", "/api/v2/time", "", noAuth, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, b := s.do(t, tc.method, tc.path, tc.body, tc.sign)
			require.Equal(t, tc.status, status, "%s", b)
			if tc.msg != "" {
				require.Contains(t, strings.Join(errorsOf(t, b), " "), tc.msg)
			}
			for _, sec := range []string{secret, secret2} {
				require.NotContains(t, string(b), sec)
			}
		})
	}
	// A body changed after signing fails.
	req, _ := http.NewRequest("POST", s.URL+"/api/v2/nt-lookup", strings.NewReader(`{"number": "+4915100000000"}`))
	require.NoError(t, auth.SignRequest(req, key, secret, time.Unix(s.now.Load(), 0), []byte(body)))
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode)
	require.NotContains(t, s.logs.String(), secret, "secrets never reach the log")
}

func TestAccessRules(t *testing.T) {
	t.Parallel()
	t.Run("whitelist", func(t *testing.T) {
		s := newServer(t, func(cfg *Config, a *account.Account) {
			a.Whitelist = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		})
		status, _, b := s.do(t, "GET", "/api/v2/routes", "", digest(secret, 0))
		require.Equal(t, 403, status)
		require.Equal(t, []string{"client address 127.0.0.1 is not whitelisted for this API key"}, errorsOf(t, b))
		// Without trusted proxies, X-Forwarded-For counts for nothing.
		status, _, _ = s.do(t, "GET", "/api/v2/routes", "", func(t *testing.T, s *server, req *http.Request, body []byte) {
			req.Header.Set("X-Forwarded-For", "10.1.2.3")
			digest(secret, 0)(t, s, req, body)
		})
		require.Equal(t, 403, status)
	})
	t.Run("whitelist behind a trusted proxy", func(t *testing.T) {
		s := newServer(t, func(cfg *Config, a *account.Account) {
			a.Whitelist = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
			cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("192.168.0.0/16")}
		})
		for xff, want := range map[string]int{
			"10.1.2.3":                       200,
			"203.0.113.9, 10.1.2.3":          200, // the right-most untrusted hop is the client
			"10.1.2.3, 203.0.113.9":          403,
			"10.1.2.3, 192.168.1.1":          200, // a chain of trusted proxies is skipped
			"not-an-address":                 403,
			"203.0.113.9":                    403,
			"10.1.2.3, not-an-address, 1.1.": 403,
		} {
			status, _, b := s.do(t, "GET", "/api/v2/routes", "", func(t *testing.T, s *server, req *http.Request, body []byte) {
				req.Header.Set("X-Forwarded-For", xff)
				digest(secret, 0)(t, s, req, body)
			})
			require.Equal(t, want, status, "X-Forwarded-For %q: %s", xff, b)
		}
	})
	t.Run("methods", func(t *testing.T) {
		s := newServer(t, func(cfg *Config, a *account.Account) { a.Methods = []string{auth.MethodDigest} })
		status, _, b := s.do(t, "GET", "/api/v2/routes", "", basic)
		require.Equal(t, 403, status)
		require.Contains(t, errorsOf(t, b)[0], "is not enabled for this API key")
		status, _, _ = s.do(t, "GET", "/api/v2/routes", "", digest(secret, 0))
		require.Equal(t, 200, status)
	})
	t.Run("rate limit", func(t *testing.T) {
		s := newServer(t, func(cfg *Config, a *account.Account) { a.RateLimit, a.RateBurst = 1, 2 })
		for i := range 2 {
			status, _, _ := s.do(t, "GET", "/api/v2/routes", "", digest(secret, 0))
			require.Equal(t, 200, status, "request %d", i)
		}
		status, hdr, b := s.do(t, "GET", "/api/v2/routes", "", digest(secret, 0))
		require.Equal(t, 429, status)
		require.Equal(t, "1", hdr.Get("Retry-After"))
		require.Contains(t, errorsOf(t, b)[0], "rate limit of 1 requests per second exceeded")
		s.now.Add(1) // a second later, one more token
		status, _, _ = s.do(t, "GET", "/api/v2/routes", "", digest(secret, 0))
		require.Equal(t, 200, status)
	})
}

func TestErrorStatuses(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.MaxBodyBytes = 256 })
	sign := digest(secret, 0)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"unknown path", "GET", "/api/v2/nope", "", 404, "no endpoint /api/v2/nope; see /api/v2/openapi.json"},
		{"wrong method", "GET", "/api/v2/hlr-lookup", "", 405, "GET /api/v2/hlr-lookup: method not allowed; use POST"},
		{"malformed JSON", "POST", "/api/v2/hlr-lookup", `{"msisdn": }`, 400, "body: malformed JSON at line 1, column 12"},
		{"cut short", "POST", "/api/v2/hlr-lookup", `{"msisdn": "+49`, 400, "body: the JSON object is cut short"},
		{"wrong type", "POST", "/api/v2/hlr-lookup", `{"msisdn": 4915123456789}`, 400, "msisdn: want a string, got number"},
		{"missing field", "POST", "/api/v2/hlr-lookup", `{"route": "GT1"}`, 400, "msisdn: is required"},
		{"null field", "POST", "/api/v2/nt-lookup", `{"number": null}`, 400, "number: is required"},
		{"not an object", "POST", "/api/v2/nt-lookup", `["+4915123456789"]`, 400, "body: want a JSON object, got array"},
		{"trailing data", "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"} {}`, 400, "body: data after the JSON object"},
		{"bad route", "POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789", "route": "XYZ"}`, 400, `route: "XYZ" is not a route of this service (GET /routes lists them)`},
		{"bad route query", "GET", "/api/v2/route?number=1", "", 400, "number: unknown query parameter; GET /route takes msisdn and country only"},
		{"too large", "POST", "/api/v2/nt-lookup", `{"number": "` + strings.Repeat("1", 300) + `"}`, 413, "larger than the limit of 256 bytes"},
		{"bulk not enabled", "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915123456789"]}`, 501, "bulk lookups are not enabled on this server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, hdr, b := s.do(t, tc.method, tc.path, tc.body, sign)
			require.Equal(t, tc.status, status, "%s", b)
			require.Contains(t, errorsOf(t, b)[0], tc.msg)
			if status == 405 {
				require.Equal(t, "POST", hdr.Get("Allow"))
			}
		})
	}
	s.sinkErr.Store(errors.New("disk full"))
	status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, sign)
	require.Equal(t, 503, status)
	require.Equal(t, []string{"service unavailable: the result could not be stored; nothing was charged, try again"}, errorsOf(t, b))
}

// The request timeout reaches the lookup: a store that does not answer
// within it leaves the request a 503, not a request that hangs.
func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.RequestTimeout = 50 * time.Millisecond })
	s.sinkTo.Store(engine.SinkFunc(func(ctx context.Context, r engine.Record) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return nil // recorded: the context had no deadline
		}
	}))
	status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, digest(secret, 0))
	require.Equal(t, http.StatusServiceUnavailable, status, "%s", b)
	require.Equal(t, []string{"service unavailable: the result could not be stored; nothing was charged, try again"}, errorsOf(t, b))
}

// API requests skip the mux only when it would pass them on unchanged: an
// unclean path under the API is redirected to the clean one, as the mux
// does for every path.
func TestUncleanAPIPaths(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, tc := range []struct{ path, location string }{
		{"/api/v2//time", "/api/v2/time"},
		{"/api/v2/./time", "/api/v2/time"},
		{"/api/v2/x/../time", "/api/v2/time"},
	} {
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.path, nil))
		require.Contains(t, []int{http.StatusMovedPermanently, http.StatusTemporaryRedirect}, w.Code, tc.path)
		require.Equal(t, tc.location, w.Header().Get("Location"), tc.path)
	}
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v2/time", nil))
	require.Equal(t, http.StatusOK, w.Code, "%s", w.Body)
	w = httptest.NewRecorder() // the mux's way to api: a path it keeps
	s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v2/time/", nil))
	require.Equal(t, http.StatusNotFound, w.Code, "%s", w.Body)
}

// Every path under the API that names no endpoint, whatever the case of
// its base, is the API's JSON 404, not net/http's plain-text one.
func TestUnknownAPIPathsAreJSON404(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, p := range []string{
		"/API/V2/time", "/Api/v2/hlr-lookup", "/API/V2/", "/API/V2", "/api/v2", "/api/V2/reports/x",
		"/api/v2/nope", "/api/v2/time/", "/API/V2//time", "/api/v2/hlr-lookup/extra",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			w := httptest.NewRecorder()
			s.h.ServeHTTP(w, httptest.NewRequest(method, p, nil))
			require.Equal(t, http.StatusNotFound, w.Code, "%s %s: %s", method, p, w.Body)
			require.Equal(t, "application/json", w.Header().Get("Content-Type"), "%s %s", method, p)
			require.Equal(t, []string{"no endpoint " + p + "; see /api/v2/openapi.json"}, errorsOf(t, w.Body.Bytes()), "%s %s", method, p)
		}
	}
	// Paths outside the API keep net/http's answers.
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v2x", nil))
	require.Equal(t, http.StatusNotFound, w.Code)
	require.NotEqual(t, "application/json", w.Header().Get("Content-Type"))
}

type stubBulk struct{ calls atomic.Int32 }

func (b *stubBulk) Submit(ctx context.Context, a *account.Account, s engine.Submission) (*apiv2.Receipt, []byte, error) {
	b.calls.Add(1)
	r := &apiv2.Receipt{AcceptedCount: len(s.Numbers), TotalCount: len(s.Numbers), Cost: "0.0000", WebhookURLs: a.WebhookURLs}
	return r, r.AppendJSON(nil), nil
}

func TestBulkPreconditions(t *testing.T) {
	t.Parallel()
	bulk := &stubBulk{}
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Bulk = bulk })
	sign := digest(secret, 0)
	status, _, b := s.do(t, "POST", "/api/v2/hlr-lookups", `{"msisdns": ["+4915123456789"]}`, sign)
	require.Equal(t, 412, status)
	require.Equal(t, []string{"no webhook URL is configured for this API key; bulk results are delivered only by webhook"}, errorsOf(t, b))
	s.h.accounts[key].WebhookURLs = []string{"http://127.0.0.1:9/hook"}
	status, _, b = s.do(t, "POST", "/api/v2/nt-lookups", `{"numbers": []}`, sign)
	require.Equal(t, 400, status)
	require.Equal(t, []string{"numbers: at least one number is required"}, errorsOf(t, b))
	many, _ := json.Marshal(map[string][]string{"numbers": make([]string, 1001)})
	status, _, b = s.do(t, "POST", "/api/v2/nt-lookups", string(many), sign)
	require.Equal(t, 400, status)
	require.Equal(t, []string{"numbers: 1001 numbers; at most 1000 per request"}, errorsOf(t, b))
	require.Zero(t, bulk.calls.Load())
	status, _, _ = s.do(t, "POST", "/api/v2/nt-lookups", `{"numbers": ["+4915123456789"]}`, sign)
	require.Equal(t, 200, status)
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	status, _, b := s.do(t, "GET", "/healthz", "", noAuth)
	require.Equal(t, 200, status)
	backend := func(route string) string {
		return `{"route":"` + route + `","backend":"httpapi#1","name":"test","state":"ok","failures":0,"failing_since":null,"last_error_kind":null}`
	}
	require.JSONEq(t, `{"status":"ok","backends":[`+backend("DS7")+`,`+backend("GT1")+`,`+backend("GT2")+`,`+backend("MP1")+`]}`, string(b))
	s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789"}`, digest(secret, 0))
	s.do(t, "POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789"}`, digest(secret, 0))
	s.do(t, "POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789"}`, noAuth)
	status, hdr, b := s.do(t, "GET", "/metrics", "", noAuth)
	require.Equal(t, 200, status)
	require.Contains(t, hdr.Get("Content-Type"), "text/plain")
	text := string(b)
	for _, want := range []string{
		`numen_http_requests_total{code="200",endpoint="/nt-lookup"} 1`,
		`numen_http_requests_total{code="401",endpoint="/hlr-lookup"} 1`,
		`numen_http_request_duration_seconds_count{endpoint="/hlr-lookup"} 2`,
		`numen_http_request_duration_seconds_bucket{endpoint="/hlr-lookup",le="+Inf"} 2`,
		`numen_lookups_total{product="HLR",status="COMPLETED"} 1`,
		`numen_lookups_total{product="NT",status="OK"} 1`,
		`numen_auth_failures_total 1`,
		"\ngo_goroutines ",                 // the Go runtime's
		"\nprocess_resident_memory_bytes ", // and the process's
	} {
		require.Contains(t, text, want)
	}

	unhealthy := newServer(t, func(cfg *Config, a *account.Account) {
		cfg.Health = func(ctx context.Context) error { return errors.New("store: database is locked") }
	})
	status, _, b = unhealthy.do(t, "GET", "/healthz", "", noAuth)
	require.Equal(t, 503, status)
	require.Equal(t, []string{"unhealthy: store: database is locked"}, errorsOf(t, b))
}

func TestNewRejectsBadAccounts(t *testing.T) {
	t.Parallel()
	eng, err := engine.New(engine.Options{Plan: loadPlan(t), Backends: []engine.RouteBackends{
		{Route: "DS7", HLR: []engine.HLR{{Name: "x", Backend: connectedHLR{}}}},
		{Route: "GT1", HLR: []engine.HLR{{Name: "x", Backend: connectedHLR{}}}},
		{Route: "GT2", HLR: []engine.HLR{{Name: "x", Backend: connectedHLR{}}}},
		{Route: "MP1", Portability: []engine.Portability{{Name: "x", Backend: notPorted{}}}},
	}})
	require.NoError(t, err)
	acct, err := eng.NewProfile(engine.ProfileOptions{Key: "k"})
	require.NoError(t, err)
	for _, tc := range []struct {
		accounts []*account.Account
		msg      string
	}{
		{[]*account.Account{{Key: "", Secrets: []string{"s"}, Profile: acct}}, "httpapi: an account without a key"},
		{[]*account.Account{{Key: "k", Secrets: []string{"s"}, Profile: acct}, {Key: "k", Secrets: []string{"s"}, Profile: acct}}, `httpapi: account "k" given twice`},
		{[]*account.Account{{Key: "k", Profile: acct}}, `httpapi: account "k" has no secret`},
		{[]*account.Account{{Key: "k", Secrets: []string{"s"}}}, `httpapi: account "k" has no profile (routing and prices)`},
		{[]*account.Account{{Key: "k", Secrets: []string{"s"}, Profile: acct, Methods: []string{"md5"}}}, `httpapi: account "k": unknown authentication method "md5" (want digest, x-basic or basic)`},
	} {
		_, err := New(Config{Engine: eng, Accounts: tc.accounts})
		require.EqualError(t, err, tc.msg)
	}
	_, err = New(Config{})
	require.EqualError(t, err, "httpapi: Config.Engine is required")
}

// Each request is logged once, at Info, with what an operator needs and
// without a source location.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number":"+4915123456789"}`, digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	lines := strings.Split(strings.TrimSpace(s.logs.String()), "\n")
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &line))
	require.Equal(t, "request", line["msg"])
	require.Equal(t, "INFO", line["level"])
	require.Equal(t, "POST", line["method"])
	require.Equal(t, "/api/v2/nt-lookup", line["path"])
	require.EqualValues(t, 200, line["status"])
	require.Equal(t, key, line["key"])
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, line["remote"])
	require.EqualValues(t, len(b), line["bytes"])
	require.Contains(t, line, "duration_ms")
	require.Contains(t, line, "time")
	require.NotContains(t, line, "source")
}

// Paths are matched lower-cased in ASCII only: a Kelvin sign (U+212A),
// which Unicode lower-cases to "k", does not make /nt-lookup.
func TestPathsLowerCasedASCIIOnly(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	body := `{"number": "+4915123456789"}`
	status, _, b := s.do(t, "POST", "/api/v2/nt-loo%E2%84%AAup", body, digest(secret, 0))
	require.Equal(t, http.StatusNotFound, status, "%s", b)
	status, _, b = s.do(t, "POST", "/api/v2/NT-Lookup", body, digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	require.Equal(t, "/nt-lookup", lowerASCII("/NT-Lookup"))
	require.Equal(t, "/nt-loo\u212aup", lowerASCII("/nt-loo\u212aup"))
}

// Members of a request body that Numen does not know are ignored (code
// written for the hosted service may send them); a known member of the
// wrong type is still 400.
func TestUnknownFieldsIgnored(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, tc := range []struct{ path, body string }{
		{"/api/v2/nt-lookup", `{"number": "+4915123456789", "callback": "https://x.example/", "tags": [1, {"a": null}]}`},
		{"/api/v2/hlr-lookup", `{"msisdn": "+4915123456789", "msidsn": "x", "route": "GT1"}`},
		{"/api/v2/mnp-lookup", `{"msisdn": "+4915123456789", "ported": true}`},
	} {
		status, _, b := s.do(t, "POST", tc.path, tc.body, digest(secret, 0))
		require.Equal(t, http.StatusOK, status, "%s %s: %s", tc.path, tc.body, b)
	}
	status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456789", "route": 5}`, digest(secret, 0))
	require.Equal(t, http.StatusBadRequest, status, "%s", b)
	require.Equal(t, []string{"route: want a string, got number"}, errorsOf(t, b))
}

// On a full disk every lookup is refused; its error is logged once per
// interval, not once per request, and counted in /metrics.
func TestRefusedRequestsLogThrottled(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	s.sinkErr.Store(errors.New("write numen.db: no space left on device"))
	const n = 1000
	for range n {
		req := httptest.NewRequest("POST", "/api/v2/nt-lookup", strings.NewReader(`{"number": "+4915123456789"}`))
		req.Header.Set("Authorization", auth.BasicHeader(key, secret))
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	}
	logs := s.logs.String()
	require.Equal(t, 1, strings.Count(logs, `"msg":"result not recorded"`), "error lines")
	require.Equal(t, n, strings.Count(logs, `"msg":"request"`), "access lines: one per request")
	_, _, metrics := s.do(t, "GET", "/metrics", "", noAuth)
	require.Contains(t, string(metrics), fmt.Sprintf("numen_results_not_recorded_total %d\n", n))
}

func TestLogThrottle(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	var th logThrottle
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	err := errors.New("disk full")
	for i := range 100 {
		th.log(l, t0.Add(time.Duration(i)*time.Second/10), "result not recorded", err) // 10 s
	}
	th.log(l, t0.Add(logInterval), "result not recorded", err)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2, buf.String())
	require.NotContains(t, lines[0], "not_logged_before")
	require.Contains(t, lines[1], "not_logged_before=99")
}
