package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/httpapi/internal/promtext"
)

// watchBackends registers the metrics of the engine's backends
// (engine.Engine.Backends), one series per backend of a route, labelled
// route and backend ("<type>#<position>", such as "remote#1": as many as
// the configuration has backends):
//
//	numen_backend_requests_total{route, backend}              counter
//	numen_backend_errors_total{route, backend, kind}          counter
//	numen_backend_request_duration_seconds{route, backend}    histogram
//	numen_backend_failovers_total{route, backend}             counter
//	numen_backend_skipped_total{route, backend}               counter
//	numen_backend_circuit_opened_total{route, backend}        counter
//	numen_backend_state{route, backend}                       gauge
//	numen_backend_info{route, backend, name, type}            gauge
//
// kind is one of engine.ErrorKinds (timeout, refused, unavailable,
// bad_answer, other), every one written from the start; state is 0 ok,
// 1 failing, 2 circuit open; info is 1, naming the backend. They are read
// from one snapshot per scrape. A Metrics counts the backends of the first
// engine it is given; later calls do nothing (handlers sharing a Metrics
// serve one engine, or copies of it that share its backends).
func (m *Metrics) watchBackends(e *engine.Engine) {
	m.backendsMu.Lock()
	defer m.backendsMu.Unlock()
	if m.backendsOf != nil {
		return
	}
	m.backendsOf = e
	// Write calls BeforeWrite's functions and reads the series one write
	// at a time, under the registry's lock.
	initial := e.Backends()
	snap := initial
	m.reg.BeforeWrite(func() { snap = e.Backends() })
	read := func(i int) *engine.BackendStatus { return &snap[i] }
	requests := m.reg.Family("numen_backend_requests_total", "Calls to each backend of a route (probes of an open circuit included, skipped lookups not).",
		promtext.KindCounter, "route", "backend")
	errs := m.reg.Family("numen_backend_errors_total", "Failed calls to each backend of a route, by kind: timeout, refused (no connection), unavailable (the backend said so: 5xx, 429, no data), bad_answer (unreadable), other.",
		promtext.KindCounter, "route", "backend", "kind")
	durations := m.reg.HistogramFamily("numen_backend_request_duration_seconds", "Time of calls to each backend of a route, answered or failed.",
		engine.BackendLatencyBuckets, "route", "backend")
	failovers := m.reg.Family("numen_backend_failovers_total", "Lookups that moved past a backend to the route's next one, after its error or skipping its open circuit.",
		promtext.KindCounter, "route", "backend")
	skipped := m.reg.Family("numen_backend_skipped_total", "Lookups that did not ask a backend because its circuit was open.",
		promtext.KindCounter, "route", "backend")
	opened := m.reg.Family("numen_backend_circuit_opened_total", "Times a backend's circuit opened after consecutive failures.",
		promtext.KindCounter, "route", "backend")
	state := m.reg.Family("numen_backend_state", "State of each backend of a route: 0 ok, 1 failing (its last call failed), 2 circuit open (skipped).",
		promtext.KindGauge, "route", "backend")
	info := m.reg.Family("numen_backend_info", "The configured name and type of each backend of a route (value 1).",
		promtext.KindGauge, "route", "backend", "name", "type")
	for i, b := range initial {
		requests.Func(func() float64 { return float64(read(i).Requests) }, b.Route, b.Label)
		for _, k := range engine.ErrorKinds() {
			errs.Func(func() float64 { return float64(read(i).Errors[k]) }, b.Route, b.Label, k.String())
		}
		durations.HistogramFunc(func() promtext.HistogramValue {
			s := read(i)
			return promtext.HistogramValue{Counts: s.LatencyCounts, Sum: s.LatencySum}
		}, b.Route, b.Label)
		failovers.Func(func() float64 { return float64(read(i).Failovers) }, b.Route, b.Label)
		skipped.Func(func() float64 { return float64(read(i).Skipped) }, b.Route, b.Label)
		opened.Func(func() float64 { return float64(read(i).Opened) }, b.Route, b.Label)
		state.Func(func() float64 { return float64(read(i).State) }, b.Route, b.Label)
		info.Func(func() float64 { return 1 }, b.Route, b.Label, b.Name, b.Type)
	}
}

// health is GET /healthz's body.
type health struct {
	// Status is "ok" (every check passed, every backend ok), "degraded"
	// (a backend failing or its circuit open, but every route has a
	// backend whose circuit is closed) or "unhealthy" (503).
	Status string `json:"status"`
	// Errors say what is unhealthy: the Health check's error, the routes
	// whose every backend's circuit is open.
	Errors   []string        `json:"errors,omitempty"`
	Backends []healthBackend `json:"backends"`
}

// healthBackend is one backend in GET /healthz.
type healthBackend struct {
	Route   string `json:"route"`
	Backend string `json:"backend"` // the metrics label, "remote#1"
	Name    string `json:"name"`
	State   string `json:"state"` // ok, failing, open
	// Failures in a row, and since when (RFC 3339, null when ok).
	Failures     int     `json:"failures"`
	FailingSince *string `json:"failing_since"`
	// The last failed call's error kind, kept after a recovery (null
	// before any failure). Not its message: /healthz is public, and a
	// message names upstream addresses ("dial tcp 10.0.0.7:443: ...");
	// the log line of the failure has it.
	LastErrorKind *string `json:"last_error_kind"`
}

// healthOf checks the server: the configured Health check, then the
// engine's backends. A route whose every backend has an open circuit
// makes it unhealthy (no lookup of the route can be answered); a backend
// failing or open beside one that works makes it degraded, still 200.
func (h *Handler) healthOf(ctx context.Context) (health, int) {
	out := health{Status: "ok", Backends: []healthBackend{}}
	if h.cfg.Health != nil {
		if err := h.cfg.Health(ctx); err != nil {
			out.Errors = append(out.Errors, "unhealthy: "+err.Error())
		}
	}
	working := map[string]bool{}
	var order []string
	open := map[string][]string{}
	for _, b := range h.cfg.Engine.Backends() {
		hb := healthBackend{Route: b.Route, Backend: b.Label, Name: b.Name, State: b.State.String(), Failures: b.Failures}
		if !b.FailingSince.IsZero() {
			t := b.FailingSince.UTC().Format(time.RFC3339)
			hb.FailingSince = &t
		}
		if b.LastErrorKind != engine.ErrorNone {
			k := b.LastErrorKind.String()
			hb.LastErrorKind = &k
		}
		out.Backends = append(out.Backends, hb)
		if _, seen := working[b.Route]; !seen {
			order = append(order, b.Route)
			working[b.Route] = false
		}
		if b.State == engine.BackendOpen {
			open[b.Route] = append(open[b.Route], b.Label)
		} else {
			working[b.Route] = true
		}
		if b.State != engine.BackendOK {
			out.Status = "degraded"
		}
	}
	for _, r := range order {
		if !working[r] {
			out.Errors = append(out.Errors, fmt.Sprintf("unhealthy: route %s: every backend's circuit is open (%s); its lookups are REJECTED until a probe succeeds",
				r, strings.Join(open[r], ", ")))
		}
	}
	if len(out.Errors) > 0 {
		out.Status = "unhealthy"
		return out, http.StatusServiceUnavailable
	}
	return out, http.StatusOK
}

func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	body, status := h.healthOf(r.Context())
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeJSON(w, status, body)
}
