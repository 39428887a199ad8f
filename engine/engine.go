// Package engine turns numbering, routing and the network backends of
// package mnp into the operations of Numen's lookup API (/api/v2): HLR, MNP
// and NT lookups, route decisions, the route list and routing maps. Its
// results are the API's objects (package engine/apiv2) with every field
// filled as the API's specification and Numen's documented decisions
// (package engine/apiv2, the OpenAPI document) describe: id, timestamp,
// storage name, route and routing instruction, data source, cost.
//
// Build one Engine with New and share it; build one Profile per API key
// (its routing map and prices) with Engine.NewProfile.
//
//	eng, err := engine.New(engine.Options{
//		Plan:     plan,
//		Backends: []engine.RouteBackends{{Route: "GT1", HLR: []engine.HLR{{Name: "provider-a", Backend: a}}}},
//	})
//	prof, err := eng.NewProfile(engine.ProfileOptions{Key: "demo"})
//	ans, err := eng.HLRLookup(ctx, prof, engine.Request{Number: "+4915112345678"})
//	fmt.Println(ans.Result.ConnectivityStatus)
//
// Each product has one entry point (HLRLookup, MNPLookup, NTLookup); a
// caller that answers with the result's JSON sets Request.Encode and finds
// the bytes in Answer.JSON, the very bytes the sink recorded.
//
// # Lookups
//
// A lookup classifies the number first: an invalid number, or a number that
// is not mobile for an HLR lookup, never reaches a backend; it comes back
// REJECTED (HLR: connectivity INVALID_MSISDN or UNDETERMINED) with its
// error code and costs nothing. Otherwise the profile's routing decides the
// route (or the caller names one: STATIC), and the route's backends are
// asked in order: when one is unavailable (mnp.Retryable errors: timeouts,
// refused connections) the next is tried, and the routing instruction
// records it with a fourth part, FAILOVER-<n> for the n-th backend of the
// route (counting from 1). When none answers, the lookup is REJECTED with
// the last backend's error code. An MNP_FALLBACK decision, or an MNP route
// named for an HLR lookup, answers from the route's portability backends
// with data_source MNP_DB.
//
// # Watching backends
//
// Every backend of a route is watched (Engine.Backends): its calls are
// counted with their durations, its errors by kind (ErrorKind: timeout,
// refused, unavailable, bad_answer, other; a call the caller cancelled is
// neither a failure nor a success), and the lookups that moved past it to
// the route's next backend. A failed call puts it in state failing, a
// successful one back to ok; Options.Logger gets a WARN line when it starts
// failing, and an INFO line when it recovers, with the route, the backend,
// the error's kind, the last error and how long it failed. The lines are
// throttled per backend: the start of a failing episode within a minute of
// the last logged one is only counted (its recovery line says how many),
// so a backend that fails one lookup in a hundred writes no line per
// failure.
//
// A circuit breaker guards each backend (CircuitOptions, per backend or for
// all in Options.Circuit): after Failures consecutive failed calls
// (default 5) its circuit opens, which is logged (WARN) once; lookups then
// skip it at once, without waiting for its timeout, as if it had failed
// with ErrCircuitOpen (a failover, counted as one, to the route's next
// backend; when it was the last, the lookup is REJECTED with error code 8).
// After CoolDown (default 30 s) one lookup is let through as a probe while
// the others keep skipping it: an answer closes the circuit (state ok,
// logged), a failure opens it for another cool-down (not logged again).
// Consecutive failures rather than a failure rate in a window: a backend
// that answers at all keeps its circuit closed, and a dead one is cut off
// after a fixed, predictable count of lookups that paid for it.
//
// Watching costs a successful call to a healthy backend two clock reads
// and a few atomic additions; it allocates nothing.
//
// Per-number outcomes are results, never errors: the methods return an
// error only for a request that cannot be served at all, a *RequestError
// (bad parameter; HTTP 400) or an error wrapping ErrNotRecorded (the sink
// refused the result; HTTP 503), and then no result was recorded or charged.
//
// # Cache
//
// With Options.Cache, completed HLR and MNP answers are kept per API key,
// product, number and route for the configured lifetime. A cached answer is
// returned with its original timestamp, a new id, "cached": true and a cost
// of 0.0000: it is never charged twice.
//
// # Thread safety
//
// Engine and Profile are immutable after construction, but for the watch
// of each backend (atomic counters and a lock taken on changes of state),
// and safe for concurrent use; lookups run concurrently, limited only by
// the backends.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// HLR is a named HLR backend of a route.
type HLR struct {
	Name    string
	Backend mnp.HLRBackend
	// Type names the backend's kind in its metrics label
	// ("<type>#<position>", see BackendStatus.Label); "" for the last
	// element of the backend's Go package path ("remote", "simnet").
	Type string
	// Circuit configures its circuit breaker; nil for Options.Circuit.
	Circuit *CircuitOptions
}

