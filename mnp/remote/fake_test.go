package remote

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
)

// Credentials of the fake provider's one account. The secret is distinctive
// so that tests can look for it in error messages.
const (
	testKey    = "test-key"
	testSecret = "s3cr3t-N3VER-in-errors"
)

// testNow is the fake provider's clock, and the client's unless a test says
// otherwise.
var testNow = time.Unix(1700000000, 0)

// failure is what the fake provider does instead of answering a request.
type failure struct {
	status     int    // answer this status with body
	body       string // default {"errors":["service unavailable"]}; "-" for none
	retryAfter string // Retry-After header, when set
	reset      bool   // close the connection with a TCP reset, no response
	stall      bool   // hold the request until the client gives up
}

// hit is one request the fake provider received.
type hit struct {
	method, path, rawQuery, relPath string
	query                           string // msisdn query parameter, decoded
	body                            []byte
	authMethod                      string // auth.Method*, "" when not authenticated
	header                          http.Header
}

// fakeProvider is a lookup provider on loopback that verifies every request
// with engine/auth (so signing is checked end to end), serves canned apiv2
// bodies and fails on demand.
type fakeProvider struct {
	t        testing.TB
	srv      *httptest.Server
	verifier *auth.Verifier
	now      atomic.Int64 // Unix seconds of the server's clock
	release  chan struct{}

	mu     sync.Mutex
	hits   []hit
	fails  map[string][]failure // by "METHOD /path", consumed in order
	bodies map[string]string    // 200 bodies by "METHOD /path"
}

func newFakeProvider(t testing.TB) *fakeProvider {
	t.Helper()
	creds, err := auth.NewStaticCredentials(map[string][]string{testKey: {testSecret}})
	require.NoError(t, err)
	p := &fakeProvider{
		t:        t,
		verifier: auth.NewVerifier(creds),
		release:  make(chan struct{}),
		fails:    map[string][]failure{},
		bodies:   cannedBodies(t),
	}
	p.now.Store(testNow.Unix())
	mux := http.NewServeMux()
	mux.HandleFunc("/", p.serve)
	p.srv = httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(func() {
		close(p.release)
		p.srv.Close()
	})
	return p
}

// baseURL is the provider's /api/v2.
func (p *fakeProvider) baseURL() string { return p.srv.URL + "/api/v2" }

func (p *fakeProvider) failNext(endpoint string, fs ...failure) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fails[endpoint] = append(p.fails[endpoint], fs...)
}

func (p *fakeProvider) setBody(endpoint, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bodies[endpoint] = body
}

func (p *fakeProvider) requests() []hit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]hit(nil), p.hits...)
}

