// Package httpapi serves Numen's lookup API, /api/v2, over HTTP: the
// adapter between the wire (the API as its OpenAPI document, OpenAPI,
// describes it) and package engine. It authenticates every protected
// request (digest, X-Basic or Basic, package engine/auth), checks the
// account's IP whitelist, method list and rate limit, decodes request bodies
// (members it does not know are ignored, so that code written for the hosted
// service keeps working; known members of the wrong type are 400), and
// answers with the API's JSON objects, or with
// {"errors": [...]} and these status codes:
//
//	400 malformed JSON or invalid parameters, naming the field
//	401 missing or failed authentication (stale timestamp included)
//	403 client IP not whitelisted, or authentication method not allowed
//	404 unknown path          405 wrong method (with Allow)
//	412 bulk call without a configured webhook URL
//	408 the body did not arrive within Config.BodyTimeout
//	413 body too large         429 rate limited (with Retry-After)
//	500 internal               501 not implemented
//	503 the result could not be recorded, a backend is unavailable,
//	    too many request bodies are being read (with Retry-After), or,
//	    from ConnLimiter, a connection beyond the connection limits
//
// Per-number outcomes (REJECTED, FAILED lookups) are results: 200.
//
// A path under the API's base in any case (/API/V2/time, /api/v2) that
// names no endpoint is 404 with {"errors": [...]}, as every unknown path
// under /api/v2/ is. An input number longer than engine.MaxNumberLength
// (250 characters) or a storage name longer than engine.MaxStorageLength
// (100) is 400 before anything is stored or charged; a bulk submission is
// checked whole and its receipt encoded before anything is queued.
//
// # Replays
//
// A digest signature is accepted once on POST (every lookup, charged and
// stored): after the signature is verified and the rate limit passed, it
// is claimed in Config.Replays, and the same API key, timestamp and
// signature again within the timestamp's window is 401 "signature already
// used". Two identical POSTs signed in the same second therefore collide;
// Numen's Go client (mnp/remote) signs such a request with another second.
// The default memory (auth.ReplayMemory) holds at most
// auth.DefaultReplayLimit signatures per key and refuses more (429 with
// Retry-After) rather than forget one still valid; it is lost at a
// restart. Servers sharing a PostgreSQL database share it
// (pgstore.Store.ReplayGuard). GETs are not claimed: they sign no query
// string and change nothing.
//
// # The official clients
//
// The hosted API's Node, PHP and Ruby clients sign the path as the caller
// wrote it, not lower-cased, and sign a call without parameters over an
// empty body while sending [] (PHP) or {} (Ruby); Ruby appends "?" to
// every GET and labels its JSON application/x-www-form-urlencoded. The
// verifier (engine/auth) accepts a digest over the path lower-cased, as
// sent and as escaped on the wire, and over the empty body for a body of
// exactly [] or {}; a body of exactly [] reads as {}; bodies are JSON
// whatever their content type. Report names keep their case and a report
// is found by its exact name. sdk_test.go sends every endpoint's call as
// each client builds it. GET /ping, GET /mccmncs and GET /mnp-coverage,
// which the clients call and the specification does not describe, have
// Numen's shapes (catalog.go, engine/apiv2).
//
// Public endpoints: GET /api/v2/time, GET /api/v2/ping, GET /api/v2/openapi.json, and outside
// the API GET /healthz and GET /metrics (Prometheus text format 0.0.4,
// written by our own code without Prometheus's client library: see
// Metrics). /healthz lists the state of every backend of the engine and
// is 503 when Config.Health fails or a route has no backend whose circuit
// is closed (backends.go; the OpenAPI document describes its body);
// /metrics counts every backend's calls, errors, latency and failovers.
// Every
// request of the API and of the report pages is logged with log/slog, one
// line each (never a secret), and counted in the metrics; /healthz and
// /metrics, which monitoring calls every few seconds, are neither. Errors
// that repeat, such as every result failing to be stored on a full disk,
// are logged once per 10 s with the count of those not logged.
//
// With a store (Config.Store), it also serves the report pages under
// /reports (reports.go, reportpage.go): a sign-in page for the API key and
// secret and a session cookie signed with a key derived from the secret
// (session.go), the account's reports, each with charts, filters and
// downloads; and the same downloads over the API, GET /api/v2/reports and
// GET /api/v2/reports/{name}.
//
// ConnLimiter (conns.go) is the listener to serve the Handler through: it
// bounds client connections overall and per client address, closes idle
// connections first when the limit is reached and sooner under pressure,
// and refuses at once (503) what it cannot hold, so that one client
// holding idle connections does not shut the others out.
//
// Handler is an http.Handler, safe for concurrent use.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/users"
)