// Portability is a named portability backend of a route.
type Portability struct {
	Name    string
	Backend mnp.PortabilityBackend
	// Type and Circuit are HLR's.
	Type    string
	Circuit *CircuitOptions
}

// RouteBackends lists the backends that serve one route, in the order they
// are tried. An HLR route needs HLR backends, an MNP route portability
// backends; NT routes need none (the numbering plan answers them).
type RouteBackends struct {
	Route       string
	HLR         []HLR
	Portability []Portability
}

// Options configure an Engine. Plan is required; everything else has a
// default.
type Options struct {
	// Plan is the numbering plan (numbering.Load).
	Plan *numbering.Plan
	// Coverage is the routes and scores of automatic route selection;
	// default routing.DefaultCoverage.
	Coverage *routing.Coverage
	// PlatformMap holds the platform's (global) routing rules; default
	// routing.DefaultPlatformMap.
	PlatformMap *routing.Map
	// Backends serve the HLR and MNP routes of the coverage. A route
	// without a backend is not served: automatic selection passes it by
	// (its scores are left out of Coverage), GET /routes does not list
	// it, and a caller's route naming it is a *RequestError. The routing
	// maps may name only served routes: New fails on a PlatformMap rule
	// naming one without a backend, NewProfile on an account's; the
	// rules of the default platform map for routes without a backend are
	// left out. So an engine needs backends only for the routes it can
	// choose: one HLR route is enough to start.
	Backends []RouteBackends
	// Prices is the default price table of profiles; default DefaultPrices.
	Prices *Prices
	// BackendTimeout bounds one backend call; default 10 s.
	BackendTimeout time.Duration
	// Circuit configures the circuit breaker of every backend that sets
	// none of its own; zero fields take the defaults (5 failures, 30 s).
	Circuit CircuitOptions
	// Logger receives a line when a backend starts failing, when its
	// circuit opens and when it recovers; default slog.Default().
	Logger *slog.Logger
	// Cache enables the result cache; zero lifetimes disable it per product.
	Cache CacheOptions
	// Sink receives every result before the lookup returns; nil records
	// nothing.
	Sink Sink
	// Clock gives the time of results; default time.Now.
	Clock func() time.Time
	// Random is the source of lookup ids; default crypto/rand.
	Random io.Reader
}

// Engine answers lookups. See the package documentation.
type Engine struct {
	plan     *numbering.Plan
	platform *routing.Platform
	coverage *routing.Coverage
	products map[string]routing.Product // route -> product, of the served routes
	unserved map[string]routing.Product // the coverage's HLR and MNP routes without a backend
	hlr      map[string][]HLR
	port     map[string][]Portability
	watches  map[string][]*backendWatch // route -> its backends' (HLR or portability), in order
	routes   apiv2.RouteLists
	prices   Prices
	timeout  time.Duration
	cache    *cache
	sink     Sink
	clock    func() time.Time
	ids      *idSource
	months   *atomic.Pointer[monthReports] // storageName's, of the last month asked for; shared by WithSink's copies

	// deferSettle leaves the settling of budget reservations to the
	// caller of a sink that does not store (WithSink; budget.go).
	deferSettle bool
}