// count is the number of requests to one endpoint.
func (p *fakeProvider) count(endpoint string) int {
	n := 0
	for _, h := range p.requests() {
		if h.method+" "+h.relPath == endpoint {
			n++
		}
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (p *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rel, err := auth.RelativePath(r.URL.Path, auth.BasePath)
	if err != nil {
		writeJSON(w, http.StatusNotFound, `{"errors":["unknown path"]}`)
		return
	}
	h := hit{
		method: r.Method, path: r.URL.Path, rawQuery: r.URL.RawQuery, relPath: rel,
		query: r.URL.Query().Get("msisdn"), body: body, header: r.Header.Clone(),
	}
	endpoint := r.Method + " " + rel
	now := time.Unix(p.now.Load(), 0)
	id, authErr := p.verifier.Authenticate(r, rel, body, now)
	h.authMethod = id.Method

	p.mu.Lock()
	p.hits = append(p.hits, h)
	var f *failure
	if q := p.fails[endpoint]; len(q) > 0 {
		f = &q[0]
		p.fails[endpoint] = q[1:]
	}
	canned, ok := p.bodies[endpoint]
	p.mu.Unlock()

	switch {
	case f != nil && f.reset:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0) // close with RST
		}
		_ = conn.Close()
		return
	case f != nil && f.stall:
		select {
		case <-r.Context().Done():
		case <-p.release:
		}
		return
	case f != nil:
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		b := f.body
		switch b {
		case "":
			b = `{"errors":["service unavailable"]}`
		case "-":
			b = ""
		}
		writeJSON(w, f.status, b)
		return
	}
	// GET /time is public, as the API has it.
	if authErr != nil && endpoint != "GET /time" {
		writeJSON(w, http.StatusUnauthorized, mustJSON(p.t, apiv2.ErrorBody{Errors: []string{authErr.Error()}}))
		return
	}
	if endpoint == "GET /time" {
		writeJSON(w, http.StatusOK, `{"time":`+strconv.FormatInt(p.now.Load(), 10)+`}`)
		return
	}
	if !ok {
		writeJSON(w, http.StatusNotFound, `{"errors":["unknown endpoint `+endpoint+`"]}`)
		return
	}
	writeJSON(w, http.StatusOK, canned)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// Canned answers, as a Numen sidecar would write them.
var (
	cannedHLR = apiv2.HLRResult{
		ID: "f94ef092cb53", MSISDN: "+14156226819", ConnectivityStatus: "CONNECTED",
		MCCMNC: apiv2.String("310260"), MCC: apiv2.String("310"), MNC: apiv2.String("260"),
		IMSI: apiv2.String("***************"), MSIN: apiv2.String("**********"), MSC: apiv2.String("************"),
		OriginalNetworkName: apiv2.String("Verizon Wireless"), OriginalCountryName: apiv2.String("United States"),
		OriginalCountryCode: apiv2.String("US"), OriginalCountryPrefix: apiv2.String("+1"),
		IsPorted: apiv2.Bool(true), PortedNetworkName: apiv2.String("T-Mobile US"),
		PortedCountryName: apiv2.String("United States"), PortedCountryCode: apiv2.String("US"),
		PortedCountryPrefix: apiv2.String("+1"), IsRoaming: apiv2.Bool(false),
		Cost: apiv2.String("0.0100"), Timestamp: apiv2.String("2023-11-14 22:13:20.000+0000"),
		Storage: apiv2.String("SYNC-API-2023-11"), Route: apiv2.String("IP1"),
		ProcessingStatus: "COMPLETED", DataSource: "LIVE_HLR", RoutingInstruction: "AUTO:IP1:SCORE",
	}
	cannedMNP = apiv2.MNPResult{
		ID: "a1b2c3d4e5f6", MSISDN: "+14156226819", QueryStatus: "OK",
		MCCMNC: apiv2.String("310260"), MCC: apiv2.String("310"), MNC: apiv2.String("260"),
		IsPorted: apiv2.Bool(true), OriginalNetworkName: apiv2.String("Verizon Wireless"),
		OriginalCountryCode: apiv2.String("US"), PortedNetworkName: apiv2.String("T-Mobile US"),
		PortedCountryCode: apiv2.String("US"), Cost: apiv2.String("0.0050"),
		Storage: apiv2.String("SYNC-API-MNP-2023-11"), Route: apiv2.String("MP1"),
		ProcessingStatus: "COMPLETED",
	}
	cannedNT = apiv2.NTResult{
		ID: "0a1b2c3d4e5f", Number: "+4915123456789", NumberType: "MOBILE", QueryStatus: "OK",
		IsValid: apiv2.Bool(true), IsPossiblyPorted: apiv2.Bool(true), IsVanityNumber: apiv2.Bool(false),
		QualifiesForHLRLookup: apiv2.Bool(true), MCCMNC: apiv2.String("26201"),
		OriginalNetworkName: apiv2.String("T-Mobile"), OriginalCountryCode: apiv2.String("DE"),
		Regions: []string{"Germany"}, Timezones: []string{"Europe/Berlin"}, Route: apiv2.String("LC1"),
	}
	cannedReceipt = apiv2.Receipt{
		Accepted:      []apiv2.Submitted{{ID: apiv2.String("abcdefabcdef"), Number: "+14156226819"}},
		AcceptedCount: 1,
		Rejected:      []apiv2.Submitted{{Number: "+1"}},
		RejectedCount: 1, TotalCount: 2, Cost: "0.0100", Storage: "ASYNC-API-2023-11", Route: "IP1",
		WebhookURLs: []string{"https://example.com/hook"},
	}
	cannedNTReceipt = apiv2.Receipt{
		Accepted:      []apiv2.Submitted{{ID: apiv2.String("bcdefabcdefa"), Number: "+4915123456789", NT: true}},
		AcceptedCount: 1, Rejected: []apiv2.Submitted{}, TotalCount: 1, Cost: "0.0020",
		Storage: "ASYNC-API-NT-2023-11", Route: "LC1", WebhookURLs: []string{"https://example.com/hook"},
	}
	cannedRoute    = apiv2.RouteDecision{Route: "IP1", ConfidenceLevel: "HIGH", MCCMNC: "310260", Origin: "SCORE"}
	cannedRoutes   = apiv2.Routes{Routes: apiv2.RouteLists{HLR: []string{"IP1", "V11"}, MNP: []string{"MP1"}, NT: []string{"LC1"}}}
	cannedMap      = `{"routing":{"map":{"defaultRoute":"IP1","mnpFallback":false,"mccmncs":[],"prefixes":[],"countries":[{"countrycode":"DE","route":"V11"}]}}}`
	cannedCoverage = `{"coverage":[{"mccmnc":"310260","route":"IP1","score":0.97}]}`
)

func cannedBodies(t testing.TB) map[string]string {
	return map[string]string{
		"POST /hlr-lookup":  mustJSON(t, cannedHLR),
		"POST /mnp-lookup":  mustJSON(t, cannedMNP),
		"POST /nt-lookup":   mustJSON(t, cannedNT),
		"POST /hlr-lookups": mustJSON(t, cannedReceipt),
		"POST /nt-lookups":  mustJSON(t, cannedNTReceipt),
		"GET /route":        mustJSON(t, cannedRoute),
		"GET /routes":       mustJSON(t, cannedRoutes),
		"GET /routing-map":  cannedMap,
		"GET /hlr-coverage": cannedCoverage,
		"GET /auth-test":    `{"success":true}`,
	}
}

// sleeps records the waits between attempts, which tests do not spend.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// noKeepAlive is an http.Client whose every request takes a new connection,
// so that net/http never resends a request on a reused connection by itself
// and the provider's counts are the client's attempts.
func noKeepAlive() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

// newTestClient returns a client of p with a fixed clock, whose waits
// between attempts are recorded instead of spent.
func newTestClient(t testing.TB, p *fakeProvider, opts ...Option) (*Client, *sleeps) {
	t.Helper()
	all := append([]Option{WithClock(func() time.Time { return testNow }), WithHTTPClient(noKeepAlive())}, opts...)
	c, err := New(p.baseURL(), testKey, testSecret, all...)
	require.NoError(t, err)
	s := &sleeps{}
	c.sleep = s.sleep
	return c, s
}

// requireNoSecret fails when err's message shows the secret or a credential
// made from it.
func requireNoSecret(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	for _, s := range []string{testSecret, auth.XBasic(testKey, testSecret), strings.TrimPrefix(auth.BasicHeader(testKey, testSecret), "Basic ")} {
		require.NotContains(t, msg, s)
	}
}