// Config configures a Handler.
type Config struct {
	Engine   *engine.Engine
	Accounts []*account.Account
	// TrustedProxies are the peers whose X-Forwarded-For header is believed:
	// the client address is then the right-most address of the header that
	// is not itself a trusted proxy. Without them, X-Forwarded-For is
	// ignored and the client is the TCP peer.
	TrustedProxies []netip.Prefix
	// MaxBodyBytes bounds request bodies (413 beyond); default 1 MiB,
	// room for a bulk request of 1000 numbers many times over.
	MaxBodyBytes int64
	// MaxBodyMemory bounds the buffers of the request bodies being read at
	// once, which grow with the bytes received (not with the length a client
	// announces): a request whose body would pass it is answered 503 with
	// Retry-After; default 64 MiB. The first 4 KiB of each body are not
	// counted (the connection limit bounds them), so that small requests,
	// such as every synchronous lookup, go on while large bodies hold the
	// memory. Only clients whose API key is known and whose address its
	// account allows get to send a body.
	MaxBodyMemory int64
	// BodyTimeout bounds the time a request body takes to arrive, from the
	// moment the server starts to read it (408 beyond, and the connection
	// is closed); default 10 s.
	BodyTimeout time.Duration
	// RequestTimeout bounds the work of one request (up to 10 ms more:
	// requests that start together share a deadline); default 30 s. A
	// request whose client goes away is not cut short: its lookup is
	// finished and recorded, and only the answer is lost.
	RequestTimeout time.Duration
	// MaxSkew is the digest timestamp window; default 30 s.
	MaxSkew time.Duration
	// Replays remembers the digest signatures of POST requests (every
	// lookup), so that each is accepted once within its window: the same
	// API key, timestamp and signature again is 401 "signature already
	// used". Default: an auth.ReplayMemory of auth.DefaultReplayLimit
	// signatures per key in this process; servers sharing a database give
	// the store's (pgstore.Store), so that a request replayed to another
	// node is refused too. See the package documentation.
	Replays auth.ReplayGuard
	// Logger receives one line per request; default slog.Default().
	Logger *slog.Logger
	// Clock is the server's time, for digest timestamps and GET /time;
	// default time.Now.
	Clock func() time.Time
	// Health is checked by GET /healthz (for example the store's Ping);
	// nil reports healthy. The engine's backends are checked beside it.
	Health func(ctx context.Context) error
	// Bulk handles the bulk endpoints; nil answers them 501.
	Bulk BulkHandler
	// Store serves the report pages under /reports (see reports.go); nil
	// leaves them out.
	Store store.Reader
	// Users are the people who sign in to the report pages with their own
	// name and password (usersession.go); nil or empty: people sign in
	// with an API key and secret.
	Users *users.Directory
	// SecretSignin keeps signing in to the report pages with an API key
	// and secret while there are Users (without users it is always on).
	SecretSignin bool
	// Balances reads the accounts' balances and spending for GET
	// /balance (the store's, such as pgstore's Budgets); nil reports the
	// limits of the account's config only.
	Balances store.Balances
	// Metrics collects the metrics; nil makes new ones. Give the same
	// Metrics to the bulk workers so that /metrics shows theirs.
	Metrics *Metrics
}