// New builds an Engine.
func New(o Options) (*Engine, error) {
	if o.Plan == nil {
		return nil, errors.New("engine: Options.Plan is required")
	}
	var err error
	if o.Coverage == nil {
		if o.Coverage, err = routing.DefaultCoverage(); err != nil {
			return nil, fmt.Errorf("engine: default coverage: %w", err)
		}
	}
	e := &Engine{
		plan:     o.Plan,
		products: map[string]routing.Product{},
		hlr:      map[string][]HLR{}, port: map[string][]Portability{},
		watches: map[string][]*backendWatch{},
		prices:  DefaultPrices, timeout: o.BackendTimeout, sink: o.Sink, clock: o.Clock,
	}
	if o.Prices != nil {
		e.prices = *o.Prices
	}
	if e.timeout <= 0 {
		e.timeout = 10 * time.Second
	}
	if e.clock == nil {
		e.clock = time.Now
	}
	e.ids = newIDSource(o.Random, e.clock)
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	e.months = new(atomic.Pointer[monthReports])
	for _, r := range o.Coverage.Routes {
		e.products[r.ID] = r.Product
	}
	for _, rb := range o.Backends {
		product, ok := e.products[rb.Route]
		switch {
		case !ok:
			return nil, fmt.Errorf("engine: backends for route %q, which the coverage data does not declare", rb.Route)
		case product == routing.NT:
			return nil, fmt.Errorf("engine: backends for NT route %q: the numbering plan answers NT lookups", rb.Route)
		case product == routing.HLR && len(rb.Portability) > 0:
			return nil, fmt.Errorf("engine: portability backends for HLR route %q", rb.Route)
		case product == routing.MNP && len(rb.HLR) > 0:
			return nil, fmt.Errorf("engine: HLR backends for MNP route %q", rb.Route)
		}
		for _, b := range rb.HLR {
			if b.Backend == nil {
				return nil, fmt.Errorf("engine: route %q: HLR backend %q is nil", rb.Route, b.Name)
			}
		}
		for _, b := range rb.Portability {
			if b.Backend == nil {
				return nil, fmt.Errorf("engine: route %q: portability backend %q is nil", rb.Route, b.Name)
			}
		}
		e.hlr[rb.Route] = append(e.hlr[rb.Route], rb.HLR...)
		e.port[rb.Route] = append(e.port[rb.Route], rb.Portability...)
		for _, b := range rb.HLR {
			e.watches[rb.Route] = append(e.watches[rb.Route], newBackendWatch(rb.Route, product, len(e.watches[rb.Route])+1,
				b.Name, b.Type, b.Backend, circuitOf(b.Circuit, o.Circuit), logger))
		}
		for _, b := range rb.Portability {
			e.watches[rb.Route] = append(e.watches[rb.Route], newBackendWatch(rb.Route, product, len(e.watches[rb.Route])+1,
				b.Name, b.Type, b.Backend, circuitOf(b.Circuit, o.Circuit), logger))
		}
	}
	e.unserved = map[string]routing.Product{}
	for _, r := range o.Coverage.Routes {
		if r.Product != routing.NT && len(e.hlr[r.ID])+len(e.port[r.ID]) == 0 {
			e.unserved[r.ID] = r.Product
			delete(e.products, r.ID)
		}
	}
	e.coverage = servedCoverage(o.Coverage, e.unserved)
	if o.PlatformMap == nil {
		if o.PlatformMap, err = routing.DefaultPlatformMap(); err != nil {
			return nil, fmt.Errorf("engine: default platform map: %w", err)
		}
		o.PlatformMap = servedRules(o.PlatformMap, e.unserved)
	} else if problems := e.unservedRules(o.PlatformMap); len(problems) > 0 {
		return nil, fmt.Errorf("engine: %w", &routing.MapError{What: "platform map", Problems: problems})
	}
	if e.platform, err = routing.NewPlatform(o.Plan, e.coverage, o.PlatformMap); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.routes = apiv2.RouteLists{
		HLR: nonNil(e.coverage.RoutesOf(routing.HLR)),
		MNP: nonNil(e.coverage.RoutesOf(routing.MNP)),
		NT:  nonNil(e.coverage.RoutesOf(routing.NT)),
	}
	if e.cache, err = newCache(o.Cache); err != nil {
		return nil, err
	}
	return e, nil
}

// servedCoverage returns cov without the routes of unserved and their
// scores (cov itself when every route is served).
func servedCoverage(cov *routing.Coverage, unserved map[string]routing.Product) *routing.Coverage {
	if len(unserved) == 0 {
		return cov
	}
	out := &routing.Coverage{About: cov.About, Networks: cov.Networks}
	for _, r := range cov.Routes {
		if _, ok := unserved[r.ID]; !ok {
			out.Routes = append(out.Routes, r)
		}
	}
	for _, sc := range cov.Scores {
		if _, ok := unserved[sc.Route]; !ok {
			out.Scores = append(out.Scores, sc)
		}
	}
	return out
}

// servedRules returns m without its rules for the routes of unserved (a
// default route of one becomes none).
func servedRules(m *routing.Map, unserved map[string]routing.Product) *routing.Map {
	if len(unserved) == 0 {
		return m
	}
	keep := func(route string) bool { _, ok := unserved[route]; return !ok }
	out := &routing.Map{MNPFallback: m.MNPFallback}
	if keep(m.DefaultRoute) {
		out.DefaultRoute = m.DefaultRoute
	}
	for _, r := range m.MCCMNCs {
		if keep(r.Route) {
			out.MCCMNCs = append(out.MCCMNCs, r)
		}
	}
	for _, r := range m.Prefixes {
		if keep(r.Route) {
			out.Prefixes = append(out.Prefixes, r)
		}
	}
	for _, r := range m.Countries {
		if keep(r.Route) {
			out.Countries = append(out.Countries, r)
		}
	}
	return out
}

// unservedRules names the rules of m whose route has no backend.
func (e *Engine) unservedRules(m *routing.Map) []string {
	var problems []string
	check := func(at, route string) {
		if product, ok := e.unserved[route]; ok {
			problems = append(problems, fmt.Sprintf("%s %q: the %s route has no backend (give it one, or route elsewhere)", at, route, product))
		}
	}
	check("defaultRoute", m.DefaultRoute)
	for i, r := range m.MCCMNCs {
		check(fmt.Sprintf("mccmncs[%d].route", i), r.Route)
	}
	for i, r := range m.Prefixes {
		check(fmt.Sprintf("prefixes[%d].route", i), r.Route)
	}
	for i, r := range m.Countries {
		check(fmt.Sprintf("countries[%d].route", i), r.Route)
	}
	return problems
}