// BulkHandler runs bulk submissions (POST /hlr-lookups, /nt-lookups).
type BulkHandler interface {
	// Submit accepts the numbers of one bulk request for an account and
	// returns the receipt and its JSON encoding (the response body,
	// encoded before anything was queued or charged), or an error (a
	// *engine.RequestError for bad input, an unknown country included,
	// when nothing was queued).
	Submit(ctx context.Context, a *account.Account, s engine.Submission) (*apiv2.Receipt, []byte, error)
}

// Handler serves the API. See the package documentation.
type Handler struct {
	cfg      Config
	accounts map[string]*account.Account
	// accountKeys are the accounts' keys, sorted (what an admin sees).
	accountKeys []string
	verifier    *auth.Verifier
	limits      sync.Map // key -> *rate.Limiter
	// signins limits failed sign-ins of the report pages per address.
	signins signinLimiter
	// bodyBytes is the sum of the bodies being read (MaxBodyMemory).
	bodyBytes atomic.Int64
	// notRecorded and internal throttle the log lines of their errors.
	notRecorded, internal logThrottle
	metrics               *Metrics
	timeouts              deadlines // the requests' contexts (RequestTimeout)
	log                   *slog.Logger
	routes                map[string]*endpoint // path relative to the API base -> endpoint
	networks              networkCatalog       // GET /mccmncs
	mux                   *http.ServeMux
	// dataVersion is the Numen-Data-Version header's value: the numbering
	// data (and overlays) every answer was made with. One slice for all
	// answers, which net/http only reads.
	dataVersion []string
}

// DataVersionHeader names the header of every API answer that says which
// numbering data answered: the plan's version, with its overlays.
const DataVersionHeader = "Numen-Data-Version"

// endpoint is one path of the API with its method's handler.
type endpoint struct {
	method string
	path   string // relative to /api/v2, such as "/hlr-lookup"
	public bool
	serve  func(h *Handler, w http.ResponseWriter, r *request)
}

// request is one authenticated API request.
type request struct {
	*http.Request
	ctx     context.Context // ends at the request timeout (requestContext)
	account *account.Account
	body    []byte
	client  netip.Addr
}

// Context returns the request's context, which ends at the request
// timeout: the handlers' context (without a copy of the Request that
// WithContext would make).
func (r *request) Context() context.Context { return r.ctx }

// exchange is what api allocates for a request: once, not per part.
type exchange struct {
	rw  statusWriter
	req request
	ctx requestContext
}