// circuitOf is a backend's circuit options: its own, else the engine's,
// with the defaults.
func circuitOf(own *CircuitOptions, engine CircuitOptions) CircuitOptions {
	if own == nil {
		return engine.withDefaults(CircuitOptions{})
	}
	return own.withDefaults(engine)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Plan returns the engine's numbering plan.
func (e *Engine) Plan() *numbering.Plan { return e.plan }

// Platform returns the engine's routing platform.
func (e *Engine) Platform() *routing.Platform { return e.platform }

// Routes returns the GET /routes answer: the route identifiers of each
// product that this engine serves (a coverage route without a backend is
// left out).
func (e *Engine) Routes() apiv2.Routes { return apiv2.Routes{Routes: e.routes} }

// Coverage returns the coverage data that automatic route selection uses,
// the scores of the routes this engine serves only: the GET /hlr-coverage
// answer.
func (e *Engine) Coverage() *routing.Coverage { return e.coverage }

// ProfileOptions configure a Profile.
type ProfileOptions struct {
	// Key is the API key whose profile it is; it names the account in
	// results sent to the sink (Record.Account).
	Key string
	// Map is the routing map; nil for none (platform rules and automatic
	// selection only).
	Map *routing.Map
	// Prices is the price table; nil for the engine's.
	Prices *Prices
	// Budget limits what the account spends (a prepaid balance, a
	// monthly cap); nil for no limit.
	Budget Budget
}

// Profile is what the lookups of one API key share: its routing and
// prices. The sidecar's account (package engine/account) holds one beside
// the key's secrets and webhooks.
type Profile struct {
	key      string
	resolver *routing.Resolver
	prices   Prices
	budget   Budget // nil: no limit
}

// Key returns the API key whose profile it is.
func (p *Profile) Key() string { return p.key }

// Budget returns the profile's budget, nil when it spends without limit.
func (p *Profile) Budget() Budget { return p.budget }

// Resolver returns the profile's route resolver.
func (p *Profile) Resolver() *routing.Resolver { return p.resolver }

// NewProfile builds a profile. A routing map with problems is an error (a
// *routing.MapError naming each).
func (e *Engine) NewProfile(o ProfileOptions) (*Profile, error) {
	m := o.Map
	if m == nil {
		m = &routing.Map{}
	}
	if problems := e.unservedRules(m); len(problems) > 0 {
		return nil, &routing.MapError{Problems: problems}
	}
	r, err := e.platform.Resolver(m)
	if err != nil {
		return nil, err
	}
	p := &Profile{key: o.Key, resolver: r, prices: e.prices, budget: o.Budget}
	if o.Prices != nil {
		p.prices = *o.Prices
	}
	return p, nil
}

// Request is one synchronous or queued lookup.
type Request struct {
	// Number is the number as the caller gave it: international format
	// with "+" or "00", or, with Country, as written in that country.
	Number string
	// Country is the ISO 3166-1 alpha-2 code of the country whose
	// national format Number may be written in (the API's optional
	// "country"), read as numbering.Plan.ClassifyIn reads it; "" for
	// international format only. An unknown country is a *RequestError.
	Country string
	// Route is the route the caller chose, "" for automatic selection.
	Route string
	// Storage is the report name the caller chose, "" for the default.
	Storage string
	// Async marks lookups of the bulk endpoints: their default report is
	// ASYNC-API-..., not SYNC-API-....
	Async bool
	// ID, when not "", is the lookup's id, assigned earlier (bulk receipts
	// give ids before the lookups run); otherwise a new one is drawn.
	ID string
	// Encode asks for the result's JSON in the lookup's Answer, also when
	// the engine records to no sink (with a sink, the JSON is there
	// anyway).
	Encode bool
}

// RequestError is a request the engine cannot serve as given: the field
// and what is wrong with it. The HTTP adapter answers 400 with its message.
type RequestError struct {
	Field   string
	Problem string
}

func (e *RequestError) Error() string { return e.Field + ": " + e.Problem }

// ErrIdempotencyKeyReused is a bulk submission whose Idempotency-Key the
// account used before with a different body. The HTTP adapter answers 409.
var ErrIdempotencyKeyReused = errors.New("Idempotency-Key: used before with a different body; use a new key for a new submission")

// ErrNotRecorded wraps a sink's error: the result could not be recorded,
// so it was not returned (or charged). The HTTP adapter answers 503.
var ErrNotRecorded = errors.New("result not recorded")

// Route returns the GET /route answer for a number: the route automatic
// selection (with the profile's routing map) would take. It reads
// req.Number, written in international format or, with req.Country, in
// that country's national format; the other fields of req do not apply.
func (e *Engine) Route(p *Profile, req Request) (apiv2.RouteDecision, error) {
	msisdn, country := req.Number, req.Country
	if msisdn == "" {
		return apiv2.RouteDecision{}, &RequestError{"msisdn", "is required"}
	}
	if err := CheckNumberLength("msisdn", msisdn); err != nil {
		return apiv2.RouteDecision{}, err
	}
	res, err := e.classify(msisdn, country)
	if err != nil {
		return apiv2.RouteDecision{}, err
	}
	if res.Number.IsZero() {
		if country != "" {
			return apiv2.RouteDecision{}, &RequestError{"msisdn", fmt.Sprintf("%q is not a phone number of %s: %s", msisdn, country, res.Reason)}
		}
		return apiv2.RouteDecision{}, &RequestError{"msisdn", fmt.Sprintf("%q is not a phone number in international format: %s", msisdn, res.Reason)}
	}
	d := p.resolver.Resolve(&res)
	return apiv2.RouteDecision{
		Route: d.Route, ConfidenceLevel: d.Confidence.String(), MCCMNC: d.MCCMNC, Origin: d.Origin.String(),
	}, nil
}

// RoutingMap returns the profile's routing map as GET /routing-map shows it.
func (e *Engine) RoutingMap(p *Profile) (apiv2.RoutingMap, error) {
	var out apiv2.RoutingMap
	b, err := p.resolver.EffectiveMap().MarshalJSON()
	if err != nil {
		return out, err
	}
	out.Routing.Map = b
	return out, nil
}

// NewID returns a new lookup id (bulk receipts hand ids out before the
// lookups run).
func (e *Engine) NewID() (string, error) { return e.ids.next() }

// timestampLayout is the API's timestamp: date, time with milliseconds,
// offset without colon.
const timestampLayout = "2006-01-02 15:04:05.000-0700"

// Timestamp formats t as the API does.
func Timestamp(t time.Time) string { return t.Format(timestampLayout) }

// MaxStorageLength bounds a report name chosen by the caller, in
// characters (Unicode code points, as JSON Schema's maxLength counts).
const MaxStorageLength = 100

// MaxNumberLength bounds an input number, in characters: no number, however
// formatted, comes near it (E.164 has at most 15 digits). A longer input is
// refused before anything is classified, stored or charged, so that a
// client cannot store megabytes as "numbers" for free.
const MaxNumberLength = 250

// CheckNumberLength refuses an input number longer than MaxNumberLength
// with a *RequestError naming field.
func CheckNumberLength(field, number string) error {
	// len is a bound on the count of characters: most inputs need no count.
	if len(number) <= MaxNumberLength {
		return nil
	}
	if n := utf8.RuneCountInString(number); n > MaxNumberLength {
		return &RequestError{field, fmt.Sprintf("is %d characters long; at most %d", n, MaxNumberLength)}
	}
	return nil
}

// monthReports are the default report names of one month (StorageName).
type monthReports struct {
	year   int
	month  time.Month
	suffix string       // "-2026-11"
	names  [2][3]string // [async][HLR, MNP, NT]
}

// storageName is StorageName, with the month's default names made once.
func (e *Engine) storageName(storage string, product routing.Product, async bool, t time.Time) string {
	if e.months == nil {
		return StorageName(storage, product, async, t)
	}
	year, month, _ := t.UTC().Date()
	m := e.months.Load()
	if m == nil || m.year != year || m.month != month {
		m = &monthReports{year: year, month: month, suffix: t.UTC().Format("-2006-01")}
		for i, async := range []bool{false, true} {
			for j, p := range []routing.Product{routing.HLR, routing.MNP, routing.NT} {
				m.names[i][j] = StorageName("", p, async, t)
			}
		}
		e.months.Store(m)
	}
	if storage != "" {
		return storage + m.suffix
	}
	i := 0
	if async {
		i = 1
	}
	switch product {
	case routing.HLR:
		return m.names[i][0]
	case routing.MNP:
		return m.names[i][1]
	case routing.NT:
		return m.names[i][2]
	}
	return StorageName(storage, product, async, t)
}

// StorageName returns the report a result of product goes to: the caller's
// name, or SYNC-API / ASYNC-API with -NT or -MNP for those products, then
// the month of t in UTC: "SYNC-API-NT-2026-11".
func StorageName(storage string, product routing.Product, async bool, t time.Time) string {
	if storage == "" {
		storage = "SYNC-API"
		if async {
			storage = "ASYNC-API"
		}
		if product != routing.HLR {
			storage += "-" + string(product)
		}
	}
	return storage + t.UTC().Format("-2006-01")
}

// checkStorage validates a report name chosen by the caller.
func checkStorage(s string) error {
	if len(s) > MaxStorageLength {
		if n := utf8.RuneCountInString(s); n > MaxStorageLength {
			return &RequestError{"storage", fmt.Sprintf("is %d characters long; at most %d", n, MaxStorageLength)}
		}
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return &RequestError{"storage", fmt.Sprintf("%q contains a control character or invalid UTF-8", s)}
		}
	}
	return nil
}

// checkRoute validates a route named by the caller for a product.
func (e *Engine) checkRoute(route string, allowed ...routing.Product) error {
	if len(route) != 3 {
		return &RequestError{"route", fmt.Sprintf("%q: a route is 3 characters", route)}
	}
	if product, ok := e.unserved[route]; ok {
		return &RequestError{"route", fmt.Sprintf("%q: this service has no backend for the %s route (GET /routes lists those it has)", route, product)}
	}
	product, ok := e.products[route]
	if !ok {
		return &RequestError{"route", fmt.Sprintf("%q is not a route of this service (GET /routes lists them)", route)}
	}
	for _, p := range allowed {
		if product == p {
			return nil
		}
	}
	return &RequestError{"route", fmt.Sprintf("%q is an %s route; this lookup needs one of %v", route, product, allowed)}
}

// record sends a result to the sink.
func (e *Engine) record(ctx context.Context, r Record) error {
	if e.sink == nil {
		return nil
	}
	if err := e.sink.Record(ctx, r); err != nil {
		return fmt.Errorf("%w: %w", ErrNotRecorded, err)
	}
	return nil
}

// WithSink returns a copy of e that records to s instead of e's sink:
// bulk workers collect a batch's results and record them together.
//
// The copy's lookups leave their budget reservations (Budget) to the
// caller, since what s received is not yet durable: each Record carries
// what its lookup holds (Record.Reserved), for SettleRecords once the
// records are stored, or failed to be.
func (e *Engine) WithSink(s Sink) *Engine {
	c := *e
	c.sink = s
	c.deferSettle = s != nil
	return &c
}