// New builds a Handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Engine == nil {
		return nil, errors.New("httpapi: Config.Engine is required")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.MaxBodyMemory <= 0 {
		cfg.MaxBodyMemory = 64 << 20
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 10 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.MaxSkew <= 0 {
		cfg.MaxSkew = auth.DefaultMaxSkew
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Replays == nil {
		cfg.Replays = auth.NewReplayMemory(cfg.MaxSkew, 0)
	}
	h := &Handler{cfg: cfg, accounts: map[string]*account.Account{}, log: cfg.Logger, metrics: cfg.Metrics}
	h.dataVersion = []string{cfg.Engine.Plan().Version().String()}
	h.timeouts.timeout = cfg.RequestTimeout
	if h.metrics == nil {
		h.metrics = NewMetrics()
	}
	secrets := map[string][]string{}
	for _, a := range cfg.Accounts {
		switch {
		case a == nil || a.Key == "":
			return nil, errors.New("httpapi: an account without a key")
		case h.accounts[a.Key] != nil:
			return nil, fmt.Errorf("httpapi: account %q given twice", a.Key)
		case len(a.Secrets) == 0:
			return nil, fmt.Errorf("httpapi: account %q has no secret", a.Key)
		case a.Profile == nil:
			return nil, fmt.Errorf("httpapi: account %q has no profile (routing and prices)", a.Key)
		}
		for _, m := range a.Methods {
			if m != auth.MethodDigest && m != auth.MethodXBasic && m != auth.MethodBasic {
				return nil, fmt.Errorf("httpapi: account %q: unknown authentication method %q (want %s, %s or %s)", a.Key, m, auth.MethodDigest, auth.MethodXBasic, auth.MethodBasic)
			}
		}
		h.accounts[a.Key] = a
		h.accountKeys = append(h.accountKeys, a.Key)
		secrets[a.Key] = a.Secrets
	}
	slices.Sort(h.accountKeys)
	creds, err := auth.NewStaticCredentials(secrets)
	if err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	h.verifier = auth.NewVerifier(creds, auth.WithMaxSkew(cfg.MaxSkew))
	h.routes = map[string]*endpoint{}
	for _, e := range endpoints() {
		h.routes[e.path] = e
	}
	h.mux = http.NewServeMux()
	h.metrics.watchBackends(cfg.Engine)
	h.mux.HandleFunc("/healthz", h.healthz)
	h.mux.HandleFunc("/metrics", h.serveMetrics)
	h.mux.HandleFunc(apiv2.Base+"/", func(w http.ResponseWriter, r *http.Request) { h.api(w, r, true) })
	if cfg.Store != nil {
		reports := h.reports(cfg.Store)
		h.mux.Handle("/reports/", reports)
		h.mux.Handle("/reports", reports)
	}
	return h, nil
}

// Metrics returns the handler's metrics, for lookups counted elsewhere
// (bulk workers).
func (h *Handler) Metrics() *Metrics { return h.metrics }

// Endpoints lists the API's endpoints as "METHOD /path" (relative to
// /api/v2), sorted: what the OpenAPI document must describe.
func Endpoints() []string {
	var out []string
	for _, e := range endpoints() {
		out = append(out, e.method+" "+e.path)
	}
	sort.Strings(out)
	return out
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The API's requests go straight to api, without the mux's matching
	// (three allocations a request), when the mux would send them there
	// unchanged: a clean path under the API's base. Others (an unclean
	// path, which the mux redirects) take the mux.
	if p := r.URL.Path; strings.HasPrefix(p, apiv2.Base+"/") && path.Clean(p) == p && r.Method != http.MethodConnect {
		h.api(w, r, true)
		return
	}
	// The base in another case (/API/V2/time), or alone (/api/v2), is no
	// endpoint: the API's JSON 404, not the mux's plain-text one. (An
	// unclean path under /api/v2/ is redirected to the clean one by the
	// mux, as every path is, and then answered here.)
	if p := r.URL.Path; underAPI(p) && !strings.HasPrefix(p, apiv2.Base+"/") && r.Method != http.MethodConnect {
		h.api(w, r, false)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// underAPI reports whether p is /api/v2 or a path under it, in any case.
func underAPI(p string) bool {
	return len(p) >= len(apiv2.Base) && strings.EqualFold(p[:len(apiv2.Base)], apiv2.Base) &&
		(len(p) == len(apiv2.Base) || p[len(apiv2.Base)] == '/')
}

// api serves everything under /api/v2/. routed is false for a path that
// names no endpoint whatever follows the base (the base in another case):
// it is answered 404.
func (h *Handler) api(w http.ResponseWriter, r *http.Request, routed bool) {
	start := time.Now()
	x := &exchange{rw: statusWriter{ResponseWriter: w}}
	rw := &x.rw
	w.Header()[DataVersionHeader] = h.dataVersion
	rel := strings.TrimPrefix(r.URL.Path, apiv2.Base)
	e := h.endpointOf(rel, routed)
	name := "unknown"
	if e != nil {
		name = e.path
	}
	var key string
	defer func() { h.done(r, rw, name, key, start, recover()) }()
	if !h.methodAllowed(rw, r, e) {
		return
	}
	x.ctx = requestContext{Context: h.timeouts.get(start), values: r.Context()}
	req := &x.req
	*req = request{Request: r, ctx: &x.ctx, client: h.clientAddr(r)}
	// Everything the credentials allow is checked before the body is read, so
	// that a client without a known key, or from an address the key's account
	// does not allow, never makes the server hold a body; the digest signature,
	// which covers the body, is checked after. A digest signs the path
	// relative to the base, lower-cased or as sent (a report's own name): the
	// verifier tries both.
	var pending auth.Pending
	var a *account.Account
	if e.public && r.ContentLength != 0 {
		refuseBody(w, rw, r)
		return
	}
	if !e.public {
		var ok bool
		if a, ok = h.authenticate(rw, req, rel, &pending); !ok {
			key = pending.Key
			return
		}
		key = pending.Key
	}
	body, reserved, ok := h.readBody(rw, r)
	if !ok {
		return
	}
	defer h.bodyBytes.Add(-reserved)
	req.body = body
	if !e.public {
		if !h.admit(rw, req, rel, &pending, a) {
			return
		}
		req.account = a
	}
	e.serve(h, rw, req)
}

// endpointOf returns the endpoint of a path relative to the base (any
// case; a report's path under its prefix), or nil.
func (h *Handler) endpointOf(rel string, routed bool) *endpoint {
	if !routed {
		return nil
	}
	lrel := lowerASCII(rel)
	e := h.routes[lrel]
	if e == nil && strings.HasPrefix(lrel, reportPrefix) && len(lrel) > len(reportPrefix) {
		e = h.routes[reportPath]
	}
	return e
}

// methodAllowed answers 404 for no endpoint and 405 for a method the
// endpoint does not take (GET endpoints take HEAD too), and reports
// whether the request goes on.
func (h *Handler) methodAllowed(rw *statusWriter, r *http.Request, e *endpoint) bool {
	switch {
	case e == nil:
		writeErrors(rw, http.StatusNotFound, fmt.Sprintf("no endpoint %s; see %s/openapi.json", r.URL.Path, apiv2.Base))
		return false
	case r.Method != e.method && !(e.method == http.MethodGet && r.Method == http.MethodHead):
		rw.Header().Set("Allow", e.method)
		writeErrors(rw, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; use %s", r.Method, r.URL.Path, e.method))
		return false
	}
	return true
}

// refuseBody answers a request with a body to a public endpoint, which
// takes none and which anyone may call: none is read. The connection is
// closed and its reads end now, so that net/http does not wait for the
// body either.
func refuseBody(w http.ResponseWriter, rw *statusWriter, r *http.Request) {
	if conn, ok := w.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = conn.SetReadDeadline(time.Now())
	}
	rw.Header().Set("Connection", "close")
	writeErrors(rw, http.StatusRequestEntityTooLarge, fmt.Sprintf("%s %s takes no body", r.Method, r.URL.Path))
}

// authenticate checks what the credentials allow before the body is read:
// a known key (pending), an authentication method and a client address the
// key's account allows. It answers the request when they do not.
func (h *Handler) authenticate(rw *statusWriter, req *request, signPath string, pending *auth.Pending) (*account.Account, bool) {
	var err error
	*pending, err = h.verifier.Begin(req.Request, signPath, h.cfg.Clock())
	if err != nil {
		pending.Key = h.authFailed(rw, err)
		return nil, false
	}
	a := h.accounts[pending.Key]
	if len(a.Methods) > 0 && !contains(a.Methods, pending.Method) {
		writeErrors(rw, http.StatusForbidden, fmt.Sprintf("authentication method %s is not enabled for this API key (enabled: %s)", pending.Method, strings.Join(a.Methods, ", ")))
		return nil, false
	}
	if !allowed(a.Whitelist, req.client) {
		writeErrors(rw, http.StatusForbidden, fmt.Sprintf("client address %s is not whitelisted for this API key", req.client))
		return nil, false
	}
	return a, true
}

// admit checks what needs the body: the signature, the account's rate
// limit and, for a signed POST, that it is no replay. It answers the
// request when one fails.
func (h *Handler) admit(rw *statusWriter, req *request, signPath string, pending *auth.Pending, a *account.Account) bool {
	if _, err := h.verifier.Finish(pending, req.Request, signPath, req.body); err != nil {
		h.authFailed(rw, err)
		return false
	}
	if h.rateLimited(rw, a) {
		return false
	}
	return !(pending.Method == auth.MethodDigest && req.Method == http.MethodPost && h.replayed(rw, req, pending))
}

// done ends a request: a panic p is logged and answered 500 (when nothing
// was written yet), the request counted and logged; net/http's
// ErrAbortHandler is panicked again, for net/http to cut the connection.
func (h *Handler) done(r *http.Request, rw *statusWriter, name, key string, start time.Time, p any) {
	if p != nil && p != http.ErrAbortHandler { //nolint:errorlint // the sentinel itself, as net/http compares it
		h.log.Error("panic", "path", r.URL.Path, "panic", p)
		if rw.status == 0 {
			writeErrors(rw, http.StatusInternalServerError, "internal error")
		}
	}
	elapsed := time.Since(start)
	h.metrics.observeRequest(name, rw.status, elapsed)
	// The line of Info, built as a Record: without boxing each value in
	// an any, and without the source location (PC 0), which Logger's
	// methods find with runtime.Callers for every line even when the
	// handler does not print it.
	if ctx := context.Background(); h.log.Enabled(ctx, slog.LevelInfo) {
		rec := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
		rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rw.status), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("key", key), slog.String("remote", r.RemoteAddr), slog.Int("bytes", rw.bytes))
		_ = h.log.Handler().Handle(ctx, rec) // a log line that cannot be written is not the request's failure
	}
	if p == http.ErrAbortHandler { //nolint:errorlint // the sentinel itself
		// A download cut after its first bytes: net/http closes the
		// connection without ending the body.
		panic(p)
	}
}

// rateLimited answers 429 with Retry-After when the account's rate limit
// has no token for the request, and reports whether it did.
func (h *Handler) rateLimited(w http.ResponseWriter, a *account.Account) bool {
	wait, ok := h.allow(a)
	if ok {
		return false
	}
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeErrors(w, http.StatusTooManyRequests, fmt.Sprintf("rate limit of %g requests per second exceeded; retry after %d s", a.RateLimit, secs))
	return true
}

// replayed claims the digest signature of a POST (ReplayGuard) and answers
// the request when it may not go on: 401 for a signature used before, 429
// with Retry-After when the key's memory of signatures is full, 503 when
// the memory cannot be reached. It reports whether it answered.
//
// Only POSTs, the requests that are charged and stored: a GET signs no
// query string (GET /route?msisdn=A and ?msisdn=B in one second have one
// signature), charges and stores nothing, and may be repeated as often as
// a client likes.
func (h *Handler) replayed(w http.ResponseWriter, r *request, p *auth.Pending) bool {
	err := h.cfg.Replays.ClaimSignature(r.Context(), p.Key, p.Timestamp(), p.Signature(), h.cfg.Clock())
	var full *auth.ReplayMemoryFullError
	switch {
	case err == nil:
		return false
	case auth.IsReplayed(err):
		h.authFailed(w, err)
	case errors.As(err, &full):
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(full.RetryAfter/time.Second))))
		writeErrors(w, http.StatusTooManyRequests, err.Error())
	default:
		h.internal.log(h.log, time.Now(), "digest replay check failed", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the signature could not be checked against replays; try again")
	}
	return true
}