// Admission is what a bulk submission decides about one number before
// queuing it: whether it is usable, the route it will most likely take and
// what it will cost if the lookup completes.
type Admission struct {
	Accepted bool
	Route    string
	Cost     Money
	// Number is the number as its result will name it: E.164 when it
	// parsed ("123", a bare MSISDN, is +123), else the input as given.
	Number string
}

// Submission is one bulk request (POST /hlr-lookups, POST /nt-lookups)
// as the HTTP adapter hands it to the bulk queue (package engine/bulk).
type Submission struct {
	// Product is ProductHLR or ProductNT.
	Product Product
	// Numbers are the numbers as given, at most 1000.
	Numbers []string
	// Route, Storage and Country apply to every number, as Request's do.
	Route, Storage, Country string
	// IdempotencyKey is the request's Idempotency-Key header, "" for none;
	// Body is the request body, whose hash the key is bound to.
	IdempotencyKey string
	Body           []byte
}

// Admit decides whether a number of a bulk submission (req.Number, read
// as req.Country says) is usable for a product: an NT lookup needs a
// number whose calling code can be read, an HLR lookup a valid mobile
// number that routing does not reject. A route named by the caller
// (req.Route) that does not fit the product is a *RequestError, as is a
// bad storage name (req.Storage).
func (e *Engine) Admit(p *Profile, product routing.Product, req Request) (Admission, error) {
	number, route, storage, country := req.Number, req.Route, req.Storage, req.Country
	if err := checkStorage(storage); err != nil {
		return Admission{}, err
	}
	if err := CheckNumberLength("number", number); err != nil {
		return Admission{}, err
	}
	res, err := e.classify(number, country)
	if err != nil {
		return Admission{}, err
	}
	switch product {
	case routing.NT:
		route, err := e.routeFor(route, routing.NT)
		if err != nil {
			return Admission{}, err
		}
		if res.Status != numbering.StatusOK {
			return Admission{Route: route, Number: apiv2.NumberOf(&res)}, nil
		}
		return Admission{Accepted: true, Route: route, Cost: p.prices.Of(routing.NT, route), Number: apiv2.NumberOf(&res)}, nil
	case routing.HLR:
		if route != "" {
			if err := e.checkRoute(route, routing.HLR, routing.MNP); err != nil {
				return Admission{}, err
			}
		}
		if !res.Valid || !res.QualifiesForHLR {
			return Admission{Route: route, Number: apiv2.NumberOf(&res)}, nil
		}
		var d routing.Decision
		if route != "" {
			var err error
			if d, err = p.resolver.Static(&res, route); err != nil {
				return Admission{}, &RequestError{"route", err.Error()}
			}
		} else {
			d = p.resolver.Resolve(&res)
		}
		if d.Rejected() {
			return Admission{Route: d.Route, Number: apiv2.NumberOf(&res)}, nil
		}
		return Admission{Accepted: true, Route: d.Route, Cost: p.prices.Of(e.products[d.Route], d.Route), Number: apiv2.NumberOf(&res)}, nil
	}
	return Admission{}, fmt.Errorf("engine: bulk lookups of product %q are not offered", product)
}