// authFailed answers a failed authentication (401) and returns the API key
// the request presented, for the log line.
func (h *Handler) authFailed(w http.ResponseWriter, err error) string {
	var key string
	var ae *auth.Error
	if errors.As(err, &ae) {
		key = ae.Key
	}
	h.metrics.authFailures.add(1)
	writeErrors(w, http.StatusUnauthorized, err.Error())
	return key
}

// readBody reads the request body within the limits: MaxBodyBytes for one
// body, MaxBodyMemory for the buffers of all the bodies being read at once
// (503 beyond, with Retry-After), and BodyTimeout for the time it may take
// to arrive (408). It returns false when it answered the request already;
// otherwise the caller gives the bytes reserved back to h.bodyBytes when
// done with the body.
func (h *Handler) readBody(w *statusWriter, r *http.Request) (body []byte, reserved int64, ok bool) {
	if r.ContentLength > h.cfg.MaxBodyBytes {
		writeErrors(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body of %d bytes is larger than the limit of %d bytes", r.ContentLength, h.cfg.MaxBodyBytes))
		return nil, 0, false
	}
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil, 0, true
	}
	// net/http's writers have SetReadDeadline (what http.ResponseController
	// calls, without its allocation); a test's recorder has none.
	conn, _ := w.ResponseWriter.(interface{ SetReadDeadline(time.Time) error })
	if conn != nil {
		_ = conn.SetReadDeadline(time.Now().Add(h.cfg.BodyTimeout))
	}
	body, err := h.readAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes), r.ContentLength, &reserved)
	if err == nil && conn != nil {
		// Only then: after a failed read the deadline stays, so that net/http
		// does not wait for the rest of the body before answering.
		_ = conn.SetReadDeadline(time.Time{})
	}
	if err != nil {
		h.bodyBytes.Add(-reserved)
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeErrors(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body is larger than the limit of %d bytes", h.cfg.MaxBodyBytes))
		case errors.Is(err, errBodyMemory):
			h.metrics.bodiesRefused.add(1)
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Connection", "close")
			writeErrors(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is reading %d MiB of request bodies, its limit; retry after 1 s", h.cfg.MaxBodyMemory>>20))
		case errors.Is(err, os.ErrDeadlineExceeded):
			h.metrics.bodiesTimedOut.add(1)
			w.Header().Set("Connection", "close")
			writeErrors(w, http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %v", h.cfg.BodyTimeout))
		default:
			writeErrors(w, http.StatusBadRequest, "reading the body: "+err.Error())
		}
		return nil, 0, false
	}
	// Read to its end: closed, net/http does not look for more of it
	// before answering (an io.CopyN and its allocation).
	r.Body.Close()
	return body, reserved, true
}

// clientAddr returns the client's address: the TCP peer, or, when the peer
// is a trusted proxy, the right-most X-Forwarded-For address that is not.
func (h *Handler) clientAddr(r *http.Request) netip.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := peer.Addr().Unmap()
	if !allowedNonEmpty(h.cfg.TrustedProxies, addr) {
		return addr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return addr // a malformed hop: trust nothing beyond the proxy
		}
		hop = hop.Unmap()
		if !allowedNonEmpty(h.cfg.TrustedProxies, hop) {
			return hop
		}
		addr = hop
	}
	return addr
}

// lowerASCII lower-cases the ASCII letters of s and nothing else, as the
// digest signature's path is lower-cased: Unicode's rules would read
// "/nt-loo\u212Aup" (a Kelvin sign) as "/nt-lookup". Without upper-case
// letters it returns s itself.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// allowed reports whether addr is in one of the prefixes; an empty list
// allows every address.
func allowed(list []netip.Prefix, addr netip.Addr) bool {
	return len(list) == 0 || allowedNonEmpty(list, addr)
}

func allowedNonEmpty(list []netip.Prefix, addr netip.Addr) bool {
	for _, p := range list {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}
